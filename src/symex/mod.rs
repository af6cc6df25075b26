//! Lean symbolic executor for pthread programs (`concord symex`).
//!
//! The executor interprets an [`llvm_ir::Module`] directly.  Integers are z3
//! bit-vectors of their exact width (i1 is a 1-bit vector); pointers are
//! 96-bit vectors `object id (32 bits) ++ offset (64 bits)`.  Threads are
//! scheduled at *visible* operations (shared-memory accesses and blocking
//! synchronisation); thread-local branches whose both sides are feasible are
//! b-PPs.  See `docs/symex.md` for the semantics, the CLI and the limits.
//!
//! ```no_run
//! # fn f(m: &llvm_ir::Module) -> Result<(), concord::symex::SymexError> {
//! use concord::symex::{explore, Reduction, SymexOptions};
//! let opts = SymexOptions { reduction: Reduction::DporAg, ..Default::default() };
//! let result = explore(m, &opts)?;
//! println!("{} complete runs, {} findings", result.stats.complete_runs, result.findings.len());
//! # Ok(()) }
//! ```

pub mod carry_over;
pub mod diff_directed;
pub mod directed;
mod engine;
pub mod first_pass;
pub mod incremental;
pub mod interference;
pub mod output;
pub mod slice;
pub mod store;
pub mod testutil;

pub use engine::{instructions_at, MemberNames};
pub use engine::{
    DiffTargets, RfEvent, RfWriter, ThreadOrigin, ViolatingClass, MAX_VIOLATING_CLASSES,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which reduction the exploration uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Reduction {
    /// Algorithm 1 of the paper: every thread-local path and every interleaving.
    #[default]
    None,
    /// Flanagan–Godefroid dynamic partial-order reduction with sleep sets.
    Dpor,
    /// DPOR plus assertion-guided pruning (Algorithm 2, §5.2, §6).
    DporAg,
    /// Optimal DPOR: source sets and wakeup trees (Abdulla et al., POPL 2014).
    Odpor,
    /// Optimal DPOR plus assertion-guided pruning.
    OdporAg,
}

impl std::str::FromStr for Reduction {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Reduction::None),
            "dpor" => Ok(Reduction::Dpor),
            "dpor+ag" | "ag" => Ok(Reduction::DporAg),
            "odpor" => Ok(Reduction::Odpor),
            "odpor+ag" => Ok(Reduction::OdporAg),
            o => Err(format!(
                "unknown reduction `{o}` (none, dpor, dpor+ag, odpor, odpor+ag)"
            )),
        }
    }
}

impl std::fmt::Display for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reduction::None => "none",
            Reduction::Dpor => "dpor",
            Reduction::DporAg => "dpor+ag",
            Reduction::Odpor => "odpor",
            Reduction::OdporAg => "odpor+ag",
        })
    }
}

