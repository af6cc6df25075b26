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
//!
//! Each rank is one rule program over both versions (`rules/diff*.dl`, built
//! by crates/concord-programs/build.rs from two prefixed copies of the single-version rules): the
//! differences are derived by rules from the exclusion rules and Δmap, and
//! read back as typed tuples. The rank-3 sets themselves are never
//! computed; their sizes only with `--counts` ([`super::diff_counts`]).
//! [`super::diff_reference`] keeps the previous implementation (both
//! versions' sets compared in Rust) as the reference for tests and benches.

use super::lockorder::LockOrderRow;
use super::may_hb::MayHb;
use super::must_hb::MustHb;
use super::rf_parts::{chained, rf_may_stage, LayerRows, RfParts};
use super::{diff_counts, programs, Engine};
use crate::budget::Budget;
use crate::error::Result;
use crate::facts::FactSet;
use crate::versions::VersionMatch;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

pub use super::Side;

/// An ordered set of read-from edges `(write, read)`, statement ids of one version.
pub type RfTuple = Vec<(u32, u32)>;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Difference {
    pub rank: u32,
    pub only_in: Side,
    /// Statement ids of the version named by `only_in`.
    pub edges: RfTuple,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionStats {
    /// mustHb and mayHb pair counts, only when counts were asked for
    /// (`--counts`): counting them walks every pair of events, quadratic
    /// in a version's events (a 20 KLoC program: a quarter of rank 1's
    /// time and most of its memory), and the diff never needs them.
    pub must_hb: Option<usize>,
    pub may_hb: Option<usize>,
    pub may_rf: usize,
    /// Rank-2 and rank-3 tuple counts, for the ranks computed (rank 3 only
    /// when counts were asked for).
    pub may_rf_rank: BTreeMap<u32, usize>,
}

#[derive(Debug, Clone, Copy)]
pub struct DiffOptions {
    pub max_rank: u32,
    pub all_ranks: bool,
    pub engine: Engine,
    /// Count the mustHb and mayHb pairs and the rank-3 tuples of each
    /// version (`--counts`); the diff itself never needs them.
    pub counts: bool,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            max_rank: 3,
            all_ranks: false,
            engine: Engine::Ascent,
            counts: false,
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
    /// Each version's `lock_order` rows (the lock-order diff reads them).
    pub old_lock_order: Vec<LockOrderRow>,
    pub new_lock_order: Vec<LockOrderRow>,
}

/// What one rank's program derives, as typed tuples.
#[derive(Default)]
struct RankOutput {
    only_old: Vec<RfTuple>,
    only_new: Vec<RfTuple>,
    through_old: Vec<RfTuple>,
    through_new: Vec<RfTuple>,
    /// MayRf count per version (rank 1).
    may_rf_count: [usize; 2],
    /// mustHb and mayHb counts per version (rank 1, when asked for).
    hb_counts: [Option<(usize, usize)>; 2],
    lock_order: [Vec<LockOrderRow>; 2],
    /// Each version's `sync1_core` outputs (rank 1, when a higher rank
    /// may follow): ranks 2 and 3 carry in the layers they derived.
    layers: [Option<LayerRows>; 2],
}

/// What rank 1 needs of one version, from its `sync1_core` run: MayRf in
/// two parts, the lock order, when asked the counts of mustHb and mayHb
/// (from the stored hub parts of mustHb and the facts: neither relation
/// is built) and, when asked, the run's outputs for the ranks after it.
struct Rank1Side {
    rf: RfParts,
    lock_order: Vec<LockOrderRow>,
    hb_counts: Option<(usize, usize)>,
    layers: Option<LayerRows>,
}

fn rank1_side(engine: Engine, facts: &FactSet, keep_layers: bool, count_hb: bool) -> Rank1Side {
    crate::datalog::run_program!(sync1_core, engine, facts, |o| {
        let hb_counts = count_hb.then(|| {
            let must = MustHb::new(facts, &o.hb_from_hub, &o.hb_to_hub);
            MayHb::new(&must).counts(facts)
        });
        let lock_order = o.lock_order.iter().map(|&row| row.into()).collect();
        let mut o = o;
        // the parts are moved out, or copied when the run is kept
        fn part<T: Clone>(rows: &mut Vec<T>, keep: bool) -> Vec<T> {
            if keep {
                rows.clone()
            } else {
                std::mem::take(rows)
            }
        }
        let rf = RfParts {
            local: part(&mut o.rf_may_local, keep_layers),
            cross_out: part(&mut o.rf_cross_out, keep_layers),
            write_in: part(&mut o.rf_write_in, keep_layers),
            read_in: part(&mut o.rf_read_in, keep_layers),
        };
        let layers = keep_layers.then(|| -> LayerRows { Box::new(move |name: &str| o.rows(name)) });
        Rank1Side {
            rf,
            lock_order,
            hb_counts,
            layers,
        }
    })
}

/// Each version's rank-1 side (its `sync1_core` run), which needs neither
/// the other version nor how the two match: a caller may compute it while
/// the versions are matched ([`sync_diff_with`]).
pub struct Rank1Layers([Rank1Side; 2]);

/// Both versions' rank-1 sides, one core each, for the diff `opts` asks.
pub fn rank1_layers(old: &FactSet, new: &FactSet, opts: &DiffOptions) -> Rank1Layers {
    // ranks 2 and 3 carry in the layers rank 1 derived
    let keep_layers = opts.max_rank.clamp(1, 3) >= 2;
    let sides = crate::parallel::map(&[old, new], |&facts| {
        rank1_side(opts.engine, facts, keep_layers, opts.counts)
    });
    Rank1Layers(sides.try_into().ok().expect("two versions"))
}

fn pairs(rows: Vec<(u32, u32)>) -> Vec<RfTuple> {
    rows.into_iter().map(|e| vec![e]).collect()
}

fn quads(rows: Vec<(u32, u32, u32, u32)>) -> Vec<RfTuple> {
    rows.into_iter()
        .map(|(a, b, c, d)| vec![(a, b), (c, d)])
        .collect()
}

fn sextuples(rows: Vec<(u32, u32, u32, u32, u32, u32)>) -> Vec<RfTuple> {
    rows.into_iter()
        .map(|(a, b, c, d, e, f)| vec![(a, b), (c, d), (e, f)])
        .collect()
}

/// Locations of the two versions with the same `locations.tsv` name
/// (names used twice in a version are left out: the rules need the map
/// one-to-one, and an unmatched location only makes more candidates).
pub fn location_map(old: &FactSet, new: &FactSet) -> Vec<(u32, u32)> {
    fn unique(facts: &FactSet) -> HashMap<&str, Option<u32>> {
        let mut by_name: HashMap<&str, Option<u32>> = HashMap::default();
        for l in &facts.locations {
            by_name
                .entry(l.name.as_str())
                .and_modify(|id| *id = None)
                .or_insert(Some(l.id));
        }
        by_name
    }
    let new_ids = unique(new);
    let mut map: Vec<(u32, u32)> = unique(old)
        .into_iter()
        .filter_map(|(name, o)| Some((o?, (*new_ids.get(name)?)?)))
        .collect();
    map.sort_unstable();
    map
}

/// Which way a diff program runs. Its rules are written for one direction
/// (`rules/diff*.dl`: rows only in the version read as `old_*`; build.rs
/// keeps that direction and what it reads of the mirrored one), so each
/// rank runs it twice: `Forward` reads OLD as `old_*`, `Backward` reads NEW
/// as `old_*`, OLD as `new_*` and the maps reversed, and its "only in old"
/// rows are the rows only in NEW.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Backward,
}

