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

use super::dpor::{dependent, parents_of, Access, Res};
use super::notes::Note;
use super::state::{State, TStatus};
use super::summary::wp_and;
use super::val::Cond;
use super::visibility::Next;
use super::{callee_name, Engine};
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
pub(super) struct Wut {
    pub(super) kids: Vec<WNode>,
}

#[derive(Clone, Debug)]
pub(super) struct WNode {
    pub(super) tid: usize,
    pub(super) acc: Vec<Access>,
    pub(super) sub: Wut,
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

impl<'c, 'm> Engine<'c, 'm> {
    /// Races of `p`'s event with accesses `acc` (executed as the event at
    /// stack position `at`, or about to be) whose thread clock before the
    /// event is `pre`: insert each race's reversal into the wakeup tree of
    /// the node before the earlier event.
    pub(super) fn odpor_races(&mut self, p: usize, acc: &[Access], pre: &[usize], at: usize) {
        if acc.is_empty() {
            return;
        }
        let get = |c: &[usize], t: usize| c.get(t).copied().unwrap_or(0);
        // The event's full clock (what happens before it), and the
        // immediate races, latest first.
        let mut hb: Vec<usize> = pre.to_vec();
        let mut races = Vec::new();
        for i in (0..at.min(self.nodes.len())).rev() {
            let Some(tr) = &self.nodes[i].tr else {
                continue;
            };
            if tr.tid == p || !dependent(&tr.acc, acc) {
                continue;
            }
            if get(&hb, tr.tid) <= i {
                races.push(i);
            }
            if hb.len() < tr.clock.len() {
                hb.resize(tr.clock.len(), 0);
            }
            for (k, v) in tr.clock.iter().enumerate() {
                hb[k] = hb[k].max(*v);
            }
        }
        for i in races {
            let w = self.reversal(i, p, acc, &hb, at);
            let n = &self.nodes[i];
            if n.sleep.iter().any(|(q, a)| w.weak_initial(*q, a)) {
                continue;
            }
            let enabled = n.enabled.clone();
            self.nodes[i].wut.insert(w, &enabled);
        }
    }

