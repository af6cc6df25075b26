//! mayHb answered from mustHb and the compact program order, without
//! building the relation (rules/hb_may.dl has the definition; across
//! threads it relates almost every pair of events, 40 million on pigz).
//!
//! mayHb(a, b) holds when hb_must(a, b); or a and b run in one thread and b
//! is reachable from a (`po_scc`, `po_scc_reach`); or they run in different
//! threads and not hb_must(b, a).

use super::must_hb::MustHb;
use std::collections::HashMap;

pub struct MayHb<'a> {
    must: &'a MustHb,
}

impl<'a> MayHb<'a> {
    pub fn new(must: &'a MustHb) -> MayHb<'a> {
        MayHb { must }
    }

    /// Whether some execution may run `a` before `b`.
    pub fn holds(&self, a: u32, b: u32) -> bool {
        if self.must.holds(a, b) {
            return true;
        }
        match (self.must.thread(a), self.must.thread(b)) {
            (Some(t), Some(u)) if t == u => self.must.po(a, b),
            (Some(_), Some(_)) => {
                self.must.is_event(a) && self.must.is_event(b) && !self.must.holds(b, a)
            }
            _ => false,
        }
    }

    /// (|mustHb|, |mayHb|) in one walk over the mustHb pairs, without
    /// listing mayHb's pairs. mayHb is the union of
    /// mustHb, P (program-order pairs in one thread) and X (pairs of events
    /// of different threads without hb_must(b, a)); P and X are disjoint,
    /// so |mayHb| = |must| + |P| - |P ∩ must| + |X| - |X ∩ must|, with |P|
    /// from component sizes and |X| from thread sizes and the mustHb pairs.
    pub fn counts(&self, facts: &crate::facts::FactSet) -> (usize, usize) {
        let mut comp_size: HashMap<u32, usize> = HashMap::new();
        let mut thread_size: HashMap<u32, usize> = HashMap::new();
        let threads: HashMap<u32, u32> = facts.rows("stmt_thread").map(|r| (r[0], r[1])).collect();
        for r in facts.rows("po_scc") {
            *comp_size.entry(r[1]).or_default() += 1;
            if let Some(t) = threads.get(&r[0]) {
                *thread_size.entry(*t).or_default() += 1;
            }
        }
        let size = |c: &u32| comp_size.get(c).copied().unwrap_or(0);
        let p: usize = facts
            .rows("po_scc_reach")
            .map(|r| size(&r[0]) * size(&r[1]))
            .sum();
        let events: usize = thread_size.values().sum();
        let cross_all: usize = thread_size.values().map(|n| n * (events - n)).sum();
        let (mut must, mut p_and_must, mut reversed, mut x_and_must) = (0, 0, 0, 0);
        self.must.for_each(|a, b| {
            must += 1;
            let (Some(t), Some(u)) = (self.must.thread(a), self.must.thread(b)) else {
                return;
            };
            if t == u {
                p_and_must += usize::from(self.must.po(a, b));
            } else {
                // the pair (b, a) is outside X
                reversed += 1;
                x_and_must += usize::from(!self.must.holds(b, a));
            }
        });
        (
            must,
            must + p - p_and_must + cross_all - reversed - x_and_must,
        )
    }
}
