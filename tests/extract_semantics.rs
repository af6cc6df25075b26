//! What the extracted relations must say about small programs whose
//! behaviour is known by reading them. Line numbers refer to the C text.

use crate::common;
use common::*;
use concord::analysis::{run, Engine, Relations, RuleProgram};
use concord::facts::FactSet;

const THREADS: &str = r#"#include <pthread.h>
int g = 0;
struct acct { int balance; int owner; } acct;
int arr[4];
void touch(void) { g = g + 1; }
void *worker(void *p) { int *q = p; *q = 7; touch(); acct.owner = 1; arr[2] = 1; return 0; }
void *reader(void *p) { int i = *(int *)p; int v = arr[i]; (void)v; return 0; }
int main(void) {
  pthread_t w[2], r;
  int local = 0, priv = 0;
  for (int i = 0; i < 2; i++) pthread_create(&w[i], 0, worker, &local);
  pthread_create(&r, 0, reader, &priv);
  priv = 1;
  acct.balance = 5;
  touch();
  for (int i = 0; i < 2; i++) pthread_join(w[i], 0);
  pthread_join(r, 0);
  return local;
}
"#;

#[test]
fn threads_created_in_a_loop_get_one_instance_per_iteration_and_are_joined() {
    let f = facts_of_c(THREADS);
    assert_eq!(
        f.threads.len(),
        4,
        "main, two workers, one reader: {:?}",
        f.threads
    );
    let create_loop = one(&f, 11, "call");
    let children: Vec<u32> = f
        .rows("thread_create")
        .filter(|r| r[0] == create_loop)
        .map(|r| r[2])
        .collect();
    assert_eq!(children.len(), 2);
    let join_loop = one(&f, 16, "call");
    for c in &children {
        assert!(
            has(&f, "thread_join", &[join_loop, 0, *c]),
            "loop join must join worker {c}"
        );
    }
    let join_r = one(&f, 17, "call");
    let reader = f
        .threads
        .iter()
        .find(|t| t.function == "reader")
        .unwrap()
        .id;
    assert!(has(&f, "thread_join", &[join_r, 0, reader]));
    assert!(!children.contains(&reader));
    assert!(
        !has(&f, "thread_join", &[join_r, 0, children[0]]),
        "join of r must not join a worker"
    );
}

#[test]
fn a_function_called_from_two_threads_has_statements_in_each() {
    let f = facts_of_c(THREADS);
    let stores_in_touch = at(&f, 5, "store");
    let threads: std::collections::BTreeSet<u32> = stores_in_touch
        .iter()
        .map(|&s| f.statement(s).unwrap().thread)
        .collect();
    // main calls touch once, and each of the two worker instances does.
    assert_eq!(threads.len(), 3, "{stores_in_touch:?}");
    let g = loc(&f, "g");
    for s in stores_in_touch {
        assert!(has(&f, "shared_write", &[s, g]));
    }
}

#[test]
fn sharing_follows_escape_through_thread_arguments() {
    let f = facts_of_c(THREADS);
    let shared = |name: &str| f.locations.iter().find(|l| l.name == name).unwrap().shared;
    assert!(shared("g"));
    assert!(shared("main::local"), "local escapes to the workers");
    assert!(shared("main::priv"), "priv escapes to the reader");
    assert!(
        !f.locations
            .iter()
            .any(|l| l.name.starts_with("main::w") && l.shared),
        "thread handles are not data"
    );
    // The worker's store through its argument writes main's local.
    let store_q = at(&f, 6, "store")[0];
    assert!(has(&f, "shared_write", &[store_q, loc(&f, "main::local")]));
}

#[test]
fn struct_fields_and_constant_array_elements_are_distinct_locations() {
    let f = facts_of_c(THREADS);
    let owner = loc(&f, "acct.1");
    let balance = loc(&f, "acct.0");
    assert_ne!(owner, balance);
    let write_balance = one(&f, 14, "store");
    // acct.balance is touched by main only: no other thread can read that
    // write, so it is not an hb event. acct.owner is written by the workers.
    assert!(has(&f, "mem_write", &[write_balance, balance]));
    assert!(!has(&f, "mem_write", &[write_balance, owner]));
    assert!(!has(&f, "shared_write", &[write_balance, balance]));
    assert!(!f.location(balance).unwrap().shared);
    assert!(f.location(owner).unwrap().shared);
    // arr[i] with unknown i may read arr[2] (written by a worker) and the unnamed elements.
    let read_any = at(&f, 7, "load");
    let arr2 = loc(&f, "arr[2]");
    assert!(read_any.iter().any(|&s| has(&f, "shared_read", &[s, arr2])));
    assert!(read_any
        .iter()
        .any(|&s| has(&f, "shared_read", &[s, loc(&f, "arr[*]")])));
}

