//! `--max-interferences K`: explore with the interference bound 0, 1, …,
//! K (con2colic), stopping at the first bound that finds a violation or
//! that never cut a path (then nothing was left out).  Only the
//! cross-thread read-from edges the `rf_may` rules allow are tried
//! ([`RfMay`]).  A bug-finding mode: without a violation the verdict is
//! `inconclusive` unless the last bound never bit.

use super::slice::InstrId;
use super::{explore_with, Exploration, Finding, SymexError, SymexOptions, Verdict};
use crate::facts::FactSet;
use llvm_ir::{Instruction, Module};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

// The engine defines what it checks; built here from the rules.
pub use super::engine::RfMay;

impl RfMay {
    /// `rf_may` of `facts` (the sync1 rules), mapped to `m`'s instructions.
    pub fn of(m: &Module, facts: &FactSet) -> RfMay {
        let rows: Vec<(u32, u32)> =
            crate::datalog::run_program!(sync1, crate::datalog::Engine::Ascent, facts, |out| out
                .rf_may);
        Self::from_statements(m, facts, &rows)
    }

    /// From (write, read) statement pairs of `facts`.
    pub fn from_statements(m: &Module, facts: &FactSet, rows: &[(u32, u32)]) -> RfMay {
        let instrs: HashMap<u32, Vec<InstrId>> = super::incremental::instrs_of_statements(m, facts);
        let mut known = HashSet::new();
        for id in instrs.values().flatten() {
            let b = &m.functions[id.0].basic_blocks[id.1];
            if matches!(
                b.instrs.get(id.2),
                Some(Instruction::Load(_) | Instruction::Store(_))
            ) {
                known.insert(*id);
            }
        }
        let mut pairs = HashSet::new();
        for (w, r) in rows {
            for wi in instrs.get(w).into_iter().flatten() {
                for ri in instrs.get(r).into_iter().flatten() {
                    pairs.insert((*wi, *ri));
                }
            }
        }
        RfMay { pairs, known }
    }

    /// May a read by one of `reads` return a value written by one of
    /// `writes` (the visible instructions of the two transitions)?  An
    /// instruction the rules do not see allows it.
    pub fn allows(&self, writes: &[InstrId], reads: &[InstrId]) -> bool {
        if writes.is_empty()
            || reads.is_empty()
            || writes.iter().chain(reads).any(|i| !self.known.contains(i))
        {
            return true;
        }
        writes
            .iter()
            .any(|w| reads.iter().any(|r| self.pairs.contains(&(*w, *r))))
    }
}

/// Explore `m` under increasing interference bounds up to `k`.
pub fn explore_bounded(
    m: &llvm_ir::Module,
    opts: &SymexOptions,
    k: u32,
    on_finding: &mut dyn FnMut(&Finding, u32),
) -> Result<Exploration, SymexError> {
    let mut last = None;
    for bound in 0..=k {
        let mut o = opts.clone();
        o.max_interferences = Some(bound);
        let x = explore_with(m, &o, on_finding)?;
        let done = x.stats.verdict == Verdict::Violation
            || x.stats.interference_cut_runs == 0
            || x.stats.incomplete;
        last = Some(x);
        if done {
            break;
        }
    }
    Ok(last.expect("at least bound 0"))
}

/// [`explore_bounded`] trying only the interferences `rf_may` allows: the
/// facts of `program` are extracted and the read-from rules run first.
pub fn explore_bounded_program(
    program: &crate::frontend::Program,
    opts: &SymexOptions,
    k: u32,
    on_finding: &mut dyn FnMut(&Finding, u32),
) -> Result<Exploration, SymexError> {
    let facts = crate::facts::extract::extract(program, &Default::default())
        .map_err(|e| SymexError::Other(format!("facts for rf_may: {e}")))?;
    let mut o = opts.clone();
    o.rf_may = Some(Arc::new(RfMay::of(&program.module, &facts)));
    explore_bounded(&program.module, &o, k, on_finding)
}
