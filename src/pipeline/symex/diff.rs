//! Diff-directed `symex OLD NEW` (on by default): OLD's verdict and the
//! synchronisation diff decide what NEW must still be explored for; see
//! [`crate::symex::diff_directed`] and docs/symex.md ("Diff-directed mode").

use super::{output_error, symex_error, SymexRequest, Version};
use crate::error::Result;
use crate::symex::diff_directed::{self, DiffPlan, DiffSummary};
use crate::symex::incremental::{self, IncrementalStats};
use crate::symex::{explore_with, output, Exploration, Reduction, Stats, SymexOptions, Verdict};
use serde::Serialize;
use std::path::Path;
use std::sync::Arc;

/// How the diff-directed mode answered (`diff-directed.json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DiffOutcome {
    pub summary: DiffSummary,
    /// The answer carries the guarantee ("every behaviour new up to rank
    /// k explored"); false when it fell back to exploring NEW without
    /// targets (`fallback` says why).
    pub claimed: bool,
    pub fallback: Vec<String>,
    pub old_verdict: Verdict,
    pub old_runs: u64,
    /// NEW was not run at all (OLD verified, nothing new).
    pub new_not_run: bool,
    /// OLD's findings whose test case replays to the same finding on NEW.
    pub replayed_on_new: Vec<String>,
    /// Runs of NEW's directed exploration, those realising a target, and
    /// states where no target could be realised any more.
    pub new_runs: u64,
    pub target_runs: u64,
    pub dead_states: u64,
}

impl DiffOutcome {
    /// The sentence the verdict carries.
    pub fn guarantee(&self) -> String {
        if !self.claimed {
            return format!(
                "diff-directed: not claimed ({}); NEW explored without targets",
                self.fallback.join("; ")
            );
        }
        let k = self.summary.rank;
        if self.new_not_run {
            return format!(
                "diff-directed: every behaviour new up to rank {k} explored: none (no read-from tuple only in NEW, no changed code); OLD's verdict carries over"
            );
        }
        format!(
            "diff-directed: every behaviour new up to rank {k} explored ({} runs realised a target of {} tuples only in NEW and {} changed statements; the other runs of NEW are OLD's up to rank {k})",
            self.target_runs, self.summary.target_tuples, self.summary.target_statements
        )
    }
}

/// The result of the diff-directed attempt: a finished exploration of
/// NEW with the guarantee, or the reasons to explore NEW without it.
pub(super) enum Attempt {
    Done(Box<Done>),
    Fallback(DiffOutcome),
}

/// A finished diff-directed answer.
pub(super) struct Done {
    pub exploration: Exploration,
    pub new_stats: Stats,
    pub stats: IncrementalStats,
    pub options: SymexOptions,
    pub outcome: DiffOutcome,
}

/// What [`attempt`] works on: both versions, their matching, OLD's
/// exploration, NEW's options and where results go.
pub(super) struct Inputs<'a> {
    pub req: &'a SymexRequest,
    pub old: &'a Version,
    pub new: &'a Version,
    pub matching: &'a crate::versions::VersionMatch,
    pub old_res: &'a Exploration,
    pub old_runs: u64,
    pub new_opts: &'a SymexOptions,
    pub dir: &'a Path,
    pub new_path: &'a Path,
}

/// NEW's options for the directed exploration: `dpor` (or `dpor+ag`,
/// `none` when asked: ODPOR's wakeup trees are not used with targets), no
/// store (summaries are recorded on hit paths only, see
/// `engine/diff_targets.rs`), no static slice (an access the slice leaves
/// out would not be seen realising a target), no +CIA.
fn directed_options(base: &SymexOptions, plan: &DiffPlan) -> SymexOptions {
    SymexOptions {
        reduction: match base.reduction {
            Reduction::None => Reduction::None,
            Reduction::Dpor | Reduction::Odpor => Reduction::Dpor,
            Reduction::DporAg | Reduction::OdporAg => Reduction::DporAg,
        },
        slice: false,
        store: None,
        impacted: None,
        directed: None,
        diff_targets: Some(Arc::new(plan.targets.clone())),
        ..base.clone()
    }
}

