// concord allocates many small rows, sets and terms and frees them in
// bulk; mimalloc spends less time there than glibc's malloc (measured on
// pigz: docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// mimalloc's runtime options (mimalloc.h, `mi_option_e`; the same index in
// its v2 and v3): the linked library exports the setter.
extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

fn main() {
    // A run frees and reallocates gigabytes between phases (each version's
    // rules, then the diff); by default mimalloc hands freed pages back to
    // the kernel after 10 ms, which zeroes them again when they come back:
    // a fifth of a 50 KLoC diff's CPU time. A run is one short process, so
    // keep them (docs/results/2026-11-29.md: 22.4 -> 19.9 s, peak +3%).
    // SAFETY: sets an integer option of the allocator, before any thread.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    // mimalloc asks for transparent huge pages, and the kernel zeroes 2 MiB
    // on a fault in one, however little of it a phase touches: two thirds of
    // the same diff's system time (6.5 -> 2.2 s, 21.0 -> 19.8 s). Plain
    // pages for this process and its children (clang); failing leaves the
    // default.
    // SAFETY: prctl with integer arguments only.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0)
    };
    std::process::exit(concord::cli::main());
}
