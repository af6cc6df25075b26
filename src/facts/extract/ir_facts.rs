//! Base IR facts: what each instruction says about pointers, with no
//! search and no fixpoint. The points-to rules (`rules/pointsto.dl`) derive
//! points-to sets, the call graph (calls through pointers included) and
//! thread start routines from these rows.
//!
//! Ids: instructions (`i`) are numbered from 1 over every defined function
//! (0 is the root context); values (`v`) from 1 per SSA name or pointer
//! constant of a function; objects (`o`) are globals, functions, `alloca`s
//! and heap-allocating calls; paths (`p`) and GEP shapes (`g`) come from
//! [`PathTable`].

use super::ir::{self, LibCall};
use super::paths::{resolve, GepShape, PathId, PathTable, Step, MAX_DEPTH, ROOT};
use super::struct_types::StructTypes;
use crate::facts::relations::{
    IrActual, IrAlloc, IrAllocator, IrCall, IrCallResult, IrConstPts, IrCopy, IrExternActual,
    IrExternAlloc, IrExternCall, IrExternFunc, IrExternOpaque, IrFormal, IrFuncObj, IrGep,
    IrGepStruct, IrGlobalInit, IrGlobalObj, IrIcall, IrIcallHeap, IrInAllocator, IrInsnFunc,
    IrLoad, IrMain, IrMemcopy, IrMemcopyField, IrObjStruct, IrPathOverlap, IrPathStep, IrRet,
    IrStore, IrStructFits, IrThreadCreate, IrThreadCtx, IrVarFunc, TypedRelation,
};
use crate::facts::Row;
use llvm_ir::constant::Constant;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::terminator::Terminator as T;
use llvm_ir::types::Type;
use llvm_ir::{Module, Name, Operand};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};

pub type InsnId = u32;
pub type VarId = u32;
pub type ObjId = u32;
pub type FuncId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjKind {
    Global(usize),
    Func(usize),
    /// A function declared but not defined here (index into
    /// `module.func_declarations`), such as `malloc` stored in a hook.
    Extern(usize),
    /// An `alloca` instruction.
    Stack(InsnId),
    /// A call that allocates (`malloc`, `calloc`, `realloc`, `strdup`, ...).
    Heap(InsnId),
}

#[derive(Debug, Clone, Copy)]
pub struct InsnSite {
    pub func: usize,
    pub block: usize,
    /// None for the block's terminator.
    pub index: Option<usize>,
}

/// The IR relations, by name (see `schema::IR_RELATIONS`), plus the tables
/// that give their ids meaning.
pub struct IrFacts {
    pub rows: BTreeMap<&'static str, BTreeSet<Row>>,
    pub insns: Vec<InsnSite>,
    block_base: Vec<Vec<InsnId>>,
    vars: HashMap<(usize, Name), VarId>,
    const_vars: HashMap<(usize, String), VarId>,
    next_var: VarId,
    pub objs: Vec<ObjKind>,
    obj_index: HashMap<ObjKind, ObjId>,
    pub paths: PathTable,
    /// The named struct types objects and GEPs are checked against.
    struct_types: StructTypes,
    /// First context id past the instruction ids (thread contexts).
    pub first_thread_ctx: u32,
}

impl IrFacts {
    /// Instruction id of (function, block, index); `None` is the terminator.
    pub fn insn_id(&self, func: usize, block: usize, index: Option<usize>) -> InsnId {
        let base = self.block_base[func][block];
        match index {
            Some(i) => base + i as InsnId,
            None => self.block_base[func].get(block + 1).copied().unwrap_or(0) - 1,
        }
    }

    /// The value id of a function's SSA name or parameter.
    pub fn var(&self, func: usize, name: &Name) -> Option<VarId> {
        self.vars.get(&(func, name.clone())).copied()
    }

    /// The value id of an operand in a function (None: not a pointer source).
    pub fn operand_var(&self, func: usize, op: &Operand) -> Option<VarId> {
        match op {
            Operand::LocalOperand { name, .. } => self.var(func, name),
            Operand::ConstantOperand(c) => self.const_vars.get(&(func, c.to_string())).copied(),
            Operand::MetadataOperand => None,
        }
    }

