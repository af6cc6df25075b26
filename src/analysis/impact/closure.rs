//! The impacted sets: every statement the changes reach over the dependence
//! edges, with the change groups that reach it.
//!
//! `rules/cia.dl` defines them (`impact_fwd`, `impact_bwd`) with one row per
//! group and statement. Listed that way, a patch of 649 changed lines to
//! pigz makes 28.7 million rows in 47 iterations, though most statements
//! are reached by the same groups as their neighbours. Here the graph the
//! changes reach is condensed into its strongly connected components (every
//! statement of a component is reached by the same groups), and the groups
//! flow through the components in topological order as bit sets, a
//! component sharing its predecessor's set when it adds nothing to it:
//! linear in the edges, times the words of a set. The tests check that the
//! two agree on every bench program.

use super::adjacency::{node_count, Adjacency};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A set of change group ids, as bits. Cheap to clone: the statements of a
/// component, and components that add no group, share one allocation.
/// The last word is never zero, so equal sets are equal values.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct GroupSet(Arc<[u64]>);

impl GroupSet {
    pub fn contains(&self, g: u32) -> bool {
        let w = g as usize / 64;
        self.0
            .get(w)
            .is_some_and(|&bits| bits & (1 << (g % 64)) != 0)
    }

    /// The group ids, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64u32)
                .filter(move |b| bits & (1 << b) != 0)
                .map(move |b| w as u32 * 64 + b)
        })
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every group of `other` is in `self`.
    fn includes(&self, other: &GroupSet) -> bool {
        other.0.len() <= self.0.len() && other.0.iter().zip(self.0.iter()).all(|(o, s)| o & !s == 0)
    }

    /// The union, sharing one side's allocation when it holds the other.
    pub fn union(&self, other: &GroupSet) -> GroupSet {
        if self.includes(other) {
            return self.clone();
        }
        if other.includes(self) {
            return other.clone();
        }
        let (long, short) = if self.0.len() >= other.0.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut words = long.0.to_vec();
        for (w, s) in words.iter_mut().zip(short.0.iter()) {
            *w |= s;
        }
        GroupSet(words.into())
    }
}

impl FromIterator<u32> for GroupSet {
    fn from_iter<I: IntoIterator<Item = u32>>(groups: I) -> GroupSet {
        let mut words: Vec<u64> = Vec::new();
        for g in groups {
            let w = g as usize / 64;
            if words.len() <= w {
                words.resize(w + 1, 0);
            }
            words[w] |= 1 << (g % 64);
        }
        GroupSet(words.into())
    }
}

impl fmt::Debug for GroupSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Add `groups` to the set of statement `s` in `sets`.
pub fn add_groups(sets: &mut BTreeMap<u32, GroupSet>, s: u32, groups: &GroupSet) {
    let e = sets.entry(s).or_default();
    *e = e.union(groups);
}

