//! A flow-insensitive, field-sensitive (Andersen-style) points-to analysis
//! over function instances. Abstract objects: each global, each `alloca` of
//! each function instance, each allocation call of each instance. A location
//! is an object plus a path of struct fields and array indices; an index the
//! IR does not fix is `[*]`.
//!
//! Accesses are reported on *cells*: the finest known locations. An access
//! expands to every cell it may touch, so two accesses may alias exactly when
//! they share a cell (`a[*]` touches `a[1]`, `a[2]` and the unnamed elements
//! `a[*]`; `a[1]` touches only `a[1]`).

use super::ir::{self, LibCall};
use super::program::{ProgramModel, Site, StmtId};
use llvm_ir::constant::Constant;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::terminator::Terminator as T;
use llvm_ir::types::{NamedStructDef, Type};
use llvm_ir::{Module, Name, Operand, TypeRef};
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Obj {
    /// Index into `module.global_vars`.
    Global(usize),
    /// The `alloca` statement (one per function instance).
    Stack(StmtId),
    /// The allocating call statement.
    Heap(StmtId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Step {
    Field(u32),
    Index(u64),
    AnyIndex,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub obj: Obj,
    pub path: Vec<Step>,
}

pub type LocId = u32;
pub type PtsSet = BTreeSet<LocId>;

#[derive(Default)]
pub struct PointsTo {
    pub locs: Vec<Loc>,
    index: HashMap<Loc, LocId>,
    values: HashMap<(usize, Name), PtsSet>,
    mem: HashMap<LocId, PtsSet>,
    /// Cells (finest known locations) per object, filled by `finish`.
    cells_of_obj: BTreeMap<Obj, Vec<LocId>>,
}

fn step_index(op: &Operand) -> Option<u64> {
    match op {
        Operand::ConstantOperand(c) => match c.as_ref() {
            Constant::Int { value, .. } => Some(*value),
            _ => None,
        },
        _ => None,
    }
}

fn const_index(c: &Constant) -> Option<u64> {
    match c {
        Constant::Int { value, .. } => Some(*value),
        _ => None,
    }
}

impl PointsTo {
    pub fn intern(&mut self, loc: Loc) -> LocId {
        if let Some(&id) = self.index.get(&loc) {
            return id;
        }
        let id = self.locs.len() as LocId;
        self.index.insert(loc.clone(), id);
        self.locs.push(loc);
        id
    }

    pub fn compute(model: &ProgramModel<'_>) -> PointsTo {
        let mut pt = PointsTo::default();
        pt.seed_globals(model.module);
        // Naive iteration to a fixpoint: the programs concord reads are small,
        // and every transfer only grows sets.
        loop {
            let mut changed = false;
            for s in 0..model.stmts.len() as StmtId {
                changed |= pt.transfer(model, s);
            }
            if !changed {
                break;
            }
        }
        pt.finish();
        pt
    }

    fn seed_globals(&mut self, module: &Module) {
        for (g, var) in module.global_vars.iter().enumerate() {
            let root = self.intern(Loc {
                obj: Obj::Global(g),
                path: vec![],
            });
            if let Some(init) = &var.initializer {
                let mut path = Vec::new();
                self.seed_initializer(module, Obj::Global(g), &mut path, init);
            }
            let _ = root;
        }
    }

    fn seed_initializer(&mut self, module: &Module, obj: Obj, path: &mut Vec<Step>, c: &Constant) {
        match c {
            Constant::Struct { values, .. } => {
                for (i, v) in values.iter().enumerate() {
                    path.push(Step::Field(i as u32));
                    self.seed_initializer(module, obj.clone(), path, v);
                    path.pop();
                }
            }
            Constant::Array { elements, .. } => {
                for (i, v) in elements.iter().enumerate() {
                    path.push(Step::Index(i as u64));
                    self.seed_initializer(module, obj.clone(), path, v);
                    path.pop();
                }
            }
            other => {
                let targets = self.eval_const(module, other);
                if !targets.is_empty() {
                    let cell = self.intern(Loc {
                        obj,
                        path: path.clone(),
                    });
                    self.mem.entry(cell).or_default().extend(targets);
                }
            }
        }
    }

    fn global_index(module: &Module, name: &Name) -> Option<usize> {
        module.global_vars.iter().position(|g| &g.name == name)
    }

    pub fn eval_const(&mut self, module: &Module, c: &Constant) -> PtsSet {
        match c {
            Constant::GlobalReference { name, .. } => match Self::global_index(module, name) {
                Some(g) => PtsSet::from([self.intern(Loc {
                    obj: Obj::Global(g),
                    path: vec![],
                })]),
                None => PtsSet::new(),
            },
            Constant::BitCast(b) => self.eval_const(module, &b.operand),
            Constant::AddrSpaceCast(b) => self.eval_const(module, &b.operand),
            Constant::IntToPtr(b) => self.eval_const(module, &b.operand),
            Constant::PtrToInt(b) => self.eval_const(module, &b.operand),
            Constant::GetElementPtr(g) => {
                let base = self.eval_const(module, &g.address);
                let pointee = match module.type_of(g.address.as_ref()).as_ref() {
                    Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                    _ => return base,
                };
                let idx: Vec<Option<u64>> = g.indices.iter().map(|i| const_index(i)).collect();
                self.apply_gep(module, &base, &pointee, &idx)
            }
            _ => PtsSet::new(),
        }
    }

    fn eval(&mut self, model: &ProgramModel<'_>, finst: usize, op: &Operand) -> PtsSet {
        match op {
            Operand::LocalOperand { name, .. } => self
                .values
                .get(&(finst, name.clone()))
                .cloned()
                .unwrap_or_default(),
            Operand::ConstantOperand(c) => self.eval_const(model.module, c),
            Operand::MetadataOperand => PtsSet::new(),
        }
    }

    fn apply_gep(
        &mut self,
        module: &Module,
        base: &PtsSet,
        source_ty: &TypeRef,
        idx: &[Option<u64>],
    ) -> PtsSet {
        let mut out = PtsSet::new();
        for &b in base {
            let mut loc = self.locs[b as usize].clone();
            // The first index moves the pointer itself, in units of source_ty.
            match idx.first().copied().flatten() {
                Some(0) => {}
                first => {
                    let step = first.map_or(Step::AnyIndex, Step::Index);
                    match loc.path.last_mut() {
                        Some(last @ Step::Index(_)) => {
                            *last = match (*last, step) {
                                (Step::Index(j), Step::Index(k)) => Step::Index(j + k),
                                _ => Step::AnyIndex,
                            }
                        }
                        Some(Step::AnyIndex) => {}
                        _ => loc.path.push(step),
                    }
                }
            }
            let mut ty = source_ty.clone();
            for i in idx.iter().skip(1) {
                let (step, next) = match resolve(module, &ty).as_ref() {
                    Type::StructType { element_types, .. } => {
                        let k = i.unwrap_or(0) as usize;
                        match element_types.get(k) {
                            Some(t) => (Step::Field(k as u32), t.clone()),
                            None => break,
                        }
                    }
                    Type::ArrayType { element_type, .. }
                    | Type::VectorType { element_type, .. } => {
                        (i.map_or(Step::AnyIndex, Step::Index), element_type.clone())
                    }
                    _ => break,
                };
                loc.path.push(step);
                ty = next;
            }
            out.insert(self.intern(loc));
        }
        out
    }

    fn add_value(&mut self, finst: usize, name: &Name, pts: PtsSet) -> bool {
        if pts.is_empty() {
            return false;
        }
        let entry = self.values.entry((finst, name.clone())).or_default();
        let before = entry.len();
        entry.extend(pts);
        entry.len() != before
    }

    fn add_mem(&mut self, cell: LocId, pts: &PtsSet) -> bool {
        if pts.is_empty() {
            return false;
        }
        let entry = self.mem.entry(cell).or_default();
        let before = entry.len();
        entry.extend(pts.iter().copied());
        entry.len() != before
    }

    /// What memory at these locations may hold (including overlapping locations).
    fn load_from(&self, addrs: &PtsSet) -> PtsSet {
        let mut out = PtsSet::new();
        for (&cell, content) in &self.mem {
            if addrs.iter().any(|&a| self.may_overlap(a, cell)) {
                out.extend(content.iter().copied());
            }
        }
        out
    }

    fn may_overlap(&self, a: LocId, b: LocId) -> bool {
        let (la, lb) = (&self.locs[a as usize], &self.locs[b as usize]);
        la.obj == lb.obj
            && la
                .path
                .iter()
                .zip(lb.path.iter())
                .all(|(x, y)| x == y || *x == Step::AnyIndex || *y == Step::AnyIndex)
    }

    /// Bind callee parameters to actual arguments.
    fn bind_params(
        &mut self,
        model: &ProgramModel<'_>,
        caller: usize,
        callee: usize,
        args: &[&Operand],
    ) -> bool {
        let mut changed = false;
        let params: Vec<Name> = model
            .func(callee)
            .parameters
            .iter()
            .map(|p| p.name.clone())
            .collect();
        for (p, a) in params.iter().zip(args) {
            let v = self.eval(model, caller, a);
            changed |= self.add_value(callee, p, v);
        }
        changed
    }

    fn transfer(&mut self, model: &ProgramModel<'_>, s: StmtId) -> bool {
        let Site::Instr { finst, .. } = model.stmts[s as usize].site else {
            if let Some(T::Ret(_)) = model.term(s) {
                return false;
            }
            return false;
        };
        let module = model.module;
        let instr = model.instr(s).expect("instruction site");
        let mut changed = false;
        match instr {
            I::Alloca(a) => {
                let id = self.intern(Loc {
                    obj: Obj::Stack(s),
                    path: vec![],
                });
                changed |= self.add_value(finst, &a.dest, PtsSet::from([id]));
            }
            I::GetElementPtr(g) => {
                let base = self.eval(model, finst, &g.address);
                let idx: Vec<Option<u64>> = g.indices.iter().map(step_index).collect();
                let v = self.apply_gep(module, &base, &g.source_element_type, &idx);
                changed |= self.add_value(finst, &g.dest, v);
            }
            I::BitCast(c) => changed |= self.copy(model, finst, &c.operand, &c.dest),
            I::AddrSpaceCast(c) => changed |= self.copy(model, finst, &c.operand, &c.dest),
            I::IntToPtr(c) => changed |= self.copy(model, finst, &c.operand, &c.dest),
            I::PtrToInt(c) => changed |= self.copy(model, finst, &c.operand, &c.dest),
            I::Freeze(c) => changed |= self.copy(model, finst, &c.operand, &c.dest),
            I::Phi(p) => {
                for (v, _) in &p.incoming_values {
                    changed |= self.copy(model, finst, v, &p.dest);
                }
            }
            I::Select(sel) => {
                changed |= self.copy(model, finst, &sel.true_value, &sel.dest);
                changed |= self.copy(model, finst, &sel.false_value, &sel.dest);
            }
            I::Load(l) => {
                let addrs = self.eval(model, finst, &l.address);
                let v = self.load_from(&addrs);
                changed |= self.add_value(finst, &l.dest, v);
            }
            I::Store(st) => {
                let addrs = self.eval(model, finst, &st.address);
                let v = self.eval(model, finst, &st.value);
                for a in addrs {
                    changed |= self.add_mem(a, &v);
                }
            }
            I::AtomicRMW(r) => {
                let addrs = self.eval(model, finst, &r.address);
                let v = self.eval(model, finst, &r.value);
                let old = self.load_from(&addrs);
                changed |= self.add_value(finst, &r.dest, old);
                for a in addrs {
                    changed |= self.add_mem(a, &v);
                }
            }
            I::CmpXchg(x) => {
                let addrs = self.eval(model, finst, &x.address);
                let v = self.eval(model, finst, &x.replacement);
                for a in addrs {
                    changed |= self.add_mem(a, &v);
                }
            }
            I::Call(call) => {
                let args: Vec<&Operand> = call.arguments.iter().map(|(a, _)| a).collect();
                if let Some(&callee) = model.callee_of.get(&s) {
                    changed |= self.bind_params(model, finst, callee, &args);
                    if let Some(dest) = &call.dest {
                        for r in model.returns_of(callee) {
                            if let Some(T::Ret(ret)) = model.term(r) {
                                if let Some(op) = &ret.return_operand {
                                    let v = self.eval(model, callee, op);
                                    changed |= self.add_value(finst, dest, v);
                                }
                            }
                        }
                    }
                    return changed;
                }
                match model.libcall(s) {
                    LibCall::Alloc | LibCall::Realloc => {
                        let id = self.intern(Loc {
                            obj: Obj::Heap(s),
                            path: vec![],
                        });
                        let mut v = PtsSet::from([id]);
                        if model.libcall(s) == LibCall::Realloc {
                            if let Some(a) = args.first() {
                                v.extend(self.eval(model, finst, a));
                            }
                        }
                        if let Some(dest) = &call.dest {
                            changed |= self.add_value(finst, dest, v);
                        }
                    }
                    LibCall::ThreadCreate => {
                        let children = model.children_of.get(&s).cloned().unwrap_or_default();
                        for child in children {
                            let entry = model.threads[child as usize].entry;
                            if let Some(arg) = args.get(3) {
                                changed |= self.bind_params(model, finst, entry, &[arg]);
                            }
                        }
                    }
                    LibCall::MemCopy => {
                        if let (Some(d), Some(src)) = (args.first(), args.get(1)) {
                            let dst = self.eval(model, finst, d);
                            let srcs = self.eval(model, finst, src);
                            let content = self.load_from(&srcs);
                            for a in dst {
                                changed |= self.add_mem(a, &content);
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        changed
    }

    fn copy(&mut self, model: &ProgramModel<'_>, finst: usize, from: &Operand, to: &Name) -> bool {
        let v = self.eval(model, finst, from);
        self.add_value(finst, to, v)
    }

    /// Compute the cells: per object, known locations no other known
    /// location refines.
    fn finish(&mut self) {
        let mut by_obj: BTreeMap<Obj, Vec<LocId>> = BTreeMap::new();
        for (id, loc) in self.locs.iter().enumerate() {
            by_obj.entry(loc.obj.clone()).or_default().push(id as LocId);
        }
        for (obj, ids) in by_obj {
            let cells: Vec<LocId> = ids
                .iter()
                .copied()
                .filter(|&a| {
                    let pa = &self.locs[a as usize].path;
                    !ids.iter().any(|&b| {
                        let pb = &self.locs[b as usize].path;
                        pb.len() > pa.len() && pb[..pa.len()] == pa[..]
                    })
                })
                .collect();
            self.cells_of_obj.insert(obj, cells);
        }
    }

    /// The cells an access through this location may touch.
    pub fn cells(&self, loc: LocId) -> Vec<LocId> {
        let l = &self.locs[loc as usize];
        self.cells_of_obj
            .get(&l.obj)
            .map(|cells| {
                cells
                    .iter()
                    .copied()
                    .filter(|&c| {
                        let pc = &self.locs[c as usize].path;
                        l.path
                            .iter()
                            .zip(pc.iter())
                            .all(|(x, y)| x == y || *x == Step::AnyIndex)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Cells reachable through an operand used as an address.
    pub fn address_cells(
        &mut self,
        model: &ProgramModel<'_>,
        finst: usize,
        op: &Operand,
    ) -> BTreeSet<LocId> {
        let pts = self.eval(model, finst, op);
        pts.iter().flat_map(|&l| self.cells(l)).collect()
    }

    /// Locations an operand may point to (not expanded to cells).
    pub fn pointees(&mut self, model: &ProgramModel<'_>, finst: usize, op: &Operand) -> PtsSet {
        self.eval(model, finst, op)
    }

    pub fn cells_of(&self, obj: &Obj) -> &[LocId] {
        self.cells_of_obj.get(obj).map_or(&[], |v| v.as_slice())
    }

    pub fn objects(&self) -> impl Iterator<Item = &Obj> {
        self.cells_of_obj.keys()
    }

    /// Objects whose cells may hold pointers to `obj`'s... inverse: the
    /// objects that pointers stored in `obj` may point to.
    pub fn pointed_from(&self, obj: &Obj) -> BTreeSet<Obj> {
        let mut out = BTreeSet::new();
        for (&cell, content) in &self.mem {
            if &self.locs[cell as usize].obj == obj {
                for &t in content {
                    out.insert(self.locs[t as usize].obj.clone());
                }
            }
        }
        out
    }

    /// A readable name for a location.
    pub fn describe(&self, model: &ProgramModel<'_>, loc: LocId) -> (String, String) {
        let l = &self.locs[loc as usize];
        let object = match &l.obj {
            Obj::Global(g) => ir::plain_name(&model.module.global_vars[*g].name),
            Obj::Stack(s) => {
                let func = model
                    .finst_of(*s)
                    .map(|f| model.func(f).name.clone())
                    .unwrap_or_default();
                let var = model
                    .instr(*s)
                    .and_then(|i| i.try_get_result())
                    .map(ir::plain_name)
                    .unwrap_or_default();
                format!("{func}::{var}")
            }
            Obj::Heap(s) => {
                use llvm_ir::HasDebugLoc;
                let line = model
                    .instr(*s)
                    .and_then(|i| i.get_debug_loc().as_ref().map(|d| d.line))
                    .unwrap_or(0);
                format!("heap@{line}")
            }
        };
        let mut name = object.clone();
        for step in &l.path {
            match step {
                Step::Field(k) => name.push_str(&format!(".{k}")),
                Step::Index(k) => name.push_str(&format!("[{k}]")),
                Step::AnyIndex => name.push_str("[*]"),
            }
        }
        (name, object)
    }
}

/// Follow named struct types to their definition.
fn resolve(module: &Module, ty: &TypeRef) -> TypeRef {
    match ty.as_ref() {
        Type::NamedStructType { name } => match module.types.named_struct_def(name) {
            Some(NamedStructDef::Defined(t)) => t.clone(),
            _ => ty.clone(),
        },
        _ => ty.clone(),
    }
}
