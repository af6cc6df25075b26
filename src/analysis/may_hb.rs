//! mayHb counted from mustHb and the compact program order, without
//! building the relation (rules/hb_may.dl has the definition; across
//! threads it relates almost every pair of events, 40 million on pigz).
//!
//! mayHb(a, b) holds when hb_must(a, b); or a and b run in one thread and b
//! is reachable from a (`po_scc` and the closure of `po_scc_next`); or they run in different
//! threads and not hb_must(b, a).

use super::must_hb::{Bits, MustHb};
use crate::facts::relations::{PoScc, StmtThread};
use rustc_hash::FxHashMap as HashMap;

pub struct MayHb<'a> {
    must: &'a MustHb,
}

impl<'a> MayHb<'a> {
    pub fn new(must: &'a MustHb) -> MayHb<'a> {
        MayHb { must }
    }

    /// (|mustHb|, |mayHb|) in one walk over the mustHb pairs, without
    /// listing mayHb's pairs. mayHb is the union of
    /// mustHb, P (program-order pairs in one thread) and X (pairs of events
    /// of different threads without hb_must(b, a)); P and X are disjoint,
    /// so |mayHb| = |must| + |P| - |P ∩ must| + |X| - |X ∩ must|, with |P|
    /// from component sizes and |X| from thread sizes and the mustHb pairs.
    pub fn counts(&self, facts: &crate::facts::FactSet) -> (usize, usize) {
        let mut thread_size: HashMap<u32, usize> = HashMap::default();
        let threads: HashMap<u32, u32> =
            facts.iter::<StmtThread>().map(|r| (r.s.0, r.t.0)).collect();
        for r in facts.iter::<PoScc>() {
            if let Some(t) = threads.get(&r.s.0) {
                *thread_size.entry(*t).or_default() += 1;
            }
        }
        let p = self.must.po_pair_count();
        let events: usize = thread_size.values().sum();
        let cross_all: usize = thread_size.values().map(|n| n * (events - n)).sum();
        // per thread, its events; and every event that has a thread
        let n = self.must.len();
        let mut in_thread: HashMap<u32, Bits> = HashMap::default();
        let mut threaded = Bits::new(n);
        for i in 0..n {
            if let Some(t) = self.must.thread_of(i) {
                in_thread.entry(t).or_insert_with(|| Bits::new(n)).set(i);
                threaded.set(i);
            }
        }
        let (mut must, mut p_and_must, mut reversed, mut x_and_must) = (0, 0, 0, 0);
        self.must.for_each_row(|i, row, po| {
            must += row.count();
            let Some(same) = self.must.thread_of(i).map(|t| &in_thread[&t]) else {
                return;
            };
            for (w, ((&r, &s), (&p, &th))) in row
                .words()
                .iter()
                .zip(same.words())
                .zip(po.words().iter().zip(threaded.words()))
                .enumerate()
            {
                p_and_must += (r & s & p).count_ones() as usize;
                // pairs (i, j) across threads: (j, i) is outside X
                let mut cross = r & th & !s;
                reversed += cross.count_ones() as usize;
                while cross != 0 {
                    let j = w * 64 + cross.trailing_zeros() as usize;
                    cross &= cross - 1;
                    x_and_must += usize::from(!self.must.holds_dense(j, i));
                }
            }
        });
        (
            must,
            must + p - p_and_must + cross_all - reversed - x_and_must,
        )
    }
}
