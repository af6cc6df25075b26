//! The order in which a scheduling node tries its enabled threads.
//!
//! The complete search uses one order ([`ThreadOrder::default`]: threads
//! that have not run yet, then round robin).  The first pass
//! (`crate::symex::first_pass`) tries a few short searches under other
//! orders before it, each of which makes a different kind of interleaving
//! the first run: the order only decides which run comes first, never
//! which runs exist.
//!
//! *Checks* are the loads whose value decides, within their function,
//! whether an assertion fails (backward over SSA operands from the
//! conditions of the branches an error call is control dependent on and
//! from the arguments of `__VERIFIER_assert`), and the
//! `__VERIFIER_atomic_begin` calls that open a section containing one.

use super::state::State;
use super::Engine;
use crate::calls::{self, Role};
use crate::ir::{callee_name, instr_operands};
use llvm_ir::instruction::Phi;
use llvm_ir::{Instruction, Module, Name, Operand, Terminator};
use std::collections::{HashMap, HashSet};

/// Which thread a scheduling node tries first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadOrder {
    pub base: BaseOrder,
    /// The thread whose last transition only read (or touched nothing
    /// shared) keeps running: a read-modify-write made of plain loads and
    /// a store is not split by the order.
    pub keep_reading: bool,
    /// A thread about to evaluate a check waits until no other thread can
    /// move: checks see the effects of as much as possible.
    pub checks_last: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BaseOrder {
    /// Threads that have not run yet first, then round robin from the
    /// thread after the one that ran last.
    #[default]
    RoundRobin,
    /// The thread that ran least recently first (never run: first of all).
    LeastRecent,
}

/// Instructions that start a check, per (function, block, instruction).
pub(super) type CheckPoints = HashSet<(usize, usize, usize)>;

impl<'c, 'm> Engine<'c, 'm> {
    /// `enabled` in the order the node tries them.
    pub(super) fn thread_order(&self, st: &State<'c>, enabled: &[usize]) -> Vec<usize> {
        let how = self.opts.thread_order;
        let mut order = enabled.to_vec();
        let Some(&last) = st.sched.last() else {
            return order;
        };
        let n = st.threads.len();
        match how.base {
            BaseOrder::RoundRobin => {
                order.sort_by_key(|&t| (st.sched.contains(&t), (t + n - last - 1) % n))
            }
            BaseOrder::LeastRecent => {
                order.sort_by_key(|&t| (st.sched.iter().rposition(|&u| u == t), t))
            }
        }
        if how.checks_last {
            // Stable: the base order is kept within each group.
            order.sort_by_key(|&t| self.at_check(st, t));
        }
        if how.keep_reading && order.contains(&last) && self.last_transition_only_read(last) {
            let at_check = how.checks_last && self.at_check(st, last);
            if !at_check || order.iter().all(|&t| self.at_check(st, t)) {
                order.retain(|&t| t != last);
                order.insert(0, last);
            }
        }
        order
    }

    /// Did the transition just taken (by `last`) only read?  It is the
    /// newest recorded one (the node being opened has none yet).
    fn last_transition_only_read(&self, last: usize) -> bool {
        match self.nodes.iter().rev().find_map(|n| n.tr.as_ref()) {
            Some(tr) => tr.tid == last && tr.acc.iter().all(|a| !a.write),
            None => false,
        }
    }

    fn at_check(&self, st: &State<'c>, t: usize) -> bool {
        st.threads[t]
            .frames
            .last()
            .is_some_and(|fr| self.check_points.contains(&(fr.f, fr.bb, fr.ip)))
    }
}

