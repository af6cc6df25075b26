//! Synchronisation differences (EC-Diff §5): read-from edges, and ordered
//! sets of 2 or 3 of them, that one version allows and the other does not.
//!
//! Versions are compared through Δmap, so the two programs need not have
//! identically numbered statements. A tuple whose statements all have a
//! counterpart is a *difference* when its image is missing on the other
//! side (DiffP1: only in old; DiffP2: only in new). A tuple that touches a
//! statement the patch added or deleted exists in one version only by
//! construction; those are reported apart, as edges *through changes*.
//!
//! At rank k > 1 only *minimal* differences are reported: every ordered
//! sub-tuple of size k-1 is allowed by the other version, so the difference
//! is not already explained at a lower rank.

use super::{run, Engine, Relations, RuleProgram};
use crate::facts::FactSet;
use crate::versions::VersionMatch;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Old,
    New,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Old => "old",
            Side::New => "new",
        }
    }
}

/// An ordered set of read-from edges `(write, read)`, statement ids of one version.
pub type RfTuple = Vec<(u32, u32)>;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Difference {
    pub rank: u32,
    pub only_in: Side,
    /// Statement ids of the version named by `only_in`.
    pub edges: RfTuple,
}

#[derive(Debug, Clone, Default)]
pub struct VersionStats {
    pub must_hb: usize,
    pub may_hb: usize,
    pub may_rf: usize,
    /// Rank-2 and rank-3 tuple counts, when those ranks were computed.
    pub may_rf_rank: BTreeMap<u32, usize>,
    /// Rule evaluation time per program.
    pub rule_time: Vec<(&'static str, Duration)>,
}

#[derive(Debug, Clone, Copy)]
pub struct DiffOptions {
    pub max_rank: u32,
    pub all_ranks: bool,
    pub engine: Engine,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            max_rank: 3,
            all_ranks: false,
            engine: Engine::Ascent,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SyncDiff {
    /// The lowest rank with a difference; 0 when none up to `ranks_checked`.
    pub first_rank: u32,
    pub ranks_checked: u32,
    pub differences: Vec<Difference>,
    /// Rank-1 edges that touch an added or deleted statement.
    pub through_changes: Vec<Difference>,
    pub old_stats: VersionStats,
    pub new_stats: VersionStats,
    /// The sync1 results of each version (lock order and queries reuse them).
    pub old_sync1: Relations,
    pub new_sync1: Relations,
}

fn tuples(rel: &Relations, rank: u32) -> BTreeSet<RfTuple> {
    let name = match rank {
        1 => "rf_may",
        2 => "rank2_may",
        _ => "rank3_may",
    };
    rel.get(name)
        .into_iter()
        .flatten()
        .map(|row| row.chunks(2).map(|c| (c[0], c[1])).collect())
        .collect()
}

fn translate(t: &RfTuple, map: &BTreeMap<u32, u32>) -> Option<RfTuple> {
    t.iter()
        .map(|&(w, r)| Some((*map.get(&w)?, *map.get(&r)?)))
        .collect()
}

/// Ordered sub-tuples one element shorter.
fn sub_tuples(t: &RfTuple) -> Vec<RfTuple> {
    (0..t.len())
        .map(|skip| {
            t.iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, e)| *e)
                .collect()
        })
        .collect()
}

struct RankSets {
    old: BTreeSet<RfTuple>,
    new: BTreeSet<RfTuple>,
}

pub fn sync_diff(old: &FactSet, new: &FactSet, m: &VersionMatch, opts: &DiffOptions) -> SyncDiff {
    let forward = &m.map;
    let backward: BTreeMap<u32, u32> = forward.iter().map(|(&o, &n)| (n, o)).collect();
    let mut out = SyncDiff::default();
    let mut sets: BTreeMap<u32, RankSets> = BTreeMap::new();
    let max_rank = opts.max_rank.clamp(1, 3);
    for rank in 1..=max_rank {
        let program = RuleProgram::for_rank(rank);
        let t0 = Instant::now();
        let rel_old = run(program, opts.engine, old);
        let t1 = Instant::now();
        let rel_new = run(program, opts.engine, new);
        let t2 = Instant::now();
        out.old_stats.rule_time.push((program.name(), t1 - t0));
        out.new_stats.rule_time.push((program.name(), t2 - t1));
        let rank_sets = RankSets {
            old: tuples(&rel_old, rank),
            new: tuples(&rel_new, rank),
        };
        if rank == 1 {
            for (stats, rel) in [
                (&mut out.old_stats, &rel_old),
                (&mut out.new_stats, &rel_new),
            ] {
                stats.must_hb = rel.get("hb_must").map_or(0, |r| r.len());
                stats.may_hb = rel.get("hb_may").map_or(0, |r| r.len());
                stats.may_rf = rel.get("rf_may").map_or(0, |r| r.len());
            }
        } else {
            out.old_stats.may_rf_rank.insert(rank, rank_sets.old.len());
            out.new_stats.may_rf_rank.insert(rank, rank_sets.new.len());
        }
        let lower = sets.get(&(rank - 1));
        let mut found = Vec::new();
        for (side, mine, theirs, to_theirs) in [
            (Side::Old, &rank_sets.old, &rank_sets.new, forward),
            (Side::New, &rank_sets.new, &rank_sets.old, &backward),
        ] {
            for t in mine {
                match translate(t, to_theirs) {
                    None if rank == 1 => out.through_changes.push(Difference {
                        rank,
                        only_in: side,
                        edges: t.clone(),
                    }),
                    None => {}
                    Some(image) if !theirs.contains(&image) => {
                        // Minimal: every shorter ordered part is allowed on the other side.
                        let minimal = match lower {
                            None => true,
                            Some(l) => {
                                let other = if side == Side::Old { &l.new } else { &l.old };
                                sub_tuples(&image).iter().all(|s| other.contains(s))
                            }
                        };
                        if minimal {
                            found.push(Difference {
                                rank,
                                only_in: side,
                                edges: t.clone(),
                            });
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        if rank == 1 {
            out.old_sync1 = rel_old;
            out.new_sync1 = rel_new;
        }
        out.ranks_checked = rank;
        sets.insert(rank, rank_sets);
        let any = !found.is_empty();
        out.differences.extend(found);
        if any && out.first_rank == 0 {
            out.first_rank = rank;
        }
        if any && !opts.all_ranks {
            break;
        }
    }
    out.differences.sort();
    out.through_changes.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_tuples_keep_order() {
        let t: RfTuple = vec![(1, 2), (3, 4), (5, 6)];
        assert_eq!(
            sub_tuples(&t),
            vec![
                vec![(3, 4), (5, 6)],
                vec![(1, 2), (5, 6)],
                vec![(1, 2), (3, 4)]
            ]
        );
    }

    #[test]
    fn translation_fails_on_unmapped_statements() {
        let map = BTreeMap::from([(1, 10), (2, 20)]);
        assert_eq!(translate(&vec![(1, 2)], &map), Some(vec![(10, 20)]));
        assert_eq!(translate(&vec![(1, 3)], &map), None);
    }
}
