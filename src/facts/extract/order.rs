//! Order within a thread: program order, loop-aware dominance and
//! post-dominance between hb events, and control dependence between all
//! statements. Dominator trees: dominators.rs.

use super::pointsto::LocId;
use super::program::{ProgramModel, StmtId};
use super::same_object::LoadStoreKey;
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

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

        let root = model.threads[thread]
            .stmts
            .first()
            .and_then(|s| local.get(s))
            .copied()
            .unwrap_or(0);
        let idom = super::dominators::immediate_dominators(&succ, root);
        let ipdom = super::dominators::immediate_post_dominators(&succ);
        let mut g = DiGraph::<(), ()>::with_capacity(n, n);
        for _ in 0..n {
            g.add_node(());
        }
        for (a, ss) in succ.iter().enumerate() {
            for &b in ss {
                g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
            }
        }

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
/// away where that adds no edge (see [`contract_components`]). Which
/// component reaches which is labelled, not listed: the closure is
/// quadratic in a thread's events (a 50 KLoC program gave 11 million
/// rows; derived by rules it was most of a straight-line program's time).
/// The event components are covered by chains, each ordered by
/// reachability (`po_chain`), and each component lists, per chain, the
/// last position that reaches it (`po_chain_before`): the components of a
/// chain that reach c are a prefix of it (see [`chain_labels`]).
///
/// Dominance: the nearest event dominating each event (`dom_parent`), and
/// heavy-path labels of that tree (`dom_path`, `dom_path_above`) from
/// which the rules read `dom` as a view: its pairs are quadratic in a
/// thread's depth (straight-line code: every event dominates every later
/// one). Post-dominance is extracted as pairs.
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
    /// (component, chain, position): the event component lies on the chain
    /// (named by its first component) at the position.
    pub chain: Vec<(usize, usize, u32)>,
    /// (component, chain, position): the last position of the chain whose
    /// component reaches this event component by a non-empty path.
    pub chain_before: Vec<(usize, usize, u32)>,
    /// (a, b): a is the nearest event that strictly dominates event b.
    pub dom_parent: Vec<(StmtId, StmtId)>,
    /// (event, path, depth): the event's place on a heavy path of the
    /// event dominator tree (the path named by its first event).
    pub dom_path: Vec<(StmtId, StmtId, u32)>,
    /// (b, path, depth): the path's events up to the depth dominate b and
    /// lie outside b's component (see [`EventTree::path_labels`]).
    pub dom_path_above: Vec<(StmtId, StmtId, u32)>,
    /// (a, b): event a strictly dominates event b and b does not reach a,
    /// for the events b the caller asked about only.
    pub dom_of_wanted: Vec<(StmtId, StmtId)>,
    /// (a, b): event b post-dominates event a; each pair once, unordered.
    pub postdom: Vec<(StmtId, StmtId)>,
    /// (x, v, w): w is the nearest event strictly dominating the shared
    /// access x (to v) that stores to v.
    pub near_store: Vec<(StmtId, LocId, StmtId)>,
    /// (w, r): w is the nearest store strictly dominating the load r with
    /// r's address key: it wrote the cell r reads.
    pub same_object: Vec<(StmtId, StmtId)>,
    /// (r, w): the store w writes the cell the load r read, when w runs
    /// after r (same_object.rs, `load_store_keys`).
    pub load_store_same_object: Vec<(StmtId, StmtId)>,
}

/// The shared accesses of the program's statements, by location.
pub struct SharedAccesses<'a> {
    pub reads: &'a BTreeMap<StmtId, Vec<LocId>>,
    pub writes: &'a BTreeMap<StmtId, Vec<LocId>>,
    /// The accesses to locations of many cells whose address is known
    /// exactly (same_object.rs): one id, one cell in one activation.
    pub address_key: &'a HashMap<StmtId, u32>,
    /// The loads and stores that may pair as "a load, then a store of its
    /// cell" (any number of targets).
    pub load_store_key: &'a HashMap<StmtId, LoadStoreKey>,
}