    /// `notdep(e).e'` for the event `e` at position `i`: the events after
    /// it (before position `at`) that do not happen after it, then `p`'s
    /// event (whose full clock is `hb`).
    fn reversal(&self, i: usize, p: usize, acc: &[Access], hb: &[usize], at: usize) -> WSeq {
        let get = |c: &[usize], t: usize| c.get(t).copied().unwrap_or(0);
        let ti = self.nodes[i]
            .tr
            .as_ref()
            .map(|t| t.tid)
            .unwrap_or(usize::MAX);
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
        for j in i + 1..at.min(self.nodes.len()) {
            let Some(tr) = &self.nodes[j].tr else {
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
}

impl<'c, 'm> Engine<'c, 'm> {
    /// Explore node `d` (just pushed, entered with sleep set `sleep`) by its
    /// wakeup tree; with an empty tree, the first thread of `order` that is
    /// not asleep.  Returns how many threads were explored, or `None` when
    /// every enabled thread sleeps.
    pub(super) fn odpor_node(
        &mut self,
        st: &State<'c>,
        d: usize,
        order: &[usize],
        nexts: &[Next],
        sleep: &[(usize, Vec<Access>)],
        wp: &mut Cond<'c>,
    ) -> Option<usize> {
        let asleep = |t: usize| sleep.iter().any(|(q, _)| *q == t);
        let acc_of = |t: usize| match &nexts[t] {
            Next::Enabled(a) => a.clone(),
            _ => vec![],
        };
        if self.nodes[d].wut.kids.is_empty() {
            let t = *order.iter().find(|t| !asleep(**t))?;
            self.nodes[d].wut.kids.push(WNode {
                tid: t,
                acc: acc_of(t),
                sub: Wut::default(),
            });
        }
        let mut explored = 0;
        loop {
            if self.nodes[d].wut.kids.is_empty() {
                // Every step left was dropped: go on like a node without
                // a tree (the first thread that is neither asleep nor done).
                if explored > 0 {
                    break;
                }
                let n = &self.nodes[d];
                let Some(&t) = order.iter().find(|t| !asleep(**t) && !n.done.contains(*t)) else {
                    break;
                };
                self.nodes[d].wut.kids.push(WNode {
                    tid: t,
                    acc: acc_of(t),
                    sub: Wut::default(),
                });
            }
            let WNode { tid: t, sub, .. } = self.nodes[d].wut.kids.remove(0);
            // A step that cannot run here (e.g. a join whose thread's end
            // is a deferred tail, not an event) is skipped: the rest of
            // its sequence takes its place.  One already covered is dropped.
            if !self.nodes[d].enabled.contains(&t) {
                let mut rest = sub.kids;
                rest.append(&mut self.nodes[d].wut.kids);
                self.nodes[d].wut.kids = rest;
                continue;
            }
            // Not in `order`: covered by a summary (odpor+ag, a node
            // whose summary holds for every thread but those in `order`).
            if asleep(t) || self.nodes[d].done.contains(&t) || !order.contains(&t) {
                continue;
            }
            self.nodes[d].done.insert(t);
            self.nodes[d].tr = None;
            let tacc = acc_of(t);
            // No predicted access means "independent" only for a thread
            // creation (a thread's end is predicted without its accesses).
            let creates = tacc.is_empty() && self.next_is_create(st, t);
            let child_sleep: Vec<(usize, Vec<Access>)> = self.nodes[d]
                .sleep
                .iter()
                .filter(|(q, a)| {
                    *q != t
                        && !a.is_empty()
                        && (creates || !tacc.is_empty())
                        && !dependent(a, &tacc)
                })
                .cloned()
                .collect();
            if self.debug {
                self.note(Note::Debug(format!(
                    "node {:?}: explore T{t} (next {:?}), child sleep {:?}, wakeup {:?}",
                    st.sched, tacc, child_sleep, sub
                )));
            }
            let mut child = st.clone();
            child.sched.push(t);
            child.wut = sub;
            let w = self.run_thread(child, t, true, child_sleep);
            // Weakest preconditions only matter to the pruning (odpor+ag).
            if self.ag {
                *wp = wp_and(self.ctx, &self.simp, wp, &w);
            }
            explored += 1;
            self.nodes[d].sleep.push((t, tacc));
            if self.stop {
                break;
            }
        }
        Some(explored)
    }

    /// Is thread `t`'s next operation a `pthread_create` call?
    fn next_is_create(&self, st: &State<'c>, t: usize) -> bool {
        let Some(fr) = st.threads[t].frames.last() else {
            return false;
        };
        if st.threads[t].status != TStatus::Run {
            return false;
        }
        match self.m.functions[fr.f].basic_blocks[fr.bb].instrs.get(fr.ip) {
            Some(Instruction::Call(c)) => callee_name(c)
                .is_some_and(|n| crate::calls::role(&n) == crate::calls::Role::ThreadCreate),
            _ => false,
        }
    }

    /// A path ends (finding, assumption, step limit) with `tid`'s transition
    /// unfinished: its accesses so far and every other thread's next
    /// operation race like executed events (their reversals must still be
    /// explored).
    pub(super) fn odpor_end(&mut self, st: &State<'c>, tid: usize) {
        if !self.odpor {
            return;
        }
        let at = self.nodes.len();
        if !st.normalizing {
            let acc = self.relevant_acc(st.tr_acc.clone());
            let pre = st.threads[tid].clock.clone();
            self.odpor_races(tid, &acc, &pre, at);
        }
        for p in 0..st.threads.len() {
            if p == tid {
                continue;
            }
            if let Next::Enabled(a) | Next::Disabled(a) = self.next_of(st, p) {
                if !a.iter().any(|x| matches!(x.res, Res::All)) {
                    let pre = st.threads[p].clock.clone();
                    self.odpor_races(p, &a, &pre, at);
                }
            }
        }
    }
}

impl<'c, 'm> Engine<'c, 'm> {
    /// odpor+ag: a subtree pruned by its summary did not run, so its
    /// recorded accesses (RVar/WVar, §5.2) race as if executed.  Their
    /// order and happens-before below the node are unknown, so no wakeup
    /// sequence can be built for them; as in dpor+ag, the latest racing
    /// node gets the accessing thread as a one-step sequence (when it
    /// cannot run there, its nearest enabled ancestor, else every enabled
    /// thread) unless it already sleeps or was explored there.
    pub(super) fn odpor_prune_update(&mut self, st: &State<'c>, key: u64) {
        let acc: Vec<(usize, Access)> = self
            .rw
            .get(&key)
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default();
        let parents = parents_of(st);
        for (q, a) in acc {
            let clock = st
                .threads
                .get(q)
                .map(|t| t.clock.clone())
                .unwrap_or_default();
            let Some(i) = (0..self.nodes.len()).rev().find(|&i| {
                self.nodes[i].tr.as_ref().is_some_and(|tr| {
                    tr.tid != q
                        && dependent(&tr.acc, std::slice::from_ref(&a))
                        && clock.get(tr.tid).copied().unwrap_or(0) <= i
                })
            }) else {
                continue;
            };
            let n = &self.nodes[i];
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
                let n = &mut self.nodes[i];
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
}
