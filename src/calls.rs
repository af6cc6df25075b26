//! The one model of the library calls concord gives meaning to: POSIX
//! threads, the C library, the verifier conventions (SV-COMP, KLEE) and
//! the few LLVM intrinsics the fact extractor classifies.
//!
//! Each call is one row of [`CALLS`]: its [`Role`] for the fact extractor
//! (lock, wait, create, alloc…), its [`Footprint`] (which arguments are
//! synchronisation objects, thread handles, memory read or written) and
//! its [`Semantics`] for the symbolic executor (the key its models match
//! on). Facts, the executor's models, its traces, DPOR and ODPOR, the
//! property slice and incremental symex all ask this table; no other file
//! spells a pthread function's name (a test below checks it).
//!
//! It lives at the crate root, below `facts` and `symex`, because both
//! consult it and neither may import the other's internals; it depends on
//! nothing.
//!
//! To model a new call: add its row here, and (when symex should run it)
//! its semantics key and the arm that implements it in
//! `symex/engine/models/`.

use std::collections::HashMap;
use std::sync::OnceLock;

/// What a call means to the fact extractor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    ThreadCreate,
    ThreadJoin,
    MutexLock,
    MutexUnlock,
    MutexTrylock,
    CondWait,
    CondSignal,
    CondBroadcast,
    AssertFail,
    Alloc,
    Realloc,
    MemCopy,
    /// A debug intrinsic: not a statement.
    Debug,
    /// Threading APIs concord does not model (refused).
    UnmodelledThreads,
    /// An operation of a synchronisation primitive the facts do not model
    /// (reader-writer locks, semaphores, barriers, timed mutex locks): it
    /// orders or excludes what the model does not know, so it is counted
    /// (`sync_unmodelled`) and a change near it is inconclusive.
    UnmodelledSync,
    /// Setting up or tearing down such a primitive's object (`sem_init`,
    /// `pthread_rwlock_destroy`): it orders nothing.
    UnmodelledSyncSetup,
    /// No meaning to the facts (the call may still have symex semantics).
    Other,
}

/// The kind of synchronisation object an argument points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncObject {
    Mutex,
    Cond,
}

/// What program memory a call writes, for the property slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// No memory of the program (the sync objects it updates are only
    /// accessed through these calls).
    Nothing,
    /// Possibly any memory: not described (yet), so assumed.
    Unknown,
}

/// What a call touches that another thread can observe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Arguments that point to synchronisation objects.
    pub sync: &'static [(usize, SyncObject)],
    /// The argument holding a thread handle (written by create, read by join).
    pub thread: Option<usize>,
    /// Pointer arguments whose objects the call reads.
    pub reads: &'static [usize],
    /// Pointer arguments whose objects the call writes.
    pub writes: &'static [usize],
    /// Memory written beyond the sync objects, for the property slice.
    pub writes_memory: Writes,
    /// Touches no shared state and does not synchronise: a thread whose
    /// remaining code only makes such calls may run late, as a tail.
    pub thread_local: bool,
}

impl Footprint {
    /// Nothing observable, no memory written, thread-local.
    const LOCAL: Footprint = Footprint {
        sync: &[],
        thread: None,
        reads: &[],
        writes: &[],
        writes_memory: Writes::Nothing,
        thread_local: true,
    };
    /// Nothing described: any memory may be written.
    const UNKNOWN: Footprint = Footprint {
        sync: &[],
        thread: None,
        reads: &[],
        writes: &[],
        writes_memory: Writes::Unknown,
        thread_local: false,
    };
    /// Writes no program memory, but is not a tail call either.
    const NO_WRITES: Footprint = Footprint {
        writes_memory: Writes::Nothing,
        ..Footprint::UNKNOWN
    };
    const fn sync(objects: &'static [(usize, SyncObject)]) -> Footprint {
        Footprint {
            sync: objects,
            ..Footprint::NO_WRITES
        }
    }
    const fn thread(arg: usize) -> Footprint {
        Footprint {
            thread: Some(arg),
            ..Footprint::UNKNOWN
        }
    }
    const fn memory(reads: &'static [usize], writes: &'static [usize]) -> Footprint {
        Footprint {
            reads,
            writes,
            ..Footprint::UNKNOWN
        }
    }

