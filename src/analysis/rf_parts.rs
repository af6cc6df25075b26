//! MayRf in two parts, as rank 1 of a diff reads it (`rules/rf.dl`): the
//! edges in one thread, listed, and the store/load pairs in two threads
//! that MayRf leaves out. The pairs in two threads it keeps are not
//! listed: a global that every module's code updates has stores times
//! loads of them (a 50 KLoC program: 2.9 million for one counter), and
//! the diff needs only those whose image can change (`rules/diff1.dl`).
//! Here: the MayRf count from the parts, and MayRf listed (the `sync1`
//! program, staged on the parts' run) when ranks 2 and 3 need it.

use super::{programs, Engine};
use crate::datalog::RowsByName;
use crate::facts::FactSet;

/// One version's MayRf in two parts, with the accesses and their threads
/// (`rf_write_in`, `rf_read_in`) the diff rules enumerate pairs from.
#[derive(Debug, Clone, Default)]
pub(crate) struct RfParts {
    /// `rf_may_local(w, r)`: the edges in one thread.
    pub local: Vec<(u32, u32)>,
    /// `rf_cross_out(w, r)`: the pairs in two threads MayRf leaves out.
    pub cross_out: Vec<(u32, u32)>,
    /// `rf_write_in(w, v, t)`: store `w` to location `v`, in thread `t`.
    pub write_in: Vec<(u32, u32, u32)>,
    /// `rf_read_in(r, v, t)`: load `r` of location `v`, in thread `t`.
    pub read_in: Vec<(u32, u32, u32)>,
}

impl RfParts {
    /// The size of MayRf: the pairs in two threads, less those left out,
    /// plus the edges in one thread (`rf_cross_out` holds only pairs in two
    /// threads, and no pair is in one thread and in two).
    pub fn may_rf_count(&self) -> usize {
        cross_thread_pairs(&self.write_in, &self.read_in) - self.cross_out.len() + self.local.len()
    }
}

/// The distinct pairs `(w, r)` of a store and a load of a common location
/// in two threads. Counted, not listed: one pass over the pairs with a
/// stamp per load, so a pair sharing several locations counts once.
fn cross_thread_pairs(write_in: &[(u32, u32, u32)], read_in: &[(u32, u32, u32)]) -> usize {
    let mut reads_of: rustc_hash::FxHashMap<u32, Vec<(u32, u32)>> = Default::default();
    for &(r, v, t) in read_in {
        reads_of.entry(v).or_default().push((r, t));
    }
    let slots = read_in.iter().map(|&(r, _, _)| r as usize + 1).max();
    // stamp[r]: the last store that counted load r (no statement id is
    // u32::MAX); the stores taken in order, each store's rows together
    let mut stamp = vec![u32::MAX; slots.unwrap_or(0)];
    let mut writes = write_in.to_vec();
    writes.sort_unstable();
    let mut count = 0;
    for (w, v, t) in writes {
        for &(r, t2) in reads_of.get(&v).into_iter().flatten() {
            if t2 != t && stamp[r as usize] != w {
                stamp[r as usize] = w;
                count += 1;
            }
        }
    }
    count
}

/// A version's `sync1_core` outputs by relation name, kept from rank 1
/// for the ranks after it.
pub(crate) type LayerRows = Box<dyn Fn(&str) -> Option<Vec<Vec<u32>>> + Send + Sync>;

/// MayRf listed: the `sync1` program (rules/rf_may.dl, staged on
/// `sync1_core`) over `facts` and the rows `core` holds, as its outputs by
/// name, so that ranks 2 and 3 can join edges. Only they pay for the list.
pub(crate) fn rf_may_stage(engine: Engine, facts: &FactSet, core: &LayerRows) -> LayerRows {
    macro_rules! staged {
        ($e:path) => {{
            use $e as e;
            let carried: RowsByName = e::INPUT_RELATIONS
                .iter()
                .filter(|(name, _)| !facts.relations.contains_key(*name))
                .filter_map(|(name, _)| Some((name.to_string(), core(name)?)))
                .collect();
            let input = crate::datalog::fill_input!(e, facts, carried & carried);
            let out = e::run(&input);
            let rows: LayerRows = Box::new(move |name: &str| out.rows(name));
            rows
        }};
    }
    match engine {
        Engine::Ascent => staged!(programs::sync1::ascent),
        #[cfg(feature = "reference-engine")]
        Engine::Crepe => staged!(programs::sync1::crepe::engine),
    }
}

/// A stage's outputs in front of the layers it was staged on.
pub(crate) fn chained(stage: LayerRows, core: LayerRows) -> LayerRows {
    Box::new(move |name: &str| stage(name).or_else(|| core(name)))
}

#[cfg(test)]
mod tests {
    use super::cross_thread_pairs;

    #[test]
    fn pairs_in_two_threads_count_once_however_many_locations_they_share() {
        // store 0 (thread 1) writes locations 7 and 8; load 5 (thread 2)
        // reads both, load 6 (thread 1) reads 7: one pair in two threads
        let writes = [(0, 7, 1), (0, 8, 1), (3, 8, 2)];
        let reads = [(5, 7, 2), (5, 8, 2), (6, 7, 1), (6, 8, 1)];
        // (0, 5) once; (3, 6) by location 8; (0, 6) and (3, 5) share a thread
        assert_eq!(cross_thread_pairs(&writes, &reads), 2);
        assert_eq!(cross_thread_pairs(&[], &reads), 0);
    }
}