    pub fn obj(&self, kind: ObjKind) -> Option<ObjId> {
        self.obj_index.get(&kind).copied()
    }

    pub fn build(module: &Module) -> IrFacts {
        let mut block_base = Vec::with_capacity(module.functions.len());
        let mut insns = vec![InsnSite {
            func: usize::MAX,
            block: 0,
            index: None,
        }];
        for (f, func) in module.functions.iter().enumerate() {
            let mut bases = Vec::with_capacity(func.basic_blocks.len() + 1);
            for (b, block) in func.basic_blocks.iter().enumerate() {
                bases.push(insns.len() as InsnId);
                for i in 0..block.instrs.len() {
                    insns.push(InsnSite {
                        func: f,
                        block: b,
                        index: Some(i),
                    });
                }
                insns.push(InsnSite {
                    func: f,
                    block: b,
                    index: None,
                });
            }
            bases.push(insns.len() as InsnId);
            block_base.push(bases);
        }
        let first_thread_ctx = insns.len() as u32;
        let mut facts = IrFacts {
            rows: crate::facts::schema::IR_RELATIONS
                .iter()
                .map(|r| (r.name, BTreeSet::new()))
                .collect(),
            insns,
            block_base,
            vars: HashMap::default(),
            const_vars: HashMap::default(),
            next_var: 1,
            objs: Vec::new(),
            obj_index: HashMap::default(),
            paths: PathTable::new(),
            struct_types: StructTypes::default(),
            first_thread_ctx,
        };
        Emitter::new(module).run(&mut facts);
        facts
    }

    fn add<R: TypedRelation>(&mut self, row: R) {
        self.rows
            .get_mut(R::NAME)
            .expect("declared IR relation")
            .insert(row.to_row());
    }

    /// Rows of one IR relation.
    pub fn count<R: TypedRelation>(&self) -> usize {
        self.rows.get(R::NAME).map_or(0, |rows| rows.len())
    }

    /// Whether one IR relation holds `row`.
    pub fn contains<R: TypedRelation>(&self, row: R) -> bool {
        self.rows
            .get(R::NAME)
            .is_some_and(|rows| rows.contains(&row.to_row()))
    }

    fn intern_obj(&mut self, kind: ObjKind) -> ObjId {
        if let Some(&o) = self.obj_index.get(&kind) {
            return o;
        }
        let o = self.objs.len() as ObjId;
        self.objs.push(kind);
        self.obj_index.insert(kind, o);
        o
    }

    fn local_var(&mut self, func: usize, name: &Name) -> VarId {
        if let Some(&v) = self.vars.get(&(func, name.clone())) {
            return v;
        }
        let v = self.next_var;
        self.next_var += 1;
        self.vars.insert((func, name.clone()), v);
        v
    }
}

/// What an instruction's facts need to know about its function.
struct FuncSite<'a> {
    f: usize,
    /// Direct call sites of each defined function (for thread contexts).
    callers: &'a HashMap<usize, Vec<InsnId>>,
    /// The instruction defining each SSA name of the function.
    defs: &'a Defs<'a>,
}

type Defs<'a> = HashMap<&'a Name, &'a I>;

/// A pointer to a function.
pub(super) fn is_function_pointer(ty: &llvm_ir::TypeRef) -> bool {
    match ty.as_ref() {
        Type::PointerType { pointee_type, .. } => {
            matches!(pointee_type.as_ref(), Type::FuncType { .. })
        }
        _ => false,
    }
}

/// `i8*`, C's `void *`.
fn is_void_pointer(ty: &llvm_ir::TypeRef) -> bool {
    match ty.as_ref() {
        Type::PointerType { pointee_type, .. } => {
            matches!(pointee_type.as_ref(), Type::IntegerType { bits: 8 })
        }
        _ => false,
    }
}

struct Emitter<'m> {
    module: &'m Module,
    func_index: HashMap<&'m str, usize>,
    extern_index: HashMap<&'m str, usize>,
    global_index: HashMap<&'m Name, usize>,
    allocators: BTreeSet<usize>,
}

