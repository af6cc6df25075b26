//! One pass over the IR that produces every relation in `schema::RELATIONS`.
//!
//! Layers, in order: thread instances and their inlined CFGs (`program`),
//! points-to and sharing (`pointsto`), memory accesses and synchronisation
//! calls (`accesses`), order and control dependence (`order`), critical
//! sections and the synchronisation idioms of EC-Diff §4.3–4.4, then SSA
//! dependence (`dependence`) and the statement table (`statements`).

mod accesses;
mod dependence;
pub mod guards;
pub mod ir;
pub mod ir_facts;
pub mod names;
pub mod order;
pub mod paths;
pub mod pointsto;
pub mod program;
pub mod sections;
mod statements;
mod sync_objects;
mod unreached;

use self::accesses::{AccessScan, SyncOp};
use self::dependence::{add_call_site_dependence, call_arguments, ssa_dependence};
use self::ir_facts::IrFacts;
use self::order::ThreadGraph;
use self::pointsto::{LocId, PointsTo};
pub use self::program::ExtractOptions;
use self::program::{ProgramModel, StmtId};
use self::sections::{Held, NodeEffects};
use self::statements::{dedupe_location_names, statement_table};
use super::relations::{
    AccessNoTarget, AssertSite, BusyWait, CallArg, CondBroadcast, CondSignal, CondSignalFlagged,
    CondWait, CondWaitGuarded, ControlDep, CsWrittenAfter, CsWrittenBefore, DefUse,
    DiffCriticalSection, DomParent, FlagEnabler, FlagGuard, InCriticalSection, MemRead, MemWrite,
    MutexLock, MutexTrylock, MutexUnlock, PoNext, PoScc, PoSccCyclic, PoSccNext, Postdom,
    SameCriticalSection, SharedRead, SharedWrite, StmtThread, SyncDropped, ThreadAlways,
    ThreadCreate, ThreadJoin, TypedRelation, UnresolvedCall, UnresolvedThreadStart,
};
use super::{FactSet, LocationInfo, Manifest, Row, ThreadInfo};
use crate::error::Result;
use crate::frontend::Program;
use crate::parallel;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::terminator::Terminator as T;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// How deep the backward SSA slice of a branch condition goes when looking
/// for the flag read of a guarded wait or a spin loop.
const CONDITION_SLICE_DEPTH: usize = 8;

