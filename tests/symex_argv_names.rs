//! Traces name the command line's objects `argv` and `argv[k]` (issue
//! 29), not the engine's object numbers (`object#N`).

use std::process::Command;

/// main hands `argv[1]` to a worker through a global; the worker reads its
/// first character (a visible step: the string escaped) and sets `seen`;
/// main may check `seen` before the worker ran: a violation whose trace
/// reads `arg` (a pointer to the string) and the string's first byte.
#[test]
fn symex_traces_name_argv() {
    let dir = tempfile::tempdir().unwrap();
    let prog = dir.path().join("prog.c");
    std::fs::write(
        &prog,
        "#include <pthread.h>
#include <assert.h>
char *arg;
int seen;
void *worker(void *a) {
  if (arg[0] == 'x')
    seen = 1;
  return a;
}
int main(int argc, char **argv) {
  pthread_t t;
  arg = argv[1];
  pthread_create(&t, 0, worker, 0);
  assert(seen == 1);
  pthread_join(t, 0);
  return 0;
}
",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args([
            "-q",
            "symex",
            prog.to_str().unwrap(),
            "--no-store",
            "--format",
            "json",
            "--output-dir",
            out.to_str().unwrap(),
            "--",
            "x",
        ])
        .output()
        .unwrap();
    let json = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(o.status.code(), Some(1), "a violation: {json}");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let ops: Vec<String> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["trace"].as_array().cloned().unwrap_or_default())
        .map(|s| s["op"].as_str().unwrap().to_string())
        .collect();
    assert!(
        ops.iter().any(|o| o.starts_with("write arg = &argv[1]")),
        "{ops:#?}"
    );
    assert!(ops.iter().any(|o| o == "read argv[1][0] = 120"), "{ops:#?}");
    assert!(ops.iter().all(|o| !o.contains("object#")), "{ops:#?}");
}