    /// Is the call a synchronisation (a scheduling point of its own)?
    pub fn synchronises(&self) -> bool {
        !self.sync.is_empty() || self.thread.is_some()
    }
}

/// POSIX-thread operations the executor implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PthreadOp {
    Create,
    Join,
    Exit,
    Self_,
    MutexInit,
    MutexDestroy,
    MutexLock,
    MutexTrylock,
    MutexUnlock,
    CondInit,
    CondDestroy,
    CondWait,
    /// `pthread_cond_timedwait`: a wait that may also end by timing out,
    /// at any moment, without a signal (then 0 or `ETIMEDOUT`).
    CondTimedWait,
    CondSignal,
    CondBroadcast,
    /// Attributes: accepted and ignored (default threads and mutexes are
    /// what the model implements); returns 0.
    Ignored,
}

/// C-library operations the executor implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LibcOp {
    Exit,
    Malloc,
    Calloc,
    Free,
    /// Output and sleeping: no modelled effect, returns 0.
    NoEffect,
    /// memcpy, memmove, memset: the intrinsic of the same name.
    MemoryFunction,
    Strlen,
    Strcmp,
    Strncmp,
    Abs,
    /// `memcmp`: the difference of the first differing bytes (as glibc).
    Memcmp,
    /// `strtol` and family (`with_end`: the `endptr, base` arguments;
    /// without them base 10, as `atoi`), on concrete characters.
    ParseInt {
        unsigned: bool,
        with_end: bool,
    },
    /// `sprintf` (`bounded: false`) and `snprintf` on concrete arguments.
    Format {
        bounded: bool,
    },
    /// `time`: a fresh input, never below the previous one.
    Time,
}

/// Verifier conventions the executor implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifierOp {
    Nondet,
    Symbolic,
    Assume,
    Assert,
    AssertFail,
    ErrorCall,
    Abort,
    AtomicBegin,
    AtomicEnd,
}

/// What the symbolic executor does with a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Semantics {
    Pthread(PthreadOp),
    Libc(LibcOp),
    Verifier(VerifierOp),
    /// An LLVM intrinsic: `symex/engine/models/intrinsics.rs` decides.
    Intrinsic,
    /// Named for the facts, not implemented by the executor (it stops
    /// with "unsupported call").
    Unsupported,
}

/// How a row's name matches a callee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    Exact(&'static str),
    /// A family of names (`__VERIFIER_nondet_int`, `llvm.memcpy.p0.p0.i64`).
    Prefix(&'static str),
}

/// One modelled call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallModel {
    pub name: Name,
    pub role: Role,
    pub footprint: Footprint,
    pub semantics: Semantics,
}

/// The name of `pthread_create` (for messages that name it).
pub const THREAD_CREATE: &str = "pthread_create";

/// The name of `fork` (its parent is modelled, its child is not).
pub const FORK: &str = "fork";

/// The name of `pthread_cancel` (the cancelled thread is modelled as
/// running on; the coverage account counts each call).
pub const THREAD_CANCEL: &str = "pthread_cancel";

/// Names of the POSIX threads API start with this.
const PTHREAD_PREFIX: &str = "pthread_";

const MUTEX_ARG: &[(usize, SyncObject)] = &[(0, SyncObject::Mutex)];
const COND_ARG: &[(usize, SyncObject)] = &[(0, SyncObject::Cond)];
const COND_MUTEX_ARGS: &[(usize, SyncObject)] = &[(0, SyncObject::Cond), (1, SyncObject::Mutex)];

/// The arguments `sprintf` and `snprintf` may read: the format and every
/// argument after it, up to [`FORMAT_MAX_ARGS`].
const FORMAT_READS: &[usize] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// Arguments (buffer and size included) of the `sprintf` calls the
/// executor models: the footprint names no more.
pub const FORMAT_MAX_ARGS: usize = 16;

const fn row(name: Name, role: Role, footprint: Footprint, semantics: Semantics) -> CallModel {
    CallModel {
        name,
        role,
        footprint,
        semantics,
    }
}

