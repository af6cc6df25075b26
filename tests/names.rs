//! Reports name memory as a reviewer reads it: struct fields by their C
//! names (from the debug information) and heap objects by type and
//! allocation site (`names.tsv`, `src/facts/extract/names.rs`).

mod common;
use common::*;
use std::process::Command;

/// Line numbers matter: `malloc` is on line 24, `p->head = 0` on 26, the
/// read `int h = p->head` on 29 (before the join; `NEW` moves it after).
const OLD: &str = "#include <pthread.h>
#include <stdlib.h>

struct pool {
  int head;
  int count;
  pthread_mutex_t lock;
};

struct stats { long hits; long misses; } stats;
struct pool *p;

void *worker(void *arg) {
  pthread_mutex_lock(&p->lock);
  p->head = 1;
  p->count = p->count + 1;
  pthread_mutex_unlock(&p->lock);
  stats.misses = 3;
  return 0;
}

int main(void) {
  pthread_t t;
  p = malloc(sizeof *p);
  pthread_mutex_init(&p->lock, 0);
  p->head = 0;
  p->count = 0;
  pthread_create(&t, 0, worker, 0);
  int h = p->head;
  pthread_join(t, 0);
  stats.hits = h;
  return h + stats.misses;
}
";

fn new_version() -> String {
    // The read of line 29 moves after the join (lines 29 and 30 swap).
    OLD.replace(
        "  int h = p->head;\n  pthread_join(t, 0);\n",
        "  pthread_join(t, 0);\n  int h = p->head;\n",
    )
}

/// The location a statement of `kind` on `line` accesses (its only one).
fn accessed(f: &concord::facts::FactSet, line: u32, kind: &str, rel: &str) -> u32 {
    let s = one(f, line, kind);
    let locs: Vec<u32> = f.rows(rel).filter(|r| r[0] == s).map(|r| r[1]).collect();
    assert_eq!(locs.len(), 1, "line {line}: {locs:?}");
    locs[0]
}

#[test]
fn heap_fields_and_global_fields_have_c_names() {
    let f = facts_of_c(OLD);
    assert_eq!(f.names.len(), f.locations.len(), "one name per location");
    // `p->head = 1` (line 15) writes field `head` of the object malloc'd
    // at line 24, whose type the cast to `struct pool *` gives.
    let head = accessed(&f, 15, "store", "mem_write");
    assert_eq!(f.display_name(head), Some("(struct pool @ prog.c:24).head"));
    let n = &f.names[head as usize];
    assert_eq!(
        (
            n.object.as_str(),
            n.kind.as_str(),
            n.ty.as_str(),
            n.site.as_str()
        ),
        (
            "struct pool @ prog.c:24",
            "heap",
            "struct pool",
            "prog.c:24"
        )
    );
    // Line 16 writes `count`, the second field.
    let count = accessed(&f, 16, "store", "mem_write");
    assert_eq!(
        f.display_name(count),
        Some("(struct pool @ prog.c:24).count")
    );
    // The mutex is the third field, `lock`.
    let lock = f.rows("mutex_lock").map(|r| r[1]).next().expect("a lock");
    assert_eq!(f.display_name(lock), Some("(struct pool @ prog.c:24).lock"));
    // A global struct: `stats.misses`, not `stats.1`.
    let misses = accessed(&f, 18, "store", "mem_write");
    assert_eq!(f.display_name(misses), Some("stats.misses"));
    assert_eq!(f.names[misses as usize].ty, "struct stats");
    // The analyses' own names are unchanged: numeric paths, no C names.
    assert!(!f.location(misses).unwrap().name.contains("misses"));
    assert!(!f.location(head).unwrap().name.contains("struct pool"));
}

fn run(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).to_string(),
    )
}

/// Old: main may read `head` before the join, seeing its own write of
/// line 26 (the worker's store may come later). New: the read follows the
/// join, after the worker's store, so the edge 26 -> 29 exists in old only.
/// Every report names the variable `(struct pool @ v1.c:24).head`.
#[test]
fn diff_reports_use_the_names_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let (v1, v2) = (dir.path().join("v1.c"), dir.path().join("v2.c"));
    std::fs::write(&v1, OLD).unwrap();
    std::fs::write(&v2, new_version()).unwrap();
    let (v1, v2) = (v1.to_str().unwrap(), v2.to_str().unwrap());
    let name = "(struct pool @ v1.c:24).head";

    let (code, text) = run(&["-q", "diff", v1, v2]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(&format!("RF {name}: v1.c:26")), "{text}");
    assert!(
        text.contains(&format!("may read {name} at v1.c:29")),
        "the explanation names it too: {text}"
    );
    assert!(!text.contains("heap@"), "{text}");

    let (code, json) = run(&["-q", "diff", v1, v2, "--format", "json"]);
    assert_eq!(code, Some(1));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let edge = &doc["differences"][0]["edges"][0];
    assert_eq!(edge["variable_display"], name, "{json}");
    // `variable` keeps the facts' own name (JSON version 1 is additive).
    assert!(edge["variable"].as_str().unwrap().starts_with("heap@24"));
    assert!(doc["differences"][0]["explanation"]["summary"]
        .as_str()
        .unwrap()
        .contains(name));

    let (code, sarif) = run(&["-q", "diff", v1, v2, "--format", "sarif"]);
    assert_eq!(code, Some(1));
    let log: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let msg = log["runs"][0]["results"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(msg.contains(name), "{msg}");
}

/// `names.tsv` travels with a fact directory; one without it (written
/// before names existed) still reads, and reports fall back to the
/// facts' names.
#[test]
fn fact_directories_keep_the_names_and_older_ones_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let (v1, v2) = (dir.path().join("v1.c"), dir.path().join("v2.c"));
    std::fs::write(&v1, OLD).unwrap();
    std::fs::write(&v2, new_version()).unwrap();
    let (f1, f2) = (dir.path().join("f1"), dir.path().join("f2"));
    for (src, out) in [(&v1, &f1), (&v2, &f2)] {
        let (code, _) = run(&[
            "-q",
            "facts",
            src.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(0));
        assert!(out.join("names.tsv").is_file());
    }
    let (f1s, f2s) = (f1.to_str().unwrap(), f2.to_str().unwrap());
    let (code, text) = run(&["-q", "diff", f1s, f2s]);
    assert_eq!(code, Some(1));
    assert!(text.contains("RF (struct pool @ v1.c:24).head"), "{text}");

    std::fs::remove_file(f1.join("names.tsv")).unwrap();
    let (code, text) = run(&["-q", "diff", f1s, f2s]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("RF heap@24"), "{text}");

    // A names.tsv that does not match the locations is refused (exit 6).
    std::fs::write(
        f2.join("names.tsv"),
        "id\tname\tobject\tkind\ttype\tsite\n0\tx\tx\tglobal\t\t\n",
    )
    .unwrap();
    let (code, _) = run(&["-q", "diff", f1s, f2s]);
    assert_eq!(code, Some(6));
}
