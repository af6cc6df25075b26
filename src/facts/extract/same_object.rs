//! Which heap accesses surely touch one object: the must-alias half of
//! `store_same_object`.
//!
//! A heap object of the points-to facts stands for every allocation at its
//! site, so a store to it does not surely overwrite what a load of it
//! reads (`store_strong` leaves heap cells out). Two accesses do touch one
//! object when their addresses are the same SSA pointer value of one
//! function instance, moved by the same constant offsets: the pointer is
//! defined once per activation, and its definition dominates its uses. So
//! when a store w dominates a load r with the same address key, the last
//! w before r ran in r's activation, on r's object (order.rs finds the
//! pairs on the event dominator tree).

use super::ir_facts::{InsnId, ObjId, ObjKind};
use super::order::ThreadGraph;
use super::pointsto::{LocId, PointsTo};
use super::program::{CallCutWhy, FInstId, ProgramModel, Site, StmtId};
use llvm_ir::instruction::Instruction as I;
use llvm_ir::{Name, Operand, TypeRef};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::BTreeMap;

/// One step from an address back to its base pointer. Types by identity:
/// llvm-ir interns them, and hashing a `TypeRef` hashes the whole type
/// (at 50 KLoC that doubled the time of this pass).
#[derive(PartialEq, Eq, Hash)]
enum Step {
    /// A `getelementptr` whose indices are all constants.
    Gep { source: usize, indices: Vec<u64> },
    /// A cast that keeps the address (`bitcast`, `addrspacecast`).
    Cast { to: usize },
}

fn type_id(t: &TypeRef) -> usize {
    t.as_ref() as *const llvm_ir::Type as usize
}

/// The address of an access: a base pointer of one function instance and
/// the constant steps from it.
#[derive(PartialEq, Eq, Hash)]
struct AddressKey {
    finst: usize,
    base: Name,
    steps: Vec<Step>,
}

/// How far back through constant offsets an address is followed.
const MAX_STEPS: usize = 16;

/// For each access with one target at a one-cell path of a heap object
/// allocated more than once (`stores`: single-target stores; `loads`: the
/// shared cells each load reads), its address key as a dense id: two
/// accesses with one id touch one object whenever the same activation of
/// their function runs both.
pub fn address_keys(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    once: &HashSet<ObjId>,
    stores: &BTreeMap<StmtId, LocId>,
    loads: &BTreeMap<StmtId, Vec<LocId>>,
) -> HashMap<StmtId, u32> {
    let heap_cell =
        |c: LocId| pt.heap_site(c).is_some_and(|o| !once.contains(&o)) && pt.path_is_one_cell(c);
    let single_loads = loads
        .iter()
        .filter_map(|(&s, cells)| match cells.as_slice() {
            [c] => Some((s, *c)),
            _ => None,
        });
    // only a store and a load of one cell in one function instance can
    // pair up: the keys of the others are not worth finding
    let heap_stores: Vec<(StmtId, LocId, usize)> = stores
        .iter()
        .filter(|(_, &c)| heap_cell(c))
        .filter_map(|(&s, &c)| Some((s, c, model.finst_of(s)?)))
        .collect();
    let stored: HashSet<(LocId, usize)> = heap_stores.iter().map(|&(_, c, f)| (c, f)).collect();
    let heap_loads: Vec<(StmtId, LocId, usize)> = single_loads
        .filter(|&(_, c)| heap_cell(c))
        .filter_map(|(s, c)| Some((s, c, model.finst_of(s)?)))
        .filter(|&(_, c, f)| stored.contains(&(c, f)))
        .collect();
    let loaded: HashSet<(LocId, usize)> = heap_loads.iter().map(|&(_, c, f)| (c, f)).collect();
    let accesses = heap_stores
        .into_iter()
        .filter(|&(_, c, f)| loaded.contains(&(c, f)))
        .chain(heap_loads)
        .map(|(s, _, _)| s);
    let mut ids: HashMap<AddressKey, u32> = HashMap::default();
    let mut out = HashMap::default();
    for s in accesses {
        if let Some(key) = address_key(model, s) {
            let next = ids.len() as u32;
            out.insert(s, *ids.entry(key).or_insert(next));
        }
    }
    out
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
        let Operand::LocalOperand { name, .. } = addr else {
            return None;
        };
        let step = defs
            .get(name)
            .and_then(|&d| model.instr(d))
            .and_then(|def| match def {
                I::GetElementPtr(g) => {
                    let indices: Option<Vec<u64>> = g
                        .indices
                        .iter()
                        .map(|i| crate::ir::int_constant(i).map(|(_, v)| v))
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
            });
        match step {
            Some((step, from)) => {
                steps.push(step);
                addr = from;
            }
            None => {
                return Some(AddressKey {
                    finst,
                    base: name.clone(),
                    steps,
                })
            }
        }
    }
    None
}

/// The heap allocation sites that run at most once in any execution: one
/// statement of the model, outside every loop of its thread, in function
/// instances each entered by one call (not shared, not a library's
/// callback, not recursive), in a thread that itself starts at most once.
/// Every abstract object of such a site is that one allocation, so a
/// store to one of its cells overwrites it as a store to a global does.
pub fn allocated_once(
    model: &ProgramModel<'_>,
    pt: &PointsTo,
    graphs: &[ThreadGraph],
) -> HashSet<ObjId> {
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
    let mut runs: HashMap<ObjId, Vec<StmtId>> = HashMap::default();
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
        if let Some(&o) = site_of_insn.get(&pt.ir.insn_id(func, block, Some(index))) {
            runs.entry(o).or_default().push(s as StmtId);
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
        })
    }

    fn statement(&self, s: StmtId) -> bool {
        let model = self.model;
        let thread = model.stmts[s as usize].thread;
        let Some(graph) = self.graphs.get(thread as usize) else {
            return false;
        };
        // the statement and every call on its way from the thread's start
        let mut at = s;
        loop {
            if graph.in_cycle(at) {
                return false;
            }
            let Some(f) = model.finst_of(at) else {
                return false;
            };
            let inst = &model.finsts[f];
            if inst.shared || self.callbacks.contains(&f) || self.recursive.contains(&inst.func) {
                return false;
            }
            match inst.caller {
                Some(c) if model.stmts[c as usize].thread == thread => at = c,
                _ => break,
            }
        }
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
