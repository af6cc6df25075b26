//! Diff-directed exploration of NEW (`symex OLD NEW`, on by default): the
//! executor explores the executions of NEW that realise a synchronisation
//! difference (a read-from edge, pair or triple the rules allow in NEW and
//! not in OLD, EC-Diff's DiffP2) or run code the patch changed, and one
//! execution wherever none can be realised any more (the engine's side:
//! `engine/diff_targets.rs`).
//!
//! What is guaranteed, and relative to what, is in docs/symex.md
//! ("Diff-directed mode"). This module turns the versions into targets
//! ([`plan`]) and says when the guarantee cannot be claimed
//! ([`DiffPlan::inconclusive`]): the caller then explores as without it.

use super::engine::{DiffTargets, TargetEdge, TargetWriter};
use super::incremental::{self, VersionInput};
use super::slice::InstrId;
use crate::analysis::diff::{sync_diff, DiffOptions, Side};
use crate::analysis::impact::{self, GroupKind};
use crate::analysis::lockorder::lock_order_diff;
use crate::versions::{ChangeKind, VersionMatch};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The rank the read-from tuples are compared up to by default: rank 2
/// finds the atomicity violations a removed lock allows (both loads of
/// `x++` reading the same store), which rank 1 does not.
pub const DEFAULT_RANK: u32 = 2;

/// Families of synchronisation calls: a change to one member can change
/// whether a blocking member of the same family blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum SyncFamily {
    Mutex,
    Cond,
    Thread,
    Semaphore,
    /// Barriers, and threading calls without a role in the call table.
    Other,
}

/// A synchronisation call's family and whether it can block, from the
/// call table's role of the function it names (a threading call the table
/// does not give a role is taken to block, in a family of its own).
fn sync_call(callee: &str) -> Option<(SyncFamily, bool)> {
    use crate::calls::Role;
    let known = match crate::calls::role(callee) {
        Role::ThreadCreate => Some((SyncFamily::Thread, false)),
        Role::ThreadJoin => Some((SyncFamily::Thread, true)),
        Role::MutexLock => Some((SyncFamily::Mutex, true)),
        Role::MutexUnlock | Role::MutexTrylock => Some((SyncFamily::Mutex, false)),
        Role::CondWait => Some((SyncFamily::Cond, true)),
        Role::CondSignal | Role::CondBroadcast => Some((SyncFamily::Cond, false)),
        Role::UnmodelledThreads => Some((SyncFamily::Other, true)),
        _ => None,
    };
    known.or_else(|| {
        if callee.starts_with("__VERIFIER_atomic") {
            Some((SyncFamily::Other, false))
        } else if let Some(op) = callee.strip_prefix("sem_") {
            Some((
                SyncFamily::Semaphore,
                op.ends_with("wait") && op != "trywait",
            ))
        } else if crate::calls::is_pthread_api(callee) {
            Some((SyncFamily::Other, true))
        } else {
            None
        }
    })
}

/// The synchronisation family of each statement of a version that has
/// one, read from its instruction in the version's module: the function a
/// call names, and atomic instructions (`Other`, non-blocking).
/// `instrs`: the version's statements' instructions
/// (`incremental::instrs_of_statements`).
fn sync_statements(
    m: &llvm_ir::Module,
    instrs: &HashMap<u32, Vec<InstrId>>,
) -> HashMap<u32, (SyncFamily, bool)> {
    use llvm_ir::Instruction;
    let mut out = HashMap::new();
    for (&s, ids) in instrs {
        let Some(&(f, b, i)) = ids.first() else {
            continue;
        };
        let instr = m
            .functions
            .get(f)
            .and_then(|f| f.basic_blocks.get(b))
            .and_then(|b| b.instrs.get(i));
        let family = match instr {
            Some(Instruction::AtomicRMW(_) | Instruction::CmpXchg(_) | Instruction::Fence(_)) => {
                Some((SyncFamily::Other, false))
            }
            Some(Instruction::Call(c)) => crate::ir::callee_name(c).and_then(sync_call),
            _ => None,
        };
        if let Some(family) = family {
            out.insert(s, family);
        }
    }
    out
}

