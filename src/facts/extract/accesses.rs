//! The first pass of extraction: which cells each statement reads and
//! writes, and which statements are synchronisation calls (lock, wait,
//! signal, create, join) on which cells, all through points-to; global
//! initialisers count as writes of the cells some statement touches.

use super::correlation::{self, AmbiguousLockCall, CorrelatedLocks};
use super::dependence::defining_stmt;
use super::ir::{self, LibCall};
use super::pointsto::{LocId, PointsTo};
use super::program::{ProgramModel, Site, StmtId};
use super::sync_objects::sync_object_cells;
use llvm_ir::instruction::{self as ins, Instruction as I};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BTreeSet};

/// Cells read and written per statement.
#[derive(Default)]
pub(super) struct Accesses {
    pub(super) reads: BTreeMap<StmtId, BTreeSet<LocId>>,
    pub(super) writes: BTreeMap<StmtId, BTreeSet<LocId>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SyncOp {
    Lock(LocId),
    Unlock(LocId),
    Trylock(LocId),
    Wait { cond: LocId, mutex: LocId },
    Signal(LocId),
    Broadcast(LocId),
}

impl Accesses {
    /// Cells that two threads access, one of them writing (initial values
    /// count as main's writes).
    pub(super) fn conflicting_cells(&self, model: &ProgramModel<'_>) -> HashSet<LocId> {
        let mut writers: HashMap<LocId, BTreeSet<u32>> = HashMap::default();
        let mut accessors: HashMap<LocId, BTreeSet<u32>> = HashMap::default();
        for (map, is_write) in [(&self.writes, true), (&self.reads, false)] {
            for (&s, cells) in map {
                let t = model.stmts[s as usize].thread;
                for &c in cells {
                    accessors.entry(c).or_default().insert(t);
                    if is_write {
                        writers.entry(c).or_default().insert(t);
                    }
                }
            }
        }
        writers
            .iter()
            .filter(|(c, ws)| {
                accessors
                    .get(c)
                    .is_some_and(|ts| ws.iter().any(|w| ts.iter().any(|t| t != w)))
            })
            .map(|(&c, _)| c)
            .collect()
    }
}

/// What the access pass found.
pub(super) struct AccessScan {
    pub(super) acc: Accesses,
    /// Synchronisation calls whose object is one known cell.
    pub(super) sync: BTreeMap<StmtId, SyncOp>,
    /// Cells used as mutexes, condition variables or thread handles.
    pub(super) sync_cells: BTreeSet<LocId>,
    pub(super) handle_of_create: HashMap<StmtId, BTreeSet<LocId>>,
    /// Joins and the cells their handle was loaded from.
    pub(super) joins: Vec<(StmtId, BTreeSet<LocId>)>,
    /// Calls to the assertion-failure function.
    pub(super) asserts: BTreeSet<StmtId>,
    /// Memory accesses whose address points to nothing known (the coverage
    /// account counts them; they read and write nothing in the model).
    pub(super) no_target: BTreeSet<StmtId>,
    /// Synchronisation calls left out of `sync` because their object is
    /// not one known cell, with the number of cells it may be.
    pub(super) dropped_sync: BTreeMap<StmtId, u32>,
    /// Per-object locks taken through a pointer value (correlation.rs).
    pub(super) correlated: CorrelatedLocks,
}

impl AccessScan {
    pub(super) fn collect(model: &ProgramModel<'_>, pt: &PointsTo) -> AccessScan {
        let mut acc = Accesses::default();
        let mut sync: BTreeMap<StmtId, SyncOp> = BTreeMap::new();
        let mut sync_cells: BTreeSet<LocId> = BTreeSet::new();
        let mut handle_of_create: HashMap<StmtId, BTreeSet<LocId>> = HashMap::default();
        let mut joins: Vec<(StmtId, BTreeSet<LocId>)> = Vec::new();
        let mut asserts: BTreeSet<StmtId> = BTreeSet::new();
        let mut no_target: BTreeSet<StmtId> = BTreeSet::new();
        let mut dropped_sync: BTreeMap<StmtId, u32> = BTreeMap::new();
        let mut ambiguous_locks: Vec<AmbiguousLockCall> = Vec::new();
        // every call that may release a mutex, with the cells it may be
        let mut releases: BTreeMap<StmtId, BTreeSet<LocId>> = BTreeMap::new();
        // what an access's address resolved to, noting one that resolved to nothing
        let mut note_empty = |s: StmtId, cells: &BTreeSet<LocId>| {
            if cells.is_empty() {
                no_target.insert(s);
            }
        };
        for s in 0..model.stmts.len() as StmtId {
            let Some(finst) = model.finst_of(s) else {
                continue;
            };
            let Some(instr) = model.instr(s) else {
                continue;
            };
            match instr {
                I::Load(l) => {
                    let cells = pt.address_cells(model, finst, &l.address);
                    note_empty(s, &cells);
                    acc.reads.entry(s).or_default().extend(cells);
                }
                I::Store(st) => {
                    let cells = pt.address_cells(model, finst, &st.address);
                    note_empty(s, &cells);
                    acc.writes.entry(s).or_default().extend(cells);
                }
                // Read-modify-writes read and write their address.
                I::AtomicRMW(ins::AtomicRMW { address, .. })
                | I::CmpXchg(ins::CmpXchg { address, .. }) => {
                    let cells = pt.address_cells(model, finst, address);
                    note_empty(s, &cells);
                    acc.reads
                        .entry(s)
                        .or_default()
                        .extend(cells.iter().copied());
                    acc.writes.entry(s).or_default().extend(cells);
                }
                I::Call(call) => {
                    if model.callee_of.contains_key(&s) {
                        continue;
                    }
                    let arg = |i: usize| call.arguments.get(i).map(|(a, _)| a);
                    let cells_of = |i: usize, pt: &PointsTo| -> BTreeSet<LocId> {
                        arg(i)
                            .map(|a| pt.address_cells(model, finst, a))
                            .unwrap_or_default()
                    };
                    // the object of a lock or condition call, narrowed along the call path
                    let sync_object_of = |i: usize, pt: &PointsTo| -> BTreeSet<LocId> {
                        arg(i)
                            .map(|a| sync_object_cells(model, pt, finst, a))
                            .unwrap_or_default()
                    };
                    let unique =
                        |c: &BTreeSet<LocId>| (c.len() == 1).then(|| *c.iter().next().unwrap());
                    let callee = ir::direct_callee(call).unwrap_or("");
                    match ir::classify(callee) {
                        LibCall::MutexLock | LibCall::MutexUnlock | LibCall::MutexTrylock => {
                            let m = sync_object_of(0, pt);
                            sync_cells.extend(m.iter().copied());
                            if ir::classify(callee) == LibCall::MutexUnlock {
                                releases.insert(s, m.clone());
                            }
                            if let Some(m) = unique(&m) {
                                let op = match ir::classify(callee) {
                                    LibCall::MutexLock => SyncOp::Lock(m),
                                    LibCall::MutexUnlock => SyncOp::Unlock(m),
                                    _ => SyncOp::Trylock(m),
                                };
                                sync.insert(s, op);
                            } else {
                                dropped_sync.insert(s, m.len() as u32);
                                let kind = ir::classify(callee);
                                // several objects: correlate; none: nothing to correlate
                                if kind != LibCall::MutexTrylock && m.len() > 1 {
                                    ambiguous_locks.push(AmbiguousLockCall {
                                        stmt: s,
                                        lock: kind == LibCall::MutexLock,
                                        cells: m,
                                    });
                                }
                            }
                        }
                        LibCall::CondWait => {
                            let c = sync_object_of(0, pt);
                            let m = sync_object_of(1, pt);
                            sync_cells.extend(c.iter().chain(m.iter()).copied());
                            releases.insert(s, m.clone());
                            if let (Some(cond), Some(mutex)) = (unique(&c), unique(&m)) {
                                sync.insert(s, SyncOp::Wait { cond, mutex });
                            } else {
                                let odd = if unique(&c).is_none() { &c } else { &m };
                                dropped_sync.insert(s, odd.len() as u32);
                            }
                        }
                        LibCall::CondSignal | LibCall::CondBroadcast => {
                            let c = sync_object_of(0, pt);
                            sync_cells.extend(c.iter().copied());
                            if let Some(c) = unique(&c) {
                                let op = if ir::classify(callee) == LibCall::CondSignal {
                                    SyncOp::Signal(c)
                                } else {
                                    SyncOp::Broadcast(c)
                                };
                                sync.insert(s, op);
                            } else {
                                dropped_sync.insert(s, c.len() as u32);
                            }
                        }
                        LibCall::ThreadCreate => {
                            let h = cells_of(0, pt);
                            sync_cells.extend(h.iter().copied());
                            handle_of_create.insert(s, h);
                        }
                        LibCall::ThreadJoin => {
                            // The handle is a value loaded from where create stored it.
                            let handle_cells = arg(0)
                                .and_then(|op| defining_stmt(model, finst, op))
                                .and_then(|d| match model.instr(d) {
                                    Some(I::Load(l)) => model
                                        .finst_of(d)
                                        .map(|df| pt.address_cells(model, df, &l.address)),
                                    _ => None,
                                })
                                .unwrap_or_default();
                            joins.push((s, handle_cells));
                        }
                        LibCall::AssertFail => {
                            asserts.insert(s);
                        }
                        LibCall::MemCopy => {
                            let d = cells_of(0, pt);
                            let r = cells_of(1, pt);
                            note_empty(s, &d);
                            note_empty(s, &r);
                            acc.writes.entry(s).or_default().extend(d);
                            acc.reads.entry(s).or_default().extend(r);
                        }
                        _ if callee.starts_with("llvm.memset.") => {
                            let d = cells_of(0, pt);
                            note_empty(s, &d);
                            acc.writes.entry(s).or_default().extend(d);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        // Handle storage written by pthread_create is the library's business.
        for cells in handle_of_create.values() {
            sync_cells.extend(cells.iter().copied());
        }
        // Initial values of globals: one pseudo-write per global, of its cells
        // that some statement reads or writes (an unused global, or a mutex
        // never locked, has no initial value worth a fact).
        let touched: BTreeSet<LocId> = acc
            .reads
            .values()
            .chain(acc.writes.values())
            .flatten()
            .copied()
            .collect();
        for &s in &model.init_stmts {
            if let Site::Init { global } = model.stmts[s as usize].site {
                let cells = pt
                    .global_cells(global)
                    .iter()
                    .copied()
                    .filter(|c| touched.contains(c));
                acc.writes.entry(s).or_default().extend(cells);
            }
        }

        let mut scan = AccessScan {
            acc,
            sync,
            sync_cells,
            handle_of_create,
            joins,
            asserts,
            no_target,
            dropped_sync,
            correlated: CorrelatedLocks::default(),
        };
        scan.correlated = correlation::correlate(model, pt, &mut scan, &ambiguous_locks, &releases);
        scan
    }
}
