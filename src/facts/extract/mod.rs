//! One pass over the IR that produces every relation in `schema::RELATIONS`.
//!
//! Layers, in order: thread instances and their inlined CFGs (`program`),
//! points-to and sharing (`pointsto`), memory accesses and synchronisation
//! calls (`accesses`), order and control dependence (`order`), critical
//! sections and the synchronisation idioms of EC-Diff §4.3–4.4, then SSA
//! dependence (`dependence`), the statement table (`statements`) and the
//! rows of the derived relations (`rows`).

mod accesses;
mod correlation;
mod dependence;
mod dominators;
pub mod guards;
pub mod ir;
pub mod ir_facts;
mod model_gaps;
pub mod names;
pub mod order;
pub mod paths;
pub mod pointsto;
pub mod program;
mod rows;
mod same_object;
pub mod sections;
mod statements;
mod step_clock;
pub use self::step_clock::StepClock;
pub mod struct_types;
mod sync_objects;
mod unreached;

use self::accesses::{AccessScan, SyncOp};
use self::correlation::CorrelatedLocks;
use self::dependence::{add_call_site_dependence, definitions_used, ssa_dependence};
use self::ir_facts::IrFacts;
use self::order::ThreadGraph;
use self::pointsto::{LocId, PointsTo};
pub use self::program::ExtractOptions;
use self::program::{ProgramModel, Site, StmtId};
use self::rows::Rows;
use self::sections::{Held, NodeEffects};
use self::statements::{dedupe_location_names, statement_table};
use super::relations::{
    CallArg, ControlDep, DefUse, DomNearStore, DomParent, DomPath, DomPathAbove, ForkCall,
    InlineAsm, LoadStoreSameObject, MemRead, MemWrite, PoChain, PoChainBefore, PoNext, PoScc,
    PoSccCyclic, PoSccNext, Postdom, SameCriticalSection, StoreSameObject, ThreadAlways,
    TypedRelation, UnresolvedCall, UnresolvedThreadStart,
};
use super::{FactSet, LocationInfo, Manifest, NameInfo, Row, RowSet, ThreadInfo};
use crate::error::Result;
use crate::frontend::Program;
use crate::parallel;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::terminator::Terminator as T;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Relations no rule a diff runs and no code of its reads: change
/// impact's dependences and memory accesses (`cia.dl`), and relations only
/// `concord facts` exports. A diff extracts without them (at 50 KLoC, 4.4
/// of 8.1 million rows); a test checks that no diff or sync program reads
/// them, and `FactSet::rows` refuses an omitted relation.
pub const NOT_READ_BY_DIFF: &[&str] = &[
    CallArg::NAME,
    ControlDep::NAME,
    DefUse::NAME,
    DomParent::NAME,
    MemRead::NAME,
    MemWrite::NAME,
    PoNext::NAME,
    SameCriticalSection::NAME,
];

/// How deep the backward SSA slice of a branch condition goes when looking
/// for the flag read of a guarded wait or a spin loop.
const CONDITION_SLICE_DEPTH: usize = 8;