/// Counters of the plan (`diff-directed.json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct DiffSummary {
    /// Read-from tuples are compared up to this rank.
    pub rank: u32,
    /// Differences only in NEW, per rank (minimal tuples), and rank-1
    /// edges through added statements.
    pub new_only: BTreeMap<u32, usize>,
    pub through_added: usize,
    /// Differences only in OLD (behaviours the patch removed), per rank.
    pub old_only: BTreeMap<u32, usize>,
    /// Target edges and tuples as the engine sees them.
    pub target_edges: usize,
    pub target_tuples: usize,
    /// Statements whose execution makes a run new, and their instructions.
    pub target_statements: usize,
    pub target_instructions: usize,
}

/// The targets of NEW, or why the guarantee cannot be claimed.
#[derive(Debug, Clone, Default)]
pub struct DiffPlan {
    pub summary: DiffSummary,
    pub targets: DiffTargets,
    /// Reasons the diff cannot bound what is new (coverage gaps, unseen
    /// changes, a lock-order cycle): explore NEW without targets.
    pub inconclusive: Vec<String>,
    /// The tuples only in OLD (statement ids of OLD): behaviours the patch
    /// removed (the carry-over of a fix, `symex::carry_over`).
    pub old_only: Vec<crate::analysis::diff::RfTuple>,
}

impl DiffPlan {
    /// Nothing new: no tuple only in NEW and no changed code to run.
    pub fn nothing_new(&self) -> bool {
        self.targets.tuples.is_empty() && self.targets.instrs.is_empty()
    }
}

/// What the caller knows of the versions beyond their facts.
pub struct Context<'a> {
    pub matching: &'a VersionMatch,
    /// Model gaps, unresolved calls and unseen changes of either version,
    /// as messages: each makes the plan inconclusive.
    pub gaps: Vec<String>,
    pub rank: u32,
}

/// The targets of NEW for the patch OLD → NEW.
pub fn plan(
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
    cx: &Context<'_>,
) -> crate::error::Result<DiffPlan> {
    let rank = cx.rank.clamp(1, 3);
    let mut out = DiffPlan {
        inconclusive: cx.gaps.clone(),
        ..DiffPlan::default()
    };
    out.summary.rank = rank;
    let opts = DiffOptions {
        max_rank: rank,
        all_ranks: true,
        ..DiffOptions::default()
    };
    let budget = crate::budget::Budget::unlimited();
    let diff = sync_diff(old.facts, new.facts, cx.matching, &opts, &budget)?;
    let locks = lock_order_diff(
        old.facts,
        &diff.old_lock_order,
        new.facts,
        &diff.new_lock_order,
    );
    if !locks.new_cycles.is_empty() {
        // a lock-order cycle may deadlock at statements no read-from
        // difference touches (a removed gate lock)
        out.inconclusive
            .push("NEW has a lock-order cycle: deadlocks are not read-from differences".into());
    }
    let instrs = incremental::instrs_of_statements(new.module, new.facts);
    let instrs_of =
        |s: u32| -> BTreeSet<InstrId> { instrs.get(&s).into_iter().flatten().copied().collect() };
    // edges, each once
    let mut edge_ids: HashMap<(u32, u32), usize> = HashMap::new();
    let mut edge_of = |(w, r): (u32, u32), t: &mut DiffTargets| -> Option<usize> {
        if let Some(k) = edge_ids.get(&(w, r)) {
            return Some(*k);
        }
        let ws = new.facts.statement(w)?;
        let writer = if ws.kind == "init" {
            TargetWriter::Init
        } else {
            TargetWriter::At(instrs_of(w))
        };
        let readers = instrs_of(r);
        let k = t.edges.len();
        t.edges.push(TargetEdge { writer, readers });
        edge_ids.insert((w, r), k);
        Some(k)
    };
    let mut targets = DiffTargets::default();
    let tuples = diff
        .differences
        .iter()
        .chain(&diff.through_changes)
        .filter(|d| d.only_in == Side::New);
    for d in tuples {
        let ks: Option<Vec<usize>> = d.edges.iter().map(|e| edge_of(*e, &mut targets)).collect();
        match ks {
            Some(ks) => targets.tuples.push(ks),
            None => out.inconclusive.push(format!(
                "read-from tuple {:?} names no statement of NEW",
                d.edges
            )),
        }
    }
    out.old_only = diff
        .differences
        .iter()
        .filter(|d| d.only_in == Side::Old)
        .map(|d| d.edges.clone())
        .collect();
    for d in &diff.differences {
        let m = match d.only_in {
            Side::New => &mut out.summary.new_only,
            Side::Old => &mut out.summary.old_only,
        };
        *m.entry(d.rank).or_insert(0) += 1;
    }
    out.summary.through_added = diff
        .through_changes
        .iter()
        .filter(|d| d.only_in == Side::New)
        .count();
    let stmts = changed_code(old, new, &instrs, cx.matching);
    targets.instrs = stmts.iter().flat_map(|s| instrs_of(*s)).collect();
    out.summary.target_statements = stmts.len();
    out.summary.target_instructions = targets.instrs.len();
    out.summary.target_edges = targets.edges.len();
    out.summary.target_tuples = targets.tuples.len();
    out.targets = targets;
    Ok(out)
}

