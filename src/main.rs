// concord allocates many small rows, sets and terms and frees them in
// bulk; mimalloc spends less time there than glibc's malloc (measured on
// pigz: docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(concord::cli::main());
}
