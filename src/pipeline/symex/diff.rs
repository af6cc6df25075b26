//! Diff-directed `symex OLD NEW` (on by default): OLD's verdict and the
//! synchronisation diff decide what NEW must still be explored for; see
//! [`crate::symex::diff_directed`] and docs/symex.md ("Diff-directed mode").

use super::{output_error, symex_error, SymexRequest, Version};
use crate::error::Result;
use crate::symex::diff_directed::{self, DiffPlan, DiffSummary};
use crate::symex::incremental::{self, IncrementalStats};
use crate::symex::{
    explore_with, output, DiffTargets, Exploration, Reduction, Stats, SymexOptions, Verdict,
};
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
    /// OLD's test cases replayed on NEW (one run of NEW each).
    pub new_replays: u64,
    /// The carry-over of a fix (OLD violated, none of its test cases
    /// replays on NEW), when it was tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carry_over: Option<CarryOver>,
    /// Runs of NEW's directed exploration, those realising a target, and
    /// states where no target could be realised any more.
    pub new_runs: u64,
    pub target_runs: u64,
    pub dead_states: u64,
}

/// What the carry-over of a fix found (`symex::carry_over`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct CarryOver {
    /// Why the patch only restricts OLD's schedules (empty when it could
    /// not be shown: then nothing below was computed).
    pub changes: Vec<String>,
    /// Runs of OLD's exploration of its violating classes (`dpor`, every
    /// violating path kept), apart from `old_runs`.
    pub old_class_runs: u64,
    /// OLD's violating classes, and those that realise a read-from tuple
    /// NEW's rules exclude (not feasible in NEW).
    pub violating_classes: usize,
    pub excluded: usize,
    /// NEW is verified without exploring it.
    pub verified: bool,
    /// OLD's violating classes the rules do not exclude, searched for in
    /// NEW by a directed exploration (their read-from edges the targets),
    /// and the runs of that search that realised one.
    pub searched: usize,
    pub search_runs: u64,
    pub search_target_runs: u64,
    /// Why not, when it is not.
    pub not_concluded: Option<String>,
}

impl DiffOutcome {
    /// Runs of OLD this answer needed: its exploration, and that of its
    /// violating classes.
    pub fn all_old_runs(&self) -> u64 {
        self.old_runs + self.carry_over.as_ref().map_or(0, |c| c.old_class_runs)
    }

    /// Runs of NEW this answer needed: replays of OLD's test cases and the
    /// directed exploration.
    pub fn all_new_runs(&self) -> u64 {
        self.new_runs + self.new_replays
    }

