//! Points-to results, read back from the rules (`rules/pointsto.dl`) run
//! over the base IR facts ([`IrFacts`]). This module only indexes what the
//! rules derived: the fixpoint itself is Datalog.
//!
//! Accesses are reported on *cells*: per abstract object, the finest paths
//! the analysis saw. An access through a path touches every cell below it
//! (`a[*]` touches `a[1]`, `a[2]` and `a[*]`; `s` touches all fields of `s`).

use super::ir_facts::{FuncId, InsnId, IrFacts, ObjId, ObjKind, VarId};
use super::paths::{PathId, Step, MAX_DEPTH};
use super::program::ProgramModel;
use crate::datalog::programs::pointsto::ascent;
use llvm_ir::{HasDebugLoc, Operand};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::{BTreeMap, BTreeSet};

/// A calling context: 0 for main, else a call site (or a thread context).
pub type Ctx = u32;

/// An abstract object: an allocation site and the context that allocated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AbsObj {
    pub site: ObjId,
    pub ctx: Ctx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub obj: AbsObj,
    pub path: PathId,
}

pub type LocId = u32;

/// A resolved call or thread start: the function and the context it runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Callee {
    pub func: FuncId,
    pub ctx: Ctx,
}

pub struct PointsTo {
    pub ir: IrFacts,
    pub locs: Vec<Loc>,
    index: HashMap<Loc, LocId>,
    var: HashMap<(Ctx, VarId), Vec<LocId>>,
    calls: HashMap<(Ctx, InsnId), Vec<Callee>>,
    starts: HashMap<(Ctx, InsnId), Vec<Callee>>,
    reach: HashMap<FuncId, Vec<Ctx>>,
    extern_calls: HashSet<(Ctx, InsnId)>,
    shared: HashSet<AbsObj>,
    /// Objects a cell of which may hold a pointer to a function (for the
    /// callbacks a library may find in memory it is handed).
    functions_held: HashMap<AbsObj, BTreeSet<usize>>,
    cells_of_obj: BTreeMap<AbsObj, Vec<LocId>>,
    /// Per object, the objects some cell of it may hold a pointer to.
    stored_in: HashMap<AbsObj, BTreeSet<AbsObj>>,
    /// Every (holder, held) pair of locations: the holder may hold a
    /// pointer to the held (`pt_heap`), for names (`names.rs`).
    held: Vec<(LocId, LocId)>,
}

impl PointsTo {
    /// Run the points-to rules over the module's base facts.
    pub fn compute(ir: IrFacts) -> PointsTo {
        // The base rows go straight into the program's input (no copy as a
        // fact set); extraction always runs the production engine.
        let input =
            crate::datalog::fill_input!(ascent, |name| ir.rows.get(name).into_iter().flatten());
        let out = ascent::run(&input);
        let mut pt = PointsTo {
            ir,
            locs: Vec::new(),
            index: HashMap::default(),
            var: HashMap::default(),
            calls: HashMap::default(),
            starts: HashMap::default(),
            reach: HashMap::default(),
            extern_calls: HashSet::default(),
            shared: HashSet::default(),
            functions_held: HashMap::default(),
            cells_of_obj: BTreeMap::new(),
            stored_in: HashMap::default(),
            held: Vec::new(),
        };
        for &(ctx, var, site, obj_ctx, path) in &out.pt_var {
            let l = pt.intern(site, obj_ctx, path);
            pt.var.entry((ctx, var)).or_default().push(l);
        }
        for &(site, obj_ctx, path, site2, obj_ctx2, path2) in &out.pt_heap {
            let holder_loc = pt.intern(site, obj_ctx, path);
            let held_loc = pt.intern(site2, obj_ctx2, path2);
            pt.held.push((holder_loc, held_loc));
            let (holder, held) = (
                AbsObj { site, ctx: obj_ctx },
                AbsObj {
                    site: site2,
                    ctx: obj_ctx2,
                },
            );
            pt.stored_in.entry(holder).or_default().insert(held);
            if let ObjKind::Func(f) = pt.ir.objs[site2 as usize] {
                pt.functions_held.entry(holder).or_default().insert(f);
            }
        }
        for &(ctx, insn, func, callee_ctx) in &out.pt_call {
            let callee = Callee {
                func,
                ctx: callee_ctx,
            };
            pt.calls.entry((ctx, insn)).or_default().push(callee);
        }
        for &(ctx, insn, func, thread_ctx) in &out.pt_thread_start {
            let callee = Callee {
                func,
                ctx: thread_ctx,
            };
            pt.starts.entry((ctx, insn)).or_default().push(callee);
        }
        for &(ctx, insn) in &out.pt_call_extern {
            pt.extern_calls.insert((ctx, insn));
        }
        for &(ctx, func) in &out.pt_reach {
            pt.reach.entry(func).or_default().push(ctx);
        }
        for &(site, ctx) in &out.pt_shared {
            pt.shared.insert(AbsObj { site, ctx });
        }
        // Globals' own cells exist even when only their root is named.
        for o in 0..pt.ir.objs.len() {
            if let ObjKind::Global(_) = pt.ir.objs[o] {
                pt.intern(o as ObjId, 0, super::paths::ROOT);
            }
        }
        for v in pt.calls.values_mut().chain(pt.starts.values_mut()) {
            v.sort_unstable();
            v.dedup();
        }
        pt.finish();
        pt
    }

