//! The one declaration of every extracted relation. The TSV writer and
//! reader, the schema page `docs/facts.md` and the rule compiler's input
//! declarations all come from this table; add a relation here and nowhere
//! else.

/// What an id column refers to. All ids are unsigned 32-bit integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// A statement id (row of `statements.tsv`).
    Stmt,
    /// A thread instance id (row of `threads.tsv`); main is 0.
    Thread,
    /// A memory location id (row of `locations.tsv`).
    Loc,
    /// A plain number (argument index, ...).
    Number,
}

impl ColumnKind {
    pub fn souffle_type(self) -> &'static str {
        "unsigned"
    }
    pub fn describe(self) -> &'static str {
        match self {
            ColumnKind::Stmt => "statement id",
            ColumnKind::Thread => "thread id",
            ColumnKind::Loc => "location id",
            ColumnKind::Number => "number",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub kind: ColumnKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Threads,
    Order,
    Synchronization,
    Memory,
    Dependence,
    Ir,
}

impl Group {
    pub fn title(self) -> &'static str {
        match self {
            Group::Threads => "Threads",
            Group::Order => "Program order and dominance",
            Group::Synchronization => "Synchronization",
            Group::Memory => "Memory accesses",
            Group::Dependence => "Dependence",
            Group::Ir => "Base IR facts (inputs of the points-to rules)",
        }
    }
    pub const ALL: [Group; 6] = [
        Group::Threads,
        Group::Order,
        Group::Synchronization,
        Group::Memory,
        Group::Dependence,
        Group::Ir,
    ];
}

#[derive(Debug, Clone, Copy)]
pub struct Relation {
    pub name: &'static str,
    pub columns: &'static [Column],
    pub group: Group,
    /// One sentence: what a row means.
    pub meaning: &'static str,
    /// Which IR construct produces rows.
    pub source: &'static str,
    /// A tiny example row with its reading.
    pub example: &'static str,
}

impl Relation {
    pub fn arity(&self) -> usize {
        self.columns.len()
    }
    pub fn signature(&self) -> String {
        let cols: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        format!("{}({})", self.name, cols.join(", "))
    }
}

const fn col(name: &'static str, kind: ColumnKind) -> Column {
    Column { name, kind }
}

