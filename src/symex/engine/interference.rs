//! Interference-bounded exploration (con2colic, `--max-interferences K`).
//!
//! An *interference* is a read of a shared byte whose last write was made
//! by another thread (a cross-thread read-from edge).  Each committed
//! transition counts the ones it performed; a path whose count exceeds K
//! ends after that transition (counted in `interference_cut_runs`).
//!
//! With `rf_may` (the read-from rules' answer, as instruction pairs), only
//! the interferences it allows are tried: a path whose transition reads a
//! value written by another thread at an instruction pair `rf_may` does not
//! list ends there (`rf_disallowed_runs`; the verdict cannot be
//! `verified`).  The pair is the transition's visible instructions (an
//! atomic section has several: any of them may be the one).

use super::directed::PathEnd;
use super::notes::Note;
use super::state::State;
use super::transitions::{Access, Res};
use super::Engine;
use crate::symex::slice::InstrId;
use std::collections::HashSet;
use std::rc::Rc;

/// `rf_may` as instruction pairs (write, read) of the module explored.
#[derive(Clone, Debug, Default)]
pub struct RfMay {
    pub pairs: HashSet<(InstrId, InstrId)>,
    /// Loads and stores the rules see: an access by any other instruction
    /// (a library model, an atomic operation) is not judged.
    pub known: HashSet<InstrId>,
}

/// Bytes of one access considered at most (whole-object accesses of
/// memcpy-like calls are counted on their first bytes).
const MAX_BYTES: u64 = 4096;

impl<'c, 'm> Engine<'c, 'm> {
    /// Thread `tid` performs a visible operation: remember where (only
    /// needed to check interferences against `rf_may`).
    pub(super) fn note_visible_at(&self, st: &mut State<'c>, tid: usize) {
        let rf_checked = self.opts.max_interferences.is_some() && self.opts.rf_may.is_some();
        if !rf_checked && !self.diff_wants_sites() && !self.opts.rf_classes {
            return;
        }
        if let Some(fr) = st.threads[tid].frames.last() {
            st.tr_at.push((fr.f, fr.bb, fr.ip));
        }
    }

    /// Count the interferences of thread `tid`'s transition and record its
    /// writes.
    pub(super) fn count_interferences(&mut self, st: &mut State<'c>, tid: usize, acc: &[Access]) {
        if self.opts.max_interferences.is_none() {
            return;
        }
        let at = Rc::new(std::mem::take(&mut st.tr_at));
        for a in acc.iter().filter(|a| !a.write) {
            if let Res::Mem(o, lo, hi) = a.res {
                let other = (lo..hi.min(lo + MAX_BYTES))
                    .filter_map(|b| st.writers.get(&(o, b)))
                    .find(|(w, _)| *w != tid);
                if let Some((_, wat)) = other {
                    st.interferences += 1;
                    if let Some(rf) = &self.opts.rf_may {
                        if !rf.allows(wat, &at) {
                            if self.debug {
                                self.note(Note::Debug(format!(
                                    "interference not in rf_may: {wat:?} -> {at:?}"
                                )));
                            }
                            st.rf_disallowed = true;
                        }
                    }
                }
            }
        }
        for a in acc.iter().filter(|a| a.write) {
            if let Res::Mem(o, lo, hi) = a.res {
                for b in lo..hi.min(lo + MAX_BYTES) {
                    st.writers.insert((o, b), (tid, at.clone()));
                }
            }
        }
    }

    /// Interferences of the path including the reads of `tid`'s
    /// transition in progress (a finding inside it reports them too).
    pub(super) fn interferences_so_far(&self, st: &State<'c>, tid: usize) -> u32 {
        let pending = st
            .tr_acc
            .iter()
            .filter(|a| !a.write)
            .filter(|a| match a.res {
                Res::Mem(o, lo, hi) => (lo..hi.min(lo + MAX_BYTES))
                    .any(|b| st.writers.get(&(o, b)).is_some_and(|(w, _)| *w != tid)),
                _ => false,
            })
            .count();
        st.interferences + pending as u32
    }

    /// Does the path exceed the bound, or make an interference `rf_may`
    /// does not allow?  (Then it ends here.)
    pub(super) fn interference_bound_hit(&mut self, st: &State<'c>) -> bool {
        let over = match self.opts.max_interferences {
            Some(k) if st.interferences > k => {
                self.stats.interference_cut_runs += 1;
                true
            }
            Some(_) if st.rf_disallowed => {
                self.stats.rf_disallowed_runs += 1;
                true
            }
            _ => false,
        };
        if over {
            self.directed_end(st, PathEnd::Cut);
        }
        over
    }
}