/// Extraction in phases, each a function below: points-to and the thread
/// model, memory accesses, sharing, dependences, hb events, critical
/// sections, synchronisation idioms, flag guards, event order, then the
/// relations themselves (`rows`).
pub fn extract(program: &Program, opts: &ExtractOptions) -> Result<FactSet> {
    let mut clock = StepClock::start(&program.input);
    let pt = PointsTo::compute(IrFacts::build(&program.module));
    clock.lap("points-to");
    let model = ProgramModel::build(&program.module, &program.input, opts, &pt)?;
    clock.lap("thread model");
    let scan = AccessScan::collect(&model, &pt);
    let sharing = Sharing::new(&model, &pt, &scan);
    clock.lap("accesses and sharing");
    let deps = Dependences::compute(&model, &scan, opts.omit);
    clock.lap("dependences");
    let mut events = Events::collect(&scan, &sharing);
    let strong_write = single_target_stores(&model, &scan, &events, &sharing);
    let allocated_once = same_object::allocated_once(&model, &pt, &deps.graphs);
    let keys = same_object::address_keys(
        &model,
        &pt,
        &allocated_once,
        &strong_write,
        &events.shared_reads,
    );
    clock.lap("memory cells");
    let one_cell = |c: LocId| same_object::one_cell(&pt, &allocated_once, c);
    let sections =
        CriticalSections::compute(&deps.graphs, &scan, &events, strong_write, &keys, &one_cell);
    clock.lap("critical sections");
    let idioms = SyncIdioms::find(&model, &deps, &scan, &events, &sections);
    events.all.extend(idioms.busy.iter().map(|&(_, _, x)| x));
    let flag_guards = flag_guards(&model, &pt, &deps, &scan, &events, &sections, &sharing);
    clock.lap("idioms and flag guards");
    let mut rows = Rows::omitting(opts.omit);
    let locs = LocationIds::number(&scan);
    let load_store_keys = same_object::load_store_keys(
        &model,
        &deps.graphs,
        &events.shared_reads,
        &events.shared_writes,
    );
    clock.lap("load-store keys");
    let flagged = event_order(
        &mut rows,
        &deps.graphs,
        &scan,
        &events,
        &keys.of,
        &load_store_keys,
        &locs,
    );
    clock.lap("event order");
    rows.threads(&model, &scan);
    rows.synchronisation(&scan, &locs);
    rows.idioms(&idioms, &flagged, &flag_guards, &locs);
    rows.critical_sections(&model, &deps.graphs, &sections, &events, &locs);
    rows.accesses(&scan, &events, &locs);
    rows.sole_accesses(&sections.strong_write, &one_cell, &events, &locs);
    rows.dependences(&model, &deps, &scan);
    rows.model_gaps(&model, &model_gaps::ModelGaps::find(&model, &pt, &scan));
    clock.lap("rows");
    let facts = fact_set(
        program,
        &model,
        &pt,
        &sharing,
        &locs,
        &scan.correlated,
        rows,
    );
    clock.lap("fact set");
    Ok(facts)
}

/// Stores that write one shared location: a store or atomic RMW with a
/// single target (cmpxchg may not write, memcpy may write part), and a
/// global's initial value where it writes one shared location only (it
/// overwrites each of its cells, so a load that reads it read that
/// location: rank-2 rules 4 and 6). The initial values lie outside every
/// critical section and are no instructions, so the lock dataflows and
/// the address keys pass them by.
fn single_target_stores(
    model: &ProgramModel<'_>,
    scan: &AccessScan,
    events: &Events,
    sharing: &Sharing<'_>,
) -> BTreeMap<StmtId, LocId> {
    events
        .shared_writes
        .iter()
        .filter_map(|(&s, cells)| match (model.instr(s), cells.as_slice()) {
            (Some(I::Store(_)) | Some(I::AtomicRMW(_)), _) => {
                let all = scan.acc.writes.get(&s)?;
                let only = (all.len() == 1).then(|| *all.iter().next().unwrap())?;
                sharing.is_shared(only).then_some((s, only))
            }
            (None, [c]) if matches!(model.stmts[s as usize].site, Site::Init { .. }) => {
                Some((s, *c))
            }
            _ => None,
        })
        .collect()
}

/// Which cells count as shared.
struct Sharing<'a> {
    pt: &'a PointsTo,
    sync_cells: &'a BTreeSet<LocId>,
    conflicting: HashSet<LocId>,
}

impl<'a> Sharing<'a> {
    /// A cell is shared when its object may be reached by several threads
    /// (pt_shared: globals and what thread payloads reach) *and* two threads
    /// access it, one of them writing (initial values count as main's
    /// writes). A cell no other thread touches can take part in no
    /// cross-thread read-from and in no ordering the rules derive, so its
    /// accesses are not hb events: this keeps the events, and the order
    /// relations over them, to the memory threads really communicate through.
    fn new(model: &ProgramModel<'_>, pt: &'a PointsTo, scan: &'a AccessScan) -> Self {
        Sharing {
            pt,
            sync_cells: &scan.sync_cells,
            conflicting: scan.acc.conflicting_cells(model),
        }
    }