    fn intern(&mut self, site: ObjId, ctx: Ctx, path: PathId) -> LocId {
        let loc = Loc {
            obj: AbsObj { site, ctx },
            path,
        };
        if let Some(&id) = self.index.get(&loc) {
            return id;
        }
        let id = self.locs.len() as LocId;
        self.index.insert(loc, id);
        self.locs.push(loc);
        id
    }

    /// Cells: per object, the known paths no other known path refines.
    fn finish(&mut self) {
        let mut by_obj: BTreeMap<AbsObj, Vec<LocId>> = BTreeMap::new();
        for (id, loc) in self.locs.iter().enumerate() {
            by_obj.entry(loc.obj).or_default().push(id as LocId);
        }
        let paths = &self.ir.paths;
        for (obj, ids) in by_obj {
            let cells: Vec<LocId> = ids
                .iter()
                .copied()
                .filter(|&a| {
                    let pa = self.locs[a as usize].path;
                    !ids.iter()
                        .any(|&b| paths.refines(self.locs[b as usize].path, pa))
                })
                .collect();
            self.cells_of_obj.insert(obj, cells);
        }
    }

    /// The cells an access through this location may touch.
    pub fn cells(&self, loc: LocId) -> Vec<LocId> {
        let l = self.locs[loc as usize];
        self.cells_of_obj
            .get(&l.obj)
            .map(|cells| {
                cells
                    .iter()
                    .copied()
                    .filter(|&c| self.ir.paths.covers(l.path, self.locs[c as usize].path))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Locations an operand of a function instance may point to.
    pub fn pointees(&self, model: &ProgramModel<'_>, finst: usize, op: &Operand) -> Vec<LocId> {
        let func = model.finsts[finst].func;
        let Some(v) = self.ir.operand_var(func, op) else {
            return Vec::new();
        };
        model.finsts[finst]
            .ctxs
            .iter()
            .flat_map(|&c| self.var.get(&(c, v)).into_iter().flatten().copied())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// The objects an SSA value of a function instance may point to.
    pub fn objects_named_by(
        &self,
        model: &ProgramModel<'_>,
        finst: usize,
        name: &llvm_ir::Name,
    ) -> BTreeSet<AbsObj> {
        let Some(v) = self.ir.var(model.finsts[finst].func, name) else {
            return BTreeSet::new();
        };
        model.finsts[finst]
            .ctxs
            .iter()
            .flat_map(|&c| self.var.get(&(c, v)).into_iter().flatten())
            .map(|&l| self.locs[l as usize].obj)
            .collect()
    }

    /// Cells reachable through an operand used as an address.
    pub fn address_cells(
        &self,
        model: &ProgramModel<'_>,
        finst: usize,
        op: &Operand,
    ) -> BTreeSet<LocId> {
        self.pointees(model, finst, op)
            .into_iter()
            .flat_map(|l| self.cells(l))
            .collect()
    }

    /// The functions a call instruction may reach in a context, with theirs.
    pub fn callees(&self, ctx: Ctx, insn: InsnId) -> &[Callee] {
        self.calls.get(&(ctx, insn)).map_or(&[], |v| v.as_slice())
    }

    /// May this call through a pointer reach a library function?
    pub fn calls_extern(&self, ctx: Ctx, insn: InsnId) -> bool {
        self.extern_calls.contains(&(ctx, insn))
    }

    /// The start routines a `pthread_create` may start in a context.
    pub fn thread_starts(&self, ctx: Ctx, insn: InsnId) -> &[Callee] {
        self.starts.get(&(ctx, insn)).map_or(&[], |v| v.as_slice())
    }

    /// Every context a function runs in.
    pub fn contexts_of(&self, func: FuncId) -> &[Ctx] {
        self.reach.get(&func).map_or(&[], |v| v.as_slice())
    }

    /// The objects a pointer stored anywhere in `obj` may point into.
    pub fn objects_stored_in(&self, obj: AbsObj) -> impl Iterator<Item = AbsObj> + '_ {
        self.stored_in.get(&obj).into_iter().flatten().copied()
    }

    /// Every pair (holder, held): a pointer to `held` may be stored at
    /// `holder` (the holder's path is the one the store wrote, which may
    /// be coarser than its cells).
    pub fn held_pointers(&self) -> &[(LocId, LocId)] {
        &self.held
    }

    /// The functions a cell of `obj` may point to.
    pub fn functions_held(&self, obj: AbsObj) -> impl Iterator<Item = usize> + '_ {
        self.functions_held.get(&obj).into_iter().flatten().copied()
    }

    /// The location's path names one cell of its object: no `[*]` step
    /// (any element), short of the depth bound (a path at the bound also
    /// stands for the deeper fields folded into it). A store with such a
    /// single target overwrites what an earlier store to it wrote, in a
    /// global or a local; a heap object stands for every allocation at its
    /// site, which this does not tell apart ([`Self::heap_site`]).
    pub fn path_is_one_cell(&self, cell: LocId) -> bool {
        let steps = self.ir.paths.steps_of(self.locs[cell as usize].path);
        steps.len() < MAX_DEPTH && !steps.contains(&Step::AnyIndex)
    }

    /// The allocation site of a cell in a heap object, which stands for
    /// every allocation at its site.
    pub fn heap_site(&self, cell: LocId) -> Option<ObjId> {
        let site = self.locs[cell as usize].obj.site;
        matches!(self.ir.objs[site as usize], ObjKind::Heap(_)).then_some(site)
    }

    pub fn is_shared(&self, cell: LocId) -> bool {
        self.shared.contains(&self.locs[cell as usize].obj)
    }

    /// The cells of a global variable.
    pub fn global_cells(&self, global: usize) -> &[LocId] {
        self.ir
            .obj(ObjKind::Global(global))
            .and_then(|site| self.cells_of_obj.get(&AbsObj { site, ctx: 0 }))
            .map_or(&[], |v| v.as_slice())
    }

    /// A readable name for a location, and its object's name.
    pub fn describe(&self, model: &ProgramModel<'_>, loc: LocId) -> (String, String) {
        let l = self.locs[loc as usize];
        let module = model.module;
        let insn_fn = |i: InsnId| {
            let site = self.ir.insns[i as usize];
            let f = &module.functions[site.func];
            let instr = site.index.map(|k| &f.basic_blocks[site.block].instrs[k]);
            (f, instr)
        };
        let object = match self.ir.objs[l.obj.site as usize] {
            ObjKind::Global(g) => super::ir::plain_name(&module.global_vars[g].name),
            ObjKind::Func(f) => module.functions[f].name.clone(),
            ObjKind::Extern(e) => module.func_declarations[e].name.clone(),
            ObjKind::Stack(i) => {
                let (f, instr) = insn_fn(i);
                let var = instr
                    .and_then(|i| i.try_get_result())
                    .map(super::ir::plain_name)
                    .unwrap_or_default();
                format!("{}::{var}", f.name)
            }
            ObjKind::Heap(i) => {
                let (_, instr) = insn_fn(i);
                let line = instr
                    .and_then(|i| i.get_debug_loc().as_ref().map(|d| d.line))
                    .unwrap_or(0);
                format!("heap@{line}")
            }
        };
        let name = format!("{object}{}", self.ir.paths.suffix(l.path));
        (name, object)
    }
}