impl Direction {
    const BOTH: [Direction; 2] = [Direction::Forward, Direction::Backward];

    /// Which version (0: old, 1: new) the program reads as `old_*`.
    fn first(self) -> usize {
        match self {
            Direction::Forward => 0,
            Direction::Backward => 1,
        }
    }

    /// A map row `(old, new)` as the program reads it.
    fn map_row(self, (o, n): (u32, u32)) -> (u32, u32) {
        match self {
            Direction::Forward => (o, n),
            Direction::Backward => (n, o),
        }
    }
}

/// The two versions as the diff programs read them: facts, each version's
/// rank-1 layers (ranks 2 and 3), Δmap and the location map (computed once
/// for every rank and direction).
struct Versions<'a> {
    facts: [&'a FactSet; 2],
    layers: &'a [Option<LayerRows>; 2],
    dmap: &'a BTreeMap<u32, u32>,
    lmap: &'a [(u32, u32)],
    /// Run the two directions of a rank's diff program at once (one core
    /// each) or one after the other (see [`directions_side_by_side`]).
    directions_in_parallel: bool,
}

/// Memory one direction of a rank-2 or rank-3 diff program takes, per
/// MayRf row of both versions: each direction indexes both lists and the
/// edges they keep. Measured at 50 KLoC (8.05 million rows, rank 2 side
/// by side): 3.36 GB at the peak from 1.45 GB before the rank, about 119
/// bytes per row and direction (docs/results/2026-12-06.md); with a
/// margin. The resident size it is added to counts memory the allocator
/// keeps after earlier phases, so the sum errs high.
const DIRECTION_BYTES_PER_MAY_RF: u64 = 130;