impl<'m> Emitter<'m> {
    fn new(module: &'m Module) -> Self {
        let func_index = module
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let extern_index = module
            .func_declarations
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let global_index = module
            .global_vars
            .iter()
            .enumerate()
            .map(|(i, g)| (&g.name, i))
            .collect();
        let mut e = Emitter {
            module,
            func_index,
            extern_index,
            global_index,
            allocators: BTreeSet::new(),
        };
        e.allocators = e.find_allocators();
        e
    }

    fn defined(&self, name: &str) -> Option<usize> {
        self.func_index
            .get(name)
            .copied()
            .filter(|&f| !self.module.functions[f].basic_blocks.is_empty())
    }

    /// Points-to of a constant: (object kind, path).
    fn eval_const(&self, facts: &mut IrFacts, c: &Constant) -> Vec<(ObjKind, PathId)> {
        match c {
            Constant::GlobalReference { name, .. } => {
                if let Some(&g) = self.global_index.get(name) {
                    return vec![(ObjKind::Global(g), ROOT)];
                }
                let Some(n) = ir::name_str(name) else {
                    return vec![];
                };
                if let Some(&f) = self.func_index.get(n) {
                    vec![(ObjKind::Func(f), ROOT)]
                } else if let Some(&e) = self.extern_index.get(n) {
                    vec![(ObjKind::Extern(e), ROOT)]
                } else {
                    vec![]
                }
            }
            Constant::BitCast(b) => self.eval_const(facts, &b.operand),
            Constant::AddrSpaceCast(b) => self.eval_const(facts, &b.operand),
            Constant::IntToPtr(b) => self.eval_const(facts, &b.operand),
            Constant::PtrToInt(b) => self.eval_const(facts, &b.operand),
            Constant::GetElementPtr(g) => {
                let base = self.eval_const(facts, &g.address);
                let source = match self.module.type_of(g.address.as_ref()).as_ref() {
                    Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                    _ => return base,
                };
                let shape = GepShape {
                    source,
                    indices: g
                        .indices
                        .iter()
                        .map(|i| match i.as_ref() {
                            Constant::Int { value, .. } => Some(*value),
                            _ => None,
                        })
                        .collect(),
                };
                facts.paths.shape(shape.clone());
                base.into_iter()
                    .map(|(o, p)| (o, facts.paths.apply(self.module, p, &shape)))
                    .collect()
            }
            _ => vec![],
        }
    }

    /// The value id of an operand, creating one for pointer constants.
    fn operand(&self, facts: &mut IrFacts, func: usize, op: &Operand) -> Option<VarId> {
        match op {
            Operand::LocalOperand { name, .. } => Some(facts.local_var(func, name)),
            Operand::ConstantOperand(c) => {
                let key = (func, c.to_string());
                if let Some(&v) = facts.const_vars.get(&key) {
                    return Some(v);
                }
                let targets = self.eval_const(facts, c);
                if targets.is_empty() {
                    return None;
                }
                let v = facts.next_var;
                facts.next_var += 1;
                facts.const_vars.insert(key, v);
                facts.add(IrVarFunc { v, f: func as u32 });
                for (kind, p) in targets {
                    let o = facts.intern_obj(kind);
                    facts.add(IrConstPts { v, o, p });
                }
                Some(v)
            }
            Operand::MetadataOperand => None,
        }
    }

