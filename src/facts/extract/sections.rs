//! Critical sections of one thread (EC-Diff §4.6), per section instance:
//! which mutexes a statement runs under and which acquisitions may have
//! opened them (the lockset), and the two must-dataflow facts behind covered
//! loads and stores — "v written since the last acquisition of m" (forward)
//! and "v overwritten before the next release of m" (backward). Both are
//! computed on the thread's inlined CFG, so loops need no special case: a
//! lock, unlock or wait on m starts a new section instance.

use super::correlation::CorrelatedLocks;
use super::order::ThreadGraph;
use super::pointsto::LocId;
use super::program::StmtId;
use super::same_object::AddressKeys;
use super::SyncOp;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

/// Locks held before a statement: mutex -> the statements that may have
/// acquired it (a lock, or a wait that re-acquired it).
pub type Held = BTreeMap<LocId, BTreeSet<StmtId>>;

/// (mutex, location, cell) triples of a must-dataflow state: the cell is
/// [`ONE_CELL`] for a location that is one cell, else the address key of
/// the access (same_object.rs).
type Pairs = BTreeSet<(LocId, LocId, u32)>;

/// The cell of a location that is one cell.
const ONE_CELL: u32 = u32::MAX;

// The dataflows' states are `Arc`s, shared by the statements that do not
// change them: most statements neither lock nor write under a lock, and a
// copy of the state per statement (twice, before and after) cost most of
// these dataflows' time and memory at 50 KLoC.

/// `a` ∩ `b`, keeping `a`'s allocation when nothing is removed.
fn intersect(a: &mut Arc<Pairs>, b: &Arc<Pairs>) {
    if !Arc::ptr_eq(a, b) && !a.iter().all(|p| b.contains(p)) {
        Arc::make_mut(a).retain(|p| b.contains(p));
    }
}

fn preds_of(tg: &ThreadGraph) -> Vec<Vec<usize>> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); tg.nodes.len()];
    for (a, ss) in tg.succ.iter().enumerate() {
        for &b in ss {
            preds[b].push(a);
        }
    }
    preds
}

fn acquired(op: Option<&SyncOp>) -> Option<LocId> {
    match op {
        Some(SyncOp::Lock(m)) => Some(*m),
        Some(SyncOp::Wait { mutex, .. }) => Some(*mutex),
        _ => None,
    }
}

fn released(op: Option<&SyncOp>) -> Option<LocId> {
    match op {
        Some(SyncOp::Unlock(m)) => Some(*m),
        Some(SyncOp::Wait { mutex, .. }) => Some(*mutex),
        _ => None,
    }
}

/// A lock, unlock or wait on m ends the current section instance of m.
fn touches(op: Option<&SyncOp>) -> Option<LocId> {
    match op {
        Some(SyncOp::Lock(m)) | Some(SyncOp::Unlock(m)) => Some(*m),
        Some(SyncOp::Wait { mutex, .. }) => Some(*mutex),
        _ => None,
    }
}

