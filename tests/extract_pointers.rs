//! Calls through pointers, thread starts through wrappers, allocation
//! wrappers and creates in loops: what the points-to rules must resolve.
//! Each program is small enough to know its answer by reading it; the
//! reasoning sits beside each assertion.

use crate::common;
use common::*;
use concord::facts::FactSet;

fn thread_functions(f: &FactSet) -> Vec<String> {
    let mut v: Vec<String> = f.threads.iter().map(|t| t.function.clone()).collect();
    v.sort();
    v
}

fn thread_of_stmt(f: &FactSet, s: u32) -> u32 {
    f.statement(s).unwrap().thread
}

/// A `launch()` wrapper that passes the routine through a heap struct to a
/// trampoline, as pigz's yarn does. Two launches with different routines
/// must give two threads, each running only its own routine.
const LAUNCH: &str = r#"#include <pthread.h>
#include <stdlib.h>
struct capsule { void (*probe)(void *); void *payload; };
int produced, consumed;
static void *ignition(void *arg) {
  struct capsule *c = arg;
  c->probe(c->payload);
  free(c);
  return 0;
}
static pthread_t *launch(void (*probe)(void *), void *payload) {
  struct capsule *c = malloc(sizeof *c);
  pthread_t *th = malloc(sizeof *th);
  c->probe = probe;
  c->payload = payload;
  pthread_create(th, 0, ignition, c);
  return th;
}
static void producer(void *p) { produced = 1; }
static void consumer(void *p) { consumed = 1; }
int main(void) {
  pthread_t *a = launch(producer, 0);
  pthread_t *b = launch(consumer, 0);
  pthread_join(*a, 0);
  pthread_join(*b, 0);
  return 0;
}
"#;

#[test]
fn threads_started_through_a_launch_wrapper_run_only_their_own_routine() {
    let f = facts_of_c(LAUNCH);
    // main plus one ignition thread per launch call.
    assert_eq!(
        thread_functions(&f),
        vec!["ignition", "ignition", "main"],
        "{:?}",
        f.threads
    );
    // Line 19 (`produced = 1`) runs in exactly one thread, line 20 in
    // another one: the capsules of the two launches are distinct objects.
    let prod = at(&f, 19, "store");
    let cons = at(&f, 20, "store");
    assert_eq!(prod.len(), 1, "producer body in one thread only");
    assert_eq!(cons.len(), 1, "consumer body in one thread only");
    assert_ne!(thread_of_stmt(&f, prod[0]), thread_of_stmt(&f, cons[0]));
    assert_eq!(f.count("unresolved_call"), 0);
    assert_eq!(f.count("unresolved_thread_start"), 0);
}

/// A table of operations in a struct (a vtable) and a thread whose start
/// routine is read from a struct field.
const VTABLE: &str = r#"#include <pthread.h>
struct map_impl { void (*put)(int); int (*get)(void); };
int cell;
static void list_put(int v) { cell = v; }
static int list_get(void) { return cell; }
static const struct map_impl list_impl = { list_put, list_get };
struct job { void *(*run)(void *); void *arg; };
static void *worker(void *arg) {
  const struct map_impl *m = arg;
  m->put(1);
  return 0;
}
int main(void) {
  struct job j = { worker, (void *)&list_impl };
  pthread_t t;
  pthread_create(&t, 0, j.run, j.arg);
  int v = list_impl.get();
  pthread_join(t, 0);
  return v;
}
"#;

#[test]
fn vtable_calls_and_a_start_routine_read_from_a_struct_are_resolved() {
    let f = facts_of_c(VTABLE);
    assert_eq!(thread_functions(&f), vec!["main", "worker"]);
    // `cell = v` (line 4) runs inside the worker thread through m->put.
    let worker = f
        .threads
        .iter()
        .find(|t| t.function == "worker")
        .unwrap()
        .id;
    let puts = at(&f, 4, "store");
    assert!(
        puts.iter().any(|&s| thread_of_stmt(&f, s) == worker),
        "list_put inlined into the worker through the vtable: {puts:?}"
    );
    // `return cell` (line 5) runs in main through list_impl.get, and reads
    // the shared cell the worker writes.
    let gets = at(&f, 5, "load");
    assert!(gets.iter().any(|&s| thread_of_stmt(&f, s) == 0));
    let cell = loc(&f, "cell");
    assert!(gets.iter().any(|&s| has(&f, "shared_read", &[s, cell])));
    assert_eq!(f.count("unresolved_call"), 0);
}

/// A pool allocator that carves `mmap`ed pages into blocks kept on a free
/// list (nbds' `nbd_malloc`), and a thread started through a trampoline
/// whose info block comes from that pool (nbds' `nbd_thread_create`).
const POOL: &str = r#"#include <pthread.h>
#include <sys/mman.h>
#include <stddef.h>
struct block { struct block *next; };
static struct block *free_list;
static void *get_region(size_t size) {
  return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}
