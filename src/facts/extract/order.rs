//! Order within a thread: program order, loop-aware dominance and
//! post-dominance between hb events, and control dependence between all
//! statements. Dominator trees come from petgraph (Cooper-Harvey-Kennedy).

use super::program::{ProgramModel, StmtId};
use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeSet, HashMap, HashSet};

/// One thread's control-flow graph over statements, with its dominator trees.
pub struct ThreadGraph {
    pub nodes: Vec<StmtId>,
    pub local: HashMap<StmtId, usize>,
    pub succ: Vec<Vec<usize>>,
    /// Immediate dominator of each node (None for the root and dead code).
    pub idom: Vec<Option<usize>>,
    /// Immediate post-dominator (None at exits and where no exit is reachable).
    pub ipdom: Vec<Option<usize>>,
    /// Strongly connected component of each node, and whether it is a cycle.
    pub scc: Vec<usize>,
    pub scc_cyclic: Vec<bool>,
    /// The nodes of each component.
    pub scc_members: Vec<Vec<usize>>,
}

impl ThreadGraph {
    pub fn build(model: &ProgramModel<'_>, thread: usize) -> ThreadGraph {
        let nodes = model.threads[thread].stmts.clone();
        let local: HashMap<StmtId, usize> =
            nodes.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        let n = nodes.len();
        let succ: Vec<Vec<usize>> = nodes
            .iter()
            .map(|&s| {
                model.succ[s as usize]
                    .iter()
                    .filter_map(|t| local.get(t).copied())
                    .collect()
            })
            .collect();

        let mut g = DiGraph::<(), ()>::with_capacity(n, n);
        for _ in 0..n {
            g.add_node(());
        }
        for (a, ss) in succ.iter().enumerate() {
            for &b in ss {
                g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
            }
        }
        let root = model.threads[thread]
            .stmts
            .first()
            .and_then(|s| local.get(s))
            .copied()
            .unwrap_or(0);
        let doms = simple_fast(&g, NodeIndex::new(root));
        let idom: Vec<Option<usize>> = (0..n)
            .map(|i| {
                doms.immediate_dominator(NodeIndex::new(i))
                    .map(|d| d.index())
            })
            .collect();

        // Post-dominators: dominators of the reversed graph from a virtual exit
        // that every statement without successors flows to.
        let mut r = DiGraph::<(), ()>::with_capacity(n + 1, n + 1);
        for _ in 0..=n {
            r.add_node(());
        }
        let exit = NodeIndex::new(n);
        for (a, ss) in succ.iter().enumerate() {
            for &b in ss {
                r.add_edge(NodeIndex::new(b), NodeIndex::new(a), ());
            }
            if ss.is_empty() {
                r.add_edge(exit, NodeIndex::new(a), ());
            }
        }
        let pdoms = simple_fast(&r, exit);
        let ipdom: Vec<Option<usize>> = (0..n)
            .map(|i| {
                pdoms
                    .immediate_dominator(NodeIndex::new(i))
                    .map(|d| d.index())
                    .filter(|&d| d != n)
            })
            .collect();

        let mut scc = vec![0; n];
        let mut scc_cyclic = Vec::new();
        let mut scc_members = Vec::new();
        for (k, comp) in petgraph::algo::kosaraju_scc(&g).into_iter().enumerate() {
            let cyclic =
                comp.len() > 1 || comp.iter().any(|c| succ[c.index()].contains(&c.index()));
            for c in &comp {
                scc[c.index()] = k;
            }
            scc_cyclic.push(cyclic);
            scc_members.push(comp.iter().map(|c| c.index()).collect());
        }
        ThreadGraph {
            nodes,
            local,
            succ,
            idom,
            ipdom,
            scc,
            scc_cyclic,
            scc_members,
        }
    }

    pub fn in_cycle(&self, s: StmtId) -> bool {
        self.local
            .get(&s)
            .is_some_and(|&i| self.scc_cyclic[self.scc[i]])
    }

    pub fn same_cycle(&self, a: StmtId, b: StmtId) -> bool {
        match (self.local.get(&a), self.local.get(&b)) {
            (Some(&i), Some(&j)) => self.scc[i] == self.scc[j] && self.scc_cyclic[self.scc[i]],
            _ => false,
        }
    }

    /// Statements reachable from `s` by a non-empty path.
    pub fn reachable_from(&self, s: StmtId) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let Some(&start) = self.local.get(&s) else {
            return seen;
        };
        let mut stack: Vec<usize> = self.succ[start].clone();
        while let Some(x) = stack.pop() {
            if !seen[x] {
                seen[x] = true;
                stack.extend(self.succ[x].iter().copied());
            }
        }
        seen
    }
}

