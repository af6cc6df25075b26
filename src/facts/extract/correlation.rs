//! Per-object locks by correlation: a lock call whose mutex may be one of
//! several objects (`lock(&l->mutex)`, `l` one of N loggers)
//! still protects the accesses made through the same pointer value
//! (`l->dropped++`), whatever object that value names.
//!
//! Such a call takes a *correlated lock*: one synthetic mutex per shape
//! (the type the pointer points to, and the field path from it to the
//! mutex, possibly through one lock pointer: `space->use`). The synthetic
//! mutex is held, in the critical-section facts, only at the accesses
//! whose address is a field of the very pointer value the lock was taken
//! through (the same SSA value in the same function instance, found after
//! following parameters to their arguments), and at synchronisation calls
//! (for lock order).
//!
//! Why this is sound: two such accesses that touch the same memory do so
//! through pointers to the same object (a field path inside one object
//! cannot reach a field of another object of that type), so they ran
//! holding the same real mutex, that object's. A lock pointer (`space->use`)
//! is only followed when every store to it is through the pointer an
//! allocation call returned (it is set when the object is made) or a
//! global's initial value, so both accesses found the same mutex there.
//! The pointer value must be the one the lock was taken through: a
//! redefinition of it (a loop that picks the next object) ends the
//! synthetic section, as does any unlock or wait that may release one of
//! the real mutexes it stands for. Holding less than the real program
//! holds only adds interleavings (over-reports), never hides one.

use super::accesses::{AccessScan, SyncOp};
use super::ir::{self as irx, LibCall};
use super::pointsto::{LocId, PointsTo};
use super::program::{FInstId, ProgramModel, Site, StmtId};
use crate::facts::relations::IrAllocator;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::{Name, Operand};
use std::collections::{BTreeMap, BTreeSet};

/// A pointer value, as the SSA value of a function instance it was
/// computed in, after following parameters to the arguments they hold.
pub(super) type Base = (FInstId, Name);

/// The shape that names a correlated lock: the type of the object pointer
/// (`%struct.space*`), the fields to a lock pointer that is followed (if
/// any), and the fields to the mutex.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LockShape {
    pub object_type: String,
    pub through: Option<Vec<u64>>,
    pub fields: Vec<u64>,
}

/// The correlated locks of a program and where they are taken.
#[derive(Debug, Default)]
pub(super) struct CorrelatedLocks {
    /// The synthetic mutex ids start here (past every points-to cell).
    pub(super) first_id: LocId,
    pub(super) shapes: Vec<LockShape>,
    /// Each lock or unlock statement of a correlated lock, with the pointer
    /// value it goes through.
    pub(super) base_of: BTreeMap<StmtId, Base>,
    /// Accesses and the pointer value their address is a field of.
    pub(super) access_base: BTreeMap<StmtId, Base>,
    /// Statements that end synthetic sections besides their own unlock:
    /// another release of a real mutex one may stand for, or a
    /// redefinition of the pointer one was taken through.
    pub(super) ends: BTreeMap<StmtId, BTreeSet<LocId>>,
}

impl CorrelatedLocks {
    pub(super) fn is_correlated(&self, m: LocId) -> bool {
        m >= self.first_id
    }

    pub(super) fn shape(&self, m: LocId) -> Option<&LockShape> {
        m.checked_sub(self.first_id)
            .and_then(|k| self.shapes.get(k as usize))
    }

    /// May the synthetic mutex `m`, opened by `acquirers`, count as held at
    /// statement `s`? Only at synchronisation calls and at accesses through
    /// the pointer every acquisition went through.
    pub(super) fn holds_at(
        &self,
        s: StmtId,
        is_sync_call: bool,
        acquirers: &BTreeSet<StmtId>,
    ) -> bool {
        if is_sync_call {
            return true;
        }
        let Some(base) = self.access_base.get(&s) else {
            return false;
        };
        acquirers
            .iter()
            .all(|a| self.base_of.get(a).is_some_and(|b| b == base))
    }
}

