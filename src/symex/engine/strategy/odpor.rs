//! Optimal DPOR (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014): source
//! sets and wakeup trees.
//!
//! Each scheduling node keeps a *wakeup tree* — an ordered tree of thread
//! sequences still to explore from it — and its *sleep set* (the threads
//! explored from it, and those asleep when it was entered, with their next
//! accesses).  When an event `e'` of thread `p` is in an immediate race with
//! an earlier event `e` (dependent, other thread, no third event between
//! them in happens-before), the sequence `v = notdep(e).e'` (the events after
//! `e` that do not happen after it, then `e'`) reverses the race; unless a
//! sleeping thread is a weak initial of `v` (an equivalent run was or will
//! be explored), `v` is inserted into the wakeup tree of the node before
//! `e`.  Exploration follows the tree, so no run ends blocked by its sleep
//! set (the source of FG-DPOR's redundant runs).
//!
//! Adaptations to this engine: thread ids name events (a thread's next
//! event from a given state is fixed up to the symbolic branches taken in
//! it); a symbolic branch inside a transition hands the same subtree to
//! every side; a wakeup sequence whose first thread cannot run at the node
//! is not inserted (the race cannot be reversed: e.g. a lock after the
//! unlock that enabled it); a deeper step whose thread cannot run when the
//! exploration gets there is dropped.

use super::super::state::{State, TStatus};
use super::super::transitions::{dependent, parents_of, Access, DNode, Res};
use super::super::visibility::Next;
use super::super::{callee_name, Engine};
use super::{ExplorationStrategy, NodeView, Sleep};
use llvm_ir::Instruction;
use std::collections::HashMap;

/// One event of a wakeup sequence: its thread, its accesses, and for each
/// other thread the position (in the sequence) of its latest event that
/// happens before this one.
#[derive(Clone, Debug)]
struct WEv {
    tid: usize,
    acc: Vec<Access>,
    preds: Vec<usize>,
}

/// A sequence being inserted: events, and which are still to be matched.
struct WSeq {
    evs: Vec<WEv>,
    live: Vec<bool>,
}

impl WSeq {
    fn first_of(&self, t: usize) -> Option<usize> {
        (0..self.evs.len()).find(|&k| self.live[k] && self.evs[k].tid == t)
    }

    fn is_empty(&self) -> bool {
        !self.live.iter().any(|l| *l)
    }

    /// Is `t` (whose next event has accesses `acc`) a weak initial of the
    /// rest of the sequence?  Either its first event has no predecessor
    /// left, or it has no event in the sequence and is independent of all.
    /// A thread whose next event has no recorded access is never taken as
    /// independent (conservative).
    fn weak_initial(&self, t: usize, acc: &[Access]) -> bool {
        match self.first_of(t) {
            Some(k) => self.evs[k].preds.iter().all(|&j| !self.live[j]),
            None => {
                !acc.is_empty()
                    && self
                        .evs
                        .iter()
                        .zip(&self.live)
                        .all(|(e, l)| !*l || !dependent(&e.acc, acc))
            }
        }
    }

    /// Match thread `t`'s next event (its first live one, if any).
    fn consume(&mut self, t: usize) {
        if let Some(k) = self.first_of(t) {
            self.live[k] = false;
        }
    }

    /// The live events as a chain, starting with `first` (an initial).
    fn chain(&self, first: usize) -> Wut {
        let mut order = vec![first];
        order.extend((0..self.evs.len()).filter(|&k| self.live[k] && k != first));
        let mut w = Wut::default();
        for &k in order.iter().rev() {
            let e = &self.evs[k];
            w = Wut {
                kids: vec![WNode {
                    tid: e.tid,
                    acc: e.acc.clone(),
                    sub: w,
                }],
            };
        }
        w
    }
}

/// A wakeup tree: ordered children, leftmost first.
#[derive(Clone, Default, Debug)]
pub(in crate::symex::engine) struct Wut {
    pub(in crate::symex::engine) kids: Vec<WNode>,
}

