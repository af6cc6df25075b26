//! The previous implementation of the synchronisation diff, kept as the
//! reference for tests and benchmarks (`concord diff --reference`, hidden):
//! each version's rank-k set is computed in full by the single-version
//! programs (sync1..sync3, which recompute the lower layers), copied into
//! sorted sets and compared in Rust through Δmap. Same semantics as
//! [`super::diff`], including minimality; cubic in memory at rank 3.

use super::diff::{DiffOptions, Difference, RfTuple, Side, SyncDiff};
use super::{run, Relations, RuleProgram};
use crate::budget::Budget;
use crate::error::Result;
use crate::facts::FactSet;
use crate::versions::VersionMatch;
use std::collections::{BTreeMap, BTreeSet};

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

pub fn sync_diff_reference(
    old: &FactSet,
    new: &FactSet,
    m: &VersionMatch,
    opts: &DiffOptions,
    budget: &Budget,
) -> Result<SyncDiff> {
    let forward = &m.map;
    let backward: BTreeMap<u32, u32> = forward.iter().map(|(&o, &n)| (n, o)).collect();
    let mut out = SyncDiff::default();
    let mut sets: BTreeMap<u32, RankSets> = BTreeMap::new();
    let max_rank = opts.max_rank.clamp(1, 3);
    for rank in 1..=max_rank {
        let program = RuleProgram::for_rank(rank);
        budget.phase(&format!("reference: rules {} old", program.name()))?;
        let rel_old = run(program, opts.engine, old);
        budget.phase(&format!("reference: rules {} new", program.name()))?;
        let rel_new = run(program, opts.engine, new);
        budget.phase(&format!("reference: compare rank {rank}"))?;
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
            for (i, t) in mine.iter().enumerate() {
                if i % 4096 == 0 {
                    budget.check()?;
                }
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
            out.old_sync1 = lock_order_only(rel_old);
            out.new_sync1 = lock_order_only(rel_new);
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
    budget.end_phase();
    out.differences.sort();
    out.through_changes.sort();
    Ok(out)
}

/// The part of the sync1 results the lock-order diff reads.
fn lock_order_only(mut rel: Relations) -> Relations {
    let rows = rel.remove("lock_order").unwrap_or_default();
    Relations::from([("lock_order".to_string(), rows)])
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
