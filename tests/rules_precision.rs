//! Precision of the synchronisation rules (issue 9): one small program per
//! defect, each with the answer derived by reasoning about the program
//! (sequential consistency, pthread semantics) in its comments. Every
//! program runs through both engines, which must agree on every relation;
//! the pairs of versions also run through `concord diff`, which must report
//! the difference the reasoning predicts (and which concord missed before).

use crate::common;
use common::*;
use concord::analysis::{run, Engine, Relations, RuleProgram};
use concord::facts::FactSet;
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

/// Shared stores and loads on a tagged line.
fn accesses(f: &FactSet, src: &str, tag: &str, relation: &str) -> BTreeSet<u32> {
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

fn stores(f: &FactSet, src: &str, tag: &str) -> BTreeSet<u32> {
    accesses(f, src, tag, "shared_write")
}

fn loads(f: &FactSet, src: &str, tag: &str) -> BTreeSet<u32> {
    accesses(f, src, tag, "shared_read")
}

/// Runs `program` with both engines on the program's facts; they must agree.
fn analyse(src: &str, program: RuleProgram) -> (FactSet, Relations) {
    let f = facts_of_c(src);
    let a = run(program, Engine::Ascent, &f);
    #[cfg(feature = "reference-engine")]
    assert_eq!(
        a,
        run(program, Engine::Crepe, &f),
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

/// Is there an rf_may edge from a store on line `w` to a load on line `r`?
fn rf(f: &FactSet, r: &Relations, src: &str, w: &str, rd: &str) -> bool {
    let (ws, rs) = (stores(f, src, w), loads(f, src, rd));
    rel(r, "rf_may")
        .iter()
        .any(|e| ws.contains(&e[0]) && rs.contains(&e[1]))
}

/// A reported difference: (rank, only_in, [(write line, read line)]).
type Reported = ReportedDifference;

/// Differences `concord diff` reports.
fn diff(v1: &str, v2: &str) -> BTreeSet<Reported> {
    let dir = tempfile::tempdir().unwrap();
    let (p1, p2) = (dir.path().join("v1.c"), dir.path().join("v2.c"));
    std::fs::write(&p1, v1).unwrap();
    std::fs::write(&p2, v2).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["-q", "diff", "--format", "json"])
        .arg(&p1)
        .arg(&p2)
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    reported_differences(&v["differences"])
        .into_iter()
        .collect()
}

// ------------------------------------------------------------ 1. covered accesses

/// A worker decrements `x` in a loop under `m` and tests the value it just
/// stored; `other` stores 100 to `x`. The test `x == 0` (CHECK) runs in the
/// section that stored `x` at DEC, without releasing `m` in between, so when
/// `other` holds `m` too (v2) CHECK can only read DEC's store: RF(SET, CHECK)
/// is impossible. In v1 `other` stores without the lock and may run between
/// DEC and CHECK. Before the per-section dataflow the load was judged by
/// loop-aware dominance (DEC and CHECK share the loop, so no dominance) and
/// the edge stayed in v2: no difference.
const LOOP_V1: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x = 10;
int zero_seen = 0;
void *worker(void *arg) {
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&m);
    x = x - 1; /* DEC */
    if (x == 0) /* CHECK */
      zero_seen = 1;
    pthread_mutex_unlock(&m);
  }
  return 0;
}
void *other(void *arg) {
  x = 100; /* SET */
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, other, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return zero_seen;
}
"#;

fn loop_v2() -> String {
    LOOP_V1.replace(
        "  x = 100; /* SET */\n",
        "  pthread_mutex_lock(&m);\n  x = 100; /* SET */\n  pthread_mutex_unlock(&m);\n",
    )
}

#[test]
fn covered_load_in_a_loop_section() {
    let v2 = loop_v2();
    let (f1, r1) = analyse(LOOP_V1, RuleProgram::Sync1);
    let (f2, r2) = analyse(&v2, RuleProgram::Sync1);
    assert!(
        rf(&f1, &r1, LOOP_V1, "SET", "CHECK"),
        "v1: SET may run between DEC and CHECK"
    );
    assert!(
        !rf(&f2, &r2, &v2, "SET", "CHECK"),
        "v2: CHECK is covered by DEC"
    );
    // CHECK reads DEC in both; DEC's own load may read SET in both (the
    // store happens between two iterations' sections)
    assert!(rf(&f2, &r2, &v2, "DEC", "CHECK"));
    assert!(rf(&f2, &r2, &v2, "SET", "DEC"));
    // the covered-load row itself
    let check = loads(&f2, &v2, "CHECK");
    let (x, m) = (loc(&f2, "x"), loc(&f2, "m"));
    assert!(check
        .iter()
        .any(|&l| rel(&r2, "rf_covered_load").contains(&vec![l, x, m])));
    // only in old, in lines of v1
    let set_line = line_of(LOOP_V1, "SET") as u64;
    let check_line = line_of(LOOP_V1, "CHECK") as u64;
    let found = diff(LOOP_V1, &v2);
    assert!(
        found.contains(&(1, "old".into(), vec![(set_line, check_line)])),
        "{found:?}"
    );
}

