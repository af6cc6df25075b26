//! rules/rf.dl joins the generic NoRf rule through its nearest witnesses
//! only (docs/rules.md, "Nearest witnesses"). This test recomputes
//! `rf_no` from its definition — every witness store, the two lock rules —
//! over the single-version program's own `hb_must`, `hb_post`, `hb_pre`,
//! `hb_may` and covered accesses, and requires the same rows, on the
//! golden facts of every bench pair (both versions) and on straight-line
//! and branching programs written for it.

use crate::common;

use concord::analysis::{run, Engine, Relations, RuleProgram};
use concord::facts::{io::read_dir, FactSet};
use std::collections::{BTreeMap, BTreeSet};

type Pairs = BTreeSet<(u32, u32)>;

fn pairs(r: &Relations, name: &str) -> Pairs {
    r.get(name)
        .unwrap_or_else(|| panic!("relation {name} not derived"))
        .iter()
        .map(|row| (row[0], row[1]))
        .collect()
}

fn triples(r: &Relations, name: &str) -> BTreeSet<(u32, u32, u32)> {
    r.get(name)
        .unwrap_or_else(|| panic!("relation {name} not derived"))
        .iter()
        .map(|row| (row[0], row[1], row[2]))
        .collect()
}

/// `rf_no` as docs/rules.md defines it: the generic rule with every
/// witness (w -> w2 -> r in mustHb order, w2 a store that surely
/// overwrites the location and surely runs once w ran or before r runs,
/// and r reads the location alone or w writes it alone; or w2 a store of
/// the very cell r reads, dominating r) and the two lock
/// rules (likewise for the location the section covers); with the number
/// of rows the generic rule gives.
fn rf_no_by_definition(f: &FactSet, r: &Relations) -> (Pairs, usize) {
    let must = pairs(r, "hb_must");
    let post = pairs(r, "hb_post");
    let pre = pairs(r, "hb_pre");
    let may = pairs(r, "hb_may");
    let writes: Pairs = f.pairs("shared_write").into_iter().collect();
    let reads: Pairs = f.pairs("shared_read").into_iter().collect();
    let strong: Pairs = f.pairs("store_strong").into_iter().collect();
    let same_object: Pairs = f.pairs("store_same_object").into_iter().collect();
    let heap_killer: BTreeSet<u32> = same_object.iter().map(|&(w, _)| w).collect();
    let one: Pairs = f.pairs("load_one").into_iter().collect();
    // r can read w's value only through v
    let alone = |w: u32, l: u32, v: u32| one.contains(&(l, v)) || strong.contains(&(w, v));
    let mut stores_of: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &(w, v) in &writes {
        stores_of.entry(v).or_default().push(w);
    }
    let mut loads_of: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &(l, v) in &reads {
        loads_of.entry(v).or_default().push(l);
    }
    let mut out = Pairs::new();
    for (v, stores) in &stores_of {
        let loads = loads_of.get(v).map(Vec::as_slice).unwrap_or(&[]);
        for &w1 in stores {
            for &w2 in stores {
                let overwrites = strong.contains(&(w2, *v));
                if w1 == w2
                    || !must.contains(&(w1, w2))
                    || !(overwrites || heap_killer.contains(&w2))
                {
                    continue;
                }
                for &l in loads {
                    let hides = if overwrites {
                        must.contains(&(w2, l))
                            && (post.contains(&(w1, w2)) || pre.contains(&(w2, l)))
                            && alone(w1, l, *v)
                    } else {
                        // a store to a location of many cells hides w1
                        // only from a load of the cell it wrote (and
                        // dominates: it surely ran before)
                        same_object.contains(&(w2, l)) && must.contains(&(w2, l))
                    };
                    if hides {
                        out.insert((w1, l));
                    }
                }
            }
        }
    }
    let generic = out.len();
    let sections: BTreeSet<(u32, u32, u32)> = f
        .rows("diff_critical_section")
        .map(|row| (row[0], row[1], row[2]))
        .collect();
    for (l, v, m) in triples(r, "rf_covered_load") {
        for &(w, _, _) in sections.iter().filter(|s| s.1 == l && s.2 == m) {
            if writes.contains(&(w, v)) && may.contains(&(w, l)) && alone(w, l, v) {
                out.insert((w, l));
            }
        }
    }
    for (w, v, m) in triples(r, "rf_covered_store") {
        for &(_, l, _) in sections.iter().filter(|s| s.0 == w && s.2 == m) {
            if reads.contains(&(l, v)) && alone(w, l, v) {
                out.insert((w, l));
            }
        }
    }
    (out, generic)
}

