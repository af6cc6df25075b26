//! The last phase of extraction: writing the derived relations as rows.
//! Rows are collected unsorted and put in order once at the end
//! (`sorted_relations` in the parent module): inserting millions of rows
//! one by one into ordered sets took a tenth of the run.

use super::accesses::{AccessScan, SyncOp};
use super::dependence::call_arguments;
use super::guards::FlagGuard as FlagRegion;
use super::model_gaps::ModelGaps;
use super::order::ThreadGraph;
use super::pointsto::LocId;
use super::program::{ProgramModel, StmtId};
use super::{CriticalSections, Dependences, Events, LocationIds, SyncIdioms};
use crate::facts::relations::{
    AccessNoTarget, AssertSite, BusyWait, CallArg, CallCut, CallShared, CallbackEscape,
    CondBroadcast, CondSignal, CondSignalFlagged, CondWait, CondWaitGuarded, ControlDep,
    CsWrittenAfter, CsWrittenBefore, DefUse, DiffCriticalSection, ExternalCallback, FlagEnabler,
    FlagGuard, ForkCall, InCriticalSection, InlineAsm, JoinUnmatched, LibraryMemory, LoadOne,
    MemRead, MemWrite, MutexLock, MutexTrylock, MutexUnlock, PoNext, SameCriticalSection,
    SharedRead, SharedWrite, StmtCaller, StmtThread, StoreStrong, SyncDropped, SyncUnmodelled,
    ThreadBound, ThreadCreate, ThreadEndCall, ThreadJoin, TypedRelation, UnresolvedCall,
    UnresolvedThreadStart,
};
use crate::facts::FactSet;
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// Rows per relation, unsorted, flat (`RowSet`'s layout: a 50 KLoC
/// program collects 9.4 million rows, and a vector per row was a tenth of
/// its extraction).
pub(super) struct Rows {
    pub(super) collected: BTreeMap<&'static str, Vec<u32>>,
    /// The relations left out (`ExtractOptions::omit`).
    pub(super) omitted: &'static [&'static str],
}