/// Options of one exploration.
#[derive(Clone, Debug)]
pub struct SymexOptions {
    pub reduction: Reduction,
    /// A basic block may be entered at most `loop_bound + 1` times per
    /// function activation; paths going further are cut and counted.
    pub loop_bound: u32,
    /// Stop after this many runs (complete + error + cut + deadlock + partial).
    pub max_runs: Option<u64>,
    /// Stop after this many seconds.
    pub max_seconds: Option<f64>,
    /// Number of entries of the bounded summary table (§6.2).
    pub summary_table_size: usize,
    /// Maximal number of weakest preconditions merged into one summary (§6.2).
    pub summary_max_merges: u32,
    /// Use the static slice of the assertions (§6.1) in dpor+ag mode.
    pub slice: bool,
    /// Print progress on stderr.
    pub progress: bool,
    /// Replay: follow this thread schedule (thread ids at scheduling points).
    pub schedule: Option<Vec<usize>>,
    /// Replay: concrete values of the symbolic inputs, by name.
    pub inputs: Option<BTreeMap<String, u64>>,
    /// Entry function.
    pub entry: String,
    /// Iterative deepening: while runs are cut (and nothing else stopped
    /// the search), explore again with twice the loop bound, up to this
    /// bound.  `None`: one exploration with `loop_bound`.
    pub max_loop_bound: Option<u32>,
    /// Command line of the entry function: `argc` is its length and `argv`
    /// its strings followed by NULL (default: one program name).
    pub args: Vec<String>,
    /// Time for the deepening stages after the first when `max_seconds`
    /// is not set (the first stage is not limited).
    pub deepening_seconds: f64,
    /// +CIA (`symex OLD NEW`): the impacted instructions of this module.
    /// Branches and accesses that no impacted finding depends on are
    /// pruned in every reduction mode (see [`incremental`]).
    pub impacted: Option<std::sync::Arc<std::collections::BTreeSet<slice::InstrId>>>,
    /// The summary store (dpor+ag): read and/or write summaries.
    pub store: Option<store::StoreOptions>,
    /// Interference bound (con2colic): a path whose transitions read more
    /// than this many values written by another thread ends there.
    pub max_interferences: Option<u32>,
    /// With `max_interferences`: only the cross-thread read-from edges
    /// `rf_may` allows are tried (see [`interference`]).
    pub rf_may: Option<std::sync::Arc<interference::RfMay>>,
    /// Directed mode (DiSE): record the decisions at these branches per
    /// path and explore impacted code first (see [`directed`]).
    pub directed: Option<std::sync::Arc<directed::DirectedSpec>>,
    /// Diff-directed mode (`symex OLD NEW`): explore every continuation
    /// only while a target can still be realised (see [`diff_directed`]).
    pub diff_targets: Option<std::sync::Arc<engine::DiffTargets>>,
    /// C names of the program's struct types (its debug information,
    /// `output::member_names`): traces name fields by them (`pool.lock`
    /// rather than `pool.2`).
    pub member_names: Option<std::sync::Arc<MemberNames>>,
    /// Which enabled thread a scheduling node tries first (the complete
    /// search keeps the default; the first pass tries others).
    pub thread_order: engine::ThreadOrder,
    /// Before the complete search, a few short searches under other
    /// thread orders ([`first_pass`]): violations that need a schedule
    /// far from the complete search's first runs are found early.
    pub first_pass: bool,
    /// Keep every path that ends in a violation with the read-from edges
    /// it realised (`Exploration::violating_classes`; the carry-over of a
    /// fix, [`carry_over`]).
    pub rf_classes: bool,
    /// With `rf_classes`: the locations (`file:line:col`) of every
    /// violation a complete exploration of the program found. The slice is
    /// then theirs alone: other findings never fail, so they are only
    /// control criteria, and accesses and mutexes outside it are left out
    /// of the dependence and of the classes' edges (docs/symex.md,
    /// "Carry-over of a fix").
    pub violated_slice: Option<std::sync::Arc<std::collections::BTreeSet<String>>>,
}

impl Default for SymexOptions {
    fn default() -> Self {
        SymexOptions {
            // What `concord symex` uses unless told otherwise (its clap
            // defaults are read from here): exhaustive exploration is the
            // baseline the tests compare against, not a sensible default.
            reduction: Reduction::DporAg,
            loop_bound: 3,
            max_runs: None,
            max_seconds: None,
            summary_table_size: 1 << 16,
            summary_max_merges: 256,
            slice: true,
            progress: false,
            schedule: None,
            inputs: None,
            entry: "main".into(),
            max_loop_bound: None,
            deepening_seconds: 60.0,
            args: vec!["program".into()],
            impacted: None,
            store: None,
            max_interferences: None,
            rf_may: None,
            directed: None,
            diff_targets: None,
            member_names: None,
            thread_order: engine::ThreadOrder::default(),
            first_pass: true,
            rf_classes: false,
            violated_slice: None,
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// `assert` / `__assert_fail` / `__VERIFIER_assert` failed.
    Assertion,
    /// `reach_error()` or `__VERIFIER_error()` reached.
    ErrorCall,
    /// `abort()` outside an assume helper.
    Abort,
    /// No thread can move but some have not finished.
    Deadlock,
    /// Null, dangling or out-of-bounds access, bad free, bad lock use.
    MemoryError,
    /// An instruction or library call the executor does not model.
    Unsupported,
}

impl FindingKind {
    /// Is this a property violation (as opposed to a limitation)?
    pub fn is_violation(self) -> bool {
        !matches!(self, FindingKind::Unsupported)
    }
}

/// One symbolic input with the value of the witness.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputValue {
    pub name: String,
    pub bits: u32,
    pub value: u64,
}

/// A finding with a witness (inputs + schedule).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// `file:line:col` (or `function:block` without debug info).
    pub location: String,
    pub line: u32,
    pub function: String,
    pub message: String,
    pub thread: usize,
    pub inputs: Vec<InputValue>,
    /// Thread chosen at each scheduling point, from the start.
    pub schedule: Vec<usize>,
    /// How many explored paths reached this finding.
    pub hits: u64,
    /// With `--max-interferences`: cross-thread read-from interferences on
    /// the path up to the transition before the finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interferences: Option<u32>,
    /// The run step by step (each visible operation), first step first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceStep>,
}

