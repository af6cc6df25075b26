//! Satisfiability checks along the exploration.
//!
//! The depth-first search asks its queries along one path at a time, so
//! consecutive path conditions share long prefixes.  The solver keeps the
//! conditions of the last query asserted, one push level each; a new query
//! pops back to the prefix it shares with them and asserts only the rest
//! (z3 keeps what it learnt about the shared part).  Results are also
//! cached by (path condition, extra conditions): the same branch is asked
//! again under the same path condition in every interleaving of the other
//! threads' concrete steps.

use super::state::State;
use super::val::Cond;
use super::Engine;
use crate::symex::InputValue;
use std::collections::HashMap;
use std::time::Instant;
use z3::ast::Bool;
use z3::SatResult;

/// Entries kept in the result cache before it is cleared (bounds memory).
const CACHE_MAX: usize = 1 << 16;

/// The solver's assertion stack and the result cache.
#[derive(Default)]
pub(super) struct Incremental<'c> {
    /// Conditions asserted on the solver, one push level each.
    asserted: Vec<Bool<'c>>,
    /// (path condition, extra conditions) → result; `Unknown` is not cached.
    cache: HashMap<Vec<Bool<'c>>, SatResult>,
    /// Queries answered from the cache (`solver_queries` counts the others).
    pub(super) hits: u64,
    /// `CONCORD_SYMEX_NO_INCREMENTAL` set: every query from scratch.
    pub(super) off: bool,
}

impl Incremental<'_> {
    pub(super) fn new() -> Self {
        Incremental {
            off: std::env::var_os("CONCORD_SYMEX_NO_INCREMENTAL").is_some(),
            ..Default::default()
        }
    }
}

impl<'c, 'm> Engine<'c, 'm> {
    // -------------------------------------------------------------- solving

    /// Make the solver's assertions exactly `pcon`: pop back to the shared
    /// prefix, push the rest.
    fn sync_solver(&mut self, pcon: &[Bool<'c>]) {
        let inc = &mut self.inc;
        let shared = inc
            .asserted
            .iter()
            .zip(pcon)
            .take_while(|(a, b)| a == b)
            .count();
        let extra_levels = inc.asserted.len() - shared;
        if extra_levels > 0 {
            self.solver.pop(extra_levels as u32);
            inc.asserted.truncate(shared);
        }
        for c in &pcon[shared..] {
            self.solver.push();
            self.solver.assert(c);
            inc.asserted.push(c.clone());
        }
    }

    pub(super) fn check(&mut self, pcon: &[Bool<'c>], extra: &[Bool<'c>]) -> SatResult {
        if self.inc.off {
            return self.check_from_scratch(pcon, extra);
        }
        let key: Vec<Bool<'c>> = pcon.iter().chain(extra).cloned().collect();
        if let Some(r) = self.inc.cache.get(&key) {
            self.inc.hits += 1;
            return *r;
        }
        self.stats.solver_queries += 1;
        let t = Instant::now();
        self.sync_solver(pcon);
        let r = if extra.is_empty() {
            self.solver.check()
        } else {
            self.solver.push();
            for c in extra {
                self.solver.assert(c);
            }
            let r = self.solver.check();
            self.solver.pop(1);
            r
        };
        self.stats.solver_ms += t.elapsed().as_secs_f64() * 1000.0;
        if r != SatResult::Unknown {
            if self.inc.cache.len() >= CACHE_MAX {
                self.inc.cache.clear();
            }
            self.inc.cache.insert(key, r);
        }
        r
    }

    /// The query as before incremental solving (kept for `bench-symex`'s
    /// A/B measurement, `CONCORD_SYMEX_NO_INCREMENTAL`): a fresh push,
    /// the whole path condition, a pop.
    fn check_from_scratch(&mut self, pcon: &[Bool<'c>], extra: &[Bool<'c>]) -> SatResult {
        self.stats.solver_queries += 1;
        let t = Instant::now();
        self.sync_solver(&[]);
        self.solver.push();
        for c in pcon.iter().chain(extra) {
            self.solver.assert(c);
        }
        let r = self.solver.check();
        self.solver.pop(1);
        self.stats.solver_ms += t.elapsed().as_secs_f64() * 1000.0;
        r
    }

    pub(super) fn may_be(&mut self, pcon: &[Bool<'c>], c: &Cond<'c>) -> bool {
        let c = c.simplify();
        if let Some(b) = c.as_bool() {
            return b;
        }
        self.check(pcon, &[c.bool(self.ctx)]) != SatResult::Unsat
    }

    /// Add a condition to a path condition (nothing when it is true).
    pub(super) fn pc_add(&self, pcon: &mut Vec<Bool<'c>>, c: &Cond<'c>) {
        match c.simplify() {
            Cond::C(true) => {}
            c => pcon.push(c.bool(self.ctx)),
        }
    }

    pub(super) fn model_inputs(&mut self, st: &State<'c>) -> Vec<InputValue> {
        self.sync_solver(&st.pcon);
        let mut out = Vec::new();
        if self.solver.check() == SatResult::Sat {
            if let Some(model) = self.solver.get_model() {
                for (n, v) in &st.inputs {
                    let val = model
                        .eval(&self.zterm(v), true)
                        .and_then(|x| x.as_u64())
                        .unwrap_or(0);
                    out.push(InputValue {
                        name: n.clone(),
                        bits: v.get_size(),
                        value: val,
                    });
                }
            }
        }
        out
    }
}
