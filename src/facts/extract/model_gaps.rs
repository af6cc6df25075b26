//! Blind spots of the model that the other phases leave unnamed, so the
//! coverage account can count them (design.md, "Coverage"; the relations
//! are described in `schema.rs`):
//! - library calls (no body) handed a pointer to possibly shared memory,
//!   whose reads and writes there are not modelled (`library_memory`);
//! - joins matched to no thread instance, which order nothing
//!   (`join_unmatched`);
//! - calls that end a thread or the process, or cancel a thread, after
//!   which the model goes on (`thread_end_call`);
//! - functions handed to a library other than as a function-pointer
//!   argument (in a struct, cast to `void *`), which it may call back but
//!   the model does not (`callback_escape`);
//! - operations of synchronisation primitives the facts do not model
//!   (reader-writer locks, semaphores, barriers, timed locks) and
//!   trylocks, whose critical sections are not modelled
//!   (`sync_unmodelled`).
//!
//! The thread model itself notes the creates it bounds and the calls it
//! does not clone (`ProgramModel::bounded_creates`, `cut_calls`).

use super::accesses::AccessScan;
use super::ir::{self, LibCall};
use super::ir_facts::{is_function_pointer, ObjKind};
use super::paths::resolve;
use super::pointsto::{LocId, PointsTo};
use super::program::{FInstId, ProgramModel, StmtId};
use crate::calls::{self, LibcOp, PthreadOp, Semantics};
use either::Either;
use llvm_ir::instruction::{Call, Instruction as I};
use llvm_ir::types::Type;
use llvm_ir::{Operand, TypeRef};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeSet;

/// Library functions that end the process, beyond those the call table
/// gives exit semantics.
const PROCESS_ENDS: &[&str] = &["_Exit", "quick_exit"];

/// What the model leaves out at these statements.
#[derive(Default)]
pub(super) struct ModelGaps {
    pub(super) library_memory: BTreeSet<StmtId>,
    pub(super) unmatched_joins: BTreeSet<StmtId>,
    pub(super) thread_ends: BTreeSet<StmtId>,
    /// (library call, first statement of the function it may call back,
    /// or the call itself when no thread reaches that function).
    pub(super) escapes: BTreeSet<(StmtId, StmtId)>,
    pub(super) unmodelled_sync: BTreeSet<StmtId>,
}

impl ModelGaps {
    pub(super) fn find(model: &ProgramModel<'_>, pt: &PointsTo, scan: &AccessScan) -> ModelGaps {
        let mut gaps = ModelGaps::default();
        let entry_of = first_entries(model);
        for s in 0..model.stmts.len() as StmtId {
            let (Some(finst), Some(I::Call(call))) = (model.finst_of(s), model.instr(s)) else {
                continue;
            };
            let libraries = library_targets(model, pt, finst, call);
            if libraries.is_empty() {
                continue;
            }
            if libraries.iter().any(|n| unmodelled_sync(n)) {
                gaps.unmodelled_sync.insert(s);
                continue;
            }
            if libraries.iter().any(|n| ends_thread(n)) {
                gaps.thread_ends.insert(s);
                continue;
            }
            if libraries.iter().any(|n| touches_memory(n))
                && shared_argument(model, pt, scan, finst, call)
            {
                gaps.library_memory.insert(s);
            }
            let direct = ir::direct_callee(call).is_some();
            if libraries.iter().any(|n| undescribed(n)) {
                for f in escaped_functions(model, pt, finst, call, direct) {
                    let e = entry_of.get(&f).copied().unwrap_or(s);
                    gaps.escapes.insert((s, e));
                }
            }
        }
        for (j, handle) in &scan.joins {
            let matched = !handle.is_empty()
                && scan.handle_of_create.iter().any(|(create, cells)| {
                    !cells.is_disjoint(handle)
                        && model.children_of.get(create).is_some_and(|c| !c.is_empty())
                });
            if !matched {
                gaps.unmatched_joins.insert(*j);
            }
        }
        gaps
    }
}

/// Per defined function, the first statement of its first model instance.
fn first_entries(model: &ProgramModel<'_>) -> HashMap<usize, StmtId> {
    let mut out: HashMap<usize, StmtId> = HashMap::default();
    for f in &model.finsts {
        let entry = f.blocks[0][0];
        let e = out.entry(f.func).or_insert(entry);
        *e = (*e).min(entry);
    }
    out
}

/// The functions without a body the call may reach, by name: its direct
/// callee when that is declared, not defined, or the declared functions a
/// called pointer may point to (`my_free`, a hook holding `free`). Inline
/// asm and calls of defined functions reach none.
fn library_targets<'m>(
    model: &ProgramModel<'m>,
    pt: &PointsTo,
    finst: FInstId,
    call: &'m Call,
) -> Vec<&'m str> {
    let Either::Right(callee) = &call.function else {
        return Vec::new();
    };
    match ir::direct_callee(call) {
        Some(name) if model.func_by_name(name).is_some() => Vec::new(),
        Some(name) => vec![name],
        None => {
            let mut names: Vec<&str> = pt
                .pointees(model, finst, callee)
                .into_iter()
                .filter_map(
                    |l| match pt.ir.objs[pt.locs[l as usize].obj.site as usize] {
                        ObjKind::Extern(e) => Some(model.module.func_declarations[e].name.as_str()),
                        _ => None,
                    },
                )
                .collect();
            names.sort_unstable();
            names.dedup();
            names
        }
    }
}