#[derive(Clone, Debug)]
pub(in crate::symex::engine) struct WNode {
    pub(in crate::symex::engine) tid: usize,
    pub(in crate::symex::engine) acc: Vec<Access>,
    pub(in crate::symex::engine) sub: Wut,
}

impl Wut {
    /// Insert `w` unless the tree already holds a sequence it extends
    /// (up to swapping independent events).  `enabled`: the threads that
    /// can run at the tree's root; a new branch starts with one of them.
    fn insert(&mut self, mut w: WSeq, enabled: &[usize]) {
        let mut node = self;
        let mut root = true;
        loop {
            if w.is_empty() || (!root && node.kids.is_empty()) {
                return;
            }
            match node.kids.iter().position(|k| w.weak_initial(k.tid, &k.acc)) {
                Some(i) => {
                    w.consume(node.kids[i].tid);
                    node = &mut node.kids[i].sub;
                    root = false;
                }
                None => {
                    // Start with an initial of `w` that can run here (at
                    // the root); deeper down, with the first live event.
                    let first = (0..w.evs.len()).find(|&k| {
                        w.live[k]
                            && w.evs[k].preds.iter().all(|&j| !w.live[j])
                            && (!root || enabled.contains(&w.evs[k].tid))
                    });
                    if let Some(first) = first {
                        let mut c = w.chain(first);
                        node.kids.append(&mut c.kids);
                    }
                    return;
                }
            }
        }
    }
}

pub(in crate::symex::engine) struct Odpor;

