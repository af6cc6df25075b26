//! Forward closure of the slice's dependences: the instructions whose
//! value, memory or execution may depend on a set of sources. The
//! diff-directed slice uses it to tell the findings a patch can reach
//! (full criteria) from those it cannot (decided by OLD's verdict).
//!
//! Every edge is the converse of one the backward closure follows
//! (`Slice::compute_with`): SSA uses, flow-insensitive memory (a store to
//! every load of the same global or local, or to every load when either
//! address is not one), control dependence, a callee's returns to its call
//! sites, and a call site (or thread start) to all of its callee, whose
//! execution it decides.

use super::{mem_of, operands_of, read_address, successor_lists, successors, Id, Mem};
use crate::calls;
use llvm_ir::{Function, Instruction, Module, Name, Operand, Terminator};
use std::collections::{HashMap, HashSet};

/// The tables `Slice::compute_with` built, borrowed.
pub(super) struct Graph<'a> {
    pub(super) m: &'a Module,
    pub(super) defs: &'a [HashMap<Name, Id>],
    pub(super) cd: &'a [HashMap<usize, Vec<usize>>],
    pub(super) call_sites: &'a HashMap<usize, Vec<Id>>,
    pub(super) stores: &'a [(Id, Mem)],
    pub(super) call_reads: &'a HashMap<Id, Vec<Mem>>,
    pub(super) globals: &'a HashSet<&'a Name>,
    pub(super) allocas: &'a [HashSet<Name>],
}

impl Graph<'_> {
    /// Every instruction (and parameter node `(f, usize::MAX, 0)`) that
    /// may depend on one of `sources`, the sources included.
    pub(super) fn forward(&self, sources: impl Iterator<Item = Id>) -> HashSet<Id> {
        let m = self.m;
        // Converse tables: SSA users, loads by memory, controlled blocks,
        // callees of each call site.
        let mut users: HashMap<Id, Vec<Id>> = HashMap::new();
        let mut loads: HashMap<Mem, Vec<Id>> = HashMap::new();
        let mut controlled: Vec<HashMap<usize, Vec<usize>>> = Vec::new();
        let mut failing: Vec<Vec<bool>> = Vec::new();
        for (fi, f) in m.functions.iter().enumerate() {
            failing.push(violation_only(f));
            for (bi, b) in f.basic_blocks.iter().enumerate() {
                for ii in 0..=b.instrs.len() {
                    for o in operands_of(f, bi, ii) {
                        if let Operand::LocalOperand { name, .. } = o {
                            if let Some(d) = self.defs[fi].get(name) {
                                users.entry(*d).or_default().push((fi, bi, ii));
                            }
                        }
                    }
                    if let Some(address) = b.instrs.get(ii).and_then(read_address) {
                        let lm = mem_of(address, self.globals, Some((fi, &self.allocas[fi])));
                        loads.entry(lm).or_default().push((fi, bi, ii));
                    }
                }
            }
            let mut c: HashMap<usize, Vec<usize>> = HashMap::new();
            for (b, deps) in &self.cd[fi] {
                for a in deps {
                    c.entry(*a).or_default().push(*b);
                }
            }
            controlled.push(c);
        }
        for (id, mems) in self.call_reads {
            for lm in mems {
                loads.entry(lm.clone()).or_default().push(*id);
            }
        }
        let mut callees: HashMap<Id, Vec<usize>> = HashMap::new();
        for (t, sites) in self.call_sites {
            for s in sites {
                callees.entry(*s).or_default().push(*t);
            }
        }
        let store_mem: HashMap<Id, &Mem> = self.stores.iter().map(|(id, sm)| (*id, sm)).collect();
        let mut loads_pushed: HashSet<Mem> = HashSet::new();

        let mut seen: HashSet<Id> = HashSet::new();
        let mut entered: HashSet<usize> = HashSet::new();
        let mut work: Vec<Id> = sources.collect();
        while let Some(id) = work.pop() {
            if !seen.insert(id) {
                continue;
            }
            let (fi, bi, ii) = id;
            work.extend(users.get(&id).into_iter().flatten().copied());
            if bi == usize::MAX {
                continue;
            }
            let f = &m.functions[fi];
            let b = &f.basic_blocks[bi];
            // each memory's loads are pushed once (many stores share it)
            if let Some(sm) = store_mem.get(&id) {
                let reached: Vec<&Mem> = match sm {
                    Mem::Any => loads.keys().collect(),
                    _ => vec![*sm, &Mem::Any],
                };
                for lm in reached {
                    if loads_pushed.insert(lm.clone()) {
                        work.extend(loads.get(lm).into_iter().flatten().copied());
                    }
                }
            }
            for t in callees.get(&id).into_iter().flatten() {
                if entered.insert(*t) {
                    work.extend(all_of(&m.functions[*t], *t));
                }
            }
            if ii < b.instrs.len() {
                continue;
            }
            // A terminator: the blocks it controls, the phis of its
            // successors, and (a return) the call sites of its function.
            // A branch whose every side but one ends in a violation only
            // decides whether the run goes on: the code after it is not
            // reached by what the condition depends on (a run that fails
            // there is reported; docs/symex.md, "Diff-directed mode").
            let succ = successors(f, &b.term);
            let going_on = succ.iter().filter(|s| !failing[fi][**s]).count();
            for cb in controlled[fi].get(&bi).into_iter().flatten() {
                if going_on > 1 || failing[fi][*cb] {
                    work.extend(block_of(f, fi, *cb));
                }
            }
            for s in succ {
                for (k, i) in f.basic_blocks[s].instrs.iter().enumerate() {
                    if matches!(i, Instruction::Phi(_)) {
                        work.push((fi, s, k));
                    }
                }
            }
            if let Terminator::Ret(_) = b.term {
                work.extend(self.call_sites.get(&fi).into_iter().flatten().copied());
            }
        }
        seen
    }
}

/// Per block: does every path from it end in a violation (an error call
/// or `abort`, then `unreachable`), never returning nor ending otherwise?
fn violation_only(f: &Function) -> Vec<bool> {
    let n = f.basic_blocks.len();
    let succ: Vec<Vec<usize>> = successor_lists(f);
    let fails_here = |b: &llvm_ir::BasicBlock| {
        matches!(b.term, Terminator::Unreachable(_))
            && b.instrs.iter().rev().find_map(|i| match i {
                Instruction::Call(c) => crate::ir::callee_name(c)
                    .filter(|n| !n.starts_with("llvm.dbg."))
                    .map(|n| n == "abort" || calls::role(n) == calls::Role::AssertFail),
                _ => None,
            }) == Some(true)
    };
    // Least fixpoint: a loop that never ends is no violation.
    let mut out: Vec<bool> = f.basic_blocks.iter().map(fails_here).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            if !out[b] && !succ[b].is_empty() && succ[b].iter().all(|s| out[*s]) {
                out[b] = true;
                changed = true;
            }
        }
    }
    out
}

/// The instructions and terminator of block `bi` of function `fi`.
fn block_of(f: &Function, fi: usize, bi: usize) -> impl Iterator<Item = Id> {
    (0..=f.basic_blocks[bi].instrs.len()).map(move |ii| (fi, bi, ii))
}

/// Every instruction of function `fi`, and its parameter node.
fn all_of(f: &Function, fi: usize) -> Vec<Id> {
    let mut out: Vec<Id> = (0..f.basic_blocks.len())
        .flat_map(|bi| block_of(f, fi, bi))
        .collect();
    out.push((fi, usize::MAX, 0));
    out
}
