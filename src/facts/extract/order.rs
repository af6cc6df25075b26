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

/// Order facts between hb events of one thread, in a size linear in the
/// thread's control-flow graph.
///
/// Program order: each event names its strongly connected component
/// (`po_scc`; every event of a loop body shares one), each event component
/// on a loop is listed (`po_scc_cyclic`), and `po_scc_next` holds the edges
/// of the component DAG with the components that hold no event contracted
/// away where that adds no edge (see [`contract_components`]). The rules
/// derive which component reaches which (`po_scc_reach`, rules/order.dl):
/// that closure is quadratic in a thread's events (a 50 KLoC program gave
/// 11 million rows), so it is not a fact.
///
/// Dominance: the nearest event dominating each event (`dom_parent`); the
/// rules derive `dom` from it. Post-dominance is extracted as pairs: the
/// post-dominator chains of events are short.
#[derive(Default)]
pub struct EventOrder {
    /// (event, component id local to the thread)
    pub scc: Vec<(StmtId, usize)>,
    /// Event components that lie on a loop (reach themselves).
    pub scc_cyclic: Vec<usize>,
    /// Edges of the contracted component DAG, sorted: event components and
    /// the junctions between them. Its transitive closure, restricted to
    /// event components, is program order between components.
    pub scc_next: Vec<(usize, usize)>,
    /// (a, b): a is the nearest event that strictly dominates event b.
    pub dom_parent: Vec<(StmtId, StmtId)>,
    /// (a, b): event a strictly dominates event b and b does not reach a,
    /// for the events b the caller asked about only.
    pub dom_of_wanted: Vec<(StmtId, StmtId)>,
    /// (a, b): event b post-dominates event a; each pair once, unordered.
    pub postdom: Vec<(StmtId, StmtId)>,
}

/// `wanted`: the events whose dominating events the caller needs as pairs
/// (`dom_of_wanted`).
pub fn event_order(
    tg: &ThreadGraph,
    events: &HashSet<StmtId>,
    wanted: &HashSet<StmtId>,
) -> EventOrder {
    let mut out = EventOrder::default();
    let is_event: Vec<bool> = tg.nodes.iter().map(|s| events.contains(s)).collect();
    let mut comp_has_event = vec![false; tg.scc_cyclic.len()];
    for (i, &s) in tg.nodes.iter().enumerate() {
        if is_event[i] {
            out.scc.push((s, tg.scc[i]));
            comp_has_event[tg.scc[i]] = true;
        }
    }
    out.scc_cyclic = (0..tg.scc_cyclic.len())
        .filter(|&c| comp_has_event[c] && tg.scc_cyclic[c])
        .collect();
    out.scc_next = contract_components(tg, &comp_has_event);

    // A dominator of b reaches b, so "b does not reach a" (the loop-aware
    // part of dominance and post-dominance) is "a and b lie in different
    // components": a lookup, not a reachability query.
    let event_idom = nearest_event_ancestor(&tg.idom, &is_event);
    for (b, parent) in event_idom.iter().enumerate() {
        let Some(a) = *parent else { continue };
        if !is_event[b] {
            continue;
        }
        out.dom_parent.push((tg.nodes[a], tg.nodes[b]));
        if wanted.contains(&tg.nodes[b]) {
            let mut d = Some(a);
            while let Some(x) = d {
                if tg.scc[x] != tg.scc[b] {
                    out.dom_of_wanted.push((tg.nodes[x], tg.nodes[b]));
                }
                d = event_idom[x];
            }
        }
    }
    let event_ipdom = nearest_event_ancestor(&tg.ipdom, &is_event);
    for a in (0..tg.nodes.len()).filter(|&i| is_event[i]) {
        let mut p = event_ipdom[a];
        while let Some(b) = p {
            if tg.scc[a] != tg.scc[b] {
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

/// The component DAG of a thread with the components that hold no event
/// removed wherever that adds no edge: a component with at most one
/// predecessor or at most one successor is replaced by edges from each
/// predecessor to each successor (never more edges than it had), repeated
/// until only event components and junctions (two or more of each) remain.
/// Reachability between event components is unchanged. Projecting onto
/// event components alone could need quadratically many edges (a run of
/// `if (c) event;` statements: each event reaches every later one through
/// the skipped branches), and the transitive reduction needs the closure.
fn contract_components(tg: &ThreadGraph, has_event: &[bool]) -> Vec<(usize, usize)> {
    let comps = tg.scc_cyclic.len();
    let mut succ: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); comps];
    let mut pred: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); comps];
    for (i, ss) in tg.succ.iter().enumerate() {
        let c = tg.scc[i];
        for &j in ss {
            let d = tg.scc[j];
            if c != d {
                succ[c].insert(d);
                pred[d].insert(c);
            }
        }
    }
    let mut removed = vec![false; comps];
    let mut queued: Vec<bool> = has_event.iter().map(|&e| !e).collect();
    let mut work: Vec<usize> = (0..comps).filter(|&c| !has_event[c]).collect();
    while let Some(x) = work.pop() {
        queued[x] = false;
        if removed[x] || (pred[x].len() > 1 && succ[x].len() > 1) {
            continue;
        }
        removed[x] = true;
        let ps = std::mem::take(&mut pred[x]);
        let ss = std::mem::take(&mut succ[x]);
        for &p in &ps {
            succ[p].remove(&x);
        }
        for &s in &ss {
            pred[s].remove(&x);
        }
        for &p in &ps {
            for &s in &ss {
                succ[p].insert(s);
                pred[s].insert(p);
            }
        }
        for &y in ps.iter().chain(&ss) {
            if !has_event[y] && !queued[y] {
                queued[y] = true;
                work.push(y);
            }
        }
    }
    let mut edges = Vec::new();
    for (c, ss) in succ.iter().enumerate() {
        if !removed[c] {
            edges.extend(ss.iter().map(|&d| (c, d)));
        }
    }
    edges
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