    fn is_shared(&self, c: LocId) -> bool {
        // sync cells first: correlated locks have no points-to cell
        !self.sync_cells.contains(&c) && self.pt.is_shared(c) && self.conflicting.contains(&c)
    }
}

/// Thread graphs, control dependence and SSA dependence.
struct Dependences {
    graphs: Vec<ThreadGraph>,
    /// (branch or call, statement it controls): every pair, or, when the
    /// command omits `control_dep`, only those of condition waits (the
    /// idioms ask about nothing else; at 50 KLoC every pair is 1.3 M).
    control: BTreeSet<(StmtId, StmtId)>,
    /// (definition, use); empty when the command omits `def_use` (the
    /// idioms' condition slices find definitions on demand).
    def_use: BTreeSet<(StmtId, StmtId)>,
    /// The branches (and calls) each condition wait depends on: all the
    /// idioms ask of `control`.
    wait_controllers: HashMap<StmtId, Vec<StmtId>>,
}

impl Dependences {
    fn compute(model: &ProgramModel<'_>, scan: &AccessScan, omit: &[&str]) -> Self {
        let thread_ids: Vec<usize> = (0..model.threads.len()).collect();
        let graphs: Vec<ThreadGraph> =
            parallel::map(&thread_ids, |&t| ThreadGraph::build(model, t));
        let waits: HashSet<StmtId> = (scan.sync.iter())
            .filter(|(_, op)| matches!(op, SyncOp::Wait { .. }))
            .map(|(&w, _)| w)
            .collect();
        let every_control = !omit.contains(&ControlDep::NAME);
        let wanted = |s: StmtId| every_control || waits.contains(&s);
        let mut control: BTreeSet<(StmtId, StmtId)> = BTreeSet::new();
        for tg in &graphs {
            control.extend(order::control_dependence(tg, wanted));
        }
        add_call_site_dependence(model, &mut control, wanted);
        let def_use = if omit.contains(&DefUse::NAME) {
            BTreeSet::new()
        } else {
            ssa_dependence(model)
        };
        let mut wait_controllers: HashMap<StmtId, Vec<StmtId>> = HashMap::default();
        for &(b, x) in control.iter().filter(|(_, x)| waits.contains(x)) {
            wait_controllers.entry(x).or_default().push(b);
        }
        Dependences {
            graphs,
            control,
            def_use,
            wait_controllers,
        }
    }

    /// The statements a branch's condition depends on, up to
    /// `CONDITION_SLICE_DEPTH` SSA steps back.
    fn condition_slice(model: &ProgramModel<'_>, b: StmtId) -> BTreeSet<StmtId> {
        let mut seen = BTreeSet::new();
        let mut layer = vec![b];
        for _ in 0..CONDITION_SLICE_DEPTH {
            let mut next = Vec::new();
            for x in layer {
                for d in definitions_used(model, x) {
                    if seen.insert(d) {
                        next.push(d);
                    }
                }
            }
            layer = next;
        }
        seen
    }
}

/// The hb events: statements with a shared access, synchronisation calls,
/// creates and joins (and, later, the exits of busy-wait loops).
struct Events {
    /// The shared part of each statement's accesses.
    shared_reads: BTreeMap<StmtId, Vec<LocId>>,
    shared_writes: BTreeMap<StmtId, Vec<LocId>>,
    all: HashSet<StmtId>,
}

