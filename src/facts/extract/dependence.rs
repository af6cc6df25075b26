//! Dependence the IR states directly: SSA def-use (followed through
//! parameters to call sites and thread creation), call arguments, and the
//! control a call or create has over its callee's entry region.

use super::ir;
use super::program::{ProgramModel, StmtId};
use llvm_ir::terminator::Terminator as T;
use llvm_ir::Operand;
use rustc_hash::FxHashSet as HashSet;
use std::collections::BTreeSet;

/// The statement that defines an operand's value, following parameters
/// back through call sites and thread creation.
pub(super) fn defining_stmt(
    model: &ProgramModel<'_>,
    finst: usize,
    op: &Operand,
) -> Option<StmtId> {
    let Operand::LocalOperand { name, .. } = op else {
        return None;
    };
    if let Some(&d) = model.finsts[finst].defs.get(name) {
        return Some(d);
    }
    let func = model.func(finst);
    let index = func.parameters.iter().position(|p| &p.name == name)?;
    let (caller_finst, arg) = model.argument_of_parameter(finst, index)?;
    defining_stmt(model, caller_finst, arg)
}

pub(super) fn ssa_dependence(model: &ProgramModel<'_>) -> BTreeSet<(StmtId, StmtId)> {
    let mut out = BTreeSet::new();
    for s in 0..model.stmts.len() as StmtId {
        out.extend(definitions_used(model, s).into_iter().map(|d| (d, s)));
    }
    out
}

/// The statements whose values statement `s` uses: its operands'
/// definitions and, for a call, the callee's returns of a value.
pub(super) fn definitions_used(model: &ProgramModel<'_>, s: StmtId) -> Vec<StmtId> {
    let mut out = Vec::new();
    let Some(finst) = model.finst_of(s) else {
        return out;
    };
    let ops: Vec<&Operand> = match (model.instr(s), model.term(s)) {
        (Some(i), _) => ir::instr_operands(i),
        (_, Some(t)) => ir::term_operands(t),
        _ => vec![],
    };
    out.extend(
        ops.into_iter()
            .filter_map(|op| defining_stmt(model, finst, op)),
    );
    for &callee in model.callee_of.get(&s).into_iter().flatten() {
        for r in model.returns_of(callee) {
            if let Some(T::Ret(ret)) = model.term(r) {
                if ret.return_operand.is_some() {
                    out.push(r);
                }
            }
        }
    }
    out
}

pub(super) fn call_arguments(model: &ProgramModel<'_>) -> Vec<(StmtId, u32, StmtId)> {
    let mut out = Vec::new();
    for s in 0..model.stmts.len() as StmtId {
        let (Some(call), Some(finst)) = (model.call(s), model.finst_of(s)) else {
            continue;
        };
        for (i, (a, _)) in call.arguments.iter().enumerate() {
            if let Some(d) = defining_stmt(model, finst, a) {
                out.push((s, i as u32, d));
            }
        }
    }
    out
}

/// A call (or create) controls the statements of its callee's entry region:
/// those that depend on no branch inside the callee. Only statements `wanted`
/// are added (`control` must hold every branch dependence of those).
pub(super) fn add_call_site_dependence(
    model: &ProgramModel<'_>,
    control: &mut BTreeSet<(StmtId, StmtId)>,
    wanted: impl Fn(StmtId) -> bool,
) {
    let finst_stmts =
        |f: usize| -> Vec<StmtId> { model.finsts[f].blocks.iter().flatten().copied().collect() };
    let mut extra = Vec::new();
    let mut callers: Vec<(StmtId, usize)> = model
        .callee_of
        .iter()
        .flat_map(|(&c, fs)| fs.iter().map(move |&f| (c, f)))
        .collect();
    for t in model.threads.iter().skip(1) {
        if let Some(c) = t.create_stmt {
            callers.push((c, t.entry));
        }
    }
    // Statements that depend on a branch of their own function instance.
    let controlled_inside: HashSet<StmtId> = control
        .iter()
        .filter(|&&(b, x)| model.finst_of(b) == model.finst_of(x))
        .map(|&(_, x)| x)
        .collect();
    for (call, f) in callers {
        for s in finst_stmts(f) {
            if wanted(s) && !controlled_inside.contains(&s) {
                extra.push((call, s));
            }
        }
    }
    control.extend(extra);
}