/// The memory the two directions of ranks 2 and 3 may take together: they
/// run side by side (one core each) only while the estimate says the peak
/// stays under this (and under `--max-memory`), else one after the other.
const SIDE_BY_SIDE_MEMORY: u64 = 4 << 30;

/// Whether the two directions of a rank-2 or rank-3 diff run side by side:
/// when the process's resident memory now plus both directions' estimate
/// stays under [`SIDE_BY_SIDE_MEMORY`] and under `max_rss`, the memory
/// limit (`--max-memory`).
fn directions_side_by_side(may_rf_rows: usize, resident: u64, max_rss: Option<u64>) -> bool {
    let both = 2 * DIRECTION_BYTES_PER_MAY_RF * may_rf_rows as u64;
    let cap = max_rss.map_or(SIDE_BY_SIDE_MEMORY, |m| m.min(SIDE_BY_SIDE_MEMORY));
    resident.saturating_add(both) <= cap
}

/// Fill a generated diff program's input for one direction: relations
/// `old_*` from the version the direction reads first, `new_*` from the
/// other (an extracted relation from its facts, a derived one from its
/// rank-1 `layers`; a relation found in neither is left to the caller),
/// and the maps, where the program declares them.
macro_rules! diff_input {
    ($e:ident, $versions:expr, $dir:expr) => {{
        let (v, dir): (&Versions, Direction) = ($versions, $dir);
        let mut input = $e::Input::default();
        for (name, _) in $e::INPUT_RELATIONS {
            let (side, base) = if let Some(b) = name.strip_prefix("old_") {
                (dir.first(), b)
            } else if let Some(b) = name.strip_prefix("new_") {
                (1 - dir.first(), b)
            } else {
                continue;
            };
            if let Some(rows) = v.facts[side].relations.get(base) {
                for row in rows {
                    input
                        .push_row(name, row)
                        .expect("the extractor and the rules share one schema");
                }
            } else if let Some(layer) = &v.layers[side] {
                let rows = layer(base).expect("a carried relation is a sync1_core or sync1 output");
                for row in rows {
                    input
                        .push_row(name, &row)
                        .expect("sync1 and the diff share the layer's columns");
                }
            }
        }
        input
            .dmap
            .extend(v.dmap.iter().map(|(&o, &n)| dir.map_row((o, n))));
        input
            .lmap
            .extend(v.lmap.iter().map(|&row| dir.map_row(row)));
        input
    }};
}

/// Evaluate the rank's one-direction program both ways, on separate cores,
/// with the chosen engine; `$prepare` may add rows to the input (carried
/// relations), `$read` reads the direction's typed output. Gives
/// `[forward, backward]`.
macro_rules! eval_rank {
    ($prog:ident, $engine:expr, $versions:expr, |$inp:ident, $dir:ident| $prepare:expr, |$out:ident| $read:expr) => {{
        let versions: &Versions = $versions;
        let run = |&$dir: &Direction| match $engine {
            Engine::Ascent => {
                use programs::$prog::ascent as e;
                #[allow(unused_mut)]
                let mut $inp = diff_input!(e, versions, $dir);
                $prepare;
                let $out = e::run(&$inp);
                drop($inp);
                $read
            }
            #[cfg(feature = "reference-engine")]
            Engine::Crepe => {
                use programs::$prog::crepe::engine as e;
                #[allow(unused_mut)]
                let mut $inp = diff_input!(e, versions, $dir);
                $prepare;
                let $out = e::run(&$inp);
                drop($inp);
                $read
            }
        };
        let both: Vec<_> = if versions.directions_in_parallel {
            crate::parallel::map(&Direction::BOTH, run)
        } else {
            Direction::BOTH.iter().map(run).collect()
        };
        let [forward, backward]: [_; 2] = both.try_into().ok().expect("two directions");
        [forward, backward]
    }};
    ($prog:ident, $engine:expr, $versions:expr, |$out:ident| $read:expr) => {
        eval_rank!($prog, $engine, $versions, |_i, _d| (), |$out| $read)
    };
}

