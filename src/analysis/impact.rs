//! Change-impact analysis (Conc-iSE §5, Algorithm 3): forward and backward
//! impacted sets of a patch, across threads and functions.
//!
//! The dependences and their transitive closures are the rules of
//! `rules/cia.dl`; this module only chooses the seeds and runs them:
//!
//! 1. statements *deleted* by the patch are closed (forward and backward) in
//!    the old version;
//! 2. the old statements so reached are mapped through Δmap into the new
//!    version, and closed again there, together with the statements *added*,
//!    *modified* or *moved* by the patch (moved counts as modified).
//!
//! Every seed belongs to a [`ChangeGroup`] (one changed source line of one
//! kind), and every impacted statement remembers the groups that reach it.
//!
//! For reports that rank, [`reach`] measures each impacted statement's
//! distance from the changes (dependence steps, over the rules' `cia_dep`
//! edges) and how it is reached: through values only, through a branch or
//! call that decides whether it runs, or only through another thread's
//! write (read-from).

use super::Engine;
use crate::facts::FactSet;
use crate::versions::{ChangeKind, VersionMatch};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

mod adjacency;
pub mod closure;

pub use super::Side;
pub use closure::GroupSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Fwd,
    Bwd,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Fwd => "fwd",
            Direction::Bwd => "bwd",
        }
    }
}

/// Kinds of dependence edges (`k` column of `cia_dep`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DepKind {
    /// Through an SSA value (operands, parameters, returns, thread arguments).
    Data,
    /// Through memory: a read of a location another statement may write.
    Memory,
    /// Control: a branch decides whether it runs; a call or thread creation starts it.
    Control,
    /// A phi's value is selected by the branch taken into its block.
    Merge,
}

impl DepKind {
    pub fn from_code(k: u32) -> DepKind {
        match k {
            1 => DepKind::Data,
            2 => DepKind::Memory,
            3 => DepKind::Control,
            _ => DepKind::Merge,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            DepKind::Data => "data",
            DepKind::Memory => "memory",
            DepKind::Control => "control",
            DepKind::Merge => "merge",
        }
    }
}

/// The kind of a change group as reported (moved is kept apart from
/// modified for the reader but is analysed the same way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupKind {
    Added,
    Deleted,
    Modified,
    Moved,
    /// Named by the user with `--changed`.
    Given,
}

impl GroupKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupKind::Added => "added",
            GroupKind::Deleted => "deleted",
            GroupKind::Modified => "modified",
            GroupKind::Moved => "moved",
            GroupKind::Given => "given",
        }
    }
}

/// One changed source line (of one kind, in one version).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeGroup {
    pub id: u32,
    pub kind: GroupKind,
    /// The version whose statements are the seeds (old for deleted).
    pub side: Side,
    pub file: String,
    /// 0 when the statements have no source line.
    pub line: u32,
    /// The statements of this change, in `side`'s ids.
    pub statements: Vec<u32>,
}

/// What the analysis found.
#[derive(Debug, Clone, Default)]
pub struct ImpactResult {
    pub groups: Vec<ChangeGroup>,
    /// Impacted statement of the new version -> the change groups reaching it.
    pub fwd: BTreeMap<u32, GroupSet>,
    pub bwd: BTreeMap<u32, GroupSet>,
    /// The same in the old version: the closures of deleted statements.
    pub fwd_old: BTreeMap<u32, GroupSet>,
    pub bwd_old: BTreeMap<u32, GroupSet>,
    /// Seeds in the new version per direction (statement -> its groups),
    /// including old impacted statements mapped through Δmap.
    pub seeds_fwd: BTreeMap<u32, GroupSet>,
    pub seeds_bwd: BTreeMap<u32, GroupSet>,
    /// Seeds in the new version that came through Δmap: new stmt -> old stmt.
    pub mapped_from: BTreeMap<u32, u32>,
    /// Dependence edges `(u, d, kind)`: `u` depends on `d`.
    pub deps_new: Vec<(u32, u32, DepKind)>,
    pub deps_old: Vec<(u32, u32, DepKind)>,
    /// How far from the changes, and how, each statement of `fwd`, `bwd`,
    /// `fwd_old` and `bwd_old` is.
    pub reach_fwd: BTreeMap<u32, Reach>,
    pub reach_bwd: BTreeMap<u32, Reach>,
    pub reach_fwd_old: BTreeMap<u32, Reach>,
    pub reach_bwd_old: BTreeMap<u32, Reach>,
}