/// Try the diff-directed mode on OLD → NEW (OLD explored, or reused, by
/// `explore_old`).
pub(super) fn attempt(inp: &Inputs<'_>) -> Result<Attempt> {
    let Inputs {
        req,
        old,
        new,
        matching,
        old_res,
        old_runs,
        new_opts,
        dir,
        new_path,
    } = *inp;
    let mut gaps = diff_directed::gaps_of(&old.loaded.coverage);
    gaps.extend(diff_directed::gaps_of(&new.loaded.coverage));
    gaps.extend(old.loaded.warnings.iter().map(|w| w.0.clone()));
    gaps.extend(new.loaded.warnings.iter().map(|w| w.0.clone()));
    let unseen = crate::pipeline::unseen(&old.loaded, &new.loaded, matching);
    if !unseen.is_empty() {
        gaps.push(format!(
            "{} changed places the model did not see",
            unseen.len()
        ));
    }
    let plan = diff_directed::plan(
        &old.input(),
        &new.input(),
        &diff_directed::Context {
            matching,
            gaps,
            rank: req.diff_rank,
        },
    )?;
    let mut outcome = DiffOutcome {
        summary: plan.summary.clone(),
        fallback: plan.inconclusive.clone(),
        old_verdict: old_res.stats.verdict,
        old_runs,
        ..DiffOutcome::default()
    };
    if !outcome.fallback.is_empty() {
        return Ok(Attempt::Fallback(outcome));
    }
    // OLD's violations first: replayed on NEW, each confirmed one is a
    // violation of NEW (its run is an execution of NEW).
    let mut confirmed = Vec::new();
    if old_res.stats.verdict == Verdict::Violation {
        for f in old_res.findings.iter().filter(|f| f.kind.is_violation()) {
            if let Ok(r) = output::replay_with_args(
                &new.program.module,
                f,
                old_res.stats.loop_bound,
                &new_opts.args,
            ) {
                if r.confirmed {
                    confirmed.push(f.clone());
                }
            }
        }
        outcome.replayed_on_new = confirmed
            .iter()
            .map(|f| format!("{:?} at {}", f.kind, f.location))
            .collect();
        if confirmed.is_empty() {
            outcome
                .fallback
                .push("OLD has a violation that does not replay on NEW".into());
            return Ok(Attempt::Fallback(outcome));
        }
    } else if old_res.stats.verdict != Verdict::Verified {
        outcome
            .fallback
            .push("OLD's verdict is inconclusive: nothing carries over".into());
        return Ok(Attempt::Fallback(outcome));
    }
    let opts = directed_options(new_opts, &plan);
    let mut new_res = if plan.nothing_new() {
        outcome.new_not_run = true;
        Exploration {
            findings: Vec::new(),
            stats: Stats {
                loop_bound: old_res.stats.loop_bound,
                loop_bounds_tried: old_res.stats.loop_bounds_tried.clone(),
                ..Stats::default()
            },
            paths: Vec::new(),
        }
    } else {
        explore_with(&new.program.module, &opts, &mut |_, _| {})
            .map_err(|e| symex_error(new_path, e))?
    };
    outcome.new_runs = incremental::old_runs(&new_res.stats);
    outcome.target_runs = new_res.stats.diff_target_runs;
    outcome.dead_states = new_res.stats.diff_dead_nodes;
    let new_stats = new_res.stats.clone();
    // OLD's confirmed violations are NEW's (replayed there); NEW's own
    // findings come first.
    for f in confirmed {
        if !new_res
            .findings
            .iter()
            .any(|g| g.kind == f.kind && g.location == f.location)
        {
            new_res.findings.push(f);
        }
    }
    // Verdict: NEW's violations; else OLD verified and every new
    // behaviour explored: NEW's own reasons (cut, budget) only.
    let mut res = new_res;
    if res.findings.iter().any(|f| f.kind.is_violation()) {
        res.stats.verdict = Verdict::Violation;
        res.stats.reasons.clear();
    } else if outcome.new_not_run {
        res.stats.verdict = Verdict::Verified;
    }
    outcome.claimed = true;
    let stats = IncrementalStats {
        changes: matching.changes.len(),
        old_runs,
        old_verdict: old_res.stats.verdict,
        ..IncrementalStats::default()
    };
    output::attach_traces(&new.program.module, &mut res, &opts);
    for (k, f) in res.findings.iter().enumerate() {
        let tc = output::testcase(new_path, &opts, res.stats.loop_bound, f);
        output::write_testcase(dir, k + 1, &tc).map_err(|e| output_error(dir, e))?;
    }
    Ok(Attempt::Done(Box::new(Done {
        exploration: res,
        new_stats,
        stats,
        options: opts,
        outcome,
    })))
}

/// Write `diff-directed.json` into the results directory.
pub(super) fn write_outcome(dir: &Path, outcome: &DiffOutcome) -> Result<()> {
    let json = serde_json::to_string_pretty(outcome).map_err(|e| output_error(dir, e))?;
    output::write_atomic(&dir.join("diff-directed.json"), json.as_bytes())
        .map_err(|e| output_error(dir, e))
}
