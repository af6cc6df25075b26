//! `concord diff` reports by source line: two threads running the same
//! start routine (thread clones) give one difference per thread instance
//! in the analysis, but a reviewer reads it once, with its threads.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// main (t0) starts `worker` twice: t1 and t2, clones of one routine.
const OLD: &str = "#include <pthread.h>
int x;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
  x = 1;
  int seen = x;
  return (void *)(long)seen;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, worker, 0);
  pthread_create(&t2, 0, worker, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return x;
}
";

/// The patch puts the write and the read back (old lines 6, 7; new 7, 8)
/// inside one critical section of `a`.
const NEW: &str = "#include <pthread.h>
int x;
pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;

void *worker(void *arg) {
  pthread_mutex_lock(&a);
  x = 1;
  int seen = x;
  pthread_mutex_unlock(&a);
  return (void *)(long)seen;
}

int main(void) {
  pthread_t t1, t2;
  pthread_create(&t1, 0, worker, 0);
  pthread_create(&t2, 0, worker, 0);
  pthread_join(t1, 0);
  pthread_join(t2, 0);
  return x;
}
";

/// Expected, by reasoning: in old, a worker's read (line 7) sees its own
/// write (line 6) or the other worker's, which may come between the two.
/// In new both lines are one critical section of `a` in each worker, so
/// the other worker's write cannot come between: the edges t1's write ->
/// t2's read and t2's write -> t1's read (both 6 -> 7) are only in old; the
/// own-thread edge, the initial value (always overwritten by the reader's
/// own write first) and main's read after the joins do not differ. Two
/// differences in the analysis, one source line pair for the reviewer.
#[test]
fn thread_clones_collapse_to_one_difference_per_source_line() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&old, OLD).unwrap();
    std::fs::write(&new, NEW).unwrap();
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());

    let o = run(&["diff", "-q", "--color", "never", old, new]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let rf_lines: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("RF x:"))
        .collect();
    assert_eq!(rf_lines.len(), 1, "one line, not one per clone:\n{text}");
    assert!(
        rf_lines[0].contains("old.c:6 `x = 1;` [worker]")
            && rf_lines[0].contains("old.c:7 `int seen = x;` [worker]"),
        "{text}"
    );
    assert!(text.contains("[1] rank 1, only in old"), "{text}");
    assert!(!text.contains("\n[2]"), "{text}");
    assert!(
        text.contains("threads: t1 -> t2, t2 -> t1 (2 thread instances"),
        "the threads are still named:\n{text}"
    );
    assert!(
        text.contains("(1 difference(s) by source line, 2 counting each thread instance"),
        "{text}"
    );

    // JSON: every analysis-level difference in `differences` (as the
    // schema promises), one entry in `by_line` naming both.
    let o = run(&["diff", "-q", "--format", "json", old, new]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["differences"].as_array().unwrap().len(), 2, "{doc:#}");
    let by_line = doc["by_line"].as_array().unwrap();
    assert_eq!(by_line.len(), 1, "{doc:#}");
    let g = &by_line[0];
    assert_eq!(g["differences"], serde_json::json!([0, 1]));
    assert_eq!(
        (g["rank"].as_u64(), g["only_in"].as_str()),
        (Some(1), Some("old"))
    );
    assert_eq!(g["edges"][0]["write"]["line"], 6, "{g:#}");
    assert_eq!(g["edges"][0]["read"]["line"], 7, "{g:#}");
    let mut threads: Vec<(u64, u64)> = g["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m[0][0].as_u64().unwrap(), m[0][1].as_u64().unwrap()))
        .collect();
    threads.sort();
    assert_eq!(threads, vec![(1, 2), (2, 1)], "{g:#}");

    // SARIF: one result for the line pair.
    let o = run(&["diff", "-q", "--format", "sarif", old, new]);
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let results: Vec<&serde_json::Value> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "rf-only-in-old")
        .collect();
    assert_eq!(results.len(), 1, "{log:#}");
    assert_eq!(results[0]["properties"]["instances"], 2);
}