    fn run(&self, facts: &mut IrFacts) {
        if let Some(main) = self.defined("main") {
            facts.add(IrMain { f: main as u32 });
        }
        for f in 0..self.module.functions.len() {
            let fo = facts.intern_obj(ObjKind::Func(f));
            facts.add(IrFuncObj { o: fo, f: f as u32 });
        }
        for (e, decl) in self.module.func_declarations.iter().enumerate() {
            let o = facts.intern_obj(ObjKind::Extern(e));
            facts.add(IrExternFunc { o });
            if matches!(ir::classify(&decl.name), LibCall::Alloc | LibCall::Realloc) {
                let o = facts.intern_obj(ObjKind::Extern(e));
                facts.add(IrExternAlloc { o });
            }
        }
        for (g, var) in self.module.global_vars.iter().enumerate() {
            let o = facts.intern_obj(ObjKind::Global(g));
            facts.add(IrGlobalObj { o });
            let value_type = match var.ty.as_ref() {
                Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                _ => var.ty.clone(),
            };
            self.object_type(facts, o, &value_type);
            if let Some(init) = &var.initializer {
                let mut path = Vec::new();
                self.global_init(facts, o, &mut path, init);
            }
        }
        for &f in &self.allocators {
            facts.add(IrAllocator { f: f as u32 });
        }
        let callers = self.direct_call_sites(facts);
        for (f, func) in self.module.functions.iter().enumerate() {
            for (k, p) in func.parameters.iter().enumerate() {
                let v = facts.local_var(f, &p.name);
                facts.add(IrFormal {
                    f: f as u32,
                    n: k as u32,
                    v,
                });
            }
            let defs: Defs<'_> = func
                .basic_blocks
                .iter()
                .flat_map(|b| b.instrs.iter())
                .filter_map(|i| i.try_get_result().map(|d| (d, i)))
                .collect();
            let site = FuncSite {
                f,
                callers: &callers,
                defs: &defs,
            };
            for (b, block) in func.basic_blocks.iter().enumerate() {
                for (i, instr) in block.instrs.iter().enumerate() {
                    let id = facts.insn_id(f, b, Some(i));
                    self.instruction(facts, &site, id, instr);
                }
                if let T::Ret(r) = &block.term {
                    if let Some(op) = &r.return_operand {
                        if let Some(v) = self.operand(facts, f, op) {
                            facts.add(IrRet { f: f as u32, v });
                        }
                    }
                }
            }
        }
        facts.paths.close(self.module);
        let steps: Vec<IrPathStep> = facts
            .paths
            .steps
            .iter()
            .map(|&(p, g, q)| IrPathStep { p, g, q })
            .collect();
        for row in steps {
            facts.add(row);
        }
        for (a, b) in facts.paths.overlaps() {
            facts.add(IrPathOverlap { p: a, q: b });
        }
        self.struct_facts(facts);
    }

    /// The declared struct type of an object the IR types (a global, an
    /// `alloca`), for the rules' check of GEPs at its root.
    fn object_type(&self, facts: &mut IrFacts, o: ObjId, ty: &llvm_ir::TypeRef) {
        if let Some(t) = facts.struct_types.checked_id(self.module, ty) {
            facts.add(IrObjStruct { o, t });
        }
    }

    /// `ir_gep_struct` for every GEP shape over a named struct, then
    /// `ir_struct_fits` over every struct type named so far.
    fn struct_facts(&self, facts: &mut IrFacts) {
        let sources: Vec<llvm_ir::TypeRef> = facts
            .paths
            .shapes()
            .iter()
            .map(|s| s.source.clone())
            .collect();
        for (g, source) in sources.iter().enumerate() {
            if let Some(t) = facts.struct_types.checked_id(self.module, source) {
                facts.add(IrGepStruct { g: g as u32, t });
            }
        }
        for (s, t) in facts.struct_types.fits(self.module) {
            facts.add(IrStructFits { s, t });
        }
    }

    /// Direct call sites of each defined function.
    fn direct_call_sites(&self, facts: &IrFacts) -> HashMap<usize, Vec<InsnId>> {
        let mut out: HashMap<usize, Vec<InsnId>> = HashMap::default();
        for (f, func) in self.module.functions.iter().enumerate() {
            for (b, block) in func.basic_blocks.iter().enumerate() {
                for (i, instr) in block.instrs.iter().enumerate() {
                    if let I::Call(c) = instr {
                        if let Some(g) = ir::direct_callee(c).and_then(|n| self.defined(n)) {
                            out.entry(g).or_default().push(facts.insn_id(f, b, Some(i)));
                        }
                    }
                }
            }
        }
        out
    }