/// The unsound case of the old rule: `x = 1` dominates the load in the loop
/// and both share the first acquisition, but from the second iteration on
/// the load runs in a section opened by RELOCK, after `m` was released, so
/// `other`'s locked store of 2 can be read: RF(SET2, LOAD) must stay.
const RELOCK: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x = 0;
int r = 0;
extern int __VERIFIER_nondet_int(void);
void *spin(void *arg) {
  pthread_mutex_lock(&m);
  x = 1; /* SET1 */
  while (__VERIFIER_nondet_int()) {
    r = x; /* LOAD */
    pthread_mutex_unlock(&m);
    pthread_mutex_lock(&m); /* RELOCK */
  }
  pthread_mutex_unlock(&m);
  return 0;
}
void *other(void *arg) {
  pthread_mutex_lock(&m);
  x = 2; /* SET2 */
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, spin, 0);
  pthread_create(&b, 0, other, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return r;
}
"#;

#[test]
fn load_after_a_relock_is_not_covered() {
    let (f, r) = analyse(RELOCK, RuleProgram::Sync1);
    assert!(
        rf(&f, &r, RELOCK, "SET2", "LOAD"),
        "second iteration reads other's x"
    );
    assert!(rf(&f, &r, RELOCK, "SET1", "LOAD"));
    let x = loc(&f, "x");
    let load = loads(&f, RELOCK, "LOAD");
    assert!(!rel(&r, "rf_covered_load")
        .iter()
        .any(|c| load.contains(&c[0]) && c[1] == x));
}

/// Covered stores, per section instance: in a loop, `x = -1` (TMP) is
/// overwritten by `x = i` (FINAL) before every unlock, so `reader`, which
/// reads `x` under the lock, never sees -1; FINAL is not covered.
const COVERED_STORE: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x = 0;
int seen = 0;
void *writer(void *arg) {
  for (int i = 0; i < 3; i++) {
    pthread_mutex_lock(&m);
    x = -1; /* TMP */
    x = i; /* FINAL */
    pthread_mutex_unlock(&m);
  }
  return 0;
}
void *reader(void *arg) {
  pthread_mutex_lock(&m);
  seen = x; /* READ */
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, writer, 0);
  pthread_create(&b, 0, reader, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return seen;
}
"#;

#[test]
fn covered_store_in_a_loop_section() {
    let (f, r) = analyse(COVERED_STORE, RuleProgram::Sync1);
    assert!(!rf(&f, &r, COVERED_STORE, "TMP", "READ"));
    assert!(rf(&f, &r, COVERED_STORE, "FINAL", "READ"));
    let x = loc(&f, "x");
    let covered: BTreeSet<u32> = rel(&r, "rf_covered_store")
        .iter()
        .filter(|c| c[1] == x)
        .map(|c| c[0])
        .collect();
    assert_eq!(covered, stores(&f, COVERED_STORE, "TMP"));
}

// ------------------------------------------------------------ 3. conditional acquisition

/// `owner` takes `m` either by a successful trylock (not an acquisition in
/// the facts) or, when that fails, by counting the contention and blocking
/// in `pthread_mutex_lock`; it then stores and reloads `x` and unlocks on
/// every path. Whichever way it got `m`, it holds it from STORE to RELOAD
/// (a thread never unlocks a mutex it does not hold), so `other`'s locked
/// store SET cannot be read at RELOAD in v2. v1 takes no lock at all, so
/// SET may run between STORE and RELOAD. Before, `m` was not held on the
/// trylock path, the section was dropped, and v2 kept the edge too.
const CONDLOCK_V1: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x = 0;
int contended = 0;
int got = 0;
void *owner(void *arg) {
  x = 1; /* STORE */
  got = x; /* RELOAD */
  return 0;
}
void *other(void *arg) {
  pthread_mutex_lock(&m);
  x = 2; /* SET */
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, owner, 0);
  pthread_create(&b, 0, other, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return got;
}
"#;

const CONDLOCK_V2: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x = 0;
int contended = 0;
int got = 0;
void *owner(void *arg) {
  if (pthread_mutex_trylock(&m) != 0) {
    contended = contended + 1;
    pthread_mutex_lock(&m);
  }
  x = 1; /* STORE */
  got = x; /* RELOAD */
  pthread_mutex_unlock(&m);
  return 0;
}
void *other(void *arg) {
  pthread_mutex_lock(&m);
  x = 2; /* SET */
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, owner, 0);
  pthread_create(&b, 0, other, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return got;
}
"#;

#[test]
fn conditionally_acquired_lock_keeps_its_section() {
    let (f1, r1) = analyse(CONDLOCK_V1, RuleProgram::Sync1);
    let (f2, r2) = analyse(CONDLOCK_V2, RuleProgram::Sync1);
    assert!(rf(&f1, &r1, CONDLOCK_V1, "SET", "RELOAD"));
    assert!(!rf(&f2, &r2, CONDLOCK_V2, "SET", "RELOAD"));
    assert!(rf(&f2, &r2, CONDLOCK_V2, "STORE", "RELOAD"));
    // the statements between are in the section of the conditional lock
    let m = loc(&f2, "m");
    let store = stores(&f2, CONDLOCK_V2, "STORE");
    assert!(f2
        .rows("in_critical_section")
        .any(|c| store.contains(&c[0]) && c[1] == m));
    let reload = line_of(CONDLOCK_V1, "RELOAD") as u64;
    let set = line_of(CONDLOCK_V1, "SET") as u64;
    let found = diff(CONDLOCK_V1, CONDLOCK_V2);
    assert!(
        found.contains(&(1, "old".into(), vec![(set, reload)])),
        "{found:?}"
    );
}

