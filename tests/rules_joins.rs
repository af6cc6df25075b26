//! Which joins order a thread's events (rules/hb.dl, `hb_joined`). A join
//! orders the events of a thread before it only if the join surely waits
//! for that thread: it does not run before the thread is created, and it is
//! not one call that may wait for threads of two create sites. Expected
//! results come from reasoning about each program (in its comment); both
//! engines must agree on every relation.

use crate::common;
use common::*;
use concord::analysis::{run, Engine, Relations, RuleProgram};
use concord::facts::FactSet;
use std::collections::BTreeSet;

/// The statements of `relation` (first column) on the tagged line.
fn on_line(f: &FactSet, src: &str, tag: &str, relation: &str) -> BTreeSet<u32> {
    let line = line_of(src, tag);
    let ids: BTreeSet<u32> = f.rows(relation).map(|r| r[0]).collect();
    let found: BTreeSet<u32> = f
        .statements
        .iter()
        .filter(|s| s.line == line && ids.contains(&s.id))
        .map(|s| s.id)
        .collect();
    assert!(!found.is_empty(), "no {relation} on line {line} ({tag})");
    found
}

fn analyse(src: &str) -> (FactSet, Relations) {
    let f = facts_of_c(src);
    let a = run(RuleProgram::Sync1, Engine::Ascent, &f);
    #[cfg(feature = "reference-engine")]
    assert_eq!(
        a,
        run(RuleProgram::Sync1, Engine::Crepe, &f),
        "ascent and crepe disagree"
    );
    // mustHb itself is stored only by the `hb` program
    let mut a = a;
    let hb = run(RuleProgram::Hb, Engine::Ascent, &f);
    a.insert("hb_must".into(), hb["hb_must"].clone());
    (f, a)
}

fn rel<'a>(r: &'a Relations, name: &str) -> &'a BTreeSet<Vec<u32>> {
    r.get(name).unwrap_or_else(|| panic!("{name} not derived"))
}

/// Does every pair of (statement of `a`, statement of `b`) stand in `relation`?
fn all_pairs(r: &Relations, relation: &str, a: &BTreeSet<u32>, b: &BTreeSet<u32>) -> bool {
    let rows = rel(r, relation);
    a.iter()
        .all(|&x| b.iter().all(|&y| rows.contains(&vec![x, y])))
}

/// Does any pair of (statement of `a`, statement of `b`) stand in `relation`?
fn any_pair(r: &Relations, relation: &str, a: &BTreeSet<u32>, b: &BTreeSet<u32>) -> bool {
    rel(r, relation)
        .iter()
        .any(|row| a.contains(&row[0]) && b.contains(&row[1]))
}

fn acyclic(r: &Relations) {
    let cyclic: Vec<&Vec<u32>> = rel(r, "hb_must").iter().filter(|p| p[0] == p[1]).collect();
    assert!(cyclic.is_empty(), "mustHb has cycles: {cyclic:?}");
}

/// `join_all` waits for the first `n` handles of `pool`. main starts `first`,
/// calls join_all (which can only wait for `first`: `second` does not exist
/// yet), stores W0, starts `second` and calls join_all again. So:
/// - W1 (in `first`) happens before W0: the first join waited for it;
/// - R2 (in `second`) happens after W0 (created after it), and never before
///   W0 — the first join_all cannot wait for a thread created later;
/// - R2 reads W0 and not W1 (W1 before W0 before R2);
/// - mustHb has no cycle.
const JOIN_BEFORE_CREATE: &str = r#"#include <pthread.h>
int x = 0;
pthread_t pool[2];
int n = 0;
void join_all(void) {
  for (int i = 0; i < n; i++)
    pthread_join(pool[i], 0); /* J */
}
void *first(void *arg) {
  x = 1; /* W1 */
  return 0;
}
void *second(void *arg) {
  int r = x; /* R2 */
  return (void *)(long)r;
}
int main(void) {
  pthread_create(&pool[0], 0, first, 0);
  n = 1;
  join_all();
  x = 5; /* W0 */
  pthread_create(&pool[1], 0, second, 0);
  n = 2;
  join_all();
  return 0;
}
"#;

#[test]
fn a_join_before_the_create_does_not_wait_for_that_thread() {
    let (f, r) = analyse(JOIN_BEFORE_CREATE);
    let src = JOIN_BEFORE_CREATE;
    acyclic(&r);
    let (w1, w0) = (
        on_line(&f, src, "W1", "shared_write"),
        on_line(&f, src, "W0", "shared_write"),
    );
    let r2 = on_line(&f, src, "R2", "shared_read");
    assert!(
        all_pairs(&r, "hb_must", &w1, &w0),
        "the first join waits for `first`"
    );
    assert!(
        all_pairs(&r, "hb_must", &w0, &r2),
        "`second` starts after W0"
    );
    assert!(
        !any_pair(&r, "hb_must", &r2, &w0),
        "no join before W0 waits for `second`"
    );
    assert!(any_pair(&r, "rf_may", &w0, &r2));
    assert!(
        !any_pair(&r, "rf_may", &w1, &r2),
        "W0 always overwrites W1 first"
    );
}

/// main starts `a` and `b`, stores their handles in one array, and joins
/// one handle chosen at run time (J). Which thread J waits for is not known,
/// so neither WA nor WB surely happens before R: R may read 0 (neither
/// stored yet), WA or WB. A later loop joins both, so both happen before RF.
const AMBIGUOUS_JOIN: &str = r#"#include <pthread.h>
extern int __VERIFIER_nondet_int(void);
int x = 0;
pthread_t h[2];
void *a(void *arg) {
  x = 1; /* WA */
  return 0;
}
void *b(void *arg) {
  x = 2; /* WB */
  return 0;
}
int main(void) {
  pthread_create(&h[0], 0, a, 0);
  pthread_create(&h[1], 0, b, 0);
  int k = __VERIFIER_nondet_int() & 1;
  pthread_join(h[k], 0); /* J */
  int r = x; /* R */
  for (int i = 0; i < 2; i++)
    if (i != k)
      pthread_join(h[i], 0);
  int rf = x; /* RF */
  return r + rf;
}
"#;

#[test]
fn one_join_of_either_of_two_threads_orders_neither() {
    let (f, r) = analyse(AMBIGUOUS_JOIN);
    let src = AMBIGUOUS_JOIN;
    acyclic(&r);
    let (wa, wb) = (
        on_line(&f, src, "WA", "shared_write"),
        on_line(&f, src, "WB", "shared_write"),
    );
    let (rd, rf) = (
        on_line(&f, src, "R", "shared_read"),
        on_line(&f, src, "RF", "shared_read"),
    );
    assert!(!any_pair(&r, "hb_must", &wa, &rd), "J may have joined b");
    assert!(!any_pair(&r, "hb_must", &wb, &rd), "J may have joined a");
    assert!(any_pair(&r, "rf_may", &wa, &rd) && any_pair(&r, "rf_may", &wb, &rd));
    // the join is still an event: R stays after the creates
    let join = on_line(&f, src, "J", "thread_join");
    assert!(all_pairs(&r, "hb_must", &join, &rd));
    // the loop waits for every thread J did not: both stores precede RF
    assert!(all_pairs(&r, "hb_must", &wa, &rf) && all_pairs(&r, "hb_must", &wb, &rf));
}