impl ExplorationStrategy for Odpor {
    /// A blocked thread's operation races like an executed one (a lock
    /// held by another thread, a join), so that its other order is
    /// explored; the enabled ones race when they run.
    fn races_at_state<'c>(&self, e: &mut Engine<'c, '_>, st: &State<'c>, nexts: &[Next]) {
        let at = e.nodes.len();
        for (p, n) in nexts.iter().enumerate() {
            if let Next::Disabled(a) = n {
                if !a.iter().any(|x| matches!(x.res, Res::All)) {
                    let c = st.threads[p].clock.clone();
                    races(&mut e.nodes, p, a, &c, at);
                }
            }
        }
    }

    /// A node entered without a wakeup tree starts one with the first
    /// thread of the order that is not asleep.
    fn open_node(&self, e: &mut Engine<'_, '_>, node: &NodeView<'_>) -> bool {
        if e.nodes[node.d].wut.kids.is_empty() {
            let Some(&t) = node.order.iter().find(|t| !node.asleep(**t)) else {
                return false;
            };
            e.nodes[node.d].wut.kids.push(WNode {
                tid: t,
                acc: node.next_accesses(t),
                sub: Wut::default(),
            });
        }
        true
    }

    /// The leftmost step of the node's wakeup tree that can run and is
    /// neither asleep nor done.
    fn choose_next(&self, e: &mut Engine<'_, '_>, node: &NodeView<'_>) -> Option<(usize, Wut)> {
        let d = node.d;
        loop {
            if e.nodes[d].wut.kids.is_empty() {
                // Every step left was dropped: go on like a node without
                // a tree (the first thread that is neither asleep nor
                // done), unless a thread was explored from here already.
                if !e.nodes[d].done.is_empty() {
                    return None;
                }
                let n = &e.nodes[d];
                let &t = node
                    .order
                    .iter()
                    .find(|t| !node.asleep(**t) && !n.done.contains(*t))?;
                e.nodes[d].wut.kids.push(WNode {
                    tid: t,
                    acc: node.next_accesses(t),
                    sub: Wut::default(),
                });
            }
            let WNode { tid: t, sub, .. } = e.nodes[d].wut.kids.remove(0);
            // A step that cannot run here (e.g. a join whose thread's end
            // is a deferred tail, not an event) is skipped: the rest of
            // its sequence takes its place.  One already covered is dropped.
            if !e.nodes[d].enabled.contains(&t) {
                let mut rest = sub.kids;
                rest.append(&mut e.nodes[d].wut.kids);
                e.nodes[d].wut.kids = rest;
                continue;
            }
            // Not in `order`: covered by a summary (odpor+ag, a node
            // whose summary holds for every thread but those in `order`).
            if node.asleep(t) || e.nodes[d].done.contains(&t) || !node.order.contains(&t) {
                continue;
            }
            return Some((t, sub));
        }
    }

    /// The node's sleeping and explored threads whose next operation is
    /// independent of `t`'s.  No predicted access means "independent"
    /// only for a thread creation (a thread's end is predicted without its
    /// accesses).
    fn child_sleep<'c>(
        &self,
        e: &Engine<'c, '_>,
        st: &State<'c>,
        node: &NodeView<'_>,
        t: usize,
        tacc: &[Access],
    ) -> Sleep {
        let creates = tacc.is_empty() && next_is_create(e, st, t);
        e.nodes[node.d]
            .sleep
            .iter()
            .filter(|(q, a)| {
                *q != t && !a.is_empty() && (creates || !tacc.is_empty()) && !dependent(a, tacc)
            })
            .cloned()
            .collect()
    }

    fn on_commit<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        _st: &State<'c>,
        tid: usize,
        acc: &[Access],
        pre: &[usize],
        d: usize,
    ) {
        races(&mut e.nodes, tid, acc, pre, d);
    }

    /// odpor+ag: a subtree pruned by its summary did not run, so its
    /// recorded accesses (RVar/WVar, §5.2) race as if executed.  Their
    /// order and happens-before below the node are unknown, so no wakeup
    /// sequence can be built for them; as in dpor+ag, the latest racing
    /// node gets the accessing thread as a one-step sequence (when it
    /// cannot run there, its nearest enabled ancestor, else every enabled
    /// thread) unless it already sleeps or was explored there.
    fn on_prune<'c>(&self, e: &mut Engine<'c, '_>, st: &State<'c>, key: u64) {
        let acc: Vec<(usize, Access)> =
            e.rw.get(&key)
                .map(|s| s.keys().cloned().collect())
                .unwrap_or_default();
        let parents = parents_of(st);
        for (q, a) in acc {
            let clock = st
                .threads
                .get(q)
                .map(|t| t.clock.clone())
                .unwrap_or_default();
            let Some(i) = (0..e.nodes.len()).rev().find(|&i| {
                e.nodes[i].tr.as_ref().is_some_and(|tr| {
                    tr.tid != q
                        && dependent(&tr.acc, std::slice::from_ref(&a))
                        && clock.get(tr.tid).copied().unwrap_or(0) <= i
                })
            }) else {
                continue;
            };
            let n = &e.nodes[i];
            let mut ancestor = Some(q);
            while let Some(x) = ancestor {
                if n.enabled.contains(&x) {
                    break;
                }
                ancestor = parents.get(x).copied().flatten();
            }
            let threads = match ancestor {
                Some(x) => vec![x],
                None => n.enabled.clone(),
            };
            for t in threads {
                let n = &mut e.nodes[i];
                if n.done.contains(&t)
                    || n.sleep.iter().any(|(s, _)| *s == t)
                    || n.wut.kids.iter().any(|k| k.tid == t)
                {
                    continue;
                }
                n.wut.kids.push(WNode {
                    tid: t,
                    acc: Vec::new(),
                    sub: Wut::default(),
                });
            }
        }
    }

    /// A path ends (finding, assumption, step limit) with `tid`'s
    /// transition unfinished: its accesses so far and every other thread's
    /// next operation race like executed events (their reversals must
    /// still be explored).
    fn on_path_end<'c>(&self, e: &mut Engine<'c, '_>, st: &State<'c>, tid: usize) {
        let at = e.nodes.len();
        if !st.normalizing {
            let acc = e.relevant_acc(st.tr_acc.clone());
            let pre = st.threads[tid].clock.clone();
            races(&mut e.nodes, tid, &acc, &pre, at);
        }
        for p in 0..st.threads.len() {
            if p == tid {
                continue;
            }
            if let Next::Enabled(a) | Next::Disabled(a) = e.next_of(st, p) {
                if !a.iter().any(|x| matches!(x.res, Res::All)) {
                    let pre = st.threads[p].clock.clone();
                    races(&mut e.nodes, p, &a, &pre, at);
                }
            }
        }
    }
}