impl Events {
    fn collect(scan: &AccessScan, sharing: &Sharing<'_>) -> Self {
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
                                .filter(|&c| sharing.is_shared(c))
                                .collect::<Vec<_>>(),
                        )
                    })
                    .filter(|(_, v)| !v.is_empty())
                    .collect()
            };
        let shared_reads = shared_only(&scan.acc.reads);
        let shared_writes = shared_only(&scan.acc.writes);
        let mut all: HashSet<StmtId> = HashSet::default();
        all.extend(shared_reads.keys());
        all.extend(shared_writes.keys());
        all.extend(scan.sync.keys());
        all.extend(scan.handle_of_create.keys());
        all.extend(scan.joins.iter().map(|(s, _)| *s));
        Events {
            shared_reads,
            shared_writes,
            all,
        }
    }
}

/// Locksets and covered accesses (written since the acquisition, or
/// before the release, of a mutex).
struct CriticalSections {
    held: Vec<Vec<Option<Arc<Held>>>>,
    /// Stores that write one shared location ([`single_target_stores`]).
    /// The covered-access dataflows take them as overwrites of a location
    /// that is one cell, and of the cell of their own address key
    /// otherwise: `t->state = 1; t->state = 2` through one pointer into an
    /// array of tasks does overwrite, `a[i] = 1; a[j] = 2` does not.
    /// `store_strong` keeps those whose location is one cell.
    strong_write: BTreeMap<StmtId, LocId>,
    written_before: BTreeSet<(StmtId, LocId, LocId)>,
    written_after: BTreeSet<(StmtId, LocId, LocId)>,
}

impl CriticalSections {
    fn compute(
        graphs: &[ThreadGraph],
        scan: &AccessScan,
        events: &Events,
        strong_write: BTreeMap<StmtId, LocId>,
        keys: &same_object::AddressKeys,
        one_cell: &(dyn Fn(LocId) -> bool + Sync),
    ) -> Self {
        let corr = &scan.correlated;
        let held: Vec<Vec<Option<Arc<Held>>>> = parallel::map(graphs, |tg| {
            let mut held = sections::locksets(tg, &scan.sync, corr);
            // a correlated lock counts only at accesses through its pointer
            for (i, h) in held.iter_mut().enumerate() {
                let Some(h) = h.as_mut() else { continue };
                let s = tg.nodes[i];
                let is_sync_call = scan.sync.contains_key(&s);
                let counts = |m: LocId, acquirers: &BTreeSet<StmtId>| {
                    !corr.is_correlated(m) || corr.holds_at(s, is_sync_call, acquirers)
                };
                if !h.iter().all(|(&m, acquirers)| counts(m, acquirers)) {
                    Arc::make_mut(h).retain(|&m, acquirers| counts(m, acquirers));
                }
            }
            held
        });
        let mut written_before: BTreeSet<(StmtId, LocId, LocId)> = BTreeSet::new();
        let mut written_after: BTreeSet<(StmtId, LocId, LocId)> = BTreeSet::new();
        let with_held: Vec<(&ThreadGraph, &Vec<Option<Arc<Held>>>)> =
            graphs.iter().zip(&held).collect();
        let covered = parallel::map(&with_held, |&(tg, held)| {
            let fx = NodeEffects {
                sync: &scan.sync,
                strong_write: &strong_write,
                keys,
                one_cell,
                held,
                ends: &scan.correlated.ends,
            };
            sections::covered_accesses(tg, &fx, &events.shared_reads, &events.shared_writes)
        });
        for (b, a) in covered {
            written_before.extend(b);
            written_after.extend(a);
        }
        CriticalSections {
            held,
            strong_write,
            written_before,
            written_after,
        }
    }

    /// The locks held before a statement.
    fn held_at(&self, model: &ProgramModel<'_>, graphs: &[ThreadGraph], s: StmtId) -> Arc<Held> {
        let t = model.stmts[s as usize].thread as usize;
        graphs[t]
            .local
            .get(&s)
            .and_then(|&i| self.held[t][i].clone())
            .unwrap_or_default()
    }
}

/// The synchronisation idioms of EC-Diff §4.3 and §4.4.
struct SyncIdioms {
    /// (wait, location): a condition wait whose loop condition reads the
    /// location under the wait's mutex.
    guarded: BTreeSet<(StmtId, LocId)>,
    /// (read, location, exit): a quiet spin loop on a shared read.
    busy: BTreeSet<(StmtId, LocId, StmtId)>,
}

