//! The `concord symex` / `concord replay` commands and the results directory.

use std::path::PathBuf;
use std::process::Command;

fn prog(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("symex-programs")
        .join(name)
}

#[test]
fn results_directory_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(dir.path())
        .args(["symex", "--reduction", "dpor"])
        .arg(prog("racy_counter.c"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "violations found => exit 1; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d = dir.path().join("concord-out-0");
    assert!(d.join("info").exists());
    assert!(dir.path().join("concord-last").exists());
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("stats.json")).unwrap()).unwrap();
    assert!(stats["complete_runs"].as_u64().unwrap() >= 1);
    let tc_path = d.join("test000001.json");
    let tc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tc_path).unwrap()).unwrap();
    assert_eq!(tc["kind"], "assertion");
    assert!(tc["location"]
        .as_str()
        .unwrap()
        .ends_with("racy_counter.c:23:3"));
    assert!(!tc["schedule"].as_array().unwrap().is_empty());
    // A second run gets a new directory and moves the link.
    let out2 = Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(dir.path())
        .args(["-q", "symex"])
        .arg(prog("locked_counter.c"))
        .output()
        .unwrap();
    assert_eq!(out2.status.code(), Some(0));
    assert!(dir.path().join("concord-out-1/info").exists());
    assert_eq!(
        std::fs::read_link(dir.path().join("concord-last")).unwrap(),
        PathBuf::from("concord-out-1")
    );
    let rep = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["replay"])
        .arg(prog("racy_counter.c"))
        .arg(&tc_path)
        .output()
        .unwrap();
    assert_eq!(
        rep.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rep.stdout)
    );
    // The trace of the replayed run comes first, the verdict last.
    let out = String::from_utf8_lossy(&rep.stdout);
    assert!(out.starts_with("trace:"), "{out}");
    assert!(
        out.lines().last().unwrap().starts_with("confirmed"),
        "{out}"
    );
}

/// A reused `--output-dir` is refused (exit 8) and left as it was: test
/// cases of two runs are never mixed. An existing empty directory is used.
#[test]
fn a_reused_output_dir_is_refused_not_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_concord"))
            .args(["-q", "symex", "--no-store", "--output-dir"])
            .arg(&out)
            .arg(prog("racy_counter.c"))
            .output()
            .unwrap()
    };
    std::fs::create_dir(&out).unwrap();
    let first = run();
    assert_eq!(first.status.code(), Some(1), "an empty directory is used");
    let before: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let stats = std::fs::read(out.join("stats.json")).unwrap();
    let second = run();
    assert_eq!(second.status.code(), Some(8));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("not empty"), "{err}");
    assert!(second.stdout.is_empty(), "no summary for a refused run");
    let after: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(before, after);
    assert_eq!(std::fs::read(out.join("stats.json")).unwrap(), stats);
}