/// A lock or unlock call whose mutex may be one of several cells.
pub(super) struct AmbiguousLockCall {
    pub(super) stmt: StmtId,
    pub(super) lock: bool,
    pub(super) cells: BTreeSet<LocId>,
}

/// Give correlated locks to the ambiguous lock and unlock calls that go
/// through a pointer value, and record where their sections end.
pub(super) fn correlate(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    scan: &mut AccessScan,
    ambiguous: &[AmbiguousLockCall],
    releases: &BTreeMap<StmtId, BTreeSet<LocId>>,
) -> CorrelatedLocks {
    let mut out = CorrelatedLocks {
        first_id: pt.locs.len() as LocId,
        ..CorrelatedLocks::default()
    };
    if ambiguous.is_empty() {
        // nothing to correlate: no inverse of the writes, no access walks
        return out;
    }
    let writers = writers_of_cells(scan);
    let mut index: BTreeMap<LockShape, LocId> = BTreeMap::new();
    let mut stands_for: BTreeMap<LocId, BTreeSet<LocId>> = BTreeMap::new();
    let mut roots: BTreeSet<(LocId, Base)> = BTreeSet::new();
    for call in ambiguous {
        let Some(finst) = model.finst_of(call.stmt) else {
            continue;
        };
        let Some(op) = model.call(call.stmt).and_then(|c| c.arguments.first()) else {
            continue;
        };
        let init_only = |load: StmtId| {
            scan.acc.reads.get(&load).is_some_and(|cells| {
                cells.iter().all(|c| {
                    writers
                        .get(c)
                        .into_iter()
                        .flatten()
                        .all(|&w| set_at_creation(model, pt, w))
                })
            })
        };
        let Some((shape, base)) = lock_shape(model, finst, &op.0, &init_only) else {
            continue;
        };
        let next = out.first_id + index.len() as LocId;
        let m = *index.entry(shape).or_insert(next);
        stands_for
            .entry(m)
            .or_default()
            .extend(call.cells.iter().copied());
        roots.insert((m, base.clone()));
        out.base_of.insert(call.stmt, base);
        scan.dropped_sync.remove(&call.stmt);
        scan.sync_cells.insert(m);
        let op = if call.lock {
            SyncOp::Lock(m)
        } else {
            SyncOp::Unlock(m)
        };
        scan.sync.insert(call.stmt, op);
    }
    // ids were handed out in order of first use: list the shapes that way
    let mut by_id: Vec<(LocId, LockShape)> = index.into_iter().map(|(s, m)| (m, s)).collect();
    by_id.sort_unstable_by_key(|(m, _)| *m);
    out.shapes = by_id.into_iter().map(|(_, s)| s).collect();
    if out.shapes.is_empty() {
        return out;
    }
    // A release that may be of a real mutex a synthetic one stands for
    // ends its sections too.
    for (&s, cells) in releases {
        for (&m, real) in &stands_for {
            let own = matches!(scan.sync.get(&s), Some(SyncOp::Unlock(x)) if *x == m);
            if !own && !cells.is_disjoint(real) {
                out.ends.entry(s).or_default().insert(m);
            }
        }
    }
    // A new value of the pointer a synthetic lock was taken through ends it.
    for (m, (finst, name)) in roots {
        let redefined = model.finsts[finst]
            .defs
            .get(&name)
            .copied()
            .or_else(|| model.finsts[finst].blocks.first()?.first().copied());
        if let Some(s) = redefined {
            out.ends.entry(s).or_default().insert(m);
        }
    }
    // Accesses through a pointer value.
    for (&s, _) in scan.acc.reads.iter().chain(scan.acc.writes.iter()) {
        let (Some(finst), Some(instr)) = (model.finst_of(s), model.instr(s)) else {
            continue;
        };
        let address = match instr {
            I::Load(l) => &l.address,
            I::Store(st) => &st.address,
            I::AtomicRMW(a) => &a.address,
            I::CmpXchg(c) => &c.address,
            _ => continue,
        };
        let walk = walk_fields(model, finst, address);
        if let Some(base) = walk.base {
            out.access_base.insert(s, base);
        }
    }
    out
}

