//! Interference-bounded exploration (con2colic, `--max-interferences K`).
//!
//! An *interference* is a read of a shared byte whose last write was made
//! by another thread (a cross-thread read-from edge).  Each committed
//! transition counts the ones it performed; a path whose count exceeds K
//! ends after that transition (counted in `interference_cut_runs`).  The
//! executor only creates read-from edges that happen, so every one it
//! tries is allowed by `rf_may` when the rules are sound.

use super::*;

/// Bytes of one access considered at most (whole-object accesses of
/// memcpy-like calls are counted on their first bytes).
const MAX_BYTES: u64 = 4096;

impl<'c, 'm> Engine<'c, 'm> {
    /// Count the interferences of thread `tid`'s transition and record its
    /// writes.
    pub(crate) fn count_interferences(&mut self, st: &mut State<'c>, tid: usize, acc: &[Access]) {
        if self.opts.max_interferences.is_none() {
            return;
        }
        for a in acc.iter().filter(|a| !a.write) {
            if let Res::Mem(o, lo, hi) = a.res {
                let other = (lo..hi.min(lo + MAX_BYTES))
                    .any(|b| st.writers.get(&(o, b)).is_some_and(|w| *w != tid));
                if other {
                    st.interferences += 1;
                }
            }
        }
        for a in acc.iter().filter(|a| a.write) {
            if let Res::Mem(o, lo, hi) = a.res {
                for b in lo..hi.min(lo + MAX_BYTES) {
                    st.writers.insert((o, b), tid);
                }
            }
        }
    }

    /// Interferences of the path including the reads of `tid`'s
    /// transition in progress (a finding inside it reports them too).
    pub(crate) fn interferences_so_far(&self, st: &State<'c>, tid: usize) -> u32 {
        let pending = st
            .tr_acc
            .iter()
            .filter(|a| !a.write)
            .filter(|a| match a.res {
                Res::Mem(o, lo, hi) => (lo..hi.min(lo + MAX_BYTES))
                    .any(|b| st.writers.get(&(o, b)).is_some_and(|w| *w != tid)),
                _ => false,
            })
            .count();
        st.interferences + pending as u32
    }

    /// Does the path exceed the bound?  (Then it ends here.)
    pub(crate) fn interference_bound_hit(&mut self, st: &State<'c>) -> bool {
        match self.opts.max_interferences {
            Some(k) if st.interferences > k => {
                self.stats.interference_cut_runs += 1;
                self.directed_end(st, crate::symex::directed::PathEnd::Cut);
                true
            }
            _ => false,
        }
    }
}