/// One visible step of a run, as a person reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceStep {
    /// 1-based.
    pub step: usize,
    pub thread: usize,
    /// `file:line:col` (or the function without debug info).
    pub location: String,
    pub line: u32,
    /// `read x = 3`, `write x = 4`, `lock m`, `wait c (releases m)`, ...
    pub op: String,
    /// Mutexes held after the step, `m by T1`.
    pub locks: Vec<String>,
}

impl std::fmt::Display for TraceStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:>4}  T{:<2} {:<28} {}",
            self.step, self.thread, self.location, self.op
        )?;
        if !self.locks.is_empty() {
            write!(f, "   [held: {}]", self.locks.join(", "))?;
        }
        Ok(())
    }
}

/// Counters of one exploration.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Runs that ended normally (every thread finished).
    pub complete_runs: u64,
    /// Runs that ended in a finding.
    pub error_runs: u64,
    /// Early terminations by assertion-guided pruning (partial runs).
    pub partial_runs: u64,
    /// Of the partial runs, those cut at a b-PP.
    pub pruned_branches: u64,
    /// Enabled threads not explored at scheduling points (DPOR) plus
    /// scheduling points whose whole subtree was pruned by a summary.
    pub pruned_interleavings: u64,
    /// Runs ending because every enabled thread was in the sleep set.
    pub sleep_blocked: u64,
    /// Runs in which a thread was cut at the loop bound (or the step
    /// limit); the other threads ran on until nobody could move.
    pub cut_runs: u64,
    /// Paths ending in an infeasible assumption (`__VERIFIER_assume`).
    pub assume_false: u64,
    pub solver_queries: u64,
    pub solver_ms: f64,
    pub total_ms: f64,
    pub peak_memory_kb: u64,
    pub summaries: u64,
    /// Statements in the static slice (0 when not computed).
    pub slice_size: u64,
    /// Branches outside the slice where only one side was explored (Type B).
    pub slice_skipped_branches: u64,
    /// Summaries read from the store, used at matching states, and
    /// written to it (writes of a summary that grew count again).
    #[serde(default)]
    pub summaries_imported: u64,
    #[serde(default)]
    pub summaries_reused: u64,
    #[serde(default)]
    pub summaries_stored: u64,
    /// Paths ended by the interference bound, and the bound.
    #[serde(default)]
    pub interference_cut_runs: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_interferences: Option<u32>,
    /// Paths ended because they made an interference `rf_may` does not
    /// allow (the rules say it cannot happen; it is not tried).
    #[serde(default)]
    pub rf_disallowed_runs: u64,
    /// Diff-directed mode: runs that realised a target, and states where
    /// none could be realised any more (one continuation explored).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub diff_target_runs: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub diff_dead_nodes: u64,
    /// The first pass ([`first_pass`]): its runs, apart from the complete
    /// search's (every other counter is the complete search's).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub first_pass_runs: u64,
    /// Stopped by max_runs / max_seconds.
    pub incomplete: bool,
    /// Threads stopped at the loop bound, the call depth or the step
    /// limit, by location (`file:line:col` of the loop header or call).
    pub cut_locations: BTreeMap<String, u64>,
    /// The limit that stopped the exploration (`incomplete`), if any.
    pub budget: Option<String>,
    /// The loop bound of the (last) exploration, and every bound tried
    /// by iterative deepening, in order.
    pub loop_bound: u32,
    pub loop_bounds_tried: Vec<u32>,
    /// Replay only: why the test case does not fit the program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_mismatch: Option<String>,
    /// The answer, and why it is not `verified` when it is not.
    pub verdict: Verdict,
    pub reasons: Vec<Reason>,
}

/// The answer of an exploration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A violation was found (exit 1).
    Violation,
    /// Every run was explored to its end: nothing cut, nothing
    /// unsupported, no budget hit (exit 0).
    Verified,
    /// No violation found, but the search was not complete (exit 10);
    /// `reasons` says why.
    #[default]
    Inconclusive,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Violation => "violation",
            Verdict::Verified => "verified",
            Verdict::Inconclusive => "inconclusive",
        })
    }
}

/// A place and how many times something happened there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocCount {
    pub location: String,
    pub count: u64,
}