    fn global_init(&self, facts: &mut IrFacts, obj: ObjId, path: &mut Vec<Step>, c: &Constant) {
        // The table interns initialiser paths, so the rules see the same ids as for GEPs.
        match c {
            Constant::Struct { values, .. } => {
                for (i, v) in values.iter().enumerate() {
                    path.push(Step::Field(i as u32));
                    self.global_init(facts, obj, path, v);
                    path.pop();
                }
            }
            Constant::Array { elements, .. } => {
                for (i, v) in elements.iter().enumerate() {
                    path.push(Step::index(Some(i as u64)));
                    self.global_init(facts, obj, path, v);
                    path.pop();
                }
            }
            other => {
                let targets = self.eval_const(facts, other);
                if targets.is_empty() {
                    return;
                }
                let mut steps = path.clone();
                steps.truncate(MAX_DEPTH);
                let p = facts.paths.intern(steps, Some(self.module.type_of(other)));
                for (kind, tp) in targets {
                    let o2 = facts.intern_obj(kind);
                    facts.add(IrGlobalInit {
                        o: obj,
                        p,
                        o2,
                        p2: tp,
                    });
                }
            }
        }
    }

    fn instruction(&self, facts: &mut IrFacts, site: &FuncSite<'_>, id: InsnId, instr: &I) {
        let f = site.f;
        let fu = f as u32;
        let copy = |facts: &mut IrFacts, dest: &Name, src: &Operand| {
            if let Some(s) = self.operand(facts, f, src) {
                let d = facts.local_var(f, dest);
                facts.add(IrCopy { d, s });
            }
        };
        match instr {
            I::Alloca(a) => {
                let o = facts.intern_obj(ObjKind::Stack(id));
                self.object_type(facts, o, &a.allocated_type);
                let d = facts.local_var(f, &a.dest);
                facts.add(IrAlloc { i: id, v: d, o });
                facts.add(IrInsnFunc { i: id, f: fu });
            }
            I::GetElementPtr(g) => {
                let Some(b) = self.operand(facts, f, &g.address) else {
                    return;
                };
                let shape = GepShape {
                    source: g.source_element_type.clone(),
                    indices: g
                        .indices
                        .iter()
                        .map(|i| match i {
                            Operand::ConstantOperand(c) => match c.as_ref() {
                                Constant::Int { value, .. } => Some(*value),
                                _ => None,
                            },
                            _ => None,
                        })
                        .collect(),
                };
                let gid = facts.paths.shape(shape);
                let d = facts.local_var(f, &g.dest);
                facts.add(IrGep { d, b, g: gid });
            }
            I::BitCast(c) => copy(facts, &c.dest, &c.operand),
            I::AddrSpaceCast(c) => copy(facts, &c.dest, &c.operand),
            I::IntToPtr(c) => copy(facts, &c.dest, &c.operand),
            I::PtrToInt(c) => copy(facts, &c.dest, &c.operand),
            I::Freeze(c) => copy(facts, &c.dest, &c.operand),
            I::ExtractValue(x) => copy(facts, &x.dest, &x.aggregate),
            I::InsertValue(x) => {
                copy(facts, &x.dest, &x.aggregate);
                copy(facts, &x.dest, &x.element);
            }
            I::Phi(p) => {
                for (v, _) in &p.incoming_values {
                    copy(facts, &p.dest, v);
                }
            }
            I::Select(s) => {
                copy(facts, &s.dest, &s.true_value);
                copy(facts, &s.dest, &s.false_value);
            }
            I::Load(l) => {
                if let Some(a) = self.operand(facts, f, &l.address) {
                    let d = facts.local_var(f, &l.dest);
                    facts.add(IrLoad { d, a });
                }
            }
            I::Store(s) => match self.aggregate_source(&s.value, site.defs) {
                // `*q = *p` of a whole struct or array: a copy, field by field
                Some(from) => self.memcopy(facts, site, id, &s.address, from),
                None => self.store(facts, f, &s.value, &s.address),
            },
            I::AtomicRMW(r) => {
                self.store(facts, f, &r.value, &r.address);
                if let Some(a) = self.operand(facts, f, &r.address) {
                    let d = facts.local_var(f, &r.dest);
                    facts.add(IrLoad { d, a });
                }
            }
            I::CmpXchg(x) => {
                self.store(facts, f, &x.replacement, &x.address);
                if let Some(a) = self.operand(facts, f, &x.address) {
                    let d = facts.local_var(f, &x.dest);
                    facts.add(IrLoad { d, a });
                }
            }
            I::Call(call) => self.call(facts, site, id, call),
            _ => {}
        }
    }