/// The one declaration of every relation, handed to `$callback` (an
/// "X-macro"): the schema tables below, and the typed model in
/// `facts::relations` (one row struct per relation, id newtypes per column
/// kind), are both expansions of this list, so they cannot disagree.
///
/// Each entry: `name(column: kind, ...) RowType { group, meaning, source,
/// example }`. Column kinds are `Stmt`, `Thread`, `Loc`, `Number`, and
/// `Lock`: a location used as a mutex (exported and checked as a location
/// id; typed `LockId` so a lock is not mixed up with the data it guards).
/// `analysis` lists the facts the analyses read; `ir` the base IR facts,
/// inputs of the points-to rules.
macro_rules! for_each_relation {
    ($callback:ident) => {
        $callback! {
        analysis {
            stmt_thread(s: Stmt, t: Thread) StmtThread {
                group: Threads,
                meaning: "statement `s` belongs to thread instance `t`.",
                source: "every instruction of every function instance reached from the thread's start function (calls are cloned per thread and call site); global initialisers belong to thread 0",
                example: "`7\t1`: statement 7 runs in thread 1",
            }
            stmt_caller(s: Stmt, c: Stmt) StmtCaller {
                group: Threads,
                meaning: "statement `s` belongs to the instance of its function cloned for the call `c` (of the same thread); statements of a thread's start routine have no row. Version matching pairs a function's instances by their call paths.",
                source: "the call each function instance was cloned for (a shared instance, past `--call-depth` or the clone budget, names the first of its calls)",
                example: "`52\t44`: statement 52 runs in the instance entered by the call at statement 44",
            }
            thread_create(s: Stmt, parent: Thread, child: Thread) ThreadCreate {
                group: Threads,
                meaning: "thread `parent` starts thread instance `child` at statement `s`.",
                source: "a call to `pthread_create`; inside a loop, one child instance per unrolled iteration (bound: `--thread-loop-bound`, default 2)",
                example: "`12\t0\t1`: main creates thread 1 at statement 12",
            }
            unresolved_call(s: Stmt) UnresolvedCall {
                group: Threads,
                meaning: "the call `s` goes through a pointer to which the points-to rules found no function: its effects are missing from the model (`concord` warns about each)",
                source: "indirect calls with no `pt_call` row in the caller's context",
                example: "`42`",
            }
            unresolved_thread_start(s: Stmt) UnresolvedThreadStart {
                group: Threads,
                meaning: "the `pthread_create` at `s` starts a routine the points-to rules could not find (or one without a body): the thread is missing from the model (`concord` warns about each)",
                source: "`pthread_create` with no `pt_thread_start` row in the caller's context",
                example: "`60`",
            }
            thread_join(s: Stmt, parent: Thread, child: Thread) ThreadJoin {
                group: Threads,
                meaning: "thread `parent` waits at statement `s` for thread instance `child` to finish.",
                source: "a call to `pthread_join` whose handle was loaded from the location a `pthread_create` stored it to",
                example: "`20\t0\t1`: main joins thread 1 at statement 20",
            }
            po_next(s1: Stmt, s2: Stmt) PoNext {
                group: Order,
                meaning: "`s2` can immediately follow `s1` in its thread.",
                source: "consecutive instructions of a block, terminator to successor block, call to callee entry, return to the instruction after the call",
                example: "`3\t4`",
            }
            po_scc(s: Stmt, c: Number) PoScc {
                group: Order,
                meaning: "hb event `s` lies in component `c` of its thread's control-flow graph (a strongly connected component: the events of one loop body share one).",
                source: "strongly connected components (petgraph, Kosaraju) of the thread's inlined control-flow graph; only hb events get a row",
                example: "`3\t7`",
            }
            po_scc_cyclic(c: Number) PoSccCyclic {
                group: Order,
                meaning: "component `c` holds hb events and lies on a loop: its events reach each other and themselves.",
                source: "the strongly connected components above: more than one statement, or a statement that is its own successor",
                example: "`7`",
            }
            po_scc_next(c1: Number, c2: Number) PoSccNext {
                group: Order,
                meaning: "an edge of the thread's component DAG: `c2` follows `c1`. Components without hb events appear only where they join and fork paths (two or more predecessors and successors); every other one is contracted into edges between its neighbours. Program order between event components is labelled (`po_chain`, `po_chain_before`); the rules read it as `po_scc_reach(c1, c2)` (rules/order.dl).",
                source: "the condensation of the thread's inlined control-flow graph; a component without events is removed while it has at most one predecessor or at most one successor (which never adds an edge), so the relation stays linear in the graph",
                example: "`7\t9`",
            }
            po_chain(c: Number, h: Number, p: Number) PoChain {
                group: Order,
                meaning: "event component `c` lies at position `p` of chain `h` of its thread (named by the chain's first component): along a chain every component reaches the next, so those that reach a component form a prefix of each chain.",
                source: "the component DAG taken in topological order; a component extends a chain whose last component reaches it, or starts one",
                example: "`7\t3\t2`",
            }
            po_chain_before(c: Number, h: Number, p: Number) PoChainBefore {
                group: Order,
                meaning: "the components of chain `h` at positions up to `p` reach event component `c` by a non-empty path, the later ones do not (one row per chain that reaches `c`; `c`'s own position when `c` lies on a loop). Program order between components is one comparison: `po_scc_reach(c1, c2) :- po_chain(c1, h, p), po_chain_before(c2, h, q), p <= q` (rules/order.dl).",
                source: "per chain, the latest position among the predecessors' labels and positions, in topological order",
                example: "`9\t3\t2`: components 0..2 of chain 3 reach component 9",
            }
            dom_parent(s1: Stmt, s2: Stmt) DomParent {
                group: Order,
                meaning: "`s1` is the nearest hb event that strictly dominates hb event `s2` in their thread: the dominator tree restricted to events. The rules read `dom(s1, s2)` (`s1` dominates `s2` and they lie in different components: whenever `s2` runs, `s1` ran before it) from its path labels (`dom_path`, `dom_path_above`); rf.dl walks it through `dom_near_store`.",
                source: "dominator tree of the thread's inlined control-flow graph (petgraph's Cooper-Harvey-Kennedy on the graph of straight runs, read back per statement), each event's walk up the tree stopping at the first event",
                example: "`3\t9`",
            }
            dom_path(s: Stmt, h: Stmt, p: Number) DomPath {
                group: Order,
                meaning: "hb event `s` lies at depth `p` of path `h` (named by its first event) of its thread's event dominator tree (`dom_parent`), split into heavy paths: each continues into the child with the largest subtree, so the way from an event to the root crosses at most log2(n) paths.",
                source: "subtree sizes of the event dominator tree, then one walk from the roots",
                example: "`9\t3\t2`",
            }
            dom_path_above(s: Stmt, h: Stmt, p: Number) DomPathAbove {
                group: Order,
                meaning: "the events of dominator-tree path `h` at depths up to `p` strictly dominate hb event `s` and lie outside its component (one row per path on the way from `s`'s nearest such dominator to the root). Dominance is one comparison: `dom(a, b) :- dom_path(a, h, p), dom_path_above(b, h, q), p <= q` (rules/order.dl).",
                source: "from the nearest event dominating `s` outside its component (the parent of the topmost of its loop-mates above it), up the heavy paths to the root",
                example: "`12\t3\t4`: the events of path 3 down to depth 4 dominate event 12",
            }
            dom_near_store(s: Stmt, v: Loc, w: Stmt) DomNearStore {
                group: Order,
                meaning: "`w` is the nearest hb event strictly dominating the shared access `s` (to `v`) that stores to `v`: whenever `s` runs, `w` stored to `v` before it, with no other store to `v` of the thread between them on the dominator tree. rf.dl picks its NoRf witnesses with it.",
                source: "one depth-first walk of the event dominator tree (`dom_parent`) with a stack of stores per location; one row per access and location that has such a store",
                example: "`9\t2\t3`: store 3 is the nearest store to location 2 dominating access 9",
            }
            postdom(s1: Stmt, s2: Stmt) Postdom {
                group: Order,
                meaning: "every path from `s1` to the end of its thread passes `s2`, and `s1` is not reachable from `s2`: once `s1` runs, `s2` runs later.",
                source: "post-dominator tree of the thread's inlined control-flow graph (the same on the reversed graph), walked from each event; pairs inside one component are left out (`s1` reaches its post-dominator `s2`, so `s2` reaches `s1` exactly when they share a loop); only between hb events",
                example: "`3\t9`",
            }
            thread_always(s: Stmt) ThreadAlways {
                group: Order,
                meaning: "hb event `s` runs in every run of its thread that completes: it post-dominates the thread's first statement, or it is a `pthread_create`/`pthread_join` inside a loop, which the thread model assumes runs once per modelled instance.",
                source: "the post-dominator tree of the thread's inlined control-flow graph, walked from its first statement; plus the unrolled create and join sites",
                example: "`12`",
            }
            mutex_lock(s: Stmt, m: Lock) MutexLock {
                group: Synchronization,
                meaning: "statement `s` acquires mutex `m`.",
                source: "a call to `pthread_mutex_lock` whose argument points to exactly one location",
                example: "`5\t2`",
            }
            mutex_unlock(s: Stmt, m: Lock) MutexUnlock {
                group: Synchronization,
                meaning: "statement `s` releases mutex `m`.",
                source: "a call to `pthread_mutex_unlock`",
                example: "`8\t2`",
            }
            mutex_trylock(s: Stmt, m: Lock) MutexTrylock {
                group: Synchronization,
                meaning: "statement `s` tries to acquire mutex `m` (it does not open a critical section in these facts).",
                source: "a call to `pthread_mutex_trylock`",
                example: "`5\t2`",
            }
            cond_wait(s: Stmt, c: Loc, m: Lock) CondWait {
                group: Synchronization,
                meaning: "statement `s` waits on condition variable `c`, releasing and re-acquiring mutex `m`.",
                source: "a call to `pthread_cond_wait` or `pthread_cond_timedwait`",
                example: "`9\t3\t2`",
            }
            cond_signal(s: Stmt, c: Loc) CondSignal {
                group: Synchronization,
                meaning: "statement `s` wakes one waiter of condition variable `c`.",
                source: "a call to `pthread_cond_signal`",
                example: "`15\t3`",
            }
            cond_broadcast(s: Stmt, c: Loc) CondBroadcast {
                group: Synchronization,
                meaning: "statement `s` wakes all waiters of condition variable `c`.",
                source: "a call to `pthread_cond_broadcast`",
                example: "`15\t3`",
            }
            cond_wait_guarded(w: Stmt, v: Loc) CondWaitGuarded {
                group: Synchronization,
                meaning: "the wait `w` only runs when a read of shared flag `v` in the same critical section says the event has not happened yet (the guarded-wait pattern, EC-Diff §4.3).",
                source: "a `pthread_cond_wait` control-dependent on a branch whose condition is computed from a load of `v` made while holding the wait's mutex",
                example: "`9\t4`: wait 9 is guarded by flag location 4",
            }
            cond_signal_flagged(s: Stmt, v: Loc) CondSignalFlagged {
                group: Synchronization,
                meaning: "the signal or broadcast `s` is always preceded, in its thread, by a write to shared location `v` (a candidate flag; the rules pair it with a `cond_wait_guarded` on the same `v`).",
                source: "a store to `v` that dominates (loop-aware) a `pthread_cond_signal`/`broadcast`",
                example: "`15\t4`",
            }
            busy_wait(r: Stmt, v: Loc, x: Stmt) BusyWait {
                group: Synchronization,
                meaning: "the read `r` of shared flag `v` controls a spin loop that writes no shared memory and does not synchronise; `x` is the first statement after the loop (EC-Diff §4.4).",
                source: "a loop whose exit branch depends on a load of a shared location and whose body has no shared store, lock or wait",
                example: "`21\t4\t24`",
            }
            flag_guard(g: Stmt, r: Stmt, s: Stmt) FlagGuard {
                group: Synchronization,
                meaning: "hb event `s` runs only after the load `r` of a shared flag returned a value that sent a branch into the region starting at statement `g` (`if (flag) { s }`, or `s` after `while (!flag) {}`); the rules order `s` after what precedes every enabling store of `g`.",
                source: "a conditional branch whose condition is computed from one load of a single initialised shared location by integer casts, an `icmp` against a constant, `trunc` to i1 or `xor` with true; `g` is the first statement of a successor block that only this branch enters, and `s` an hb event that `g` dominates",
                example: "`31\t28\t33`",
            }
            flag_enabler(g: Stmt, w: Stmt) FlagEnabler {
                group: Synchronization,
                meaning: "the store `w` (or initial value) of the flag guarding region `g` may write a value that sends the branch into `g`: a constant that passes the branch's predicate, or a value concord does not know.",
                source: "every store of the flag's location: constant stores with a single target and constant initial values are evaluated against the predicate; other stores (unknown values, several targets, memcpy, atomics) always enable",
                example: "`31\t12`",
            }
            in_critical_section(s: Stmt, m: Lock, l: Stmt) InCriticalSection {
                group: Synchronization,
                meaning: "hb event `s` runs while its thread holds mutex `m`, and statement `l` (a lock, or a condition wait that re-acquired `m`) may be the acquisition it holds; one row per possible acquisition. `m` is held on every path to `s`, or it may be held and every path from `s` releases it (unlock or wait) before acquiring it again or ending the thread (`if (c) lock(m); s; unlock(m);`: a thread never unlocks a mutex it does not hold).",
                source: "forward may- and must-hold dataflows over the thread's control-flow graph (lock and wait acquire, unlock and wait release; the possible acquisitions are united at merges), and a backward search for release-free paths to a lock of `m`, the thread's end, or a loop with no exit",
                example: "`6\t2\t5`",
            }
            same_critical_section(s1: Stmt, s2: Stmt, m: Lock) SameCriticalSection {
                group: Synchronization,
                meaning: "distinct hb events `s1` and `s2` run while holding mutex `m`, and some acquisition of `m` may have opened both.",
                source: "`in_critical_section` rows with the same `m` and a common `l`",
                example: "`6\t7\t2`",
            }
            diff_critical_section(s1: Stmt, s2: Stmt, m: Lock) DiffCriticalSection {
                group: Synchronization,
                meaning: "shared store `s1` and shared load `s2` of a common cell both run while holding mutex `m`, under acquisitions that cannot be the same, and `s2` is covered for that cell under `m` (`cs_written_before`) or `s1` is (`cs_written_after`): only such pairs, the lock rules of rf.dl read nothing else.",
                source: "`in_critical_section` rows with the same `m` and disjoint sets of `l`",
                example: "`6\t14\t2`",
            }
            cs_written_before(l: Stmt, v: Loc, m: Lock) CsWrittenBefore {
                group: Synchronization,
                meaning: "the load `l` of `v` runs holding mutex `m`, and on every path from an acquisition of `m` that may open its section, the thread stores to `v` before `l` without releasing `m` (\"v written since the last acquire of m\"): `l` reads a store of its own section instance or of a thread not holding `m`.",
                source: "a forward must-dataflow over the thread's control-flow graph: a store with a single target location made while holding `m` sets (m, v), for a location of many cells (a heap object allocated more than once, `[*]`) only for the loads with the store's address (same_object.rs), dropped where a value of that address is defined again; lock, unlock and wait on `m` clear it; merges intersect",
                example: "`9\t1\t2`",
            }
            cs_written_after(s: Stmt, v: Loc, m: Lock) CsWrittenAfter {
                group: Synchronization,
                meaning: "the store `s` to `v` runs holding mutex `m`, and on every path from `s` the thread stores to `v` again before releasing `m` (\"v overwritten before the next release of m\"): no load in another section of `m` can see `s`.",
                source: "a backward must-dataflow over the thread's control-flow graph: a store with a single target location sets (m, v), for a location of many cells only for the stores with its address (as in `cs_written_before`); lock, unlock and wait on `m` clear it; merges intersect; the thread's end is empty",
                example: "`7\t1\t2`",
            }
            sync_dropped(s: Stmt, targets: Number) SyncDropped {
                group: Synchronization,
                meaning: "the lock, unlock, trylock, wait, signal or broadcast `s` may name `targets` objects (0: none known; 2 or more: ambiguous), so it opens or closes no critical section and orders nothing: it is counted in the coverage account, and a changed statement of its function makes `changes`, `diff` and `impact` inconclusive (exit 10).",
                source: "a call to a pthread mutex or condition-variable function whose object argument points to no cell or to more than one cell",
                example: "`31\t2`: statement 31 locks one of two possible mutexes",
            }
            sync_unmodelled(s: Stmt) SyncUnmodelled {
                group: Synchronization,
                meaning: "the call `s` is an operation of a synchronisation primitive the facts do not model (a reader-writer lock, a semaphore, a barrier, a timed mutex lock) or a trylock (which opens no critical section in the facts): what it orders or excludes is not in the model (*may over-report* in one version, and a change of it is not seen). Counted in the coverage account; a changed such call, or a changed statement of a function that makes one, makes `changes`, `diff` and `impact` inconclusive (exit 10).",
                source: "calls of `pthread_rwlock_*lock`/`unlock`, `sem_wait`/`trywait`/`timedwait`/`post`, `pthread_barrier_wait`, `pthread_mutex_timedlock`, `pthread_mutex_trylock` and `pthread_spin_trylock` in code some thread reaches",
                example: "`40`",
            }
            shared_read(s: Stmt, v: Loc) SharedRead {
                group: Memory,
                meaning: "statement `s` may read shared location `v`.",
                source: "a load, atomic read-modify-write or compare-exchange (and memcpy source) whose address may point to `v`; `v` is shared when it belongs to a global or to an object reachable from a global or a thread argument, and is not a mutex, condition variable or thread handle",
                example: "`6\t1`",
            }
            shared_write(s: Stmt, v: Loc) SharedWrite {
                group: Memory,
                meaning: "statement `s` may write shared location `v`. Each global location's initial value is written by a pseudo-statement of thread 0 (kind `init`) that precedes every other statement.",
                source: "a store, atomic read-modify-write or compare-exchange (and memcpy/memset destination); global initialisers",
                example: "`0\t1`: the initial value of location 1",
            }
            store_strong(s: Stmt, v: Loc) StoreStrong {
                group: Memory,
                meaning: "statement `s` overwrites shared location `v`: only such a store (or a `store_same_object` one) hides an earlier store's value from the generic NoRf rule and rank-2 rules 5 and 7 (rf.dl, rank2.dl). A store through a pointer with two targets, to an element `[*]`, to a field path at the depth bound or to a heap object allocated more than once may leave the earlier value in place.",
                source: "a store or atomic read-modify-write whose address has one target, at a path without `[*]` short of the depth bound, not in a heap object the model may allocate more than once; a global's initial value where it writes one shared location only (a load that reads it read that location)",
                example: "`9\t1`",
            }
            store_same_object(w: Stmt, r: Stmt) StoreSameObject {
                group: Memory,
                meaning: "the store `w` overwrote the memory cell the load `r` reads, whenever `r` runs, on a location of many cells (a heap object allocated more than once, an element `[*]`): only such a store hides an earlier store's value from `r` there (rf.dl).",
                source: "`w` and `r` each access one such location, through the same address (computed from the same SSA values of one function instance, constants and globals), and `w` is the nearest such store dominating `r`",
                example: "`9\t12`",
            }
            load_store_same_object(r: Stmt, w: Stmt) LoadStoreSameObject {
                group: Memory,
                meaning: "the store `w` writes the memory cell the load `r` read, in the first run of `w` after `r`: a read-modify-write such as `l->count++` through a pointer with several targets writes back the cell it read (rank-2 rules 4 and 6, rank2.dl).",
                source: "`r` and `w` access the same address (computed from the same SSA values of one function instance, constants and globals), `r` dominates `w`, and `r` runs at most once per run of its thread or `w` follows it in its block",
                example: "`36\t38`",
            }
            load_one(s: Stmt, v: Loc) LoadOne {
                group: Memory,
                meaning: "statement `s` reads shared location `v` and no other: a store that overwrites `v` hides an earlier store's value from it, whatever else that store wrote.",
                source: "a load (or read-modify-write) whose address has one shared target",
                example: "`11\t1`",
            }
            mem_read(s: Stmt, v: Loc) MemRead {
                group: Memory,
                meaning: "statement `s` may read location `v` (shared or not).",
                source: "as `shared_read`, for every location, including stack objects that mem2reg could not promote",
                example: "`6\t1`",
            }
            mem_write(s: Stmt, v: Loc) MemWrite {
                group: Memory,
                meaning: "statement `s` may write location `v` (shared or not).",
                source: "as `shared_write`, for every location",
                example: "`4\t1`",
            }
            access_no_target(s: Stmt) AccessNoTarget {
                group: Memory,
                meaning: "the load, store, read-modify-write or memory copy `s` goes through an address to which the points-to rules found no object: what it reads or writes is missing from the model. Counted in the coverage account; a changed such statement makes `changes`, `diff` and `impact` inconclusive (exit 10).",
                source: "a memory access or memcpy/memmove/memset call whose address operand has no points-to target in any context of its function instance (a pointer returned by a library function, an integer cast to a pointer, ...)",
                example: "`52`",
            }
            def_use(d: Stmt, u: Stmt) DefUse {
                group: Dependence,
                meaning: "statement `u` uses the SSA value that statement `d` defines.",
                source: "SSA operands (phi included), followed through parameter bindings into callees and thread start functions; a call's value comes from the callee's `ret` statements",
                example: "`4\t5`",
            }
            control_dep(b: Stmt, s: Stmt) ControlDep {
                group: Dependence,
                meaning: "whether `s` runs depends on the outcome of branch `b`; or `b` is a call (or thread create) and `s` is in the callee's entry region.",
                source: "post-dominance frontiers on the thread's inlined control-flow graph (Ferrante-Ottenstein-Warren), plus call-site dependence",
                example: "`10\t11`",
            }
            assert_site(s: Stmt) AssertSite {
                group: Dependence,
                meaning: "statement `s` reports a failed assertion or reaches an error (`__assert_fail`, `reach_error`, `__VERIFIER_error`).",
                source: "a call to one of those functions",
                example: "`17`",
            }
            call_arg(call: Stmt, index: Number, d: Stmt) CallArg {
                group: Dependence,
                meaning: "argument number `index` (from 0) of call `call` is the value defined by `d`.",
                source: "call operands that are instruction results (for calls to functions with and without a body)",
                example: "`12\t3\t9`",
            }
            external_callback(s: Stmt, e: Stmt) ExternalCallback {
                group: Threads,
                meaning: "the call `s` hands a function to a library function the call table does not describe (an event loop's `event_set`, `qsort`, `atexit`, `signal`, once-only initialisation), which may call it back: the callback is modelled as called at `s`, in `s`'s thread, possibly many times (its body forms a loop), and `e` is the first statement of that body",
                source: "`pt_callback` rows of the points-to rules: a function whose address is a function-pointer argument of the call",
                example: "`31\t40`",
            }
            fork_call(s: Stmt) ForkCall {
                group: Threads,
                meaning: "the call `s` is `fork()`: the parent goes on as modelled, the child process is not analysed (`concord` warns about each)",
                source: "a call to `fork` in code some thread reaches",
                example: "`12`",
            }
            inline_asm(s: Stmt) InlineAsm {
                group: Threads,
                meaning: "statement `s` runs inline assembly: its effects on memory and synchronisation are not modelled (`concord` warns about each)",
                source: "`call asm ...`",
                example: "`27`",
            }
            library_memory(s: Stmt) LibraryMemory {
                group: Memory,
                meaning: "the call `s` of a function without a body (a library function, or a pointer that may reach one) is handed a pointer that may point to shared memory, and the facts model no access of that call: what it reads or writes there (`strcpy`, `fread`, `sprintf` into a shared buffer) is missing. Counted in the coverage account; a changed such call makes `changes`, `diff` and `impact` inconclusive (exit 10).",
                source: "calls of declared functions (and indirect calls the points-to rules resolve to one) other than the calls the facts model (locks, conditions, creates, joins, allocation, `llvm.memcpy`/`memmove`/`memset`, assertions, the synchronisation objects' init and destroy), with a pointer argument that may point to a cell of an object reachable from a global or a thread argument (constant data and functions excepted)",
                example: "`52`",
            }
            join_unmatched(s: Stmt) JoinUnmatched {
                group: Threads,
                meaning: "the `pthread_join` at `s` is matched to no thread instance (its handle was not loaded from where a create with a known start routine stored it): it orders nothing. Counted in the coverage account; a changed such join makes `changes`, `diff` and `impact` inconclusive (exit 10).",
                source: "a call to `pthread_join` with no `thread_join` row",
                example: "`20`",
            }
            thread_bound(s: Stmt) ThreadBound {
                group: Threads,
                meaning: "the `pthread_create` at `s` may run more often than the model has instances of its thread (a create in a loop of its function or a caller: `--thread-loop-bound` instances; a thread that starts its own kind: two): behaviour that needs more concurrent instances is not modelled. Counted in the coverage account.",
                source: "the thread model's unrolled creates",
                example: "`12`",
            }
            call_cut(s: Stmt, why: Number) CallCut {
                group: Threads,
                meaning: "the call `s` is not cloned for its call path: `why` 0, the nesting reached `--call-depth`, or 1, its thread reached the 20,000-statement clone budget, and the call links to the thread's shared instance of its callee (two such calls join their paths: program order there is lost, never invented); `why` 2, the call is recursive and links to nothing (the body is in the model once). Counted in the coverage account.",
                source: "calls the thread model does not clone",
                example: "`44\t0`",
            }
            call_shared(s: Stmt, c: Stmt) CallShared {
                group: Threads,
                meaning: "the call `s`, cut at `--call-depth` or the clone budget (`call_cut` `why` 0 or 1), links to its thread's shared instance of the callee that was made for the call `c` (its first call; `c = s` for that one). Two calls with one `c` enter one instance: their paths join there, and the instance holds only the locks both hold. A changed statement there is unseen.",
                source: "calls past `--call-depth` or the clone budget, one row per callee",
                example: "`61\t44`: the call at 61 enters the instance first made for the call at 44",
            }
            thread_end_call(s: Stmt) ThreadEndCall {
                group: Threads,
                meaning: "the call `s` ends its thread or the process (`pthread_exit`, `exit`, `_exit`, `_Exit`, `quick_exit`) or cancels a thread (`pthread_cancel`): the model goes on after it (in the callers of the function that calls it, and in the cancelled thread), so statements after it still count as reachable. Counted in the coverage account.",
                source: "calls of those functions in code some thread reaches",
                example: "`77`",
            }
            callback_escape(s: Stmt, e: Stmt) CallbackEscape {
                group: Threads,
                meaning: "the library call `s` is handed a function other than as a function-pointer argument (in a struct it points to, as `sigaction`'s handler, or cast to `void *`), which it may call back; the model does not call it there. `e` is the first statement of a model instance of that function, or `s` itself when no thread reaches the function (it is then in `unreached.tsv`). Counted in the coverage account; a changed such call, or a changed statement of such a function, makes `changes`, `diff` and `impact` inconclusive (exit 10).",
                source: "calls of library functions the call table does not describe, with a pointer argument that may point to a function, or to an object a cell of which may hold a pointer to a function",
                example: "`61\t90`",
            }
        }
        ir {
            ir_main(f: Number) IrMain {
                group: Ir,
                meaning: "function `f` is `main`, the root of the call graph in context 0",
                source: "the module's `main`",
                example: "`12`",
            }
            ir_func_obj(o: Number, f: Number) IrFuncObj {
                group: Ir,
                meaning: "object `o` is the code of function `f` (what a function pointer points to)",
                source: "every function of the module",
                example: "`3\\t12`",
            }
            ir_global_obj(o: Number) IrGlobalObj {
                group: Ir,
                meaning: "object `o` is a global variable",
                source: "every global of the module",
                example: "`0`",
            }
            ir_global_init(o: Number, p: Number, o2: Number, p2: Number) IrGlobalInit {
                group: Ir,
                meaning: "the initial value of global `o` at path `p` points to path `p2` of object `o2`",
                source: "pointer constants in global initialisers (vtables, tables of functions)",
                example: "`0\\t1\\t5\\t0`",
            }
            ir_insn_func(i: Number, f: Number) IrInsnFunc {
                group: Ir,
                meaning: "instruction `i` (an allocation, call or thread create) belongs to function `f`",
                source: "allocas, allocating calls, calls and `pthread_create`",
                example: "`40\\t2`",
            }
            ir_var_func(v: Number, f: Number) IrVarFunc {
                group: Ir,
                meaning: "pointer constant `v` is an operand in function `f`",
                source: "constant operands that point somewhere (globals, functions, constant GEPs)",
                example: "`7\\t2`",
            }
            ir_alloc(i: Number, v: Number, o: Number) IrAlloc {
                group: Ir,
                meaning: "instruction `i` defines value `v` as a pointer to the new object `o`",
                source: "`alloca`; calls to `malloc`, `calloc`, `realloc`, `strdup`, `mmap`, ... (fresh memory; a pool allocator carving `mmap`ed pages is then an allocation wrapper)",
                example: "`40\\t9\\t21`",
            }
            ir_const_pts(v: Number, o: Number, p: Number) IrConstPts {
                group: Ir,
                meaning: "pointer constant `v` points to path `p` of object `o`",
                source: "constant operands: `@g`, `@f`, `getelementptr (@g, 0, 1)`, casts of them",
                example: "`7\\t0\\t0`",
            }
            ir_copy(d: Number, s: Number) IrCopy {
                group: Ir,
                meaning: "value `d` may be value `s`",
                source: "casts, `phi`, `select`, `freeze`, `extractvalue`/`insertvalue`, the pointer argument of `realloc`",
                example: "`10\\t9`",
            }
            ir_gep(d: Number, b: Number, g: Number) IrGep {
                group: Ir,
                meaning: "value `d` is the address computed from base `b` by GEP shape `g`",
                source: "`getelementptr`",
                example: "`11\\t10\\t2`",
            }
            ir_path_step(p: Number, g: Number, q: Number) IrPathStep {
                group: Ir,
                meaning: "a pointer to path `p` moved by GEP shape `g` points to path `q`",
                source: "the path table (paths bounded in depth and index, closed under the module's GEP shapes)",
                example: "`0\\t2\\t3`",
            }
            ir_obj_struct(o: Number, t: Number) IrObjStruct {
                group: Ir,
                meaning: "object `o` (a global or an `alloca`) has the named struct type `t` (arrays of it included): a GEP over another struct type applies at its root only if the two fit (`ir_struct_fits`; C's effective-type rule)",
                source: "globals and `alloca`s of a named struct type, except unions and types holding a union or a byte array (types programs pun)",
                example: "`21\t3`",
            }
            ir_gep_struct(g: Number, t: Number) IrGepStruct {
                group: Ir,
                meaning: "GEP shape `g` steps over the named struct type `t`",
                source: "GEP shapes whose source type is a named struct (the same exceptions as `ir_obj_struct`)",
                example: "`2\t3`",
            }
            ir_struct_fits(s: Number, t: Number) IrStructFits {
                group: Ir,
                meaning: "a pointer to struct `s` may address the root of an object of struct type `t`: the same type (names compared without a link suffix), or one begins with the other (first field, recursively)",
                source: "pairs of the struct types in `ir_obj_struct` and `ir_gep_struct`",
                example: "`3\t3`",
            }
            ir_path_overlap(p: Number, q: Number) IrPathOverlap {
                group: Ir,
                meaning: "paths `p` and `q` may name overlapping memory (one is a prefix of the other; `[*]` meets any element)",
                source: "the path table",
                example: "`0\\t3`",
            }
            ir_load(d: Number, a: Number) IrLoad {
                group: Ir,
                meaning: "value `d` is loaded from address `a`",
                source: "`load`, the old value of `atomicrmw`/`cmpxchg`",
                example: "`12\\t11`",
            }
            ir_store(v: Number, a: Number) IrStore {
                group: Ir,
                meaning: "value `v` is stored at address `a`",
                source: "`store`, `atomicrmw`, `cmpxchg`",
                example: "`9\\t4`",
            }
            ir_memcopy(i: Number, d: Number, s: Number) IrMemcopy {
                group: Ir,
                meaning: "instruction `i` copies the memory at `s` to `d`",
                source: "`llvm.memcpy.*`, `llvm.memmove.*`",
                example: "`50\\t12\\t13`",
            }
            ir_call(i: Number, f: Number) IrCall {
                group: Ir,
                meaning: "instruction `i` calls function `f` (which has a body) directly",
                source: "`call @f(...)`",
                example: "`41\\t3`",
            }
            ir_icall(i: Number, v: Number) IrIcall {
                group: Ir,
                meaning: "instruction `i` calls through the pointer value `v` (0: inline assembly or an unknown callee)",
                source: "`call %fp(...)`",
                example: "`42\\t15`",
            }
            ir_icall_heap(i: Number, d: Number, o: Number) IrIcallHeap {
                group: Ir,
                meaning: "should the indirect call `i` reach an allocation function, its result `d` points to the new object `o`",
                source: "indirect calls with a result (allocator hooks such as `my_malloc_f`)",
                example: "`43\t31\t22`",
            }
            ir_extern_func(o: Number) IrExternFunc {
                group: Ir,
                meaning: "object `o` is a function declared outside the module (a library function)",
                source: "the module's function declarations",
                example: "`4`",
            }
            ir_extern_alloc(o: Number) IrExternAlloc {
                group: Ir,
                meaning: "object `o` is an allocation function declared outside the module (`malloc`, `calloc`, ...)",
                source: "function declarations whose name concord models as an allocator",
                example: "`5`",
            }
            ir_actual(i: Number, n: Number, v: Number) IrActual {
                group: Ir,
                meaning: "argument `n` (from 0) of call `i` is the value `v`",
                source: "call operands that may be pointers",
                example: "`41\\t0\\t9`",
            }
            ir_formal(f: Number, n: Number, v: Number) IrFormal {
                group: Ir,
                meaning: "parameter `n` of function `f` is the value `v`",
                source: "function parameters",
                example: "`3\\t0\\t30`",
            }
            ir_call_result(i: Number, v: Number) IrCallResult {
                group: Ir,
                meaning: "call `i` defines value `v` with its result",
                source: "calls with a result",
                example: "`41\\t31`",
            }
            ir_ret(f: Number, v: Number) IrRet {
                group: Ir,
                meaning: "function `f` may return value `v`",
                source: "`ret`",
                example: "`3\\t32`",
            }
            ir_thread_create(i: Number, r: Number, a: Number) IrThreadCreate {
                group: Ir,
                meaning: "`pthread_create` at `i` starts the routine value `r` with payload value `a` (0: none)",
                source: "`pthread_create(&t, attr, routine, payload)`",
                example: "`60\\t7\\t9`",
            }
            ir_thread_ctx(c: Number, i: Number, k: Number) IrThreadCtx {
                group: Ir,
                meaning: "a thread created at `i` by a function called at `c` runs in context `k`",
                source: "each `pthread_create` under each direct call of its function (thread contexts are numbered after the instructions)",
                example: "`41\\t60\\t900`",
            }
            ir_allocator(f: Number) IrAllocator {
                group: Ir,
                meaning: "function `f` is an allocation wrapper: it returns memory it (or a wrapper it calls) allocated",
                source: "returned values traced back through casts, GEPs, phis and selects to an allocating call",
                example: "`5`",
            }
            ir_in_allocator(i: Number) IrInAllocator {
                group: Ir,
                meaning: "call `i` is made inside an allocation wrapper (a call to another wrapper keeps the caller's context)",
                source: "calls inside the functions of `ir_allocator`",
                example: "`44`",
            }
            ir_memcopy_field(i: Number, g: Number) IrMemcopyField {
                group: Ir,
                meaning: "the copy `i` (`ir_memcopy`) copies a struct; GEP shape `g` selects one of its fields (the rules copy each field into the same field)",
                source: "`llvm.memcpy.*`/`llvm.memmove.*` whose source or destination is a cast struct pointer, and `store` of a struct value loaded by a `load`",
                example: "`50\t7`",
            }
            ir_extern_call(i: Number, f: Number) IrExternCall {
                group: Ir,
                meaning: "instruction `i`, in function `f`, calls a library function the call table does not describe with a function-pointer argument: the function may be called back",
                source: "direct calls of declared functions with no row in `src/calls.rs`",
                example: "`61\t0`",
            }
            ir_extern_actual(i: Number, n: Number, v: Number) IrExternActual {
                group: Ir,
                meaning: "argument `n` of the library call `i` (`ir_extern_call`) is the function pointer `v`",
                source: "function-pointer arguments of those calls",
                example: "`61\t3\t17`",
            }
            ir_extern_opaque(i: Number, v: Number) IrExternOpaque {
                group: Ir,
                meaning: "the library call `i` (`ir_extern_call`) is given the `void *` value `v`, which it may pass on to the functions it calls back (an event loop's `arg`, `qsort`'s array)",
                source: "arguments of type `i8*` of those calls",
                example: "`61\t18`",
            }
        }
        }
    };
}
#[allow(unused_imports)] // the build script of crates/concord-programs has no typed model
pub(crate) use for_each_relation;