/// Order facts between hb events of one thread.
///
/// Program order is kept in compact form: each event names its strongly
/// connected component (`po_scc`) and each component the components it
/// reaches (`po_scc_reach`). Every event of a loop body shares one
/// component, so a loop of k events gives k rows instead of k² (pigz's main
/// loop alone was 9 million `po` rows); `po(a, b)` is the join
/// `po_scc(a, c), po_scc_reach(c, d), po_scc(b, d)`, which the rules only
/// evaluate with both ends bound.
#[derive(Default)]
pub struct EventOrder {
    /// (event, component id local to the thread)
    pub scc: Vec<(StmtId, usize)>,
    /// (component, component it reaches by a non-empty path); (c, c) for a
    /// cyclic component. Only components holding events appear.
    pub scc_reach: BTreeSet<(usize, usize)>,
    /// The transitive reduction of `scc_reach` without its (c, c) rows:
    /// (c, d) when d follows c with no event component in between. Rules
    /// walk it to extend an order component by component instead of
    /// composing `scc_reach` with itself (a cubic join on long threads).
    pub scc_next: BTreeSet<(usize, usize)>,
    /// (a, b): event a dominates event b. Each pair once (one walk up the
    /// dominator tree per event), in no particular order.
    pub dom: Vec<(StmtId, StmtId)>,
    /// (a, b): event b post-dominates event a; each pair once, unordered.
    pub postdom: Vec<(StmtId, StmtId)>,
}

pub fn event_order(tg: &ThreadGraph, events: &HashSet<StmtId>) -> EventOrder {
    let mut out = EventOrder::default();
    let thread_events: Vec<usize> = tg
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, s)| events.contains(s))
        .map(|(i, _)| i)
        .collect();
    // node -> its index among the thread's events (dense: looked up per
    // dominator-tree step and per edge)
    let mut slot: Vec<Option<usize>> = vec![None; tg.nodes.len()];
    for (k, &i) in thread_events.iter().enumerate() {
        slot[i] = Some(k);
    }
    let reach = EventReach::compute(tg, &slot, thread_events.len());
    let mut event_comps: Vec<usize> = thread_events.iter().map(|&e| tg.scc[e]).collect();
    event_comps.sort_unstable();
    event_comps.dedup();
    for &e in &thread_events {
        out.scc.push((tg.nodes[e], tg.scc[e]));
    }
    for &c in &event_comps {
        for (k, &f) in thread_events.iter().enumerate() {
            if reach.reaches(c, k) {
                out.scc_reach.insert((c, tg.scc[f]));
            }
        }
    }
    out.scc_next = transitive_reduction(&event_comps, &out.scc_reach);
    // Walk only the events among each event's dominators (a walk over all
    // dominators costs the depth of the dominator tree per event).
    let is_event: Vec<bool> = slot.iter().map(Option::is_some).collect();
    let event_idom = nearest_event_ancestor(&tg.idom, &is_event);
    for &b in &thread_events {
        let mut d = event_idom[b];
        while let Some(a) = d {
            let a_slot = slot[a].expect("an event");
            if a != b && !reach.reaches(tg.scc[b], a_slot) {
                out.dom.push((tg.nodes[a], tg.nodes[b]));
            }
            d = event_idom[a];
        }
    }
    let event_ipdom = nearest_event_ancestor(&tg.ipdom, &is_event);
    for &a in &thread_events {
        let a_slot = slot[a].expect("an event");
        let mut p = event_ipdom[a];
        while let Some(b) = p {
            if a != b && !reach.reaches(tg.scc[b], a_slot) {
                out.postdom.push((tg.nodes[a], tg.nodes[b]));
            }
            p = event_ipdom[b];
        }
    }
    out
}

/// Per node, its nearest strict ancestor in the tree `parent` (immediate
/// dominators or post-dominators) that is an event. Each node's answer is
/// found once: a walk stops at the first event or at a node already
/// answered, and every node it passed shares that answer.
fn nearest_event_ancestor(parent: &[Option<usize>], is_event: &[bool]) -> Vec<Option<usize>> {
    let mut answer: Vec<Option<Option<usize>>> = vec![None; parent.len()];
    let mut path = Vec::new();
    for start in 0..parent.len() {
        path.clear();
        let mut x = start;
        let found = loop {
            if let Some(known) = answer[x] {
                break known;
            }
            path.push(x);
            match parent[x] {
                None => break None,
                Some(p) if is_event[p] => break Some(p),
                Some(p) => x = p,
            }
        };
        for &y in &path {
            answer[y] = Some(found);
        }
    }
    answer.into_iter().map(Option::flatten).collect()
}

