//! The exploration engine, one concept per module:
//!
//! * `state`: threads, frames, objects, the per-path state;
//! * `values`: types, constants, pointers and operands as z3 bit-vectors;
//! * `memory`: objects and cells, checked loads and stores;
//! * `solver`: satisfiability checks and witness models;
//! * `interp`: one instruction at a time (sequential semantics);
//! * `models`: library calls (pthread, verifier, libc, LLVM intrinsics);
//! * `visibility`: which operations are visible (scheduling points), statically and dynamically;
//! * `transitions`: accesses, dependence, the stack of scheduling nodes, vector clocks;
//! * `strategy`: the exploration strategies (full, DPOR, ODPOR) and the
//!   pruning (assertion-guided) behind two traits, one per file;
//! * `summary`: weakest preconditions and the summary table (assertion-guided pruning);
//! * `persist`, `fingerprint`: summaries across runs and versions (the store's engine side);
//! * `directed`, `interference`: directed search and the interference bound, layered on any strategy;
//! * `explore`: the scheduler, a depth-first search over paths and
//!   interleavings that asks the strategy which threads to try.

use super::{Exploration, Finding, FindingKind, Stats, SymexError, SymexOptions};
use llvm_ir::instruction as ins;
use llvm_ir::{HasDebugLoc, Module, Name};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;
use z3::ast::Bool;
use z3::{Context, Solver};

mod diff_targets;
mod directed;
mod explore;
mod fasthash;
mod fingerprint;
mod interference;
mod interp;
mod memory;
mod models;
mod notes;
mod persist;
mod place_names;
mod rf_classes;
mod solver;
mod state;
mod strategy;
mod summary;
mod summary_store;
mod term;
mod thread_order;
mod trace;
mod transitions;
mod tripcount;
mod val;
mod values;
mod visibility;
mod wide;

pub use diff_targets::{DiffTargets, TargetEdge, TargetWriter};
pub use directed::{Decision, DecisionPath, DirectedSpec, PathEnd};
use fasthash::{FastMap, FastSet};
pub use interference::RfMay;
pub use notes::Note;
pub use place_names::MemberNames;
pub use rf_classes::{RfEvent, RfWriter, ThreadOrigin, ViolatingClass, MAX_VIOLATING_CLASSES};
use state::Obj;
use strategy::{ExplorationStrategy, Pruning};
use summary::{PsEntry, SimpCache};
pub use summary_store::{StoredAccess, StoredRes, StoredSummary, SummaryStore};
pub use thread_order::{BaseOrder, ThreadOrder};
use transitions::{Access, DNode};
use val::Cond;

/// Width of a pointer value: 32-bit object id ++ 64-bit offset.
const PW: u32 = 96;
const MAX_STEPS: u64 = 200_000;
/// Threads a run may have (main included); a `pthread_create` past it
/// cuts the creating thread (reason `cut`, at the call).
const MAX_THREADS: usize = 64;

type Addr = (u32, u64);

enum Step<'c> {
    Continue,
    /// Transition ends here (blocked, waiting).
    Yield,
    Fork {
        alts: Vec<(Bool<'c>, Cond<'c>, usize)>,
    },
}

/// Why a thread's path stops: typed, so that callers match on the reason
/// instead of comparing strings.
#[derive(Debug)]
enum Stop {
    /// A finding (violation or bad API use) ends the path.
    Finding(FindingKind, String),
    /// The path condition became unsatisfiable (an assumption failed).
    AssumeFalse,
    /// The loop bound, the call depth or the step limit was reached.
    Cut,
    /// A construct the executor does not model (instruction, call, value).
    Unsupported(String),
}

impl From<&str> for Stop {
    fn from(s: &str) -> Self {
        Stop::Unsupported(s.to_string())
    }
}

impl From<String> for Stop {
    fn from(s: String) -> Self {
        Stop::Unsupported(s)
    }
}

/// Result of interpreting one instruction.
type R<'c> = Result<Step<'c>, Stop>;

/// The state variables (name, width) a summary formula names.
type SVars = Rc<Vec<(String, u32)>>;