#[test]
fn globals_initial_values_are_written_before_everything_in_main() {
    let f = facts_of_c(THREADS);
    let g = loc(&f, "g");
    let init: Vec<u32> = f
        .rows("shared_write")
        .filter(|r| r[1] == g && f.statement(r[0]).unwrap().kind == "init")
        .map(|r| r[0])
        .collect();
    assert_eq!(init.len(), 1);
    assert_eq!(
        f.statement(init[0]).unwrap().line,
        2,
        "the init write sits at the definition line"
    );
    // `priv = 1` (line 13): main writes what the reader thread reads.
    let main_store = one(&f, 13, "store");
    let order = order_of(&f);
    assert!(order.dom(init[0], main_store));
    assert!(order.po(&f, init[0], main_store));
}

/// Program order and dominance as rules/order.dl derives them from the
/// compact facts.
struct Order(Relations);

fn order_of(f: &FactSet) -> Order {
    Order(run(RuleProgram::Hb, Engine::Ascent, f))
}

impl Order {
    /// `b` reachable from `a`: the component of `b` is reachable from the
    /// component of `a`.
    fn po(&self, f: &FactSet, a: u32, b: u32) -> bool {
        let scc = |s: u32| f.rows("po_scc").find(|r| r[0] == s).map(|r| r[1]);
        match (scc(a), scc(b)) {
            (Some(ca), Some(cb)) => self.0["po_scc_reach"].contains(&vec![ca, cb]),
            _ => false,
        }
    }

    fn dom(&self, a: u32, b: u32) -> bool {
        self.0["dom"].contains(&vec![a, b])
    }
}

const ORDER: &str = r#"#include <pthread.h>
int x, y, z, flag;
void *t(void *p) {
  x = 1;
  while (y < 3) {
    y = y + 1;
    z = y;
  }
  if (x == 0)
    z = 2;
  flag = 1;
  return 0;
}
int main(void) { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); return 0; }
"#;

#[test]
fn dominance_is_loop_aware() {
    let f = facts_of_c(ORDER);
    let order = order_of(&f);
    let before = one(&f, 4, "store");
    let in_loop_a = one(&f, 6, "store");
    let in_loop_b = one(&f, 7, "store");
    let after = one(&f, 11, "store");
    assert!(
        order.dom(before, in_loop_a),
        "statement before the loop dominates the body"
    );
    assert!(
        !order.dom(in_loop_a, in_loop_b),
        "two statements of one loop are unordered"
    );
    assert!(
        order.po(&f, in_loop_b, in_loop_a) && order.po(&f, in_loop_a, in_loop_b),
        "the back edge orders them both ways"
    );
    assert!(
        has(&f, "postdom", &[before, after]),
        "flag=1 runs after x=1 on every path"
    );
    let conditional = one(&f, 10, "store");
    assert!(
        !has(&f, "postdom", &[before, conditional]),
        "z=2 may not run"
    );
    assert!(!order.dom(conditional, after));
}

#[test]
fn control_dependence_comes_from_branches() {
    let f = facts_of_c(ORDER);
    let conditional = one(&f, 10, "store");
    let branch: Vec<u32> = at(&f, 9, "br");
    assert!(branch
        .iter()
        .any(|&b| has(&f, "control_dep", &[b, conditional])));
    let after = one(&f, 11, "store");
    assert!(!f
        .rows("control_dep")
        .any(|r| r[1] == after && branch.contains(&r[0])));
}

/// The consumer stores data before loading it in its critical section:
/// its load is covered (cs_written_before) and cannot read the producer's
/// store, made under another acquisition of m.
const COVERED: &str = r#"#include <pthread.h>
int data, out;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *consumer(void *p) {
  pthread_mutex_lock(&m);
  data = 7;
  out = data;
  pthread_mutex_unlock(&m);
  return 0;
}
void *producer(void *p) {
  pthread_mutex_lock(&m);
  data = 42;
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, consumer, 0);
  pthread_create(&b, 0, producer, 0);
  pthread_join(a, 0); pthread_join(b, 0);
  return out;
}
"#;

