use super::odpor::Wut;
use super::state::State;
use super::{Addr, Engine};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Res {
    Mem(u32, u64, u64),
    Mutex(Addr),
    Cond(Addr),
    ThreadEnd(usize),
    All,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Access {
    pub(super) res: Res,
    pub(super) write: bool,
}

pub(super) fn conflict(a: &Access, b: &Access) -> bool {
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
    /// `odpor`: the threads asleep here (on entry, and each one explored
    /// from here once its subtree is done), with their next accesses.
    pub(super) sleep: Vec<(usize, Vec<Access>)>,
    /// `odpor`: the sequences still to explore from here.
    pub(super) wut: Wut,
}

impl<'c, 'm> Engine<'c, 'm> {
    /// When a subtree is pruned, pretend the accesses recorded below the
    /// node were executed (RVar/WVar, §5.2).
    pub(super) fn prune_dpor_update(&mut self, st: &State<'c>, key: u64) {
        if self.odpor {
            return self.odpor_prune_update(st, key);
        }
        if !self.dpor {
            return;
        }
        let acc: Vec<(usize, Access, u64)> = self
            .rw
            .get(&key)
            .map(|s| s.iter().map(|((q, a), m)| (*q, a.clone(), *m)).collect())
            .unwrap_or_default();
        let parents = parents_of(st);
        for (q, a, after) in acc {
            // The access happens after its own thread's state here and
            // after that of every thread it synchronised with below the
            // node (`after`): a transition on the stack that happens before
            // one of those happens before the access, and does not race.
            let mut clock = st
                .threads
                .get(q)
                .map(|t| t.clock.clone())
                .unwrap_or_default();
            for (r, th) in st.threads.iter().enumerate() {
                if r < 64 && after & (1 << r) != 0 {
                    if clock.len() < th.clock.len() {
                        clock.resize(th.clock.len(), 0);
                    }
                    for (k, v) in th.clock.iter().enumerate() {
                        clock[k] = clock[k].max(*v);
                    }
                }
            }
            self.race_update(q, &[a], &clock, &parents);
        }
    }

    /// Enter the subtree of node `key`: its transitions are those from
    /// index `nodes.len() - 1` on (a scheduling node was just pushed; a
    /// branch or tail node lies inside the transition being run there).
    pub(super) fn open_push(&mut self, key: u64) {
        let d = self.nodes.len().saturating_sub(1);
        self.open.push((key, d));
    }

    /// FG backtrack-set update for thread `p` about to do `acc` with clock
    /// `clock`. Where `p` did not exist yet, its nearest enabled ancestor
    /// is the thread to try first (it leads to `p`'s creation); only
    /// without one does every enabled thread go in.
    pub(super) fn race_update(
        &mut self,
        p: usize,
        acc: &[Access],
        clock: &[usize],
        parents: &[Option<usize>],
    ) {
        for i in (0..self.nodes.len()).rev() {
            let Some(tr) = &self.nodes[i].tr else {
                continue;
            };
            if tr.tid == p || !dependent(&tr.acc, acc) {
                continue;
            }
            let hb = clock.get(tr.tid).copied().unwrap_or(0) > i;
            if hb {
                continue;
            }
            let n = &mut self.nodes[i];
            if n.enabled.contains(&p) {
                n.backtrack.insert(p);
            } else {
                let mut ancestor = parents.get(p).copied().flatten();
                while let Some(a) = ancestor {
                    if n.enabled.contains(&a) {
                        break;
                    }
                    ancestor = parents.get(a).copied().flatten();
                }
                match ancestor {
                    Some(a) => {
                        n.backtrack.insert(a);
                    }
                    None => {
                        let en = n.enabled.clone();
                        n.backtrack.extend(en);
                    }
                }
            }
            break;
        }
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

    /// Drop accesses to globals that no instruction of the slice reads:
    /// their order cannot matter (§6.1).
    pub(super) fn relevant_acc(&self, mut acc: Vec<Access>) -> Vec<Access> {
        if let Some(sl) = &self.slice {
            acc.retain(|a| match &a.res {
                Res::Mem(o, _, _) => match self.obj_global.get(o) {
                    Some(g) => sl.global_relevant(g),
                    None => true,
                },
                _ => true,
            });
        }
        acc
    }

    /// Record the transition that just ended in the parent node.
    pub(super) fn commit(&mut self, st: &mut State<'c>, tid: usize) {
        let acc = std::mem::take(&mut st.tr_acc);
        self.count_interferences(st, tid, &acc);
        let acc = self.relevant_acc(acc);
        let created = std::mem::take(&mut st.created);
        let Some(d) = self.nodes.len().checked_sub(1) else {
            return;
        };
        let n = st.threads.len();
        let pre = st.threads[tid].clock.clone();
        // RVar/WVar sets only serve the summaries (dpor+ag).  With each
        // access, the threads whose state at the open node happens before
        // it through the subtree alone: the access has seen one of their
        // transitions from the node's on (a chain through the path above
        // the node would not hold where the summary is reused).  Over
        // several paths, the threads all of them agree on.
        if self.ag {
            for (k, d) in &self.open {
                let mut after = 0u64;
                for (r, v) in pre.iter().enumerate() {
                    if r < 64 && *v > *d {
                        after |= 1 << r;
                    }
                }
                let e = self.rw.entry(*k).or_default();
                for a in &acc {
                    e.entry((tid, a.clone()))
                        .and_modify(|m| *m &= after)
                        .or_insert(after);
                }
            }
        }
        if self.dpor {
            let parents = parents_of(st);
            self.race_update(tid, &acc, &pre, &parents);
        } else if self.odpor {
            self.odpor_races(tid, &acc, &pre, d);
        }
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
