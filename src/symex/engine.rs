//! Interpreter, scheduler, DPOR and assertion-guided pruning.

use super::{
    Exploration, Finding, FindingKind, InputValue, Reduction, Stats, SymexError, SymexOptions,
};
use llvm_ir::instruction as ins;
use llvm_ir::types::NamedStructDef;
use llvm_ir::{
    Constant, ConstantRef, Function, HasDebugLoc, Instruction, IntPredicate, Module, Name, Operand,
    Terminator, Type, TypeRef,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{Context, SatResult, Solver};

/// Width of a pointer value: 32-bit object id ++ 64-bit offset.
const PW: u32 = 96;
const MAX_STEPS: u64 = 200_000;

type Addr = (u32, u64);

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Res {
    Mem(u32, u64, u64),
    Mutex(Addr),
    Cond(Addr),
    ThreadEnd(usize),
    All,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Access {
    res: Res,
    write: bool,
}

fn conflict(a: &Access, b: &Access) -> bool {
    if matches!(a.res, Res::All) || matches!(b.res, Res::All) {
        return true;
    }
    if !a.write && !b.write {
        return false;
    }
    match (&a.res, &b.res) {
        (Res::Mem(o1, l1, h1), Res::Mem(o2, l2, h2)) => o1 == o2 && l1 < h2 && l2 < h1,
        (x, y) => x == y,
    }
}

fn dependent(a: &[Access], b: &[Access]) -> bool {
    a.iter().any(|x| b.iter().any(|y| conflict(x, y)))
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ObjKind {
    Global,
    Stack,
    Heap,
    Func(usize),
    Null,
}

#[derive(Clone)]
struct Cell<'c> {
    bytes: u64,
    val: BV<'c>,
}

#[derive(Clone)]
struct Obj<'c> {
    size: u64,
    cells: BTreeMap<u64, Cell<'c>>,
    kind: ObjKind,
    escaped: bool,
    alive: bool,
    readonly: bool,
}

#[derive(Clone)]
struct Frame<'c> {
    f: usize,
    bb: usize,
    ip: usize,
    prev_bb: usize,
    regs: HashMap<Name, BV<'c>>,
    allocas: Vec<u32>,
    ret_to: Option<Name>,
    visits: HashMap<usize, u32>,
    atomic_fn: bool,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum TStatus {
    Run,
    /// Stopped at the loop bound: the thread makes no further progress but
    /// the others keep running (so DPOR still sees their later accesses).
    Cut,
    WaitCond {
        cond: Addr,
        mutex: Addr,
    },
    Reacquire {
        mutex: Addr,
    },
    Done,
}

#[derive(Clone)]
struct Thread<'c> {
    frames: Vec<Frame<'c>>,
    status: TStatus,
    ret: Option<BV<'c>>,
    atomic: u32,
    clock: Vec<usize>,
    /// The rest of the thread is thread-local code that ends the thread
    /// (e.g. its final assertion check): it is run as late as possible.
    tail: bool,
}

/// Effects of the current segment (between two nodes) over the state
/// variables of the segment's first node.
#[derive(Clone, Default)]
struct Seg<'c> {
    ov: HashMap<String, BV<'c>>,
    assumes: Vec<Bool<'c>>,
    bad: bool,
    /// Objects allocated in this segment.
    fresh: HashSet<u32>,
    /// State variables of inputs created in this segment (quantified).
    havoc: Vec<BV<'c>>,
}

impl<'c> State<'c> {
    fn seg_fresh(&mut self, o: u32) {
        self.seg.fresh.insert(o);
    }
}

#[derive(Clone)]
struct State<'c> {
    threads: Vec<Thread<'c>>,
    objs: Vec<Obj<'c>>,
    mutex: BTreeMap<Addr, usize>,
    conds: BTreeMap<Addr, Vec<usize>>,
    pcon: Vec<Bool<'c>>,
    inputs: Vec<(String, BV<'c>)>,
    nondet_count: usize,
    seg: Seg<'c>,
    sched: Vec<usize>,
    tr_acc: Vec<Access>,
    created: Vec<usize>,
    steps: u64,
    /// Running a new thread's local prefix up to its first visible
    /// operation: not a transition of its own.
    normalizing: bool,
    /// The thread whose deferred tail is being run.
    tail_run: Option<usize>,
}

struct Tr {
    tid: usize,
    acc: Vec<Access>,
    clock: Vec<usize>,
}

struct DNode {
    enabled: Vec<usize>,
    backtrack: BTreeSet<usize>,
    done: BTreeSet<usize>,
    tr: Option<Tr>,
}

struct PsEntry<'c> {
    key: u64,
    f: Bool<'c>,
    merges: u32,
    /// Threads asleep at some visit that contributed to `f`.
    asleep: BTreeSet<usize>,
}

enum Step<'c> {
    Continue,
    /// Transition ends here (blocked, waiting).
    Yield,
    Fork {
        alts: Vec<(Bool<'c>, Bool<'c>, usize)>,
    },
    End(EndKind),
}

enum EndKind {
    Finding(FindingKind, String),
    AssumeFalse,
    Cut,
}

#[derive(Clone)]
enum Next {
    Enabled(Vec<Access>),
    Disabled(Vec<Access>),
    /// Only thread-local code is left (deferred).
    Tail,
    /// Stopped at the loop bound.
    Cut,
    Done,
}

pub(crate) struct Engine<'c, 'm> {
    ctx: &'c Context,
    m: &'m Module,
    solver: Solver<'c>,
    opts: SymexOptions,
    bbidx: Vec<HashMap<Name, usize>>,
    fidx: HashMap<String, usize>,
    globals: HashMap<Name, u32>,
    init_objs: Vec<Obj<'c>>,
    stats: Stats,
    findings: Vec<Finding>,
    fseen: HashMap<(FindingKind, String), usize>,
    nodes: Vec<DNode>,
    open: Vec<u64>,
    rw: HashMap<u64, HashSet<(usize, Access)>>,
    ps: HashMap<usize, PsEntry<'c>>,
    dpor: bool,
    ag: bool,
    start: Instant,
    stop: bool,
    last_progress: Instant,
    slice: Option<super::slice::Slice>,
    obj_global: HashMap<u32, Name>,
    /// Per function: may it (or a callee) perform a visible operation?
    fn_visible: Vec<bool>,
    /// `CONCORD_SYMEX_DEBUG` set: trace the exploration on stderr.
    debug: bool,
    /// Per function and block: may a visible operation be reached from it?
    bb_reach_visible: Vec<Vec<bool>>,
    /// Per function, block and instruction index: is any instruction from
    /// there to the end of the block possibly visible?
    suffix_visible: Vec<Vec<Vec<bool>>>,
    /// Allocas never stored or passed on, per function.
    private_allocas: Vec<HashSet<Name>>,
}

fn loc_of(dl: &Option<llvm_ir::DebugLoc>) -> (String, u32) {
    match dl {
        Some(d) => {
            let file = match &d.directory {
                Some(dir) if !d.filename.starts_with('/') && !dir.is_empty() => {
                    format!("{dir}/{}", d.filename)
                }
                _ => d.filename.clone(),
            };
            (format!("{file}:{}:{}", d.line, d.col.unwrap_or(0)), d.line)
        }
        None => (String::new(), 0),
    }
}

fn name_str(n: &Name) -> String {
    match n {
        Name::Name(s) => s.to_string(),
        Name::Number(k) => k.to_string(),
    }
}