    fn store(&self, facts: &mut IrFacts, f: usize, value: &Operand, address: &Operand) {
        if let (Some(v), Some(a)) = (
            self.operand(facts, f, value),
            self.operand(facts, f, address),
        ) {
            facts.add(IrStore { v, a });
        }
    }

    fn call(
        &self,
        facts: &mut IrFacts,
        site: &FuncSite<'_>,
        id: InsnId,
        call: &llvm_ir::instruction::Call,
    ) {
        let (f, callers) = (site.f, site.callers);
        let fu = f as u32;
        let callee_name = ir::direct_callee(call);
        let kind = callee_name.map_or(LibCall::Other, ir::classify);
        if kind == LibCall::Debug {
            return;
        }
        let arg = |facts: &mut IrFacts, k: usize| {
            call.arguments
                .get(k)
                .and_then(|(a, _)| self.operand(facts, f, a))
        };
        let result = call.dest.as_ref().map(|d| facts.local_var(f, d));
        // Every argument gets a value id, library calls included: extraction
        // asks for the points-to sets of lock, condition and handle arguments.
        let args: Vec<Option<VarId>> = (0..call.arguments.len()).map(|k| arg(facts, k)).collect();
        match kind {
            LibCall::Alloc | LibCall::Realloc => {
                if let Some(d) = result {
                    let o = facts.intern_obj(ObjKind::Heap(id));
                    facts.add(IrAlloc { i: id, v: d, o });
                    facts.add(IrInsnFunc { i: id, f: fu });
                    if kind == LibCall::Realloc {
                        if let Some(a) = arg(facts, 0) {
                            facts.add(IrCopy { d, s: a });
                        }
                    }
                }
                return;
            }
            LibCall::MemCopy => {
                if let (Some((d, _)), Some((s, _))) =
                    (call.arguments.first(), call.arguments.get(1))
                {
                    self.memcopy(facts, site, id, d, s);
                }
                return;
            }
            LibCall::ThreadCreate => {
                facts.add(IrInsnFunc { i: id, f: fu });
                let routine = arg(facts, 2).unwrap_or(0);
                let payload = arg(facts, 3).unwrap_or(0);
                facts.add(IrThreadCreate {
                    i: id,
                    r: routine,
                    a: payload,
                });
                // Thread contexts: the create site under each direct call
                // of its function (so a `launch()` wrapper called twice
                // starts two distinguishable threads).
                let first = facts.first_thread_ctx + facts.count::<IrThreadCtx>() as u32;
                for (k, &c) in (first..).zip(callers.get(&f).into_iter().flatten()) {
                    facts.add(IrThreadCtx { c, i: id, k });
                }
                return;
            }
            _ => {}
        }
        let in_allocator = self.allocators.contains(&f);
        match callee_name {
            Some(name) => {
                let Some(g) = self.defined(name) else {
                    // A library function: no body, no effect on pointers,
                    // unless it is one the call table does not describe,
                    // which may call back a function handed to it.
                    if crate::calls::lookup(name).is_none() && !name.starts_with("llvm.") {
                        self.extern_call(facts, fu, id, call, &args);
                    }
                    return;
                };
                facts.add(IrCall { i: id, f: g as u32 });
            }
            None => {
                let target = match &call.function {
                    either::Either::Right(op) => self.operand(facts, f, op),
                    either::Either::Left(_) => None, // inline assembly
                };
                let Some(v) = target else {
                    facts.add(IrIcall { i: id, v: 0 });
                    facts.add(IrInsnFunc { i: id, f: fu });
                    return;
                };
                facts.add(IrIcall { i: id, v });
                // Should the pointer turn out to be `malloc` (an allocator
                // hook), the call allocates: its object is ready.
                if let Some(d) = result {
                    let o = facts.intern_obj(ObjKind::Heap(id));
                    facts.add(IrIcallHeap { i: id, d, o });
                }
            }
        }
        facts.add(IrInsnFunc { i: id, f: fu });
        if in_allocator {
            facts.add(IrInAllocator { i: id });
        }
        for (k, a) in args.iter().enumerate() {
            if let Some(a) = *a {
                facts.add(IrActual {
                    i: id,
                    n: k as u32,
                    v: a,
                });
            }
        }
        if let Some(d) = result {
            facts.add(IrCallResult { i: id, v: d });
        }
    }

