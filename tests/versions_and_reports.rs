//! `concord changes`, and the formats and exit codes of `diff`, `query`
//! and `rules`, through the real binary.

use crate::common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn concord(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("binary runs")
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const BASE: &str = "#include <pthread.h>
int x, y;
void *t(void *p) {
  int a = x;
  y = a + 1;
  x = 2;
  return 0;
}
int main(void) {
  pthread_t h;
  pthread_create(&h, 0, t, 0);
  x = 1;
  pthread_join(h, 0);
  return y;
}
";

fn changes(old: &str, new: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "old.c", old);
    let b = write(dir.path(), "new.c", new);
    let o = concord(&["changes", "--format", "json", &a, &b]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    json_of(&o)
}

fn kinds(v: &Value) -> Vec<String> {
    v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn inserted_blank_lines_change_nothing() {
    let shifted = format!("\n\n\n{BASE}");
    let v = changes(BASE, &shifted);
    assert!(kinds(&v).is_empty(), "{v}");
}

#[test]
fn renamed_locals_change_nothing() {
    let renamed = BASE
        .replace("int a = x;", "int tmp = x;")
        .replace("y = a + 1;", "y = tmp + 1;");
    let v = changes(BASE, &renamed);
    // The two lines differ as text, but their instructions are the same.
    assert!(kinds(&v).is_empty(), "{v}");
}

#[test]
fn an_edited_line_is_one_modified_instruction() {
    let edited = BASE.replace("y = a + 1;", "y = a + 2;");
    let v = changes(BASE, &edited);
    assert_eq!(kinds(&v), vec!["modified"], "{v}");
    assert_eq!(v["changes"][0]["new"]["line"], 5);
}

#[test]
fn a_moved_statement_is_moved_not_added_and_deleted() {
    let moved = BASE.replace(
        "  x = 1;\n  pthread_join(h, 0);\n",
        "  pthread_join(h, 0);\n  x = 1;\n",
    );
    let v = changes(BASE, &moved);
    let k = kinds(&v);
    assert!(!k.is_empty() && k.iter().all(|c| c == "moved"), "{v}");
}

#[test]
fn fact_directories_without_source_fall_back_to_the_ir() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "old.c", BASE);
    let b = write(dir.path(), "new.c", &BASE.replace("x = 2;", "x = 3;"));
    for (src, out) in [(&a, "fa"), (&b, "fb")] {
        let o = concord(&["facts", src, "-o", dir.path().join(out).to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0));
    }
    std::fs::remove_file(&a).unwrap();
    std::fs::remove_file(&b).unwrap();
    let o = concord(&[
        "changes",
        "--format",
        "json",
        dir.path().join("fa").to_str().unwrap(),
        dir.path().join("fb").to_str().unwrap(),
    ]);
    let v = json_of(&o);
    assert_eq!(v["method"], "ir-only");
    assert_eq!(
        kinds(&v),
        vec!["modified"],
        "only the stored constant differs: {v}"
    );
}

#[test]
fn diff_exit_codes_say_whether_anything_differs() {
    let same = concord(&[
        "-q",
        "diff",
        "bench-programs/nonsync-arith/v1.c",
        "bench-programs/nonsync-arith/v2.c",
    ]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );
    let different = concord(&[
        "-q",
        "diff",
        "bench-programs/ecdiff-fig2-lock/v1.c",
        "bench-programs/ecdiff-fig2-lock/v2.c",
    ]);
    assert_eq!(different.status.code(), Some(1));
}

/// A helper cloned for each of its calls (`touch(&a)`, `touch(&b)`, ...):
/// the patch drops the first call of the worker. The instances of the
/// other calls are the same code on the same data, so nothing the worker
/// may read differs, except through the dropped instance itself. Matched
/// k-th instance to k-th instance (before version matching knew call
/// paths), the worker's `touch(&b)` of old paired with new's `touch(&c)`,
/// and `diff` reported edges on `b` and `c` only in old.
#[test]
fn dropping_one_call_of_a_helper_does_not_shift_its_other_instances() {
    let old = "#include <pthread.h>
int a, b, c;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void touch(int *p) {
  pthread_mutex_lock(&m);
  *p += 1;
  pthread_mutex_unlock(&m);
}
static void *worker(void *arg) {
  touch(&a);
  touch(&b);
  touch(&c);
  return 0;
}
int main(void) {
  pthread_t h;
  pthread_create(&h, 0, worker, 0);
  touch(&c);
  pthread_join(h, 0);
  return b;
}
";
    let new = old.replace("  touch(&a);\n", "");
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "old.c", old);
    let b = write(dir.path(), "new.c", &new);
    // With source text (C files), and without it (LLVM IR: calls are then
    // told apart by the function they enter and their rank in the caller).
    let ll = |c: &str| {
        let out = format!("{c}.ll");
        let status = Command::new("clang-14")
            .args([
                "-g",
                "-O0",
                "-Xclang",
                "-disable-O0-optnone",
                "-S",
                "-emit-llvm",
            ])
            .args(["-o", &out, c])
            .status()
            .expect("clang-14 runs");
        assert!(status.success());
        out
    };
    let (a_ll, b_ll) = (ll(&a), ll(&b));
    for (old_input, new_input) in [(&a, &b), (&a_ll, &b_ll)] {
        let o = concord(&["-q", "diff", "--format", "json", old_input, new_input]);
        let v = json_of(&o);
        assert_eq!(
            v["differences"].as_array().map(Vec::len),
            Some(0),
            "{new_input}: {}",
            serde_json::to_string_pretty(&v["differences"]).unwrap()
        );
        assert_eq!(o.status.code(), Some(0));
        // The dropped instance's edges are listed apart, and they are on `a` only.
        let through = v["through_changes"].as_array().unwrap();
        assert!(!through.is_empty());
        for e in through {
            for edge in e["edges"].as_array().unwrap() {
                assert_eq!(edge["variable"], "a", "{e}");
            }
        }
    }
}

