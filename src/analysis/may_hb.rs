//! mayHb answered from mustHb and the compact program order, without
//! building the relation (rules/hb_may.dl has the definition; across
//! threads it relates almost every pair of events, 40 million on pigz).
//!
//! mayHb(a, b) holds when hb_must(a, b); or a and b run in one thread and b
//! is reachable from a (`po_scc`, `po_scc_reach`); or they run in different
//! threads and not hb_must(b, a).

use crate::facts::FactSet;
use std::collections::{HashMap, HashSet};

pub struct MayHb {
    /// Component of each hb event (every hb event has one).
    scc: HashMap<u32, u32>,
    reach: HashSet<(u32, u32)>,
    thread: HashMap<u32, u32>,
    must: HashSet<(u32, u32)>,
}

impl MayHb {
    pub fn new(facts: &FactSet, hb_must: &[(u32, u32)]) -> MayHb {
        let scc = facts.rows("po_scc").map(|r| (r[0], r[1])).collect();
        let reach = facts.rows("po_scc_reach").map(|r| (r[0], r[1])).collect();
        let thread = facts.rows("stmt_thread").map(|r| (r[0], r[1])).collect();
        MayHb {
            scc,
            reach,
            thread,
            must: hb_must.iter().copied().collect(),
        }
    }

    fn po(&self, a: u32, b: u32) -> bool {
        match (self.scc.get(&a), self.scc.get(&b)) {
            (Some(&c), Some(&d)) => self.reach.contains(&(c, d)),
            _ => false,
        }
    }

    /// Whether some execution may run `a` before `b`.
    pub fn holds(&self, a: u32, b: u32) -> bool {
        if self.must.contains(&(a, b)) {
            return true;
        }
        match (self.thread.get(&a), self.thread.get(&b)) {
            (Some(t), Some(u)) if t == u => self.po(a, b),
            (Some(_), Some(_)) => {
                self.scc.contains_key(&a)
                    && self.scc.contains_key(&b)
                    && !self.must.contains(&(b, a))
            }
            _ => false,
        }
    }

    /// |mayHb|, counted without listing the pairs. mayHb is the union of
    /// mustHb, P (program-order pairs in one thread) and X (pairs of events
    /// of different threads without hb_must(b, a)); P and X are disjoint,
    /// so |mayHb| = |must| + |P| - |P ∩ must| + |X| - |X ∩ must|, with |P|
    /// from component sizes and |X| from thread sizes and the mustHb rows.
    pub fn count(&self) -> usize {
        let mut comp_size: HashMap<u32, usize> = HashMap::new();
        let mut thread_size: HashMap<u32, usize> = HashMap::new();
        for (s, c) in &self.scc {
            *comp_size.entry(*c).or_default() += 1;
            if let Some(t) = self.thread.get(s) {
                *thread_size.entry(*t).or_default() += 1;
            }
        }
        let size = |c: &u32| comp_size.get(c).copied().unwrap_or(0);
        let p: usize = self.reach.iter().map(|(c, d)| size(c) * size(d)).sum();
        let events: usize = thread_size.values().sum();
        let cross_all: usize = thread_size.values().map(|n| n * (events - n)).sum();
        let (mut p_and_must, mut reversed, mut x_and_must) = (0, 0, 0);
        for &(a, b) in &self.must {
            if !(self.scc.contains_key(&a) && self.scc.contains_key(&b)) {
                continue;
            }
            let (Some(t), Some(u)) = (self.thread.get(&a), self.thread.get(&b)) else {
                continue;
            };
            if t == u {
                p_and_must += usize::from(self.po(a, b));
            } else {
                // the pair (b, a) is outside X
                reversed += 1;
                x_and_must += usize::from(!self.must.contains(&(b, a)));
            }
        }
        self.must.len() + p - p_and_must + cross_all - reversed - x_and_must
    }
}