    /// Allocation wrappers: functions that return memory they (or an
    /// allocation wrapper they call) allocated. Found by following each
    /// returned value back through casts, GEPs, phis and selects.
    fn find_allocators(&self) -> BTreeSet<usize> {
        let mut found: BTreeSet<usize> = BTreeSet::new();
        loop {
            let mut changed = false;
            for (f, func) in self.module.functions.iter().enumerate() {
                if found.contains(&f) || func.basic_blocks.is_empty() {
                    continue;
                }
                let defs: HashMap<&Name, &I> = func
                    .basic_blocks
                    .iter()
                    .flat_map(|b| b.instrs.iter())
                    .filter_map(|i| i.try_get_result().map(|d| (d, i)))
                    .collect();
                let returns_fresh = func.basic_blocks.iter().any(|b| match &b.term {
                    T::Ret(r) => r
                        .return_operand
                        .as_ref()
                        .is_some_and(|op| self.fresh(op, &defs, &found, 0)),
                    _ => false,
                });
                if returns_fresh {
                    found.insert(f);
                    changed = true;
                }
            }
            if !changed {
                return found;
            }
        }
    }

    fn fresh(
        &self,
        op: &Operand,
        defs: &HashMap<&Name, &I>,
        allocators: &BTreeSet<usize>,
        depth: usize,
    ) -> bool {
        if depth > 16 {
            return false;
        }
        let Operand::LocalOperand { name, .. } = op else {
            return false;
        };
        let Some(instr) = defs.get(name) else {
            return false;
        };
        let next = |o: &Operand| self.fresh(o, defs, allocators, depth + 1);
        match instr {
            I::Call(c) => match ir::direct_callee(c) {
                Some(n) => {
                    matches!(ir::classify(n), LibCall::Alloc | LibCall::Realloc)
                        || self.defined(n).is_some_and(|g| allocators.contains(&g))
                }
                None => match &c.function {
                    either::Either::Right(op) => self.hook_allocates(op, defs),
                    either::Either::Left(_) => false,
                },
            },
            I::BitCast(c) => next(&c.operand),
            I::AddrSpaceCast(c) => next(&c.operand),
            I::GetElementPtr(g) => next(&g.address),
            I::Phi(p) => p.incoming_values.iter().any(|(v, _)| next(v)),
            I::Select(s) => next(&s.true_value) || next(&s.false_value),
            _ => false,
        }
    }
}

