//! Less noise in `changes`: one line per source line, IR only on request,
//! string constants compared without their numbers.

use crate::common;
use common::*;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("binary runs")
}

const OLD: &str = "#include <stdio.h>\n#include <pthread.h>\nint x;\nvoid *t(void *p) { x = 1; return 0; }\nint main(void) {\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n  pthread_join(h, 0);\n  printf(\"done %d\\n\", x);\n  return 0;\n}\n";

/// The patch adds one `printf` with a new string literal on line 7, before
/// the existing one. clang numbers string constants in order, so the old
/// `@.str` becomes `@.str.1`: the existing `printf` (old 9, new 10) must
/// not count as modified. The only change is the added line 7 (its
/// address computation and call).
#[test]
fn a_new_string_literal_does_not_modify_later_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old.c");
    let new = tmp.path().join("new.c");
    std::fs::write(&old, OLD).unwrap();
    std::fs::write(
        &new,
        OLD.replace(
            "  pthread_create",
            "  printf(\"start\\n\");\n  pthread_create",
        ),
    )
    .unwrap();
    let o = run(&[
        "changes",
        "--format",
        "json",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let changes = doc["changes"].as_array().unwrap();
    assert!(!changes.is_empty());
    for c in changes {
        assert_eq!(c["kind"], "added", "{c:#}");
        assert_eq!(c["new"]["line"], 7, "{c:#}");
    }
}

/// Text output: one line per changed source line, the instruction texts
/// only with `--ir`.
#[test]
fn changes_text_shows_ir_only_on_request() {
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old.c");
    let new = tmp.path().join("new.c");
    std::fs::write(&old, OLD).unwrap();
    // Line 4 changes: `x = 1` becomes `x = 2` (one store modified).
    std::fs::write(&new, OLD.replace("x = 1;", "x = 2;")).unwrap();
    let (o, n) = (old.to_str().unwrap(), new.to_str().unwrap());
    let plain = String::from_utf8(run(&["changes", o, n]).stdout).unwrap();
    let with_ir = String::from_utf8(run(&["changes", "--ir", o, n]).stdout).unwrap();
    assert!(plain.contains("old.c:4 -> new.c:4"), "{plain}");
    assert!(!plain.contains("store i32"), "no IR without --ir: {plain}");
    assert!(
        with_ir.contains("store i32 1") && with_ir.contains("store i32 2"),
        "{with_ir}"
    );
}