/// The check points of `m` (see the module comment).
pub(super) fn check_points(m: &Module) -> CheckPoints {
    let fidx: HashMap<&str, usize> = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    // Values (per function) whose value decides a check.
    let mut work: Vec<(usize, Operand)> = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        let cd = crate::symex::slice::control_deps(f);
        for (bi, b) in f.basic_blocks.iter().enumerate() {
            let mut fails = matches!(b.term, Terminator::Unreachable(_));
            for i in &b.instrs {
                if let Instruction::Call(c) = i {
                    let name = callee_name(c).unwrap_or_default();
                    if calls::role(name) == Role::AssertFail || name == "abort" {
                        fails = true;
                    }
                    if name == "__VERIFIER_assert" {
                        work.extend(c.arguments.iter().map(|a| (fi, a.0.clone())));
                    }
                }
            }
            if fails {
                for a in cd.get(&bi).into_iter().flatten() {
                    work.extend(condition(&f.basic_blocks[*a].term).map(|o| (fi, o)));
                }
            }
        }
    }
    let defs: Vec<HashMap<&Name, (usize, usize)>> = m
        .functions
        .iter()
        .map(|f| {
            let mut d = HashMap::new();
            for (bi, b) in f.basic_blocks.iter().enumerate() {
                for (ii, i) in b.instrs.iter().enumerate() {
                    if let Some(n) = i.try_get_result() {
                        d.insert(n, (bi, ii));
                    }
                }
            }
            d
        })
        .collect();
    let mut seen: HashSet<(usize, Name)> = HashSet::new();
    let mut loads: CheckPoints = HashSet::new();
    while let Some((fi, op)) = work.pop() {
        let Operand::LocalOperand { name, .. } = op else {
            continue;
        };
        if !seen.insert((fi, name.clone())) {
            continue;
        }
        let f = &m.functions[fi];
        let Some(&(bi, ii)) = defs[fi].get(&name) else {
            // A parameter: the arguments of every direct call decide it.
            if let Some(k) = f.parameters.iter().position(|p| p.name == name) {
                work.extend(call_arguments(m, &fidx, fi, k));
            }
            continue;
        };
        let i = &f.basic_blocks[bi].instrs[ii];
        match i {
            Instruction::Load(_) => {
                loads.insert((fi, bi, ii));
            }
            Instruction::Phi(Phi {
                incoming_values, ..
            }) => {
                // Which value arrives is decided by the branches into
                // the phi (`a || b`).
                for (v, from) in incoming_values {
                    work.push((fi, v.clone()));
                    if let Some(pb) = f.basic_blocks.iter().position(|b| &b.name == from) {
                        work.extend(condition(&f.basic_blocks[pb].term).map(|o| (fi, o)));
                    }
                }
            }
            _ => work.extend(instr_operands(i).into_iter().map(|o| (fi, o.clone()))),
        }
    }
    let mut points = loads.clone();
    // An atomic section that evaluates a check starts the check.
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.basic_blocks.iter().enumerate() {
            let mut open: Option<usize> = None;
            for (ii, i) in b.instrs.iter().enumerate() {
                if let Instruction::Call(c) = i {
                    match callee_name(c).unwrap_or_default() {
                        "__VERIFIER_atomic_begin" => open = Some(ii),
                        "__VERIFIER_atomic_end" => open = None,
                        _ => {}
                    }
                }
                if let (Some(begin), true) = (open, loads.contains(&(fi, bi, ii))) {
                    points.insert((fi, bi, begin));
                }
            }
        }
    }
    points
}

fn condition(t: &Terminator) -> Option<Operand> {
    match t {
        Terminator::CondBr(b) => Some(b.condition.clone()),
        Terminator::Switch(s) => Some(s.operand.clone()),
        _ => None,
    }
}

/// The `k`-th argument of every direct call of function `callee`.
fn call_arguments(
    m: &Module,
    fidx: &HashMap<&str, usize>,
    callee: usize,
    k: usize,
) -> Vec<(usize, Operand)> {
    let mut out = Vec::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for i in f.basic_blocks.iter().flat_map(|b| b.instrs.iter()) {
            if let Instruction::Call(c) = i {
                let target = callee_name(c).and_then(|n| fidx.get(n));
                if target == Some(&callee) {
                    out.extend(c.arguments.get(k).map(|a| (fi, a.0.clone())));
                }
            }
        }
    }
    out
}