    /// The sentence the verdict carries.
    pub fn guarantee(&self) -> String {
        if !self.claimed {
            return format!(
                "diff-directed: not claimed ({}); NEW explored without targets",
                self.fallback.join("; ")
            );
        }
        let k = self.summary.rank;
        if let Some(c) = self.carry_over.as_ref().filter(|c| c.searched > 0) {
            return format!(
                "diff-directed: every behaviour new up to rank {k} explored: none (no read-from tuple only in NEW; the patch only restricts OLD's schedules: {}); OLD's {} violating classes: {} infeasible in NEW (each realises a read-from tuple NEW's rules exclude), {} searched for in NEW ({} runs realised one; every execution of NEW with one of their read-from relations explored)",
                c.changes.join(", "),
                c.violating_classes,
                c.excluded,
                c.searched,
                c.search_target_runs
            );
        }
        if let Some(c) = self.carry_over.as_ref().filter(|c| c.verified) {
            return format!(
                "diff-directed: every behaviour new up to rank {k} explored: none (no read-from tuple only in NEW; the patch only restricts OLD's schedules: {}); OLD's {} violating classes replayed: none feasible in NEW (each realises a read-from tuple NEW's rules exclude; {} test cases of OLD replayed on NEW, none confirmed)",
                c.changes.join(", "),
                c.violating_classes,
                self.new_replays
            );
        }
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
    Fallback(Box<DiffOutcome>),
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
/// `engine/diff_targets.rs`), the directed slice (the targets' own,
/// `diff_targets::slice`, unless `--no-slice`), no +CIA.
fn directed_options(base: &SymexOptions, targets: &DiffTargets) -> SymexOptions {
    SymexOptions {
        reduction: match base.reduction {
            Reduction::None => Reduction::None,
            Reduction::Dpor | Reduction::Odpor => Reduction::Dpor,
            Reduction::DporAg | Reduction::OdporAg => Reduction::DporAg,
        },
        store: None,
        impacted: None,
        directed: None,
        diff_targets: Some(Arc::new(targets.clone())),
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
        return Ok(Attempt::Fallback(Box::new(outcome)));
    }
    // OLD's violations first: replayed on NEW, each confirmed one is a
    // violation of NEW (its run is an execution of NEW).
    let mut confirmed = Vec::new();
    let mut carried = false;
    // OLD's violating classes to search NEW for (the carry-over could not
    // exclude them all)
    let mut class_search: Option<DiffTargets> = None;
    if old_res.stats.verdict == Verdict::Violation {
        for f in old_res.findings.iter().filter(|f| f.kind.is_violation()) {
            outcome.new_replays += 1;
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
            let (c, search) = carry_over(inp, &plan)?;
            carried = c.verified;
            if let Some(why) = &c.not_concluded {
                outcome.fallback.push(format!(
                    "OLD has a violation that does not replay on NEW, and it does not carry over: {why}"
                ));
            }
            outcome.carry_over = Some(c);
            class_search = search;
            if !carried && class_search.is_none() {
                return Ok(Attempt::Fallback(Box::new(outcome)));
            }
        }
    } else if old_res.stats.verdict != Verdict::Verified {
        outcome
            .fallback
            .push("OLD's verdict is inconclusive: nothing carries over".into());
        return Ok(Attempt::Fallback(Box::new(outcome)));
    }
    let opts = match &class_search {
        // the options OLD's classes were explored with: every execution of
        // NEW is one of OLD's under the same loop bound (docs/symex.md)
        // (with the slice of OLD's violated locations in NEW when they all
        // map: `DiffTargets::violated`)
        Some(t) => SymexOptions {
            loop_bound: old_res.stats.loop_bound,
            max_loop_bound: None,
            slice: new_opts.slice && t.violated.is_some(),
            ..directed_options(new_opts, t)
        },
        None => directed_options(
            new_opts,
            &DiffTargets {
                old_verified: old_res.stats.verdict == Verdict::Verified,
                ..plan.targets.clone()
            },
        ),
    };
    let mut new_res = if (plan.nothing_new() && class_search.is_none()) || carried {
        outcome.new_not_run = true;
        Exploration {
            findings: Vec::new(),
            stats: Stats {
                loop_bound: old_res.stats.loop_bound,
                loop_bounds_tried: old_res.stats.loop_bounds_tried.clone(),
                ..Stats::default()
            },
            paths: Vec::new(),
            violating_classes: Vec::new(),
        }
    } else {
        explore_with(&new.program.module, &opts, &mut |_, _| {})
            .map_err(|e| symex_error(new_path, e))?
    };
    outcome.new_runs = incremental::old_runs(&new_res.stats);
    outcome.target_runs = new_res.stats.diff_target_runs;
    outcome.dead_states = new_res.stats.diff_dead_nodes;
    if let (Some(c), Some(_)) = (outcome.carry_over.as_mut(), &class_search) {
        if new_res.stats.verdict == Verdict::Inconclusive {
            // the search did not end by itself: nothing to conclude
            outcome.fallback.push(format!(
                "the search of NEW for OLD's violating classes is inconclusive ({})",
                new_res
                    .stats
                    .reasons
                    .iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
            return Ok(Attempt::Fallback(Box::new(outcome)));
        }
        c.search_runs = outcome.new_runs;
        c.search_target_runs = outcome.target_runs;
    }
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

/// The carry-over of a fix: OLD violated and none of its test cases
/// replays on NEW. When NEW has no read-from tuple OLD lacks, the patch
/// only restricts OLD's schedules, and every violating class of a complete
/// exploration of OLD realises a tuple NEW's rules exclude, NEW has none
/// of OLD's violations and no other (docs/symex.md, "Carry-over of a
/// fix").
fn carry_over(inp: &Inputs<'_>, plan: &DiffPlan) -> Result<(CarryOver, Option<DiffTargets>)> {
    use crate::symex::carry_over::{class_targets, restricting_change, Exclusions};
    let mut out = CarryOver::default();
    if !plan.targets.tuples.is_empty() {
        out.not_concluded = Some("NEW has read-from tuples OLD lacks".into());
        return Ok((out, None));
    }
    match restricting_change(&inp.old.input(), &inp.new.input(), inp.matching) {
        Ok(c) => out.changes = c,
        Err(why) => {
            out.not_concluded = Some(why);
            return Ok((out, None));
        }
    }
    // every violating class of OLD: plain DPOR (assertion-guided pruning
    // would cut paths into violations already found), one loop bound;
    // when OLD's exploration was complete, the slice of the locations it
    // violated (no other finding can fail: classes that differ only in
    // what that slice leaves out are one)
    let old_stats = &inp.old_res.stats;
    let violated: std::collections::BTreeSet<String> = inp
        .old_res
        .findings
        .iter()
        .filter(|f| f.kind.is_violation())
        .map(|f| f.location.clone())
        .collect();
    let complete = !old_stats.incomplete && old_stats.cut_runs == 0;
    // every location must name instructions (a finding without debug
    // information names a block): else no slice
    let located = violated.iter().all(|l| {
        let one = std::collections::BTreeSet::from([l.clone()]);
        !crate::symex::instructions_at(&inp.old.program.module, &one).is_empty()
    });
    let violated_slice = (complete && located && !violated.is_empty()).then(|| Arc::new(violated));
    let opts = SymexOptions {
        reduction: Reduction::Dpor,
        rf_classes: true,
        first_pass: false,
        loop_bound: inp.old_res.stats.loop_bound,
        max_loop_bound: None,
        slice: violated_slice.is_some(),
        violated_slice,
        store: None,
        impacted: None,
        directed: None,
        diff_targets: None,
        progress: false,
        ..super::options_for(inp.req, &inp.req.program)
    };
    let x = explore_with(&inp.old.program.module, &opts, &mut |_, _| {})
        .map_err(|e| symex_error(&inp.req.program, e))?;
    out.old_class_runs = incremental::old_runs(&x.stats);
    out.violating_classes = x.violating_classes.len();
    let s = &x.stats;
    let unsupported = x
        .findings
        .iter()
        .filter(|f| f.kind == crate::symex::FindingKind::Unsupported)
        .count();
    let why = if s.incomplete {
        Some("OLD's exploration of its violating classes hit a budget: inconclusive")
    } else if s.cut_runs > 0 {
        Some("OLD's exploration was cut at the loop bound: inconclusive")
    } else if unsupported > 0 {
        Some("OLD's exploration met unsupported constructs: inconclusive")
    } else if s.assume_false > 0 {
        Some("OLD has paths that fail an assumption (NEW could be vacuous)")
    } else if x.violating_classes.len() >= crate::symex::MAX_VIOLATING_CLASSES {
        Some("OLD has too many violating paths to check each")
    } else if x.violating_classes.is_empty() {
        Some("OLD's violations were not found again by plain DPOR")
    } else {
        None
    };
    if let Some(why) = why {
        out.not_concluded = Some(why.into());
        return Ok((out, None));
    }
    let ex = Exclusions::new(
        &inp.old.program.module,
        &inp.old.loaded.facts,
        &plan.old_only,
    );
    let open: Vec<_> = x
        .violating_classes
        .iter()
        .filter(|c| ex.excluding_tuple(c).is_none())
        .collect();
    out.excluded = out.violating_classes - open.len();
    if open.is_empty() {
        out.verified = true;
        return Ok((out, None));
    }
    // the classes the rules do not exclude: search NEW for executions
    // with their read-from relations (docs/symex.md, "Searching NEW for
    // OLD's remaining classes")
    match class_targets(&inp.old.input(), &inp.new.input(), inp.matching, &open) {
        Ok(t) => {
            out.searched = open.len();
            Ok((out, Some(t)))
        }
        Err(why) => {
            out.not_concluded = Some(format!(
                "{} of OLD's {} violating classes realise no read-from tuple NEW's rules exclude, and {why}",
                open.len(),
                out.violating_classes
            ));
            Ok((out, None))
        }
    }
}

/// Write `diff-directed.json` into the results directory.
pub(super) fn write_outcome(dir: &Path, outcome: &DiffOutcome) -> Result<()> {
    let json = serde_json::to_string_pretty(outcome).map_err(|e| output_error(dir, e))?;
    output::write_atomic(&dir.join("diff-directed.json"), json.as_bytes())
        .map_err(|e| output_error(dir, e))
}
