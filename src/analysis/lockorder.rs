//! Lock acquisition order and potential deadlocks (beyond EC-Diff, whose
//! read-from differences miss patches that only reorder lock acquisitions).
//!
//! `lock_order(m1, m2, l, s)` (rules/lockorder.dl) says a thread acquires
//! m2 at s while holding m1. A potential deadlock is a cycle of such edges
//! that different threads can take at once: each edge from a distinct
//! thread instance, and no common lock outside the cycle (a gate lock) held
//! at every acquisition.

use crate::facts::relations::{InCriticalSection, LockId, StmtId};
use crate::facts::FactSet;
use std::collections::{BTreeMap, BTreeSet};

/// Longest cycle searched for (locks in the cycle).
const MAX_CYCLE: usize = 4;

/// A `lock_order(m1, m2, l, s)` row of one version (rules/lockorder.dl):
/// the thread acquires `acquired` at `acquired_at` while holding `held`,
/// acquired at `held_at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LockOrderRow {
    pub held: LockId,
    pub acquired: LockId,
    pub held_at: StmtId,
    pub acquired_at: StmtId,
}

impl From<(u32, u32, u32, u32)> for LockOrderRow {
    fn from((held, acquired, held_at, acquired_at): (u32, u32, u32, u32)) -> Self {
        LockOrderRow {
            held: LockId(held),
            acquired: LockId(acquired),
            held_at: StmtId(held_at),
            acquired_at: StmtId(acquired_at),
        }
    }
}

/// A lock of one version: its location and its `locations.tsv` name.
/// Locks are equal and ordered by name, the identity that holds across
/// versions (ids are per version; within one, names are unique, so name
/// and id go together): edges and cycles of two versions compare, and a
/// cycle reads from its alphabetically first lock. The id serves lookups
/// within the version (locks held, display names).
#[derive(Debug, Clone)]
pub struct Lock {
    pub name: String,
    pub id: LockId,
}

impl PartialEq for Lock {
    fn eq(&self, other: &Lock) -> bool {
        self.name == other.name
    }
}

impl Eq for Lock {}

impl PartialOrd for Lock {
    fn partial_cmp(&self, other: &Lock) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Lock {
    fn cmp(&self, other: &Lock) -> std::cmp::Ordering {
        self.name.cmp(&other.name)
    }
}

impl Lock {
    fn of(f: &FactSet, keys: &StableKeys, id: LockId) -> Lock {
        let name = keys.key(f, id.0);
        Lock { name, id }
    }

    /// The name reports show (`names.tsv`'s, else the location's).
    pub fn display(&self, f: &FactSet) -> String {
        f.display_name(self.id.0).unwrap_or(&self.name).to_string()
    }
}

/// A lock's name across versions. A global's is its location name. A heap
/// or stack object is named by where it was made (`names.tsv`'s site, a
/// source line), and a patch that only shifts lines would rename it: its
/// key puts the function that contains that line in the line's place, with
/// the object's rank among objects of the same name, kind and function in
/// line order when there are several (`(struct lock_s @ new_pool()#2).mutex`).
pub struct StableKeys {
    /// "file:line" of a site -> the function its statements belong to.
    function_at: BTreeMap<String, String>,
    /// location id -> its rank among the objects of one (name pattern, function).
    rank: BTreeMap<u32, usize>,
}

impl StableKeys {
    pub fn of(f: &FactSet) -> StableKeys {
        let sites: BTreeSet<&str> = f
            .names
            .iter()
            .filter(|n| !n.site.is_empty())
            .map(|n| n.site.as_str())
            .collect();
        let mut function_at: BTreeMap<String, String> = BTreeMap::new();
        for st in &f.statements {
            if st.function.is_empty() || st.line == 0 {
                continue;
            }
            // sites name the file without its directory
            let file = st.file.rsplit('/').next().unwrap_or(&st.file);
            let site = format!("{file}:{}", st.line);
            if sites.contains(site.as_str()) {
                function_at
                    .entry(site)
                    .or_insert_with(|| st.function.clone());
            }
        }
        let mut keys = StableKeys {
            function_at,
            rank: BTreeMap::new(),
        };
        // objects sharing a line-free name, in line order of their sites
        let mut groups: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
        for n in f.names.iter().filter(|n| !n.site.is_empty()) {
            let line = n
                .site
                .rsplit(':')
                .next()
                .and_then(|l| l.parse().ok())
                .unwrap_or(0);
            groups
                .entry(keys.line_free(n, 1))
                .or_default()
                .push((line, n.id));
        }
        for members in groups.values_mut() {
            members.sort_unstable();
            // one object may have several cells (fields): rank objects, not cells
            let mut sites_seen: Vec<u32> = Vec::new();
            for &(line, id) in members.iter() {
                if !sites_seen.contains(&line) {
                    sites_seen.push(line);
                }
                keys.rank.insert(id, sites_seen.len());
            }
        }
        keys
    }

    /// The name with the site's `file:line` replaced by its function, and
    /// by its rank after the function when it is not the first.
    fn line_free(&self, n: &crate::facts::NameInfo, rank: usize) -> String {
        let function = self.function_at.get(&n.site).map_or("?", |s| s.as_str());
        let place = if rank > 1 {
            format!("{function}()#{rank}")
        } else {
            format!("{function}()")
        };
        n.name.replace(&n.site, &place)
    }