/// How an impacted statement is reached from the changes, weakest link
/// first: a statement any chain of values reaches is `Data` even when a
/// longer chain through a branch reaches it too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// Values only: SSA data and memory within one thread.
    Data,
    /// Also whether it runs: branches, calls, thread creation, phis.
    Control,
    /// Only through a write of another thread that it may read (read-from).
    CrossThread,
}

impl Via {
    pub fn as_str(self) -> &'static str {
        match self {
            Via::Data => "data",
            Via::Control => "control",
            Via::CrossThread => "cross-thread",
        }
    }
}

/// An impacted statement's distance from the changes and how it is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Reach {
    /// Dependence steps on a shortest chain from a change (0: a change).
    pub steps: u32,
    pub via: Via,
}

/// Output of one run of the cia program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CiaRun {
    pub deps: Vec<(u32, u32, u32)>,
    /// `cia_before(r, w)` for the pairs the memory dependence asks about
    /// (a read and a write of one location): r must happen before w.
    pub before: Vec<(u32, u32)>,
    pub fwd: Vec<(u32, u32)>,
    pub bwd: Vec<(u32, u32)>,
}

/// Run `rules/cia.dl` on one version with the given seeds `(group, stmt)`.
/// `analyse` gives it none and closes the seeds in Rust ([`closure`]); the
/// rules' closures are the definition the tests check that against.
pub fn run_cia(
    engine: Engine,
    facts: &FactSet,
    fwd: &BTreeSet<(u32, u32)>,
    bwd: &BTreeSet<(u32, u32)>,
) -> CiaRun {
    crate::datalog::run_program!(
        cia,
        engine,
        facts,
        |input| {
            let phis = facts.statements.iter().filter(|st| st.kind == "phi");
            input.cia_phi.extend(phis.map(|st| (st.id,)));
            input.cia_seed_fwd.extend(fwd.iter().copied());
            input.cia_seed_bwd.extend(bwd.iter().copied());
        },
        |out| CiaRun {
            deps: out.cia_dep,
            before: out.cia_before,
            fwd: out.impact_fwd,
            bwd: out.impact_bwd,
        }
    )
}

fn group_kind(k: ChangeKind) -> GroupKind {
    match k {
        ChangeKind::Added => GroupKind::Added,
        ChangeKind::Deleted => GroupKind::Deleted,
        ChangeKind::Modified => GroupKind::Modified,
        ChangeKind::Moved => GroupKind::Moved,
    }
}

/// Group the changes of Δdiff by (kind, version, file, line).
pub fn change_groups(m: &VersionMatch, old: &FactSet, new: &FactSet) -> Vec<ChangeGroup> {
    let mut by_key: BTreeMap<(Side, String, u32, GroupKind), Vec<u32>> = BTreeMap::new();
    for c in &m.changes {
        let (side, id, facts) = match (c.kind, c.new, c.old) {
            (ChangeKind::Deleted, _, Some(o)) => (Side::Old, o, old),
            (_, Some(n), _) => (Side::New, n, new),
            (_, None, Some(o)) => (Side::Old, o, old),
            (_, None, None) => continue,
        };
        let (file, line) = facts
            .statement(id)
            .map_or((String::new(), 0), |s| (s.file.clone(), s.line));
        by_key
            .entry((side, file, line, group_kind(c.kind)))
            .or_default()
            .push(id);
    }
    by_key
        .into_iter()
        .enumerate()
        .map(|(i, ((side, file, line, kind), mut statements))| {
            statements.sort_unstable();
            statements.dedup();
            ChangeGroup {
                id: i as u32,
                kind,
                side,
                file,
                line,
                statements,
            }
        })
        .collect()
}