struct Engine<'c, 'm> {
    ctx: &'c Context,
    m: &'m Module,
    solver: Solver<'c>,
    /// The solver's asserted path condition and the result cache.
    inc: solver::Incremental<'c>,
    /// State variables of each summary formula checked so far (`None`:
    /// it names an input, so it is never implied).
    svars_cache: HashMap<Bool<'c>, Option<SVars>>,
    /// State variables a weakest precondition names (`None`: quantified).
    fv_cache: HashMap<Bool<'c>, Option<SVars>>,
    /// `with_known` per (summary, known).
    known_cache: HashMap<(Bool<'c>, bool), Bool<'c>>,
    /// Simplified summary formulas by term.
    simp: SimpCache<'c>,
    opts: SymexOptions,
    bbidx: Vec<FastMap<Name, usize>>,
    fidx: FastMap<String, usize>,
    globals: FastMap<Name, u32>,
    init_objs: Vec<Rc<Obj<'c>>>,
    stats: Stats,
    findings: Vec<Finding>,
    fseen: HashMap<(FindingKind, String), usize>,
    nodes: Vec<DNode>,
    /// Nodes whose subtree is being explored: key and the index of the
    /// first transition of the subtree (`open_push`).
    open: Vec<(u64, usize)>,
    /// RVar/WVar per node key: each access below it (thread, access) with
    /// the threads whose state at the node happens before it within the
    /// subtree (bit r; `commit`).
    rw: FastMap<u64, FastMap<(usize, Access), u64>>,
    ps: FastMap<usize, PsEntry<'c>>,
    /// Which interleavings are tried (none, dpor, odpor; `strategy`).
    strategy: &'static dyn ExplorationStrategy,
    /// Which subtrees summaries prune (assertion-guided, or none).
    pruning: &'static dyn Pruning,
    /// `pruning.computes_wp()`, read on every instruction: state
    /// variables are tracked and segments recorded for weakest
    /// preconditions.
    track_wp: bool,
    start: Instant,
    stop: bool,
    last_progress: Instant,
    slice: Option<crate::symex::slice::Slice>,
    obj_global: FastMap<u32, Name>,
    /// Per function: may it (or a callee) perform a visible operation?
    fn_visible: Vec<bool>,
    /// `CONCORD_SYMEX_DEBUG` set: trace the exploration on stderr.
    debug: bool,
    /// Per function and block: may a visible operation be reached from it?
    bb_reach_visible: Vec<Vec<bool>>,
    /// Per function, block and instruction index: is any instruction from
    /// there to the end of the block possibly visible?
    suffix_visible: Vec<Vec<Vec<bool>>>,
    /// Allocas never stored or passed on, per function.
    private_allocas: Vec<FastSet<Name>>,
    /// Each new finding and each note is sent here as soon as it is made.
    sink: Option<std::sync::mpsc::Sender<Event>>,
    /// The summary store, when used (`persist`).
    persist: Option<persist::Persist<'c>>,
    /// Record each run's visible steps (for the findings' traces).
    trace: bool,
    /// Per function and block: entries allowed because every loop around
    /// the block has a constant trip count (0: the loop bound applies).
    trip_allow: Vec<Vec<u64>>,
    /// Directed mode (`--directed`): recorded decisions and the order.
    directed: Option<directed::Directed>,
    /// `rf_classes`: every path that ended in a violation, with its reads.
    violating_classes: Vec<ViolatingClass>,
    /// Diff-directed mode (`symex OLD NEW`): the targets' tables.
    diff: Option<diff_targets::DiffDirected>,
    /// Instructions whose result is wider than a value holds (`wide`).
    wide: FastMap<(usize, usize, usize), u32>,
    /// Where threads evaluate checks (`thread_order`; only computed for
    /// an order that puts checks last).
    check_points: thread_order::CheckPoints,
}

pub(super) fn loc_of(dl: &Option<llvm_ir::DebugLoc>) -> (String, u32) {
    match dl {
        Some(d) => {
            let file = match &d.directory {
                Some(dir) if !d.filename.starts_with('/') && !dir.is_empty() => {
                    format!("{dir}/{}", d.filename)
                }
                _ => d.filename.clone(),
            };
            (format!("{file}:{}:{}", d.line, d.col.unwrap_or(0)), d.line)
        }
        None => (String::new(), 0),
    }
}

fn name_str(n: &Name) -> String {
    match n {
        Name::Name(s) => s.to_string(),
        Name::Number(k) => k.to_string(),
    }
}

/// The directly called function's name (`crate::ir::callee_name`, owned).
fn callee_name(c: &ins::Call) -> Option<String> {
    crate::ir::callee_name(c).map(str::to_string)
}

/// What the explorer thread sends to the caller's thread while it runs.
enum Event {
    Finding(Finding),
    Note(Note),
}

/// Explore `m` (one loop bound), with the summary store `summaries` when
/// given (read and written by assertion-guided pruning); each new finding
/// goes to `on_finding` and each note (progress, warnings, debug traces)
/// to `on_note` as soon as they are made.
impl Engine<'_, '_> {
    /// Hand `note` to the caller (nobody listens outside `run`).
    fn note(&self, note: Note) {
        if let Some(tx) = &self.sink {
            let _ = tx.send(Event::Note(note));
        }
    }
}

pub(super) fn run(
    m: &Module,
    opts: &SymexOptions,
    summaries: Option<Box<dyn SummaryStore>>,
    on_finding: &mut dyn FnMut(&Finding),
    on_note: &mut dyn FnMut(&Note),
) -> Result<Exploration, SymexError> {
    // Reset the peak resident set size so that `peak_memory_kb` is about
    // this exploration (Linux; ignored elsewhere).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    // The explorer thread that starts takes the store (a thread that
    // fails to start leaves it for the next try).
    let summaries = std::sync::Mutex::new(summaries);
    let summaries = &summaries;
    std::thread::scope(|s| {
        // Deep recursion: the whole exploration runs on a thread with a
        // large stack (z3 objects are not Send, so they are created there).
        // The stack is reserved virtual memory: under `ulimit -v` a smaller
        // one is tried before giving up.
        let (tx, rx) = std::sync::mpsc::channel::<Event>();
        let mut spawned = None;
        let mut last_err = None;
        for stack in [1usize << 30, 1 << 28, 1 << 26] {
            let opts = opts.clone();
            let tx = tx.clone();

            match std::thread::Builder::new().stack_size(stack).spawn_scoped(
                s,
                move || -> Result<Exploration, SymexError> {
                    let cfg = z3::Config::new();
                    let ctx = Context::new(&cfg);
                    // Parses stored summaries; outlives the engine.
                    let loader = Solver::new(&ctx);
                    let mut e = Engine::new(&ctx, m, opts.clone())?;
                    e.sink = Some(tx);
                    let store = summaries.lock().ok().and_then(|mut s| s.take());
                    if let Some(store) = store {
                        e.persist_open(&loader, store);
                    }
                    let f0 = *e
                        .fidx
                        .get(&opts.entry)
                        .ok_or_else(|| SymexError::NoEntry(opts.entry.clone()))?;
                    // `--max-time` may already be over after the
                    // initialisation of globals: then nothing is explored.
                    if !e.stop {
                        let st = e.initial_state(f0);
                        e.run_thread(st, 0, false, Vec::new());
                    }
                    e.persist_flush(true);
                    Ok(e.finish())
                },
            ) {
                Ok(h) => {
                    spawned = Some(h);
                    break;
                }
                Err(e) => last_err = Some(e),
            }
        }
        drop(tx);
        let Some(h) = spawned else {
            return Err(SymexError::Internal(format!(
                "cannot start the explorer thread: {}",
                last_err.map(|e| e.to_string()).unwrap_or_default()
            )));
        };
        // Findings arrive while the explorer runs; the loop ends when its
        // sender is dropped (the exploration ended, or panicked).
        for ev in rx {
            match ev {
                Event::Finding(f) => on_finding(&f),
                Event::Note(n) => on_note(&n),
            }
        }
        h.join().map_err(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            SymexError::Internal(msg)
        })?
    })
}