/// A lock taken on one path only, with the unlock also on that path only,
/// is not a section on the other: `if (c) { lock; } x = 1; if (c) unlock;`
/// leaves STORE outside every section (some path from it ends the thread
/// without releasing `m`), so `other`'s locked store stays readable.
const CONDLOCK_BOTH: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x = 0;
int got = 0;
extern int __VERIFIER_nondet_int(void);
void *owner(void *arg) {
  int c = __VERIFIER_nondet_int();
  if (c)
    pthread_mutex_lock(&m);
  x = 1; /* STORE */
  got = x; /* RELOAD */
  if (c)
    pthread_mutex_unlock(&m);
  return 0;
}
void *other(void *arg) {
  pthread_mutex_lock(&m);
  x = 2; /* SET */
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, owner, 0);
  pthread_create(&b, 0, other, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return got;
}
"#;

#[test]
fn lock_and_unlock_under_one_condition_are_not_a_section_on_the_other_path() {
    let (f, r) = analyse(CONDLOCK_BOTH, RuleProgram::Sync1);
    assert!(rf(&f, &r, CONDLOCK_BOTH, "SET", "RELOAD"));
    let store = stores(&f, CONDLOCK_BOTH, "STORE");
    assert!(!f.rows("in_critical_section").any(|c| store.contains(&c[0])));
}

// ------------------------------------------------------------ 2. flag-guarded regions

/// A worker polls `registered` in its loop and uses `data` only when the
/// flag is set. The only store that sets the flag is FLAG (the initial 0
/// fails the test), so USE runs after FLAG. v2 initialises DATA before
/// FLAG: USE cannot read the initial `data`. v1 publishes first, so USE may
/// read 0. Before, only spin loops ordered anything, and v2 kept the edge.
const GUARD_V1: &str = r#"#include <pthread.h>
int data = 0; /* DATA0 */
int registered = 0;
int sum = 0;
void *producer(void *arg) {
  registered = 1; /* FLAG */
  data = 42; /* DATA */
  return 0;
}
void *worker(void *arg) {
  for (int i = 0; i < 3; i++) {
    if (registered) {
      sum = sum + data; /* USE */
    }
  }
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, producer, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return sum;
}
"#;

fn guard_v2() -> String {
    GUARD_V1.replace(
        "  registered = 1; /* FLAG */\n  data = 42; /* DATA */\n",
        "  data = 42; /* DATA */\n  registered = 1; /* FLAG */\n",
    )
}

#[test]
fn flag_guarded_region_is_ordered_after_the_enabling_store() {
    let v2 = guard_v2();
    let (f1, r1) = analyse(GUARD_V1, RuleProgram::Sync1);
    let (f2, r2) = analyse(&v2, RuleProgram::Sync1);
    let init = |f: &FactSet| {
        let d = loc(f, "data");
        f.rows("shared_write")
            .find(|w| w[1] == d && f.statement(w[0]).unwrap().kind == "init")
            .unwrap()[0]
    };
    let from_init = |f: &FactSet, r: &Relations, src: &str| {
        let uses = loads(f, src, "USE");
        let i = init(f);
        rel(r, "rf_may")
            .iter()
            .any(|e| e[0] == i && uses.contains(&e[1]))
    };
    assert!(from_init(&f1, &r1, GUARD_V1), "v1: USE may run before DATA");
    assert!(
        !from_init(&f2, &r2, &v2),
        "v2: USE runs after FLAG, after DATA"
    );
    assert!(rf(&f2, &r2, &v2, "DATA", "USE"));
    // FLAG is the region's one enabler; the initial 0 is not one
    let flag = stores(&f2, &v2, "FLAG");
    let enablers: BTreeSet<u32> = f2.rows("flag_enabler").map(|r| r[1]).collect();
    assert_eq!(enablers, flag);
    let found = diff(GUARD_V1, &v2);
    let (d0, use_line) = (
        line_of(GUARD_V1, "DATA0") as u64,
        line_of(GUARD_V1, "USE") as u64,
    );
    assert!(
        found.contains(&(1, "old".into(), vec![(d0, use_line)])),
        "{found:?}"
    );
}

/// Two enabling stores in two threads: nothing precedes both, so the
/// guarded read may still see the initial value (no over-ordering).
const GUARD_TWO: &str = r#"#include <pthread.h>
int data = 0;
int go = 0;
int seen = 0;
void *p1(void *arg) {
  data = 1; /* D1 */
  go = 1; /* G1 */
  return 0;
}
void *p2(void *arg) {
  go = 2; /* G2 */
  return 0;
}
void *worker(void *arg) {
  if (go != 0)
    seen = data; /* USE */
  return 0;
}
int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, p1, 0);
  pthread_create(&b, 0, p2, 0);
  pthread_create(&c, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(c, 0);
  return seen;
}
"#;

