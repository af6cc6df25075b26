//! Library calls the executor models through the one call table
//! (`src/calls.rs`): spin locks behave as mutexes, a timed wait may time
//! out.
//! Each verdict follows from reading the program (see the comments).

use concord::symex::{explore, testutil, Exploration, FindingKind, Reduction, SymexOptions};

fn run(src: &str) -> Exploration {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("prog.c");
    std::fs::write(&p, src).unwrap();
    let m = testutil::load(&p).unwrap();
    explore(
        &m,
        &SymexOptions {
            reduction: Reduction::None,
            ..Default::default()
        },
    )
    .unwrap()
}

fn kinds(x: &Exploration) -> Vec<FindingKind> {
    x.findings.iter().map(|f| f.kind).collect()
}

/// The worker increments `x` only when its trylock succeeds; main always
/// increments under the lock. If the worker tries while main holds the
/// lock, it fails (x == 1); otherwise it succeeds (x == 2). The lock makes
/// each increment atomic, so no other value is possible.
fn trylock_program(assertion: &str) -> String {
    format!(
        r#"#include <assert.h>
#include <pthread.h>
pthread_spinlock_t s;
int x;
void *worker(void *a) {{
  if (pthread_spin_trylock(&s) == 0) {{
    int v = x;
    x = v + 1;
    pthread_spin_unlock(&s);
  }}
  return 0;
}}
int main(void) {{
  pthread_t h;
  pthread_spin_init(&s, 0);
  pthread_create(&h, 0, worker, 0);
  pthread_spin_lock(&s);
  int v = x;
  x = v + 1;
  pthread_spin_unlock(&s);
  pthread_join(h, 0);
  assert({assertion});
  pthread_spin_destroy(&s);
  return 0;
}}
"#
    )
}

#[test]
fn a_spin_lock_makes_increments_atomic() {
    let x = run(&trylock_program("x == 1 || x == 2"));
    assert!(x.findings.is_empty(), "{:?}", x.findings);
    assert!(x.stats.complete_runs >= 2, "trylock succeeds and fails");
}

#[test]
fn a_spin_trylock_can_fail_and_succeed() {
    // Fails when the worker's trylock succeeds (x == 2)...
    let x = run(&trylock_program("x == 1"));
    assert!(
        kinds(&x).contains(&FindingKind::Assertion),
        "{:?}",
        x.findings
    );
    // ...and when it fails because main holds the lock (x == 1).
    let x = run(&trylock_program("x == 2"));
    assert!(
        kinds(&x).contains(&FindingKind::Assertion),
        "{:?}",
        x.findings
    );
    assert!(
        !kinds(&x).contains(&FindingKind::Unsupported),
        "{:?}",
        x.findings
    );
}