impl<'c, 'm> Engine<'c, 'm> {
    fn new(ctx: &'c Context, m: &'m Module, opts: SymexOptions) -> Result<Self, SymexError> {
        let mut fidx = FastMap::default();
        let mut bbidx = Vec::new();
        for (i, f) in m.functions.iter().enumerate() {
            fidx.insert(f.name.clone(), i);
            bbidx.push(
                f.basic_blocks
                    .iter()
                    .enumerate()
                    .map(|(k, b)| (b.name.clone(), k))
                    .collect(),
            );
        }
        // Only replays record traces: exploring stays free of the
        // per-step bookkeeping (test cases get theirs by a replay).
        let trace = opts.schedule.is_some();
        let (strategy, pruning) = strategy::select(&opts);
        let mut e = Engine {
            ctx,
            m,
            solver: Solver::new(ctx),
            inc: solver::Incremental::new(),
            svars_cache: HashMap::new(),
            fv_cache: HashMap::new(),
            known_cache: HashMap::new(),
            simp: SimpCache::default(),
            strategy,
            pruning,
            track_wp: pruning.computes_wp(),
            opts,
            bbidx,
            fidx,
            globals: FastMap::default(),
            init_objs: Vec::new(),
            stats: Stats::default(),
            findings: Vec::new(),
            fseen: HashMap::new(),
            nodes: Vec::new(),
            open: Vec::new(),
            rw: FastMap::default(),
            ps: FastMap::default(),
            start: Instant::now(),
            stop: false,
            last_progress: Instant::now(),
            slice: None,
            obj_global: FastMap::default(),
            fn_visible: Vec::new(),
            debug: std::env::var_os("CONCORD_SYMEX_DEBUG").is_some(),
            bb_reach_visible: Vec::new(),
            suffix_visible: Vec::new(),
            private_allocas: Vec::new(),
            sink: None,
            persist: None,
            trace,
            trip_allow: m.functions.iter().map(tripcount::block_allowance).collect(),
            directed: None,
            violating_classes: Vec::new(),
            diff: None,
            wide: wide::wide_results(m),
            check_points: Default::default(),
        };
        if e.opts.thread_order.checks_last {
            e.check_points = thread_order::check_points(m);
        }
        e.directed = e
            .opts
            .directed
            .clone()
            .map(|d| directed::Directed::new(m, d));
        e.diff = e
            .opts
            .diff_targets
            .clone()
            .map(|t| diff_targets::DiffDirected::new(m, t));
        e.compute_tail_info();
        e.init_globals();
        if let Some(imp) = e.opts.impacted.clone() {
            // +CIA: the slice of the impacted findings, in every mode.
            let sl = crate::symex::slice::Slice::compute_with(
                m,
                crate::symex::slice::Criteria::Impacted {
                    impacted: &|id| imp.contains(&id),
                    entry: &e.opts.entry.clone(),
                },
            );
            e.stats.slice_size = sl.size() as u64;
            e.slice = Some(sl);
        } else if let (Some(t), true) = (&e.opts.diff_targets, e.opts.slice) {
            // Diff-directed: the slice of what the targets can reach, in
            // every mode (`engine/diff_targets.rs`).
            let sl = diff_targets::slice(m, t, &e.opts.entry);
            e.stats.slice_size = sl.size() as u64;
            e.slice = Some(sl);
        } else if let (Some(locs), true) = (&e.opts.violated_slice, e.opts.slice) {
            let sl = violated_slice(m, locs, &e.opts.entry);
            e.stats.slice_size = sl.size() as u64;
            e.slice = Some(sl);
        } else if e.track_wp && e.opts.slice {
            let sl = crate::symex::slice::Slice::compute(m);
            e.stats.slice_size = sl.size() as u64;
            e.slice = Some(sl);
        }
        Ok(e)
    }
}