use Name::{Exact, Prefix};
use PthreadOp as P;
use Semantics::{Intrinsic, Libc, Pthread, Unsupported, Verifier};
use VerifierOp as V;

/// Every modelled call. Exact names win over prefixes; no two rows share
/// a name and no prefix is a prefix of another (tests check both).
#[rustfmt::skip]
pub const CALLS: &[CallModel] = &[
    // POSIX threads.
    row(Exact(THREAD_CREATE), Role::ThreadCreate, Footprint::thread(0), Pthread(P::Create)),
    row(Exact("pthread_join"), Role::ThreadJoin, Footprint::thread(0), Pthread(P::Join)),
    row(Exact("pthread_exit"), Role::Other, Footprint::UNKNOWN, Pthread(P::Exit)),
    row(Exact("pthread_self"), Role::Other, Footprint::NO_WRITES, Pthread(P::Self_)),
    row(Exact("pthread_mutex_init"), Role::Other, Footprint::sync(MUTEX_ARG), Pthread(P::MutexInit)),
    row(Exact("pthread_mutex_destroy"), Role::Other, Footprint::sync(MUTEX_ARG), Pthread(P::MutexDestroy)),
    row(Exact("pthread_mutex_lock"), Role::MutexLock, Footprint::sync(MUTEX_ARG), Pthread(P::MutexLock)),
    row(Exact("pthread_mutex_unlock"), Role::MutexUnlock, Footprint::sync(MUTEX_ARG), Pthread(P::MutexUnlock)),
    row(Exact("pthread_mutex_trylock"), Role::MutexTrylock, Footprint::sync(MUTEX_ARG), Pthread(P::MutexTrylock)),
    // Spin locks are mutexes whose waiting burns CPU: the same model.
    row(Exact("pthread_spin_init"), Role::Other, Footprint::sync(MUTEX_ARG), Pthread(P::MutexInit)),
    row(Exact("pthread_spin_destroy"), Role::Other, Footprint::sync(MUTEX_ARG), Pthread(P::MutexDestroy)),
    row(Exact("pthread_spin_lock"), Role::MutexLock, Footprint::sync(MUTEX_ARG), Pthread(P::MutexLock)),
    row(Exact("pthread_spin_unlock"), Role::MutexUnlock, Footprint::sync(MUTEX_ARG), Pthread(P::MutexUnlock)),
    row(Exact("pthread_spin_trylock"), Role::MutexTrylock, Footprint::sync(MUTEX_ARG), Pthread(P::MutexTrylock)),
    row(Exact("pthread_cond_init"), Role::Other, Footprint::sync(COND_ARG), Pthread(P::CondInit)),
    row(Exact("pthread_cond_destroy"), Role::Other, Footprint::sync(COND_ARG), Pthread(P::CondDestroy)),
    row(Exact("pthread_cond_wait"), Role::CondWait, Footprint::sync(COND_MUTEX_ARGS), Pthread(P::CondWait)),
    // A timed wait may return without a signal (timeout, or a spurious
    // wake-up): the executor lets it time out at any point.
    row(Exact("pthread_cond_timedwait"), Role::CondWait, Footprint { writes_memory: Writes::Unknown, ..Footprint::sync(COND_MUTEX_ARGS) }, Pthread(P::CondTimedWait)),
    row(Exact("pthread_cond_signal"), Role::CondSignal, Footprint::sync(COND_ARG), Pthread(P::CondSignal)),
    row(Exact("pthread_cond_broadcast"), Role::CondBroadcast, Footprint::sync(COND_ARG), Pthread(P::CondBroadcast)),
    row(Exact("pthread_attr_init"), Role::Other, Footprint::UNKNOWN, Pthread(P::Ignored)),
    row(Exact("pthread_attr_destroy"), Role::Other, Footprint::UNKNOWN, Pthread(P::Ignored)),
    row(Exact("pthread_mutexattr_init"), Role::Other, Footprint::UNKNOWN, Pthread(P::Ignored)),
    row(Exact("pthread_mutexattr_settype"), Role::Other, Footprint::UNKNOWN, Pthread(P::Ignored)),
    row(Exact("pthread_mutexattr_destroy"), Role::Other, Footprint::UNKNOWN, Pthread(P::Ignored)),
    // Synchronisation the facts do not model: counted, never silently
    // dropped (design.md, "Coverage"); the executor refuses them.
    row(Exact("pthread_rwlock_rdlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_wrlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_tryrdlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_trywrlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_timedrdlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_timedwrlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_clockrdlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_clockwrlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_unlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_mutex_timedlock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_mutex_clocklock"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_wait"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_trywait"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_timedwait"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_clockwait"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_post"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_barrier_wait"), Role::UnmodelledSync, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_init"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlock_destroy"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlockattr_init"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_rwlockattr_destroy"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_init"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_destroy"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_open"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_close"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_unlink"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("sem_getvalue"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_barrier_init"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_barrier_destroy"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_barrierattr_init"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    row(Exact("pthread_barrierattr_destroy"), Role::UnmodelledSyncSetup, Footprint::UNKNOWN, Unsupported),
    // Other threading APIs: refused by the facts, unknown to symex.
    row(Exact("thrd_create"), Role::UnmodelledThreads, Footprint::UNKNOWN, Unsupported),
    row(Exact("fork"), Role::UnmodelledThreads, Footprint::UNKNOWN, Unsupported),
    row(Exact("clone"), Role::UnmodelledThreads, Footprint::UNKNOWN, Unsupported),
    row(Exact("__kmpc_fork_call"), Role::UnmodelledThreads, Footprint::UNKNOWN, Unsupported),
    // Allocation. mmap: fresh pages (custom allocators such as nbds'
    // carve them up).
    row(Exact("malloc"), Role::Alloc, Footprint::NO_WRITES, Libc(LibcOp::Malloc)),
    row(Exact("calloc"), Role::Alloc, Footprint::NO_WRITES, Libc(LibcOp::Calloc)),
    row(Exact("aligned_alloc"), Role::Alloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("strdup"), Role::Alloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("strndup"), Role::Alloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("valloc"), Role::Alloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("pvalloc"), Role::Alloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("memalign"), Role::Alloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("mmap"), Role::Alloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("mmap64"), Role::Alloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("realloc"), Role::Realloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("reallocarray"), Role::Realloc, Footprint::UNKNOWN, Unsupported),
    row(Exact("free"), Role::Other, Footprint::NO_WRITES, Libc(LibcOp::Free)),
    // The rest of the C library.
    row(Exact("exit"), Role::Other, Footprint::NO_WRITES, Libc(LibcOp::Exit)),
    row(Exact("_exit"), Role::Other, Footprint::UNKNOWN, Libc(LibcOp::Exit)),
    row(Exact("printf"), Role::Other, Footprint::LOCAL, Libc(LibcOp::NoEffect)),
    row(Exact("puts"), Role::Other, Footprint::LOCAL, Libc(LibcOp::NoEffect)),
    row(Exact("putchar"), Role::Other, Footprint::NO_WRITES, Libc(LibcOp::NoEffect)),
    row(Exact("fprintf"), Role::Other, Footprint::UNKNOWN, Libc(LibcOp::NoEffect)),
    row(Exact("fflush"), Role::Other, Footprint::UNKNOWN, Libc(LibcOp::NoEffect)),
    row(Exact("fputs"), Role::Other, Footprint::UNKNOWN, Libc(LibcOp::NoEffect)),
    row(Exact("fputc"), Role::Other, Footprint::UNKNOWN, Libc(LibcOp::NoEffect)),
    row(Exact("putc"), Role::Other, Footprint::UNKNOWN, Libc(LibcOp::NoEffect)),
    row(Exact("perror"), Role::Other, Footprint::UNKNOWN, Libc(LibcOp::NoEffect)),
    row(Exact("usleep"), Role::Other, Footprint::NO_WRITES, Libc(LibcOp::NoEffect)),
    row(Exact("sleep"), Role::Other, Footprint::NO_WRITES, Libc(LibcOp::NoEffect)),
    row(Exact("sched_yield"), Role::Other, Footprint::NO_WRITES, Libc(LibcOp::NoEffect)),
    row(Exact("memcpy"), Role::Other, Footprint::memory(&[1], &[0]), Libc(LibcOp::MemoryFunction)),
    row(Exact("memmove"), Role::Other, Footprint::memory(&[1], &[0]), Libc(LibcOp::MemoryFunction)),
    row(Exact("memset"), Role::Other, Footprint::memory(&[], &[0]), Libc(LibcOp::MemoryFunction)),
    row(Exact("strlen"), Role::Other, Footprint::memory(&[0], &[]), Libc(LibcOp::Strlen)),
    row(Exact("strcmp"), Role::Other, Footprint::memory(&[0, 1], &[]), Libc(LibcOp::Strcmp)),
    row(Exact("strncmp"), Role::Other, Footprint::memory(&[0, 1], &[]), Libc(LibcOp::Strncmp)),
    row(Exact("abs"), Role::Other, Footprint::UNKNOWN, Libc(LibcOp::Abs)),
    row(Exact("memcmp"), Role::Other, Footprint::memory(&[0, 1], &[]), Libc(LibcOp::Memcmp)),
    row(Exact("strtol"), Role::Other, Footprint::memory(&[0], &[1]), Libc(LibcOp::ParseInt { unsigned: false, with_end: true })),
    row(Exact("strtoll"), Role::Other, Footprint::memory(&[0], &[1]), Libc(LibcOp::ParseInt { unsigned: false, with_end: true })),
    row(Exact("strtoul"), Role::Other, Footprint::memory(&[0], &[1]), Libc(LibcOp::ParseInt { unsigned: true, with_end: true })),
    row(Exact("strtoull"), Role::Other, Footprint::memory(&[0], &[1]), Libc(LibcOp::ParseInt { unsigned: true, with_end: true })),
    row(Exact("atoi"), Role::Other, Footprint::memory(&[0], &[]), Libc(LibcOp::ParseInt { unsigned: false, with_end: false })),
    row(Exact("atol"), Role::Other, Footprint::memory(&[0], &[]), Libc(LibcOp::ParseInt { unsigned: false, with_end: false })),
    row(Exact("atoll"), Role::Other, Footprint::memory(&[0], &[]), Libc(LibcOp::ParseInt { unsigned: false, with_end: false })),
    // Every pointer among the first arguments may be a `%s` read (the
    // model refuses calls with more arguments than these).
    row(Exact("sprintf"), Role::Other, Footprint::memory(FORMAT_READS, &[0]), Libc(LibcOp::Format { bounded: false })),
    row(Exact("snprintf"), Role::Other, Footprint::memory(FORMAT_READS, &[0]), Libc(LibcOp::Format { bounded: true })),
    row(Exact("time"), Role::Other, Footprint::memory(&[], &[0]), Libc(LibcOp::Time)),
    // Verifier conventions.
    row(Prefix("__VERIFIER_nondet_"), Role::Other, Footprint::LOCAL, Verifier(V::Nondet)),
    row(Exact("concord_symbolic"), Role::Other, Footprint::UNKNOWN, Verifier(V::Symbolic)),
    row(Exact("klee_make_symbolic"), Role::Other, Footprint::UNKNOWN, Verifier(V::Symbolic)),
    row(Exact("__VERIFIER_assume"), Role::Other, Footprint { writes_memory: Writes::Unknown, ..Footprint::LOCAL }, Verifier(V::Assume)),
    row(Exact("assume"), Role::Other, Footprint::UNKNOWN, Verifier(V::Assume)),
    row(Exact("__VERIFIER_assert"), Role::Other, Footprint::LOCAL, Verifier(V::Assert)),
    row(Exact("__assert_fail"), Role::AssertFail, Footprint::LOCAL, Verifier(V::AssertFail)),
    row(Exact("__assert"), Role::Other, Footprint::NO_WRITES, Verifier(V::AssertFail)),
    row(Exact("__assert_rtn"), Role::AssertFail, Footprint::NO_WRITES, Verifier(V::AssertFail)),
    row(Exact("reach_error"), Role::AssertFail, Footprint::LOCAL, Verifier(V::ErrorCall)),
    row(Exact("__VERIFIER_error"), Role::AssertFail, Footprint::LOCAL, Verifier(V::ErrorCall)),
    row(Exact("abort"), Role::Other, Footprint::LOCAL, Verifier(V::Abort)),
    row(Exact("__VERIFIER_atomic_begin"), Role::Other, Footprint::UNKNOWN, Verifier(V::AtomicBegin)),
    row(Exact("__VERIFIER_atomic_end"), Role::Other, Footprint { writes_memory: Writes::Unknown, ..Footprint::LOCAL }, Verifier(V::AtomicEnd)),
    // LLVM intrinsics the facts classify (the executor implements more:
    // see its intrinsics model).
    row(Prefix("llvm.dbg."), Role::Debug, Footprint::LOCAL, Intrinsic),
    row(Prefix("llvm.lifetime."), Role::Debug, Footprint::LOCAL, Intrinsic),
    row(Prefix("llvm.memcpy."), Role::MemCopy, Footprint::memory(&[1], &[0]), Intrinsic),
    row(Prefix("llvm.memmove."), Role::MemCopy, Footprint::memory(&[1], &[0]), Intrinsic),
    row(Prefix("llvm.memset."), Role::Other, Footprint::memory(&[], &[0]), Intrinsic),
];

fn exact_index() -> &'static HashMap<&'static str, &'static CallModel> {
    static INDEX: OnceLock<HashMap<&'static str, &'static CallModel>> = OnceLock::new();
    INDEX.get_or_init(|| {
        CALLS
            .iter()
            .filter_map(|c| match c.name {
                Exact(n) => Some((n, c)),
                Prefix(_) => None,
            })
            .collect()
    })
}