/// A library function the call table does not describe (and no intrinsic).
fn undescribed(name: &str) -> bool {
    calls::lookup(name).is_none() && !name.starts_with("llvm.")
}

/// An operation of a synchronisation primitive the facts do not model, or
/// a trylock (which opens no critical section in the facts).
fn unmodelled_sync(name: &str) -> bool {
    matches!(
        ir::classify(name),
        LibCall::UnmodelledSync | LibCall::MutexTrylock
    )
}

/// `pthread_exit`, `exit`, `_exit` (the call table's exits), `_Exit`,
/// `quick_exit` and `pthread_cancel`.
fn ends_thread(name: &str) -> bool {
    matches!(
        calls::semantics(name),
        Some(Semantics::Pthread(PthreadOp::Exit)) | Some(Semantics::Libc(LibcOp::Exit))
    ) || name == calls::THREAD_CANCEL
        || PROCESS_ENDS.contains(&name)
}

/// May a call of `name` read or write program memory the facts do not
/// model? Not the calls the facts model (synchronisation, creates, joins,
/// allocation, memory intrinsics, assertions), the synchronisation
/// objects' own calls (init, destroy) and `free`.
fn touches_memory(name: &str) -> bool {
    if ir::classify(name) != LibCall::Other || name.starts_with("llvm.") {
        return false;
    }
    match calls::lookup(name) {
        Some(model) => {
            !model.footprint.synchronises() && model.semantics != Semantics::Libc(LibcOp::Free)
        }
        None => true,
    }
}

/// Does a pointer argument of the call point to a cell of an object other
/// threads may reach (not a synchronisation object, constant data or code)?
fn shared_argument(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    scan: &AccessScan,
    finst: FInstId,
    call: &Call,
) -> bool {
    let data = |c: LocId| match pt.ir.objs[pt.locs[c as usize].obj.site as usize] {
        ObjKind::Global(g) => !model.module.global_vars[g].is_constant,
        ObjKind::Func(_) | ObjKind::Extern(_) => false,
        ObjKind::Stack(_) | ObjKind::Heap(_) => true,
    };
    call.arguments
        .iter()
        .filter(|(a, _)| is_pointer(model, a))
        .any(|(a, _)| {
            pt.address_cells(model, finst, a)
                .into_iter()
                .any(|c| pt.is_shared(c) && !scan.sync_cells.contains(&c) && data(c))
        })
}

/// Functions handed to the call other than as a function-pointer argument
/// of a library function (those are callbacks the model calls there): a
/// pointer argument that may point to a function (a `void *` cast), or to
/// an object a cell of which may hold one (a struct with a handler).
fn escaped_functions(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    finst: FInstId,
    call: &Call,
    direct: bool,
) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for (a, _) in &call.arguments {
        let ty = model.module.type_of(a);
        // a direct library call's function-pointer arguments are callbacks
        // the model calls there (`external_callback`)
        if !is_pointer(model, a) || (direct && is_function_pointer(&ty)) {
            continue;
        }
        // Functions held in memory count only when the argument's type is a
        // struct with a function-pointer field (`struct sigaction *`): a
        // library handed raw memory that happens to hold functions
        // (`munmap` of a pool of objects with vtables) calls none of them.
        let typed_holder = match ty.as_ref() {
            Type::PointerType { pointee_type, .. } => {
                holds_function_pointer(model.module, pointee_type, HOLDER_DEPTH)
            }
            _ => false,
        };
        for l in pt.pointees(model, finst, a) {
            let obj = pt.locs[l as usize].obj;
            if let ObjKind::Func(f) = pt.ir.objs[obj.site as usize] {
                out.insert(f);
            }
            if typed_holder {
                out.extend(pt.functions_held(obj));
            }
        }
    }
    out
}

/// Arguments that are pointers (an integer argument's points-to set, from
/// integers laundered through memory, says nothing about the call).
fn is_pointer(model: &ProgramModel<'_>, op: &Operand) -> bool {
    matches!(model.module.type_of(op).as_ref(), Type::PointerType { .. })
}

/// How deep `holds_function_pointer` looks into nested structs and arrays.
const HOLDER_DEPTH: usize = 4;

/// Has a value of this type a function-pointer field (in nested structs and
/// arrays, down to `depth` levels)?
fn holds_function_pointer(module: &llvm_ir::Module, ty: &TypeRef, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    match resolve(module, ty).as_ref() {
        Type::StructType { element_types, .. } => element_types
            .iter()
            .any(|t| is_function_pointer(t) || holds_function_pointer(module, t, depth - 1)),
        Type::ArrayType { element_type, .. } => {
            is_function_pointer(element_type)
                || holds_function_pointer(module, element_type, depth - 1)
        }
        _ => false,
    }
}
