//! Lock acquisition order and potential deadlocks (beyond EC-Diff, whose
//! read-from differences miss patches that only reorder lock acquisitions).
//!
//! `lock_order(m1, m2, l, s)` (rules/lockorder.dl) says a thread acquires
//! m2 at s while holding m1. A potential deadlock is a cycle of such edges
//! that different threads can take at once: each edge from a distinct
//! thread instance, and no common lock outside the cycle (a gate lock) held
//! at every acquisition.

use super::Relations;
use crate::facts::FactSet;
use std::collections::{BTreeMap, BTreeSet};

/// Longest cycle searched for (locks in the cycle).
const MAX_CYCLE: usize = 4;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LockEdge {
    pub held: String,
    pub acquired: String,
    pub thread: u32,
    /// Where the held lock was acquired, and where the second one is.
    pub held_at: u32,
    pub acquired_at: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DeadlockCycle {
    /// Lock names in cycle order, starting with the smallest.
    pub locks: Vec<String>,
    /// One witness edge per step.
    pub edges: Vec<LockEdge>,
}

#[derive(Debug, Clone, Default)]
pub struct LockOrderDiff {
    pub old_edges: Vec<LockEdge>,
    pub new_edges: Vec<LockEdge>,
    /// (held, acquired) name pairs present in one version only.
    pub only_old: BTreeSet<(String, String)>,
    pub only_new: BTreeSet<(String, String)>,
    pub old_cycles: Vec<DeadlockCycle>,
    pub new_cycles: Vec<DeadlockCycle>,
}

impl LockOrderDiff {
    pub fn has_difference(&self) -> bool {
        !self.only_old.is_empty() || !self.only_new.is_empty() || self.old_cycles != self.new_cycles
    }
}

fn loc_name(f: &FactSet, id: u32) -> String {
    f.location(id)
        .map_or_else(|| format!("loc{id}"), |l| l.name.clone())
}

pub fn lock_edges(f: &FactSet, sync1: &Relations) -> Vec<LockEdge> {
    let mut edges: Vec<LockEdge> = sync1
        .get("lock_order")
        .into_iter()
        .flatten()
        .map(|r| LockEdge {
            held: loc_name(f, r[0]),
            acquired: loc_name(f, r[1]),
            thread: f.statement(r[3]).map_or(0, |s| s.thread),
            held_at: r[2],
            acquired_at: r[3],
        })
        .collect();
    edges.sort();
    edges.dedup();
    edges
}

/// Locks held at each statement (by name).
fn held_at(f: &FactSet) -> BTreeMap<u32, BTreeSet<String>> {
    let mut held: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for r in f.rows("in_critical_section") {
        held.entry(r[0]).or_default().insert(loc_name(f, r[1]));
    }
    held
}

pub fn deadlock_cycles(f: &FactSet, edges: &[LockEdge]) -> Vec<DeadlockCycle> {
    let held = held_at(f);
    let mut by_from: BTreeMap<&str, Vec<&LockEdge>> = BTreeMap::new();
    for e in edges {
        by_from.entry(e.held.as_str()).or_default().push(e);
    }
    let mut found: BTreeSet<DeadlockCycle> = BTreeSet::new();
    let starts: Vec<&str> = by_from.keys().copied().collect();
    for start in starts {
        let mut path: Vec<&LockEdge> = Vec::new();
        search(start, start, &by_from, &held, &mut path, &mut found);
    }
    found.into_iter().collect()
}

fn search<'a>(
    start: &str,
    at: &str,
    by_from: &BTreeMap<&str, Vec<&'a LockEdge>>,
    held: &BTreeMap<u32, BTreeSet<String>>,
    path: &mut Vec<&'a LockEdge>,
    found: &mut BTreeSet<DeadlockCycle>,
) {
    if path.len() >= MAX_CYCLE {
        return;
    }
    for &e in by_from.get(at).into_iter().flatten() {
        // Canonical cycles start at their smallest lock; locks do not repeat.
        if e.acquired.as_str() < start
            || path
                .iter()
                .any(|p| p.held == e.acquired && e.acquired != start)
        {
            continue;
        }
        if path.iter().any(|p| p.thread == e.thread) {
            continue;
        }
        path.push(e);
        if e.acquired == start {
            if path.len() >= 2 && !gated(path, held) {
                found.insert(DeadlockCycle {
                    locks: path.iter().map(|p| p.held.clone()).collect(),
                    edges: path.iter().map(|p| (*p).clone()).collect(),
                });
            }
        } else {
            search(start, &e.acquired, by_from, held, path, found);
        }
        path.pop();
    }
}

