//! Issue 26, the model's part: what concord used to miss silently on real
//! programs. Struct copies and arrays of structs keep their targets; a
//! function handed to a library function is a callback the model calls;
//! `fork()` analyses the parent and says so; inline `asm` is reported as
//! asm; `-fcommon` in a compile command is kept. The programs under
//! `tests/fixtures/blind-spots/` carry their reasoning in their READMEs.

use crate::common;
use common::*;
use concord::facts::FactSet;
use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("binary runs")
}

fn fixture(case: &str, version: &str) -> String {
    format!("tests/fixtures/blind-spots/{case}/{version}.c")
}

fn facts_of_fixture(case: &str) -> FactSet {
    let src = std::fs::read_to_string(repo_root().join(fixture(case, "v1"))).unwrap();
    facts_of_c(&src)
}

/// (rank, only_in, [(write line, read line)]): one difference of `concord diff`.
type Difference = ReportedDifference;

fn differences(case: &str) -> Vec<Difference> {
    let o = run(&[
        "-q",
        "diff",
        "--format",
        "json",
        &fixture(case, "v1"),
        &fixture(case, "v2"),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    reported_differences(&v["by_line"])
}

fn locations_written_at(f: &FactSet, line: u32) -> Vec<String> {
    let stmts = at(f, line, "store");
    let mut names: Vec<String> = f
        .rows("mem_write")
        .filter(|r| stmts.contains(&r[0]))
        .map(|r| f.locations[r[1] as usize].name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}

/// job-queue/README.md: `job.arg` holds only the task, so `t->state = 1`
/// (line 19) writes `tasks[*].state` and nothing of the function
/// `run_task`; main's read at line 72 reads that same location.
#[test]
fn job_structs_copied_through_a_heap_queue_keep_their_fields() {
    let f = facts_of_fixture("job-queue");
    let written = locations_written_at(&f, 19);
    assert_eq!(written.len(), 1, "one target: {written:?}");
    assert!(
        written[0].ends_with("[*].3"),
        "the task's state field: {written:?}"
    );
    assert!(!written.iter().any(|n| n.starts_with("run_task")));
    let read_stmts = at(&f, 72, "load");
    let read: Vec<String> = f
        .rows("mem_read")
        .filter(|r| read_stmts.contains(&r[0]))
        .map(|r| f.locations[r[1] as usize].name.clone())
        .collect();
    assert!(read.contains(&written[0]), "{read:?} vs {written:?}");
    // Main's writes of the task array (line 63: `ctx->tasks[i].pool = ctx`)
    // reach the array although the queue's `[*]` (another struct) came first.
    let init = locations_written_at(&f, 63);
    assert!(init.len() == 1 && init[0].ends_with("[*].0"), "{init:?}");
    assert_eq!(f.count("unresolved_call"), 0);
}

#[test]
fn moving_the_task_writes_under_the_lock_removes_the_intermediate_read() {
    assert_eq!(
        differences("job-queue"),
        vec![(1, "old".to_string(), vec![(19, 72)])]
    );
}

/// event-loop/README.md: `on_read` is called back by the library, at the
/// `event_set` call (line 34), in main's thread.
#[test]
fn a_handler_registered_with_an_external_library_is_modelled() {
    let f = facts_of_fixture("event-loop");
    let register = one(&f, 34, "call");
    let rows: Vec<Vec<u32>> = f.rows("external_callback").map(|r| r.to_vec()).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0][0], register);
    assert_eq!(f.statement(rows[0][1]).unwrap().function, "on_read");
    let write = one(&f, 16, "store");
    assert_eq!(f.statement(write).unwrap().thread, 0, "main's thread");
    // `stats.1` is `stats.state` (the second field).
    assert_eq!(locations_written_at(&f, 16), vec!["stats.1".to_string()]);
}

#[test]
fn a_patch_inside_a_handler_is_seen_by_changes_and_diff() {
    let o = run(&[
        "-q",
        "changes",
        &fixture("event-loop", "v1"),
        &fixture("event-loop", "v2"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("v1.c:15") && text.contains("v1.c:19"),
        "{text}"
    );
    assert_eq!(
        differences("event-loop"),
        vec![(1, "new".to_string(), vec![(16, 25)])]
    );
}

/// Callbacks of the C library and of POSIX: each function handed to one of
/// them is called at that call, in the thread that made it; the once-only
/// initialiser runs in the thread that asked for it.
const LIBRARY_CALLBACKS: &str = r#"#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
int order[4];
int hits, stopped, flushed, ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int by_value(const void *a, const void *b) {
  hits++;
  return *(const int *)a - *(const int *)b;
}
static void on_signal(int sig) { stopped = sig; }
static void at_exit(void) { flushed = 1; }
static void init(void) { ready = 1; }
static void *worker(void *arg) {
  pthread_once(&once, init);
  return 0;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  qsort(order, 4, sizeof order[0], by_value);
  signal(SIGINT, on_signal);
  atexit(at_exit);
  pthread_join(t, 0);
  return 0;
}
"#;

#[test]
fn functions_handed_to_the_library_run_in_the_thread_that_handed_them() {
    let f = facts_of_c(LIBRARY_CALLBACKS);
    let callee_of = |line: u32| -> Vec<String> {
        let call = one(&f, line, "call");
        f.rows("external_callback")
            .filter(|r| r[0] == call)
            .map(|r| f.statement(r[1]).unwrap().function.clone())
            .collect()
    };
    assert_eq!(callee_of(21), vec!["by_value"]);
    assert_eq!(callee_of(22), vec!["on_signal"]);
    assert_eq!(callee_of(23), vec!["at_exit"]);
    assert_eq!(callee_of(15), vec!["init"]);
    let thread = |line: u32| f.statement(one(&f, line, "store")).unwrap().thread;
    assert_eq!(thread(11), 0, "the signal handler: main");
    assert_eq!(thread(12), 0, "the exit handler: main");
    assert_eq!(thread(13), 1, "the once-only initialiser: the worker");
    // qsort's comparator gets the array: its loads read `order`.
    let cmp_loads = at(&f, 9, "load");
    assert!(f
        .rows("mem_read")
        .any(|r| cmp_loads.contains(&r[0]) && f.locations[r[1] as usize].object == "order"));
    assert_eq!(f.count("unresolved_call"), 0);
}

const FORK_IN_MAIN: &str = r#"#include <pthread.h>
#include <unistd.h>
int counter;
static void *worker(void *arg) { counter++; return 0; }
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  if (fork() == 0)
    return 0;
  counter++;
  pthread_join(t, 0);
  return counter;
}
"#;

#[test]
fn fork_analyses_the_parent_and_says_the_child_is_not() {
    let f = facts_of_c(FORK_IN_MAIN);
    assert_eq!(f.count("fork_call"), 1);
    assert!(has(&f, "fork_call", &[one(&f, 8, "call")]));
    // The parent goes on: its write after the fork races with the worker's.
    assert!(!at(&f, 10, "store").is_empty());
    let warnings = concord::facts::extract::unresolved_warnings(&f);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains(":8:") && w.contains("fork")),
        "{warnings:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("fork.c");
    std::fs::write(&src, FORK_IN_MAIN).unwrap();
    let o = run(&[
        "facts",
        src.to_str().unwrap(),
        "-o",
        dir.path().join("f").to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("the child process is not"));
}

const INLINE_ASM: &str = r#"#include <pthread.h>
int x;
static void *worker(void *arg) {
  __asm__ volatile("" ::: "memory");
  x = 1;
  return 0;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  return x;
}
"#;

#[test]
fn inline_asm_is_reported_as_asm_not_as_an_unresolved_call() {
    let f = facts_of_c(INLINE_ASM);
    assert_eq!(f.count("unresolved_call"), 0);
    assert!(has(&f, "inline_asm", &[one(&f, 4, "call")]));
    let warnings = concord::facts::extract::unresolved_warnings(&f);
    assert!(
        warnings.len() == 1 && warnings[0].contains("inline assembly"),
        "{warnings:?}"
    );
}

/// Two units that each define `int shared;` without an initialiser (a
/// tentative definition): with `-fcommon` they are one object, without it
/// the link fails. Each unit's write must land on the one global.
#[test]
fn fcommon_in_a_compile_command_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |common: bool| {
        let root = tmp.path().join(if common { "common" } else { "plain" });
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("main.c"),
            "#include <pthread.h>\nint shared;\nvoid *worker(void *);\nint main(void) {\n  pthread_t t;\n  pthread_create(&t, 0, worker, 0);\n  shared = 1;\n  pthread_join(t, 0);\n  return 0;\n}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("worker.c"),
            "int shared;\nvoid *worker(void *arg) {\n  shared = 2;\n  return 0;\n}\n",
        )
        .unwrap();
        let flag = if common { "-fcommon" } else { "-O1" };
        let dir = root.display().to_string();
        let db = serde_json::json!([
            {"directory": dir, "file": "main.c",
             "arguments": ["cc", flag, "-c", "main.c"]},
            {"directory": dir, "file": "worker.c",
             "arguments": ["cc", flag, "-c", "worker.c"]}
        ]);
        std::fs::write(root.join("compile_commands.json"), db.to_string()).unwrap();
        root
    };
    let plain = write(false);
    let o = run(&[
        "facts",
        plain.to_str().unwrap(),
        "-o",
        tmp.path().join("f1").to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(5),
        "without -fcommon the units do not link"
    );
    let common = write(true);
    let out = tmp.path().join("f2");
    let o = run(&[
        "facts",
        common.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let f = concord::facts::io::read_dir(&out).unwrap();
    let shared: Vec<&str> = f
        .locations
        .iter()
        .filter(|l| l.shared)
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(shared, vec!["shared"], "both writes on the one global");
}

/// `*q = *p` of a whole struct value in IR (what optimised code and other
/// front ends write instead of a `memcpy`): the copy keeps `fn` and `arg`
/// apart, so the call `q->fn(q->arg)` passes only `arg`, and the callee's
/// write lands on `data`, not on the function.
const AGGREGATE_COPY: &str = r#"
%struct.job = type { void (i8*)*, i8* }
@data = global i32 0
@slot = global %struct.job zeroinitializer

define void @work(i8* %arg) {
entry:
  %p = bitcast i8* %arg to i32*
  store i32 1, i32* %p
  ret void
}

define i32 @main() {
entry:
  %src = alloca %struct.job
  %fn = getelementptr %struct.job, %struct.job* %src, i32 0, i32 0
  store void (i8*)* @work, void (i8*)** %fn
  %arg = getelementptr %struct.job, %struct.job* %src, i32 0, i32 1
  store i8* bitcast (i32* @data to i8*), i8** %arg
  %v = load %struct.job, %struct.job* %src
  store %struct.job %v, %struct.job* @slot
  %f = load void (i8*)*, void (i8*)** getelementptr (%struct.job, %struct.job* @slot, i32 0, i32 0)
  %a = load i8*, i8** getelementptr (%struct.job, %struct.job* @slot, i32 0, i32 1)
  call void %f(i8* %a)
  ret i32 0
}
"#;

#[test]
fn an_aggregate_load_and_store_copies_a_struct_field_by_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.ll");
    std::fs::write(&path, AGGREGATE_COPY).unwrap();
    let program = concord::frontend::load_program(&path, &Default::default()).unwrap();
    let f = concord::facts::extract::extract(&program, &Default::default()).unwrap();
    assert_eq!(
        f.count("ir_memcopy_field"),
        2,
        "one row per field of %struct.job"
    );
    let writes_of_work: Vec<String> = f
        .rows("mem_write")
        .filter(|r| f.statement(r[0]).unwrap().function == "work")
        .map(|r| f.locations[r[1] as usize].name.clone())
        .collect();
    assert_eq!(writes_of_work, vec!["data".to_string()]);
    assert_eq!(f.count("unresolved_call"), 0);
}