/// Run rank `rank`'s program. Rank 1 compares the versions' rank-1 sides
/// (`rank1`, whose layers its result keeps for the ranks after it); ranks
/// 2 and 3 carry in the layers rank 1 derived (`versions.layers`).
fn eval(
    rank: u32,
    opts: &DiffOptions,
    versions: &Versions,
    rank1: Option<Rank1Layers>,
) -> RankOutput {
    let engine = opts.engine;
    match rank {
        1 => {
            let Rank1Layers([o1, n1]) = rank1.expect("rank 1 reads both versions' sides");
            let may_rf_count = [o1.rf.may_rf_count(), n1.rf.may_rf_count()];
            let rf = [&o1.rf, &n1.rf];
            let no_layers: [Option<LayerRows>; 2] = [None, None];
            let rank1 = Versions {
                layers: &no_layers,
                ..*versions
            };
            let [(old_only, through_old), (new_only, through_new)] = eval_rank!(
                diff1,
                engine,
                &rank1,
                |i, dir| {
                    let (a, b) = (rf[dir.first()], rf[1 - dir.first()]);
                    i.old_rf_may_local = a.local.clone();
                    i.old_rf_cross_out = a.cross_out.clone();
                    i.old_rf_write_in = a.write_in.clone();
                    i.old_rf_read_in = a.read_in.clone();
                    i.new_rf_may_local = b.local.clone();
                    i.new_rf_cross_out = b.cross_out.clone();
                    i.new_rf_write_in = b.write_in.clone();
                    i.new_rf_read_in = b.read_in.clone();
                },
                |o| (pairs(o.diff1_old), pairs(o.through1_old))
            );
            RankOutput {
                may_rf_count,
                hb_counts: [o1.hb_counts, n1.hb_counts],
                lock_order: [o1.lock_order, n1.lock_order],
                layers: [o1.layers, n1.layers],
                only_old: old_only,
                only_new: new_only,
                through_old,
                through_new,
            }
        }
        2 => {
            let [only_old, only_new] = eval_rank!(diff2, engine, versions, |o| quads(o.diff2_old));
            RankOutput {
                only_old,
                only_new,
                ..RankOutput::default()
            }
        }
        _ => {
            let [only_old, only_new] =
                eval_rank!(diff3, engine, versions, |o| sextuples(o.diff3_old));
            RankOutput {
                only_old,
                only_new,
                ..RankOutput::default()
            }
        }
    }
}

/// A version's rank2_may and the size of its rank3_no, from one run of
/// the `counts` program (for `--counts` only: the diff itself lists
/// neither; rank3_no holds only for rank-2 triangles, so rank 3 is counted
/// as triangles minus rank3_no without the cubic rank3_may).
/// With `rank3` false, rank 3 is not asked for and the smaller `sync2`
/// program runs instead (rank3_no is then reported as 0).
fn rank_sets_single(
    engine: Engine,
    facts: &FactSet,
    rank3: bool,
) -> (Vec<(u32, u32, u32, u32)>, usize) {
    if rank3 {
        crate::datalog::run_program!(counts, engine, facts, |out| (
            out.rank2_may,
            out.rank3_no.len()
        ))
    } else {
        crate::datalog::run_program!(sync2, engine, facts, |out| (out.rank2_may, 0))
    }
}

/// The differences between two versions, rank by rank up to
/// `opts.max_rank`, stopping at the first rank with a difference unless
/// `opts.all_ranks`. Each rank is a phase of `budget`.
pub fn sync_diff(
    old: &FactSet,
    new: &FactSet,
    m: &VersionMatch,
    opts: &DiffOptions,
    budget: &Budget,
) -> Result<SyncDiff> {
    sync_diff_with(old, new, m, opts, budget, None)
}