#[test]
fn two_enabling_stores_order_only_what_precedes_both() {
    let (f, r) = analyse(GUARD_TWO, RuleProgram::Sync1);
    let d = loc(&f, "data");
    let uses = loads(&f, GUARD_TWO, "USE");
    let init = f
        .rows("shared_write")
        .find(|w| w[1] == d && f.statement(w[0]).unwrap().kind == "init")
        .unwrap()[0];
    assert!(rel(&r, "rf_may")
        .iter()
        .any(|e| e[0] == init && uses.contains(&e[1])));
    let d1 = stores(&f, GUARD_TWO, "D1");
    assert!(!rel(&r, "hb_must")
        .iter()
        .any(|e| d1.contains(&e[0]) && uses.contains(&e[1])));
}

// ------------------------------------------------------------ 4. execution guarantees

/// The notifier stores `x = 2` and then, under the lock, sets `ready` and
/// signals, all under a condition; the waiter waits for `ready` and then
/// reads `x`. GET runs only after the wait loop saw `ready == 1`, which only
/// READY writes, after SET: whenever GET runs, SET ran before it, so GET
/// cannot read the initial `x`. v1 reads without waiting and may. Before,
/// SET was ordered before GET (signal -> wait) but not known to have run
/// (it is conditional), so the generic NoRf rule could not use it and v2
/// kept the edge.
const NOTIFY_V1: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int x = 0; /* X0 */
int ready = 0;
int got = 0;
extern int __VERIFIER_nondet_int(void);
void *notifier(void *arg) {
  if (__VERIFIER_nondet_int()) {
    x = 2; /* SET */
    pthread_mutex_lock(&m);
    ready = 1; /* READY */
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&m);
  }
  return 0;
}
void *waiter(void *arg) {
  got = x; /* GET */
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, notifier, 0);
  pthread_create(&b, 0, waiter, 0);
  pthread_join(a, 0);
  return 0;
}
"#;

fn notify_v2() -> String {
    NOTIFY_V1.replace(
        "  got = x; /* GET */\n",
        "  pthread_mutex_lock(&m);\n  while (ready == 0)\n    pthread_cond_wait(&cv, &m);\n  pthread_mutex_unlock(&m);\n  got = x; /* GET */\n",
    )
}

#[test]
fn a_store_before_the_signal_surely_ran_when_the_waiter_reads() {
    let v2 = notify_v2();
    let (f1, r1) = analyse(NOTIFY_V1, RuleProgram::Sync1);
    let (f2, r2) = analyse(&v2, RuleProgram::Sync1);
    let from_init = |f: &FactSet, r: &Relations, src: &str| {
        let x = loc(f, "x");
        let get = loads(f, src, "GET");
        let init = f
            .rows("shared_write")
            .find(|w| w[1] == x && f.statement(w[0]).unwrap().kind == "init")
            .unwrap()[0];
        rel(r, "rf_may")
            .iter()
            .any(|e| e[0] == init && get.contains(&e[1]))
    };
    assert!(from_init(&f1, &r1, NOTIFY_V1));
    assert!(!from_init(&f2, &r2, &v2));
    assert!(rf(&f2, &r2, &v2, "SET", "GET"));
    let found = diff(NOTIFY_V1, &v2);
    let (x0, get) = (
        line_of(NOTIFY_V1, "X0") as u64,
        line_of(NOTIFY_V1, "GET") as u64,
    );
    assert!(
        found.contains(&(1, "old".into(), vec![(x0, get)])),
        "{found:?}"
    );
}

// ------------------------------------------------------------ 5. rank-2 exclusions

fn pair(f: &FactSet, r: &Relations, src: &str, e1: (&str, &str), e2: (&str, &str)) -> (bool, bool) {
    let (w1, r1) = (stores(f, src, e1.0), loads(f, src, e1.1));
    let (w2, r2) = (stores(f, src, e2.0), loads(f, src, e2.1));
    let hit = |name: &str| {
        rel(r, name).iter().any(|p| {
            w1.contains(&p[0]) && r1.contains(&p[1]) && w2.contains(&p[2]) && r2.contains(&p[3])
        })
    };
    (hit("rank2_may"), hit("rank2_no"))
}

/// (a) the lock rule without the lock. When `t` reads x at R1 it surely
/// stores x at W3 next, and main joins `t` before R2: W3 lies between R1
/// and R2. So once R1 has read U's store W1, R2 reads W3 or later: not W1
/// (older than R1), and not W2 (main's store before creating `t`, so before
/// W3). If `t` skips its branch, R2 may read W2 or W1 (U is not joined).
const POST_OVERWRITE: &str = r#"#include <pthread.h>
int x = 0;
extern int __VERIFIER_nondet_int(void);
void *t(void *arg) {
  if (__VERIFIER_nondet_int()) {
    int r1 = x; /* R1 */
    x = r1 + 10; /* W3 */
  }
  return 0;
}
void *u(void *arg) {
  x = 3; /* W1 */
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&b, 0, u, 0);
  x = 1; /* W2 */
  pthread_create(&a, 0, t, 0);
  pthread_join(a, 0);
  int r2 = x; /* R2 */
  return r2;
}
"#;

