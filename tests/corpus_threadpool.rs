//! `concord symex` on a harness over a real thread-pool library (issue 29):
//! the library of `threadpool.bundle` (src/threadpool.c, nobody here wrote
//! it) is cloned into a temporary directory and linked with the harness of
//! `tests/fixtures/symex_threadpool/` (ours); the exploration must end in
//! the verdict reasoned out in that directory's README, not in an
//! "unsupported call".  The corpus is found as in tests/corpus_coverage.rs;
//! without it the test says so and passes, unless
//! `CONCORD_REQUIRE_CORPUS=1`.

use crate::common;
use common::corpus::{checkout_bundle, corpus, run_tool};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The commit of the library the expectations were read from.
const COMMIT: &str = "9f7df71";

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/symex_threadpool")
}

/// Clone the library into `dir/src`, compile it with the harness (and
/// `defines`), link and promote locals to registers as the frontend does
/// for C inputs; returns the module.
fn build(corpus: &Path, dir: &Path, defines: &[&str]) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let bundle = corpus.join("threadpool.bundle");
    checkout_bundle(&bundle, COMMIT, &src);
    let harness = fixture().join("harness.c");
    let mut cc = vec![
        "-g",
        "-O0",
        "-Xclang",
        "-disable-O0-optnone",
        "-c",
        "-emit-llvm",
        "-w",
        "-D_REENTRANT",
        "-Isrc",
    ];
    cc.extend(defines);
    cc.extend(["src/threadpool.c", harness.to_str().unwrap()]);
    run_tool(&src, "clang-14", &cc);
    run_tool(
        &src,
        "llvm-link-14",
        &["threadpool.bc", "harness.bc", "-o", "linked.bc"],
    );
    run_tool(
        &src,
        "opt-14",
        &["-passes=mem2reg", "linked.bc", "-o", "prog.bc"],
    );
    src.join("prog.bc")
}

/// Run `concord symex` with default settings (and a time budget far above
/// what the exploration needs, so that a regression shows as a verdict,
/// not a hung test); returns the exit code and the findings as
/// (kind, file:line).
fn symex(prog: &Path, out: &Path) -> (Option<i32>, Value, Vec<(String, String)>) {
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args([
            "-q",
            "symex",
            "--max-time",
            "600",
            "--no-store",
            "--output-dir",
        ])
        .arg(out)
        .arg(prog)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap())
            .unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let mut findings = Vec::new();
    for e in std::fs::read_dir(out).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with("test") {
            let tc: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            let loc = tc["location"].as_str().unwrap_or("");
            let file_line = loc
                .rsplit('/')
                .next()
                .unwrap_or(loc)
                .rsplit_once(':')
                .map_or(loc.to_string(), |(fl, _col)| fl.to_string());
            findings.push((tc["kind"].as_str().unwrap_or("").to_string(), file_line));
        }
    }
    findings.sort();
    (o.status.code(), stats, findings)
}

/// The line of the harness's final check.
fn harness_assert_line() -> usize {
    std::fs::read_to_string(fixture().join("harness.c"))
        .unwrap()
        .lines()
        .position(|l| l.contains("HARNESS_ASSERT"))
        .unwrap()
        + 1
}

#[test]
fn the_harness_over_the_thread_pool_runs_to_its_verdict() {
    let Some(corpus) = corpus("corpus_threadpool") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let prog = build(&corpus, dir.path(), &[]);
    let (code, stats, findings) = symex(&prog, &dir.path().join("out"));
    // README.md: the sum is always 3 (both updates under `done_lock`, main
    // reads it after both tasks counted themselves), so the harness's
    // assertion holds; `threadpool_free` (called by the graceful
    // `threadpool_destroy`) locks `pool->lock` and destroys it while
    // locked (threadpool.c:258), which POSIX leaves undefined: the one
    // finding, on every run that gets that far.
    assert_eq!(
        findings,
        vec![("memory-error".to_string(), "threadpool.c:258".to_string())],
        "{stats}"
    );
    assert_eq!(code, Some(1), "{stats}");
    assert_eq!(stats["verdict"], "violation", "{stats}");
}

#[test]
fn a_task_racing_on_the_sum_breaks_the_harness_assertion() {
    let Some(corpus) = corpus("corpus_threadpool") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let prog = build(&corpus, dir.path(), &["-DRACY_TASK"]);
    let (code, stats, findings) = symex(&prog, &dir.path().join("out"));
    // README.md: two workers can run the tasks at once; both read
    // total == 0 before either writes, and the sum ends 1 or 2.
    let line = format!("harness.c:{}", harness_assert_line());
    assert!(
        findings.contains(&("assertion".to_string(), line.clone())),
        "{line}: {findings:?} {stats}"
    );
    assert_eq!(code, Some(1), "{stats}");
}
