//! Which accesses surely touch one memory cell: the must-alias facts of
//! `store_strong`, `store_same_object` and the covered-access dataflows.
//!
//! A location of the points-to facts may stand for many cells: a heap
//! object for every allocation at its site, `[*]` for every element. A
//! store to such a location does not surely overwrite what a load of it
//! reads. Two accesses do touch one cell when their addresses are
//! computed alike (the same SSA values of one function instance, the
//! same constants and globals): each value is defined once per
//! activation, and its definition dominates its uses. So when a store w
//! dominates a load r with the same address key, the last w before r ran
//! in r's activation, on r's cell (order.rs finds the pairs on the event
//! dominator tree); the dataflows of sections.rs drop a key where one of
//! its values is defined again. A heap object the model allocates at most
//! once is one cell per field, whatever pointer reaches it.

use super::ir_facts::{InsnId, ObjId, ObjKind};
use super::order::ThreadGraph;
use super::pointsto::{AbsObj, LocId, PointsTo};
use super::program::{CallCutWhy, FInstId, ProgramModel, Site, StmtId};
use llvm_ir::instruction::Instruction as I;
use llvm_ir::{Name, Operand, TypeRef};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BTreeSet};

/// One step from an address back to its base pointer. Types by identity:
/// llvm-ir interns them, and hashing a `TypeRef` hashes the whole type
/// (at 50 KLoC that doubled the time of this pass).
#[derive(PartialEq, Eq, Hash)]
enum Step {
    /// A `getelementptr`: its source type and indices.
    Gep { source: usize, indices: Vec<Value> },
    /// A cast that keeps the address (`bitcast`, `addrspacecast`).
    Cast { to: usize },
}

fn type_id(t: &TypeRef) -> usize {
    t.as_ref() as *const llvm_ir::Type as usize
}

/// An operand of an address: a constant integer, a global, or an SSA value
/// of the access's function instance.
#[derive(PartialEq, Eq, Hash, Clone)]
enum Value {
    Int(u64),
    Global(Name),
    Local(Name),
    /// An integer cast (`sext`, `zext`, `trunc`: opcode and type) of a
    /// value: clang casts an index anew at each `a[k]`.
    Cast(u8, usize, Box<Value>),
}

/// The address of an access: a base pointer and the steps from it, in one
/// function instance.
#[derive(PartialEq, Eq, Hash)]
struct AddressKey {
    finst: usize,
    base: Value,
    steps: Vec<Step>,
}

impl AddressKey {
    /// The SSA values the address is computed from.
    fn locals(&self) -> impl Iterator<Item = &Name> {
        let indices = self.steps.iter().flat_map(|step| match step {
            Step::Gep { indices, .. } => indices.as_slice(),
            Step::Cast { .. } => &[],
        });
        std::iter::once(&self.base).chain(indices).filter_map(|v| {
            let mut v = v;
            while let Value::Cast(_, _, inner) = v {
                v = inner;
            }
            match v {
                Value::Local(n) => Some(n),
                _ => None,
            }
        })
    }
}

/// How far back through address arithmetic an address is followed.
const MAX_STEPS: usize = 16;

/// Address keys of the accesses to locations that stand for more than
/// one memory cell: a heap object allocated more than once, an element
/// `[*]`, fields folded at the depth bound. Two accesses with one key
/// touch one cell whenever they run in one activation of their function
/// and no value the address is computed from was defined again between
/// them.
pub struct AddressKeys {
    /// Each keyed access (single target, such a location) -> its key id.
    pub of: HashMap<StmtId, u32>,
    /// Each statement that defines a value some key is computed from (the
    /// first statement of the instance, for a parameter) -> those keys:
    /// past it, the address names another cell.
    pub kills: HashMap<StmtId, Vec<u32>>,
}

/// Whether location `c` is one memory cell (`once`: the heap objects
/// allocated at most once, [`allocated_once`]): a path without `[*]` short of the depth bound,
/// not in a heap object allocated more than once.
pub fn one_cell(pt: &PointsTo, once: &HashSet<AbsObj>, c: LocId) -> bool {
    pt.path_is_one_cell(c)
        && pt
            .heap_site(c)
            .map_or(true, |_| once.contains(&pt.locs[c as usize].obj))
}