use crate::ir::constant_int_value as const_int;

/// The slice of the violations found at `locs` (`file:line:col`): every
/// instruction there is a criterion, and the findings they cannot reach
/// are control-only (they never fail: `SymexOptions::violated_slice`).
fn violated_slice(
    m: &Module,
    locs: &std::collections::BTreeSet<String>,
    entry: &str,
) -> crate::symex::slice::Slice {
    let at = instructions_at(m, locs);
    crate::symex::slice::Slice::compute_with(
        m,
        crate::symex::slice::Criteria::Directed {
            sources: &at,
            also: &at,
            entry,
            unreached_pass: true,
        },
    )
}

/// The instructions (terminators included) whose source location, as
/// findings print it (`file:line:col`), is one of `locs`.
pub fn instructions_at(
    m: &Module,
    locs: &std::collections::BTreeSet<String>,
) -> std::collections::BTreeSet<crate::symex::slice::InstrId> {
    let mut at = std::collections::BTreeSet::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.basic_blocks.iter().enumerate() {
            let dls = b
                .instrs
                .iter()
                .map(|i| i.get_debug_loc())
                .chain([b.term.get_debug_loc()]);
            for (ii, dl) in dls.enumerate() {
                if dl.is_some() && locs.contains(&loc_of(dl).0) {
                    at.insert((fi, bi, ii));
                }
            }
        }
    }
    at
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|x| x.parse().ok()))
        })
        .unwrap_or(0)
}