pub fn extract(program: &Program, opts: &ExtractOptions) -> Result<FactSet> {
    let pt = PointsTo::compute(IrFacts::build(&program.module));
    let model = ProgramModel::build(&program.module, &program.input, opts, &pt)?;
    // Rows are collected unsorted and put in order once at the end
    // (`sorted_relations`): inserting millions of rows one by one into
    // ordered sets took a tenth of the run.
    let mut rel: BTreeMap<&'static str, Vec<Row>> = FactSet::empty_relations()
        .into_keys()
        .map(|name| (name, Vec::new()))
        .collect();
    macro_rules! add {
        ($row:expr) => {
            collect(&mut rel, $row)
        };
    }

    // --- memory accesses and synchronisation calls -------------------------
    let AccessScan {
        acc,
        sync,
        sync_cells,
        handle_of_create,
        joins,
        asserts,
        no_target,
        dropped_sync,
    } = AccessScan::collect(&model, &pt);

    // --- sharing ----------------------------------------------------------------
    // A cell is shared when its object may be reached by several threads
    // (pt_shared: globals and what thread payloads reach) *and* two threads
    // access it, one of them writing (initial values count as main's
    // writes). A cell no other thread touches can take part in no
    // cross-thread read-from and in no ordering the rules derive, so its
    // accesses are not hb events: this keeps the events, and the order
    // relations over them, to the memory threads really communicate through.
    let conflicting = acc.conflicting_cells(&model);
    let is_shared =
        |c: LocId| pt.is_shared(c) && !sync_cells.contains(&c) && conflicting.contains(&c);

    // --- thread graphs, control dependence, SSA dependence ------------------
    let thread_ids: Vec<usize> = (0..model.threads.len()).collect();
    let graphs: Vec<ThreadGraph> = parallel::map(&thread_ids, |&t| ThreadGraph::build(&model, t));
    let mut control: BTreeSet<(StmtId, StmtId)> = BTreeSet::new();
    for tg in &graphs {
        control.extend(order::control_dependence(tg));
    }
    add_call_site_dependence(&model, &mut control);
    let def_use = ssa_dependence(&model);
    let mut uses_of_def: HashMap<StmtId, Vec<StmtId>> = HashMap::new();
    let mut defs_of_use: HashMap<StmtId, Vec<StmtId>> = HashMap::new();
    for &(d, u) in &def_use {
        uses_of_def.entry(d).or_default().push(u);
        defs_of_use.entry(u).or_default().push(d);
    }
    let condition_slice = |b: StmtId| -> BTreeSet<StmtId> {
        let mut seen = BTreeSet::new();
        let mut layer = vec![b];
        for _ in 0..CONDITION_SLICE_DEPTH {
            let mut next = Vec::new();
            for x in layer {
                for &d in defs_of_use.get(&x).into_iter().flatten() {
                    if seen.insert(d) {
                        next.push(d);
                    }
                }
            }
            layer = next;
        }
        seen
    };

    // --- hb events -----------------------------------------------------------
    // The shared part of each statement's accesses.
    let shared_only =
        |accesses: &BTreeMap<StmtId, BTreeSet<LocId>>| -> BTreeMap<StmtId, Vec<LocId>> {
            accesses
                .iter()
                .map(|(&s, cells)| {
                    (
                        s,
                        cells
                            .iter()
                            .copied()
                            .filter(|&c| is_shared(c))
                            .collect::<Vec<_>>(),
                    )
                })
                .filter(|(_, v)| !v.is_empty())
                .collect()
        };
    let shared_reads = shared_only(&acc.reads);
    let shared_writes = shared_only(&acc.writes);
    let mut events: HashSet<StmtId> = HashSet::new();
    events.extend(shared_reads.keys());
    events.extend(shared_writes.keys());
    events.extend(sync.keys());
    events.extend(handle_of_create.keys());
    events.extend(joins.iter().map(|(s, _)| *s));

    // --- critical sections (locksets, covered accesses) ----------------------
    let held: Vec<Vec<Option<Held>>> = parallel::map(&graphs, |tg| sections::locksets(tg, &sync));
    // Stores that surely write one shared location (a store or atomic RMW
    // with a single target); cmpxchg may not write, memcpy may write part.
    let strong_write: BTreeMap<StmtId, LocId> = shared_writes
        .iter()
        .filter(|(s, _)| matches!(model.instr(**s), Some(I::Store(_)) | Some(I::AtomicRMW(_))))
        .filter_map(|(&s, _)| {
            let all = acc.writes.get(&s)?;
            let only = (all.len() == 1).then(|| *all.iter().next().unwrap())?;
            is_shared(only).then_some((s, only))
        })
        .collect();
    let mut written_before: BTreeSet<(StmtId, LocId, LocId)> = BTreeSet::new();
    let mut written_after: BTreeSet<(StmtId, LocId, LocId)> = BTreeSet::new();
    let with_held: Vec<(&ThreadGraph, &Vec<Option<Held>>)> = graphs.iter().zip(&held).collect();
    let covered = parallel::map(&with_held, |&(tg, held)| {
        let fx = NodeEffects {
            sync: &sync,
            strong_write: &strong_write,
            held,
        };
        sections::covered_accesses(tg, &fx, &shared_reads, &shared_writes)
    });
    for (b, a) in covered {
        written_before.extend(b);
        written_after.extend(a);
    }
    let held_at = |s: StmtId| -> Held {
        let t = model.stmts[s as usize].thread as usize;
        graphs[t]
            .local
            .get(&s)
            .and_then(|&i| held[t][i].clone())
            .unwrap_or_default()
    };

    // --- synchronisation idioms (EC-Diff §4.3, §4.4) -------------------------
    let mut guarded: BTreeSet<(StmtId, LocId)> = BTreeSet::new();
    let mut flagged: BTreeSet<(StmtId, LocId)> = BTreeSet::new();
    let mut busy: BTreeSet<(StmtId, LocId, StmtId)> = BTreeSet::new();
    let mut controllers: HashMap<StmtId, Vec<StmtId>> = HashMap::new();
    for &(b, x) in &control {
        controllers.entry(x).or_default().push(b);
    }
    for (&w, op) in &sync {
        if let SyncOp::Wait { mutex, .. } = op {
            for &b in controllers.get(&w).into_iter().flatten() {
                for r in condition_slice(b) {
                    let holds = held_at(r).contains_key(mutex);
                    if holds {
                        for &v in shared_reads.get(&r).into_iter().flatten() {
                            guarded.insert((w, v));
                        }
                    }
                }
            }
        }
    }
    for (t, tg) in graphs.iter().enumerate() {
        for &b in &tg.nodes {
            let Some(T::CondBr(_)) = model.term(b) else {
                continue;
            };
            if !tg.in_cycle(b) {
                continue;
            }
            let i = tg.local[&b];
            let exits: Vec<usize> = tg.succ[i]
                .iter()
                .copied()
                .filter(|&x| tg.scc[x] != tg.scc[i])
                .collect();
            if exits.len() != 1 || tg.succ[i].len() != 2 {
                continue;
            }
            let body: Vec<StmtId> = tg.scc_members[tg.scc[i]]
                .iter()
                .map(|&k| tg.nodes[k])
                .collect();
            let quiet = body.iter().all(|s| {
                !shared_writes.contains_key(s)
                    && !sync.contains_key(s)
                    && !handle_of_create.contains_key(s)
            });
            if !quiet {
                continue;
            }
            let exit = tg.nodes[exits[0]];
            for r in condition_slice(b) {
                if tg.same_cycle(r, b) {
                    for &v in shared_reads.get(&r).into_iter().flatten() {
                        busy.insert((r, v, exit));
                    }
                }
            }
            let _ = t;
        }
    }
    events.extend(busy.iter().map(|&(_, _, x)| x));

    // --- flag-guarded regions (EC-Diff §4.4 generalised) ----------------------
    let single_read: BTreeMap<StmtId, LocId> = shared_reads
        .iter()
        .filter(|(s, _)| matches!(model.instr(**s), Some(I::Load(_))))
        .filter_map(|(&s, _)| {
            let all = acc.reads.get(&s)?;
            let only = (all.len() == 1).then(|| *all.iter().next().unwrap())?;
            is_shared(only).then_some((s, only))
        })
        .collect();
    let mut writers: BTreeMap<LocId, Vec<StmtId>> = BTreeMap::new();
    for (&s, cells) in &shared_writes {
        for &c in cells {
            writers.entry(c).or_default().push(s);
        }
    }
    let constant = |s: StmtId| guards::store_constant(&model, &pt, &strong_write, s);
    let flag_mem = guards::FlagMemory {
        single_read: &single_read,
        writers: &writers,
        constant: &constant,
        events: &events,
    };
    let flag_guards: Vec<guards::FlagGuard> = graphs
        .iter()
        .flat_map(|tg| guards::flag_guards(&model, tg, &flag_mem))
        .collect();

    // --- order between events --------------------------------------------------
    // Always-executed events; create/join sites the thread model unrolls
    // (inside loops) are assumed to run once per modelled instance.
    let join_sites: HashSet<StmtId> = joins.iter().map(|(j, _)| *j).collect();
    for tg in &graphs {
        for s in order::always_executed(tg) {
            if events.contains(&s) {
                add!(ThreadAlways { s: s.into() });
            }
        }
        for &s in &tg.nodes {
            let unrolled = handle_of_create.contains_key(&s) || join_sites.contains(&s);
            if unrolled && tg.in_cycle(s) {
                add!(ThreadAlways { s: s.into() });
            }
        }
    }
    // Only "x dominates a signal" is asked of the dominance pairs below.
    let signals: HashSet<StmtId> = sync
        .iter()
        .filter(|(_, op)| matches!(op, SyncOp::Signal(_) | SyncOp::Broadcast(_)))
        .map(|(&s, _)| s)
        .collect();
    let mut dom_pairs: HashSet<(u32, u32)> = HashSet::new();
    // Component ids are numbered across threads so that they stay distinct.
    let mut scc_base: u32 = 0;
    let orders = parallel::map(&graphs, |tg| order::event_order(tg, &events, &signals));
    for (tg, ord) in graphs.iter().zip(orders) {
        dom_pairs.extend(ord.dom_of_wanted);
        for &(s, c) in &ord.scc {
            add!(PoScc {
                s: s.into(),
                c: scc_base + c as u32
            });
        }
        for &c in &ord.scc_cyclic {
            add!(PoSccCyclic {
                c: scc_base + c as u32
            });
        }
        for &(c, d) in &ord.scc_next {
            add!(PoSccNext {
                c1: scc_base + c as u32,
                c2: scc_base + d as u32
            });
        }
        scc_base += tg.scc_cyclic.len() as u32;
        for (a, b) in ord.dom_parent {
            add!(DomParent {
                s1: a.into(),
                s2: b.into()
            });
        }
        for (a, b) in ord.postdom {
            add!(Postdom {
                s1: a.into(),
                s2: b.into()
            });
        }
    }
    for (&s, op) in &sync {
        if let SyncOp::Signal(_) | SyncOp::Broadcast(_) = op {
            for (&x, cells) in &shared_writes {
                if dom_pairs.contains(&(x, s)) {
                    for &v in cells {
                        flagged.insert((s, v));
                    }
                }
            }
        }
    }

    // --- location ids: cells, densely numbered --------------------------------
    // Only cells something touches get an id (string literals and the like do not).
    let mut all_cells: BTreeSet<LocId> = BTreeSet::new();
    all_cells.extend(acc.reads.values().flatten().copied());
    all_cells.extend(acc.writes.values().flatten().copied());
    all_cells.extend(sync_cells.iter().copied());
    let loc_out: HashMap<LocId, u32> = all_cells
        .iter()
        .enumerate()
        .map(|(i, &c)| (c, i as u32))
        .collect();
    let lo = |c: LocId| loc_out[&c];

    // --- relations --------------------------------------------------------------
    for (t, th) in model.threads.iter().enumerate() {
        for &s in &th.stmts {
            add!(StmtThread {
                s: s.into(),
                t: (t as u32).into()
            });
            for &n in &model.succ[s as usize] {
                add!(PoNext {
                    s1: s.into(),
                    s2: n.into()
                });
            }
        }
    }
    for (&create, children) in &model.children_of {
        let parent = model.stmts[create as usize].thread;
        for &c in children {
            add!(ThreadCreate {
                s: create.into(),
                parent: parent.into(),
                child: c.into()
            });
        }
    }
    for (j, handle) in &joins {
        let parent = model.stmts[*j as usize].thread;
        for (create, cells) in &handle_of_create {
            if !handle.is_empty() && !cells.is_disjoint(handle) {
                for &c in model.children_of.get(create).into_iter().flatten() {
                    add!(ThreadJoin {
                        s: (*j).into(),
                        parent: parent.into(),
                        child: c.into()
                    });
                }
            }
        }
    }
    for (&s, op) in &sync {
        match *op {
            SyncOp::Lock(m) => add!(MutexLock {
                s: s.into(),
                m: lo(m).into()
            }),
            SyncOp::Unlock(m) => add!(MutexUnlock {
                s: s.into(),
                m: lo(m).into()
            }),
            SyncOp::Trylock(m) => add!(MutexTrylock {
                s: s.into(),
                m: lo(m).into()
            }),
            SyncOp::Wait { cond, mutex } => add!(CondWait {
                s: s.into(),
                c: lo(cond).into(),
                m: lo(mutex).into()
            }),
            SyncOp::Signal(c) => add!(CondSignal {
                s: s.into(),
                c: lo(c).into()
            }),
            SyncOp::Broadcast(c) => add!(CondBroadcast {
                s: s.into(),
                c: lo(c).into()
            }),
        }
    }
    for &(w, v) in &guarded {
        add!(CondWaitGuarded {
            w: w.into(),
            v: lo(v).into()
        });
    }
    for &(s, v) in &flagged {
        add!(CondSignalFlagged {
            s: s.into(),
            v: lo(v).into()
        });
    }
    for &(r, v, x) in &busy {
        add!(BusyWait {
            r: r.into(),
            v: lo(v).into(),
            x: x.into()
        });
    }
    for g in &flag_guards {
        for &x in &g.region {
            add!(FlagGuard {
                g: g.entry.into(),
                r: g.load.into(),
                s: x.into()
            });
        }
        for &w in &g.enablers {
            add!(FlagEnabler {
                g: g.entry.into(),
                w: w.into()
            });
        }
    }
    for &(l, v, m) in &written_before {
        add!(CsWrittenBefore {
            l: l.into(),
            v: lo(v).into(),
            m: lo(m).into()
        });
    }
    for &(w, v, m) in &written_after {
        add!(CsWrittenAfter {
            s: w.into(),
            v: lo(v).into(),
            m: lo(m).into()
        });
    }
    // Critical sections, restricted to events. Two events share a critical
    // section of m when some acquisition of m may have opened both.
    let mut holders: BTreeMap<LocId, Vec<(StmtId, BTreeSet<StmtId>)>> = BTreeMap::new();
    let mut sorted_events: Vec<StmtId> = events.iter().copied().collect();
    sorted_events.sort_unstable();
    for &s in &sorted_events {
        for (m, acquirers) in held_at(s) {
            for &l in &acquirers {
                add!(InCriticalSection {
                    s: s.into(),
                    m: lo(m).into(),
                    l: l.into()
                });
            }
            holders.entry(m).or_default().push((s, acquirers));
        }
    }
    // The rules read diff_critical_section only for a shared store and a
    // shared load of the same cell (rf.dl's lock rules); all pairs of
    // events were 1.64 M rows on pigz, these pairs about a tenth of that.
    // Both relations are built from their pairs only (by acquisition, by
    // cell): testing every pair of events holding m was quadratic in the
    // events under m whatever the output.
    for (&m, members) in &holders {
        let mut by_acquirer: HashMap<StmtId, Vec<usize>> = HashMap::new();
        let mut readers_of: HashMap<LocId, Vec<usize>> = HashMap::new();
        for (i, (s, acquirers)) in members.iter().enumerate() {
            for &l in acquirers {
                by_acquirer.entry(l).or_default().push(i);
            }
            for &c in shared_reads.get(s).into_iter().flatten() {
                readers_of.entry(c).or_default().push(i);
            }
        }
        // A pair with several common acquisitions comes once per
        // acquisition; the relation is a set.
        for group in by_acquirer.values() {
            for &i in group {
                for &j in group {
                    if i != j {
                        add!(SameCriticalSection {
                            s1: members[i].0.into(),
                            s2: members[j].0.into(),
                            m: lo(m).into(),
                        });
                    }
                }
            }
        }
        for (i, (w, held_w)) in members.iter().enumerate() {
            for &c in shared_writes.get(w).into_iter().flatten() {
                for &j in readers_of.get(&c).into_iter().flatten() {
                    let (r, held_r) = &members[j];
                    if i != j && held_w.is_disjoint(held_r) {
                        add!(DiffCriticalSection {
                            s1: (*w).into(),
                            s2: (*r).into(),
                            m: lo(m).into()
                        });
                    }
                }
            }
        }
    }
    for (&s, cells) in &acc.reads {
        for &c in cells {
            add!(MemRead {
                s: s.into(),
                v: lo(c).into()
            });
        }
    }
    for (&s, cells) in &acc.writes {
        for &c in cells {
            add!(MemWrite {
                s: s.into(),
                v: lo(c).into()
            });
        }
    }
    for (&s, cells) in &shared_reads {
        for &c in cells {
            add!(SharedRead {
                s: s.into(),
                v: lo(c).into()
            });
        }
    }
    for (&s, cells) in &shared_writes {
        for &c in cells {
            add!(SharedWrite {
                s: s.into(),
                v: lo(c).into()
            });
        }
    }
    for &(d, u) in &def_use {
        add!(DefUse {
            d: d.into(),
            u: u.into()
        });
    }
    for &(b, s) in &control {
        add!(ControlDep {
            b: b.into(),
            s: s.into()
        });
    }
    for &s in &asserts {
        add!(AssertSite { s: s.into() });
    }
    for (call, index, d) in call_arguments(&model) {
        add!(CallArg {
            call: call.into(),
            index,
            d: d.into()
        });
    }
    for &s in &model.unresolved_calls {
        add!(UnresolvedCall { s: s.into() });
    }
    for &s in &model.unresolved_starts {
        add!(UnresolvedThreadStart { s: s.into() });
    }
    for &s in &no_target {
        add!(AccessNoTarget { s: s.into() });
    }
    for (&s, &targets) in &dropped_sync {
        add!(SyncDropped {
            s: s.into(),
            targets
        });
    }

    let mut facts = FactSet {
        statements: statement_table(&model),
        locations: all_cells
            .iter()
            .map(|&c| {
                let (name, object) = pt.describe(&model, c);
                LocationInfo {
                    id: lo(c),
                    name,
                    object,
                    shared: is_shared(c),
                }
            })
            .collect(),
        threads: model
            .threads
            .iter()
            .map(|t| ThreadInfo {
                id: t.id,
                parent: t.parent,
                create_stmt: t.create_stmt,
                function: model.module.functions[t.func].name.clone(),
                instance: t.instance,
            })
            .collect(),
        names: Vec::new(),
        unreached: unreached::unreached_functions(&model),
        relations: sorted_relations(&pt.ir.rows, rel),
        manifest: Manifest {
            tool: "concord".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            input: program.input.display().to_string(),
            input_sha256: program.input_sha256.clone(),
            cflags: crate::frontend::BASE_CFLAGS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            counts: BTreeMap::new(),
        },
    };
    dedupe_location_names(&mut facts.locations);
    let debug = names::DebugTypes::read(&program.bitcode, &program.module);
    let cells: Vec<(u32, LocId)> = all_cells.iter().map(|&c| (lo(c), c)).collect();
    facts.names = names::location_names(&program.module, &pt, &debug, &cells);
    facts.recount();
    Ok(facts)
}