impl SyncIdioms {
    fn find(
        model: &ProgramModel<'_>,
        deps: &Dependences,
        scan: &AccessScan,
        events: &Events,
        sections: &CriticalSections,
    ) -> Self {
        let mut guarded: BTreeSet<(StmtId, LocId)> = BTreeSet::new();
        let mut busy: BTreeSet<(StmtId, LocId, StmtId)> = BTreeSet::new();
        for (&w, op) in &scan.sync {
            if let SyncOp::Wait { mutex, .. } = op {
                for &b in deps.wait_controllers.get(&w).into_iter().flatten() {
                    for r in Dependences::condition_slice(model, b) {
                        let holds = sections.held_at(model, &deps.graphs, r).contains_key(mutex);
                        if holds {
                            for &v in events.shared_reads.get(&r).into_iter().flatten() {
                                guarded.insert((w, v));
                            }
                        }
                    }
                }
            }
        }
        for tg in &deps.graphs {
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
                    !events.shared_writes.contains_key(s)
                        && !scan.sync.contains_key(s)
                        && !scan.handle_of_create.contains_key(s)
                });
                if !quiet {
                    continue;
                }
                let exit = tg.nodes[exits[0]];
                for r in Dependences::condition_slice(model, b) {
                    if tg.same_cycle(r, b) {
                        for &v in events.shared_reads.get(&r).into_iter().flatten() {
                            busy.insert((r, v, exit));
                        }
                    }
                }
            }
        }
        SyncIdioms { guarded, busy }
    }
}

/// Flag-guarded regions (EC-Diff §4.4 generalised), per thread.
fn flag_guards(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    deps: &Dependences,
    scan: &AccessScan,
    events: &Events,
    sections: &CriticalSections,
    sharing: &Sharing<'_>,
) -> Vec<guards::FlagGuard> {
    let single_read: BTreeMap<StmtId, LocId> = events
        .shared_reads
        .iter()
        .filter(|(s, _)| matches!(model.instr(**s), Some(I::Load(_))))
        .filter_map(|(&s, _)| {
            let all = scan.acc.reads.get(&s)?;
            let only = (all.len() == 1).then(|| *all.iter().next().unwrap())?;
            sharing.is_shared(only).then_some((s, only))
        })
        .collect();
    let mut writers: BTreeMap<LocId, Vec<StmtId>> = BTreeMap::new();
    for (&s, cells) in &events.shared_writes {
        for &c in cells {
            writers.entry(c).or_default().push(s);
        }
    }
    let constant = |s: StmtId| guards::store_constant(model, pt, &sections.strong_write, s);
    let flag_mem = guards::FlagMemory {
        single_read: &single_read,
        writers: &writers,
        constant: &constant,
        events: &events.all,
    };
    deps.graphs
        .iter()
        .flat_map(|tg| guards::flag_guards(model, tg, &flag_mem))
        .collect()
}