/// The lockset before each node (None = not reached). A mutex is in it when
/// it is held on every incoming path (must-hold), or when it may be held and
/// every path from the node releases it (unlock or wait) before acquiring it
/// again and before the thread ends — `if (c) lock(m); s; unlock(m);`. The
/// second case assumes a thread never releases a mutex it does not hold
/// (undefined behaviour in POSIX) and that threads run to completion: a
/// node from which some release-free path ends the thread, re-acquires m,
/// or enters a part of the CFG with no exit, does not get it.
///
/// Correlated locks (correlation.rs) also end where `corr.ends` says, and
/// count only where they are surely held: the release-ahead argument does
/// not hold for them (an unlock may be of another object's mutex).
pub(super) fn locksets(
    tg: &ThreadGraph,
    sync: &BTreeMap<StmtId, SyncOp>,
    corr: &CorrelatedLocks,
) -> Vec<Option<Arc<Held>>> {
    let n = tg.nodes.len();
    let preds = preds_of(tg);
    // each node's operation, looked up once (the dataflows visit nodes many times)
    let ops: Vec<Option<&SyncOp>> = tg.nodes.iter().map(|s| sync.get(s)).collect();
    let ends: Vec<Option<&BTreeSet<LocId>>> = tg.nodes.iter().map(|s| corr.ends.get(s)).collect();
    let transfer = |i: usize, mut h: Arc<Held>| -> Arc<Held> {
        if ops[i].is_none() && ends[i].is_none() {
            return h;
        }
        let held = Arc::make_mut(&mut h);
        if let Some(m) = released(ops[i]) {
            held.remove(&m);
        }
        for m in ends[i].into_iter().flatten() {
            held.remove(m);
        }
        if let Some(m) = acquired(ops[i]) {
            held.insert(m, BTreeSet::from([tg.nodes[i]]));
        }
        h
    };
    // may-hold, with every acquisition that may be the one held
    let may = forward(tg, &preds, Arc::default(), transfer, |a, b| {
        let covered =
            |m: &LocId, ls: &BTreeSet<StmtId>| a.get(m).is_some_and(|x| x.is_superset(ls));
        if Arc::ptr_eq(a, b) || b.iter().all(|(m, ls)| covered(m, ls)) {
            return;
        }
        let a = Arc::make_mut(a);
        for (m, ls) in b.iter() {
            a.entry(*m).or_default().extend(ls.iter().copied());
        }
    });
    // must-hold
    let must = forward(tg, &preds, Arc::default(), transfer, |a, b| {
        if Arc::ptr_eq(a, b) {
            return;
        }
        Arc::make_mut(a).retain(|m, ls| match b.get(m) {
            Some(other) => {
                ls.extend(other.iter().copied());
                true
            }
            None => false,
        });
    });
    let must_holds = |i: usize, m: &LocId| must[i].as_ref().is_some_and(|h| h.contains_key(m));
    // Only a mutex that may be held somewhere it is not surely held needs
    // the release-ahead check (one backward search per such mutex; with
    // balanced lock/unlock there are few, and a search per mutex of the
    // program would grow with programs x mutexes).
    let ambiguous: BTreeSet<LocId> = (0..n)
        .filter_map(|i| Some((i, may[i].as_ref()?)))
        .flat_map(|(i, h)| h.keys().filter(move |m| !must_holds(i, m)))
        .copied()
        .collect();
    let can_exit = if ambiguous.is_empty() {
        Vec::new()
    } else {
        reaches_exit(tg, &preds)
    };
    let unsafe_for: BTreeMap<LocId, Vec<bool>> = ambiguous
        .iter()
        .map(|&m| (m, may_leave_unreleased(tg, &preds, &can_exit, &ops, m)))
        .collect();
    (0..n)
        .map(|i| {
            let may = may[i].as_ref()?;
            let kept =
                |m: &LocId| must_holds(i, m) || (!corr.is_correlated(*m) && !unsafe_for[m][i]);
            if may.keys().all(kept) {
                return Some(may.clone());
            }
            Some(Arc::new(
                may.iter()
                    .filter(|(m, _)| kept(m))
                    .map(|(m, ls)| (*m, ls.clone()))
                    .collect(),
            ))
        })
        .collect()
}

/// A forward dataflow to a fixpoint; the entry starts from `init`, unreached
/// nodes are None, `meet` folds a predecessor's output into an input.
fn forward<S: Clone + PartialEq>(
    tg: &ThreadGraph,
    preds: &[Vec<usize>],
    init: S,
    transfer: impl Fn(usize, S) -> S,
    meet: impl Fn(&mut S, &S),
) -> Vec<Option<S>> {
    let n = tg.nodes.len();
    let mut before: Vec<Option<S>> = vec![None; n];
    let mut after: Vec<Option<S>> = vec![None; n];
    // A worklist, lowest node first: a node is recomputed only when the
    // output of a predecessor changed (sweeping every node until nothing
    // changes recomputed — and cloned the state of — all of them per sweep).
    let mut work: BTreeSet<usize> = (0..n.min(1)).collect();
    while let Some(i) = work.pop_first() {
        let input = if i == 0 {
            Some(init.clone())
        } else {
            preds[i]
                .iter()
                .filter_map(|&p| after[p].as_ref())
                .fold(None::<S>, |acc, s| match acc {
                    None => Some(s.clone()),
                    Some(mut a) => {
                        meet(&mut a, s);
                        Some(a)
                    }
                })
        };
        let Some(input) = input else { continue };
        let out = transfer(i, input.clone());
        before[i] = Some(input);
        if after[i].as_ref() != Some(&out) {
            after[i] = Some(out);
            work.extend(tg.succ[i].iter().copied());
        }
    }
    before
}

