//! The first pass: a few short searches under other thread orders before
//! the complete search (issue 29's needles).
//!
//! The complete search tries the interleavings depth first from one first
//! run; a violation that needs a schedule far from it (two threads that
//! must strictly alternate, a check that must come after every update) is
//! reached late or not at all within a budget.  Each order of the
//! portfolio ([`ORDERS`]) makes a different kind of schedule the first run,
//! and its search is capped ([`RUNS_PER_ORDER`], [`SECONDS_PER_ORDER`]).
//!
//! The first pass only finds violations: each is a run of the program
//! (its test case replays it), so it is real.  It never decides a
//! verdict by itself: the complete search runs afterwards, unchanged, and
//! is the one that proves `verified`; its findings come first, and a
//! violation of the first pass is added only when the complete search did
//! not find one at the same place (it ran out of budget).  The first
//! pass's runs are counted apart (`Stats::first_pass_runs`).

use super::engine::{self, BaseOrder, ThreadOrder};
use super::{Exploration, Finding, FindingKind, SymexError, SymexOptions};
use std::collections::HashSet;
use std::time::Instant;

/// The orders tried, in turn (chosen by measurement, docs/symex.md,
/// "Needles").
pub const ORDERS: [ThreadOrder; 2] = [
    // Threads take turns (least recently run first), a read-modify-write
    // made of plain loads and a store runs whole, and every check comes as
    // late as possible: strict alternation of updates, then the check.
    ThreadOrder {
        base: BaseOrder::LeastRecent,
        keep_reading: true,
        checks_last: true,
    },
    // The same with checks in program order (a check that must come
    // early).
    ThreadOrder {
        base: BaseOrder::LeastRecent,
        keep_reading: true,
        checks_last: false,
    },
];

/// Runs (complete, error, cut, partial) each order may take.
pub const RUNS_PER_ORDER: u64 = 10;
/// Seconds each order may take.
pub const SECONDS_PER_ORDER: f64 = 5.0;

/// What the first pass found.
#[derive(Default)]
pub struct FirstPass {
    pub findings: Vec<Finding>,
    pub runs: u64,
    pub ms: f64,
}

/// Does the first pass apply to an exploration with these options?  Not
/// to replays, nor to the modes that count or steer the runs of one
/// search (directed, diff-directed, +CIA, the interference bound), nor to
/// `--reduction none`, the enumeration of every interleaving that the
/// tests compare the reductions against.
pub fn applies(o: &SymexOptions) -> bool {
    o.first_pass
        && o.reduction != super::Reduction::None
        && o.schedule.is_none()
        && o.inputs.is_none()
        && o.directed.is_none()
        && o.diff_targets.is_none()
        && o.impacted.is_none()
        && o.max_interferences.is_none()
}

/// Run the portfolio; each new violation goes to `on_finding` as found.
/// Stops after the first order that finds a violation, and after one
/// whose search ended by itself (every run explored: another order
/// explores the same runs).
pub fn run(
    module: &llvm_ir::Module,
    opts: &SymexOptions,
    on_finding: &mut dyn FnMut(&Finding),
) -> Result<FirstPass, SymexError> {
    let start = Instant::now();
    let mut out = FirstPass::default();
    for order in ORDERS {
        let mut seconds = SECONDS_PER_ORDER;
        if let Some(ms) = opts.max_seconds {
            seconds = seconds.min(ms - start.elapsed().as_secs_f64());
        }
        if seconds <= 0.0 {
            break;
        }
        let o = SymexOptions {
            thread_order: order,
            first_pass: false,
            max_runs: Some(
                opts.max_runs
                    .map_or(RUNS_PER_ORDER, |r| r.min(RUNS_PER_ORDER)),
            ),
            max_seconds: Some(seconds),
            store: None,
            progress: false,
            ..opts.clone()
        };
        let x: Exploration = engine::run(
            module,
            &o,
            None,
            &mut |f| {
                if f.kind.is_violation() {
                    on_finding(f)
                }
            },
            &mut |_| {},
        )?;
        out.runs += x.stats.runs() + x.stats.partial_runs;
        let found = x.findings.iter().any(|f| f.kind.is_violation());
        out.findings
            .extend(x.findings.into_iter().filter(|f| f.kind.is_violation()));
        if found || !x.stats.incomplete {
            break;
        }
    }
    out.ms = start.elapsed().as_secs_f64() * 1000.0;
    Ok(out)
}

impl FirstPass {
    /// Where the first pass found violations.
    pub fn places(&self) -> HashSet<(FindingKind, String)> {
        self.findings
            .iter()
            .map(|f| (f.kind, f.location.clone()))
            .collect()
    }

    /// Add the first pass to the complete search's result `x` (searched
    /// under loop bound `bound`): its runs, and its violations at places
    /// where `x` has none (then the verdict is decided again).
    pub fn merge_into(self, x: &mut Exploration) {
        x.stats.first_pass_runs = self.runs;
        let known: HashSet<(FindingKind, String)> = x
            .findings
            .iter()
            .map(|f| (f.kind, f.location.clone()))
            .collect();
        let before = x.findings.len();
        x.findings.extend(
            self.findings
                .into_iter()
                .filter(|f| !known.contains(&(f.kind, f.location.clone()))),
        );
        if x.findings.len() > before {
            let (verdict, reasons) = x.decide(x.stats.loop_bound);
            x.stats.verdict = verdict;
            x.stats.reasons = reasons;
        }
    }
}