/// Change groups for `--changed LINE,...`: every statement of the new
/// version on one of those lines (a line of a file whose path ends with
/// `file`, when given).
pub fn given_groups(new: &FactSet, lines: &[(Option<String>, u32)]) -> Vec<ChangeGroup> {
    let mut out = Vec::new();
    for (file, line) in lines {
        let mut by_file: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for s in &new.statements {
            if s.line == *line && file.as_deref().map_or(true, |f| file_matches(&s.file, f)) {
                by_file.entry(s.file.clone()).or_default().push(s.id);
            }
        }
        for (f, statements) in by_file {
            out.push(ChangeGroup {
                id: out.len() as u32,
                kind: GroupKind::Given,
                side: Side::New,
                file: f,
                line: *line,
                statements,
            });
        }
    }
    out
}

/// `path` (a statement's file) and `wanted` (from the command line) name the
/// same file: equal, or one ends with the other at a `/` (so `v2.c`,
/// `bench/x/v2.c` and `/abs/bench/x/v2.c` all name `bench/x/v2.c`).
pub fn file_matches(path: &str, wanted: &str) -> bool {
    let wanted = wanted.trim_start_matches("./");
    path == wanted
        || path.ends_with(&format!("/{wanted}"))
        || (!path.is_empty() && wanted.ends_with(&format!("/{path}")))
}

fn deps(run: &CiaRun) -> Vec<(u32, u32, DepKind)> {
    run.deps
        .iter()
        .map(|&(u, d, k)| (u, d, DepKind::from_code(k)))
        .collect()
}

/// Algorithm 3 over the given change groups. `old` is only consulted when
/// some group is on the old side (deleted statements).
pub fn analyse(
    engine: Engine,
    groups: Vec<ChangeGroup>,
    old: Option<&FactSet>,
    new: &FactSet,
    map: &BTreeMap<u32, u32>,
) -> ImpactResult {
    let mut result = ImpactResult::default();
    let seeds_on = |side: Side| -> BTreeMap<u32, GroupSet> {
        let mut seeds = BTreeMap::new();
        for g in groups.iter().filter(|g| g.side == side) {
            let one: GroupSet = [g.id].into_iter().collect();
            for &s in &g.statements {
                closure::add_groups(&mut seeds, s, &one);
            }
        }
        seeds
    };
    let old_seeds = seeds_on(Side::Old);
    let mut seeds_fwd = seeds_on(Side::New);
    let mut seeds_bwd = seeds_fwd.clone();
    if let (Some(old), false) = (old, old_seeds.is_empty()) {
        result.deps_old = dependences(engine, old);
        result.fwd_old = closure::close(edges(&result.deps_old, Direction::Fwd), &old_seeds);
        result.bwd_old = closure::close(edges(&result.deps_old, Direction::Bwd), &old_seeds);
        for (closed, seeds) in [
            (&result.fwd_old, &mut seeds_fwd),
            (&result.bwd_old, &mut seeds_bwd),
        ] {
            for (s, groups) in closed {
                if let Some(&n) = map.get(s) {
                    closure::add_groups(seeds, n, groups);
                    result.mapped_from.entry(n).or_insert(*s);
                }
            }
        }
    }
    result.deps_new = dependences(engine, new);
    result.fwd = closure::close(edges(&result.deps_new, Direction::Fwd), &seeds_fwd);
    result.bwd = closure::close(edges(&result.deps_new, Direction::Bwd), &seeds_bwd);
    result.seeds_fwd = seeds_fwd;
    result.seeds_bwd = seeds_bwd;
    result.groups = groups;
    if let Some(old) = old.filter(|_| !old_seeds.is_empty()) {
        let starts: Vec<Start> = old_seeds.keys().map(|&s| (s, 0, Via::Data)).collect();
        result.reach_fwd_old = reach(&result.deps_old, old, Direction::Fwd, &starts);
        result.reach_bwd_old = reach(&result.deps_old, old, Direction::Bwd, &starts);
    }
    // Statements mapped from the old closures start where they were.
    let start_of = |seeds: &BTreeMap<u32, GroupSet>, old_reach: &BTreeMap<u32, Reach>| {
        seeds
            .keys()
            .map(|&s| {
                let was = result
                    .mapped_from
                    .get(&s)
                    .and_then(|o| old_reach.get(o))
                    .filter(|_| !direct_seed(&result.groups, s));
                was.map_or((s, 0, Via::Data), |r| (s, r.steps, r.via))
            })
            .collect::<Vec<Start>>()
    };
    let fwd_starts = start_of(&result.seeds_fwd, &result.reach_fwd_old);
    let bwd_starts = start_of(&result.seeds_bwd, &result.reach_bwd_old);
    result.reach_fwd = reach(&result.deps_new, new, Direction::Fwd, &fwd_starts);
    result.reach_bwd = reach(&result.deps_new, new, Direction::Bwd, &bwd_starts);
    result
}