/// A lock outside the cycle held at every acquisition serialises them.
fn gated(path: &[&LockEdge], held: &BTreeMap<u32, BTreeSet<String>>) -> bool {
    let in_cycle: BTreeSet<&str> = path.iter().map(|e| e.held.as_str()).collect();
    let empty = BTreeSet::new();
    let mut common: Option<BTreeSet<String>> = None;
    for e in path {
        let h = held.get(&e.acquired_at).unwrap_or(&empty);
        let h: BTreeSet<String> = h
            .iter()
            .filter(|n| !in_cycle.contains(n.as_str()))
            .cloned()
            .collect();
        common = Some(match common {
            None => h,
            Some(c) => c.intersection(&h).cloned().collect(),
        });
    }
    common.is_some_and(|c| !c.is_empty())
}

pub fn lock_order_diff(
    old: &FactSet,
    old_sync1: &Relations,
    new: &FactSet,
    new_sync1: &Relations,
) -> LockOrderDiff {
    let old_edges = lock_edges(old, old_sync1);
    let new_edges = lock_edges(new, new_sync1);
    let pairs = |es: &[LockEdge]| -> BTreeSet<(String, String)> {
        es.iter()
            .map(|e| (e.held.clone(), e.acquired.clone()))
            .collect()
    };
    let (po, pn) = (pairs(&old_edges), pairs(&new_edges));
    let old_cycles = deadlock_cycles(old, &old_edges);
    let new_cycles = deadlock_cycles(new, &new_edges);
    LockOrderDiff {
        only_old: po.difference(&pn).cloned().collect(),
        only_new: pn.difference(&po).cloned().collect(),
        old_edges,
        new_edges,
        old_cycles: dedupe_cycles(old_cycles),
        new_cycles: dedupe_cycles(new_cycles),
    }
}

/// One cycle per set of locks in order (witness edges from the first found).
fn dedupe_cycles(cycles: Vec<DeadlockCycle>) -> Vec<DeadlockCycle> {
    let mut seen = BTreeSet::new();
    cycles
        .into_iter()
        .filter(|c| seen.insert(c.locks.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(h: &str, a: &str, t: u32, s: u32) -> LockEdge {
        LockEdge {
            held: h.into(),
            acquired: a.into(),
            thread: t,
            held_at: s - 1,
            acquired_at: s,
        }
    }

    #[test]
    fn opposite_orders_in_two_threads_form_a_cycle_but_not_in_one_thread() {
        let f = FactSet::default();
        let two = vec![edge("a", "b", 1, 10), edge("b", "a", 2, 20)];
        let cycles = deadlock_cycles(&f, &two);
        assert_eq!(cycles.len(), 1);
        assert_eq!(cycles[0].locks, vec!["a".to_string(), "b".to_string()]);
        let one = vec![edge("a", "b", 1, 10), edge("b", "a", 1, 20)];
        assert!(
            deadlock_cycles(&f, &one).is_empty(),
            "one thread cannot deadlock with itself here"
        );
        let consistent = vec![edge("a", "b", 1, 10), edge("a", "b", 2, 20)];
        assert!(deadlock_cycles(&f, &consistent).is_empty());
    }

    #[test]
    fn a_gate_lock_held_at_both_acquisitions_prevents_the_cycle() {
        let mut f = FactSet {
            relations: FactSet::empty_relations(),
            ..FactSet::default()
        };
        f.locations = ["g", "a", "b"]
            .iter()
            .enumerate()
            .map(|(i, n)| crate::facts::LocationInfo {
                id: i as u32,
                name: n.to_string(),
                object: n.to_string(),
                shared: false,
            })
            .collect();
        let cs = f.relations.get_mut("in_critical_section").unwrap();
        cs.insert(vec![10, 0, 5]);
        cs.insert(vec![20, 0, 15]);
        let es = vec![edge("a", "b", 1, 10), edge("b", "a", 2, 20)];
        assert!(deadlock_cycles(&f, &es).is_empty());
    }
}
