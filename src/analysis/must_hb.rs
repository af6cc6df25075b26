//! mustHb rebuilt from its stored parts (rules/hb.dl), one bit row per event: program order in
//! compact form and the hub relations `hb_from_hub`, `hb_to_hub`. The diff
//! programs never store the pairs themselves (ten million on pigz); the
//! counts in the report and `--counts` come from here.
//!
//! hb_must(a, b) is program order (a's component reaches b's, a different
//! one), or hb_from_hub(a, b) (a is a hub), or hb_to_hub(a, b) (b is a hub),
//! or hb_to_hub(a, h) and hb_from_hub(h, b) for some hub h.
//!
//! Events and components are numbered densely, so walking the pairs costs
//! array reads and bit operations, no hashing per pair (the counts walk
//! every pair: on pigz, hashing per pair took as long as the rules).

use crate::facts::relations::{PoScc, PoSccCyclic, PoSccNext, StmtThread};
use crate::facts::FactSet;
use petgraph::algo::toposort;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::unionfind::UnionFind;
use rustc_hash::FxHashMap as HashMap;

/// A set of dense indices.
#[derive(Clone)]
pub(super) struct Bits(Vec<u64>);

impl Bits {
    pub(super) fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    pub(super) fn words(&self) -> &[u64] {
        &self.0
    }
    pub(super) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    pub(super) fn get(&self, i: usize) -> bool {
        (self.0[i / 64] >> (i % 64)) & 1 == 1
    }
    fn or(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
    /// The set indices, ascending.
    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + b
                })
            })
        })
    }
    pub(super) fn count(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }
}

pub struct MustHb {
    /// Dense component of each dense event, and the events of each component.
    comp: Vec<usize>,
    comp_events: Vec<Vec<usize>>,
    /// Per dense component: the other components it reaches (sorted), and
    /// whether it reaches itself (it lies on a loop).
    comp_after: Vec<Vec<usize>>,
    comp_loops: Vec<bool>,
    /// Thread of each dense event.
    thread: Vec<Option<u32>>,
    /// Per dense event: the events after it on a path through a
    /// synchronisation edge (hubs), program order left out.
    sync: Vec<Bits>,
}

impl MustHb {
    /// From one version's facts and its `hb_from_hub` / `hb_to_hub` rows.
    pub fn new(facts: &FactSet, from_hub: &[(u32, u32)], to_hub: &[(u32, u32)]) -> MustHb {
        let mut events = Vec::new();
        let mut comp = Vec::new();
        let mut index = HashMap::default();
        let mut comp_index: HashMap<u32, usize> = HashMap::default();
        let mut comp_events: Vec<Vec<usize>> = Vec::new();
        for r in facts.iter::<PoScc>() {
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(r.s.0) {
                let i = events.len();
                e.insert(i);
                events.push(r.s.0);
                let c = *comp_index.entry(r.c).or_insert_with(|| {
                    comp_events.push(Vec::new());
                    comp_events.len() - 1
                });
                comp.push(c);
                comp_events[c].push(i);
            }
        }
        let (comp_after, comp_loops) = component_reach(facts, &comp_index);
        let threads: HashMap<u32, u32> =
            facts.iter::<StmtThread>().map(|r| (r.s.0, r.t.0)).collect();
        let thread = events.iter().map(|e| threads.get(e).copied()).collect();
        let n = events.len();
        let mut hub_row: HashMap<u32, Bits> = HashMap::default();
        for &(h, b) in from_hub {
            if let Some(&i) = index.get(&b) {
                hub_row.entry(h).or_insert_with(|| Bits::new(n)).set(i);
            }
        }
        let mut sync = vec![Bits::new(n); n];
        for (h, row) in &hub_row {
            if let Some(&i) = index.get(h) {
                sync[i].or(row);
            }
        }
        for &(a, h) in to_hub {
            let (Some(&i), Some(&j)) = (index.get(&a), index.get(&h)) else {
                continue;
            };
            sync[i].set(j);
            if let Some(row) = hub_row.get(&h) {
                sync[i].or(row);
            }
        }
        MustHb {
            comp,
            comp_events,
            comp_after,
            comp_loops,
            thread,
            sync,
        }
    }

    /// The pairs of events program order relates in one thread, loops
    /// included (`po_scc(a, c), po_scc_reach(c, d), po_scc(b, d)`).
    pub(super) fn po_pair_count(&self) -> usize {
        let size = |c: usize| self.comp_events[c].len();
        (0..self.comp_events.len())
            .map(|c| {
                let after: usize = self.comp_after[c].iter().map(|&d| size(d)).sum();
                let own = if self.comp_loops[c] { size(c) } else { 0 };
                size(c) * (after + own)
            })
            .sum()
    }