/// The keys of single-target stores (`stores`) and loads (`loads`: the
/// shared cells each reads) of locations that are not one cell. Only a
/// store and another access of one location in one function instance
/// can pair up: the keys of the others are not worth finding.
pub fn address_keys(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    once: &HashSet<AbsObj>,
    stores: &BTreeMap<StmtId, LocId>,
    loads: &BTreeMap<StmtId, Vec<LocId>>,
) -> AddressKeys {
    let many = |c: LocId| !one_cell(pt, once, c);
    let single_loads = loads
        .iter()
        .filter_map(|(&s, cells)| match cells.as_slice() {
            [c] => Some((s, *c)),
            _ => None,
        });
    let keyed_stores: Vec<(StmtId, LocId, usize)> = stores
        .iter()
        .filter(|(_, &c)| many(c))
        .filter_map(|(&s, &c)| Some((s, c, model.finst_of(s)?)))
        .collect();
    let mut stored: HashMap<(LocId, usize), usize> = HashMap::default();
    for &(_, c, f) in &keyed_stores {
        *stored.entry((c, f)).or_default() += 1;
    }
    let keyed_loads: Vec<(StmtId, LocId, usize)> = single_loads
        .filter(|&(_, c)| many(c))
        .filter_map(|(s, c)| Some((s, c, model.finst_of(s)?)))
        .filter(|&(_, c, f)| stored.contains_key(&(c, f)))
        .collect();
    let loaded: HashSet<(LocId, usize)> = keyed_loads.iter().map(|&(_, c, f)| (c, f)).collect();
    let accesses = keyed_stores
        .into_iter()
        .filter(|&(_, c, f)| stored[&(c, f)] > 1 || loaded.contains(&(c, f)))
        .chain(keyed_loads)
        .map(|(s, _, _)| s);
    let mut ids: HashMap<AddressKey, u32> = HashMap::default();
    let mut of = HashMap::default();
    for s in accesses {
        if let Some(key) = address_key(model, s) {
            let next = ids.len() as u32;
            of.insert(s, *ids.entry(key).or_insert(next));
        }
    }
    let mut kills: HashMap<StmtId, Vec<u32>> = HashMap::default();
    for (key, &id) in &ids {
        let inst = &model.finsts[key.finst];
        for name in key.locals() {
            // a parameter is defined as the instance is entered
            let def = inst
                .defs
                .get(name)
                .copied()
                .or_else(|| inst.blocks.first()?.first().copied());
            if let Some(d) = def {
                kills.entry(d).or_default().push(id);
            }
        }
    }
    AddressKeys { of, kills }
}

/// A load or store with an address key for `load_store_same_object`.
#[derive(Clone, Copy)]
pub struct LoadStoreKey {
    pub key: u32,
    /// Its function instance and block.
    pub block: (usize, usize),
    /// It reads a shared location (a load, or a read-modify-write).
    pub loads: bool,
    /// It writes one (a store instruction or a read-modify-write).
    pub stores: bool,
    /// A load that runs at most once per run of its thread.
    pub load_once: bool,
}

/// Address keys for the pairs "a load, then a store of the very cell it
/// read" (`load_store_same_object`): the loads and stores (store
/// instructions and read-modify-writes) of one function instance that
/// share a location, with any number of targets. When the load dominates
/// the store, the first run of the store after the load's last run has
/// the load's address (module comment). That last run is the run that
/// matters when the load runs at most once in its thread, or when the
/// store follows it in its block.
pub fn load_store_keys(
    model: &ProgramModel<'_>,
    graphs: &[ThreadGraph],
    loads: &BTreeMap<StmtId, Vec<LocId>>,
    writes: &BTreeMap<StmtId, Vec<LocId>>,
) -> HashMap<StmtId, LoadStoreKey> {
    let is_store = |s: StmtId| matches!(model.instr(s), Some(I::Store(_)) | Some(I::AtomicRMW(_)));
    let mut stored: HashSet<(usize, LocId)> = HashSet::default();
    let mut stores = Vec::new();
    for (&s, cells) in writes.iter().filter(|(&s, _)| is_store(s)) {
        let Some(f) = model.finst_of(s) else { continue };
        stored.extend(cells.iter().map(|&c| (f, c)));
        stores.push(s);
    }
    let paired_loads = loads.iter().filter_map(|(&s, cells)| {
        let f = model.finst_of(s)?;
        cells.iter().any(|&c| stored.contains(&(f, c))).then_some(s)
    });
    let candidates: BTreeSet<StmtId> = paired_loads.chain(stores).collect();
    let once = RunsOnce::new(model, graphs);
    let mut ids: HashMap<AddressKey, u32> = HashMap::default();
    let mut of = HashMap::default();
    for s in candidates {
        let Some(key) = address_key(model, s) else {
            continue;
        };
        let Site::Instr { finst, block, .. } = model.stmts[s as usize].site else {
            continue;
        };
        let next = ids.len() as u32;
        let loads = loads.contains_key(&s);
        of.insert(
            s,
            LoadStoreKey {
                key: *ids.entry(key).or_insert(next),
                block: (finst, block),
                loads,
                stores: writes.contains_key(&s) && is_store(s),
                load_once: loads && once.as_ref().is_some_and(|o| o.in_thread(s)),
            },
        );
    }
    of
}