/// Why an exploration is not a proof.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum Reason {
    /// Threads were stopped at the loop bound (or call depth, step limit):
    /// violations needing more iterations may be missed.
    Cut {
        loop_bound: u32,
        runs: u64,
        locations: Vec<LocCount>,
    },
    /// Paths ended at constructs the executor does not model.
    Unsupported {
        paths: u64,
        locations: Vec<LocCount>,
    },
    /// `--max-runs` or `--max-time` stopped the search.
    Budget { limit: String },
    /// No execution reached the end of the program (e.g. every path
    /// failed an assumption): nothing was checked.
    Vacuous { assume_false: u64 },
    /// `--max-interferences`: paths needing more cross-thread read-from
    /// interferences were not explored.
    Interferences {
        max: u32,
        runs: u64,
        /// Paths ended at an interference `rf_may` does not allow.
        #[serde(default)]
        rf_disallowed: u64,
    },
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let locs = |l: &[LocCount]| {
            let mut s: Vec<String> = l
                .iter()
                .take(5)
                .map(|x| format!("{} ({}x)", x.location, x.count))
                .collect();
            if l.len() > 5 {
                s.push(format!("and {} more", l.len() - 5));
            }
            s.join(", ")
        };
        match self {
            Reason::Cut {
                loop_bound,
                runs,
                locations,
            } => write!(
                f,
                "{runs} runs cut at loop bound {loop_bound}, at {}",
                locs(locations)
            ),
            Reason::Unsupported { paths, locations } => write!(
                f,
                "{paths} paths ended at unsupported constructs, at {}",
                locs(locations)
            ),
            Reason::Budget { limit } => write!(f, "stopped by {limit}"),
            Reason::Interferences {
                max,
                runs,
                rf_disallowed,
            } => {
                write!(
                    f,
                    "{runs} paths stopped at the interference bound {max} (bug-finding mode)"
                )?;
                if *rf_disallowed > 0 {
                    write!(
                        f,
                        ", {rf_disallowed} at an interference rf_may does not allow"
                    )?;
                }
                Ok(())
            }
            Reason::Vacuous { assume_false } => write!(
                f,
                "no execution reached the end of the program ({assume_false} paths failed an assumption)"
            ),
        }
    }
}

impl Stats {
    /// Runs as counted in the paper: every explored execution that reached
    /// an end (normal, error, cut at the bound, infeasible assumption).
    /// Early terminations (`partial_runs`) and sleep-set blocked prefixes
    /// (`sleep_blocked`) are reported separately.
    pub fn runs(&self) -> u64 {
        self.complete_runs + self.error_runs + self.cut_runs + self.assume_false
    }
}

impl Exploration {
    /// Decide the verdict from the findings and counters (stored in
    /// `stats.verdict` / `stats.reasons` by [`explore`]).
    pub fn decide(&self, loop_bound: u32) -> (Verdict, Vec<Reason>) {
        let s = &self.stats;
        let mut reasons = Vec::new();
        if !s.cut_locations.is_empty() || s.cut_runs > 0 {
            let mut locations: Vec<LocCount> = s
                .cut_locations
                .iter()
                .map(|(l, c)| LocCount {
                    location: l.clone(),
                    count: *c,
                })
                .collect();
            locations.sort_by(|a, b| b.count.cmp(&a.count).then(a.location.cmp(&b.location)));
            reasons.push(Reason::Cut {
                loop_bound,
                runs: s.cut_runs,
                locations,
            });
        }
        let unsupported: Vec<&Finding> = self
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::Unsupported)
            .collect();
        if !unsupported.is_empty() {
            reasons.push(Reason::Unsupported {
                paths: unsupported.iter().map(|f| f.hits).sum(),
                locations: unsupported
                    .iter()
                    .map(|f| LocCount {
                        location: format!("{} ({})", f.location, f.message),
                        count: f.hits,
                    })
                    .collect(),
            });
        }
        if let (Some(max), true) = (
            s.max_interferences,
            s.interference_cut_runs + s.rf_disallowed_runs > 0,
        ) {
            reasons.push(Reason::Interferences {
                max,
                runs: s.interference_cut_runs,
                rf_disallowed: s.rf_disallowed_runs,
            });
        }
        if s.incomplete {
            reasons.push(Reason::Budget {
                limit: s.budget.clone().unwrap_or_else(|| "a limit".into()),
            });
        }
        let violation = self.findings.iter().any(|f| f.kind.is_violation());
        if !violation && reasons.is_empty() && s.complete_runs + s.partial_runs == 0 {
            reasons.push(Reason::Vacuous {
                assume_false: s.assume_false,
            });
        }
        let verdict = if violation {
            Verdict::Violation
        } else if reasons.is_empty() {
            Verdict::Verified
        } else {
            Verdict::Inconclusive
        };
        (verdict, reasons)
    }
}

/// Result of [`explore`].
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Exploration {
    pub findings: Vec<Finding>,
    pub stats: Stats,
    /// Directed mode: every path's decisions at the recorded branches, in
    /// the order the paths ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<directed::DecisionPath>,
    /// With `rf_classes`: every path that ended in a violation, with the
    /// read-from edges it realised (see `engine::ViolatingClass`).
    #[serde(default, skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub violating_classes: Vec<engine::ViolatingClass>,
}