/// Races of `p`'s event with accesses `acc` (executed as the event at
/// stack position `at`, or about to be) whose thread clock before the
/// event is `pre`: insert each race's reversal into the wakeup tree of
/// the node before the earlier event.
fn races(nodes: &mut [DNode], p: usize, acc: &[Access], pre: &[usize], at: usize) {
    if acc.is_empty() {
        return;
    }
    let get = |c: &[usize], t: usize| c.get(t).copied().unwrap_or(0);
    // The event's full clock (what happens before it), and the
    // immediate races, latest first.
    let mut hb: Vec<usize> = pre.to_vec();
    let mut found = Vec::new();
    for i in (0..at.min(nodes.len())).rev() {
        let Some(tr) = &nodes[i].tr else {
            continue;
        };
        if tr.tid == p || !dependent(&tr.acc, acc) {
            continue;
        }
        if get(&hb, tr.tid) <= i {
            found.push(i);
        }
        if hb.len() < tr.clock.len() {
            hb.resize(tr.clock.len(), 0);
        }
        for (k, v) in tr.clock.iter().enumerate() {
            hb[k] = hb[k].max(*v);
        }
    }
    for i in found {
        let w = reversal(nodes, i, p, acc, &hb, at);
        let n = &nodes[i];
        if n.sleep.iter().any(|(q, a)| w.weak_initial(*q, a)) {
            continue;
        }
        let enabled = n.enabled.clone();
        nodes[i].wut.insert(w, &enabled);
    }
}

/// `notdep(e).e'` for the event `e` at position `i`: the events after
/// it (before position `at`) that do not happen after it, then `p`'s
/// event (whose full clock is `hb`).
fn reversal(nodes: &[DNode], i: usize, p: usize, acc: &[Access], hb: &[usize], at: usize) -> WSeq {
    let get = |c: &[usize], t: usize| c.get(t).copied().unwrap_or(0);
    let ti = nodes[i].tr.as_ref().map(|t| t.tid).unwrap_or(usize::MAX);
    // Per thread: (stack position, sequence index) of its events so far.
    let mut by_thread: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    let mut evs: Vec<WEv> = Vec::new();
    let preds_of = |clock: &[usize], tid: usize, by: &HashMap<usize, Vec<(usize, usize)>>| {
        let mut preds = Vec::new();
        for (t, list) in by {
            if *t == tid {
                continue;
            }
            // Latest event of `t` before this one in happens-before.
            if let Some(&(_, k)) = list.iter().rev().find(|(j, _)| get(clock, *t) > *j) {
                preds.push(k);
            }
        }
        preds
    };
    let end = at.min(nodes.len());
    for (j, node) in nodes.iter().enumerate().take(end).skip(i + 1) {
        let Some(tr) = &node.tr else {
            continue;
        };
        if get(&tr.clock, ti) > i {
            continue;
        }
        let preds = preds_of(&tr.clock, tr.tid, &by_thread);
        by_thread.entry(tr.tid).or_default().push((j, evs.len()));
        evs.push(WEv {
            tid: tr.tid,
            acc: tr.acc.clone(),
            preds,
        });
    }
    let preds = preds_of(hb, p, &by_thread);
    evs.push(WEv {
        tid: p,
        acc: acc.to_vec(),
        preds,
    });
    let live = vec![true; evs.len()];
    WSeq { evs, live }
}

/// Is thread `t`'s next operation a `pthread_create` call?
fn next_is_create<'c>(e: &Engine<'c, '_>, st: &State<'c>, t: usize) -> bool {
    let Some(fr) = st.threads[t].frames.last() else {
        return false;
    };
    if st.threads[t].status != TStatus::Run {
        return false;
    }
    match e.m.functions[fr.f].basic_blocks[fr.bb].instrs.get(fr.ip) {
        Some(Instruction::Call(c)) => callee_name(c)
            .is_some_and(|n| crate::calls::role(&n) == crate::calls::Role::ThreadCreate),
        _ => false,
    }
}