#[test]
fn rank2_store_surely_between_the_reads() {
    let (f, r) = analyse(POST_OVERWRITE, RuleProgram::Sync2);
    let src = POST_OVERWRITE;
    // each edge alone is possible
    assert!(
        rf(&f, &r, src, "W1", "R1") && rf(&f, &r, src, "W2", "R2") && rf(&f, &r, src, "W1", "R2")
    );
    assert_eq!(pair(&f, &r, src, ("W1", "R1"), ("W2", "R2")), (false, true));
    assert_eq!(pair(&f, &r, src, ("W1", "R1"), ("W1", "R2")), (false, true));
    // what remains possible
    assert!(pair(&f, &r, src, ("W1", "R1"), ("W3", "R2")).0);
    assert!(
        pair(&f, &r, src, ("W2", "R1"), ("W1", "R2")).0,
        "U may store after W3"
    );
}

/// Rules 4 and 6 need the store between the reads to write R2's very
/// cell. Here `t` reads `a[i]` (R1) and stores `a[j]` (W3), then main
/// reads `a[i]` (R2); both loads can read main's W1 (`a[i] = 5`, or `u`'s
/// in the unlocked program): with `i != j` (`j = argc + 1`), W3 writes
/// another element, so `t` running first, then main, gives both edges in
/// that order. concord took any store to `a[*]` as W3 and excluded the
/// pair. With one global `g` in place of the elements, W3 overwrites
/// R2's cell and the pair stays excluded.
const LOCKPOST_ELEMENTS: &str = r#"#include <pthread.h>
int a[8];
int i, j;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *t(void *arg) {
  pthread_mutex_lock(&m);
  int r1 = a[i]; /* R1 */
  a[j] = r1 + 1; /* W3 */
  pthread_mutex_unlock(&m);
  return 0;
}
int main(int argc, char **argv) {
  pthread_t th;
  i = argc; j = argc + 1;
  a[i] = 5; /* W1 */
  pthread_create(&th, 0, t, 0);
  pthread_mutex_lock(&m);
  int r2 = a[i]; /* R2 */
  pthread_mutex_unlock(&m);
  pthread_join(th, 0);
  return r2;
}
"#;

const POST_ELEMENTS: &str = r#"#include <pthread.h>
int a[8];
int i, j;
extern int __VERIFIER_nondet_int(void);
void *t(void *arg) {
  if (__VERIFIER_nondet_int()) {
    int r1 = a[i]; /* R1 */
    a[j] = r1 + 10; /* W3 */
  }
  return 0;
}
void *u(void *arg) {
  a[i] = 3; /* W1 */
  return 0;
}
int main(int argc, char **argv) {
  pthread_t x, y;
  i = argc; j = argc + 1;
  pthread_create(&y, 0, u, 0);
  pthread_create(&x, 0, t, 0);
  pthread_join(x, 0);
  int r2 = a[i]; /* R2 */
  return r2;
}
"#;

#[test]
fn rank2_store_between_the_reads_must_write_the_second_reads_cell() {
    for (name, src) in [("lock", LOCKPOST_ELEMENTS), ("no lock", POST_ELEMENTS)] {
        let (f, r) = analyse(src, RuleProgram::Sync2);
        assert!(
            rf(&f, &r, src, "W1", "R1") && rf(&f, &r, src, "W1", "R2"),
            "{name}"
        );
        assert_eq!(
            pair(&f, &r, src, ("W1", "R1"), ("W1", "R2")),
            (true, false),
            "{name}: a[j] is another element"
        );
        let one = src
            .replace("int a[8];", "int g;")
            .replace("a[i]", "g")
            .replace("a[j]", "g");
        let (f, r) = analyse(&one, RuleProgram::Sync2);
        assert!(
            rf(&f, &r, &one, "W1", "R1") && rf(&f, &r, &one, "W1", "R2"),
            "{name}"
        );
        assert_eq!(
            pair(&f, &r, &one, ("W1", "R1"), ("W1", "R2")),
            (false, true),
            "{name}: g = r1 + .. overwrites g"
        );
    }
}