/// Nodes from which some path reaches the end of the thread.
fn reaches_exit(tg: &ThreadGraph, preds: &[Vec<usize>]) -> Vec<bool> {
    let mut seen = vec![false; tg.nodes.len()];
    let mut queue: VecDeque<usize> = (0..tg.nodes.len())
        .filter(|&i| tg.succ[i].is_empty())
        .collect();
    for &i in &queue {
        seen[i] = true;
    }
    while let Some(x) = queue.pop_front() {
        for &p in &preds[x] {
            if !seen[p] {
                seen[p] = true;
                queue.push_back(p);
            }
        }
    }
    seen
}

/// Nodes from which a path that does not release m reaches an acquisition
/// of m, the end of the thread, or a node with no way to the end.
fn may_leave_unreleased(
    tg: &ThreadGraph,
    preds: &[Vec<usize>],
    can_exit: &[bool],
    ops: &[Option<&SyncOp>],
    m: LocId,
) -> Vec<bool> {
    let n = tg.nodes.len();
    let releases = |i: usize| released(ops[i]) == Some(m);
    let mut bad = vec![false; n];
    let mut queue = VecDeque::new();
    for i in 0..n {
        let acquires = matches!(ops[i], Some(SyncOp::Lock(x)) if *x == m);
        if !releases(i) && (acquires || tg.succ[i].is_empty() || !can_exit[i]) {
            bad[i] = true;
            queue.push_back(i);
        }
    }
    while let Some(x) = queue.pop_front() {
        for &p in &preds[x] {
            if !bad[p] && !releases(p) {
                bad[p] = true;
                queue.push_back(p);
            }
        }
    }
    bad
}

/// What the covered-access dataflows need to know about a node.
pub(super) struct NodeEffects<'a> {
    pub(super) sync: &'a BTreeMap<StmtId, SyncOp>,
    /// The one shared location a statement surely writes (a store or an
    /// atomic read-modify-write whose address has a single target).
    pub(super) strong_write: &'a BTreeMap<StmtId, LocId>,
    /// The accesses' address keys, for locations of many cells, and where
    /// they stop holding.
    pub(super) keys: &'a AddressKeys,
    /// Whether a location is one cell.
    pub(super) one_cell: &'a (dyn Fn(LocId) -> bool + Sync),
    /// The lockset before each node (from `locksets`).
    pub(super) held: &'a [Option<Arc<Held>>],
    /// Where correlated locks end besides their own unlock.
    pub(super) ends: &'a BTreeMap<StmtId, BTreeSet<LocId>>,
}

/// Does the node `s` end the current section of `m`: its own lock, unlock
/// or wait on m, or a correlated lock it ends?
fn ends_section(fx: &NodeEffects<'_>, s: StmtId, m: LocId) -> bool {
    touches(fx.sync.get(&s)) == Some(m) || fx.ends.get(&s).is_some_and(|e| e.contains(&m))
}

/// Forward must-dataflow "v written since the last acquisition of m": a
/// store of v made while holding m sets (m, v); a lock, unlock or wait on m
/// clears every (m, _); merges intersect. Returns the state before each node.
fn written_since_acquire(tg: &ThreadGraph, fx: &NodeEffects<'_>) -> Vec<Option<Arc<Pairs>>> {
    let preds = preds_of(tg);
    let transfer = |i: usize, st: Arc<Pairs>| -> Arc<Pairs> { node_effect(fx, tg, i, st) };
    forward(tg, &preds, Arc::default(), transfer, intersect)
}

/// What node `i` does to a state of pairs (mutex, location), in either
/// direction: a lock, unlock or wait on m ends the pairs of m; a store of
/// v made while holding m adds (m, v). The state is copied only when the
/// node changes it.
fn node_effect(fx: &NodeEffects<'_>, tg: &ThreadGraph, i: usize, mut st: Arc<Pairs>) -> Arc<Pairs> {
    let s = tg.nodes[i];
    if (touches(fx.sync.get(&s)).is_some() || fx.ends.contains_key(&s))
        && st.iter().any(|&(x, _, _)| ends_section(fx, s, x))
    {
        Arc::make_mut(&mut st).retain(|&(x, _, _)| !ends_section(fx, s, x));
    }
    // a value an address is computed from, defined again: the address
    // names another cell from here on (and did before, read backwards)
    if let Some(gone) = fx.keys.kills.get(&s) {
        if st.iter().any(|(_, _, k)| gone.contains(k)) {
            Arc::make_mut(&mut st).retain(|(_, _, k)| !gone.contains(k));
        }
    }
    if let (Some(&v), Some(held)) = (fx.strong_write.get(&s), fx.held[i].as_ref()) {
        if let Some(cell) = cell_of(fx, s, v) {
            if held.keys().any(|&m| !st.contains(&(m, v, cell))) {
                let pairs = Arc::make_mut(&mut st);
                for &m in held.keys() {
                    pairs.insert((m, v, cell));
                }
            }
        }
    }
    st
}