    pub fn key(&self, f: &FactSet, id: u32) -> String {
        match f.names.get(id as usize).filter(|n| n.id == id) {
            Some(n) if !n.site.is_empty() => {
                self.line_free(n, self.rank.get(&id).copied().unwrap_or(1))
            }
            _ => f
                .location(id)
                .map_or_else(|| format!("loc{id}"), |l| l.name.clone()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LockEdge {
    pub held: Lock,
    pub acquired: Lock,
    pub thread: u32,
    /// Where the held lock was acquired, and where the second one is.
    pub held_at: u32,
    pub acquired_at: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct DeadlockCycle {
    /// Locks in cycle order, starting with the smallest.
    pub locks: Vec<Lock>,
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

pub fn lock_edges(f: &FactSet, lock_order: &[LockOrderRow]) -> Vec<LockEdge> {
    let keys = StableKeys::of(f);
    let mut edges: Vec<LockEdge> = lock_order
        .iter()
        .map(|r| LockEdge {
            held: Lock::of(f, &keys, r.held),
            acquired: Lock::of(f, &keys, r.acquired),
            thread: f.statement(r.acquired_at.0).map_or(0, |s| s.thread),
            held_at: r.held_at.0,
            acquired_at: r.acquired_at.0,
        })
        .collect();
    edges.sort();
    edges.dedup();
    edges
}

/// Locks held at each statement.
fn held_at(f: &FactSet) -> BTreeMap<u32, BTreeSet<LockId>> {
    let mut held: BTreeMap<u32, BTreeSet<LockId>> = BTreeMap::new();
    for r in f.iter::<InCriticalSection>() {
        held.entry(r.s.0).or_default().insert(r.m);
    }
    held
}

pub fn deadlock_cycles(f: &FactSet, edges: &[LockEdge]) -> Vec<DeadlockCycle> {
    let held = held_at(f);
    let mut by_from: BTreeMap<&Lock, Vec<&LockEdge>> = BTreeMap::new();
    for e in edges {
        by_from.entry(&e.held).or_default().push(e);
    }
    let mut found: BTreeSet<DeadlockCycle> = BTreeSet::new();
    let starts: Vec<&Lock> = by_from.keys().copied().collect();
    for start in starts {
        let mut path: Vec<&LockEdge> = Vec::new();
        search(start, start, &by_from, &held, &mut path, &mut found);
    }
    found.into_iter().collect()
}

fn search<'a>(
    start: &Lock,
    at: &Lock,
    by_from: &BTreeMap<&Lock, Vec<&'a LockEdge>>,
    held: &BTreeMap<u32, BTreeSet<LockId>>,
    path: &mut Vec<&'a LockEdge>,
    found: &mut BTreeSet<DeadlockCycle>,
) {
    if path.len() >= MAX_CYCLE {
        return;
    }
    for &e in by_from.get(at).into_iter().flatten() {
        // Canonical cycles start at their smallest lock; locks do not repeat.
        if &e.acquired < start
            || path
                .iter()
                .any(|p| p.held == e.acquired && &e.acquired != start)
        {
            continue;
        }
        if path.iter().any(|p| p.thread == e.thread) {
            continue;
        }
        path.push(e);
        if &e.acquired == start {
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
fn gated(path: &[&LockEdge], held: &BTreeMap<u32, BTreeSet<LockId>>) -> bool {
    let in_cycle: BTreeSet<LockId> = path.iter().map(|e| e.held.id).collect();
    let empty = BTreeSet::new();
    let mut common: Option<BTreeSet<LockId>> = None;
    for e in path {
        let h = held.get(&e.acquired_at).unwrap_or(&empty);
        let h: BTreeSet<LockId> = h
            .iter()
            .filter(|lock| !in_cycle.contains(lock))
            .copied()
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
    old_lock_order: &[LockOrderRow],
    new: &FactSet,
    new_lock_order: &[LockOrderRow],
) -> LockOrderDiff {
    let old_edges = lock_edges(old, old_lock_order);
    let new_edges = lock_edges(new, new_lock_order);
    // across versions a lock is its name
    let pairs = |es: &[LockEdge]| -> BTreeSet<(String, String)> {
        es.iter()
            .map(|e| (e.held.name.clone(), e.acquired.name.clone()))
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

    /// Locks `g`, `a`, `b` are locations 0, 1, 2.
    fn lock(name: &str) -> Lock {
        let id = ["g", "a", "b"].iter().position(|n| *n == name).unwrap();
        Lock {
            name: name.into(),
            id: LockId(id as u32),
        }
    }

    fn edge(h: &str, a: &str, t: u32, s: u32) -> LockEdge {
        LockEdge {
            held: lock(h),
            acquired: lock(a),
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
        assert_eq!(cycles[0].locks, vec![lock("a"), lock("b")]);
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
        for (s, l) in [(10, 5), (20, 15)] {
            f.insert(InCriticalSection {
                s: StmtId(s),
                m: LockId(0),
                l: StmtId(l),
            });
        }
        let es = vec![edge("a", "b", 1, 10), edge("b", "a", 2, 20)];
        assert!(deadlock_cycles(&f, &es).is_empty());
    }
}
