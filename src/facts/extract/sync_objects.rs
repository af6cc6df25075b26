//! The object a synchronisation call names, narrowed along the call path
//! of its function instance.
//!
//! Lock wrappers (`possess(lock *bolt) { pthread_mutex_lock(&bolt->mutex); }`)
//! are called with many locks, so the points-to rules, whose contexts are
//! one call site deep, give `bolt` every lock passed at the wrapper's call
//! site in any context of its caller, and the lock call looks ambiguous.
//! The program model clones functions per call path, so each instance of
//! the wrapper knows the call it was cloned for: when the lock operand is
//! a parameter (through field offsets and casts), the objects it may name
//! are the objects of the matching argument at that call, found the same
//! way in the caller's instance (up to the clone depth), and finally read
//! from the points-to rules in the context of the innermost caller whose
//! argument is not a parameter. The wrapper's cells are kept when their
//! object is among those: the field path is the wrapper's own.
//!
//! Sound: every object kept is one the rules allow for the operand, and a
//! value passed as an argument is, in that instance, exactly the argument.

use super::pointsto::{AbsObj, LocId, PointsTo};
use super::program::ProgramModel;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::{Name, Operand};
use std::collections::BTreeSet;

/// How many calls up the path an argument is followed.
const MAX_DEPTH: usize = 8;

/// Cells the object argument `op` of a synchronisation call in instance
/// `finst` may be, narrowed along the call path when that helps.
pub(super) fn sync_object_cells(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    finst: usize,
    op: &Operand,
) -> BTreeSet<LocId> {
    let all = pt.address_cells(model, finst, op);
    if all.len() <= 1 {
        return all;
    }
    let Some(objects) = objects_from_callers(model, pt, finst, op, MAX_DEPTH) else {
        return all;
    };
    let narrowed: BTreeSet<LocId> = all
        .iter()
        .copied()
        .filter(|&c| objects.contains(&pt.locs[c as usize].obj))
        .collect();
    if narrowed.is_empty() {
        all
    } else {
        narrowed
    }
}

/// Where an object operand comes from, seen through field offsets and casts.
enum Origin<'a> {
    /// A parameter of the instance's function (by index).
    Parameter(usize),
    /// A pointer loaded from this address (`pool->have`).
    Loaded(&'a Operand),
}

/// The objects `op` may point into, narrowed along the call path: for a
/// parameter, those of the argument at the call `finst` was cloned for;
/// for a pointer loaded from memory, those stored in the (narrowed)
/// objects it is loaded from. `None` when `op` comes from neither, or the
/// path gives nothing narrower.
fn objects_from_callers(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    finst: usize,
    op: &Operand,
    depth: usize,
) -> Option<BTreeSet<AbsObj>> {
    match origin(model, finst, op)? {
        Origin::Parameter(index) => {
            let (caller, actual) = model.argument_of_parameter(finst, index)?;
            if depth > 0 {
                if let Some(objs) = objects_from_callers(model, pt, caller, actual, depth - 1) {
                    return Some(objs);
                }
            }
            Some(
                pt.pointees(model, caller, actual)
                    .into_iter()
                    .map(|l| pt.locs[l as usize].obj)
                    .collect(),
            )
        }
        // Sound: a value loaded from a cell of these objects is a pointer
        // some store put there (any field of them: a superset).
        Origin::Loaded(address) => {
            let holders = objects_from_callers(model, pt, finst, address, depth)?;
            Some(
                holders
                    .into_iter()
                    .flat_map(|o| pt.objects_stored_in(o))
                    .collect(),
            )
        }
    }
}

/// Where `op` comes from by field offsets and casts only (same object,
/// other place in it): a parameter, or a load.
fn origin<'m>(model: &ProgramModel<'m>, finst: usize, op: &'m Operand) -> Option<Origin<'m>> {
    let func = model.func(finst);
    let mut name: &Name = match op {
        Operand::LocalOperand { name, .. } => name,
        _ => return None,
    };
    // bounded: an SSA chain of casts and offsets is short
    for _ in 0..16 {
        if let Some(i) = func.parameters.iter().position(|p| &p.name == name) {
            return Some(Origin::Parameter(i));
        }
        let def = *model.finsts[finst].defs.get(name)?;
        let next = match model.instr(def)? {
            I::GetElementPtr(g) => &g.address,
            I::BitCast(c) => &c.operand,
            I::AddrSpaceCast(c) => &c.operand,
            I::Load(l) => return Some(Origin::Loaded(&l.address)),
            _ => return None,
        };
        name = match next {
            Operand::LocalOperand { name, .. } => name,
            _ => return None,
        };
    }
    None
}