/// [`sync_diff`], with the versions' rank-1 sides already computed
/// ([`rank1_layers`] for the same `opts`), or computed in rank 1's phase
/// when `None`.
pub fn sync_diff_with(
    old: &FactSet,
    new: &FactSet,
    m: &VersionMatch,
    opts: &DiffOptions,
    budget: &Budget,
    mut rank1: Option<Rank1Layers>,
) -> Result<SyncDiff> {
    let mut out = SyncDiff::default();
    let max_rank = opts.max_rank.clamp(1, 3);
    // each version's sync1_core outputs, from rank 1 for the ranks after
    // it (with MayRf listed from rank 2 on)
    let mut layers: [Option<LayerRows>; 2] = [None, None];
    // rank2_may of each version, listed only for --counts
    let mut rank2_pairs: [Vec<(u32, u32, u32, u32)>; 2] = Default::default();
    let mut rank3_no = [0usize; 2];
    let lmap = location_map(old, new);
    for rank in 1..=max_rank {
        budget.phase(&format!("rules rank {rank} (both versions)"))?;
        if rank == 1 && rank1.is_none() {
            rank1 = Some(rank1_layers(old, new, opts));
        }
        if rank == 2 {
            // ranks 2 and 3 join MayRf edges: list them now, on the
            // parts rank 1 derived (each version on its own core)
            let stages = crate::parallel::map(&[0, 1], |&i| {
                let core = layers[i].as_ref();
                core.map(|core| rf_may_stage(opts.engine, [old, new][i], core))
            });
            for (slot, stage) in layers.iter_mut().zip(stages) {
                if let (Some(core), Some(stage)) = (slot.take(), stage) {
                    *slot = Some(chained(stage, core));
                }
            }
        }
        let versions = Versions {
            facts: [old, new],
            layers: &layers,
            dmap: &m.map,
            lmap: &lmap,
            // rank 1 compares the parts, never the lists
            directions_in_parallel: rank == 1
                || directions_side_by_side(
                    out.old_stats.may_rf + out.new_stats.may_rf,
                    crate::budget::current_rss().unwrap_or(0),
                    budget.limits().max_rss,
                ),
        };
        let mut r = eval(rank, opts, &versions, rank1.take());
        if rank == 1 {
            layers = std::mem::take(&mut r.layers);
        }
        let stats = [&mut out.old_stats, &mut out.new_stats];
        if rank == 1 {
            for (i, s) in stats.into_iter().enumerate() {
                (s.must_hb, s.may_hb) = r.hb_counts[i].unzip();
                s.may_rf = r.may_rf_count[i];
            }
            [out.old_lock_order, out.new_lock_order] = r.lock_order;
            for (side, list) in [(Side::Old, r.through_old), (Side::New, r.through_new)] {
                out.through_changes
                    .extend(list.into_iter().map(|edges| Difference {
                        rank,
                        only_in: side,
                        edges,
                    }));
            }
        }
        if rank == 2 && opts.counts {
            // the diff never builds rank2_no (diff2.dl): one run of the
            // single-version `counts` program per version gives rank 2's
            // pairs and rank 3's exclusions (when rank 3 is asked for), for
            // counts only
            budget.phase("count rank 2")?;
            for (i, (s, facts)) in [&mut out.old_stats, &mut out.new_stats]
                .into_iter()
                .zip([old, new])
                .enumerate()
            {
                let (pairs, no3) = rank_sets_single(opts.engine, facts, max_rank >= 3);
                s.may_rf_rank.insert(2, pairs.len());
                rank2_pairs[i] = pairs;
                rank3_no[i] = no3;
            }
        }
        if rank == 3 && opts.counts {
            budget.phase("count rank 3")?;
            for (i, s) in [&mut out.old_stats, &mut out.new_stats]
                .into_iter()
                .enumerate()
            {
                let triangles = diff_counts::rank2_triangles(&rank2_pairs[i], budget)?;
                s.may_rf_rank.insert(3, triangles - rank3_no[i]);
            }
        }
        out.ranks_checked = rank;
        let any = !r.only_old.is_empty() || !r.only_new.is_empty();
        for (side, list) in [(Side::Old, r.only_old), (Side::New, r.only_new)] {
            out.differences
                .extend(list.into_iter().map(|edges| Difference {
                    rank,
                    only_in: side,
                    edges,
                }));
        }
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

    /// The directions run side by side only while the resident memory and
    /// both directions' estimate fit under 4 GiB and the memory limit; a
    /// list too large runs them one after the other.
    #[test]
    fn directions_run_side_by_side_only_when_both_fit() {
        let gib: u64 = 1 << 30;
        // the 50 KLoC pair: 8.05 M rows, 1.43 GB resident before rank 2
        assert!(directions_side_by_side(8_050_000, 1_430_000_000, None));
        // twice its rows do not fit in the default 4 GiB
        assert!(!directions_side_by_side(16_100_000, 1_430_000_000, None));
        // a smaller limit moves the 50 KLoC pair to one after the other
        assert!(!directions_side_by_side(
            8_050_000,
            1_430_000_000,
            Some(3 * gib)
        ));
        // a larger one (the default: 3/4 of the machine) changes nothing
        assert!(directions_side_by_side(
            8_050_000,
            1_430_000_000,
            Some(18 * gib)
        ));
        assert!(!directions_side_by_side(
            16_100_000,
            1_430_000_000,
            Some(18 * gib)
        ));
        // already over the cap: never side by side
        assert!(!directions_side_by_side(0, 5 * gib, None));
        assert!(directions_side_by_side(0, 0, None));
    }
}
