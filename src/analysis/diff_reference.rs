//! The previous implementation of the synchronisation diff, kept as the
//! reference for tests and benchmarks (`concord diff --reference`, hidden):
//! each version's rank-k set is computed in full by the single-version
//! programs (sync1..sync3, which recompute the lower layers), copied into
//! sorted sets and compared in Rust through Δmap. Same semantics as
//! [`super::diff`], including minimality; cubic in memory at rank 3.

use super::diff::{DiffOptions, Difference, RfTuple, Side, SyncDiff};
use super::lockorder::LockOrderRow;
use super::{Engine, RuleProgram};
use crate::budget::Budget;
use crate::error::Result;
use crate::facts::FactSet;
use crate::versions::VersionMatch;
use std::collections::{BTreeMap, BTreeSet};

/// What the reference reads from one version's single-version program
/// of one rank (`RuleProgram::for_rank`).
#[derive(Default)]
struct SingleVersion {
    /// The rank's MayRf tuples: `rf_may`, `rank2_may` or `rank3_may`.
    tuples: BTreeSet<RfTuple>,
    /// Sizes of `hb_must`, `hb_may` (rank 1, when counted), `rf_may` (rank 1).
    must_hb: Option<usize>,
    may_hb: Option<usize>,
    may_rf: usize,
    /// `lock_order` (rank 1).
    lock_order: Vec<LockOrderRow>,
}

fn single_version(rank: u32, engine: Engine, facts: &FactSet, count_hb: bool) -> SingleVersion {
    match rank {
        1 => {
            // mustHb and mayHb themselves are stored only by the `hb` program
            let (must_hb, may_hb) = if count_hb {
                crate::datalog::run_program!(hb, engine, facts, |out| (
                    Some(out.hb_must.len()),
                    Some(out.hb_may.len())
                ))
            } else {
                (None, None)
            };
            // lock_order is derived by sync1's base (the reference runs it twice)
            let lock_order = crate::datalog::run_program!(sync1_core, engine, facts, |out| out
                .lock_order
                .iter()
                .map(|&row| row.into())
                .collect());
            crate::datalog::run_program!(sync1, engine, facts, |out| SingleVersion {
                tuples: out.rf_may.iter().map(|&(w, r)| vec![(w, r)]).collect(),
                must_hb,
                may_hb,
                may_rf: out.rf_may.len(),
                lock_order,
            })
        }
        2 => crate::datalog::run_program!(sync2, engine, facts, |out| SingleVersion {
            tuples: out
                .rank2_may
                .iter()
                .map(|&(w1, r1, w2, r2)| vec![(w1, r1), (w2, r2)])
                .collect(),
            ..SingleVersion::default()
        }),
        _ => crate::datalog::run_program!(sync3, engine, facts, |out| SingleVersion {
            tuples: out
                .rank3_may
                .iter()
                .map(|&(w1, r1, w2, r2, w3, r3)| vec![(w1, r1), (w2, r2), (w3, r3)])
                .collect(),
            ..SingleVersion::default()
        }),
    }
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
        let mut rel_old = single_version(rank, opts.engine, old, opts.counts);
        budget.phase(&format!("reference: rules {} new", program.name()))?;
        let mut rel_new = single_version(rank, opts.engine, new, opts.counts);
        budget.phase(&format!("reference: compare rank {rank}"))?;
        let rank_sets = RankSets {
            old: std::mem::take(&mut rel_old.tuples),
            new: std::mem::take(&mut rel_new.tuples),
        };
        if rank == 1 {
            for (stats, rel) in [
                (&mut out.old_stats, &rel_old),
                (&mut out.new_stats, &rel_new),
            ] {
                stats.must_hb = rel.must_hb;
                stats.may_hb = rel.may_hb;
                stats.may_rf = rel.may_rf;
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
            out.old_lock_order = rel_old.lock_order;
            out.new_lock_order = rel_new.lock_order;
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
