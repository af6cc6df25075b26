//! Verdicts that never overclaim, and the reliability of `concord symex` /
//! `concord replay` (exit codes, test cases written when found, output
//! errors).  Each program here is small and its verdict follows from
//! reading it (see the comments).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const INCONCLUSIVE: i32 = 10;

fn write(dir: &Path, name: &str, src: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, src).unwrap();
    p
}

fn prog(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("symex-programs")
        .join(name)
}

fn concord(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

fn stats(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("stats.json")).unwrap()).unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Correct (the assertion is x >= 0 and x only grows from 0), but the loop
/// runs a nondeterministic number of times: every bound cuts some runs.
const UNBOUNDED: &str = r#"#include <assert.h>
#include "concord.h"
int main(void) {
  int x = 0;
  while (__VERIFIER_nondet_int())
    x++;
  assert(x >= 0);
  return 0;
}
"#;

#[test]
fn cut_runs_make_a_correct_program_inconclusive() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "unbounded.c", UNBOUNDED);
    let o = concord(
        d.path(),
        &["-q", "symex", "--output-dir", "out", p.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(INCONCLUSIVE), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("verdict: inconclusive"), "{out}");
    assert!(out.contains("cut at loop bound"), "{out}");
    let s = stats(&d.path().join("out"));
    assert_eq!(s["verdict"], "inconclusive");
    assert_eq!(s["reasons"][0]["reason"], "cut");
    assert!(s["reasons"][0]["runs"].as_u64().unwrap() > 0);
    let loc = s["reasons"][0]["locations"][0]["location"]
        .as_str()
        .unwrap();
    assert!(
        loc.contains("unbounded.c:5"),
        "cut at the loop header: {loc}"
    );
}

/// A thread that starts itself: without a bound on threads every state
/// grows until memory runs out (issue 28: SIGABRT under `ulimit -v`).
const SELF_START: &str = r#"#include <pthread.h>
void *self_start(void *arg) {
  pthread_t t;
  pthread_create(&t, 0, self_start, 0);
  pthread_join(t, 0);
  return 0;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, self_start, 0);
  pthread_join(t, 0);
  return 0;
}
"#;

#[test]
fn a_thread_that_starts_itself_is_cut_at_the_thread_limit() {
    let d = tempfile::tempdir().unwrap();
    let p = write(d.path(), "self_start.c", SELF_START);
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--loop-bound",
            "2",
            "--output-dir",
            "out",
            p.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(INCONCLUSIVE), "{}", text(&o));
    let s = stats(&d.path().join("out"));
    assert_eq!(s["reasons"][0]["reason"], "cut");
    let loc = s["reasons"][0]["locations"][0]["location"]
        .as_str()
        .unwrap();
    assert!(loc.contains("self_start.c:4"), "cut at the creation: {loc}");
}

#[test]
fn a_store_that_cannot_be_written_is_exit_8_and_one_that_is_no_store_exit_3() {
    let d = tempfile::tempdir().unwrap();
    let prog = prog("racy_counter.c");
    // a directory that cannot be made (not even by root): /proc is not
    // writable
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--store",
            "/proc/concord-no-such-dir/s.db",
            "--output-dir",
            "out1",
            prog.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(8), "{}", text(&o));
    assert!(text(&o).contains("cannot write"), "{}", text(&o));
    let junk = write(
        d.path(),
        "junk.db",
        "not sqlite at all, long enough to be read",
    );
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--store",
            junk.to_str().unwrap(),
            "--output-dir",
            "out2",
            prog.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
}