/// The schema table's column kind of a declared column kind.
macro_rules! column_kind {
    (Lock) => {
        ColumnKind::Loc
    };
    ($kind:ident) => {
        ColumnKind::$kind
    };
}

/// Expands the declaration into the two relation tables.
macro_rules! relation_tables {
    (
        analysis { $($name:ident ($($col:ident : $kind:ident),*) $row:ident {
            group: $group:ident, meaning: $meaning:literal, source: $source:literal, example: $example:literal $(,)?
        })* }
        ir { $($ir_name:ident ($($ir_col:ident : $ir_kind:ident),*) $ir_row:ident {
            group: $ir_group:ident, meaning: $ir_meaning:literal, source: $ir_source:literal, example: $ir_example:literal $(,)?
        })* }
    ) => {
        pub static RELATIONS: &[Relation] = &[$(
            Relation {
                name: stringify!($name),
                columns: &[$(col(stringify!($col), column_kind!($kind))),*],
                group: Group::$group,
                meaning: $meaning,
                source: $source,
                example: $example,
            },
        )*];

        /// The base IR relations: what each instruction says about pointers, the
        /// inputs of `rules/pointsto.dl`. Ids here are IR ids (instructions, values,
        /// objects, paths), not statement ids: an instruction has one id however
        /// many threads run it.
        pub static IR_RELATIONS: &[Relation] = &[$(
            Relation {
                name: stringify!($ir_name),
                columns: &[$(col(stringify!($ir_col), column_kind!($ir_kind))),*],
                group: Group::$ir_group,
                meaning: $ir_meaning,
                source: $ir_source,
                example: $ir_example,
            },
        )*];
    };
}