impl Rows {
    /// Rows for every declared relation but those in `omit`.
    pub(super) fn omitting(omit: &'static [&'static str]) -> Self {
        Rows {
            omitted: omit,
            collected: FactSet::empty_relations()
                .into_keys()
                .filter(|name| !omit.contains(name))
                .map(|name| (name, Vec::new()))
                .collect(),
        }
    }

    /// Whether rows of `R` are collected (not omitted).
    pub(super) fn wants<R: TypedRelation>(&self) -> bool {
        self.collected.contains_key(R::NAME)
    }

    /// Collects one row of `R` (nothing for an omitted relation).
    pub(super) fn add<R: TypedRelation>(&mut self, row: R) {
        if let Some(rows) = self.collected.get_mut(R::NAME) {
            row.push_to(rows);
        }
    }

    /// Threads, program order, creates and joins.
    pub(super) fn threads(&mut self, model: &ProgramModel<'_>, scan: &AccessScan) {
        for (t, th) in model.threads.iter().enumerate() {
            for &s in &th.stmts {
                self.add(StmtThread {
                    s: s.into(),
                    t: (t as u32).into(),
                });
                let caller = model
                    .finst_of(s)
                    .and_then(|f| model.finsts[f].caller)
                    .filter(|&c| model.stmts[c as usize].thread == t as u32);
                if let Some(c) = caller {
                    self.add(StmtCaller {
                        s: s.into(),
                        c: c.into(),
                    });
                }
                for &n in &model.succ[s as usize] {
                    self.add(PoNext {
                        s1: s.into(),
                        s2: n.into(),
                    });
                }
            }
        }
        for (&create, children) in &model.children_of {
            let parent = model.stmts[create as usize].thread;
            for &c in children {
                self.add(ThreadCreate {
                    s: create.into(),
                    parent: parent.into(),
                    child: c.into(),
                });
            }
        }
        for (j, handle) in &scan.joins {
            let parent = model.stmts[*j as usize].thread;
            for (create, cells) in &scan.handle_of_create {
                if !handle.is_empty() && !cells.is_disjoint(handle) {
                    for &c in model.children_of.get(create).into_iter().flatten() {
                        self.add(ThreadJoin {
                            s: (*j).into(),
                            parent: parent.into(),
                            child: c.into(),
                        });
                    }
                }
            }
        }
    }

    /// Lock, unlock, wait and signal calls with their objects.
    pub(super) fn synchronisation(&mut self, scan: &AccessScan, locs: &LocationIds) {
        let lo = |c: LocId| locs.of(c);
        for (&s, op) in &scan.sync {
            match *op {
                SyncOp::Lock(m) => self.add(MutexLock {
                    s: s.into(),
                    m: lo(m).into(),
                }),
                SyncOp::Unlock(m) => self.add(MutexUnlock {
                    s: s.into(),
                    m: lo(m).into(),
                }),
                SyncOp::Trylock(m) => self.add(MutexTrylock {
                    s: s.into(),
                    m: lo(m).into(),
                }),
                SyncOp::Wait { cond, mutex } => self.add(CondWait {
                    s: s.into(),
                    c: lo(cond).into(),
                    m: lo(mutex).into(),
                }),
                SyncOp::Signal(c) => self.add(CondSignal {
                    s: s.into(),
                    c: lo(c).into(),
                }),
                SyncOp::Broadcast(c) => self.add(CondBroadcast {
                    s: s.into(),
                    c: lo(c).into(),
                }),
            }
        }
    }

    /// Guarded waits, flagged signals, busy waits and flag-guarded regions.
    pub(super) fn idioms(
        &mut self,
        idioms: &SyncIdioms,
        flagged: &BTreeSet<(StmtId, LocId)>,
        flag_guards: &[FlagRegion],
        locs: &LocationIds,
    ) {
        let lo = |c: LocId| locs.of(c);
        for &(w, v) in &idioms.guarded {
            self.add(CondWaitGuarded {
                w: w.into(),
                v: lo(v).into(),
            });
        }
        for &(s, v) in flagged {
            self.add(CondSignalFlagged {
                s: s.into(),
                v: lo(v).into(),
            });
        }
        for &(r, v, x) in &idioms.busy {
            self.add(BusyWait {
                r: r.into(),
                v: lo(v).into(),
                x: x.into(),
            });
        }
        for g in flag_guards {
            for &x in &g.region {
                self.add(FlagGuard {
                    g: g.entry.into(),
                    r: g.load.into(),
                    s: x.into(),
                });
            }
            for &w in &g.enablers {
                self.add(FlagEnabler {
                    g: g.entry.into(),
                    w: w.into(),
                });
            }
        }
    }

    /// Covered accesses and critical sections, restricted to events.
    pub(super) fn critical_sections(
        &mut self,
        model: &ProgramModel<'_>,
        graphs: &[ThreadGraph],
        sections: &CriticalSections,
        events: &Events,
        locs: &LocationIds,
    ) {
        let lo = |c: LocId| locs.of(c);
        for &(l, v, m) in &sections.written_before {
            self.add(CsWrittenBefore {
                l: l.into(),
                v: lo(v).into(),
                m: lo(m).into(),
            });
        }
        for &(w, v, m) in &sections.written_after {
            self.add(CsWrittenAfter {
                s: w.into(),
                v: lo(v).into(),
                m: lo(m).into(),
            });
        }
        // Two events share a critical section of m when some acquisition
        // of m may have opened both.
        let mut holders: BTreeMap<LocId, Vec<(StmtId, BTreeSet<StmtId>)>> = BTreeMap::new();
        let mut sorted_events: Vec<StmtId> = events.all.iter().copied().collect();
        sorted_events.sort_unstable();
        for &s in &sorted_events {
            for (&m, acquirers) in sections.held_at(model, graphs, s).iter() {
                for &l in acquirers {
                    self.add(InCriticalSection {
                        s: s.into(),
                        m: lo(m).into(),
                        l: l.into(),
                    });
                }
                holders.entry(m).or_default().push((s, acquirers.clone()));
            }
        }
        // The rules read diff_critical_section only for a shared store and a
        // shared load of the same cell, the load covered for the cell under
        // m (lock rule 1) or the store covered (lock rule 2): rf.dl's lock
        // rules join it with rf_covered_load / rf_covered_store and nothing
        // else. All pairs of events were 1.64 M rows on pigz; the store/load
        // pairs of a cell, 2.09 M rows on a 50 KLoC program, most of them
        // with neither end covered.
        // Both relations are built from their pairs only (by acquisition, by
        // cell): testing every pair of events holding m was quadratic in the
        // events under m whatever the output.
        for (&m, members) in &holders {
            let mut by_acquirer: HashMap<StmtId, Vec<usize>> = HashMap::default();
            let mut readers_of: HashMap<LocId, Vec<usize>> = HashMap::default();
            for (i, (s, acquirers)) in members.iter().enumerate() {
                for &l in acquirers {
                    by_acquirer.entry(l).or_default().push(i);
                }
                for &c in events.shared_reads.get(s).into_iter().flatten() {
                    readers_of.entry(c).or_default().push(i);
                }
            }
            // A pair with several common acquisitions comes once per
            // acquisition; the relation is a set. (No rule reads it: a
            // diff omits it, and skips its quadratic loop.)
            if self.wants::<SameCriticalSection>() {
                for group in by_acquirer.values() {
                    for &i in group {
                        for &j in group {
                            if i != j {
                                self.add(SameCriticalSection {
                                    s1: members[i].0.into(),
                                    s2: members[j].0.into(),
                                    m: lo(m).into(),
                                });
                            }
                        }
                    }
                }
            }
            for (i, (w, held_w)) in members.iter().enumerate() {
                for &c in events.shared_writes.get(w).into_iter().flatten() {
                    for &j in readers_of.get(&c).into_iter().flatten() {
                        let (r, held_r) = &members[j];
                        let covered = sections.written_before.contains(&(*r, c, m))
                            || sections.written_after.contains(&(*w, c, m));
                        if i != j && covered && held_w.is_disjoint(held_r) {
                            self.add(DiffCriticalSection {
                                s1: (*w).into(),
                                s2: (*r).into(),
                                m: lo(m).into(),
                            });
                        }
                    }
                }
            }
        }
    }

    /// Every access, and its shared part.
    pub(super) fn accesses(&mut self, scan: &AccessScan, events: &Events, locs: &LocationIds) {
        let lo = |c: LocId| locs.of(c);
        for (&s, cells) in &scan.acc.reads {
            for &c in cells {
                self.add(MemRead {
                    s: s.into(),
                    v: lo(c).into(),
                });
            }
        }
        for (&s, cells) in &scan.acc.writes {
            for &c in cells {
                self.add(MemWrite {
                    s: s.into(),
                    v: lo(c).into(),
                });
            }
        }
        for (&s, cells) in &events.shared_reads {
            for &c in cells {
                self.add(SharedRead {
                    s: s.into(),
                    v: lo(c).into(),
                });
            }
        }
        for (&s, cells) in &events.shared_writes {
            for &c in cells {
                self.add(SharedWrite {
                    s: s.into(),
                    v: lo(c).into(),
                });
            }
        }
    }

    /// The stores that overwrite their one location (`store_strong`) and the
    /// loads of one location only (`load_one`): the overwrite rules of
    /// rf.dl need one, and the other end's one location.
    pub(super) fn sole_accesses(
        &mut self,
        strong_write: &BTreeMap<StmtId, LocId>,
        one_cell: &dyn Fn(LocId) -> bool,
        events: &Events,
        locs: &LocationIds,
    ) {
        // a heap object allocated more than once, an element `[*]`: a store
        // to another cell overwrites only through store_same_object
        for (&s, &c) in strong_write.iter().filter(|(_, &c)| one_cell(c)) {
            self.add(StoreStrong {
                s: s.into(),
                v: locs.of(c).into(),
            });
        }
        for (&s, cells) in &events.shared_reads {
            if let [c] = cells.as_slice() {
                self.add(LoadOne {
                    s: s.into(),
                    v: locs.of(*c).into(),
                });
            }
        }
    }

    /// SSA and control dependence, call arguments, asserts, and what the
    /// model could not resolve.
    pub(super) fn dependences(
        &mut self,
        model: &ProgramModel<'_>,
        deps: &Dependences,
        scan: &AccessScan,
    ) {
        for &(d, u) in &deps.def_use {
            self.add(DefUse {
                d: d.into(),
                u: u.into(),
            });
        }
        for &(b, s) in &deps.control {
            self.add(ControlDep {
                b: b.into(),
                s: s.into(),
            });
        }
        for &s in &scan.asserts {
            self.add(AssertSite { s: s.into() });
        }
        for (call, index, d) in call_arguments(model) {
            self.add(CallArg {
                call: call.into(),
                index,
                d: d.into(),
            });
        }
        for &s in &model.unresolved_calls {
            self.add(UnresolvedCall { s: s.into() });
        }
        for &s in &model.unresolved_starts {
            self.add(UnresolvedThreadStart { s: s.into() });
        }
        for &s in &model.forks {
            self.add(ForkCall { s: s.into() });
        }
        for &s in &scan.no_target {
            self.add(AccessNoTarget { s: s.into() });
        }
        for (&s, &targets) in &scan.dropped_sync {
            self.add(SyncDropped {
                s: s.into(),
                targets,
            });
        }
        for &s in &model.inline_asm {
            self.add(InlineAsm { s: s.into() });
        }
        for &(s, callee) in &model.callbacks {
            let entry = model.finsts[callee].blocks[0][0];
            self.add(ExternalCallback {
                s: s.into(),
                e: entry.into(),
            });
        }
    }

    /// What the thread model bounded or cut, and the gaps `ModelGaps` found.
    pub(super) fn model_gaps(&mut self, model: &ProgramModel<'_>, gaps: &ModelGaps) {
        for &s in &model.bounded_creates {
            self.add(ThreadBound { s: s.into() });
        }
        for &(s, why) in &model.cut_calls {
            self.add(CallCut {
                s: s.into(),
                why: why as u32,
            });
        }
        for &(s, c) in &model.shared_calls {
            self.add(CallShared {
                s: s.into(),
                c: c.into(),
            });
        }
        for &s in &gaps.library_memory {
            self.add(LibraryMemory { s: s.into() });
        }
        for &s in &gaps.unmatched_joins {
            self.add(JoinUnmatched { s: s.into() });
        }
        for &s in &gaps.thread_ends {
            self.add(ThreadEndCall { s: s.into() });
        }
        for &(s, e) in &gaps.escapes {
            self.add(CallbackEscape {
                s: s.into(),
                e: e.into(),
            });
        }
        for &s in &gaps.unmodelled_sync {
            self.add(SyncUnmodelled { s: s.into() });
        }
    }
}
