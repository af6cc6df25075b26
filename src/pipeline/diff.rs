//! `concord diff`: synchronisation (read-from, ranks 1-3) and lock-order
//! differences between two versions.

use super::{load_pair, load_pair_beside, Answer, Event, Events, LoadedPair, VersionPair};
use crate::analysis::diff::{rank1_layers, sync_diff_with, DiffOptions, SyncDiff};
use crate::analysis::diff_reference::sync_diff_reference;
use crate::analysis::lockorder::{lock_order_diff, LockOrderDiff};
use crate::budget::Budget;
use crate::error::Result;
use crate::facts::extract::NOT_READ_BY_DIFF;
use crate::report::diff::DiffReport;
use std::time::Duration;

/// The two versions and the analysis to run on them.
#[derive(Debug, Clone)]
pub struct DiffRequest {
    pub versions: VersionPair,
    pub options: DiffOptions,
    /// Run the previous implementation (each version's rank-k sets built in
    /// full and compared): the reference of tests and benchmarks.
    pub reference: bool,
}

/// Both versions, their differences, and what the run cost.
pub struct DiffOutcome {
    pub pair: LoadedPair,
    pub sync: SyncDiff,
    pub locks: LockOrderDiff,
    /// Time per phase, in order.
    pub timing: Vec<(String, Duration)>,
    /// Peak resident memory of the process, bytes (when the OS tells).
    pub peak_memory: Option<u64>,
    /// Time and memory per phase, in order.
    pub phases: Vec<crate::budget::PhaseCost>,
}

impl DiffOutcome {
    /// Found: a read-from or a lock-order difference.
    pub fn answer(&self) -> Answer {
        Answer::found_unless_unseen(
            self.sync.first_rank != 0 || self.locks.has_difference(),
            !self.pair.unseen.is_empty(),
        )
    }

    /// What the reports (text, JSON, SARIF, DOT) render.
    pub fn report(&self) -> DiffReport<'_> {
        DiffReport {
            old: &self.pair.old,
            new: &self.pair.new,
            sync: &self.sync,
            locks: &self.locks,
            map: &self.pair.matching.map,
            timing: self.timing.clone(),
            peak_memory: self.peak_memory,
            phases: self.phases.clone(),
            unseen: &self.pair.unseen,
            inverse: Default::default(),
        }
    }
}

/// Load, match and compare both versions, each step a phase of `budget`.
pub fn diff(req: &DiffRequest, budget: &Budget, events: Events<'_>) -> Result<DiffOutcome> {
    // the diff's rules and code read no dependence or access relation of
    // change impact: neither version extracts them
    let (pair, rank1) = if req.reference {
        (
            load_pair(&req.versions, NOT_READ_BY_DIFF, budget, events)?,
            None,
        )
    } else {
        // each version's rank-1 rules need only that version: they run
        // while the two are matched
        let (pair, rank1) = load_pair_beside(
            &req.versions,
            NOT_READ_BY_DIFF,
            budget,
            events,
            "match versions, rank-1 layers",
            |old, new| rank1_layers(&old.facts, &new.facts, &req.options),
        )?;
        (pair, Some(rank1))
    };
    events(Event::Comparing {
        old: pair.old.label.clone(),
        new: pair.new.label.clone(),
    });
    let (old, new) = (&pair.old.facts, &pair.new.facts);
    let sync = if req.reference {
        sync_diff_reference(old, new, &pair.matching, &req.options, budget)?
    } else {
        sync_diff_with(old, new, &pair.matching, &req.options, budget, rank1)?
    };
    budget.phase("lock order")?;
    let locks = lock_order_diff(old, &sync.old_lock_order, new, &sync.new_lock_order);
    budget.end_phase();
    Ok(DiffOutcome {
        pair,
        sync,
        locks,
        timing: budget.phase_times(),
        peak_memory: crate::budget::peak_rss(),
        phases: budget.phase_costs(),
    })
}