for_each_relation!(relation_tables);

pub fn relation(name: &str) -> Option<&'static Relation> {
    all().find(|r| r.name == name)
}

/// Every extracted relation: the analysis facts, then the base IR facts.
pub fn all() -> impl Iterator<Item = &'static Relation> {
    RELATIONS.iter().chain(IR_RELATIONS.iter())
}

/// The schema page `docs/facts.md`, generated so it cannot drift from code.
pub fn schema_markdown() -> String {
    let mut out = String::new();
    out.push_str("# Facts schema\n\n");
    out.push_str("<!-- Generated from src/facts/schema.rs by `concord schema`; a test fails when this file is out of date. -->\n\n");
    out.push_str(
        "`concord facts <prog> -o DIR` writes one file per relation, `DIR/<relation>.facts` \
(tab-separated, no header, rows sorted: Soufflé's input format; `--format csv` writes \
`<relation>.csv` with commas), plus tables that give the ids meaning and a manifest:\n\n\
- `statements.tsv` — `id, file, line, col, function, thread, kind, text` (header row). \
A statement is one instruction in one thread instance: a function called by two threads has \
two ids for each instruction. `kind` is `init` for the pseudo-statements that write globals' \
initial values, else the instruction's opcode (`load`, `store`, `call`, `br`, ...). \
`text` is the LLVM instruction.\n\
- `locations.tsv` — `id, name, object, shared` (header row). A location is an abstract \
object (global; stack slot or heap allocation site per calling context, see `rules/pointsto.dl`) plus a \
field path: `acct.1` is field 1 of struct `acct`, `buf[3]` element 3, `buf[*]` an element \
at an unknown index (it may alias every element). `shared` is 1 for locations of objects more than one \
thread can reach (`pt_shared`) that two threads access, one of them writing (initial values \
count as main's writes).\n\
- `threads.tsv` — `id, parent, create_stmt, function, instance` (header row); main is \
thread 0 with parent and create_stmt empty.\n\
- `names.tsv` — `id, name, object, kind, type, site` (header row): how reports name each \
location (one row per location id). Struct fields get their C member names from the debug \
information, matched to IR fields by offset (`stats.misses` for `stats.1`; a field without a \
match keeps its index); heap objects are named through the one pointer that holds them when \
the points-to results show that a global (or a chain of pointers from one) is the only global \
or heap location that may point to the object and may point to nothing else (`p->head` for \
`heap@24.0` after `p = malloc(..)`, `q->next->val`, object `*p`; a function's locals do not \
count, they are the code's temporaries), else by the member the allocating function stores \
them into (`(pool->have = struct lock_s @ pigz.c:955).mutex`), else by the type their \
allocation is cast to and its site (`(struct pool @ pool.c:24).head`); `kind` is `global`, `stack`, \
`heap` or `function`, `type` the object's type (structs and unions by their C names, \
pointers and arrays spelled as in C, scalars as LLVM names them: `struct node *[2]`, \
`i32[4]`), `site` the allocation's `file:line`. Display only: the analyses compare \
`locations.tsv` names. Optional on reading (directories written before it existed still \
read, and reports then show `locations.tsv` names); when present it must name every \
location, in order.\n\
- `manifest.json` — `format_version` (the layout of the directory; readers refuse any \
other), tool version, input path and SHA-256, the compile flags, and the row count of every \
relation.\n\n\
A directory is written beside its target and renamed into place, so it is never half old, \
half new. On reading, concord cross-checks it (ids dense and unique, every id a relation \
names exists, threads descend from main, the manifest's counts match the files) and refuses \
a directory that fails with exit code 6.\n\n\
All ids are unsigned integers, stable for one build of one input. \
Relations restricted to *hb events* (statements that access shared memory, synchronise, \
create or join threads) say so: this is the EC-Diff paper's §5.1 optimisation, so \
happens-before is never computed over all instructions.\n\n",
    );
    for group in Group::ALL {
        out.push_str(&format!("## {}\n\n", group.title()));
        for rel in all().filter(|r| r.group == group) {
            out.push_str(&format!("### `{}`\n\n", rel.signature()));
            out.push_str(&format!("{}\n\n", rel.meaning));
            out.push_str("| column | kind |\n| --- | --- |\n");
            for c in rel.columns {
                out.push_str(&format!("| `{}` | {} |\n", c.name, c.kind.describe()));
            }
            out.push_str(&format!(
                "\nProduced by: {}.\n\nExample: {}.\n\n",
                rel.source, rel.example
            ));
        }
    }
    out
}

/// Soufflé `.decl`/`.input` lines for every extracted relation, so exported
/// facts load in other engines with the same names.
pub fn souffle_input_decls() -> String {
    decls(RELATIONS)
}

/// Input declarations of the points-to program: the base IR relations.
pub fn souffle_ir_input_decls() -> String {
    decls(IR_RELATIONS)
}

fn decls(relations: &[Relation]) -> String {
    let mut out = String::new();
    for rel in relations {
        let cols: Vec<String> = rel
            .columns
            .iter()
            .map(|c| format!("{}: {}", c.name, c.kind.souffle_type()))
            .collect();
        out.push_str(&format!(
            ".decl {}({})\n.input {}\n",
            rel.name,
            cols.join(", "),
            rel.name
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relation_names_are_unique_snake_case() {
        let mut seen = std::collections::HashSet::new();
        for r in all() {
            assert!(seen.insert(r.name), "duplicate relation {}", r.name);
            assert!(r
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
            assert!(!r.columns.is_empty());
        }
    }
}