/// The statements reachable from `seeds` over `edges` (`from → to`), each
/// with the union of the groups of the seeds that reach it.
pub fn close<I>(edges: I, seeds: &BTreeMap<u32, GroupSet>) -> BTreeMap<u32, GroupSet>
where
    I: Iterator<Item = (u32, u32)> + Clone,
{
    let seeds: Vec<(u32, &GroupSet)> = seeds
        .iter()
        .filter(|(_, g)| !g.is_empty())
        .map(|(&s, g)| (s, g))
        .collect();
    let n =
        node_count((edges.clone().flat_map(|(a, b)| [a, b])).chain(seeds.iter().map(|&(s, _)| s)));
    let adjacency = Adjacency::new(n, edges.map(|(a, b)| (a, b, ())));
    let next = |s: u32| adjacency.next(s).iter().map(|&(t, ())| t);

    // the part of the graph the seeds reach, as a petgraph graph
    const UNSEEN: u32 = u32::MAX;
    let mut node_of = vec![UNSEEN; n];
    let mut graph: DiGraph<u32, ()> = DiGraph::new();
    let mut stack: Vec<u32> = Vec::new();
    for &(s, _) in &seeds {
        if node_of[s as usize] == UNSEEN {
            node_of[s as usize] = graph.add_node(s).index() as u32;
            stack.push(s);
        }
    }
    while let Some(s) = stack.pop() {
        for t in next(s) {
            if node_of[t as usize] == UNSEEN {
                node_of[t as usize] = graph.add_node(t).index() as u32;
                stack.push(t);
            }
        }
    }
    for s in graph.node_weights().copied().collect::<Vec<u32>>() {
        let a = NodeIndex::new(node_of[s as usize] as usize);
        for t in next(s) {
            graph.add_edge(a, NodeIndex::new(node_of[t as usize] as usize), ());
        }
    }

    // components in topological order (kosaraju_scc lists them in
    // reverse; it is iterative, where tarjan_scc recurses once per
    // statement of a dependence chain and overflows the stack)
    let mut components = petgraph::algo::kosaraju_scc(&graph);
    components.reverse();
    let mut component_of = vec![0u32; graph.node_count()];
    for (c, members) in components.iter().enumerate() {
        for m in members {
            component_of[m.index()] = c as u32;
        }
    }
    let mut seed_groups: Vec<Option<&GroupSet>> = vec![None; graph.node_count()];
    for &(s, g) in &seeds {
        seed_groups[node_of[s as usize] as usize] = Some(g);
    }
    // incoming groups of each component, complete when its turn comes
    let mut reaching: Vec<GroupSet> = vec![GroupSet::default(); components.len()];
    let mut out = BTreeMap::new();
    for (c, members) in components.iter().enumerate() {
        let mut set = std::mem::take(&mut reaching[c]);
        for m in members {
            if let Some(g) = seed_groups[m.index()] {
                set = set.union(g);
            }
        }
        for m in members {
            for t in graph.neighbors(*m) {
                let tc = component_of[t.index()] as usize;
                if tc != c {
                    reaching[tc] = reaching[tc].union(&set);
                }
            }
            out.insert(graph[*m], set.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{close, GroupSet};
    use std::collections::{BTreeMap, BTreeSet};

    fn set(groups: &[u32]) -> GroupSet {
        groups.iter().copied().collect()
    }

    #[test]
    fn group_sets_are_sets() {
        let a = set(&[1, 70, 200]);
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![1, 70, 200]);
        assert_eq!(a.len(), 3);
        assert!(a.contains(70) && !a.contains(71) && !a.contains(1000));
        let b = set(&[2, 70]);
        assert_eq!(a.union(&b), set(&[1, 2, 70, 200]));
        assert_eq!(b.union(&a), set(&[1, 2, 70, 200]));
        assert_eq!(a.union(&set(&[70])), a);
        assert_eq!(set(&[]).union(&b), b);
        assert!(set(&[]).is_empty() && !b.is_empty());
        assert_eq!(format!("{b:?}"), "{2, 70}");
    }

    /// The closure by its definition: from each seed, every statement on a
    /// path from it gets its groups.
    fn naive(edges: &[(u32, u32)], seeds: &BTreeMap<u32, GroupSet>) -> BTreeMap<u32, GroupSet> {
        let mut out: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for (&s, groups) in seeds {
            let mut seen = BTreeSet::from([s]);
            let mut stack = vec![s];
            while let Some(x) = stack.pop() {
                for &(_, t) in edges.iter().filter(|e| e.0 == x) {
                    if seen.insert(t) {
                        stack.push(t);
                    }
                }
            }
            for x in seen {
                out.entry(x).or_default().extend(groups.iter());
            }
        }
        out.into_iter()
            .map(|(s, g)| (s, g.into_iter().collect()))
            .collect()
    }

    /// A cycle (2 → 3 → 4 → 2) entered from two seeds, a chain out of it,
    /// a statement only one seed reaches, and one no seed reaches.
    #[test]
    fn components_get_the_groups_of_every_seed_that_reaches_them() {
        let edges = [
            (1, 2),
            (2, 3),
            (3, 4),
            (4, 2),
            (4, 5),
            (6, 3),
            (1, 7),
            (8, 1),
        ];
        let seeds = BTreeMap::from([(1, set(&[0])), (6, set(&[65]))]);
        let got = close(edges.iter().copied(), &seeds);
        assert_eq!(got, naive(&edges, &seeds));
        assert_eq!(got[&5], set(&[0, 65]));
        assert_eq!(got[&7], set(&[0]));
        assert_eq!(got[&6], set(&[65]));
        assert!(!got.contains_key(&8));
    }

    /// A dependence chain of a million statements: no recursion per
    /// statement (the test thread's stack is 2 MB).
    #[test]
    fn long_chains_do_not_exhaust_the_stack() {
        let n = 1_000_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let got = close(edges.iter().copied(), &BTreeMap::from([(0, set(&[3]))]));
        assert_eq!(got.len(), n as usize);
        assert_eq!(got[&(n - 1)], set(&[3]));
    }

    /// Pseudo-random graphs, checked against the definition.
    #[test]
    fn agrees_with_the_definition_on_random_graphs() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rand = |m: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as u32
        };
        for _ in 0..200 {
            let n = 2 + rand(30);
            let edges: Vec<(u32, u32)> = (0..rand(3 * n)).map(|_| (rand(n), rand(n))).collect();
            let seeds: BTreeMap<u32, GroupSet> = (0..rand(5))
                .map(|_| (rand(n), (0..1 + rand(3)).map(|_| rand(130)).collect()))
                .collect();
            assert_eq!(
                close(edges.iter().copied(), &seeds),
                naive(&edges, &seeds),
                "{edges:?} {seeds:?}"
            );
        }
    }
}
