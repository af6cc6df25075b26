//! Flanagan–Godefroid dynamic partial-order reduction with sleep sets
//! (`--reduction dpor`): a race between a thread's next operation and an
//! earlier transition puts the thread into the backtrack set of the node
//! before that transition; a node explores its backtrack set, minus the
//! threads asleep there.

use super::super::state::State;
use super::super::transitions::{dependent, parents_of, Access, DNode, Res};
use super::super::visibility::Next;
use super::super::Engine;
use super::{ExplorationStrategy, NodeView, Sleep, Wut};

pub(in crate::symex::engine) struct Dpor;

impl ExplorationStrategy for Dpor {
    /// Every thread's next operation (enabled or not) may race with an
    /// earlier transition; done at every state, including deadlocked ones
    /// and those where a deferred tail runs.
    fn races_at_state<'c>(&self, e: &mut Engine<'c, '_>, st: &State<'c>, nexts: &[Next]) {
        let parents = parents_of(st);
        for (p, n) in nexts.iter().enumerate() {
            if let Next::Enabled(a) | Next::Disabled(a) = n {
                // An atomic section's accesses that could not be
                // predicted are only known once it ran; its race check
                // happens at commit time.
                if a.iter().any(|x| matches!(x.res, Res::All)) {
                    continue;
                }
                race_update(&mut e.nodes, p, a, &st.threads[p].clock, &parents);
            }
        }
    }

    /// Every enabled thread asleep: each continuation is equivalent to one
    /// explored elsewhere.
    fn all_asleep_ends_path(&self) -> bool {
        true
    }

    /// The first thread of the order that is awake starts the backtrack
    /// set.  At a node a summary partly covers, the covered threads count
    /// as explored from here: continuations starting with them are
    /// covered, so they sleep in the children as if run first (else the
    /// uncovered threads re-explore every order of them below).
    fn open_node(&self, e: &mut Engine<'_, '_>, node: &NodeView<'_>) -> bool {
        let Some(first) = node.order.iter().find(|t| !node.asleep(**t)) else {
            return false;
        };
        let n = &mut e.nodes[node.d];
        n.backtrack.insert(*first);
        if let Some(uncovered) = node.uncovered {
            let covered: Sleep = n
                .enabled
                .iter()
                .filter(|t| !uncovered.contains(t) && !node.asleep(**t))
                .filter_map(|t| match &node.nexts[*t] {
                    Next::Enabled(a) => Some((*t, a.clone())),
                    _ => None,
                })
                .collect();
            n.sleep.extend(covered);
        }
        true
    }

    fn choose_next(&self, e: &mut Engine<'_, '_>, node: &NodeView<'_>) -> Option<(usize, Wut)> {
        let n = &e.nodes[node.d];
        let t = node
            .order
            .iter()
            .find(|t| n.backtrack.contains(t) && !n.done.contains(t) && !node.asleep(**t))?;
        Some((*t, Wut::default()))
    }

    /// The node's sleeping and explored threads whose next operation is
    /// independent of `t`'s.
    fn child_sleep<'c>(
        &self,
        e: &Engine<'c, '_>,
        _st: &State<'c>,
        node: &NodeView<'_>,
        t: usize,
        tacc: &[Access],
    ) -> Sleep {
        e.nodes[node.d]
            .sleep
            .iter()
            .filter(|(q, a)| *q != t && !dependent(a, tacc) && !tacc.is_empty() && !a.is_empty())
            .cloned()
            .collect()
    }

    fn on_commit<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        st: &State<'c>,
        tid: usize,
        acc: &[Access],
        pre: &[usize],
        _d: usize,
    ) {
        let parents = parents_of(st);
        race_update(&mut e.nodes, tid, acc, pre, &parents);
    }

    /// When a subtree is pruned, pretend the accesses recorded below the
    /// node were executed (RVar/WVar, §5.2).
    fn on_prune<'c>(&self, e: &mut Engine<'c, '_>, st: &State<'c>, key: u64) {
        let acc: Vec<(usize, Access, u64)> =
            e.rw.get(&key)
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
            race_update(&mut e.nodes, q, &[a], &clock, &parents);
        }
    }
}

/// FG backtrack-set update for thread `p` about to do `acc` with clock
/// `clock`: the latest racing node gets `p`.  Where `p` did not exist yet,
/// its nearest enabled ancestor is the thread to try first (it leads to
/// `p`'s creation); only without one does every enabled thread go in.
fn race_update(
    nodes: &mut [DNode],
    p: usize,
    acc: &[Access],
    clock: &[usize],
    parents: &[Option<usize>],
) {
    for i in (0..nodes.len()).rev() {
        let Some(tr) = &nodes[i].tr else {
            continue;
        };
        if tr.tid == p || !dependent(&tr.acc, acc) {
            continue;
        }
        let hb = clock.get(tr.tid).copied().unwrap_or(0) > i;
        if hb {
            continue;
        }
        let n = &mut nodes[i];
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