/// Order between events: always-executed events, the component DAG,
/// dominance and post-dominance rows go straight to `rows`; returns the
/// (signal, location) pairs of shared writes that dominate a signal.
fn event_order(
    rows: &mut Rows,
    graphs: &[ThreadGraph],
    scan: &AccessScan,
    events: &Events,
    address_key: &HashMap<StmtId, u32>,
    load_store_key: &HashMap<StmtId, same_object::LoadStoreKey>,
    locs: &LocationIds,
) -> BTreeSet<(StmtId, LocId)> {
    // Create/join sites the thread model unrolls (inside loops) are
    // assumed to run once per modelled instance.
    let join_sites: HashSet<StmtId> = scan.joins.iter().map(|(j, _)| *j).collect();
    for tg in graphs {
        for s in order::always_executed(tg) {
            if events.all.contains(&s) {
                rows.add(ThreadAlways { s: s.into() });
            }
        }
        for &s in &tg.nodes {
            let unrolled = scan.handle_of_create.contains_key(&s) || join_sites.contains(&s);
            if unrolled && tg.in_cycle(s) {
                rows.add(ThreadAlways { s: s.into() });
            }
        }
    }
    // Only "x dominates a signal" is asked of the dominance pairs below.
    let signals: HashSet<StmtId> = scan
        .sync
        .iter()
        .filter(|(_, op)| matches!(op, SyncOp::Signal(_) | SyncOp::Broadcast(_)))
        .map(|(&s, _)| s)
        .collect();
    let mut dom_pairs: HashSet<(u32, u32)> = HashSet::default();
    // Component ids are numbered across threads so that they stay distinct.
    let mut scc_base: u32 = 0;
    let accesses = order::SharedAccesses {
        reads: &events.shared_reads,
        writes: &events.shared_writes,
        address_key,
        load_store_key,
    };
    let orders = parallel::map(graphs, |tg| {
        order::event_order(tg, &events.all, &signals, &accesses)
    });
    for (tg, ord) in graphs.iter().zip(orders) {
        dom_pairs.extend(ord.dom_of_wanted);
        for &(s, c) in &ord.scc {
            rows.add(PoScc {
                s: s.into(),
                c: scc_base + c as u32,
            });
        }
        for &c in &ord.scc_cyclic {
            rows.add(PoSccCyclic {
                c: scc_base + c as u32,
            });
        }
        for &(c, d) in &ord.scc_next {
            rows.add(PoSccNext {
                c1: scc_base + c as u32,
                c2: scc_base + d as u32,
            });
        }
        for &(c, h, p) in &ord.chain {
            rows.add(PoChain {
                c: scc_base + c as u32,
                h: scc_base + h as u32,
                p,
            });
        }
        for &(c, h, p) in &ord.chain_before {
            rows.add(PoChainBefore {
                c: scc_base + c as u32,
                h: scc_base + h as u32,
                p,
            });
        }
        scc_base += tg.scc_cyclic.len() as u32;
        for (a, b) in ord.dom_parent {
            rows.add(DomParent {
                s1: a.into(),
                s2: b.into(),
            });
        }
        for (a, b) in ord.postdom {
            rows.add(Postdom {
                s1: a.into(),
                s2: b.into(),
            });
        }
        for (s, h, p) in ord.dom_path {
            rows.add(DomPath {
                s: s.into(),
                h: h.into(),
                p,
            });
        }
        for (s, h, p) in ord.dom_path_above {
            rows.add(DomPathAbove {
                s: s.into(),
                h: h.into(),
                p,
            });
        }
        for (x, v, w) in ord.near_store {
            rows.add(DomNearStore {
                s: x.into(),
                v: locs.of(v).into(),
                w: w.into(),
            });
        }
        for (w, r) in ord.same_object {
            rows.add(StoreSameObject {
                w: w.into(),
                r: r.into(),
            });
        }
        for (r, w) in ord.load_store_same_object {
            rows.add(LoadStoreSameObject {
                r: r.into(),
                w: w.into(),
            });
        }
    }
    let mut flagged: BTreeSet<(StmtId, LocId)> = BTreeSet::new();
    for (&s, op) in &scan.sync {
        if let SyncOp::Signal(_) | SyncOp::Broadcast(_) = op {
            for (&x, cells) in &events.shared_writes {
                if dom_pairs.contains(&(x, s)) {
                    for &v in cells {
                        flagged.insert((s, v));
                    }
                }
            }
        }
    }
    flagged
}

/// Location ids: the cells something touches, densely numbered (string
/// literals and the like get none).
struct LocationIds {
    cells: BTreeSet<LocId>,
    ids: HashMap<LocId, u32>,
}