/// The model of a call to `callee`, if concord models it.
pub fn lookup(callee: &str) -> Option<&'static CallModel> {
    if let Some(c) = exact_index().get(callee) {
        return Some(c);
    }
    CALLS.iter().find(|c| match c.name {
        Prefix(p) => callee.starts_with(p),
        Exact(_) => false,
    })
}

/// The call's role for the facts (`Other` when not modelled).
pub fn role(callee: &str) -> Role {
    lookup(callee).map_or(Role::Other, |c| c.role)
}

/// The call's semantics for the executor (`None` when not modelled).
pub fn semantics(callee: &str) -> Option<Semantics> {
    lookup(callee).map(|c| c.semantics)
}

/// Is `callee` part of the POSIX threads API (modelled or not)?
pub fn is_pthread_api(callee: &str) -> bool {
    callee.starts_with(PTHREAD_PREFIX)
}

/// Writes the call no program memory (beyond its sync objects)? Calls not
/// in the table may write anything.
pub fn writes_no_memory(callee: &str) -> bool {
    lookup(callee).is_some_and(|c| c.footprint.writes_memory == Writes::Nothing)
}

/// Is the call thread-local (see [`Footprint::thread_local`])?
pub fn is_thread_local(callee: &str) -> bool {
    lookup(callee).is_some_and(|c| c.footprint.thread_local)
}

