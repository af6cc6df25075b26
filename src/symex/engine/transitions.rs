//! Transitions and their order: the accesses a visible operation makes,
//! when two of them are dependent, the stack of scheduling nodes with the
//! transition taken from each, and the vector clocks (happens-before)
//! that `commit` maintains.  The exploration strategies read and fill the
//! nodes; this module names none of them.

use super::state::State;
use super::strategy::Wut;
use super::{Addr, Engine};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Res {
    Mem(u32, u64, u64),
    Mutex(Addr),
    Cond(Addr),
    ThreadEnd(usize),
    All,
    /// Stands for a visible operation whose every access the directed
    /// slice left out: it conflicts with nothing. (An empty list means
    /// "not predicted", as for a thread's end, and ends sleep sets.)
    Independent,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Access {
    pub(super) res: Res,
    pub(super) write: bool,
}

pub(super) fn conflict(a: &Access, b: &Access) -> bool {
    if matches!(a.res, Res::Independent) || matches!(b.res, Res::Independent) {
        return false;
    }
    if matches!(a.res, Res::All) || matches!(b.res, Res::All) {
        return true;
    }
    if !a.write && !b.write {
        return false;
    }
    match (&a.res, &b.res) {
        (Res::Mem(o1, l1, h1), Res::Mem(o2, l2, h2)) => o1 == o2 && l1 < h2 && l2 < h1,
        (x, y) => x == y,
    }
}

pub(super) fn dependent(a: &[Access], b: &[Access]) -> bool {
    a.iter().any(|x| b.iter().any(|y| conflict(x, y)))
}

/// Each thread's creator, by thread id.
pub(super) fn parents_of(st: &State<'_>) -> Vec<Option<usize>> {
    st.threads.iter().map(|t| t.parent).collect()
}

pub(super) struct Tr {
    pub(super) tid: usize,
    pub(super) acc: Vec<Access>,
    pub(super) clock: Vec<usize>,
}

pub(super) struct DNode {
    pub(super) enabled: Vec<usize>,
    pub(super) backtrack: BTreeSet<usize>,
    pub(super) done: BTreeSet<usize>,
    pub(super) tr: Option<Tr>,
    /// The threads asleep here (on entry, those a summary covers, and each
    /// one explored from here once its subtree is done), with their next
    /// accesses: the sleep-set strategies build the children's from it.
    pub(super) sleep: Vec<(usize, Vec<Access>)>,
    /// `odpor`: the sequences still to explore from here.
    pub(super) wut: Wut,
}

impl<'c, 'm> Engine<'c, 'm> {
    /// Enter the subtree of node `key`: its transitions are those from
    /// index `nodes.len() - 1` on (a scheduling node was just pushed; a
    /// branch or tail node lies inside the transition being run there).
    pub(super) fn open_push(&mut self, key: u64) {
        let d = self.nodes.len().saturating_sub(1);
        self.open.push((key, d));
    }

    /// +CIA: an access to a global that no instruction of the impacted
    /// slice reads is not a scheduling point (its order relative to other
    /// threads cannot change an impacted finding).
    pub(super) fn cia_invisible(&self, o: u32) -> bool {
        match (&self.opts.impacted, &self.slice, self.obj_global.get(&o)) {
            (Some(_), Some(sl), Some(g)) => !sl.global_relevant(g),
            _ => false,
        }
    }

    /// Drop accesses to globals that no instruction of the slice reads,
    /// and (diff-directed slice) operations on mutexes only code outside
    /// the slice takes: their order cannot matter (§6.1).
    pub(super) fn relevant_acc(&self, mut acc: Vec<Access>) -> Vec<Access> {
        if let Some(sl) = &self.slice {
            let before = acc.len();
            acc.retain(|a| match &a.res {
                Res::Mem(o, _, _) => match self.obj_global.get(o) {
                    Some(g) => sl.global_relevant(g),
                    None => true,
                },
                Res::Mutex((o, _)) => match self.obj_global.get(o) {
                    Some(g) => sl.mutex_relevant(g),
                    None => true,
                },
                _ => true,
            });
            // Diff-directed: say "independent" rather than "unknown", so
            // that sleep sets keep the orders of unrelated threads cut.
            if acc.is_empty() && before > 0 && self.independent_marks() {
                acc.push(Access {
                    res: Res::Independent,
                    write: false,
                });
            }
        }
        acc
    }

    /// Does a transition whose accesses the slice left out count as
    /// independent (the directed and violated-location slices, whose
    /// soundness arguments take it so), rather than as not predicted?
    fn independent_marks(&self) -> bool {
        self.diff.is_some() || (self.opts.violated_slice.is_some() && self.opts.slice)
    }

    /// Record the transition that just ended in the parent node.
    pub(super) fn commit(&mut self, st: &mut State<'c>, tid: usize) {
        let acc = std::mem::take(&mut st.tr_acc);
        self.rf_classes_commit(st, tid, &acc);
        self.diff_commit(st, tid, &acc);
        self.count_interferences(st, tid, &acc);
        let acc = self.relevant_acc(acc);
        let created = std::mem::take(&mut st.created);
        let Some(d) = self.nodes.len().checked_sub(1) else {
            return;
        };
        let n = st.threads.len();
        let pre = st.threads[tid].clock.clone();
        let pruning = self.pruning;
        pruning.record_accesses(self, tid, &acc, &pre);
        let strategy = self.strategy;
        strategy.on_commit(self, st, tid, &acc, &pre, d);
        let mut c = pre;
        c.resize(n, 0);
        for i in 0..d {
            if let Some(tr) = &self.nodes[i].tr {
                if dependent(&tr.acc, &acc) {
                    for (k, v) in tr.clock.iter().enumerate() {
                        if k < c.len() && *v > c[k] {
                            c[k] = *v;
                        }
                    }
                }
            }
        }
        c[tid] = d + 1;
        st.threads[tid].clock = c.clone();
        for t in created {
            st.threads[t].clock = c.clone();
        }
        self.nodes[d].tr = Some(Tr { tid, acc, clock: c });
    }
}
