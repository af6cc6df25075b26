//! C sources are promoted to SSA inside concord (LLVM's mem2reg through
//! the C API) and their struct layouts and debug information read from the
//! same parse; `.bc` files go through `opt-14 -passes=mem2reg` and are
//! read again for that. Both ways must give the same program.

use concord::frontend::{clang_path, llvm_view, load_program, CompileOptions, BASE_CFLAGS};
use std::process::Command;

const SOURCE: &str = "#include <pthread.h>
struct pool { struct pool *next; int count; unsigned a : 3, b : 5; };
struct pool shared;
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
void *worker(void *arg) {
  int local = shared.count;
  for (int i = 0; i < 3; i++) local += i;
  pthread_mutex_lock(&lock);
  shared.count = local;
  shared.b = 2;
  pthread_mutex_unlock(&lock);
  return arg;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  return shared.count;
}
";

#[test]
fn in_process_mem2reg_gives_what_opt_gives() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("pool.c");
    std::fs::write(&c, SOURCE).unwrap();
    let bc = dir.path().join("pool.bc");
    let status = Command::new(clang_path().unwrap())
        .args(BASE_CFLAGS)
        .arg(&c)
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap();
    assert!(status.success());

    let from_c = load_program(&c, &CompileOptions::default()).unwrap();
    let from_bc = load_program(&bc, &CompileOptions::default()).unwrap();
    assert!(
        from_c.llvm_view.is_some(),
        "C: the view comes with the parse"
    );
    assert!(from_bc.llvm_view.is_none(), ".bc: opt-14 normalised it");

    // the same functions, instruction for instruction (so mem2reg ran:
    // opt's output has no alloca for `local` or `i`)
    assert_eq!(from_c.module.functions, from_bc.module.functions);
    let worker = from_c.module.get_func_by_name("worker").unwrap();
    let allocas = worker
        .basic_blocks
        .iter()
        .flat_map(|b| &b.instrs)
        .filter(|i| matches!(i, llvm_ir::Instruction::Alloca(_)))
        .count();
    assert_eq!(allocas, 0, "every local of worker is an SSA value");

    // the same layouts and debug information
    let (a, b) = (llvm_view(&from_c).unwrap(), llvm_view(&from_bc).unwrap());
    assert_eq!(a.layouts, b.layouts);
    assert_eq!(a.metadata, b.metadata);
    let pool = &a.layouts["struct.pool"];
    // { %struct.pool*, i32, i8 }: the bit-fields share the i8, then padding
    assert_eq!(pool.offsets, vec![0, 8, 12]);
    assert_eq!(pool.size, 16);
    assert!(a.metadata.contains("name: \"pool\""));
}