/// The dependence edges of one version (the rules' `cia_dep`).
fn dependences(engine: Engine, facts: &FactSet) -> Vec<(u32, u32, DepKind)> {
    deps(&run_cia(engine, facts, &BTreeSet::new(), &BTreeSet::new()))
}

/// The dependence edges as `from → to` of a closure: forward from a
/// statement to those that depend on it, backward the other way.
fn edges(
    deps: &[(u32, u32, DepKind)],
    dir: Direction,
) -> impl Iterator<Item = (u32, u32)> + Clone + '_ {
    deps.iter().map(move |&(u, d, _)| match dir {
        Direction::Fwd => (d, u),
        Direction::Bwd => (u, d),
    })
}

/// Is `s` a statement of a change group of the new version?
fn direct_seed(groups: &[ChangeGroup], s: u32) -> bool {
    groups
        .iter()
        .any(|g| g.side == Side::New && g.statements.binary_search(&s).is_ok())
}

/// A statement a search starts from, its distance and how it was reached.
type Start = (u32, u32, Via);

/// Distances over the dependence edges from `starts` (forward: from a
/// statement to those that depend on it; backward: the other way), and
/// for each statement the weakest kind of chain that reaches it: one
/// shortest-path search per kind, each allowed the edges up to it.
pub fn reach(
    deps: &[(u32, u32, DepKind)],
    facts: &FactSet,
    dir: Direction,
    starts: &[Start],
) -> BTreeMap<u32, Reach> {
    let thread = |s: u32| facts.statement(s).map(|i| i.thread);
    // 4 searches per `impact`, over millions of edges at 50 KLoC: the
    // successors in one array and distances in a vector, not maps
    let n = adjacency::node_count(
        (deps.iter().flat_map(|&(u, d, _)| [u, d])).chain(starts.iter().map(|st| st.0)),
    );
    let edges = deps.iter().map(|&(u, d, k)| {
        let via = match k {
            DepKind::Data => Via::Data,
            DepKind::Memory if thread(u) == thread(d) => Via::Data,
            DepKind::Memory => Via::CrossThread,
            DepKind::Control | DepKind::Merge => Via::Control,
        };
        match dir {
            Direction::Fwd => (d, u, via),
            Direction::Bwd => (u, d, via),
        }
    });
    let next = adjacency::Adjacency::new(n, edges);
    const UNSEEN: u32 = u32::MAX;
    let mut out: BTreeMap<u32, Reach> = BTreeMap::new();
    let mut dist = vec![UNSEEN; n];
    for level in [Via::Data, Via::Control, Via::CrossThread] {
        dist.fill(UNSEEN);
        let mut heap = std::collections::BinaryHeap::new();
        for &(s, d, _) in starts.iter().filter(|st| st.2 <= level) {
            if d < dist[s as usize] {
                dist[s as usize] = d;
                heap.push(std::cmp::Reverse((d, s)));
            }
        }
        while let Some(std::cmp::Reverse((d, s))) = heap.pop() {
            if dist[s as usize] != d {
                continue;
            }
            for &(t, via) in next.next(s) {
                if via <= level && d + 1 < dist[t as usize] {
                    dist[t as usize] = d + 1;
                    heap.push(std::cmp::Reverse((d + 1, t)));
                }
            }
        }
        for (s, &steps) in dist.iter().enumerate().filter(|(_, &d)| d != UNSEEN) {
            // the weakest kind is the first level that reaches it; the
            // distance is the last level's (all edges)
            let e = out.entry(s as u32).or_insert(Reach { steps, via: level });
            e.steps = steps;
        }
    }
    out
}

/// One step of an explanation: `stmt` reached through an edge of `kind`
/// from the previous step (`None` for the seed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub stmt: u32,
    pub kind: Option<DepKind>,
}