impl LocationIds {
    fn number(scan: &AccessScan) -> Self {
        let mut cells: BTreeSet<LocId> = BTreeSet::new();
        cells.extend(scan.acc.reads.values().flatten().copied());
        cells.extend(scan.acc.writes.values().flatten().copied());
        cells.extend(scan.sync_cells.iter().copied());
        let ids = cells
            .iter()
            .enumerate()
            .map(|(i, &c)| (c, i as u32))
            .collect();
        LocationIds { cells, ids }
    }

    fn of(&self, c: LocId) -> u32 {
        self.ids[&c]
    }
}

/// The fact set: the statement, location and thread tables, the rows, the
/// manifest and the source names of locations.
fn fact_set(
    program: &Program,
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    sharing: &Sharing<'_>,
    locs: &LocationIds,
    corr: &CorrelatedLocks,
    rows: Rows,
) -> FactSet {
    let omitted = rows.omitted;
    let debug = names::DebugTypes::of(program);
    let correlated = |c: LocId| {
        corr.shape(c)
            .map(|shape| correlation::display(&program.module, &debug, shape))
    };
    let mut facts = FactSet {
        statements: statement_table(model),
        locations: locs
            .cells
            .iter()
            .map(|&c| {
                if let Some(name) = correlated(c) {
                    return LocationInfo {
                        id: locs.of(c),
                        name,
                        object: "per-object lock".into(),
                        shared: false,
                    };
                }
                let (name, object) = pt.describe(model, c);
                LocationInfo {
                    id: locs.of(c),
                    name,
                    object,
                    shared: sharing.is_shared(c),
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
        unreached: unreached::unreached_functions(model),
        relations: sorted_relations(&pt.ir.rows, rows.collected),
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
        struct_layouts: BTreeMap::new(),
        omitted,
    };
    dedupe_location_names(&mut facts.locations);
    let cells: Vec<(u32, LocId)> = locs
        .cells
        .iter()
        .filter(|&&c| !corr.is_correlated(c))
        .map(|&c| (locs.of(c), c))
        .collect();
    facts.names = names::location_names(&program.module, pt, &debug, &cells);
    facts.struct_layouts = debug.layouts(&program.module);
    // correlated locks have the highest ids: their names come last
    for &c in &locs.cells {
        if let Some(name) = correlated(c) {
            facts.names.push(NameInfo {
                id: locs.of(c),
                object: name.split("->").next().unwrap_or_default().to_string(),
                ty: "mutex (one per object)".into(),
                kind: "per-object".into(),
                site: String::new(),
                name,
            });
        }
    }
    facts.recount();
    facts
}

/// The relations of a fact set: the base IR rows as they are, plus the
/// collected rows, sorted and without duplicates.
fn sorted_relations(
    ir: &BTreeMap<&'static str, BTreeSet<Row>>,
    collected: BTreeMap<&'static str, Vec<u32>>,
) -> BTreeMap<&'static str, RowSet> {
    let mut out = FactSet::empty_relations();
    for (name, rows) in ir {
        let set = out.get_mut(name).expect("declared relation");
        *set = RowSet::from_rows(set.arity(), rows);
    }
    for (name, flat) in collected {
        let set = out.get_mut(name).expect("declared relation");
        // One sort for the whole relation instead of an insert per row.
        set.extend_flat(flat);
    }
    out
}

/// One line per call or thread start the points-to rules could not
/// resolve (the `unresolved_call` and `unresolved_thread_start` facts),
/// per `fork()` (its child is not analysed) and per inline `asm`
/// (`fork_call`, `inline_asm`), deduplicated across thread instances, for
/// warnings on stderr.
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
        )
        .chain(facts.iter::<ForkCall>().map(|row| {
            (
                row.s,
                "fork(): the parent is analysed, the child process is not",
            )
        }))
        .chain(facts.iter::<InlineAsm>().map(|row| {
            (
                row.s,
                "inline assembly: its effects on memory and synchronisation are not modelled",
            )
        }));
    for (stmt, what) in unresolved {
        if let Some(s) = facts.statement(stmt.0) {
            out.insert(format!("{}: in {}: {what}", s.location(), s.function));
        }
    }
    out.into_iter().collect()
}