static void *pool_alloc(size_t n) {
  struct block *b = free_list;
  if (b != NULL) { free_list = b->next; return b; }
  char *page = get_region(4096);
  for (int off = 64; off < 4096; off += 64) {
    struct block *x = (struct block *)(page + off);
    x->next = free_list;
    free_list = x;
  }
  return page;
}
struct info { void *(*start)(void *); void *arg; };
static void *trampoline(void *p) {
  struct info *ti = p;
  return ti->start(ti->arg);
}
static int start_thread(pthread_t *t, void *(*start)(void *), void *arg) {
  struct info *ti = pool_alloc(sizeof *ti);
  ti->start = start;
  ti->arg = arg;
  return pthread_create(t, NULL, trampoline, ti);
}
int hits;
static void *work(void *arg) { hits++; return 0; }
int main(void) {
  pthread_t a, b;
  start_thread(&a, work, 0);
  start_thread(&b, work, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return hits;
}
"#;

#[test]
fn a_start_routine_stored_in_pool_memory_carved_from_mmap_is_resolved() {
    let f = facts_of_c(POOL);
    // `mmap` returns fresh memory, so get_region and pool_alloc are
    // allocation wrappers and `ti` points to an object: the store of
    // `start` and the trampoline's load of it meet, and `work` is the
    // routine of both trampoline threads (one per start_thread call).
    assert_eq!(
        thread_functions(&f),
        vec!["main", "trampoline", "trampoline"],
        "{:?}",
        f.threads
    );
    // `hits++` (line 32) runs in each trampoline thread, never in main.
    let stores = at(&f, 32, "store");
    let mut threads: Vec<u32> = stores.iter().map(|&s| thread_of_stmt(&f, s)).collect();
    threads.sort();
    threads.dedup();
    assert_eq!(threads.len(), 2, "work runs in both threads: {stores:?}");
    assert!(!threads.contains(&0), "work does not run in main");
    assert_eq!(f.count("unresolved_call"), 0);
    assert_eq!(f.count("unresolved_thread_start"), 0);
}

/// An allocation wrapper (`new_lock` -> `xmalloc` -> `malloc`) called twice:
/// two distinct locks, so the two critical sections do not exclude each other.
const LOCKS: &str = r#"#include <pthread.h>
#include <stdlib.h>
static void *xmalloc(size_t n) { void *p = malloc(n); if (!p) abort(); return p; }
static pthread_mutex_t *new_lock(void) {
  pthread_mutex_t *m = xmalloc(sizeof *m);
  pthread_mutex_init(m, 0);
  return m;
}
pthread_mutex_t *la, *lb;
int x;
static void *t1(void *p) { pthread_mutex_lock(la); x = 1; pthread_mutex_unlock(la); return 0; }
static void *t2(void *p) { pthread_mutex_lock(lb); x = 2; pthread_mutex_unlock(lb); return 0; }
int main(void) {
  la = new_lock();
  lb = new_lock();
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return x;
}
"#;

#[test]
fn an_allocation_wrapper_called_twice_gives_two_distinct_locks() {
    let f = facts_of_c(LOCKS);
    // The first call on lines 11 and 12 is the lock (the second the unlock).
    let lock_a = at(&f, 11, "call")[0];
    let lock_b = at(&f, 12, "call")[0];
    let mutex_of = |s: u32| -> Vec<u32> {
        f.rows("mutex_lock")
            .filter(|r| r[0] == s)
            .map(|r| r[1])
            .collect()
    };
    let (ma, mb) = (mutex_of(lock_a), mutex_of(lock_b));
    assert_eq!(ma.len(), 1, "t1 locks exactly one mutex: {ma:?}");
    assert_eq!(mb.len(), 1, "t2 locks exactly one mutex: {mb:?}");
    assert_ne!(ma, mb, "new_lock() called twice must give two locks");
    // So the stores to x are in critical sections of different mutexes.
    let xa = one(&f, 11, "store");
    let xb = one(&f, 12, "store");
    assert!(!f
        .rows("same_critical_section")
        .any(|r| (r[0] == xa && r[1] == xb) || (r[0] == xb && r[1] == xa)));
}

/// A create in a loop gives a thread that may run concurrently with
/// itself: two instances of it.
const LOOP: &str = r#"#include <pthread.h>
int hits;
static void *w(void *p) { hits++; return 0; }
int main(int argc, char **argv) {
  pthread_t t[64];
  for (int i = 0; i < argc * 8; i++) pthread_create(&t[i], 0, w, 0);
  for (int i = 0; i < argc * 8; i++) pthread_join(t[i], 0);
  return hits;
}
"#;

#[test]
fn a_create_in_a_loop_gives_two_instances_that_may_race() {
    let f = facts_of_c(LOOP);
    let workers: Vec<_> = f.threads.iter().filter(|t| t.function == "w").collect();
    assert_eq!(workers.len(), 2, "{:?}", f.threads);
    let instances: Vec<u32> = workers.iter().map(|t| t.instance).collect();
    assert_eq!(instances, vec![0, 1]);
    // `hits++` writes in both instances.
    let hits = loc(&f, "hits");
    let writers: Vec<u32> = f
        .rows("shared_write")
        .filter(|r| r[1] == hits)
        .map(|r| thread_of_stmt(&f, r[0]))
        .collect();
    assert!(workers.iter().all(|w| writers.contains(&w.id)));
}

/// Many create sites: one abstract thread each, no hard limit.
#[test]
fn a_program_with_hundreds_of_create_sites_is_analysed() {
    let mut src = String::from("#include <pthread.h>\nint g;\nstatic void *w(void *p) { g = 1; return 0; }\nint main(void) {\n  pthread_t t;\n");
    for _ in 0..300 {
        src.push_str("  pthread_create(&t, 0, w, 0);\n");
    }
    src.push_str("  return 0;\n}\n");
    let f = facts_of_c(&src);
    assert_eq!(f.threads.len(), 301);
}

/// A call through a pointer nothing in the program assigns: a warning
/// fact naming the call, never a silent drop.
const UNRESOLVED: &str = r#"#include <pthread.h>
#include <stdlib.h>
void (*hook)(void);
static void *w(void *p) { if (hook) hook(); return 0; }
int main(void) {
  void *(*start)(void *) = (void *(*)(void *))getenv("X");
  pthread_t t, u;
  pthread_create(&t, 0, w, 0);
  pthread_create(&u, 0, start, 0);
  pthread_join(t, 0);
  return 0;
}
"#;

#[test]
fn unresolved_calls_and_thread_starts_are_facts() {
    let f = facts_of_c(UNRESOLVED);
    let hook_call = one(&f, 4, "call");
    assert!(has(&f, "unresolved_call", &[hook_call]));
    let create_u = one(&f, 9, "call");
    assert!(has(&f, "unresolved_thread_start", &[create_u]));
    assert_eq!(thread_functions(&f), vec!["main", "w"]);
}

/// A registry of `{ops, self}` pairs, as plug-in tables are written: every
/// `bump` is handed every entry's `self`. C's effective-type rule says a
/// `struct beta` object is never accessed through a `struct alpha *`, so
/// `alpha_bump` touches `a` and `d` (whose first member is a `struct
/// alpha`), never `b`; and `beta_bump` touches only `b`. A type programs
/// pun (a struct holding a byte array, as `sockaddr_storage`) keeps every
/// object: `set_port` writes `any_addr` through a `struct addr_v4 *`.
const REGISTRY: &str = r#"#include <pthread.h>
struct ops { void (*bump)(void *); };
struct entry { const struct ops *ops; void *self; };
struct alpha { int hits; long total; };
struct beta { int hits; long total; };
struct derived { struct alpha base; int extra; };
struct addr_any { short family; char pad[14]; };
struct addr_v4 { short family; short port; int ip; };
static struct alpha a; static struct beta b; static struct derived d;
static struct addr_any any_addr;
static void alpha_bump(void *self) { struct alpha *t = self; t->hits++; }
static void beta_bump(void *self) { struct beta *t = self; t->hits++; }
static void set_port(void *p) { struct addr_v4 *v = p; v->port = 80; }
static const struct ops alpha_ops = { alpha_bump };
static const struct ops beta_ops = { beta_bump };
static struct entry reg[3];
static void *worker(void *p) {
  for (int i = 0; i < 3; i++)
    reg[i].ops->bump(reg[i].self);
  set_port(&any_addr);
  return 0;
}
int main(void) {
  reg[0].ops = &alpha_ops; reg[0].self = &a;
  reg[1].ops = &beta_ops; reg[1].self = &b;
  reg[2].ops = &alpha_ops; reg[2].self = &d;
  pthread_t h;
  pthread_create(&h, 0, worker, 0);
  worker(0);
  pthread_join(h, 0);
  return 0;
}
"#;

/// The objects (by name) the reads (or writes) at `line` touch.
fn objects_accessed(f: &FactSet, line: u32, kind: &str, relation: &str) -> Vec<String> {
    let mut out: Vec<String> = at(f, line, kind)
        .into_iter()
        .flat_map(|s| {
            f.locations
                .iter()
                .filter(move |l| has(f, relation, &[s, l.id]))
                .map(|l| l.object.clone())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn a_struct_pointer_reaches_only_objects_whose_type_fits_it() {
    let f = facts_of_c(REGISTRY);
    let alpha = objects_accessed(&f, 11, "load", "shared_read");
    let beta = objects_accessed(&f, 12, "load", "shared_read");
    let port = objects_accessed(&f, 13, "store", "shared_write");
    assert_eq!(alpha, vec!["a", "d"], "{:?}", f.locations);
    assert_eq!(beta, vec!["b"], "{:?}", f.locations);
    assert_eq!(port, vec!["any_addr"], "{:?}", f.locations);
    assert_eq!(f.count("access_no_target"), 0);
}