impl Exploration {
    /// Locations of violations (not `unsupported`), sorted, deduplicated.
    pub fn violation_locations(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .findings
            .iter()
            .filter(|f| f.kind.is_violation())
            .map(|f| f.location.clone())
            .collect();
        v.sort();
        v.dedup();
        v
    }
    /// Source lines of violations, sorted, deduplicated.
    pub fn violation_lines(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .findings
            .iter()
            .filter(|f| f.kind.is_violation())
            .map(|f| f.line)
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// Errors that stop an exploration before it starts.
#[derive(Debug, thiserror::Error)]
pub enum SymexError {
    #[error("entry function `{0}` not found")]
    NoEntry(String),
    #[error("test case does not match the program: {0}")]
    Mismatch(String),
    #[error("the explorer crashed: {0}")]
    Internal(String),
    #[error("{0}")]
    Other(String),
}

/// Explore `module` from its entry function.
pub fn explore(module: &llvm_ir::Module, opts: &SymexOptions) -> Result<Exploration, SymexError> {
    explore_with(module, opts, &mut |_, _| {})
}

/// [`explore`], handing each new finding to `on_finding` (with the loop
/// bound it was found under) as soon as it is found, so that a killed run
/// keeps what it found.
pub fn explore_with(
    module: &llvm_ir::Module,
    opts: &SymexOptions,
    on_finding: &mut dyn FnMut(&Finding, u32),
) -> Result<Exploration, SymexError> {
    let start = std::time::Instant::now();
    // The first pass streams its violations as it finds them; the complete
    // search does not stream them a second time.
    let first = if first_pass::applies(opts) {
        Some(first_pass::run(module, opts, &mut |f| {
            on_finding(f, opts.loop_bound)
        })?)
    } else {
        None
    };
    let streamed = first.as_ref().map(|f| f.places()).unwrap_or_default();
    let mut on_finding = |f: &Finding, bound: u32| {
        if !streamed.contains(&(f.kind, f.location.clone())) {
            on_finding(f, bound)
        }
    };
    // The budget covers both passes.
    let mut rest = opts.clone();
    if let Some(ms) = opts.max_seconds {
        rest.max_seconds = Some((ms - start.elapsed().as_secs_f64()).max(0.0));
    }
    let mut x = explore_deepening(module, &rest, &mut on_finding)?;
    if let Some(first) = first {
        first.merge_into(&mut x);
    }
    Ok(x)
}

/// The complete search: explore under `opts.loop_bound`, deepening the
/// bound while cuts are the one reason not to conclude.
fn explore_deepening(
    module: &llvm_ir::Module,
    opts: &SymexOptions,
    on_finding: &mut dyn FnMut(&Finding, u32),
) -> Result<Exploration, SymexError> {
    let start = std::time::Instant::now();
    let mut o = opts.clone();
    let mut tried = Vec::new();
    loop {
        let bound = o.loop_bound;
        tried.push(bound);
        // The store is opened for each stage, as the engine's notes are
        // printed: on stderr, as they come.
        let summaries: Option<Box<dyn engine::SummaryStore>> =
            match store::SqliteSummaries::for_exploration(&o) {
                Ok(s) => s.map(|s| Box::new(s) as Box<dyn engine::SummaryStore>),
                Err(e) => {
                    eprintln!("concord: warning: summaries not stored: {e}");
                    None
                }
            };
        let mut x = engine::run(
            module,
            &o,
            summaries,
            &mut |f| on_finding(f, bound),
            &mut |n| eprintln!("{n}"),
        )?;
        x.stats.loop_bound = bound;
        x.stats.loop_bounds_tried = tried.clone();
        // Deepen only when cuts are the one reason not to conclude: a
        // violation, an unsupported construct or a budget would stay.
        let only_cuts = x.stats.verdict == Verdict::Inconclusive
            && x.stats
                .reasons
                .iter()
                .all(|r| matches!(r, Reason::Cut { .. }));
        let next = match o.max_loop_bound {
            Some(max) if only_cuts && bound < max => bound.saturating_mul(2).min(max),
            _ => return Ok(x),
        };
        let limit = opts
            .max_seconds
            .unwrap_or(x.stats.total_ms / 1000.0 + o.deepening_seconds);
        let left = limit - start.elapsed().as_secs_f64();
        if left <= 0.0 {
            return Ok(x);
        }
        o.loop_bound = next;
        o.max_seconds = Some(left);
    }
}