/// Locking a spin lock the thread already holds never returns.
#[test]
fn relocking_a_held_spin_lock_is_a_deadlock() {
    let x = run(r#"#include <pthread.h>
pthread_spinlock_t s;
int main(void) {
  pthread_spin_init(&s, 0);
  pthread_spin_lock(&s);
  pthread_spin_lock(&s);
  return 0;
}
"#);
    assert_eq!(kinds(&x), vec![FindingKind::Deadlock], "{:?}", x.findings);
}

/// Two threads increment without the lock: a lost update is possible
/// (both read 0), so `x == 2` can fail; with the spin lock it cannot.
#[test]
fn a_spin_lock_prevents_the_lost_update() {
    let prog = |lock: &str, unlock: &str| {
        format!(
            r#"#include <assert.h>
#include <pthread.h>
pthread_spinlock_t s;
int x;
void *worker(void *a) {{
  {lock}
  int v = x;
  x = v + 1;
  {unlock}
  return 0;
}}
int main(void) {{
  pthread_t a, b;
  pthread_spin_init(&s, 0);
  pthread_create(&a, 0, worker, 0);
  pthread_create(&b, 0, worker, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  assert(x == 2);
  return 0;
}}
"#
        )
    };
    let racy = run(&prog("", ""));
    assert_eq!(
        kinds(&racy),
        vec![FindingKind::Assertion; racy.findings.len()]
    );
    assert!(!racy.findings.is_empty());
    let locked = run(&prog("pthread_spin_lock(&s);", "pthread_spin_unlock(&s);"));
    assert!(locked.findings.is_empty(), "{:?}", locked.findings);
}

/// Every reduction mode on `src`, with the violated lines and whether a
/// deadlock or an unsupported construct was found; the modes must agree.
fn in_every_mode(src: &str) -> (Vec<u32>, bool, bool) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("prog.c");
    std::fs::write(&p, src).unwrap();
    let m = testutil::load(&p).unwrap();
    let mut seen: Option<(Vec<u32>, bool, bool)> = None;
    for reduction in [
        Reduction::None,
        Reduction::Dpor,
        Reduction::DporAg,
        Reduction::Odpor,
        Reduction::OdporAg,
    ] {
        let x = explore(
            &m,
            &SymexOptions {
                reduction,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(!x.stats.incomplete, "{reduction}: incomplete");
        let has = |k: FindingKind| x.findings.iter().any(|f| f.kind == k);
        let now = (
            x.violation_lines(),
            has(FindingKind::Deadlock),
            has(FindingKind::Unsupported),
        );
        if let Some(before) = &seen {
            assert_eq!(before, &now, "{reduction} disagrees: {:?}", x.findings);
        }
        seen = Some(now);
    }
    seen.unwrap()
}

/// Alone, main's timed wait cannot be signalled: a `pthread_cond_wait`
/// would block forever, the timed wait times out.  It returns `ETIMEDOUT`
/// (110), or 0 (a spurious wake-up): the first assertion can fail (line
/// 11), the second cannot.  No deadlock, nothing unsupported.
#[test]
fn a_timed_wait_times_out_without_a_signal() {
    let (lines, deadlock, unsupported) = in_every_mode(
        r#"#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
pthread_mutex_t m;
pthread_cond_t c;
int main(void) {
  struct timespec t = {0, 0};
  pthread_mutex_lock(&m);
  int r = pthread_cond_timedwait(&c, &m, &t);
  assert(r == ETIMEDOUT);
  assert(r == 0 || r == ETIMEDOUT);
  pthread_mutex_unlock(&m);
  return 0;
}
"#,
    );
    assert_eq!(lines, vec![11]);
    assert!(!deadlock && !unsupported);
}

/// The worker sets `ready`, counts and signals under the lock.  Main waits
/// for `ready` with a timed wait and gives up at the first return: when
/// the wait times out before the worker ran, main sees `ready == 0`, so
/// the assertion on line 27 fails (a `pthread_cond_wait` could not return
/// before the signal).  Whatever ends the wait, main holds the mutex again
/// when it returns: both increments of `count` are under the lock, so
/// line 28 holds (a wait returning without the mutex would let the
/// worker's increment fall between main's read and write, and main's
/// unlock would be an error).  Nothing deadlocks.
#[test]
fn a_timed_wait_may_time_out_before_the_signal() {
    let (lines, deadlock, unsupported) = in_every_mode(
        r#"#include <assert.h>
#include <pthread.h>
#include <time.h>
pthread_mutex_t m;
pthread_cond_t c;
int ready, count;
void *worker(void *a) {
  pthread_mutex_lock(&m);
  ready = 1;
  count = count + 1;
  pthread_cond_signal(&c);
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t h;
  struct timespec t = {0, 0};
  pthread_create(&h, 0, worker, 0);
  pthread_mutex_lock(&m);
  if (!ready)
    pthread_cond_timedwait(&c, &m, &t);
  int seen = ready;
  int v = count;
  count = v + 1;
  pthread_mutex_unlock(&m);
  pthread_join(h, 0);
  assert(seen == 1);
  assert(count == 2);
  return 0;
}
"#,
    );
    assert_eq!(lines, vec![27]);
    assert!(!deadlock && !unsupported);
}