fn callee_name(c: &ins::Call) -> Option<String> {
    match c.function.as_ref().right() {
        Some(Operand::ConstantOperand(cr)) => match cr.as_ref() {
            Constant::GlobalReference { name, .. } => Some(name_str(name)),
            Constant::BitCast(bc) => match bc.operand.as_ref() {
                Constant::GlobalReference { name, .. } => Some(name_str(name)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

const SYNC_CALLS: &[&str] = &[
    "pthread_join",
    "pthread_mutex_lock",
    "pthread_mutex_unlock",
    "pthread_mutex_trylock",
    "pthread_mutex_init",
    "pthread_mutex_destroy",
    "pthread_cond_wait",
    "pthread_cond_signal",
    "pthread_cond_broadcast",
    "pthread_cond_init",
    "pthread_cond_destroy",
    "__VERIFIER_atomic_begin",
];

pub(crate) fn run(m: &Module, opts: &SymexOptions) -> Result<Exploration, SymexError> {
    // Deep recursion: the whole exploration runs on a thread with a large
    // stack (z3 objects are not Send, so they are created there).
    let opts = opts.clone();
    // Reset the peak resident set size so that `peak_memory_kb` is about
    // this exploration (Linux; ignored elsewhere).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let res = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, move || -> Result<Exploration, SymexError> {
                let cfg = z3::Config::new();
                let ctx = Context::new(&cfg);
                let mut e = Engine::new(&ctx, m, opts.clone())?;
                let f0 = *e
                    .fidx
                    .get(&opts.entry)
                    .ok_or_else(|| SymexError::NoEntry(opts.entry.clone()))?;
                let st = e.initial_state(f0);
                e.run_thread(st, 0, false, Vec::new());
                Ok(e.finish())
            })
            .expect("spawn explorer thread")
            .join()
    });
    res.map_err(|_| SymexError::Other("explorer panicked".into()))?
}

impl<'c, 'm> Engine<'c, 'm> {
    fn new(ctx: &'c Context, m: &'m Module, opts: SymexOptions) -> Result<Self, SymexError> {
        let mut fidx = HashMap::new();
        let mut bbidx = Vec::new();
        for (i, f) in m.functions.iter().enumerate() {
            fidx.insert(f.name.clone(), i);
            bbidx.push(
                f.basic_blocks
                    .iter()
                    .enumerate()
                    .map(|(k, b)| (b.name.clone(), k))
                    .collect(),
            );
        }
        let mut e = Engine {
            ctx,
            m,
            solver: Solver::new(ctx),
            dpor: opts.reduction != Reduction::None,
            ag: opts.reduction == Reduction::DporAg,
            opts,
            bbidx,
            fidx,
            globals: HashMap::new(),
            init_objs: Vec::new(),
            stats: Stats::default(),
            findings: Vec::new(),
            fseen: HashMap::new(),
            nodes: Vec::new(),
            open: Vec::new(),
            rw: HashMap::new(),
            ps: HashMap::new(),
            start: Instant::now(),
            stop: false,
            last_progress: Instant::now(),
            slice: None,
            obj_global: HashMap::new(),
            fn_visible: Vec::new(),
            debug: std::env::var_os("CONCORD_SYMEX_DEBUG").is_some(),
            bb_reach_visible: Vec::new(),
            suffix_visible: Vec::new(),
            private_allocas: Vec::new(),
        };
        e.compute_tail_info();
        if e.opts.schedule.is_some() {
            e.dpor = false;
            e.ag = false;
        }
        e.init_globals();
        if e.ag && e.opts.slice {
            let sl = super::slice::Slice::compute(m);
            e.stats.slice_size = sl.size() as u64;
            e.slice = Some(sl);
        }
        Ok(e)
    }

    // ---------------------------------------------------------------- types

    fn resolve(&self, ty: &Type) -> Option<TypeRef> {
        if let Type::NamedStructType { name } = ty {
            match self.m.types.named_struct_def(name) {
                Some(NamedStructDef::Defined(t)) => Some(t.clone()),
                _ => None,
            }
        } else {
            None
        }
    }

    fn size_align(&self, ty: &Type) -> (u64, u64) {
        match ty {
            Type::IntegerType { bits } => {
                let b = (*bits as u64).div_ceil(8).next_power_of_two();
                (b, b.min(8))
            }
            Type::PointerType { .. } => (8, 8),
            Type::FPType(fp) => match fp {
                llvm_ir::types::FPType::Single => (4, 4),
                llvm_ir::types::FPType::Double => (8, 8),
                _ => (16, 16),
            },
            Type::ArrayType {
                element_type,
                num_elements,
            }
            | Type::VectorType {
                element_type,
                num_elements,
                ..
            } => {
                let (s, a) = self.size_align(element_type);
                (s * *num_elements as u64, a)
            }
            Type::StructType {
                element_types,
                is_packed,
            } => {
                let mut off = 0u64;
                let mut al = 1u64;
                for t in element_types {
                    let (s, a) = self.size_align(t);
                    let a = if *is_packed { 1 } else { a };
                    off = off.div_ceil(a) * a;
                    off += s;
                    al = al.max(a);
                }
                (off.div_ceil(al) * al, al)
            }
            Type::NamedStructType { .. } => match self.resolve(ty) {
                Some(t) => self.size_align(&t),
                None => (0, 1),
            },
            _ => (0, 1),
        }
    }

    fn size_of(&self, ty: &Type) -> u64 {
        self.size_align(ty).0
    }

    fn field_offset(&self, ty: &Type, idx: u64) -> (u64, TypeRef) {
        match ty {
            Type::StructType {
                element_types,
                is_packed,
            } => {
                let mut off = 0u64;
                for (k, t) in element_types.iter().enumerate() {
                    let (s, a) = self.size_align(t);
                    let a = if *is_packed { 1 } else { a };
                    off = off.div_ceil(a) * a;
                    if k as u64 == idx {
                        return (off, t.clone());
                    }
                    off += s;
                }
                (off, self.m.types.i8())
            }
            Type::NamedStructType { .. } => {
                let t = self.resolve(ty).expect("opaque struct");
                self.field_offset(&t, idx)
            }
            _ => (0, self.m.types.i8()),
        }
    }

    fn bits_of(&self, ty: &Type) -> Option<u32> {
        match ty {
            Type::IntegerType { bits } => Some(*bits),
            Type::PointerType { .. } => Some(PW),
            _ => None,
        }
    }

    // --------------------------------------------------------------- values

    fn bv(&self, v: u64, w: u32) -> BV<'c> {
        BV::from_u64(self.ctx, v, w)
    }

    fn ptr(&self, obj: u32, off: u64) -> BV<'c> {
        self.bv(obj as u64, 32).concat(&self.bv(off, 64))
    }

    fn ptr_parts(&self, p: &BV<'c>) -> (Option<u32>, BV<'c>) {
        let o = p.extract(95, 64).simplify();
        let off = p.extract(63, 0).simplify();
        (o.as_u64().map(|x| x as u32), off)
    }

    fn adapt(&self, v: BV<'c>, w: u32) -> BV<'c> {
        let have = v.get_size();
        if have == w {
            v
        } else if have == PW {
            self.ptr_to_int(&v, w)
        } else if w == PW {
            self.int_to_ptr(&v)
        } else if have < w {
            v.zero_ext(w - have)
        } else {
            v.extract(w - 1, 0)
        }
    }

    fn ptr_to_int(&self, p: &BV<'c>, w: u32) -> BV<'c> {
        let o = p.extract(95, 64).zero_ext(32);
        let off = p.extract(63, 0);
        let v = o.bvshl(&self.bv(32, 64)).bvadd(&off);
        self.adapt(v, w)
    }

    fn int_to_ptr(&self, v: &BV<'c>) -> BV<'c> {
        let v = self.adapt(v.clone(), 64);
        v.extract(63, 32).concat(&v.extract(31, 0).zero_ext(32))
    }

    fn const_val(&self, c: &Constant) -> Result<BV<'c>, String> {
        Ok(match c {
            Constant::Int { bits, value } => self.bv(*value, *bits),
            Constant::Null(_) => self.bv(0, PW),
            Constant::Undef(t) | Constant::Poison(t) | Constant::AggregateZero(t) => self.bv(
                0,
                self.bits_of(t).ok_or("aggregate constant used as value")?,
            ),
            Constant::GlobalReference { name, .. } => {
                let o = self
                    .globals
                    .get(name)
                    .ok_or_else(|| format!("unknown global {name}"))?;
                self.ptr(*o, 0)
            }
            Constant::BitCast(b) => self.const_val(&b.operand)?,
            Constant::AddrSpaceCast(b) => self.const_val(&b.operand)?,
            Constant::PtrToInt(p) => {
                let v = self.const_val(&p.operand)?;
                self.adapt(v, self.bits_of(&p.to_type).unwrap_or(64))
            }
            Constant::IntToPtr(p) => {
                let v = self.const_val(&p.operand)?;
                self.int_to_ptr(&v)
            }
            Constant::GetElementPtr(g) => {
                let base = self.const_val(&g.address)?;
                let idx: Vec<BV<'c>> = g
                    .indices
                    .iter()
                    .map(|i| self.const_val(i))
                    .collect::<Result<_, _>>()?;
                let bty = match self.m.type_of(&*g.address).as_ref() {
                    Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                    _ => return Err("constant GEP on non-pointer".into()),
                };
                self.gep(
                    &base,
                    &bty,
                    &idx,
                    &g.indices.iter().map(const_int).collect::<Vec<_>>(),
                )?
            }
            other => return Err(format!("constant `{other}`")),
        })
    }

    /// GEP over values; `base_ty` is the pointee type of the base pointer.
    fn gep(
        &self,
        base: &BV<'c>,
        base_ty: &TypeRef,
        idx: &[BV<'c>],
        cidx: &[Option<u64>],
    ) -> Result<BV<'c>, String> {
        let mut off = self.bv(0, 64);
        let mut ty = base_ty.clone();
        for (k, i) in idx.iter().enumerate() {
            let i64v = self.adapt_signed(i);
            if k == 0 {
                let s = self.size_of(&ty);
                off = off.bvadd(&i64v.bvmul(&self.bv(s, 64)));
                continue;
            }
            let resolved = self.resolve(&ty).unwrap_or(ty.clone());
            match resolved.as_ref() {
                Type::StructType { .. } => {
                    let fi = cidx
                        .get(k)
                        .copied()
                        .flatten()
                        .ok_or("symbolic struct index")?;
                    let (fo, fty) = self.field_offset(&resolved, fi);
                    off = off.bvadd(&self.bv(fo, 64));
                    ty = fty;
                }
                Type::ArrayType { element_type, .. } | Type::VectorType { element_type, .. } => {
                    let s = self.size_of(element_type);
                    off = off.bvadd(&i64v.bvmul(&self.bv(s, 64)));
                    ty = element_type.clone();
                }
                t => return Err(format!("GEP into {t}")),
            }
        }
        let o = base.extract(95, 64);
        Ok(o.concat(&base.extract(63, 0).bvadd(&off)).simplify())
    }

    fn adapt_signed(&self, v: &BV<'c>) -> BV<'c> {
        let w = v.get_size();
        if w == 64 {
            v.clone()
        } else if w < 64 {
            v.sign_ext(64 - w)
        } else {
            v.extract(63, 0)
        }
    }

    // --------------------------------------------------------------- memory

    fn new_obj(&self, st: &mut State<'c>, size: u64, kind: ObjKind) -> u32 {
        let escaped = matches!(kind, ObjKind::Global);
        st.objs.push(Obj {
            size,
            cells: BTreeMap::new(),
            kind,
            escaped,
            alive: true,
            readonly: false,
        });
        (st.objs.len() - 1) as u32
    }

    fn init_globals(&mut self) {
        let mut st = self.empty_state();
        let null = self.new_obj(&mut st, 0, ObjKind::Null);
        st.objs[null as usize].alive = false;
        for g in &self.m.global_vars {
            let pointee = match g.ty.as_ref() {
                Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                _ => self.m.types.i8(),
            };
            let size = self.size_of(&pointee).max(1);
            let o = self.new_obj(&mut st, size, ObjKind::Global);
            st.objs[o as usize].readonly = g.is_constant;
            self.globals.insert(g.name.clone(), o);
            self.obj_global.insert(o, g.name.clone());
        }
        for (i, f) in self.m.functions.iter().enumerate() {
            let o = self.new_obj(&mut st, 1, ObjKind::Func(i));
            st.objs[o as usize].alive = false;
            self.globals.insert(Name::from(f.name.clone()), o);
        }
        for d in &self.m.func_declarations {
            let o = self.new_obj(&mut st, 1, ObjKind::Func(usize::MAX));
            st.objs[o as usize].alive = false;
            self.globals.insert(Name::from(d.name.clone()), o);
        }
        for g in &self.m.global_vars {
            if let Some(init) = &g.initializer {
                let o = self.globals[&g.name];
                let _ = self.write_const(&mut st, o, 0, init);
            }
        }
        self.init_objs = st.objs;
    }

    fn write_const(
        &self,
        st: &mut State<'c>,
        o: u32,
        off: u64,
        c: &ConstantRef,
    ) -> Result<(), String> {
        match c.as_ref() {
            Constant::AggregateZero(_) | Constant::Undef(_) | Constant::Poison(_) => Ok(()),
            Constant::Struct { values, .. } => {
                let ty = self.m.type_of(&**c);
                for (k, v) in values.iter().enumerate() {
                    let (fo, _) = self.field_offset(&ty, k as u64);
                    self.write_const(st, o, off + fo, v)?;
                }
                Ok(())
            }
            Constant::Array {
                element_type,
                elements,
            } => {
                let s = self.size_of(element_type);
                for (k, v) in elements.iter().enumerate() {
                    self.write_const(st, o, off + s * k as u64, v)?;
                }
                Ok(())
            }
            _ => {
                let ty = self.m.type_of(&**c);
                let v = self.const_val(c)?;
                let bytes = self.size_of(&ty);
                self.mem_store(st, o, off, bytes, v);
                Ok(())
            }
        }
    }

    fn byte_of(&self, cell: &Cell<'c>, k: u64) -> BV<'c> {
        let v = if cell.val.get_size() == PW {
            self.ptr_to_int(&cell.val, 64)
        } else {
            self.adapt(cell.val.clone(), (cell.bytes * 8) as u32)
        };
        v.extract((k * 8 + 7) as u32, (k * 8) as u32)
    }

    /// Read `bytes` at a concrete offset, returned with `bits` width.
    /// Also returns whether an exact cell was found.
    fn mem_load(&self, st: &State<'c>, o: u32, off: u64, bytes: u64, bits: u32) -> (BV<'c>, bool) {
        let obj = &st.objs[o as usize];
        if let Some(c) = obj.cells.get(&off) {
            if c.bytes == bytes {
                return (self.adapt(c.val.clone(), bits), true);
            }
        }
        let overlapping = obj
            .cells
            .range(..off + bytes)
            .any(|(s, c)| s + c.bytes > off);
        if !overlapping {
            return (self.bv(0, bits), true);
        }
        let mut acc: Option<BV<'c>> = None;
        for b in off..off + bytes {
            let byte = match obj.cells.range(..=b).next_back() {
                Some((s, c)) if s + c.bytes > b => self.byte_of(c, b - s),
                _ => self.bv(0, 8),
            };
            acc = Some(match acc {
                None => byte,
                Some(a) => byte.concat(&a),
            });
        }
        (self.adapt(acc.unwrap(), bits), false)
    }

    /// Returns false when the store split other cells.
    fn mem_store(&self, st: &mut State<'c>, o: u32, off: u64, bytes: u64, v: BV<'c>) -> bool {
        let mut exact = true;
        let obj = &st.objs[o as usize];
        let over: Vec<(u64, Cell<'c>)> = obj
            .cells
            .range(..off + bytes)
            .filter(|(s, c)| *s + c.bytes > off)
            .map(|(s, c)| (*s, c.clone()))
            .collect();
        let mut pieces = Vec::new();
        for (s, c) in &over {
            if *s != off || c.bytes != bytes {
                exact = false;
                for b in *s..*s + c.bytes {
                    if b < off || b >= off + bytes {
                        pieces.push((
                            b,
                            Cell {
                                bytes: 1,
                                val: self.byte_of(c, b - s),
                            },
                        ));
                    }
                }
            }
        }
        let obj = &mut st.objs[o as usize];
        for (s, _) in over {
            obj.cells.remove(&s);
        }
        for (b, c) in pieces {
            obj.cells.insert(b, c);
        }
        obj.cells.insert(off, Cell { bytes, val: v });
        exact
    }

    // ---------------------------------------------------------------- state

    fn empty_state(&self) -> State<'c> {
        State {
            threads: Vec::new(),
            objs: Vec::new(),
            mutex: BTreeMap::new(),
            conds: BTreeMap::new(),
            pcon: Vec::new(),
            inputs: Vec::new(),
            nondet_count: 0,
            seg: Seg::default(),
            sched: Vec::new(),
            tr_acc: Vec::new(),
            created: Vec::new(),
            steps: 0,
            normalizing: false,
            tail_run: None,
        }
    }

    fn initial_state(&self, f: usize) -> State<'c> {
        let mut st = self.empty_state();
        st.objs = self.init_objs.clone();
        let mut fr = self.frame(f);
        for p in &self.m.functions[f].parameters {
            let w = self.bits_of(&p.ty).unwrap_or(32);
            fr.regs.insert(p.name.clone(), self.bv(0, w));
        }
        st.threads.push(Thread {
            frames: vec![fr],
            status: TStatus::Run,
            ret: None,
            atomic: 0,
            clock: vec![],
            tail: false,
        });
        st
    }

    fn frame(&self, f: usize) -> Frame<'c> {
        let atomic_fn = self.m.functions[f].name.starts_with("__VERIFIER_atomic_");
        Frame {
            f,
            bb: 0,
            ip: 0,
            prev_bb: usize::MAX,
            regs: HashMap::new(),
            allocas: Vec::new(),
            ret_to: None,
            visits: HashMap::from([(0usize, 1u32)]),
            atomic_fn,
        }
    }

    fn gcs_key(&self, st: &State<'c>) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for t in &st.threads {
            t.status.hash(&mut h);
            t.atomic.hash(&mut h);
            t.tail.hash(&mut h);
            for fr in &t.frames {
                (fr.f, fr.bb, fr.ip).hash(&mut h);
            }
            0xffu8.hash(&mut h);
        }
        st.mutex.hash(&mut h);
        st.conds.hash(&mut h);
        h.finish()
    }

    // -------------------------------------------------------------- solving

    fn check(&mut self, pcon: &[Bool<'c>], extra: &[Bool<'c>]) -> SatResult {
        self.stats.solver_queries += 1;
        let t = Instant::now();
        self.solver.push();
        for c in pcon.iter().chain(extra) {
            self.solver.assert(c);
        }
        let r = self.solver.check();
        self.solver.pop(1);
        self.stats.solver_ms += t.elapsed().as_secs_f64() * 1000.0;
        r
    }

    fn may_be(&mut self, pcon: &[Bool<'c>], c: &Bool<'c>) -> bool {
        let c = c.simplify();
        if let Some(b) = c.as_bool() {
            return b;
        }
        self.check(pcon, &[c]) != SatResult::Unsat
    }

    fn model_inputs(&mut self, st: &State<'c>) -> Vec<InputValue> {
        self.solver.push();
        for c in &st.pcon {
            self.solver.assert(c);
        }
        let mut out = Vec::new();
        if self.solver.check() == SatResult::Sat {
            if let Some(model) = self.solver.get_model() {
                for (n, v) in &st.inputs {
                    let val = model.eval(v, true).and_then(|x| x.as_u64()).unwrap_or(0);
                    out.push(InputValue {
                        name: n.clone(),
                        bits: v.get_size(),
                        value: val,
                    });
                }
            }
        }
        self.solver.pop(1);
        out
    }

    // ----------------------------------------------------------- exploration

    fn timed_out(&mut self) -> bool {
        if self.stop {
            return true;
        }
        if let Some(mr) = self.opts.max_runs {
            if self.stats.runs() + self.stats.partial_runs >= mr {
                self.stop = true;
            }
        }
        if let Some(ms) = self.opts.max_seconds {
            if self.start.elapsed().as_secs_f64() > ms {
                self.stop = true;
            }
        }
        if self.stop {
            self.stats.incomplete = true;
        }
        if self.opts.progress && self.last_progress.elapsed().as_secs_f64() > 1.0 {
            self.last_progress = Instant::now();
            eprintln!(
                "[symex] {:.1}s runs={} partial={} findings={} queries={}",
                self.start.elapsed().as_secs_f64(),
                self.stats.runs(),
                self.stats.partial_runs,
                self.findings.len(),
                self.stats.solver_queries
            );
        }
        self.stop
    }

    fn finish(mut self) -> Exploration {
        self.stats.total_ms = self.start.elapsed().as_secs_f64() * 1000.0;
        self.stats.peak_memory_kb = peak_rss_kb();
        self.stats.summaries = self.ps.len() as u64;
        Exploration {
            findings: self.findings,
            stats: self.stats,
        }
    }

    fn report(
        &mut self,
        st: &State<'c>,
        tid: usize,
        kind: FindingKind,
        msg: String,
        loc: (String, u32),
        func: String,
    ) {
        let location = if loc.0.is_empty() {
            func.clone()
        } else {
            loc.0.clone()
        };
        let key = (kind, location.clone());
        if let Some(&i) = self.fseen.get(&key) {
            self.findings[i].hits += 1;
            return;
        }
        let inputs = self.model_inputs(st);
        if self.opts.progress {
            eprintln!("[symex] {kind:?} at {location}: {msg}");
        }
        self.fseen.insert(key, self.findings.len());
        self.findings.push(Finding {
            kind,
            location,
            line: loc.1,
            function: func,
            message: msg,
            thread: tid,
            inputs,
            schedule: st.sched.clone(),
            hits: 1,
        });
    }

    /// Apply the segment's effects to a weakest precondition.
    fn apply_seg(&self, seg: &Seg<'c>, wp: Bool<'c>) -> Bool<'c> {
        if !self.ag || seg.bad || wp.as_bool() == Some(false) {
            return Bool::from_bool(self.ctx, false);
        }
        let consts: Vec<(BV<'c>, BV<'c>)> = seg
            .ov
            .iter()
            .map(|(n, t)| (BV::new_const(self.ctx, n.as_str(), t.get_size()), t.clone()))
            .collect();
        let pairs: Vec<(&BV<'c>, &BV<'c>)> = consts.iter().map(|(a, b)| (a, b)).collect();
        let w = if pairs.is_empty() {
            wp
        } else {
            wp.substitute(&pairs)
        };
        let mut parts: Vec<&Bool<'c>> = seg.assumes.iter().collect();
        parts.push(&w);
        let body = Bool::and(self.ctx, &parts).simplify();
        if seg.havoc.is_empty() {
            return body;
        }
        // Inputs read after the node are universally quantified.
        let bound: Vec<&dyn Ast<'c>> = seg.havoc.iter().map(|h| h as &dyn Ast<'c>).collect();
        z3::ast::forall_const(self.ctx, &bound, &[], &body)
    }

    /// The summary of `key`, if it may be used with the current sleep set.
    fn ps_lookup(&self, key: u64, sleep: &[(usize, Vec<Access>)]) -> Option<Bool<'c>> {
        let n = self.opts.summary_table_size.max(1);
        let e = self
            .ps
            .get(&((key as usize) % n))
            .filter(|e| e.key == key)?;
        e.asleep
            .iter()
            .all(|t| sleep.iter().any(|(q, _)| q == t))
            .then(|| e.f.clone())
    }

    /// The summary of `key` with the threads asleep when it was computed.
    fn ps_entry(&self, key: u64) -> Option<(Bool<'c>, BTreeSet<usize>)> {
        let n = self.opts.summary_table_size.max(1);
        let e = self
            .ps
            .get(&((key as usize) % n))
            .filter(|e| e.key == key)?;
        Some((e.f.clone(), e.asleep.clone()))
    }

    fn ps_merge(&mut self, key: u64, wp: &Bool<'c>, sleep: &[(usize, Vec<Access>)]) {
        if wp.as_bool() == Some(false) {
            return;
        }
        let n = self.opts.summary_table_size.max(1);
        let slot = (key as usize) % n;
        let maxm = self.opts.summary_max_merges;
        match self.ps.get_mut(&slot) {
            Some(e) if e.key == key => {
                if e.merges < maxm {
                    e.f = Bool::or(self.ctx, &[&e.f, wp]).simplify();
                    e.merges += 1;
                    e.asleep.extend(sleep.iter().map(|(t, _)| *t));
                }
            }
            _ => {
                // Bounded table: a colliding entry is dropped (its summary
                // becomes `false`), an under-approximation (§6.2).
                self.ps.insert(
                    slot,
                    PsEntry {
                        key,
                        f: wp.clone(),
                        merges: 1,
                        asleep: sleep.iter().map(|(t, _)| *t).collect(),
                    },
                );
            }
        }
    }

    /// Value of a state variable in `st`.
    fn sv_value(&self, st: &State<'c>, name: &str, bits: u32) -> Option<BV<'c>> {
        let mut it = name.split('!');
        match it.next()? {
            "r" => {
                let t: usize = it.next()?.parse().ok()?;
                let d: usize = it.next()?.parse().ok()?;
                let rn = it.next()?;
                let fr = st.threads.get(t)?.frames.get(d)?;
                let n = match rn.parse::<usize>() {
                    Ok(k) => Name::Number(k),
                    Err(_) => Name::from(rn),
                };
                let v = fr.regs.get(&n)?;
                (v.get_size() == bits).then(|| v.clone())
            }
            "m" => {
                let o: usize = it.next()?.parse().ok()?;
                let off: u64 = it.next()?.parse().ok()?;
                let bytes: u64 = it.next()?.parse().ok()?;
                let obj = st.objs.get(o)?;
                if !obj.alive {
                    return None;
                }
                match obj.cells.get(&off) {
                    Some(c) if c.bytes == bytes && c.val.get_size() == bits => Some(c.val.clone()),
                    Some(_) => None,
                    None => {
                        let over = obj
                            .cells
                            .range(..off + bytes)
                            .any(|(s, c)| s + c.bytes > off);
                        (!over).then(|| self.bv(0, bits))
                    }
                }
            }
            _ => None,
        }
    }

    fn collect_svars(
        &self,
        f: &Dynamic<'c>,
        seen: &mut HashSet<Dynamic<'c>>,
        out: &mut Vec<(String, u32)>,
    ) -> bool {
        if !seen.insert(f.clone()) {
            return true;
        }
        if !f.is_app() {
            // Quantifier: its free state variables stay unsubstituted, which
            // only makes the implication check harder to pass (sound).
            return true;
        }
        if f.is_const() {
            let n = f.decl().name();
            if n.starts_with("r!") || n.starts_with("m!") {
                let w = f.as_bv().map(|b| b.get_size()).unwrap_or(0);
                out.push((n, w));
            } else if n.starts_with("h!") {
                return false;
            }
            return true;
        }
        for ch in f.children() {
            if !self.collect_svars(&ch, seen, out) {
                return false;
            }
        }
        true
    }

    /// pcon → PS[s] under the state's memory?
    fn implied(&mut self, st: &State<'c>, ps: &Bool<'c>) -> bool {
        if ps.as_bool() == Some(true) {
            return true;
        }
        let mut vars = Vec::new();
        let mut seen = HashSet::new();
        if !self.collect_svars(&Dynamic::from_ast(ps), &mut seen, &mut vars) {
            return false;
        }
        let mut consts = Vec::new();
        for (n, w) in &vars {
            match self.sv_value(st, n, *w) {
                Some(v) => consts.push((BV::new_const(self.ctx, n.as_str(), *w), v)),
                None => return false,
            }
        }
        let pairs: Vec<(&BV<'c>, &BV<'c>)> = consts.iter().map(|(a, b)| (a, b)).collect();
        let f = ps.substitute(&pairs).simplify();
        if f.as_bool() == Some(true) {
            return true;
        }
        self.check(&st.pcon, &[f.not()]) == SatResult::Unsat
    }

    /// When a subtree is pruned, pretend the accesses recorded below the
    /// node were executed (RVar/WVar, §5.2).
    fn prune_dpor_update(&mut self, st: &State<'c>, key: u64) {
        if !self.dpor {
            return;
        }
        let acc: Vec<(usize, Access)> = self
            .rw
            .get(&key)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        for (q, a) in acc {
            let clock = st
                .threads
                .get(q)
                .map(|t| t.clock.clone())
                .unwrap_or_default();
            self.race_update(q, &[a], &clock);
        }
    }

    /// FG backtrack-set update for thread `p` about to do `acc` with clock `clock`.
    fn race_update(&mut self, p: usize, acc: &[Access], clock: &[usize]) {
        for i in (0..self.nodes.len()).rev() {
            let Some(tr) = &self.nodes[i].tr else {
                continue;
            };
            if tr.tid == p || !dependent(&tr.acc, acc) {
                continue;
            }
            let hb = clock.get(tr.tid).copied().unwrap_or(0) > i;
            if hb {
                continue;
            }
            let n = &mut self.nodes[i];
            if n.enabled.contains(&p) {
                n.backtrack.insert(p);
            } else {
                let en = n.enabled.clone();
                n.backtrack.extend(en);
            }
            break;
        }
    }

    /// Drop accesses to globals that no instruction of the slice reads:
    /// their order cannot matter (§6.1).
    fn relevant_acc(&self, mut acc: Vec<Access>) -> Vec<Access> {
        if let Some(sl) = &self.slice {
            acc.retain(|a| match &a.res {
                Res::Mem(o, _, _) => match self.obj_global.get(o) {
                    Some(g) => sl.global_relevant(g),
                    None => true,
                },
                _ => true,
            });
        }
        acc
    }

    /// Record the transition that just ended in the parent node.
    fn commit(&mut self, st: &mut State<'c>, tid: usize) {
        let acc = std::mem::take(&mut st.tr_acc);
        let acc = self.relevant_acc(acc);
        let created = std::mem::take(&mut st.created);
        let Some(d) = self.nodes.len().checked_sub(1) else {
            return;
        };
        let n = st.threads.len();
        let pre = st.threads[tid].clock.clone();
        if self.dpor {
            self.race_update(tid, &acc, &pre);
        }
        let mut c = pre;
        c.resize(n, 0);
        for i in 0..d {
            if let Some(tr) = &self.nodes[i].tr {
                if dependent(&tr.acc, &acc) {
                    for (k, v) in tr.clock.iter().enumerate() {
                        if k < c.len() && *v > c[k] {
                            c[k] = *v;
                        }
                    }
                }
            }
        }
        c[tid] = d + 1;
        st.threads[tid].clock = c.clone();
        for t in created {
            st.threads[t].clock = c.clone();
        }
        for k in &self.open {
            let e = self.rw.entry(*k).or_default();
            for a in &acc {
                e.insert((tid, a.clone()));
            }
        }
        self.nodes[d].tr = Some(Tr { tid, acc, clock: c });
    }

    fn next_of(&self, st: &State<'c>, t: usize) -> Next {
        match self.next_of_raw(st, t) {
            Next::Enabled(a) => Next::Enabled(self.relevant_acc(a)),
            Next::Disabled(a) => Next::Disabled(self.relevant_acc(a)),
            Next::Tail => Next::Tail,
            Next::Cut => Next::Cut,
            Next::Done => Next::Done,
        }
    }

    fn next_of_raw(&self, st: &State<'c>, t: usize) -> Next {
        let th = &st.threads[t];
        if th.tail && th.status == TStatus::Run {
            return Next::Tail;
        }
        match &th.status {
            TStatus::Done => Next::Done,
            TStatus::Cut => Next::Cut,
            TStatus::WaitCond { cond, .. } => Next::Disabled(vec![Access {
                res: Res::Cond(*cond),
                write: true,
            }]),
            TStatus::Reacquire { mutex } => {
                let a = vec![Access {
                    res: Res::Mutex(*mutex),
                    write: true,
                }];
                if st.mutex.contains_key(mutex) {
                    Next::Disabled(a)
                } else {
                    Next::Enabled(a)
                }
            }
            TStatus::Run => {
                let fr = th.frames.last().unwrap();
                let bb = &self.m.functions[fr.f].basic_blocks[fr.bb];
                if fr.ip >= bb.instrs.len() {
                    return Next::Enabled(vec![]);
                }
                match self.visible_access(st, t, &bb.instrs[fr.ip]) {
                    Some((acc, enabled)) if acc.iter().any(|a| matches!(a.res, Res::All)) => {
                        let acc = self.atomic_peek(fr.f, fr.bb, fr.ip).unwrap_or(acc);
                        if enabled {
                            Next::Enabled(acc)
                        } else {
                            Next::Disabled(acc)
                        }
                    }
                    Some((acc, enabled)) => {
                        if enabled {
                            Next::Enabled(acc)
                        } else {
                            Next::Disabled(acc)
                        }
                    }
                    None => Next::Enabled(vec![]),
                }
            }
        }
    }

    /// Accesses of a straight-line atomic section starting at a call to
    /// `__VERIFIER_atomic_begin`, when every access in it is to a global
    /// named directly (otherwise `None`: dependent with everything).
    fn atomic_peek(&self, f: usize, bb: usize, ip: usize) -> Option<Vec<Access>> {
        let block = &self.m.functions[f].basic_blocks[bb];
        match &block.instrs[ip] {
            Instruction::Call(c)
                if callee_name(c).as_deref() == Some("__VERIFIER_atomic_begin") => {}
            _ => return None,
        }
        let global = |op: &Operand| -> Option<u32> {
            match op {
                Operand::ConstantOperand(c) => match c.as_ref() {
                    Constant::GlobalReference { name, .. } => self.obj_global_rev(name),
                    _ => None,
                },
                _ => None,
            }
        };
        let mut acc = Vec::new();
        for i in &block.instrs[ip + 1..] {
            let (o, w) = match i {
                Instruction::Load(l) => (global(&l.address)?, false),
                Instruction::Store(s) => (global(&s.address)?, true),
                Instruction::Call(c) => {
                    let n = callee_name(c).unwrap_or_default();
                    if n.starts_with("llvm.dbg.") {
                        continue;
                    }
                    return (n == "__VERIFIER_atomic_end").then_some(acc);
                }
                Instruction::AtomicRMW(_) | Instruction::CmpXchg(_) => return None,
                _ => continue,
            };
            let size = self.init_objs.get(o as usize).map(|x| x.size).unwrap_or(1);
            acc.push(Access {
                res: Res::Mem(o, 0, size.max(1)),
                write: w,
            });
        }
        None
    }

    fn obj_global_rev(&self, name: &Name) -> Option<u32> {
        self.globals
            .get(name)
            .copied()
            .filter(|o| self.obj_global.contains_key(o))
    }

    fn explore_sched(
        &mut self,
        mut st: State<'c>,
        tid: usize,
        sleep: Vec<(usize, Vec<Access>)>,
    ) -> Bool<'c> {
        let seg = std::mem::take(&mut st.seg);
        if st.normalizing {
            st.normalizing = false;
            st.tail_run = None;
            st.tr_acc.retain(|a| !matches!(a.res, Res::ThreadEnd(_)));
        } else {
            self.commit(&mut st, tid);
        }
        let w = self.sched_inner(st, sleep);
        self.apply_seg(&seg, w)
    }

    fn sched_inner(&mut self, st: State<'c>, sleep: Vec<(usize, Vec<Access>)>) -> Bool<'c> {
        let tru = Bool::from_bool(self.ctx, true);
        let fls = Bool::from_bool(self.ctx, false);
        if self.timed_out() {
            return fls;
        }
        // New threads first run their local prefix (it commutes with
        // everything), so that every thread sits at a visible operation.
        if let Some(u) = (0..st.threads.len()).find(|&u| self.unpositioned(&st, u)) {
            let mut st = st;
            st.normalizing = true;
            return self.run_thread(st, u, false, sleep);
        }
        let nexts: Vec<Next> = (0..st.threads.len())
            .map(|t| self.next_of(&st, t))
            .collect();
        if nexts.iter().all(|n| matches!(n, Next::Done)) {
            if self.debug {
                eprintln!("complete run: schedule {:?}", st.sched);
            }
            self.stats.complete_runs += 1;
            return tru;
        }
        let mut enabled: Vec<usize> = (0..nexts.len())
            .filter(|t| matches!(nexts[*t], Next::Enabled(_)))
            .collect();
        // FG: every thread's next operation (enabled or not) may race with
        // an earlier transition; done at every state, including deadlocked
        // ones and those where a deferred tail runs.
        if self.dpor {
            for (p, n) in nexts.iter().enumerate() {
                if let Next::Enabled(a) | Next::Disabled(a) = n {
                    // An atomic section's accesses that could not be
                    // predicted are only known once it ran; its race check
                    // happens at commit time.
                    if a.iter().any(|x| matches!(x.res, Res::All)) {
                        continue;
                    }
                    let c = st.threads[p].clock.clone();
                    self.race_update(p, a, &c);
                }
            }
        }
        // An atomic section excludes every other thread while its owner can move.
        if let Some(a) = enabled.iter().find(|t| st.threads[**t].atomic > 0) {
            enabled = vec![*a];
        }
        // Deferred tails run when nothing else can move, or as soon as a
        // thread waits to join them (they commute with everything else).
        let tails: Vec<usize> = (0..nexts.len())
            .filter(|t| matches!(nexts[*t], Next::Tail))
            .collect();
        if !tails.is_empty() {
            let joined = tails.iter().copied().find(|u| {
                nexts.iter().any(|n| {
                    matches!(n, Next::Disabled(a) if a.iter().any(|x| x.res == Res::ThreadEnd(*u)))
                })
            });
            if enabled.is_empty() || joined.is_some() {
                let u = joined.unwrap_or(tails[0]);
                return self.run_tail(st, u, sleep);
            }
        }
        if enabled.is_empty() && nexts.iter().any(|n| matches!(n, Next::Cut)) {
            // A thread was cut at the loop bound: the run ends here (the
            // others are finished or wait for it), counted as cut.
            self.stats.cut_runs += 1;
            return fls;
        }
        if enabled.is_empty() {
            let blocked: Vec<String> = (0..nexts.len())
                .filter(|t| matches!(nexts[*t], Next::Disabled(_)))
                .map(|t| format!("T{t}"))
                .collect();
            let (loc, fname) = self.thread_loc(&st, blocked.first().map(|_| 0).unwrap_or(0));
            let loc = self.deadlock_loc(&st).unwrap_or((loc, fname));
            self.stats.error_runs += 1;
            self.report(
                &st,
                0,
                FindingKind::Deadlock,
                format!("deadlock: {} blocked", blocked.join(", ")),
                loc.0,
                loc.1,
            );
            return fls;
        }
        let key = self.gcs_key(&st);
        // Summary pruning.  `restricted`: the summary covers every
        // continuation except those starting with threads that were asleep
        // when it was computed but are awake now; only those are explored.
        let mut restricted: Option<(Bool<'c>, Vec<usize>)> = None;
        if self.ag {
            if let Some((ps, asleep)) = self.ps_entry(key) {
                let extra: Vec<usize> = asleep
                    .iter()
                    .copied()
                    .filter(|t| enabled.contains(t) && !sleep.iter().any(|(q, _)| q == t))
                    .collect();
                if self.implied(&st, &ps) {
                    if extra.is_empty() {
                        if self.debug {
                            eprintln!("pruned at schedule {:?}: PS = {ps}", st.sched);
                        }
                        self.stats.partial_runs += 1;
                        self.stats.pruned_interleavings += 1;
                        self.prune_dpor_update(&st, key);
                        return ps;
                    }
                    self.prune_dpor_update(&st, key);
                    restricted = Some((ps, extra));
                }
            }
        }
        if let Some(s) = &self.opts.schedule {
            match s.get(st.sched.len()) {
                Some(t) if enabled.contains(t) => enabled = vec![*t],
                _ => {
                    // Schedule exhausted or diverged: let the run finish with
                    // the lowest enabled thread.
                    enabled.truncate(1);
                }
            }
        }
        self.nodes.push(DNode {
            enabled: enabled.clone(),
            backtrack: BTreeSet::new(),
            done: BTreeSet::new(),
            tr: None,
        });
        self.open.push(key);
        let d = self.nodes.len() - 1;
        let sleeping: HashSet<usize> = sleep.iter().map(|(t, _)| *t).collect();
        let mut wp = match &restricted {
            Some((ps, _)) => ps.clone(),
            None => tru.clone(),
        };
        let mut explored = 0usize;
        // Exploration order: round robin from the thread after the one that
        // ran last (the first run alternates threads, as in the paper's
        // figures; DPOR then flips one race at a time).
        let nthreads = st.threads.len();
        let mut order = enabled.clone();
        if let Some(&last) = st.sched.last() {
            order.sort_by_key(|t| (t + nthreads - last - 1) % nthreads);
        }
        if let Some((_, extra)) = &restricted {
            order.retain(|t| extra.contains(t));
        }
        if self.dpor {
            match order.iter().find(|t| !sleeping.contains(t)) {
                Some(t) => {
                    self.nodes[d].backtrack.insert(*t);
                }
                None => {
                    self.stats.sleep_blocked += 1;
                    self.nodes.pop();
                    self.open.pop();
                    return fls;
                }
            }
        }
        let mut done_acc: Vec<(usize, Vec<Access>)> = Vec::new();
        loop {
            let t = if self.dpor {
                let n = &self.nodes[d];
                match order.iter().find(|t| {
                    n.backtrack.contains(t) && !n.done.contains(t) && !sleeping.contains(t)
                }) {
                    Some(t) => *t,
                    None => break,
                }
            } else {
                match order.iter().find(|t| !self.nodes[d].done.contains(t)) {
                    Some(t) => *t,
                    None => break,
                }
            };
            self.nodes[d].done.insert(t);
            self.nodes[d].tr = None;
            let tacc = match &nexts[t] {
                Next::Enabled(a) => a.clone(),
                _ => vec![],
            };
            let child_sleep: Vec<(usize, Vec<Access>)> = if self.dpor {
                sleep
                    .iter()
                    .chain(done_acc.iter())
                    .filter(|(q, a)| {
                        *q != t && !dependent(a, &tacc) && !tacc.is_empty() && !a.is_empty()
                    })
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            };
            if self.debug {
                eprintln!(
                    "node {:?}: explore T{t} (next {:?}), child sleep {:?}",
                    st.sched, tacc, child_sleep
                );
            }
            let mut child = st.clone();
            child.sched.push(t);
            let w = self.run_thread(child, t, true, child_sleep);
            wp = Bool::and(self.ctx, &[&wp, &w]).simplify();
            explored += 1;
            done_acc.push((t, tacc));
            if self.stop {
                break;
            }
        }
        self.stats.pruned_interleavings += (enabled.len().saturating_sub(explored)) as u64;
        self.nodes.pop();
        self.open.pop();
        // A node entered with a non-empty sleep set explored only the
        // continuations not starting with a sleeping thread: the summary
        // remembers those threads and is only used at a later visit where
        // they are asleep too (sleep sets and state matching, cf. §5.2).
        if self.ag && !self.stop && restricted.is_none() {
            self.ps_merge(key, &wp, &sleep);
        }
        wp
    }

    /// Run the deferred tail of thread `u` (a node with a single successor,
    /// summarised like any other node).
    fn run_tail(
        &mut self,
        mut st: State<'c>,
        u: usize,
        sleep: Vec<(usize, Vec<Access>)>,
    ) -> Bool<'c> {
        let key = self.gcs_key(&st);
        if self.ag {
            if let Some(ps) = self.ps_lookup(key, &sleep) {
                if self.implied(&st, &ps) {
                    if self.debug {
                        eprintln!("pruned before tail at schedule {:?}: PS = {ps}", st.sched);
                    }
                    self.stats.partial_runs += 1;
                    self.prune_dpor_update(&st, key);
                    return ps;
                }
            }
        }
        st.threads[u].tail = false;
        st.normalizing = true;
        st.tail_run = Some(u);
        self.open.push(key);
        let w = self.run_thread(st, u, false, sleep.clone());
        self.open.pop();
        if self.ag && !self.stop {
            self.ps_merge(key, &w, &sleep);
        }
        w
    }

    /// Is every instruction thread `t` can still execute thread-local, and
    /// does it end the thread?  (Static and conservative.)
    fn is_tail(&self, st: &State<'c>, t: usize) -> bool {
        let th = &st.threads[t];
        let n = th.frames.len();
        for (k, fr) in th.frames.iter().enumerate().rev() {
            let f = &self.m.functions[fr.f];
            let start = if k + 1 == n { fr.ip } else { fr.ip + 1 };
            let bb = &f.basic_blocks[fr.bb];
            if bb
                .instrs
                .iter()
                .skip(start)
                .any(|i| self.static_visible(fr.f, i))
            {
                return false;
            }
            let succ = super::slice::block_successors(f, &bb.term);
            if succ.iter().any(|b| self.bb_reach_visible[fr.f][*b]) {
                return false;
            }
        }
        true
    }

    /// May this instruction be (or lead to) a visible operation, or create
    /// a thread?
    fn static_visible(&self, f: usize, i: &Instruction) -> bool {
        match i {
            Instruction::Load(l) => !self.is_private_alloca(f, &l.address),
            Instruction::Store(s) => !self.is_private_alloca(f, &s.address),
            Instruction::AtomicRMW(_) | Instruction::CmpXchg(_) | Instruction::Fence(_) => true,
            Instruction::Call(c) => match callee_name(c) {
                Some(n) => match self.fidx.get(&n) {
                    Some(&fi) if !self.m.functions[fi].basic_blocks.is_empty() => {
                        self.fn_visible.get(fi).copied().unwrap_or(true)
                    }
                    _ => {
                        !(n.starts_with("llvm.dbg.")
                            || n.starts_with("llvm.lifetime.")
                            || n.starts_with("__VERIFIER_nondet_")
                            || matches!(
                                n.as_str(),
                                "__assert_fail"
                                    | "reach_error"
                                    | "__VERIFIER_error"
                                    | "__VERIFIER_assert"
                                    | "__VERIFIER_assume"
                                    | "abort"
                                    | "printf"
                                    | "puts"
                                    | "__VERIFIER_atomic_end"
                            ))
                    }
                },
                None => true,
            },
            _ => false,
        }
    }

    /// An address that is an `alloca` of `f` never stored or passed on.
    fn is_private_alloca(&self, f: usize, op: &Operand) -> bool {
        match op {
            Operand::LocalOperand { name, .. } => self
                .private_allocas
                .get(f)
                .map(|s| s.contains(name))
                .unwrap_or(false),
            _ => false,
        }
    }

    fn compute_private_allocas(&self, func: &Function) -> HashSet<Name> {
        let mut out = HashSet::new();
        let instrs: Vec<&Instruction> = func
            .basic_blocks
            .iter()
            .flat_map(|b| b.instrs.iter())
            .collect();
        for i in &instrs {
            let Instruction::Alloca(a) = i else { continue };
            let name = &a.dest;
            let uses_as_value =
                |o: &Operand| matches!(o, Operand::LocalOperand { name: n, .. } if n == name);
            let escapes = instrs.iter().any(|i| match i {
                Instruction::Store(s) => uses_as_value(&s.value),
                Instruction::Call(c) => {
                    !callee_name(c)
                        .map(|n| n.starts_with("llvm."))
                        .unwrap_or(false)
                        && c.arguments.iter().any(|(a, _)| uses_as_value(a))
                }
                Instruction::GetElementPtr(_)
                | Instruction::BitCast(_)
                | Instruction::PtrToInt(_) => {
                    Self::pure_operands_of(i).into_iter().any(uses_as_value)
                }
                _ => false,
            });
            if !escapes {
                out.insert(name.clone());
            }
        }
        out
    }

    fn pure_operands_of(i: &Instruction) -> Vec<&Operand> {
        match i {
            Instruction::GetElementPtr(g) => vec![&g.address],
            Instruction::BitCast(c) => vec![&c.operand],
            Instruction::PtrToInt(c) => vec![&c.operand],
            _ => vec![],
        }
    }

    fn compute_tail_info(&mut self) {
        self.private_allocas = self
            .m
            .functions
            .iter()
            .map(|f| self.compute_private_allocas(f))
            .collect();
        let nf = self.m.functions.len();
        self.fn_visible = vec![true; nf];
        // Fixpoint from "nothing visible" upwards.
        let mut vis = vec![false; nf];
        loop {
            self.fn_visible = vis.clone();
            let mut changed = false;
            for (fi, f) in self.m.functions.iter().enumerate() {
                if vis[fi] {
                    continue;
                }
                let v = f.name.starts_with("__VERIFIER_atomic_")
                    || f.basic_blocks
                        .iter()
                        .flat_map(|b| b.instrs.iter())
                        .any(|i| self.static_visible(fi, i));
                if v {
                    vis[fi] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        self.fn_visible = vis;
        self.bb_reach_visible = self
            .m
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                let n = f.basic_blocks.len();
                let succ: Vec<Vec<usize>> = f
                    .basic_blocks
                    .iter()
                    .map(|b| super::slice::block_successors(f, &b.term))
                    .collect();
                let own: Vec<bool> = f
                    .basic_blocks
                    .iter()
                    .map(|b| b.instrs.iter().any(|i| self.static_visible(fi, i)))
                    .collect();
                let mut reach = own.clone();
                let mut changed = true;
                while changed {
                    changed = false;
                    for b in 0..n {
                        if !reach[b] && succ[b].iter().any(|s| reach[*s]) {
                            reach[b] = true;
                            changed = true;
                        }
                    }
                }
                reach
            })
            .collect();
        self.suffix_visible = self
            .m
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                f.basic_blocks
                    .iter()
                    .map(|b| {
                        let mut v = vec![false; b.instrs.len() + 1];
                        for k in (0..b.instrs.len()).rev() {
                            v[k] = v[k + 1] || self.static_visible(fi, &b.instrs[k]);
                        }
                        v
                    })
                    .collect()
            })
            .collect();
    }

    fn unpositioned(&self, st: &State<'c>, t: usize) -> bool {
        let th = &st.threads[t];
        if th.status != TStatus::Run || th.tail {
            return false;
        }
        let fr = th.frames.last().unwrap();
        let bb = &self.m.functions[fr.f].basic_blocks[fr.bb];
        fr.ip >= bb.instrs.len() || self.visible_access(st, t, &bb.instrs[fr.ip]).is_none()
    }

    /// Location of a deadlock: the first thread blocked on a mutex or
    /// condition variable, else the first unfinished thread.
    fn deadlock_loc(&self, st: &State<'c>) -> Option<((String, u32), String)> {
        let on_sync = (0..st.threads.len()).find(|t| match self.next_of_raw(st, *t) {
            Next::Disabled(a) => a
                .iter()
                .any(|x| matches!(x.res, Res::Mutex(_) | Res::Cond(_))),
            _ => false,
        });
        let t = on_sync.or_else(|| st.threads.iter().position(|th| th.status != TStatus::Done))?;
        Some(self.thread_loc(st, t))
    }

    fn thread_loc(&self, st: &State<'c>, t: usize) -> ((String, u32), String) {
        let th = &st.threads[t];
        match th.frames.last() {
            Some(fr) => {
                let f = &self.m.functions[fr.f];
                let bb = &f.basic_blocks[fr.bb];
                let dl = if fr.ip < bb.instrs.len() {
                    bb.instrs[fr.ip].get_debug_loc().clone()
                } else {
                    bb.term.get_debug_loc().clone()
                };
                (loc_of(&dl), f.name.clone())
            }
            None => ((String::new(), 0), String::new()),
        }
    }

    /// Run thread `tid` from `st`: its visible operation first (when
    /// `first`), then local operations up to the next visible one.
    fn run_thread(
        &mut self,
        mut st: State<'c>,
        tid: usize,
        first: bool,
        sleep: Vec<(usize, Vec<Access>)>,
    ) -> Bool<'c> {
        let fls = Bool::from_bool(self.ctx, false);
        let mut first = first;
        loop {
            if st.threads[tid].status == TStatus::Done {
                return self.explore_sched(st, tid, sleep);
            }
            st.steps += 1;
            if st.steps > MAX_STEPS {
                self.stats.cut_runs += 1;
                return fls;
            }
            let mut vis = false;
            if let TStatus::WaitCond { .. } | TStatus::Reacquire { .. } = st.threads[tid].status {
                vis = true;
                if !first {
                    return self.explore_sched(st, tid, sleep);
                }
            } else {
                let fr = st.threads[tid].frames.last().unwrap();
                let bb = &self.m.functions[fr.f].basic_blocks[fr.bb];
                if fr.ip < bb.instrs.len() {
                    if let Some((_, enabled)) = self.visible_access(&st, tid, &bb.instrs[fr.ip]) {
                        vis = true;
                        if !first && (st.threads[tid].atomic == 0 || !enabled) {
                            return self.explore_sched(st, tid, sleep);
                        }
                    }
                }
            }
            if !first
                && !vis
                && st.tail_run != Some(tid)
                && st.threads[tid].atomic == 0
                && st.threads[tid].status == TStatus::Run
                && self.is_tail(&st, tid)
            {
                st.threads[tid].tail = true;
                return self.explore_sched(st, tid, sleep);
            }
            if vis {
                first = false;
            }
            match self.step(&mut st, tid) {
                Ok(Step::Continue) => {}
                Ok(Step::Yield) => return self.explore_sched(st, tid, sleep),
                Ok(Step::End(EndKind::Cut)) => {
                    st.threads[tid].status = TStatus::Cut;
                    st.threads[tid].tail = false;
                    st.threads[tid].atomic = 0;
                    return self.explore_sched(st, tid, sleep);
                }
                Ok(Step::End(k)) => {
                    match k {
                        EndKind::AssumeFalse => self.stats.assume_false += 1,
                        EndKind::Cut => unreachable!("handled above"),
                        EndKind::Finding(kind, msg) => {
                            self.stats.error_runs += 1;
                            let (loc, f) = self.thread_loc(&st, tid);
                            self.report(&st, tid, kind, msg, loc, f);
                        }
                    }
                    return fls;
                }
                Ok(Step::Fork { alts }) => return self.fork(st, tid, alts, sleep, first),
                Err(msg) => {
                    self.stats.error_runs += 1;
                    let (loc, f) = self.thread_loc(&st, tid);
                    self.report(&st, tid, FindingKind::Unsupported, msg, loc, f);
                    return fls;
                }
            }
        }
    }

    fn fork(
        &mut self,
        mut st: State<'c>,
        tid: usize,
        alts: Vec<(Bool<'c>, Bool<'c>, usize)>,
        sleep: Vec<(usize, Vec<Access>)>,
        first: bool,
    ) -> Bool<'c> {
        let seg = std::mem::take(&mut st.seg);
        let key = self.gcs_key(&st);
        if self.ag {
            if let Some(ps) = self.ps_lookup(key, &sleep) {
                if self.implied(&st, &ps) {
                    self.stats.partial_runs += 1;
                    self.stats.pruned_branches += 1;
                    self.prune_dpor_update(&st, key);
                    return self.apply_seg(&seg, ps);
                }
            }
        }
        self.open.push(key);
        // The branch condition over the state variables of this node.
        let mut wp = Bool::from_bool(self.ctx, false);
        for (cond, condsv, target) in alts {
            if self.stop {
                break;
            }
            let mut child = st.clone();
            child.pcon.push(cond);
            if let Err(m) = self.jump(&mut child, tid, target) {
                if m == "cut" {
                    child.threads[tid].status = TStatus::Cut;
                    child.threads[tid].tail = false;
                    child.threads[tid].atomic = 0;
                    let w = self.explore_sched(child, tid, sleep.clone());
                    let w = Bool::and(self.ctx, &[&condsv, &w]);
                    wp = Bool::or(self.ctx, &[&wp, &w]).simplify();
                } else {
                    let (loc, f) = self.thread_loc(&child, tid);
                    self.report(&child, tid, FindingKind::Unsupported, m, loc, f);
                }
                continue;
            }
            let w = self.run_thread(child, tid, first, sleep.clone());
            let w = Bool::and(self.ctx, &[&condsv, &w]);
            wp = Bool::or(self.ctx, &[&wp, &w]).simplify();
        }
        self.open.pop();
        if self.ag && !self.stop {
            self.ps_merge(key, &wp, &sleep);
        }
        self.apply_seg(&seg, wp)
    }

    // ------------------------------------------------------------ operands

    fn op_val(&self, st: &State<'c>, tid: usize, op: &Operand) -> Result<BV<'c>, String> {
        match op {
            Operand::LocalOperand { name, .. } => {
                let fr = st.threads[tid].frames.last().unwrap();
                fr.regs
                    .get(name)
                    .cloned()
                    .ok_or_else(|| format!("undefined register {name}"))
            }
            Operand::ConstantOperand(c) => self.const_val(c),
            Operand::MetadataOperand => Err("metadata operand".into()),
        }
    }

    fn reg_sv_name(st: &State<'c>, tid: usize, name: &Name) -> String {
        let d = st.threads[tid].frames.len() - 1;
        format!("r!{tid}!{d}!{}", name_str(name))
    }

    /// State-variable (wp) view of an operand.
    fn op_sv(&self, st: &State<'c>, tid: usize, op: &Operand) -> Result<BV<'c>, String> {
        match op {
            Operand::LocalOperand { name, .. } => {
                let n = Self::reg_sv_name(st, tid, name);
                if let Some(v) = st.seg.ov.get(&n) {
                    return Ok(v.clone());
                }
                let w = self.op_val(st, tid, op)?.get_size();
                Ok(BV::new_const(self.ctx, n, w))
            }
            _ => self.op_val(st, tid, op),
        }
    }

    fn set_reg(&self, st: &mut State<'c>, tid: usize, name: &Name, v: BV<'c>, sv: Option<BV<'c>>) {
        if self.ag {
            let n = Self::reg_sv_name(st, tid, name);
            st.seg.ov.insert(n, sv.unwrap_or_else(|| v.clone()));
        }
        st.threads[tid]
            .frames
            .last_mut()
            .unwrap()
            .regs
            .insert(name.clone(), v);
    }

    // ---------------------------------------------------------- visibility

    fn addr_of(&self, st: &State<'c>, tid: usize, op: &Operand) -> Option<(u32, Option<u64>)> {
        let p = self.op_val(st, tid, op).ok()?;
        let (o, off) = self.ptr_parts(&p);
        Some((o?, off.as_u64()))
    }

    fn is_shared(&self, st: &State<'c>, o: u32) -> bool {
        st.objs
            .get(o as usize)
            .map(|ob| ob.escaped && !ob.readonly)
            .unwrap_or(true)
    }

    fn mem_access(
        &self,
        st: &State<'c>,
        o: u32,
        off: Option<u64>,
        bytes: u64,
        write: bool,
    ) -> Access {
        let size = st.objs.get(o as usize).map(|x| x.size).unwrap_or(0);
        let (lo, hi) = match off {
            Some(x) => (x, x + bytes.max(1)),
            None => (0, size.max(1)),
        };
        Access {
            res: Res::Mem(o, lo, hi),
            write,
        }
    }

    fn sync_addr(&self, st: &State<'c>, tid: usize, op: &Operand) -> Option<Addr> {
        let (o, off) = self.addr_of(st, tid, op)?;
        Some((o, off?))
    }

    /// If the instruction is visible: its accesses and whether it is enabled.
    fn visible_access(
        &self,
        st: &State<'c>,
        tid: usize,
        i: &Instruction,
    ) -> Option<(Vec<Access>, bool)> {
        let memop = |addr: &Operand, ty: TypeRef, write: bool| -> Option<(Vec<Access>, bool)> {
            match self.addr_of(st, tid, addr) {
                Some((o, off)) => {
                    if !self.is_shared(st, o) {
                        return None;
                    }
                    let b = self.size_of(&ty);
                    Some((vec![self.mem_access(st, o, off, b, write)], true))
                }
                None => Some((
                    vec![Access {
                        res: Res::All,
                        write: true,
                    }],
                    true,
                )),
            }
        };
        match i {
            Instruction::Load(l) => memop(&l.address, self.m.type_of(l), false),
            Instruction::Store(s) => memop(&s.address, self.m.type_of(&s.value), true),
            Instruction::AtomicRMW(a) => memop(&a.address, self.m.type_of(&a.value), true),
            Instruction::CmpXchg(a) => memop(&a.address, self.m.type_of(&a.expected), true),
            Instruction::Call(c) => {
                let name = callee_name(c)?;
                if name.starts_with("__VERIFIER_atomic_") && name != "__VERIFIER_atomic_end" {
                    return Some((
                        vec![Access {
                            res: Res::All,
                            write: true,
                        }],
                        true,
                    ));
                }
                if !SYNC_CALLS.contains(&name.as_str()) {
                    return None;
                }
                let arg = |k: usize| c.arguments.get(k).map(|a| &a.0);
                match name.as_str() {
                    "pthread_join" => {
                        let t = self.op_val(st, tid, arg(0)?).ok()?.simplify().as_u64()? as usize;
                        let done = st
                            .threads
                            .get(t)
                            .map(|x| x.status == TStatus::Done)
                            .unwrap_or(true);
                        Some((
                            vec![Access {
                                res: Res::ThreadEnd(t),
                                write: false,
                            }],
                            done,
                        ))
                    }
                    "pthread_mutex_lock" => {
                        let a = self.sync_addr(st, tid, arg(0)?)?;
                        Some((
                            vec![Access {
                                res: Res::Mutex(a),
                                write: true,
                            }],
                            !st.mutex.contains_key(&a),
                        ))
                    }
                    "pthread_mutex_unlock"
                    | "pthread_mutex_trylock"
                    | "pthread_mutex_init"
                    | "pthread_mutex_destroy" => {
                        let a = self.sync_addr(st, tid, arg(0)?)?;
                        Some((
                            vec![Access {
                                res: Res::Mutex(a),
                                write: true,
                            }],
                            true,
                        ))
                    }
                    "pthread_cond_wait" => {
                        let c0 = self.sync_addr(st, tid, arg(0)?)?;
                        let m0 = self.sync_addr(st, tid, arg(1)?)?;
                        Some((
                            vec![
                                Access {
                                    res: Res::Cond(c0),
                                    write: true,
                                },
                                Access {
                                    res: Res::Mutex(m0),
                                    write: true,
                                },
                            ],
                            true,
                        ))
                    }
                    "pthread_cond_signal"
                    | "pthread_cond_broadcast"
                    | "pthread_cond_init"
                    | "pthread_cond_destroy" => {
                        let a = self.sync_addr(st, tid, arg(0)?)?;
                        Some((
                            vec![Access {
                                res: Res::Cond(a),
                                write: true,
                            }],
                            true,
                        ))
                    }
                    _ => Some((
                        vec![Access {
                            res: Res::All,
                            write: true,
                        }],
                        true,
                    )),
                }
            }
            _ => None,
        }
    }
}

fn const_int(c: &ConstantRef) -> Option<u64> {
    match c.as_ref() {
        Constant::Int { value, .. } => Some(*value),
        _ => None,
    }
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|x| x.parse().ok()))
        })
        .unwrap_or(0)
}

mod interp;