/// Checks one fact set; the number of rows the generic rule gives.
fn check(name: &str, f: &FactSet) -> usize {
    let mut r = run(RuleProgram::Sync1, Engine::Ascent, f);
    // mustHb, mayHb and hb_pre themselves are stored only by the `hb` program
    let hb = run(RuleProgram::Hb, Engine::Ascent, f);
    r.insert("hb_must".into(), hb["hb_must"].clone());
    r.insert("hb_may".into(), hb["hb_may"].clone());
    r.insert("hb_pre".into(), hb["hb_pre"].clone());
    let (want, generic) = rf_no_by_definition(f, &r);
    let got = pairs(&r, "rf_no");
    let missing: Vec<_> = want.difference(&got).take(5).collect();
    let extra: Vec<_> = got.difference(&want).take(5).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{name}: rf_no differs from its definition: missing {missing:?}, extra {extra:?}"
    );
    generic
}

#[test]
fn rf_no_equals_its_definition_on_every_bench_program() {
    let root = common::repo_root().join("facts");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .expect("facts/")
        .flatten()
        .filter(|e| e.path().join("v1").is_dir())
        .map(|e| e.path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 26, "found only {} bench pairs", cases.len());
    let mut rows = 0;
    for case in cases {
        for version in ["v1", "v2"] {
            let dir = case.join(version);
            let f = read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            rows += check(&dir.display().to_string(), &f);
        }
    }
    // the bench programs exercise the generic rule, not only the lock rules
    assert!(
        rows > 0,
        "the generic rule gives no row on the bench programs"
    );
}

/// Stores and loads in straight runs, behind branches (a store that may
/// not run is no witness), inside a loop, before a create and after a
/// join: every kind of witness the nearest-witness rules choose between.
const SHAPES: &str = r#"
#include <pthread.h>
int x, y, c;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *a(void *arg) {
  int s = 0;
  x = 1;
  s += x;
  if (c) x = 2;
  s += x;
  x = 3;
  y = s;
  for (int i = 0; i < c; i++) { x = i; s += y; }
  s += x;
  pthread_mutex_lock(&m);
  x = 4;
  s += y;
  x = 5;
  pthread_mutex_unlock(&m);
  y = s + x;
  return 0;
}
void *b(void *arg) {
  int s = x;
  y = 1;
  if (s) { x = 7; y = 2; } else { x = 8; }
  s += y + x;
  pthread_mutex_lock(&m);
  s += x;
  pthread_mutex_unlock(&m);
  y = s;
  return 0;
}
int main(void) {
  pthread_t h1, h2;
  x = 10;
  y = 11;
  x = 12;
  pthread_create(&h1, 0, a, 0);
  pthread_create(&h2, 0, b, 0);
  pthread_join(h1, 0);
  x = 13;
  pthread_join(h2, 0);
  return x + y;
}
"#;

#[test]
fn rf_no_equals_its_definition_on_straight_runs_branches_and_loops() {
    let f = common::facts_of_c(SHAPES);
    // main's x = 10 is overwritten by x = 12 before either child reads x;
    // a's x = 1 by x = 3 before its later loads; b's y = 1 by y = s
    let rows = check("shapes", &f);
    assert!(rows >= 3, "the generic rule gives only {rows} rows");
}

/// Heap nodes from one site: the same-pointer store hides W1 from R, the
/// store through the other node hides nothing.
const HEAP: &str = r#"#include <pthread.h>
#include <stdlib.h>
struct node { int val; int aux; };
struct node *g;
void *t(void *arg) { g->val = 7; g->aux = 7; return arg; }
int main(int argc, char **argv) {
  pthread_t th;
  struct node *a = 0, *b = 0;
  for (int k = 0; k < 2; k++) {
    struct node *n = malloc(sizeof *n);
    if (k == 0) a = n; else b = n;
  }
  g = a;
  pthread_create(&th, 0, t, 0);
  a->val = 5;
  a->val = 6;
  b->aux = 5;
  a->aux = 1;
  b->aux = 2;
  int r = a->val + a->aux;
  pthread_join(th, 0);
  return r;
}
"#;

#[test]
fn rf_no_equals_its_definition_on_heap_objects() {
    let f = common::facts_of_c(HEAP);
    assert!(
        f.rows("store_same_object").count() >= 1,
        "a->val = 6 wrote the node r reads"
    );
    let rows = check("heap", &f);
    assert!(rows >= 1, "the generic rule gives only {rows} rows");
}