/// A shortest dependence chain in the new version from a seed of the
/// direction to one of `targets` (forward: each step depends on the
/// previous one; backward: the previous step depends on each step).
pub fn explain(
    result: &ImpactResult,
    dir: Direction,
    targets: &BTreeSet<u32>,
) -> Option<Vec<Step>> {
    let seeds: BTreeSet<u32> = match dir {
        Direction::Fwd => result.seeds_fwd.keys().copied().collect(),
        Direction::Bwd => result.seeds_bwd.keys().copied().collect(),
    };
    let mut next: BTreeMap<u32, Vec<(u32, DepKind)>> = BTreeMap::new();
    for &(u, d, k) in &result.deps_new {
        match dir {
            Direction::Fwd => next.entry(d).or_default().push((u, k)),
            Direction::Bwd => next.entry(u).or_default().push((d, k)),
        }
    }
    let mut prev: BTreeMap<u32, Option<(u32, DepKind)>> = BTreeMap::new();
    let mut queue = VecDeque::new();
    for &s in &seeds {
        prev.insert(s, None);
        queue.push_back(s);
    }
    while let Some(s) = queue.pop_front() {
        if targets.contains(&s) {
            let mut chain = vec![];
            let mut cur = s;
            loop {
                match prev[&cur] {
                    Some((p, k)) => {
                        chain.push(Step {
                            stmt: cur,
                            kind: Some(k),
                        });
                        cur = p;
                    }
                    None => {
                        chain.push(Step {
                            stmt: cur,
                            kind: None,
                        });
                        break;
                    }
                }
            }
            chain.reverse();
            return Some(chain);
        }
        for &(t, k) in next.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
            if let std::collections::btree_map::Entry::Vacant(e) = prev.entry(t) {
                e.insert(Some((s, k)));
                queue.push_back(t);
            }
        }
    }
    None
}

/// Source lines (of statements with a line) in a set of impacted statements.
pub fn lines_of(facts: &FactSet, set: &BTreeMap<u32, GroupSet>) -> BTreeSet<u32> {
    set.keys()
        .filter_map(|&s| facts.statement(s))
        .filter(|s| s.line != 0)
        .map(|s| s.line)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{reach, DepKind, Direction, Reach, Via};
    use crate::facts::{FactSet, StatementInfo};

    fn facts(threads: &[u32]) -> FactSet {
        let statements = threads
            .iter()
            .enumerate()
            .map(|(id, &thread)| StatementInfo {
                id: id as u32,
                file: "p.c".into(),
                line: id as u32 + 1,
                col: 0,
                function: "f".into(),
                thread,
                kind: "load".into(),
                text: String::new(),
                instr: None,
            })
            .collect();
        FactSet {
            statements,
            ..FactSet::default()
        }
    }

    /// 1 is the change. 2 uses its value, 3 is decided by a branch on 2,
    /// 4 (another thread) reads what 1 wrote, 5 uses 3 and 4. So 5 is two
    /// steps away across threads but three through the branch: nearest 2,
    /// and the weakest chain that reaches it is control, not cross-thread.
    #[test]
    fn distances_and_the_weakest_chain() {
        let f = facts(&[0, 0, 0, 0, 1, 0]);
        let deps = [
            (2, 1, DepKind::Data),
            (3, 2, DepKind::Control),
            (4, 1, DepKind::Memory),
            (5, 4, DepKind::Data),
            (5, 3, DepKind::Data),
        ];
        let r = reach(&deps, &f, Direction::Fwd, &[(1, 0, Via::Data)]);
        let at = |s: u32| r.get(&s).copied();
        let reach_of = |steps, via| Some(Reach { steps, via });
        assert_eq!(at(1), reach_of(0, Via::Data));
        assert_eq!(at(2), reach_of(1, Via::Data));
        assert_eq!(at(3), reach_of(2, Via::Control));
        assert_eq!(at(4), reach_of(1, Via::CrossThread));
        assert_eq!(at(5), reach_of(2, Via::Control));
        assert_eq!(at(0), None);
        // backward from 5: 4 and 3 one step, 1 two (through 4)
        let b = reach(&deps, &f, Direction::Bwd, &[(5, 0, Via::Data)]);
        assert_eq!(b.get(&1).map(|r| r.steps), Some(2));
        assert_eq!(b.get(&1).map(|r| r.via), Some(Via::Control));
    }
}