/// Statements of NEW whose execution makes a run new by itself:
///
/// * added or modified statements that do not synchronise, and the
///   forward impact (`cia`) of those and of deleted ones (a run passing
///   where a statement was deleted computes other values);
/// * moved statements that do not synchronise: a load moved before
///   another access of its thread changes which tuples are possible
///   together through program order, which the rank-2 rules do not
///   capture (bluetooth v0 → v1: the flag read moved before the increment
///   allows "both read the initial values", and the rules allow that pair
///   in both versions);
/// * blocking synchronisation calls that were added, modified or moved (a
///   new wait or lock can block for ever);
/// * when a synchronisation call of a family changed, the blocking calls
///   of that family in NEW (a removed signal or post leaves a wait
///   blocked); for mutexes only those in the functions of the change (a
///   lock whose unlock was removed), lock-order cycles being checked apart.
fn changed_code(
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
    new_instrs: &HashMap<u32, Vec<InstrId>>,
    matching: &VersionMatch,
) -> BTreeSet<u32> {
    let old_instrs = incremental::instrs_of_statements(old.module, old.facts);
    let old_sync = sync_statements(old.module, &old_instrs);
    let new_sync = sync_statements(new.module, new_instrs);
    let mut out = BTreeSet::new();
    let mut families: BTreeSet<SyncFamily> = BTreeSet::new();
    let mut mutex_functions: BTreeSet<String> = BTreeSet::new();
    let mut data_change = false;
    for c in &matching.changes {
        let (facts, id, sync) = match (c.new, c.old) {
            (Some(n), _) => (new.facts, n, &new_sync),
            (None, Some(o)) => (old.facts, o, &old_sync),
            (None, None) => continue,
        };
        let Some(s) = facts.statement(id) else {
            continue;
        };
        match sync.get(&id).copied() {
            Some((fam, blocks)) => {
                families.insert(fam);
                if fam == SyncFamily::Mutex {
                    mutex_functions.insert(s.function.clone());
                }
                if blocks && c.kind != ChangeKind::Deleted {
                    out.extend(c.new);
                }
            }
            None => match c.kind {
                ChangeKind::Moved | ChangeKind::Added | ChangeKind::Modified => {
                    out.extend(c.new);
                    data_change = true;
                }
                ChangeKind::Deleted => data_change = true,
            },
        }
    }
    if data_change {
        // the forward impact of the changes that are not synchronisation
        let groups: Vec<_> = impact::change_groups(matching, old.facts, new.facts)
            .into_iter()
            .filter(|g| {
                let sync = match g.kind {
                    GroupKind::Deleted => &old_sync,
                    _ => &new_sync,
                };
                g.statements.iter().any(|s| !sync.contains_key(s))
            })
            .collect();
        let r = impact::analyse(
            crate::analysis::Engine::Ascent,
            groups,
            Some(old.facts),
            new.facts,
            &matching.map,
        );
        out.extend(r.fwd.keys().copied());
    }
    for s in &new.facts.statements {
        if let Some(&(fam, true)) = new_sync.get(&s.id) {
            let partner = match fam {
                SyncFamily::Mutex => mutex_functions.contains(&s.function),
                _ => families.contains(&fam),
            };
            if partner {
                out.insert(s.id);
            }
        }
    }
    out
}

/// Model gaps of a version, as messages: the rules' read-from sets do
/// not cover what the model left out (functions no thread reaches are
/// never run, so they are no gap here).
pub fn gaps_of(coverage: &crate::facts::coverage::CoverageAccount) -> Vec<String> {
    use crate::facts::coverage::GapKind;
    coverage
        .gaps
        .iter()
        .filter(|g| g.kind != GapKind::UnreachedFunction)
        .map(|g| {
            let at = g
                .first
                .first()
                .map(|s| format!(" (first at {s})"))
                .unwrap_or_default();
            format!("model gap: {:?} x{}{at}", g.kind, g.count)
        })
        .collect()
}