    /// Number of hb events (the dense indices are `0..len()`).
    pub(super) fn len(&self) -> usize {
        self.comp.len()
    }

    /// Thread of dense event `i`.
    pub(super) fn thread_of(&self, i: usize) -> Option<u32> {
        self.thread[i]
    }

    /// Whether component `c` reaches the different component `d`.
    fn comp_reaches(&self, c: usize, d: usize) -> bool {
        self.comp_after[c].binary_search(&d).is_ok()
    }

    /// Whether dense event `i` must happen before dense event `j`.
    pub(super) fn holds_dense(&self, i: usize, j: usize) -> bool {
        let (c, d) = (self.comp[i], self.comp[j]);
        (c != d && self.comp_reaches(c, d)) || self.sync[i].get(j)
    }

    /// Per dense event `i`: the set of dense events `j` with mustHb(i, j)
    /// (`row`) and the events program order puts after `i` (`po`: the
    /// components `i`'s reaches, `i`'s own when it lies on a loop).
    pub(super) fn for_each_row(&self, mut f: impl FnMut(usize, &Bits, &Bits)) {
        let n = self.len();
        for (i, sync) in self.sync.iter().enumerate() {
            let c = self.comp[i];
            let mut after = Bits::new(n);
            for &d in &self.comp_after[c] {
                for &j in &self.comp_events[d] {
                    after.set(j);
                }
            }
            let mut row = sync.clone();
            row.or(&after);
            if self.comp_loops[c] {
                for &j in &self.comp_events[c] {
                    after.set(j);
                }
            }
            f(i, &row, &after);
        }
    }
}

/// Per dense event component (`comp_index`): the other event components it
/// reaches, sorted, and whether it lies on a loop. `po_scc_reach` of
/// rules/order.dl, computed here with bit rows: the closure of
/// `po_scc_next` (whose junction components get indices after the event
/// components), one group of connected components at a time so that a row
/// is as wide as its thread, not the program.
fn component_reach(
    facts: &FactSet,
    comp_index: &HashMap<u32, usize>,
) -> (Vec<Vec<usize>>, Vec<bool>) {
    let events = comp_index.len();
    let mut index = comp_index.clone();
    let mut edges = Vec::new();
    for r in facts.iter::<PoSccNext>() {
        let mut dense = |c: u32| {
            let next = index.len();
            *index.entry(c).or_insert(next)
        };
        edges.push((dense(r.c1), dense(r.c2)));
    }
    let n = index.len();
    let mut group = UnionFind::<usize>::new(n);
    let mut graph = DiGraph::<(), ()>::with_capacity(n, edges.len());
    for _ in 0..n {
        graph.add_node(());
    }
    for &(c, d) in &edges {
        group.union(c, d);
        graph.add_edge(NodeIndex::new(c), NodeIndex::new(d), ());
    }
    // Components in topological order, then closed in reverse. The facts
    // check rejects a cyclic po_scc_next; were one to get here, its
    // components would reach nothing.
    let order: Vec<usize> = toposort(&graph, None)
        .map(|o| o.into_iter().map(NodeIndex::index).collect())
        .unwrap_or_default();
    let mut members: HashMap<usize, Vec<usize>> = HashMap::default();
    for &c in &order {
        members.entry(group.find(c)).or_default().push(c);
    }
    let mut comp_after = vec![Vec::new(); events];
    let mut slot = vec![0usize; n];
    for topo in members.values() {
        for (k, &c) in topo.iter().enumerate() {
            slot[c] = k;
        }
        // rows are filled from the last component back; empty until then
        let mut reach: Vec<Bits> = vec![Bits::new(0); topo.len()];
        for k in (0..topo.len()).rev() {
            let mut row = Bits::new(topo.len());
            for d in graph
                .neighbors(NodeIndex::new(topo[k]))
                .map(NodeIndex::index)
            {
                row.set(slot[d]);
                row.or(&reach[slot[d]]);
            }
            reach[k] = row;
        }
        for (k, &c) in topo.iter().enumerate() {
            if c < events {
                comp_after[c] = reach[k]
                    .ones()
                    .map(|j| topo[j])
                    .filter(|&d| d < events)
                    .collect();
                comp_after[c].sort_unstable();
            }
        }
    }
    let mut comp_loops = vec![false; events];
    for r in facts.iter::<PoSccCyclic>() {
        if let Some(&c) = comp_index.get(&r.c) {
            comp_loops[c] = true;
        }
    }
    (comp_after, comp_loops)
}