/// An index operand as a key value, through integer casts (`defs`: the
/// instance's definitions): `None` for what is not an integer constant, a
/// global or an SSA value.
fn index_value(
    op: &Operand,
    defs: &HashMap<Name, StmtId>,
    model: &ProgramModel<'_>,
) -> Option<Value> {
    let mut casts = Vec::new();
    let mut op = op;
    while casts.len() < MAX_STEPS {
        let Operand::LocalOperand { name, .. } = op else {
            break;
        };
        let cast = defs
            .get(name)
            .and_then(|&d| model.instr(d))
            .and_then(|i| match i {
                I::SExt(c) => Some((0u8, type_id(&c.to_type), &c.operand)),
                I::ZExt(c) => Some((1, type_id(&c.to_type), &c.operand)),
                I::Trunc(c) => Some((2, type_id(&c.to_type), &c.operand)),
                _ => None,
            });
        let Some((kind, to, inner)) = cast else { break };
        casts.push((kind, to));
        op = inner;
    }
    let mut v = value(op)?;
    for (kind, to) in casts.into_iter().rev() {
        v = Value::Cast(kind, to, Box::new(v));
    }
    Some(v)
}

/// An operand as a key value: `None` for what is not an integer constant,
/// a global or an SSA value.
fn value(op: &Operand) -> Option<Value> {
    match op {
        Operand::LocalOperand { name, .. } => Some(Value::Local(name.clone())),
        Operand::ConstantOperand(c) => match c.as_ref() {
            llvm_ir::Constant::GlobalReference { name, .. } => Some(Value::Global(name.clone())),
            _ => crate::ir::int_constant(op).map(|(_, v)| Value::Int(v)),
        },
        Operand::MetadataOperand => None,
    }
}

/// The address key of a load, store or read-modify-write statement.
fn address_key(model: &ProgramModel<'_>, s: StmtId) -> Option<AddressKey> {
    let finst = model.finst_of(s)?;
    let mut addr = match model.instr(s)? {
        I::Load(l) => &l.address,
        I::Store(st) => &st.address,
        I::AtomicRMW(a) => &a.address,
        _ => return None,
    };
    let defs = &model.finsts[finst].defs;
    let mut steps = Vec::new();
    while steps.len() < MAX_STEPS {
        let base = value(addr)?;
        let step = match &base {
            Value::Local(name) => defs
                .get(name)
                .and_then(|&d| model.instr(d))
                .and_then(|def| match def {
                    I::GetElementPtr(g) => {
                        let indices: Option<Vec<Value>> = g
                            .indices
                            .iter()
                            .map(|i| index_value(i, defs, model))
                            .collect();
                        Some((
                            Step::Gep {
                                source: type_id(&g.source_element_type),
                                indices: indices?,
                            },
                            &g.address,
                        ))
                    }
                    I::BitCast(b) => Some((
                        Step::Cast {
                            to: type_id(&b.to_type),
                        },
                        &b.operand,
                    )),
                    I::AddrSpaceCast(b) => Some((
                        Step::Cast {
                            to: type_id(&b.to_type),
                        },
                        &b.operand,
                    )),
                    _ => None,
                }),
            _ => None,
        };
        match step {
            Some((step, from)) => {
                steps.push(step);
                addr = from;
            }
            None => {
                let key = AddressKey { finst, base, steps };
                // every value is an instruction's or a parameter's: the
                // dataflows drop the key where it is defined again
                let params = &model.func(finst).parameters;
                let known = |n: &Name| defs.contains_key(n) || params.iter().any(|p| &p.name == n);
                let all_known = key.locals().all(known);
                return all_known.then_some(key);
            }
        }
    }
    None
}

