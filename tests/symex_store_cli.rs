//! The summary store through the command line: a run killed with SIGKILL
//! leaves a store that opens, passes SQLite's integrity check and is
//! reused by the next run; `concord store ls|rm`; `symex OLD NEW` reuses
//! OLD's complete run the second time.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_concord"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn stats(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("stats.json")).unwrap()).unwrap()
}

/// symex-programs/needle.c takes several seconds in dpor+ag (only strict
/// alternation of the two threads' updates reaches the violation at line
/// 34); it is killed after its first summaries were committed.
#[test]
fn killed_run_leaves_a_reusable_store() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("s.db");
    let prog = root().join("symex-programs/needle.c");
    let mut child = bin()
        .args(["-q", "symex"])
        .arg(&prog)
        .arg("--store")
        .arg(&store)
        .arg("--output-dir")
        .arg(tmp.path().join("o1"))
        .spawn()
        .unwrap();
    // Summaries are committed every two seconds: wait for some.
    let t = std::time::Instant::now();
    let mut committed = 0i64;
    while t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(500));
        if let Ok(c) = rusqlite::Connection::open_with_flags(
            &store,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        ) {
            committed = c
                .query_row("SELECT COUNT(*) FROM summaries", [], |r| r.get(0))
                .unwrap_or(0);
        }
        if committed > 0 || child.try_wait().unwrap().is_some() {
            break;
        }
    }
    // The exploration may already be over (needle takes about 2 s in a
    // debug build now, the first commit comes after 2 s): then the run is
    // recorded complete before the kill, and the kill tests nothing. The
    // child is stopped first, so that it cannot record completion between
    // this check and the kill (a loaded machine makes that window long).
    // SAFETY: kill(2) on our own child's pid, which is not reaped yet.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGSTOP);
    }
    let complete_before_kill = concord::symex::store::Store::open(&store)
        .ok()
        .and_then(|s| s.list().ok())
        .is_some_and(|runs| runs.iter().any(|r| r.complete));
    child.kill().ok(); // SIGKILL on Unix
    let finished_early = {
        use std::os::unix::process::ExitStatusExt;
        child.wait().unwrap().signal().is_none() || complete_before_kill
    };
    let s = concord::symex::store::Store::open(&store).unwrap();
    assert!(s.integrity_ok().unwrap());
    let runs = s.list().unwrap();
    assert_eq!(runs.len(), 1);
    if !finished_early {
        assert!(!runs[0].complete, "a killed run is not complete");
    }
    drop(s);
    // The next run completes, finds the violation and read the summaries
    // the killed run committed.
    let out = bin()
        .args(["-q", "symex"])
        .arg(&prog)
        .arg("--store")
        .arg(&store)
        .arg("--output-dir")
        .arg(tmp.path().join("o2"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("needle.c:34"));
    let st = stats(&tmp.path().join("o2"));
    if !finished_early && committed > 0 {
        assert!(st["summaries_imported"].as_u64().unwrap() > 0, "{st}");
    }
    // ls shows both runs, rm --all empties the store.
    let ls = bin()
        .args(["store", "ls", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert_eq!(ls.status.code(), Some(0));
    let rows: serde_json::Value = serde_json::from_slice(&ls.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 2);
    assert_eq!(rows[1]["complete"], true);
    let rm = bin()
        .args(["store", "rm", "--all", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert_eq!(rm.status.code(), Some(0));
    let ls = bin()
        .args(["store", "ls", "--json", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&ls.stdout).unwrap();
    assert!(rows.as_array().unwrap().is_empty());
}

/// `symex OLD NEW` twice on bench-programs/conc-ise-fig2: the first run
/// explores OLD, the second takes OLD's complete run from the store (runs
/// drop); both report the violation of NEW alone (the assertion on line 28,
/// `a >= 10`, fails when thread1 reads x = 5 after thread2's write).
#[test]
fn incremental_cli_reuses_old_and_refuses_foreign_stores() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("s.db");
    let d = root().join("bench-programs/conc-ise-fig2");
    let run = |o: &str| {
        bin()
            .args(["-q", "symex"])
            .arg(d.join("v1.c"))
            .arg(d.join("v2.c"))
            .arg("--store")
            .arg(&store)
            .arg("--output-dir")
            .arg(tmp.path().join(o))
            .output()
            .unwrap()
    };
    let first = run("o1");
    let second = run("o2");
    assert_eq!(first.status.code(), Some(1));
    assert_eq!(second.status.code(), Some(1));
    assert_eq!(first.stdout, second.stdout);
    assert!(String::from_utf8_lossy(&first.stdout).contains("v2.c:28"));
    let inc = |o: &str| -> serde_json::Value {
        serde_json::from_str(
            &std::fs::read_to_string(tmp.path().join(o).join("incremental.json")).unwrap(),
        )
        .unwrap()
    };
    assert!(inc("o1")["old_runs"].as_u64().unwrap() > 0);
    assert_eq!(inc("o2")["old_runs"], 0);
    assert_eq!(inc("o2")["old_reused"], true);
    // A file that is not a store: refused, exit 3, nothing overwritten.
    let junk = tmp.path().join("junk.db");
    std::fs::write(&junk, "plain text, not SQLite").unwrap();
    let out = bin()
        .args(["-q", "symex"])
        .arg(d.join("v2.c"))
        .arg("--store")
        .arg(&junk)
        .arg("--output-dir")
        .arg(tmp.path().join("o3"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a concord summary store"));
    assert_eq!(
        std::fs::read_to_string(&junk).unwrap(),
        "plain text, not SQLite"
    );
}