/// A pointer followed back through field offsets, casts and parameters.
struct FieldWalk<'m> {
    /// The SSA value reached, if it is one (not a constant).
    base: Option<Base>,
    /// The operand reached, and the instance it belongs to.
    root: (FInstId, &'m Operand),
    /// Field indices from the root to the pointer, outermost first.
    fields: Vec<u64>,
}

/// Follow `op` back through GEPs with constant indices (the first one 0:
/// the same object), casts and parameters, to the value it is a field of.
fn walk_fields<'m>(model: &ProgramModel<'m>, finst: FInstId, op: &'m Operand) -> FieldWalk<'m> {
    let mut fields: Vec<u64> = Vec::new();
    let (mut finst, mut op) = (finst, op);
    // bounded: chains of offsets and casts are short, calls at most the clone depth
    for _ in 0..64 {
        let Operand::LocalOperand { name, .. } = op else {
            break;
        };
        let func = model.func(finst);
        if let Some(i) = func.parameters.iter().position(|p| &p.name == name) {
            match model.argument_of_parameter(finst, i) {
                Some((caller, actual)) => {
                    (finst, op) = (caller, actual);
                    continue;
                }
                None => break,
            }
        }
        let Some(&def) = model.finsts[finst].defs.get(name) else {
            break;
        };
        let next = match model.instr(def) {
            Some(I::GetElementPtr(g)) => match constant_field_path(&g.indices) {
                Some(path) => {
                    fields.splice(0..0, path);
                    &g.address
                }
                None => break,
            },
            Some(I::BitCast(c)) => &c.operand,
            Some(I::AddrSpaceCast(c)) => &c.operand,
            _ => break,
        };
        op = next;
    }
    let base = match op {
        Operand::LocalOperand { name, .. } => Some((finst, name.clone())),
        _ => None,
    };
    FieldWalk {
        base,
        root: (finst, op),
        fields,
    }
}

/// The field indices of a GEP that stays in one object: a first index 0
/// and constant indices after it.
fn constant_field_path(indices: &[Operand]) -> Option<Vec<u64>> {
    let (first, rest) = indices.split_first()?;
    if crate::ir::int_constant(first)?.1 != 0 {
        return None;
    }
    rest.iter()
        .map(|i| crate::ir::int_constant(i).map(|(_, v)| v))
        .collect()
}

/// The shape of the lock a mutex operand names and the pointer value it
/// goes through: through a lock pointer (`space->use`) when every store to
/// that pointer sets it at creation, else the object holding the mutex.
fn lock_shape(
    model: &ProgramModel<'_>,
    finst: FInstId,
    op: &Operand,
    init_only: &dyn Fn(StmtId) -> bool,
) -> Option<(LockShape, Base)> {
    let to_mutex = walk_fields(model, finst, op);
    let (root_finst, root) = to_mutex.root;
    let object_type = |op: &Operand| match op {
        Operand::LocalOperand { ty, .. } => Some(format!("{ty}")),
        _ => None,
    };
    if let Operand::LocalOperand { name, .. } = root {
        let def = model.finsts[root_finst].defs.get(name).copied();
        if let Some((def, I::Load(load))) = def.and_then(|d| Some((d, model.instr(d)?))) {
            let to_pointer = walk_fields(model, root_finst, &load.address);
            if let Some(base) = to_pointer.base.filter(|_| init_only(def)) {
                let shape = LockShape {
                    object_type: object_type(to_pointer.root.1)?,
                    through: Some(to_pointer.fields),
                    fields: to_mutex.fields,
                };
                return Some((shape, base));
            }
        }
    }
    let base = to_mutex.base?;
    let shape = LockShape {
        object_type: object_type(root)?,
        through: None,
        fields: to_mutex.fields,
    };
    Some((shape, base))
}

