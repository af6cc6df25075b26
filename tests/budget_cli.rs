//! `--timeout` and `--max-memory` on the analysing commands: exit code 9,
//! a message naming the limit, and nothing written.

mod common;
use common::*;
use std::process::Command;

fn concord(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .unwrap()
}

const V1: &str = "bench-programs/ecdiff-fig2-lock/v1.c";
const V2: &str = "bench-programs/ecdiff-fig2-lock/v2.c";

#[test]
fn diff_over_its_time_limit_exits_9_and_prints_no_report() {
    // compiling a version alone takes far longer than a millisecond, so the
    // check at the start of the next phase fails
    let o = concord(&["diff", "--timeout", "0.001", V1, V2]);
    assert_eq!(
        o.status.code(),
        Some(9),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty(), "a partial report was printed");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("time limit of 0.001 s (--timeout)"), "{err}");
    // the same command without a limit succeeds (exit 1: differences)
    assert_eq!(concord(&["-q", "diff", V1, V2]).status.code(), Some(1));
}

#[test]
fn facts_over_its_memory_limit_writes_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("facts");
    let out_s = out.display().to_string();
    // any process is larger than 1 MB: the watchdog flags it before the
    // facts are written, and the write is refused
    let o = concord(&["facts", "--max-memory", "1", V1, "-o", &out_s]);
    assert_eq!(
        o.status.code(),
        Some(9),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("memory limit of 1 MB (--max-memory)"), "{err}");
    assert!(!out.exists(), "fact directory written despite the limit");
    // with a generous limit the directory is written
    let o = concord(&["-q", "facts", "--max-memory", "4000", V1, "-o", &out_s]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.join("manifest.json").is_file());
}

#[test]
fn other_analysing_commands_take_the_budget_flags() {
    for args in [
        vec!["changes", "--timeout", "0.001", V1, V2],
        vec!["impact", "--timeout", "0.001", V1, V2],
        vec!["query", "--timeout", "0.001", V1, "rf_may"],
    ] {
        let o = concord(&args);
        assert_eq!(
            o.status.code(),
            Some(9),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.stdout.is_empty(), "{args:?}: output despite the limit");
    }
    // a malformed limit is a usage error
    assert_eq!(
        concord(&["diff", "--timeout", "-1", V1, V2]).status.code(),
        Some(2)
    );
}