/// `wanted`: the events whose dominating events the caller needs as pairs
/// (`dom_of_wanted`).
pub fn event_order(
    tg: &ThreadGraph,
    events: &HashSet<StmtId>,
    wanted: &HashSet<StmtId>,
    accesses: &SharedAccesses<'_>,
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
    let cyclic_event: Vec<bool> = (0..tg.scc_cyclic.len())
        .map(|c| comp_has_event[c] && tg.scc_cyclic[c])
        .collect();
    (out.chain, out.chain_before) = chain_labels(&out.scc_next, &comp_has_event, &cyclic_event);

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
    let dom_tree = EventTree::new(&event_idom, &is_event);
    (out.near_store, out.same_object) = nearest_dominating_stores(tg, &dom_tree, accesses);
    out.load_store_same_object = loads_then_stores(tg, &dom_tree, accesses.load_store_key);
    let (on_path, above) = dom_tree.path_labels(&dom_tree.outer_ancestor(&tg.scc));
    let stmt = |(x, h, d): (usize, usize, u32)| (tg.nodes[x], tg.nodes[h], d);
    out.dom_path = on_path.into_iter().map(stmt).collect();
    out.dom_path_above = above.into_iter().map(stmt).collect();
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

/// For each shared access `x` and location `v` it reads or writes: the
/// nearest event strictly above `x` in the event dominator tree
/// (`event_parent`, local indices) that stores to `v`, if any. One
/// depth-first walk with a stack of stores per location: linear in the
/// events and their accesses. (Walking up from each access in rules cost
/// time and memory of the accesses times the depth of the tree: 4 million
/// rows on a 20 KLoC program.) The same walk keeps a stack per location
/// and address key, for the keyed loads' same-cell stores.
#[allow(clippy::type_complexity)]
fn nearest_dominating_stores(
    tg: &ThreadGraph,
    tree: &EventTree,
    accesses: &SharedAccesses<'_>,
) -> (Vec<(StmtId, LocId, StmtId)>, Vec<(StmtId, StmtId)>) {
    let (reads, writes) = (accesses.reads, accesses.writes);
    let no_locs: Vec<LocId> = Vec::new();
    let written = |x: usize| writes.get(&tg.nodes[x]).unwrap_or(&no_locs);
    // a keyed access's one cell, with its key
    let keyed = |x: usize, cells: Option<&Vec<LocId>>| match (
        accesses.address_key.get(&tg.nodes[x]),
        cells.map(Vec::as_slice),
    ) {
        (Some(&k), Some([v])) => Some((*v, k)),
        _ => None,
    };
    let mut stores: HashMap<LocId, Vec<usize>> = HashMap::default();
    let mut keyed_stores: HashMap<(LocId, u32), Vec<usize>> = HashMap::default();
    let mut out = Vec::new();
    let mut same_object = Vec::new();
    // (node, children visited?): a node's stores are pushed on entry and
    // popped once its subtree is done
    let mut stack: Vec<(usize, bool)> = tree.roots.iter().rev().map(|&r| (r, false)).collect();
    while let Some((x, done)) = stack.pop() {
        let s = tg.nodes[x];
        if done {
            for v in written(x) {
                stores.get_mut(v).map(Vec::pop);
            }
            if let Some(vk) = keyed(x, writes.get(&s)) {
                keyed_stores.get_mut(&vk).map(Vec::pop);
            }
            continue;
        }
        if let Some(vk) = keyed(x, reads.get(&s)) {
            if let Some(&w) = keyed_stores.get(&vk).and_then(|st| st.last()) {
                same_object.push((tg.nodes[w], s));
            }
        }
        let accessed = reads.get(&s).into_iter().flatten().chain(written(x));
        let mut seen = BTreeSet::new();
        for &v in accessed {
            if let Some(&w) = stores.get(&v).and_then(|st| st.last()) {
                if seen.insert(v) {
                    out.push((s, v, tg.nodes[w]));
                }
            }
        }
        for &v in written(x) {
            stores.entry(v).or_default().push(x);
        }
        if let Some(vk) = keyed(x, writes.get(&s)) {
            keyed_stores.entry(vk).or_default().push(x);
        }
        stack.push((x, true));
        stack.extend(tree.children[x].iter().rev().map(|&c| (c, false)));
    }
    (out, same_object)
}

/// The pairs (r, w) of a load r dominating a store w with r's address
/// key, where the store's first run after the load's last one is the run
/// after the load that matters: r runs once in its thread, or w follows
/// it in its block (same_object.rs). A store pairs with the loads above
/// it up to the nearest store of the key (a read-modify-write is both):
/// linear in the events unless one address is read many times between
/// two stores.
fn loads_then_stores(
    tg: &ThreadGraph,
    tree: &EventTree,
    keys: &HashMap<StmtId, LoadStoreKey>,
) -> Vec<(StmtId, StmtId)> {
    let mut above: HashMap<u32, Vec<usize>> = HashMap::default();
    let mut out = Vec::new();
    let mut stack: Vec<(usize, bool)> = tree.roots.iter().rev().map(|&r| (r, false)).collect();
    while let Some((x, done)) = stack.pop() {
        let key = keys.get(&tg.nodes[x]);
        if done {
            if let Some(k) = key {
                above.get_mut(&k.key).map(Vec::pop);
            }
            continue;
        }
        stack.push((x, true));
        stack.extend(tree.children[x].iter().rev().map(|&c| (c, false)));
        let Some(k) = key else { continue };
        let chain = above.entry(k.key).or_default();
        if k.stores {
            for &y in chain.iter().rev() {
                let ky = &keys[&tg.nodes[y]];
                if ky.loads && (ky.load_once || ky.block == k.block) {
                    out.push((tg.nodes[y], tg.nodes[x]));
                }
                if ky.stores {
                    break;
                }
            }
        }
        chain.push(x);
    }
    out
}

/// A tree over the events of a thread: the dominator or post-dominator
/// tree with every other statement skipped (`parent`: the nearest event
/// ancestor, local indices).
struct EventTree<'a> {
    parent: &'a [Option<usize>],
    children: Vec<Vec<usize>>,
    roots: Vec<usize>,
    /// Every event, each after its parent.
    preorder: Vec<usize>,
}

