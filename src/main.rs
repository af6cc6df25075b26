// concord allocates many small rows, sets and terms and frees them in
// bulk; mimalloc spends less time there than glibc's malloc (measured on
// pigz: docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // mimalloc's memory is eligible for transparent huge pages, and the
    // kernel zeroes 2 MiB on a fault in one however little of it a phase
    // touches; phases free and reallocate gigabytes, so that was most of
    // a 50 KLoC diff's system time (6.5 -> 2.2 s; docs/results/2026-11-29.md).
    // Plain pages for this process and its children (clang); failing
    // leaves the default. (Keeping freed pages instead, mimalloc's purge
    // delay -1, saved less and raised the peak by a quarter.)
    // SAFETY: prctl with integer arguments only.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0)
    };
    std::process::exit(concord::cli::main());
}