/// The pairs (c, d), c != d, of `reach` (a transitively closed relation over
/// `comps`) not implied by two others: d is in reach(c) but in no reach(e)
/// for e in reach(c), e != c. One bitset per component keeps this at
/// |reach| x |comps| / 64 word operations.
fn transitive_reduction(
    comps: &[usize],
    reach: &BTreeSet<(usize, usize)>,
) -> BTreeSet<(usize, usize)> {
    let index: HashMap<usize, usize> = comps.iter().enumerate().map(|(k, &c)| (c, k)).collect();
    let words = comps.len().div_ceil(64).max(1);
    let mut strict = vec![0u64; comps.len() * words];
    for &(c, d) in reach {
        if c != d {
            let (i, j) = (index[&c], index[&d]);
            strict[i * words + j / 64] |= 1 << (j % 64);
        }
    }
    let mut out = BTreeSet::new();
    let mut implied = vec![0u64; words];
    for (i, &c) in comps.iter().enumerate() {
        implied.iter_mut().for_each(|w| *w = 0);
        let row = &strict[i * words..(i + 1) * words];
        for j in ones(row) {
            for (w, x) in implied.iter_mut().zip(&strict[j * words..(j + 1) * words]) {
                *w |= x;
            }
        }
        for j in ones(row) {
            if implied[j / 64] & (1 << (j % 64)) == 0 {
                out.insert((c, comps[j]));
            }
        }
    }
    out
}

/// Indices of the set bits of a bitset.
fn ones(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    bits.iter().enumerate().flat_map(|(w, &word)| {
        (0..64)
            .filter(move |b| word & (1 << b) != 0)
            .map(move |b| w * 64 + b)
    })
}

/// Which events each strongly connected component reaches by a non-empty
/// path: one bitset per component, filled in reverse topological order
/// (Tarjan's order), so the cost is edges x events / 64 rather than one
/// graph search per event.
struct EventReach {
    words: usize,
    bits: Vec<u64>,
}

impl EventReach {
    fn compute(tg: &ThreadGraph, slot: &[Option<usize>], events: usize) -> EventReach {
        let words = events.div_ceil(64).max(1);
        let comps = tg.scc_cyclic.len();
        let members = &tg.scc_members;
        let mut bits = vec![0u64; comps * words];
        let mut own = vec![0u64; words];
        for k in 0..comps {
            // Events of a successor component, and what it reaches.
            let mut acc = vec![0u64; words];
            for &i in &members[k] {
                for &j in &tg.succ[i] {
                    let c = tg.scc[j];
                    if c == k {
                        continue;
                    }
                    for w in 0..words {
                        acc[w] |= bits[c * words + w];
                    }
                    if let Some(e) = slot[j] {
                        acc[e / 64] |= 1 << (e % 64);
                    }
                }
            }
            if tg.scc_cyclic[k] {
                own.iter_mut().for_each(|w| *w = 0);
                for &i in &members[k] {
                    if let Some(e) = slot[i] {
                        own[e / 64] |= 1 << (e % 64);
                    }
                }
                for w in 0..words {
                    acc[w] |= own[w];
                }
            }
            bits[k * words..(k + 1) * words].copy_from_slice(&acc);
        }
        EventReach { words, bits }
    }

    fn reaches(&self, comp: usize, event_slot: usize) -> bool {
        self.bits[comp * self.words + event_slot / 64] & (1 << (event_slot % 64)) != 0
    }
}

/// Statements on every complete run of the thread: the post-dominator
/// chain of its first statement.
pub fn always_executed(tg: &ThreadGraph) -> Vec<StmtId> {
    let mut out = Vec::new();
    if tg.nodes.is_empty() {
        return out;
    }
    let mut at = Some(0usize);
    let mut steps = 0;
    while let Some(i) = at {
        out.push(tg.nodes[i]);
        at = tg.ipdom[i];
        steps += 1;
        if steps > tg.nodes.len() {
            break;
        }
    }
    out
}

/// Control dependence (Ferrante, Ottenstein, Warren) from post-dominance:
/// for a branch A and successor B, every node from B up the post-dominator
/// tree to A's immediate post-dominator (exclusive) depends on A.
pub fn control_dependence(tg: &ThreadGraph) -> BTreeSet<(StmtId, StmtId)> {
    let mut out = BTreeSet::new();
    for (a, ss) in tg.succ.iter().enumerate() {
        let distinct: BTreeSet<usize> = ss.iter().copied().collect();
        if distinct.len() < 2 {
            continue;
        }
        let stop = tg.ipdom[a];
        for &b in &distinct {
            let mut runner = Some(b);
            let mut steps = 0;
            while let Some(r) = runner {
                if Some(r) == stop || steps > tg.nodes.len() {
                    break;
                }
                out.insert((tg.nodes[a], tg.nodes[r]));
                runner = tg.ipdom[r];
                steps += 1;
            }
        }
    }
    out
}