#[test]
fn diff_accepts_fact_directories() {
    let o = concord(&[
        "-q",
        "diff",
        "--format",
        "json",
        "facts/ecdiff-fig2-lock/v1",
        "facts/ecdiff-fig2-lock/v2",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json_of(&o);
    assert_eq!(v["first_rank"], 1);
    assert_eq!(v["differences"].as_array().unwrap().len(), 1);
}

#[test]
fn sarif_has_one_result_per_difference_and_names_its_rules() {
    let o = concord(&[
        "-q",
        "diff",
        "--format",
        "sarif",
        "bench-programs/lock-order-deadlock/v1.c",
        "bench-programs/lock-order-deadlock/v2.c",
    ]);
    let v = json_of(&o);
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let rule_ids: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let results = run["results"].as_array().unwrap();
    let ids: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"lock-order-only-in-old") && ids.contains(&"deadlock-only-in-old"),
        "{ids:?}"
    );
    for id in ids {
        assert!(
            rule_ids.contains(&id),
            "result kind {id} is in the rule table"
        );
    }
    let line = results[0]["locations"][0]["physicalLocation"]["region"]["startLine"]
        .as_u64()
        .unwrap();
    assert!(line > 0);
}

#[test]
fn dot_draws_the_differing_edges() {
    let o = concord(&[
        "-q",
        "diff",
        "--format",
        "dot",
        "bench-programs/ecdiff-fig2-lock/v1.c",
        "bench-programs/ecdiff-fig2-lock/v2.c",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("digraph concord_diff {"), "{text}");
    assert_eq!(
        text.matches("color=red").count(),
        1,
        "one edge only in old: {text}"
    );
    assert!(!text.contains("color=darkgreen"));
}

#[test]
fn query_shows_derived_relations_with_source_locations_and_filters() {
    let o = concord(&[
        "-q",
        "query",
        "bench-programs/ecdiff-fig2-lock/v1.c",
        "rf_may",
        "--where",
        "r=8",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        rows.len(),
        3,
        "x = 1, x = 3 and x = 2 may reach line 8: {text}"
    );
    assert!(rows.iter().all(|r| r.contains("v1.c:8:")), "{text}");
    let json = concord(&[
        "-q",
        "query",
        "--format",
        "json",
        "bench-programs/ecdiff-fig2-lock/v1.c",
        "shared_read",
    ]);
    let v = json_of(&json);
    assert_eq!(v["rows"][0]["v"]["name"], "x");
    let bad = concord(&[
        "query",
        "bench-programs/ecdiff-fig2-lock/v1.c",
        "no_such_relation",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown relation"));
}

#[test]
fn rules_print_for_souffle_and_z3() {
    let s = concord(&["rules", "--emit", "souffle"]);
    let text = String::from_utf8_lossy(&s.stdout);
    assert!(
        text.contains(".input shared_read")
            && text.contains("rf_may(")
            && text.contains("rank3_may("),
        "{text}"
    );
    let z = concord(&["rules", "--emit", "z3", "--program", "sync1"]);
    let text = String::from_utf8_lossy(&z.stdout);
    assert!(text.contains("declare-rel") && text.contains("rf_may") && !text.contains("rank2_may"));
}

/// A patch that only reorders lock acquisitions (it removes a deadlock)
/// changes synchronisation: the headline must say so instead of "no
/// synchronisation difference" (the read-from sets agree up to rank 3).
#[test]
fn lock_order_only_difference_is_in_the_headline() {
    let o = concord(&[
        "-q",
        "diff",
        "bench-programs/lock-order-deadlock/v1.c",
        "bench-programs/lock-order-deadlock/v2.c",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a lock-order difference is a difference"
    );
    let text = String::from_utf8_lossy(&o.stdout);
    let headline = text.lines().nth(1).unwrap_or_default();
    assert!(
        !headline.starts_with("no synchronisation difference"),
        "headline: {headline}"
    );
    assert!(
        headline.contains("lock order") && headline.contains("potential deadlocks old 1, new 0"),
        "headline: {headline}"
    );
}

#[test]
fn one_file_named_two_ways_is_no_change_even_with_an_assert() {
    // `__FILE__` (in `assert`) is the path as given: "./a.c" and "a.c" are
    // the same file and the same code
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.c",
        "#include <assert.h>\n#include <pthread.h>\nint x;\nvoid *w(void *a) { x = 1; return a; }\n\
         int main(void) { pthread_t t; pthread_create(&t, 0, w, 0); pthread_join(t, 0);\n\
         assert(x == 1); return 0; }\n",
    );
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["-q", "changes", "./a.c", "a.c"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("0 added, 0 deleted, 0 modified, 0 moved"),
        "{out}"
    );
}