/// The cell of location `v` that access `s` touches: [`ONE_CELL`], its
/// address key, or `None` when the location is many cells and the access
/// has no key.
fn cell_of(fx: &NodeEffects<'_>, s: StmtId, v: LocId) -> Option<u32> {
    if (fx.one_cell)(v) {
        Some(ONE_CELL)
    } else {
        fx.keys.of.get(&s).copied()
    }
}

/// Backward must-dataflow "v overwritten before the next release of m": on
/// every path from the point, a store of v made while holding m comes before
/// any lock, unlock or wait on m (and before the thread ends). Returns the state after each node
/// (the meet of its successors' states; empty at the end of the thread, and
/// empty where every successor only leads into a loop with no exit, which
/// the greatest fixpoint leaves undecided).
fn overwritten_before_release(tg: &ThreadGraph, fx: &NodeEffects<'_>) -> Vec<Arc<Pairs>> {
    let n = tg.nodes.len();
    // None = top (every pair), the start of a greatest fixpoint
    let mut before: Vec<Option<Arc<Pairs>>> = vec![None; n];
    let after_of = |i: usize, before: &[Option<Arc<Pairs>>]| -> Option<Arc<Pairs>> {
        if tg.succ[i].is_empty() {
            return Some(Arc::default());
        }
        let mut acc: Option<Arc<Pairs>> = None;
        for &j in &tg.succ[i] {
            if let Some(s) = &before[j] {
                acc = Some(match acc {
                    None => s.clone(),
                    Some(mut a) => {
                        intersect(&mut a, s);
                        a
                    }
                });
            }
        }
        acc
    };
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let Some(st) = after_of(i, &before) else {
                continue;
            };
            // only mutexes held at the overwrite: one held at the covered
            // store and not released since is held there too (when the
            // lockset knows it; otherwise the pair is lost, never invented)
            let st = node_effect(fx, tg, i, st);
            if before[i].as_ref() != Some(&st) {
                before[i] = Some(st);
                changed = true;
            }
        }
    }
    (0..n)
        .map(|i| after_of(i, &before).unwrap_or_default())
        .collect()
}

/// (access, location, mutex) rows of the covered loads (`cs_written_before`)
/// and covered stores (`cs_written_after`) of one thread.
pub(super) type Covered = BTreeSet<(StmtId, LocId, LocId)>;

pub(super) fn covered_accesses(
    tg: &ThreadGraph,
    fx: &NodeEffects<'_>,
    reads: &BTreeMap<StmtId, Vec<LocId>>,
    writes: &BTreeMap<StmtId, Vec<LocId>>,
) -> (Covered, Covered) {
    let before = written_since_acquire(tg, fx);
    let after = overwritten_before_release(tg, fx);
    let (mut loads, mut stores) = (Covered::new(), Covered::new());
    for (i, &s) in tg.nodes.iter().enumerate() {
        let Some(lockset) = fx.held[i].as_ref() else {
            continue;
        };
        let read = reads.get(&s).map_or(&[][..], Vec::as_slice);
        for &v in read {
            // a key names the one cell of a single-target access
            let Some(cell) = cell_of(fx, s, v).filter(|&c| c == ONE_CELL || read.len() == 1) else {
                continue;
            };
            for &m in lockset.keys() {
                if before[i]
                    .as_ref()
                    .is_some_and(|st| st.contains(&(m, v, cell)))
                {
                    loads.insert((s, v, m));
                }
            }
        }
        let written = writes.get(&s).map_or(&[][..], Vec::as_slice);
        for &v in written {
            let Some(cell) = cell_of(fx, s, v).filter(|&c| c == ONE_CELL || written.len() == 1)
            else {
                continue;
            };
            for &m in lockset.keys() {
                if after[i].contains(&(m, v, cell)) {
                    stores.insert((s, v, m));
                }
            }
        }
    }
    (loads, stores)
}