impl Emitter<'_> {
    /// A memory copy from `s` to `d`: `ir_memcopy`, and, when the copied
    /// value's struct type is known, one `ir_memcopy_field` per field so
    /// that the rules keep each field's targets in its own field.
    fn memcopy(
        &self,
        facts: &mut IrFacts,
        site: &FuncSite<'_>,
        id: InsnId,
        d: &Operand,
        s: &Operand,
    ) {
        let (Some(dv), Some(sv)) = (
            self.operand(facts, site.f, d),
            self.operand(facts, site.f, s),
        ) else {
            return;
        };
        facts.add(IrMemcopy {
            i: id,
            d: dv,
            s: sv,
        });
        facts.add(IrInsnFunc {
            i: id,
            f: site.f as u32,
        });
        let (dt, st) = (
            self.pointee_struct(d, site.defs),
            self.pointee_struct(s, site.defs),
        );
        let ty = match (dt, st) {
            (Some(a), Some(b)) if a != b => return,
            (Some(t), _) | (None, Some(t)) => t,
            (None, None) => return,
        };
        let Type::StructType { element_types, .. } = resolve(self.module, &ty).as_ref().clone()
        else {
            return;
        };
        for k in 0..element_types.len() {
            let g = facts.paths.shape(GepShape {
                source: ty.clone(),
                indices: vec![Some(0), Some(k as u64)],
            });
            facts.add(IrMemcopyField { i: id, g });
        }
    }

    /// The struct type a pointer operand points to, seen through a cast
    /// to `i8*` (`memcpy(&job, ...)` passes `(i8*)&job`).
    fn pointee_struct(&self, op: &Operand, defs: &Defs<'_>) -> Option<llvm_ir::TypeRef> {
        let ty = match op {
            Operand::LocalOperand { name, ty } => match defs.get(name) {
                Some(I::BitCast(c)) => self.module.type_of(&c.operand),
                _ => ty.clone(),
            },
            Operand::ConstantOperand(c) => match c.as_ref() {
                Constant::BitCast(b) => self.module.type_of(b.operand.as_ref()),
                other => self.module.type_of(other),
            },
            Operand::MetadataOperand => return None,
        };
        let Type::PointerType { pointee_type, .. } = ty.as_ref() else {
            return None;
        };
        matches!(
            resolve(self.module, pointee_type).as_ref(),
            Type::StructType { .. }
        )
        .then(|| pointee_type.clone())
    }

    /// The address an aggregate value was loaded from, when a struct or
    /// array value comes straight from a load (`%v = load %struct.job, ...`).
    fn aggregate_source<'d>(&self, value: &Operand, defs: &Defs<'d>) -> Option<&'d Operand> {
        let Operand::LocalOperand { name, ty } = value else {
            return None;
        };
        if !matches!(
            ty.as_ref(),
            Type::StructType { .. } | Type::NamedStructType { .. } | Type::ArrayType { .. }
        ) {
            return None;
        }
        match defs.get(name) {
            Some(I::Load(l)) => Some(&l.address),
            _ => None,
        }
    }

    /// A call of a library function the call table does not describe,
    /// handed a function pointer: the library may call it back. Its
    /// function-pointer arguments (`ir_extern_actual`) and its `void *`
    /// arguments, which the library may pass on (`ir_extern_opaque`).
    /// Only functions passed as such are callbacks: a library handed a
    /// pointer to memory that holds functions (`munmap` of a pool of
    /// objects with vtables) is not taken to call them all.
    fn extern_call(
        &self,
        facts: &mut IrFacts,
        f: u32,
        id: InsnId,
        call: &llvm_ir::instruction::Call,
        args: &[Option<VarId>],
    ) {
        let typed: Vec<(u32, VarId, llvm_ir::TypeRef)> = call
            .arguments
            .iter()
            .zip(args)
            .enumerate()
            .filter_map(|(n, ((a, _), v))| v.map(|v| (n as u32, v, self.module.type_of(a))))
            .collect();
        let functions: Vec<(u32, VarId)> = typed
            .iter()
            .filter(|(_, _, ty)| is_function_pointer(ty))
            .map(|&(n, v, _)| (n, v))
            .collect();
        if functions.is_empty() {
            return;
        }
        facts.add(IrExternCall { i: id, f });
        for (n, v) in functions {
            facts.add(IrExternActual { i: id, n, v });
        }
        for (_, v, ty) in &typed {
            if is_void_pointer(ty) {
                facts.add(IrExternOpaque { i: id, v: *v });
            }
        }
    }

    /// Is this callee value loaded from a global hook initialised with an
    /// allocation function (`static void *(*alloc_f)(size_t) = malloc;`)?
    fn hook_allocates(&self, op: &Operand, defs: &HashMap<&Name, &I>) -> bool {
        let Operand::LocalOperand { name, .. } = op else {
            return false;
        };
        let Some(I::Load(l)) = defs.get(name) else {
            return false;
        };
        let Operand::ConstantOperand(c) = &l.address else {
            return false;
        };
        let Constant::GlobalReference { name, .. } = ir::strip_casts(c) else {
            return false;
        };
        let Some(&g) = self.global_index.get(name) else {
            return false;
        };
        let Some(init) = &self.module.global_vars[g].initializer else {
            return false;
        };
        match ir::strip_casts(init) {
            Constant::GlobalReference { name, .. } => ir::name_str(name)
                .is_some_and(|n| matches!(ir::classify(n), LibCall::Alloc | LibCall::Realloc)),
            _ => false,
        }
    }
}