#[cfg(test)]
mod tests {
    use super::{
        is_thread_local, lookup, role, semantics, writes_no_memory, Exact, Prefix, Role, CALLS,
        COND_MUTEX_ARGS, P, V,
    };
    use super::{Pthread, Verifier};

    #[test]
    fn names_are_unique_and_prefixes_do_not_overlap() {
        let mut seen = std::collections::HashSet::new();
        for c in CALLS {
            let n = match c.name {
                Exact(n) | Prefix(n) => n,
            };
            assert!(seen.insert(n), "{n} has two rows");
        }
        let prefixes: Vec<&str> = CALLS
            .iter()
            .filter_map(|c| match c.name {
                Prefix(p) => Some(p),
                Exact(_) => None,
            })
            .collect();
        for a in &prefixes {
            for b in &prefixes {
                assert!(a == b || !b.starts_with(a), "{a} is a prefix of {b}");
            }
        }
        for c in CALLS {
            if let Exact(n) = c.name {
                assert!(
                    !prefixes.iter().any(|p| n.starts_with(p)),
                    "{n} is shadowed by a prefix row"
                );
            }
        }
    }

    /// The classification the fact extractor had before the table
    /// (golden facts depend on it).
    #[test]
    fn roles_match_the_extractors_classification() {
        let cases: &[(&str, Role)] = &[
            ("pthread_create", Role::ThreadCreate),
            ("pthread_join", Role::ThreadJoin),
            ("pthread_mutex_lock", Role::MutexLock),
            ("pthread_spin_lock", Role::MutexLock),
            ("pthread_mutex_unlock", Role::MutexUnlock),
            ("pthread_spin_unlock", Role::MutexUnlock),
            ("pthread_mutex_trylock", Role::MutexTrylock),
            ("pthread_spin_trylock", Role::MutexTrylock),
            ("pthread_cond_wait", Role::CondWait),
            ("pthread_cond_timedwait", Role::CondWait),
            ("pthread_cond_signal", Role::CondSignal),
            ("pthread_cond_broadcast", Role::CondBroadcast),
            ("__assert_fail", Role::AssertFail),
            ("__assert_rtn", Role::AssertFail),
            ("__VERIFIER_error", Role::AssertFail),
            ("reach_error", Role::AssertFail),
            ("__assert", Role::Other),
            ("mmap64", Role::Alloc),
            ("strndup", Role::Alloc),
            ("reallocarray", Role::Realloc),
            ("clone", Role::UnmodelledThreads),
            ("pthread_rwlock_rdlock", Role::UnmodelledSync),
            ("sem_post", Role::UnmodelledSync),
            ("pthread_barrier_wait", Role::UnmodelledSync),
            ("sem_init", Role::UnmodelledSyncSetup),
            ("llvm.dbg.declare", Role::Debug),
            ("llvm.lifetime.start.p0", Role::Debug),
            ("llvm.memcpy.p0.p0.i64", Role::MemCopy),
            ("llvm.memmove.p0.p0.i64", Role::MemCopy),
            ("llvm.memset.p0.i64", Role::Other),
            ("pthread_mutex_init", Role::Other),
            ("pthread_spin_init", Role::Other),
            ("free", Role::Other),
            ("my_function", Role::Other),
        ];
        for (name, want) in cases {
            assert_eq!(role(name), *want, "{name}");
        }
    }