/// For each cell, the statements that may write it.
fn writers_of_cells(scan: &AccessScan) -> BTreeMap<LocId, Vec<StmtId>> {
    let mut writers: BTreeMap<LocId, Vec<StmtId>> = BTreeMap::new();
    for (&s, cells) in &scan.acc.writes {
        for &c in cells {
            writers.entry(c).or_default().push(s);
        }
    }
    writers
}

/// Is the write `w` a global's initial value, or a store through the
/// pointer an allocation call just returned (the object being made)?
fn set_at_creation(model: &ProgramModel<'_>, pt: &PointsTo, w: StmtId) -> bool {
    if let Site::Init { .. } = model.stmts[w as usize].site {
        return true;
    }
    let (Some(finst), Some(I::Store(st))) = (model.finst_of(w), model.instr(w)) else {
        return false;
    };
    let walk = walk_fields(model, finst, &st.address);
    let Some((f, name)) = walk.base else {
        return false;
    };
    let Some(&def) = model.finsts[f].defs.get(&name) else {
        return false;
    };
    let Some(I::Call(call)) = model.instr(def) else {
        return false;
    };
    match irx::direct_callee(call) {
        Some(callee) => {
            irx::classify(callee) == LibCall::Alloc
                || model
                    .func_by_name(callee)
                    .is_some_and(|g| pt.ir.contains(IrAllocator { f: g as u32 }))
        }
        None => false,
    }
}

/// How a person names a correlated lock: the struct it belongs to and the
/// C member path, `space->use->mutex` (a lock pointer followed) or
/// `logger->mutex` (the mutex inside the object).
pub(super) fn display(
    module: &llvm_ir::Module,
    debug: &super::names::DebugTypes,
    shape: &LockShape,
) -> String {
    let mut ty = shape
        .object_type
        .trim_end_matches('*')
        .trim_start_matches('%')
        .to_string();
    let root = debug
        .get(&ty)
        .map(|s| s.c_name.clone())
        .unwrap_or_else(|| ty.replace('.', " "));
    let mut out = root.strip_prefix("struct ").unwrap_or(&root).to_string();
    // one `->` per pointer followed, `.` between members of one object
    let members = |ty: &mut String, path: &[u64], follow_last: bool| -> String {
        let mut names: Vec<String> = Vec::new();
        for (k, &i) in path.iter().enumerate() {
            names.push(
                debug
                    .get(ty)
                    .and_then(|s| s.fields.get(i as usize).cloned().flatten())
                    .unwrap_or_else(|| i.to_string()),
            );
            let pointer = follow_last && k + 1 == path.len();
            *ty = element_struct(module, ty, i as usize, pointer).unwrap_or_default();
        }
        names.join(".")
    };
    if let Some(through) = &shape.through {
        let part = members(&mut ty, through, true);
        if !part.is_empty() {
            out.push_str("->");
            out.push_str(&part);
        }
    }
    let part = members(&mut ty, &shape.fields, false);
    if !part.is_empty() {
        out.push_str("->");
        out.push_str(&part);
    }
    out
}

/// The named struct type of element `i` of struct `ty` (of what it points
/// to when `pointer` is set).
fn element_struct(module: &llvm_ir::Module, ty: &str, i: usize, pointer: bool) -> Option<String> {
    use llvm_ir::types::{NamedStructDef, Type};
    let Some(NamedStructDef::Defined(t)) = module.types.named_struct_def(ty) else {
        return None;
    };
    let Type::StructType { element_types, .. } = t.as_ref() else {
        return None;
    };
    let mut e = element_types.get(i)?.as_ref();
    if pointer {
        match e {
            Type::PointerType { pointee_type, .. } => e = pointee_type.as_ref(),
            _ => return None,
        }
    }
    match e {
        Type::NamedStructType { name } => Some(name.clone()),
        _ => None,
    }
}