/// Collects one row of `R`, unsorted (see `sorted_relations`).
fn collect<R: TypedRelation>(rel: &mut BTreeMap<&'static str, Vec<Row>>, row: R) {
    rel.get_mut(R::NAME)
        .expect("declared relation")
        .push(row.to_row());
}

/// The relations of a fact set: the base IR rows as they are, plus the
/// collected rows, sorted and without duplicates.
fn sorted_relations(
    ir: &BTreeMap<&'static str, BTreeSet<Row>>,
    collected: BTreeMap<&'static str, Vec<Row>>,
) -> BTreeMap<&'static str, BTreeSet<Row>> {
    let mut out = FactSet::empty_relations();
    for (name, rows) in ir {
        out.insert(name, rows.clone());
    }
    for (name, rows) in collected {
        let set = out.get_mut(name).expect("declared relation");
        if set.is_empty() {
            // One sort and a bulk build instead of an insert per row.
            *set = rows.into_iter().collect();
        } else {
            set.extend(rows);
        }
    }
    out
}

/// One line per call or thread start the points-to rules could not
/// resolve (the `unresolved_call` and `unresolved_thread_start` facts),
/// deduplicated across thread instances, for warnings on stderr.
pub fn unresolved_warnings(facts: &FactSet) -> Vec<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    let unknown_start = format!(
        "{} with no known start routine: the thread is not modelled",
        crate::calls::THREAD_CREATE
    );
    let unresolved = facts
        .iter::<UnresolvedCall>()
        .map(|row| {
            (
                row.s,
                "call through a pointer with no known target: its callee is not modelled",
            )
        })
        .chain(
            facts
                .iter::<UnresolvedThreadStart>()
                .map(|row| (row.s, unknown_start.as_str())),
        );
    for (stmt, what) in unresolved {
        if let Some(s) = facts.statement(stmt.0) {
            out.insert(format!("{}: in {}: {what}", s.location(), s.function));
        }
    }
    out.into_iter().collect()
}