impl<'a> EventTree<'a> {
    fn new(parent: &'a [Option<usize>], is_event: &[bool]) -> Self {
        let n = parent.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for b in (0..n).filter(|&b| is_event[b]) {
            match parent[b] {
                Some(a) => children[a].push(b),
                None => roots.push(b),
            }
        }
        let mut preorder = Vec::new();
        let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
        while let Some(x) = stack.pop() {
            preorder.push(x);
            stack.extend(children[x].iter().rev().copied());
        }
        EventTree {
            parent,
            children,
            roots,
            preorder,
        }
    }

    /// Per event, its nearest ancestor in another component (`scc`):
    /// the ancestors of an event in its own component are a loop's events
    /// contiguous above it (anything between two of them lies on the loop
    /// too), so this is the parent of the topmost of them.
    fn outer_ancestor(&self, scc: &[usize]) -> Vec<Option<usize>> {
        let mut top: Vec<usize> = (0..self.parent.len()).collect();
        let mut outer = vec![None; self.parent.len()];
        for &x in &self.preorder {
            if let Some(p) = self.parent[x] {
                if scc[p] == scc[x] {
                    top[x] = top[p];
                }
            }
            outer[x] = self.parent[top[x]];
        }
        outer
    }

    /// Heavy-path labels for "a is `anchor[b]` or one of its ancestors".
    /// The tree is split into paths, each continuing into the child with
    /// the largest subtree, so a root path crosses at most log2(n) of
    /// them; returns (event, path, depth on the path) for every event,
    /// named by the path's first event, and for each event b with an
    /// anchor, (b, path, depth) for every path the anchor's root path
    /// crosses, with the depth of its deepest event there. Then a is such
    /// an ancestor exactly when b's row for a's path reaches a's depth.
    #[allow(clippy::type_complexity)]
    fn path_labels(
        &self,
        anchor: &[Option<usize>],
    ) -> (Vec<(usize, usize, u32)>, Vec<(usize, usize, u32)>) {
        let n = self.parent.len();
        let mut size = vec![1u32; n];
        for &x in self.preorder.iter().rev() {
            if let Some(p) = self.parent[x] {
                size[p] += size[x];
            }
        }
        let mut head: Vec<usize> = (0..n).collect();
        let mut depth = vec![0u32; n];
        let mut on_path = Vec::with_capacity(self.preorder.len());
        for &x in &self.preorder {
            let heavy = self.children[x]
                .iter()
                .copied()
                .max_by_key(|&c| (size[c], Reverse(c)));
            if let Some(c) = heavy {
                head[c] = head[x];
                depth[c] = depth[x] + 1;
            }
            on_path.push((x, head[x], depth[x]));
        }
        let mut above = Vec::new();
        for &b in &self.preorder {
            let mut at = anchor[b];
            while let Some(y) = at {
                above.push((b, head[y], depth[y]));
                at = self.parent[head[y]];
            }
        }
        (on_path, above)
    }
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

/// Reachability labels for the event components of a DAG (`edges`, over
/// event components and junctions; `is_event`, `cyclic` per component).
///
/// The event components are split into chains, each a sequence in which
/// every component reaches the next, so those that reach a component c
/// form a prefix of each chain: c's label keeps, per chain, the last
/// position that reaches it by a non-empty path (c's own position when c
/// lies on a loop). "c reaches d" is then one comparison: c's position
/// against d's label for c's chain.
///
/// Components are taken in topological order; a label is the union of the
/// predecessors' labels and positions (the latest per chain), and a
/// component extends a chain whose last component reaches it (its label
/// holds that position) or starts one. Straight-line code is one chain;
/// a branch adds one while it is open, and a later branch continues a
/// chain whose arm has closed, so the labels stay as wide as the code's
/// widest fork, not its number of branches.
///
/// Returns (component, chain, position) for each event component, and its
/// label rows (component, chain, position).
#[allow(clippy::type_complexity)]
pub fn chain_labels(
    edges: &[(usize, usize)],
    is_event: &[bool],
    cyclic: &[bool],
) -> (Vec<(usize, usize, u32)>, Vec<(usize, usize, u32)>) {
    let n = is_event.len();
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    let mut in_graph = is_event.to_vec();
    for &(c, d) in edges {
        succ[c].push(d);
        pred[d].push(c);
        indegree[d] += 1;
        in_graph[c] = true;
        in_graph[d] = true;
    }
    // predecessors left to visit each component, to free labels early
    let mut pending_succ: Vec<usize> = succ.iter().map(Vec::len).collect();
    let mut label: Vec<Option<BTreeMap<usize, u32>>> = vec![None; n];
    let mut place: Vec<Option<(usize, u32)>> = vec![None; n];
    // per chain: the position of its last component
    let mut tail: HashMap<usize, u32> = HashMap::default();
    let mut ready: VecDeque<usize> = (0..n)
        .filter(|&c| in_graph[c] && indegree[c] == 0)
        .collect();
    let (mut chains, mut before) = (Vec::new(), Vec::new());
    while let Some(v) = ready.pop_front() {
        let mut merged: BTreeMap<usize, u32> = BTreeMap::new();
        for &u in &pred[v] {
            let from_u = label[u].iter().flatten().map(|(&h, &p)| (h, p));
            for (h, p) in from_u.chain(place[u]) {
                let e = merged.entry(h).or_insert(p);
                *e = (*e).max(p);
            }
            pending_succ[u] -= 1;
            if pending_succ[u] == 0 {
                label[u] = None;
            }
        }
        if is_event[v] {
            let extend = merged.iter().find(|(h, p)| tail.get(h) == Some(p));
            let (h, p) = match extend {
                Some((&h, &p)) => (h, p + 1),
                None => (v, 0),
            };
            tail.insert(h, p);
            place[v] = Some((h, p));
            if cyclic[v] {
                merged.insert(h, p);
            }
            chains.push((v, h, p));
            before.extend(merged.iter().map(|(&h, &p)| (v, h, p)));
        }
        for &d in &succ[v] {
            indegree[d] -= 1;
            if indegree[d] == 0 {
                ready.push_back(d);
            }
        }
        if pending_succ[v] > 0 {
            label[v] = Some(merged);
        }
    }
    (chains, before)
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
/// tree to A's immediate post-dominator (exclusive) depends on A. Only the
/// pairs of statements `wanted` are kept.
pub fn control_dependence(
    tg: &ThreadGraph,
    wanted: impl Fn(StmtId) -> bool,
) -> BTreeSet<(StmtId, StmtId)> {
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
                if wanted(tg.nodes[r]) {
                    out.insert((tg.nodes[a], tg.nodes[r]));
                }
                runner = tg.ipdom[r];
                steps += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::chain_labels;
    use rustc_hash::FxHashMap as HashMap;
    use std::collections::BTreeSet;

    /// "c reaches d by a non-empty path", by search.
    fn reaches(edges: &[(usize, usize)], c: usize, d: usize) -> bool {
        let mut stack: Vec<usize> = edges.iter().filter(|e| e.0 == c).map(|e| e.1).collect();
        let mut seen = BTreeSet::new();
        while let Some(x) = stack.pop() {
            if x == d {
                return true;
            }
            if seen.insert(x) {
                stack.extend(edges.iter().filter(|e| e.0 == x).map(|e| e.1));
            }
        }
        false
    }

    /// Labels answer reachability exactly like search, for every pair of
    /// event components; returns the number of chains.
    fn check(n: usize, edges: &[(usize, usize)], junctions: &[usize], cyclic: &[usize]) -> usize {
        let is_event: Vec<bool> = (0..n).map(|c| !junctions.contains(&c)).collect();
        let cyc: Vec<bool> = (0..n).map(|c| cyclic.contains(&c)).collect();
        let (chains, before) = chain_labels(edges, &is_event, &cyc);
        let place: HashMap<usize, (usize, u32)> =
            chains.iter().map(|&(c, h, p)| (c, (h, p))).collect();
        assert_eq!(place.len(), is_event.iter().filter(|&&e| e).count());
        let label: HashMap<(usize, usize), u32> =
            before.iter().map(|&(c, h, p)| ((c, h), p)).collect();
        for c in (0..n).filter(|&c| is_event[c]) {
            for d in (0..n).filter(|&d| is_event[d]) {
                let (h, p) = place[&c];
                let by_label = label.get(&(d, h)).is_some_and(|&q| p <= q);
                let by_search = if c == d { cyc[c] } else { reaches(edges, c, d) };
                assert_eq!(by_label, by_search, "{c} -> {d}");
            }
        }
        chains.iter().map(|c| c.1).collect::<BTreeSet<_>>().len()
    }

    #[test]
    fn a_straight_line_is_one_chain() {
        let edges: Vec<(usize, usize)> = (0..9).map(|i| (i, i + 1)).collect();
        assert_eq!(check(10, &edges, &[], &[4]), 1);
    }

    #[test]
    fn a_run_of_diamonds_reuses_the_chain_of_a_closed_arm() {
        // 0 -> {1, 2} -> 3 -> {4, 5} -> 6 -> {7, 8} -> 9: three forks, two chains
        let mut edges = Vec::new();
        for k in 0..3 {
            let b = 3 * k;
            edges.extend([(b, b + 1), (b, b + 2), (b + 1, b + 3), (b + 2, b + 3)]);
        }
        assert_eq!(check(10, &edges, &[], &[]), 2);
    }

    #[test]
    fn junctions_carry_reachability_without_positions() {
        // events 0, 1 fork into junction 2, which joins into events 3, 4;
        // 5 is isolated, 4 on a loop
        let edges = [(0, 2), (1, 2), (2, 3), (2, 4), (3, 4)];
        check(6, &edges, &[2], &[4]);
    }
}