    #[test]
    fn spin_locks_are_mutexes_and_timed_waits_are_modelled() {
        assert_eq!(semantics("pthread_spin_lock"), Some(Pthread(P::MutexLock)));
        assert_eq!(
            semantics("pthread_spin_trylock"),
            Some(Pthread(P::MutexTrylock))
        );
        assert_eq!(
            semantics("pthread_cond_timedwait"),
            Some(Pthread(P::CondTimedWait))
        );
        assert_eq!(
            semantics("__VERIFIER_nondet_int"),
            Some(Verifier(V::Nondet))
        );
        assert_eq!(semantics("strnlen"), None);
    }

    #[test]
    fn footprints_say_what_is_synchronised_and_written() {
        let wait = lookup("pthread_cond_wait").unwrap().footprint;
        assert_eq!(wait.sync, COND_MUTEX_ARGS);
        assert!(wait.synchronises());
        assert!(lookup("pthread_join").unwrap().footprint.synchronises());
        assert!(!lookup("pthread_self").unwrap().footprint.synchronises());
        let memcpy = lookup("memcpy").unwrap().footprint;
        assert_eq!(
            (memcpy.reads, memcpy.writes),
            (&[1usize][..], &[0usize][..])
        );
        assert!(writes_no_memory("pthread_mutex_lock"));
        assert!(writes_no_memory("__VERIFIER_nondet_uint"));
        assert!(!writes_no_memory("pthread_create"));
        assert!(!writes_no_memory("unknown_library_call"));
        assert!(is_thread_local("printf"));
        assert!(!is_thread_local("fprintf"));
        assert!(!is_thread_local("pthread_mutex_lock"));
    }

    /// One file names the pthread calls: this one.
    #[test]
    fn no_other_source_file_names_a_pthread_call() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let this = root.join("calls.rs");
        let mut offenders = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") && path != this {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for (k, line) in text.lines().enumerate() {
                        if line.contains("\"pthread_") {
                            offenders.push(format!("{}:{}: {line}", path.display(), k + 1));
                        }
                    }
                }
            }
        }
        assert!(
            offenders.is_empty(),
            "pthread call names outside src/calls.rs:\n{}",
            offenders.join("\n")
        );
    }
}