#[test]
fn unsupported_calls_make_it_inconclusive_with_their_location() {
    let d = tempfile::tempdir().unwrap();
    // `mystery` is declared, never defined: nothing can be said past it.
    let p = write(
        d.path(),
        "mystery.c",
        "#include <assert.h>\nextern int mystery(int);\nint main(void) {\n  int r = mystery(3);\n  assert(r == 3);\n  return 0;\n}\n",
    );
    let o = concord(
        d.path(),
        &["-q", "symex", "--output-dir", "out", p.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(INCONCLUSIVE), "{}", text(&o));
    let s = stats(&d.path().join("out"));
    let r = &s["reasons"][0];
    assert_eq!(r["reason"], "unsupported");
    let loc = r["locations"][0]["location"].as_str().unwrap();
    assert!(
        loc.contains("mystery.c:4") && loc.contains("mystery"),
        "{loc}"
    );
}

#[test]
fn a_budget_hit_is_inconclusive_even_on_a_buggy_program() {
    let d = tempfile::tempdir().unwrap();
    // preempt4 needs a preemption: the first (round-robin) run does not hit
    // it, so one run cannot find it and cannot claim anything either.
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--reduction",
            "none",
            "--max-runs",
            "1",
            "--output-dir",
            "out",
            prog("preempt4.c").to_str().unwrap(),
        ],
    );
    let s = stats(&d.path().join("out"));
    if s["verdict"] == "violation" {
        assert_eq!(o.status.code(), Some(1));
    } else {
        assert_eq!(o.status.code(), Some(INCONCLUSIVE), "{}", text(&o));
        assert!(s["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["reason"] == "budget" && r["limit"] == "--max-runs 1"));
    }
    // Whatever the first run found, it is never "verified".
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn every_path_assume_false_is_vacuous_not_verified() {
    let d = tempfile::tempdir().unwrap();
    // No value is both > 0 and < 0: no execution reaches the assertion.
    let p = write(
        d.path(),
        "vacuous.c",
        "#include <assert.h>\n#include \"concord.h\"\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  __VERIFIER_assume(x > 0);\n  __VERIFIER_assume(x < 0);\n  assert(0);\n  return 0;\n}\n",
    );
    let o = concord(
        d.path(),
        &["-q", "symex", "--output-dir", "out", p.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(INCONCLUSIVE), "{}", text(&o));
    assert_eq!(
        stats(&d.path().join("out"))["reasons"][0]["reason"],
        "vacuous"
    );
}

#[test]
fn a_complete_search_is_verified() {
    let d = tempfile::tempdir().unwrap();
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--output-dir",
            "out",
            prog("locked_counter.c").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = stats(&d.path().join("out"));
    assert_eq!(s["verdict"], "verified");
    assert!(s["reasons"].as_array().unwrap().is_empty());
    assert_eq!(s["version"], 2);
}

#[test]
fn bad_limits_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let p = prog("racy_counter.c");
    for args in [
        vec!["symex", "--max-runs", "0"],
        vec!["symex", "--max-time", "-1"],
        vec!["symex", "--max-time", "0"],
    ] {
        let mut a = args.clone();
        a.push(p.to_str().unwrap());
        let o = concord(d.path(), &a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
    }
}

#[test]
fn the_largest_loop_bound_does_not_overflow() {
    let d = tempfile::tempdir().unwrap();
    // Ten iterations, then a true assertion: complete under any bound >= 10.
    let p = write(
        d.path(),
        "ten.c",
        "#include <assert.h>\nint main(void) {\n  int s = 0;\n  for (int i = 0; i < 10; i++)\n    s += i;\n  assert(s == 45);\n  return 0;\n}\n",
    );
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--loop-bound",
            "4294967295",
            "--output-dir",
            "out",
            p.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn replay_errors_have_their_documented_codes() {
    let d = tempfile::tempdir().unwrap();
    let racy = prog("racy_counter.c");
    let o = concord(
        d.path(),
        &["replay", racy.to_str().unwrap(), "no-such-test.json"],
    );
    assert_eq!(o.status.code(), Some(3), "missing file: {}", text(&o));
    // Find the violation, then break its test case in two ways.
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--output-dir",
            "out",
            prog("nondet_assume.c").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let tc_path = d.path().join("out/test000001.json");
    let tc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tc_path).unwrap()).unwrap();
    assert_eq!(tc["version"], 2);
    assert!(tc["loop_bound"].as_u64().is_some());
    assert!(
        !tc["inputs"].as_array().unwrap().is_empty(),
        "nondet_assume reads inputs"
    );
    let prog_nd = prog("nondet_assume.c");
    let ok = concord(
        d.path(),
        &[
            "replay",
            prog_nd.to_str().unwrap(),
            tc_path.to_str().unwrap(),
        ],
    );
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok));
    let mut no_inputs = tc.clone();
    no_inputs["inputs"] = serde_json::json!([]);
    let p1 = write(d.path(), "no_inputs.json", &no_inputs.to_string());
    let o = concord(
        d.path(),
        &["replay", prog_nd.to_str().unwrap(), p1.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "missing inputs: {}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not match"));
    let mut bad_thread = tc.clone();
    bad_thread["schedule"] = serde_json::json!([0, 9, 9, 9]);
    let p2 = write(d.path(), "bad_thread.json", &bad_thread.to_string());
    let o = concord(
        d.path(),
        &["replay", prog_nd.to_str().unwrap(), p2.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "unknown thread: {}", text(&o));
    // an input whose width was edited to 0, or whose value does not fit
    for (bits, value) in [(0, 3), (65, 3), (4, 16)] {
        let mut edited = tc.clone();
        edited["inputs"][0]["bits"] = serde_json::json!(bits);
        edited["inputs"][0]["value"] = serde_json::json!(value);
        let p = write(d.path(), "edited.json", &edited.to_string());
        let o = concord(
            d.path(),
            &["replay", prog_nd.to_str().unwrap(), p.to_str().unwrap()],
        );
        assert_eq!(o.status.code(), Some(3), "width {bits}: {}", text(&o));
        assert!(String::from_utf8_lossy(&o.stderr).contains("has width"));
    }
    let p3 = write(d.path(), "garbage.json", "{ not json");
    let o = concord(
        d.path(),
        &["replay", prog_nd.to_str().unwrap(), p3.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(3), "unreadable: {}", text(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_output_error_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    for args in [
        vec!["-q", "symex", "--output-dir", "out"],
        vec!["-q", "symex", "--format", "json", "--output-dir", "out2"],
        vec!["-q", "symex", "--format", "sarif", "--output-dir", "out3"],
    ] {
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        a.push(prog("racy_counter.c").display().to_string());
        let o = Command::new(env!("CARGO_BIN_EXE_concord"))
            .current_dir(d.path())
            .args(&a)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(8), "{}", text(&o));
    }
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(d.path())
        .arg("replay")
        .arg(prog("racy_counter.c"))
        .arg(d.path().join("out/test000001.json"))
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(8), "{}", text(&o));
}

#[test]
fn a_test_case_is_on_disk_before_the_run_ends() {
    let d = tempfile::tempdir().unwrap();
    // The violation is on the first path; then an unbounded loop keeps the
    // search busy until it is killed.
    let p = write(
        d.path(),
        "early.c",
        "#include \"concord.h\"\nint main(void) {\n  int x = __VERIFIER_nondet_int();\n  if (x == 7) reach_error();\n  int n = 0;\n  while (__VERIFIER_nondet_int()) n++;\n  return n;\n}\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(d.path())
        .args([
            "-q",
            "symex",
            "--loop-bound",
            "100000",
            "--output-dir",
            "out",
        ])
        .arg(&p)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let tc = d.path().join("out/test000001.json");
    let t0 = std::time::Instant::now();
    while !tc.exists() && t0.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let finished_early = child.try_wait().unwrap().is_some();
    let _ = child.kill();
    let _ = child.wait();
    assert!(tc.exists(), "no test case written within 120 s");
    assert!(
        !finished_early,
        "the run must still be going when the test case appears"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tc).unwrap()).unwrap();
    assert_eq!(v["kind"], "error-call");
}

#[test]
fn concurrent_runs_get_distinct_directories() {
    let d = tempfile::tempdir().unwrap();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_concord"))
            .current_dir(d.path())
            .args(["-q", "symex"])
            .arg(prog("locked_counter.c"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut a = spawn();
    let mut b = spawn();
    assert_eq!(a.wait().unwrap().code(), Some(0));
    assert_eq!(b.wait().unwrap().code(), Some(0));
    assert!(d.path().join("concord-out-0/stats.json").exists());
    assert!(d.path().join("concord-out-1/stats.json").exists());
}

#[test]
fn default_settings_deepen_the_bound_and_find_the_needle() {
    let d = tempfile::tempdir().unwrap();
    // needle.c: the violation needs all five iterations of both loops in
    // strict alternation; both loops have the constant trip count 5, so
    // they run to their end under the first bound (3): no deepening.
    // --max-time 60 is the budget the issue gives; default settings else.
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--max-time",
            "60",
            "--output-dir",
            "out",
            prog("needle.c").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let tc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(d.path().join("out/test000001.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(tc["line"], 34);
    assert_eq!(tc["loop_bound"], 3, "found by the first stage");
    // The replay uses the recorded bound.
    let r = concord(
        d.path(),
        &[
            "replay",
            prog("needle.c").to_str().unwrap(),
            d.path().join("out/test000001.json").to_str().unwrap(),
        ],
    );
    assert_eq!(r.status.code(), Some(0), "{}", text(&r));
    // The replay prints the interleaving: ten alternating updates.
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(out.contains("trace:"), "{out}");
    assert!(out.contains("write j = 144"), "{out}");
    // A correct program with a 10-iteration loop of constant trip count:
    // verified at the first bound.
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--output-dir",
            "out1",
            prog("loop10_ok.c").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = stats(&d.path().join("out1"));
    assert_eq!(s["loop_bounds_tried"], serde_json::json!([3]));
    // The same loop running to a global n (not a visible constant):
    // verified at bound 12, after two inconclusive stages.
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--output-dir",
            "out2",
            prog("loop_n_ok.c").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = stats(&d.path().join("out2"));
    assert_eq!(s["loop_bounds_tried"], serde_json::json!([3, 6, 12]));
    // An explicit --loop-bound turns deepening off: honest inconclusive.
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--loop-bound",
            "3",
            "--output-dir",
            "out3",
            prog("loop_n_ok.c").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(INCONCLUSIVE), "{}", text(&o));
}

#[test]
fn argc_is_one_by_default_and_args_extend_argv() {
    let d = tempfile::tempdir().unwrap();
    let p = prog("argc_usage.c");
    // Default: argc == 1, the threads run, the race is found.
    let o = concord(
        d.path(),
        &["-q", "symex", "--output-dir", "a", p.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let tc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path().join("a/test000001.json")).unwrap())
            .unwrap();
    assert_eq!(tc["args"].as_array().unwrap().len(), 1, "argv recorded");
    // One more argument: argc == 2, the usage path exits before any thread.
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--output-dir",
            "b",
            p.to_str().unwrap(),
            "--args",
            "extra",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = stats(&d.path().join("b"));
    assert_eq!(s["complete_runs"], 1, "one run: usage and exit");
    // The same argument given as `--arg` before the program, or after `--`:
    // the program keeps its place either way (`--arg` takes one value).
    for (dir, args) in [
        ("c", vec!["--arg", "extra", p.to_str().unwrap()]),
        ("e", vec![p.to_str().unwrap(), "--", "extra"]),
    ] {
        let mut all = vec!["-q", "symex", "--output-dir", dir];
        all.extend(args);
        let o = concord(d.path(), &all);
        assert_eq!(o.status.code(), Some(0), "{all:?}: {}", text(&o));
        let s = stats(&d.path().join(dir));
        assert_eq!(s["complete_runs"], 1, "{all:?}: argc == 2, usage and exit");
    }
}

#[test]
fn a_deadlock_names_held_and_awaited_locks() {
    let d = tempfile::tempdir().unwrap();
    // deadlock.c: t1 takes a then b, t2 takes b then a.
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--output-dir",
            "out",
            prog("deadlock.c").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("holds [a] and waits for lock b")
            && out.contains("holds [b] and waits for lock a"),
        "{out}"
    );
    // The test case carries the interleaving step by step, and replay
    // prints it with the lock state: both locks taken, each by its thread.
    let tc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(d.path().join("out/test000001.json")).unwrap(),
    )
    .unwrap();
    let ops: Vec<&str> = tc["trace"]
        .as_array()
        .expect("a trace")
        .iter()
        .map(|s| s["op"].as_str().unwrap())
        .collect();
    assert!(
        ops.contains(&"lock a") && ops.contains(&"lock b"),
        "{ops:?}"
    );
    let r = concord(
        d.path(),
        &[
            "replay",
            prog("deadlock.c").to_str().unwrap(),
            d.path().join("out/test000001.json").to_str().unwrap(),
        ],
    );
    assert_eq!(r.status.code(), Some(0), "{}", text(&r));
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(out.contains("[held: a by T1, b by T2]"), "{out}");
    assert!(out.contains("deadlock.c:12"), "source lines: {out}");
}

#[test]
fn max_time_applies_while_globals_are_initialised() {
    let d = tempfile::tempdir().unwrap();
    // 200,000 explicit elements: initialising them takes far longer than
    // the 1 ms budget, which must stop the search there (inconclusive,
    // reason budget), not after the initialisation.
    let elems: Vec<String> = (1..=200_000).map(|k| (k % 97 + 1).to_string()).collect();
    let src = format!(
        "#include <assert.h>\nint big[200000] = {{{}}};\nint main(void) {{\n  assert(big[0] == 2);\n  return 0;\n}}\n",
        elems.join(",")
    );
    let p = write(d.path(), "big.c", &src);
    let o = concord(
        d.path(),
        &[
            "-q",
            "symex",
            "--max-time",
            "0.001",
            "--output-dir",
            "out",
            p.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(INCONCLUSIVE), "{}", text(&o));
    let s = stats(&d.path().join("out"));
    assert_eq!(s["complete_runs"], 0, "nothing explored after the budget");
    assert!(
        s["budget"].as_str().unwrap().contains("initialisation"),
        "{s}"
    );
}

/// A reader that goes away (`concord symex ... | head -0`) is an output
/// error too: exit 8, never a panic (101) or the verdict's code.
#[test]
fn a_closed_stdout_is_an_output_error_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_concord"))
            .current_dir(d.path())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Closed before anything is printed (loading alone takes longer).
        drop(child.stdout.take());
        child.wait_with_output().unwrap()
    };
    let racy = prog("racy_counter.c");
    let o = run(&["-q", "symex", "--output-dir", "out", racy.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(8), "{}", text(&o));
    let tc = d.path().join("out/test000001.json");
    assert!(tc.exists(), "the test case is written before the summary");
    let o = run(&["replay", racy.to_str().unwrap(), tc.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(8), "{}", text(&o));
}

/// Values wider than 128 bits (the most a value holds) are an unsupported
/// construct, not a crash (they made the engine panic: exit 70, "internal
/// error").  Each program has one path, and it reaches the wide value
/// before anything can go wrong: nothing was checked past it, so the
/// verdict is `inconclusive` (exit 10) for reason `unsupported`, naming the
/// width.  `zext` makes an `i256`; `cmpxchg` on an `i128` gives
/// `{i128, i1}`, 129 bits.
#[test]
fn values_wider_than_128_bits_are_unsupported_not_a_crash() {
    let progs = [
        (
            "zext.ll",
            "define i32 @main() {\nentry:\n  %x = alloca i128\n  store i128 3, i128* %x\n  %v = load i128, i128* %x\n  %a = zext i128 %v to i256\n  %c = trunc i256 %a to i32\n  ret i32 %c\n}\n",
            "256-bit",
        ),
        (
            "cmpxchg.ll",
            "define i32 @main() {\nentry:\n  %x = alloca i128\n  store i128 3, i128* %x\n  %r = cmpxchg i128* %x, i128 3, i128 4 seq_cst seq_cst\n  %v = extractvalue { i128, i1 } %r, 0\n  %c = trunc i128 %v to i32\n  ret i32 %c\n}\n",
            "129-bit",
        ),
    ];
    for (name, ir, width) in progs {
        let d = tempfile::tempdir().unwrap();
        let p = write(d.path(), name, ir);
        for mode in ["none", "dpor+ag"] {
            let o = concord(
                d.path(),
                &[
                    "-q",
                    "symex",
                    "--no-store",
                    "--reduction",
                    mode,
                    "--output-dir",
                    mode,
                    p.to_str().unwrap(),
                ],
            );
            assert_eq!(
                o.status.code(),
                Some(INCONCLUSIVE),
                "{name} {mode}: {}",
                text(&o)
            );
            let s = stats(&d.path().join(mode));
            let r = &s["reasons"][0];
            assert_eq!(r["reason"], "unsupported", "{name} {mode}: {s}");
            assert!(
                r["locations"].to_string().contains(width),
                "{name} {mode}: {s}"
            );
        }
    }
}