/// The heap objects allocated at most once in any execution: the
/// allocation statements of the model whose result may point to the
/// object are one statement, which runs outside every loop of its thread,
/// in function instances each entered by one call (not shared, not a
/// library's callback, not recursive), in a thread that itself starts at
/// most once. A store to a cell of such an object overwrites it as a
/// store to a global does. (Per abstract object, not per site: an
/// allocation wrapper called from several places makes one object per
/// call, each allocated once when that call runs once.)
pub fn allocated_once(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    graphs: &[ThreadGraph],
) -> HashSet<AbsObj> {
    let mut site_of_insn: HashMap<InsnId, ObjId> = HashMap::default();
    for (o, kind) in pt.ir.objs.iter().enumerate() {
        if let ObjKind::Heap(i) = kind {
            site_of_insn.insert(*i, o as ObjId);
        }
    }
    let heap_funcs: HashSet<usize> = site_of_insn
        .keys()
        .map(|&i| pt.ir.insns[i as usize].func)
        .collect();
    let mut runs: HashMap<AbsObj, Vec<StmtId>> = HashMap::default();
    for (s, stmt) in model.stmts.iter().enumerate() {
        let Site::Instr {
            finst,
            block,
            index,
        } = stmt.site
        else {
            continue;
        };
        let func = model.finsts[finst].func;
        if !heap_funcs.contains(&func) {
            continue;
        }
        let Some(&site) = site_of_insn.get(&pt.ir.insn_id(func, block, Some(index))) else {
            continue;
        };
        let Some(I::Call(call)) = model.instr(s as StmtId) else {
            continue;
        };
        let Some(result) = &call.dest else { continue };
        for obj in pt.objects_named_by(model, finst, result) {
            if obj.site == site {
                runs.entry(obj).or_default().push(s as StmtId);
            }
        }
    }
    let Some(once) = RunsOnce::new(model, graphs) else {
        return HashSet::default();
    };
    runs.into_iter()
        .filter(|(_, stmts)| matches!(stmts.as_slice(), [s] if once.statement(*s)))
        .map(|(o, _)| o)
        .collect()
}

/// Whether a statement runs at most once per execution.
struct RunsOnce<'a, 'm> {
    model: &'a ProgramModel<'m>,
    graphs: &'a [ThreadGraph],
    /// Functions a recursive call enters again (the model cuts the call).
    recursive: HashSet<usize>,
    callbacks: HashSet<FInstId>,
    bounded_creates: HashSet<StmtId>,
    /// Instances judged: each is entered at most once per run of its
    /// thread (by one call outside every loop, and so on up its callers).
    entered_once: std::cell::RefCell<HashMap<FInstId, bool>>,
}

impl<'a, 'm> RunsOnce<'a, 'm> {
    /// `None` when a recursive call's callee is not known (through a
    /// pointer): any function may then run again.
    fn new(model: &'a ProgramModel<'m>, graphs: &'a [ThreadGraph]) -> Option<Self> {
        let mut recursive = HashSet::default();
        for &(c, why) in &model.cut_calls {
            if why != CallCutWhy::Recursion {
                continue;
            }
            let callee = model.call(c).and_then(crate::ir::callee_name)?;
            recursive.insert(model.func_by_name(callee)?);
        }
        Some(RunsOnce {
            model,
            graphs,
            recursive,
            callbacks: model.callbacks.iter().map(|&(_, f)| f).collect(),
            bounded_creates: model.bounded_creates.iter().copied().collect(),
            entered_once: Default::default(),
        })
    }

    /// Whether a statement runs at most once per run of its thread (the
    /// model's thread may stand for several threads, each running it once).
    fn in_thread(&self, s: StmtId) -> bool {
        let model = self.model;
        let thread = model.stmts[s as usize].thread;
        let Some(graph) = self.graphs.get(thread as usize) else {
            return false;
        };
        if graph.in_cycle(s) {
            return false;
        }
        let Some(f) = model.finst_of(s) else {
            return false;
        };
        if let Some(&once) = self.entered_once.borrow().get(&f) {
            return once;
        }
        // Up the calls from the thread's start to an instance already
        // judged: each instance's own test (not shared, not a callback,
        // not re-entered by recursion) and whether its call lies outside
        // every loop. An instance is entered once when both hold for it
        // and for every instance above it.
        let mut chain: Vec<(FInstId, bool)> = Vec::new();
        let mut at = f;
        let above = loop {
            let inst = &model.finsts[at];
            let mut ok = !inst.shared
                && !self.callbacks.contains(&at)
                && !self.recursive.contains(&inst.func);
            let caller = inst
                .caller
                .filter(|&c| model.stmts[c as usize].thread == thread);
            let Some(c) = caller else {
                chain.push((at, ok));
                break true;
            };
            ok &= !graph.in_cycle(c);
            chain.push((at, ok));
            let Some(up) = model.finst_of(c) else {
                break false;
            };
            if let Some(&known) = self.entered_once.borrow().get(&up) {
                break known;
            }
            at = up;
        };
        let mut memo = self.entered_once.borrow_mut();
        let mut once = above;
        for (g, ok) in chain.into_iter().rev() {
            once &= ok;
            memo.insert(g, once);
        }
        once
    }

    fn statement(&self, s: StmtId) -> bool {
        let model = self.model;
        if !self.in_thread(s) {
            return false;
        }
        let thread = model.stmts[s as usize].thread;
        let th = &model.threads[thread as usize];
        match th.create_stmt {
            None => true,
            Some(c) => {
                !self.bounded_creates.contains(&c)
                    && model.children_of.get(&c).is_some_and(|k| k.len() == 1)
                    && self.statement(c)
            }
        }
    }
}