#[test]
fn diff_critical_section_keeps_pairs_with_a_covered_end() {
    let f = facts_of_c(COVERED);
    let m = loc(&f, "m");
    let (data, consumer_store, consumer_load, producer_store) = (
        loc(&f, "data"),
        one(&f, 6, "store"),
        at(&f, 7, "load")[0],
        one(&f, 13, "store"),
    );
    assert!(has(&f, "cs_written_before", &[consumer_load, data, m]));
    // the producer's store and the covered load: other acquisitions of m
    assert!(has(
        &f,
        "diff_critical_section",
        &[producer_store, consumer_load, m]
    ));
    // the consumer's own store shares the load's acquisition
    assert!(!has(
        &f,
        "diff_critical_section",
        &[consumer_store, consumer_load, m]
    ));
    // and the rules drop the producer's store for that load (lock rule 1)
    let rf = run(RuleProgram::Sync1, Engine::Ascent, &f);
    assert!(rf["rf_no"].contains(&vec![producer_store, consumer_load]));
}

const SYNC: &str = r#"#include <pthread.h>
int data, ready, spin, out;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
void *consumer(void *p) {
  pthread_mutex_lock(&m);
  while (ready == 0)
    pthread_cond_wait(&c, &m);
  out = data;
  pthread_mutex_unlock(&m);
  while (!spin) { }
  out = data + 1;
  return 0;
}
void *producer(void *p) {
  pthread_mutex_lock(&m);
  data = 42;
  ready = 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  spin = 1;
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, consumer, 0);
  pthread_create(&b, 0, producer, 0);
  pthread_join(a, 0); pthread_join(b, 0);
  return 0;
}
"#;

#[test]
fn critical_sections_pair_accesses_under_one_lock_acquisition() {
    let f = facts_of_c(SYNC);
    let m = loc(&f, "m");
    let read_data = at(&f, 9, "load")[0];
    let write_data = one(&f, 17, "store");
    let write_ready = one(&f, 18, "store");
    let after_unlock = at(&f, 11, "load")[0];
    let lock_p = one(&f, 16, "call");
    assert!(has(&f, "in_critical_section", &[write_data, m, lock_p]));
    assert!(has(
        &f,
        "same_critical_section",
        &[write_data, write_ready, m]
    ));
    // the producer's store of data and the consumer's load of it hold m
    // under different acquisitions, but neither is covered (no store of
    // data before the load, none after the store, in its section): rf.dl's
    // lock rules read no such pair, so none is kept (the covered case:
    // diff_critical_section_keeps_pairs_with_a_covered_end)
    assert!(f.rows("diff_critical_section").next().is_none());
    assert!(
        !f.rows("in_critical_section").any(|r| r[0] == after_unlock),
        "spin read is outside"
    );
    // After the wait, the consumer holds m again, re-acquired by the wait itself.
    let wait = one(&f, 8, "call");
    assert!(has(&f, "in_critical_section", &[read_data, m, wait]));
    assert!(
        !f.locations.iter().any(|l| l.name == "m" && l.shared),
        "a mutex is not shared data"
    );
}

#[test]
fn guarded_wait_flagged_signal_and_spin_loop_are_recognised() {
    let f = facts_of_c(SYNC);
    let wait = one(&f, 8, "call");
    let signal = one(&f, 19, "call");
    let ready = loc(&f, "ready");
    assert!(has(&f, "cond_wait", &[wait, loc(&f, "c"), loc(&f, "m")]));
    assert!(has(&f, "cond_wait_guarded", &[wait, ready]));
    assert!(has(&f, "cond_signal_flagged", &[signal, ready]));
    let spin = loc(&f, "spin");
    let spin_read = at(&f, 11, "load")[0];
    let rows: Vec<_> = f.rows("busy_wait").map(<[u32]>::to_vec).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(&rows[0][..2], &[spin_read, spin]);
    // The loop exit is the statement after the loop (line 12).
    assert_eq!(f.statement(rows[0][2]).unwrap().line, 12);
    // The condition-variable loop on `ready` writes nothing but is not a spin
    // loop: it waits.
    assert!(!f.rows("busy_wait").any(|r| r[1] == ready));
}

#[test]
fn values_flow_into_callees_through_parameters() {
    let f = facts_of_c(
        r#"#include <pthread.h>
int g;
int twice(int v) {
  return v + v;
}
int main(void) {
  int a = g;
  int b = twice(a);
  g = b;
  return 0;
}
"#,
    );
    let load_g = one(&f, 7, "load");
    let add = one(&f, 4, "add");
    let call = one(&f, 8, "call");
    let ret = one(&f, 4, "ret");
    let store = one(&f, 9, "store");
    assert!(
        has(&f, "def_use", &[load_g, add]),
        "the parameter's use depends on the argument's definition"
    );
    assert!(
        has(&f, "def_use", &[ret, call]),
        "the call's value comes from the callee's return"
    );
    assert!(has(&f, "def_use", &[call, store]));
    assert!(has(&f, "call_arg", &[call, 0, load_g]));
}
