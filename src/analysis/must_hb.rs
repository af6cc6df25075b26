//! mustHb answered from its stored parts (rules/hb.dl): program order in
//! compact form and the hub relations `hb_from_hub`, `hb_to_hub`. The diff
//! programs never store the pairs themselves (ten million on pigz); the
//! counts in the report and `--counts` come from here.
//!
//! hb_must(a, b) is program order (a's component reaches b's, a different
//! one), or hb_from_hub(a, b) (a is a hub), or hb_to_hub(a, b) (b is a hub),
//! or hb_to_hub(a, h) and hb_from_hub(h, b) for some hub h.

use crate::facts::FactSet;
use std::collections::{HashMap, HashSet};

/// A set of dense event indices.
#[derive(Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn get(&self, i: usize) -> bool {
        (self.0[i / 64] >> (i % 64)) & 1 == 1
    }
    fn or(&mut self, other: &Bits) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut rest = bits;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let i = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    w * 64 + i
                })
            })
        })
    }
}

pub struct MustHb {
    /// hb events, in dense order, and back.
    events: Vec<u32>,
    index: HashMap<u32, usize>,
    /// Component and thread of each dense event.
    comp: Vec<u32>,
    thread: Vec<Option<u32>>,
    reach: HashSet<(u32, u32)>,
    /// Per dense event: the events after it on a path through a
    /// synchronisation edge (hubs), program order left out.
    sync: Vec<Bits>,
}

impl MustHb {
    /// From one version's facts and its `hb_from_hub` / `hb_to_hub` rows.
    pub fn new(facts: &FactSet, from_hub: &[(u32, u32)], to_hub: &[(u32, u32)]) -> MustHb {
        let mut events = Vec::new();
        let mut comp = Vec::new();
        let mut index = HashMap::new();
        for r in facts.rows("po_scc") {
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(r[0]) {
                e.insert(events.len());
                events.push(r[0]);
                comp.push(r[1]);
            }
        }
        let threads: HashMap<u32, u32> = facts.rows("stmt_thread").map(|r| (r[0], r[1])).collect();
        let thread = events.iter().map(|e| threads.get(e).copied()).collect();
        let reach = facts.rows("po_scc_reach").map(|r| (r[0], r[1])).collect();
        let n = events.len();
        let mut hub_row: HashMap<u32, Bits> = HashMap::new();
        for &(h, b) in from_hub {
            if let Some(&i) = index.get(&b) {
                hub_row.entry(h).or_insert_with(|| Bits::new(n)).set(i);
            }
        }
        let mut sync = vec![Bits::new(n); n];
        for (h, row) in &hub_row {
            if let Some(&i) = index.get(h) {
                sync[i].or(row);
            }
        }
        for &(a, h) in to_hub {
            let (Some(&i), Some(&j)) = (index.get(&a), index.get(&h)) else {
                continue;
            };
            sync[i].set(j);
            if let Some(row) = hub_row.get(&h) {
                sync[i].or(row);
            }
        }
        MustHb {
            events,
            index,
            comp,
            thread,
            reach,
            sync,
        }
    }

    /// Program order on components (`c1` reaches `c2`, loops included).
    pub fn po(&self, a: u32, b: u32) -> bool {
        match (self.index.get(&a), self.index.get(&b)) {
            (Some(&i), Some(&j)) => self.reach.contains(&(self.comp[i], self.comp[j])),
            _ => false,
        }
    }

    pub fn thread(&self, a: u32) -> Option<u32> {
        self.index.get(&a).and_then(|&i| self.thread[i])
    }

    pub fn is_event(&self, a: u32) -> bool {
        self.index.contains_key(&a)
    }

    /// Whether `a` must happen before `b`.
    pub fn holds(&self, a: u32, b: u32) -> bool {
        let (Some(&i), Some(&j)) = (self.index.get(&a), self.index.get(&b)) else {
            return false;
        };
        (self.comp[i] != self.comp[j] && self.reach.contains(&(self.comp[i], self.comp[j])))
            || self.sync[i].get(j)
    }

    /// Every pair, one event's successors at a time (`f(a, b)`).
    pub fn for_each(&self, mut f: impl FnMut(u32, u32)) {
        let mut comp_events: HashMap<u32, Vec<usize>> = HashMap::new();
        for (i, &c) in self.comp.iter().enumerate() {
            comp_events.entry(c).or_default().push(i);
        }
        let mut after: HashMap<u32, Vec<u32>> = HashMap::new();
        for &(c, d) in &self.reach {
            if c != d {
                after.entry(c).or_default().push(d);
            }
        }
        for ((&a, &c), sync) in self.events.iter().zip(&self.comp).zip(&self.sync) {
            let mut row = sync.clone();
            for d in after.get(&c).into_iter().flatten() {
                for &j in &comp_events[d] {
                    row.set(j);
                }
            }
            for j in row.ones() {
                f(a, self.events[j]);
            }
        }
    }
}