/// `load_store_same_object(r, w)`: the store writes back the cell the load
/// read. In the list walk the load R runs once per node: when it reads a
/// non-zero value the walk moves on (the phi redefines `p`), so the next
/// store W may write another node than the R that ran first. Only the
/// increment in one block (RMW: its load and store) pairs up.
const WALK_THEN_STORE: &str = r#"#include <pthread.h>
#include <stdlib.h>
struct node { int val; int hits; struct node *next; };
struct node *head;
void *t(void *arg) {
  struct node *p = head;
  for (;;) {
    int v = p->val; /* R */
    p->hits++; /* RMW */
    if (v) { p = p->next; continue; }
    p->val = 1; /* W */
    break;
  }
  return 0;
}
void *u(void *arg) { head->val = 0; head->hits = 0; return arg; }
int main(void) {
  pthread_t a, b;
  head = calloc(1, sizeof *head);
  head->next = calloc(1, sizeof *head);
  pthread_create(&a, 0, t, 0);
  pthread_create(&b, 0, u, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
"#;

#[test]
fn a_store_writes_back_a_loads_cell_only_after_that_loads_last_run() {
    let src = WALK_THEN_STORE;
    let f = facts_of_c(src);
    let pairs: BTreeSet<(u32, u32)> = f
        .rows("load_store_same_object")
        .map(|r| (r[0], r[1]))
        .collect();
    let (r, w) = (loads(&f, src, "R"), stores(&f, src, "W"));
    let (rmw_load, rmw_store) = (loads(&f, src, "RMW"), stores(&f, src, "RMW"));
    assert!(
        !pairs.iter().any(|(a, b)| r.contains(a) && w.contains(b)),
        "the walk may move on between R and W: {pairs:?}"
    );
    assert!(
        pairs
            .iter()
            .any(|(a, b)| rmw_load.contains(a) && rmw_store.contains(b)),
        "p->hits++ writes back its own cell: {pairs:?}"
    );
}

/// (b) coherence: WA must happen before WB, so once R1 has read WB, the
/// later R2 cannot read WA (WB lies between). R1 reading WA and R2 reading
/// WB stays possible.
const COHERENCE: &str = r#"#include <pthread.h>
int x = 0;
void *t(void *arg) {
  x = 1; /* WA */
  x = 2; /* WB */
  return 0;
}
int main(void) {
  pthread_t a;
  pthread_create(&a, 0, t, 0);
  int r1 = x; /* R1 */
  int r2 = x; /* R2 */
  pthread_join(a, 0);
  return r1 + r2;
}
"#;

#[test]
fn rank2_read_older_store_after_newer() {
    let (f, r) = analyse(COHERENCE, RuleProgram::Sync2);
    let src = COHERENCE;
    assert!(rf(&f, &r, src, "WB", "R1") && rf(&f, &r, src, "WA", "R2"));
    assert_eq!(pair(&f, &r, src, ("WB", "R1"), ("WA", "R2")), (false, true));
    assert!(pair(&f, &r, src, ("WA", "R1"), ("WB", "R2")).0);
    assert!(pair(&f, &r, src, ("WA", "R1"), ("WA", "R2")).0);
    assert!(pair(&f, &r, src, ("WB", "R1"), ("WB", "R2")).0);
}

/// Stores that may leave an earlier value in place do not hide it. In each
/// program main stores 5 (W1), then stores through an address that may
/// name another cell (W2), then reads W1's cell (R). With `argc == 1` the
/// second store writes elsewhere (`y`, `a[2]`), so R reads
/// 5 unless thread `t` stored in between: rf(W1, R) is an edge. concord
/// used to take any store to the abstract location as an overwrite and
/// left the edge out. A store that surely overwrites (`x = 1`) still hides
/// W1.
const TWO_TARGETS: &str = r#"#include <pthread.h>
int x, y;
int *p;
void *t(void *arg) { x = 7; y = 7; return arg; }
int main(int argc, char **argv) {
  pthread_t th;
  p = argc > 1 ? &x : &y;
  pthread_create(&th, 0, t, 0);
  x = 5; /* W1 */
  *p = 1; /* W2 */
  int r = x; /* R */
  pthread_join(th, 0);
  return r;
}
"#;

const ANY_ELEMENT: &str = r#"#include <pthread.h>
int a[8];
void *t(void *arg) { a[1] = 7; return arg; }
int main(int argc, char **argv) {
  pthread_t th;
  int i = argc, j = argc + 1;
  pthread_create(&th, 0, t, 0);
  a[i] = 5; /* W1 */
  a[j] = 1; /* W2 */
  int s = a[i]; /* R */
  pthread_join(th, 0);
  return s;
}
"#;

#[test]
fn a_store_that_may_write_another_cell_hides_no_earlier_store() {
    for (name, src) in [("two targets", TWO_TARGETS), ("any element", ANY_ELEMENT)] {
        let (f, r) = analyse(src, RuleProgram::Sync1);
        assert!(rf(&f, &r, src, "W1", "R"), "{name}: R may read W1");
        assert!(rf(&f, &r, src, "W2", "R"), "{name}: R may read W2");
    }
    // the strong store still hides W1 (main's own later read of x can see
    // W2 or t's store, never W1)
    let strong = TWO_TARGETS.replace("*p = 1; /* W2 */", "x = 1; /* W2 */");
    let (f, r) = analyse(&strong, RuleProgram::Sync1);
    assert!(!rf(&f, &r, &strong, "W1", "R"), "x = 1 overwrites W1");
    assert!(rf(&f, &r, &strong, "W2", "R"));
}

/// Coherence (rule 7) needs the later store to overwrite the cell: `t`
/// stores `a[i]` (WA) then `a[j]` (WB), main loads `a[j]` (R1) then
/// `a[i]` (R2). With `i != j`, once `t` has run R1 reads WB and R2 reads
/// WA: the pair is possible, where rule 7 used to exclude it. With one
/// constant element the pair stays excluded.
const COHERENCE_ELEMENTS: &str = r#"#include <pthread.h>
int a[8];
int i, j;
void *t(void *arg) {
  a[i] = 1; /* WA */
  a[j] = 2; /* WB */
  return 0;
}
int main(int argc, char **argv) {
  pthread_t th;
  i = argc; j = argc + 1;
  pthread_create(&th, 0, t, 0);
  int r1 = a[j]; /* R1 */
  int r2 = a[i]; /* R2 */
  pthread_join(th, 0);
  return r1 + r2;
}
"#;

#[test]
fn rank2_coherence_needs_a_store_to_the_same_cell() {
    let src = COHERENCE_ELEMENTS;
    let (f, r) = analyse(src, RuleProgram::Sync2);
    assert!(rf(&f, &r, src, "WB", "R1") && rf(&f, &r, src, "WA", "R2"));
    assert_eq!(pair(&f, &r, src, ("WB", "R1"), ("WA", "R2")), (true, false));
    let one = src.replace("a[i]", "a[3]").replace("a[j]", "a[3]");
    let (f, r) = analyse(&one, RuleProgram::Sync2);
    assert!(rf(&f, &r, &one, "WB", "R1") && rf(&f, &r, &one, "WA", "R2"));
    assert_eq!(
        pair(&f, &r, &one, ("WB", "R1"), ("WA", "R2")),
        (false, true)
    );
}

/// A heap location stands for every allocation at its site: main's two
/// nodes come from one `malloc` in a loop, so `b->val = 1` writes another
/// object than the one `a->val` reads, and R still reads W1's 5 (unless
/// `t` stored first). Through the same pointer (`a->val = 1`) the store
/// does overwrite R's object: W1 is hidden, as with a global.
const HEAP_NODES: &str = r#"#include <pthread.h>
#include <stdlib.h>
struct node { int val; };
struct node *g;
void *t(void *arg) { g->val = 7; return arg; }
int main(int argc, char **argv) {
  pthread_t th;
  struct node *a = 0, *b = 0;
  for (int k = 0; k < 2; k++) {
    struct node *n = malloc(sizeof *n);
    if (k == 0) a = n; else b = n;
  }
  g = a;
  pthread_create(&th, 0, t, 0);
  a->val = 5; /* W1 */
  b->val = 1; /* W2 */
  int r = a->val; /* R */
  pthread_join(th, 0);
  return r;
}
"#;

#[test]
fn a_heap_store_hides_an_earlier_store_only_through_the_same_pointer() {
    let src = HEAP_NODES;
    let (f, r) = analyse(src, RuleProgram::Sync1);
    assert!(rf(&f, &r, src, "W1", "R"), "b may be another node than a");
    assert!(
        rf(&f, &r, src, "W2", "R"),
        "or the same one, as far as points-to knows"
    );
    let same = src.replace("b->val = 1; /* W2 */", "a->val = 1; /* W2 */");
    let (f, r) = analyse(&same, RuleProgram::Sync1);
    assert!(!rf(&f, &r, &same, "W1", "R"), "a->val = 1 overwrites W1");
    assert!(rf(&f, &r, &same, "W2", "R"));
    // so the patch b -> a removes the edge W1 -> R: a difference (the
    // build that took every heap store as an overwrite answered exit 0)
    let found = diff(src, &same);
    let (w1, rd) = (line_of(src, "W1") as u64, line_of(src, "R") as u64);
    assert!(
        found.contains(&(1, "old".into(), vec![(w1, rd)])),
        "{found:?}"
    );
}

/// An allocation that runs once is one object, whatever pointer reaches
/// it: main's `g->val = 1` (through the global) overwrites the node R
/// reads through `a`, so R never reads W1. In a loop the same stores leave
/// W1 readable (the site may have made two nodes; the previous test).
const HEAP_ONCE: &str = r#"#include <pthread.h>
#include <stdlib.h>
struct node { int val; };
struct node *g;
void *t(void *arg) { g->val = 7; return arg; }
int main(int argc, char **argv) {
  pthread_t th;
  struct node *a = malloc(sizeof *a);
  g = a;
  pthread_create(&th, 0, t, 0);
  a->val = 5; /* W1 */
  g->val = 1; /* W2 */
  int r = a->val; /* R */
  pthread_join(th, 0);
  return r;
}
"#;

#[test]
fn a_store_to_an_allocation_that_runs_once_overwrites_it() {
    let src = HEAP_ONCE;
    let (f, r) = analyse(src, RuleProgram::Sync1);
    assert!(
        !rf(&f, &r, src, "W1", "R"),
        "one node: g->val = 1 overwrites W1"
    );
    assert!(rf(&f, &r, src, "W2", "R"));
}

/// Whether the store tagged W2 counts as an overwrite (`store_strong`).
fn overwrites(src: &str) -> bool {
    let (f, _) = analyse(src, RuleProgram::Sync1);
    let w2 = stores(&f, src, "W2");
    assert!(!w2.is_empty(), "no W2 store");
    let strong = f.rows("store_strong").any(|row| w2.contains(&row[0]));
    strong
}

/// An allocation site that may run twice is not one object: in a
/// recursive function, or in a thread started in a loop.
#[test]
fn an_allocation_that_may_run_twice_is_not_overwritten_by_one_store() {
    assert!(overwrites(HEAP_ONCE), "the reference: one run, one node");
    let recursive = HEAP_ONCE
        .replace(
            "struct node *g;",
            "struct node *g;\nstruct node *make(int d) { if (d > 0) make(d - 1); return malloc(sizeof(struct node)); }",
        )
        .replace("malloc(sizeof *a)", "make(argc)");
    assert!(!overwrites(&recursive), "make() re-enters itself");
    let in_loop_thread = r#"#include <pthread.h>
#include <stdlib.h>
struct node { int val; };
void *t(void *arg) {
  struct node *a = malloc(sizeof *a);
  *(struct node **)arg = a;
  a->val = 1; /* W2 */
  return arg;
}
int main(void) {
  pthread_t th[4];
  struct node *slot[4];
  for (int k = 0; k < 4; k++) pthread_create(&th[k], 0, t, &slot[k]);
  for (int k = 0; k < 4; k++) pthread_join(th[k], 0);
  return slot[0]->val;
}
"#;
    assert!(
        !overwrites(in_loop_thread),
        "t runs once per iteration, more often than it has instances"
    );
}

/// The lock rule's covered store needs an overwrite of its own cell: `t`
/// stores `a[i]` (W1) then `a[j]` (W2) under `m`, main reads `a[i]` (R)
/// under `m`. With `i != j`, R reads W1's 1 once `t` has run. Through one
/// index value (`k`, read once) the second store does overwrite W1.
const ELEMENTS_UNDER_LOCK: &str = r#"#include <pthread.h>
int a[8];
int i, j;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *t(void *arg) {
  pthread_mutex_lock(&m);
  a[i] = 1; /* W1 */
  a[j] = 2; /* W2 */
  pthread_mutex_unlock(&m);
  return arg;
}
int main(int argc, char **argv) {
  pthread_t th;
  i = argc; j = argc + 1;
  pthread_create(&th, 0, t, 0);
  pthread_mutex_lock(&m);
  int r = a[i]; /* R */
  pthread_mutex_unlock(&m);
  pthread_join(th, 0);
  return r;
}
"#;

#[test]
fn a_store_under_a_lock_is_covered_only_by_a_store_to_its_own_cell() {
    let src = ELEMENTS_UNDER_LOCK;
    let (f, r) = analyse(src, RuleProgram::Sync1);
    assert!(
        rf(&f, &r, src, "W1", "R"),
        "a[j] = 2 may write another element"
    );
    assert!(rf(&f, &r, src, "W2", "R"));
    let one_index = src
        .replace("  a[i] = 1; /* W1 */", "  int k = i;\n  a[k] = 1; /* W1 */")
        .replace("a[j] = 2; /* W2 */", "a[k] = 2; /* W2 */");
    let (f, r) = analyse(&one_index, RuleProgram::Sync1);
    assert!(
        !rf(&f, &r, &one_index, "W1", "R"),
        "a[k] = 2 overwrites W1 before the unlock"
    );
    assert!(
        f.rows("cs_written_after").count() >= 1,
        "W1 is a covered store"
    );
}

/// A key ends where one of its values is defined again: `t` walks a list
/// under `m`, setting each node's `x` to 1 (W1) and the last one's to 2
/// (W2). On the loop's path the next store to `q->x` writes the next node
/// (`q` is the loop's `phi`), so W1 is not overwritten before the unlock
/// and main's read of `head->x` (R, the first node) may see it.
const LIST_WALK_UNDER_LOCK: &str = r#"#include <pthread.h>
#include <stdlib.h>
struct node { int x; struct node *next; };
struct node *head;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *t(void *arg) {
  pthread_mutex_lock(&m);
  struct node *q = head;
  while (q->next) {
    q->x = 1; /* W1 */
    q = q->next;
  }
  q->x = 2; /* W2 */
  pthread_mutex_unlock(&m);
  return arg;
}
int main(void) {
  pthread_t th;
  for (int k = 0; k < 3; k++) {
    struct node *n = malloc(sizeof *n);
    n->x = 0;
    n->next = head;
    head = n;
  }
  pthread_create(&th, 0, t, 0);
  pthread_mutex_lock(&m);
  int r = head->x; /* R */
  pthread_mutex_unlock(&m);
  pthread_join(th, 0);
  return r;
}
"#;

#[test]
fn a_store_in_a_loop_is_not_covered_by_the_next_iterations_store() {
    let src = LIST_WALK_UNDER_LOCK;
    let (f, r) = analyse(src, RuleProgram::Sync1);
    assert!(
        rf(&f, &r, src, "W1", "R"),
        "the next node's store does not overwrite W1"
    );
    assert!(rf(&f, &r, src, "W2", "R"));
    let w1 = stores(&f, src, "W1");
    assert!(
        !f.rows("cs_written_after").any(|row| w1.contains(&row[0])),
        "W1 is not a covered store"
    );
}
