//! The program as threads: each thread has one control-flow graph whose
//! nodes are statements (an instruction in one thread). Calls, direct or
//! through pointers, and thread start routines come from the points-to
//! rules ([`PointsTo`]), each with the calling context the rules analysed
//! the callee in.
//!
//! Functions are cloned per call path while a thread stays within its
//! statement budget and the call depth bound: clones keep paths valid, so
//! code after a second call of a helper is not mistaken for a loop. Past
//! the budget or the depth, a call links to one shared instance per
//! (function, context) in the thread, so the model grows linearly with the
//! program. Threads are abstract: one per create site, start routine and
//! context, with two instances when the site may run more than once (a
//! loop, or a thread that starts its own kind).

use super::ir::{self, LibCall};
use super::pointsto::{Callee, Ctx, PointsTo};
use crate::error::{ConcordError, Result};
use llvm_ir::instruction::Instruction;
use llvm_ir::terminator::Terminator;
use llvm_ir::{Function, Module, Name};
use petgraph::graph::DiGraph;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::collections::VecDeque;
use std::path::Path;

pub type StmtId = u32;
pub type FInstId = usize;

#[derive(Debug, Clone, Copy)]
pub struct ExtractOptions {
    /// Thread instances per `pthread_create` inside a loop.
    pub thread_loop_bound: u32,
    /// Maximum nesting of cloned calls within one thread; deeper calls
    /// link to the thread's shared instance of the callee.
    pub call_depth_bound: usize,
    /// Statements a thread may have before calls stop being cloned per
    /// call path and link to shared instances.
    pub clone_budget: usize,
    /// Refuse programs with more thread instances than this (a guard
    /// against runaway models, far above what real programs create).
    pub max_threads: usize,
    /// Relations the command will not read: extraction leaves them out
    /// (empty, and named in `FactSet::omitted`). A diff omits
    /// [`super::NOT_READ_BY_DIFF`]; every other command extracts all.
    pub omit: &'static [&'static str],
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            thread_loop_bound: 2,
            call_depth_bound: 8,
            clone_budget: 20_000,
            max_threads: 10_000,
            omit: &[],
        }
    }
}

/// Why a call is not cloned for its call path (the `why` of `call_cut`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CallCutWhy {
    /// The nesting reached `--call-depth`: the call links to a shared instance.
    CallDepth = 0,
    /// The thread reached its statement budget: likewise.
    CloneBudget = 1,
    /// A recursive call: it links to nothing.
    Recursion = 2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Site {
    /// The initial value of a global (index into `module.global_vars`).
    Init {
        global: usize,
    },
    Instr {
        finst: FInstId,
        block: usize,
        index: usize,
    },
    Term {
        finst: FInstId,
        block: usize,
    },
}

#[derive(Debug, Clone)]
pub struct Stmt {
    pub thread: u32,
    pub site: Site,
}

#[derive(Debug)]
pub struct FuncInstance {
    pub func: usize,
    pub thread: u32,
    /// The points-to contexts this instance stands for.
    pub ctxs: Vec<Ctx>,
    /// The call (or thread create) statement this instance was cloned for.
    pub caller: Option<StmtId>,
    /// Entered from several calls (past the clone budget or depth), so
    /// `caller` is only the first of them.
    pub shared: bool,
    /// Statements of each block, in order; the last is the terminator.
    pub blocks: Vec<Vec<StmtId>>,
    /// SSA name -> the statement defining it.
    pub defs: HashMap<Name, StmtId>,
}

#[derive(Debug)]
pub struct ThreadInst {
    pub id: u32,
    pub parent: Option<u32>,
    pub create_stmt: Option<StmtId>,
    pub func: usize,
    pub instance: u32,
    /// The points-to context of its start routine.
    pub ctx: Ctx,
    pub entry: FInstId,
    /// All statements of the thread, in id order.
    pub stmts: Vec<StmtId>,
}

pub struct ProgramModel<'m> {
    pub module: &'m Module,
    pub stmts: Vec<Stmt>,
    pub finsts: Vec<FuncInstance>,
    pub threads: Vec<ThreadInst>,
    /// Call statement -> the callee instances it may enter.
    pub callee_of: HashMap<StmtId, Vec<FInstId>>,
    /// Calls through pointers with no target, and thread creates with no
    /// start routine the points-to rules could find.
    pub unresolved_calls: Vec<StmtId>,
    pub unresolved_starts: Vec<StmtId>,
    /// Library calls that may call back a function handed to them, with
    /// the callback's instance (`external_callback`).
    pub callbacks: Vec<(StmtId, FInstId)>,
    /// `fork()` calls: the child process is not modelled.
    pub forks: Vec<StmtId>,
    /// Inline assembly: its effects are not modelled.
    pub inline_asm: Vec<StmtId>,
    /// Creates that may run more often than their thread has instances.
    pub bounded_creates: Vec<StmtId>,
    /// Calls not cloned for their call path, and why (`call_cut`).
    pub cut_calls: Vec<(StmtId, CallCutWhy)>,
    /// Calls past a bound -> the call their shared instance was made for
    /// (`call_shared`).
    pub shared_calls: Vec<(StmtId, StmtId)>,
    /// `pthread_create` statement -> the child thread instances.
    pub children_of: HashMap<StmtId, Vec<u32>>,
    /// Successors of each statement within its thread.
    pub succ: Vec<Vec<StmtId>>,
    /// The pseudo-statements writing globals' initial values (thread 0).
    pub init_stmts: Vec<StmtId>,
    func_index: HashMap<&'m str, usize>,
}

struct PendingThread {
    parent: u32,
    create_stmt: StmtId,
    func: usize,
    ctx: Ctx,
    instance: u32,
    /// (create instruction, routine, context) of this thread and its ancestors.
    lineage: Vec<(u32, usize, Ctx)>,
}

impl<'m> ProgramModel<'m> {
    pub fn build(
        module: &'m Module,
        path: &Path,
        opts: &ExtractOptions,
        pt: &PointsTo,
    ) -> Result<Self> {
        let func_index: HashMap<&str, usize> = module
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let main = *func_index.get("main").ok_or_else(|| ConcordError::NoMain {
            path: path.to_path_buf(),
        })?;
        let mut model = ProgramModel {
            module,
            stmts: Vec::new(),
            finsts: Vec::new(),
            threads: Vec::new(),
            callee_of: HashMap::default(),
            unresolved_calls: Vec::new(),
            unresolved_starts: Vec::new(),
            callbacks: Vec::new(),
            forks: Vec::new(),
            inline_asm: Vec::new(),
            bounded_creates: Vec::new(),
            cut_calls: Vec::new(),
            shared_calls: Vec::new(),
            children_of: HashMap::default(),
            succ: Vec::new(),
            init_stmts: Vec::new(),
            func_index,
        };
        for (g, var) in module.global_vars.iter().enumerate() {
            if !var.is_constant {
                let id = model.new_stmt(0, Site::Init { global: g });
                model.init_stmts.push(id);
            }
        }
        let mut builder = Builder {
            path,
            opts,
            pt,
            pending: VecDeque::new(),
            cyclic_blocks: HashMap::default(),
            shared: HashMap::default(),
            thread_start: 0,
            lineage: Vec::new(),
        };
        builder.pending.push_back(PendingThread {
            parent: u32::MAX,
            create_stmt: StmtId::MAX,
            func: main,
            ctx: 0,
            instance: 0,
            lineage: Vec::new(),
        });
        while let Some(p) = builder.pending.pop_front() {
            let tid = model.threads.len() as u32;
            if model.threads.len() >= opts.max_threads {
                return Err(ConcordError::Unsupported {
                    path: path.to_path_buf(),
                    what: format!(
                        "more than {} thread instances (threads that create threads without bound?)",
                        opts.max_threads
                    ),
                });
            }
            let first_stmt = model.stmts.len();
            let caller = (tid != 0).then_some(p.create_stmt);
            let mut stack = vec![p.func];
            builder.shared.clear();
            builder.thread_start = first_stmt;
            builder.lineage = p.lineage.clone();
            let entry = builder.instantiate(
                &mut model,
                Callee {
                    func: p.func as u32,
                    ctx: p.ctx,
                },
                tid,
                caller,
                &mut stack,
            )?;
            let mut stmts: Vec<StmtId> =
                (first_stmt as StmtId..model.stmts.len() as StmtId).collect();
            if tid == 0 {
                let mut with_init = model.init_stmts.clone();
                with_init.extend(stmts);
                stmts = with_init;
            } else {
                model
                    .children_of
                    .entry(p.create_stmt)
                    .or_default()
                    .push(tid);
            }
            model.threads.push(ThreadInst {
                id: tid,
                parent: (tid != 0).then_some(p.parent),
                create_stmt: caller,
                func: p.func,
                instance: p.instance,
                ctx: p.ctx,
                entry,
                stmts,
            });
        }
        model.link_successors();
        Ok(model)
    }

    fn new_stmt(&mut self, thread: u32, site: Site) -> StmtId {
        let id = self.stmts.len() as StmtId;
        self.stmts.push(Stmt { thread, site });
        id
    }

    pub fn func(&self, finst: FInstId) -> &'m Function {
        &self.module.functions[self.finsts[finst].func]
    }

    pub fn func_by_name(&self, name: &str) -> Option<usize> {
        self.func_index.get(name).copied()
    }

    pub fn instr(&self, s: StmtId) -> Option<&'m Instruction> {
        match self.stmts[s as usize].site {
            Site::Instr {
                finst,
                block,
                index,
            } => Some(&self.func(finst).basic_blocks[block].instrs[index]),
            _ => None,
        }
    }

    pub fn term(&self, s: StmtId) -> Option<&'m Terminator> {
        match self.stmts[s as usize].site {
            Site::Term { finst, block } => Some(&self.func(finst).basic_blocks[block].term),
            _ => None,
        }
    }

    pub fn finst_of(&self, s: StmtId) -> Option<FInstId> {
        match self.stmts[s as usize].site {
            Site::Instr { finst, .. } | Site::Term { finst, .. } => Some(finst),
            Site::Init { .. } => None,
        }
    }

    /// The value parameter `index` of instance `finst` holds: the matching
    /// argument of the call the instance was cloned for (in the caller's
    /// instance), or `pthread_create`'s fourth argument for a thread's
    /// start routine. `None` for a callback entered at a library call (the
    /// library passes its own arguments), for an instance with no caller,
    /// and for a shared instance (its callers pass different arguments).
    pub fn argument_of_parameter(
        &self,
        finst: FInstId,
        index: usize,
    ) -> Option<(FInstId, &'m llvm_ir::Operand)> {
        if self.finsts[finst].shared {
            return None;
        }
        let caller = self.finsts[finst].caller?;
        let caller_finst = self.finst_of(caller)?;
        let call = self.call(caller)?;
        let direct = self
            .callee_of
            .get(&caller)
            .is_some_and(|v| v.contains(&finst));
        let arg_index = if direct {
            // A callback's parameters come from the library that calls it
            // back, not from the registering call's arguments in their order.
            if ir::direct_callee(call).is_some_and(|n| self.func_by_name(n).is_none()) {
                return None;
            }
            index
        } else if index == 0 {
            3
        } else {
            return None;
        };
        call.arguments
            .get(arg_index)
            .map(|(a, _)| (caller_finst, a))
    }

    pub fn call(&self, s: StmtId) -> Option<&'m llvm_ir::instruction::Call> {
        match self.instr(s)? {
            Instruction::Call(c) => Some(c),
            _ => None,
        }
    }

    pub fn libcall(&self, s: StmtId) -> LibCall {
        self.call(s)
            .and_then(ir::direct_callee)
            .map_or(LibCall::Other, ir::classify)
    }

    fn link_successors(&mut self) {
        self.succ = vec![Vec::new(); self.stmts.len()];
        let repeated: HashSet<(StmtId, FInstId)> = self.callbacks.iter().copied().collect();
        // Initial values come first in thread 0, then main's entry.
        let main_entry = self.finsts[self.threads[0].entry].blocks[0][0];
        let mut chain = self.init_stmts.clone();
        chain.push(main_entry);
        for w in chain.windows(2) {
            self.succ[w[0] as usize].push(w[1]);
        }
        for f in 0..self.finsts.len() {
            let func = self.func(f);
            let block_of: HashMap<&Name, usize> = func
                .basic_blocks
                .iter()
                .enumerate()
                .map(|(i, b)| (&b.name, i))
                .collect();
            for b in 0..self.finsts[f].blocks.len() {
                let list = self.finsts[f].blocks[b].clone();
                for (k, &s) in list.iter().enumerate() {
                    if let Some(&next) = list.get(k + 1) {
                        if let Some(callees) = self.callee_of.get(&s).cloned() {
                            for callee in callees {
                                let entry = self.finsts[callee].blocks[0][0];
                                if !self.succ[s as usize].contains(&entry) {
                                    self.succ[s as usize].push(entry);
                                }
                                // The library may call a callback zero times
                                // (or the callback may never return: a
                                // signal handler that calls `_exit`): the
                                // caller goes on either way.
                                if repeated.contains(&(s, callee))
                                    && !self.succ[s as usize].contains(&next)
                                {
                                    self.succ[s as usize].push(next);
                                }
                                for r in self.returns_of(callee) {
                                    if !self.succ[r as usize].contains(&next) {
                                        self.succ[r as usize].push(next);
                                    }
                                    // A callback may be called again and again.
                                    if repeated.contains(&(s, callee))
                                        && !self.succ[r as usize].contains(&entry)
                                    {
                                        self.succ[r as usize].push(entry);
                                    }
                                }
                            }
                        } else {
                            self.succ[s as usize].push(next);
                        }
                    } else {
                        let term = &func.basic_blocks[b].term;
                        for dest in ir::successors(term) {
                            if let Some(&db) = block_of.get(dest) {
                                let first = self.finsts[f].blocks[db][0];
                                if !self.succ[s as usize].contains(&first) {
                                    self.succ[s as usize].push(first);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The `ret` statements of a function instance.
    pub fn returns_of(&self, finst: FInstId) -> Vec<StmtId> {
        let func = self.func(finst);
        self.finsts[finst]
            .blocks
            .iter()
            .enumerate()
            .filter(|(b, _)| matches!(func.basic_blocks[*b].term, Terminator::Ret(_)))
            .map(|(_, list)| *list.last().expect("block has a terminator"))
            .collect()
    }

    /// The call statements from this statement's instance up to its thread's
    /// start routine (innermost first).
    pub fn call_chain(&self, s: StmtId) -> Vec<StmtId> {
        let mut chain = Vec::new();
        let mut f = self.finst_of(s);
        while let Some(fi) = f {
            match self.finsts[fi].caller {
                Some(c) if self.callee_of.get(&c).is_some_and(|v| v.contains(&fi)) => {
                    chain.push(c);
                    f = self.finst_of(c);
                }
                _ => break,
            }
        }
        chain
    }
}

struct Builder<'a> {
    path: &'a Path,
    opts: &'a ExtractOptions,
    pt: &'a PointsTo,
    pending: VecDeque<PendingThread>,
    cyclic_blocks: HashMap<usize, HashSet<usize>>,
    /// The current thread's shared instances, per (function, context).
    shared: HashMap<(usize, Ctx), FInstId>,
    /// First statement of the thread being built (for its budget).
    thread_start: usize,
    lineage: Vec<(u32, usize, Ctx)>,
}

impl Builder<'_> {
    fn instantiate(
        &mut self,
        model: &mut ProgramModel<'_>,
        callee: Callee,
        thread: u32,
        caller: Option<StmtId>,
        stack: &mut Vec<usize>,
    ) -> Result<FInstId> {
        let module = model.module;
        let func = callee.func as usize;
        let ctx = callee.ctx;
        let f = &module.functions[func];
        let fid = model.finsts.len();
        model.finsts.push(FuncInstance {
            func,
            thread,
            ctxs: vec![ctx],
            caller,
            shared: false,
            blocks: Vec::new(),
            defs: HashMap::default(),
        });
        for (b, block) in f.basic_blocks.iter().enumerate() {
            let mut list = Vec::new();
            for (i, instr) in block.instrs.iter().enumerate() {
                let call = match instr {
                    Instruction::Call(c) => Some(c),
                    _ => None,
                };
                let callee_name = call.and_then(ir::direct_callee);
                let kind = callee_name.map_or(LibCall::Other, ir::classify);
                if kind == LibCall::Debug {
                    continue;
                }
                let id = model.new_stmt(
                    thread,
                    Site::Instr {
                        finst: fid,
                        block: b,
                        index: i,
                    },
                );
                list.push(id);
                if let Some(dest) = instr.try_get_result() {
                    model.finsts[fid].defs.insert(dest.clone(), id);
                }
                if call.is_none() {
                    continue;
                }
                let insn = self.pt.ir.insn_id(func, b, Some(i));
                match kind {
                    LibCall::ThreadCreate => {
                        self.schedule_threads(model, id, insn, ctx, thread, fid, b)?;
                        continue;
                    }
                    // The parent goes on; the child process is not analysed.
                    _ if callee_name == Some(crate::calls::FORK) => {
                        model.forks.push(id);
                        continue;
                    }
                    LibCall::UnmodelledThreads => {
                        return Err(self.unsupported(
                            instr,
                            &format!(
                            "`{}` starts a thread concord does not model (only pthread_create is)",
                            callee_name.unwrap_or("?")
                        ),
                        ))
                    }
                    _ => {}
                }
                if call.is_some_and(|c| c.function.is_left()) {
                    model.inline_asm.push(id);
                    continue;
                }
                let targets = self.pt.callees(ctx, insn);
                if callee_name.is_none() && targets.is_empty() && !self.pt.calls_extern(ctx, insn) {
                    model.unresolved_calls.push(id);
                    continue;
                }
                // A library function (no body) that calls back what it was given.
                let callback_site = callee_name.is_some_and(|n| model.func_by_name(n).is_none())
                    && !targets.is_empty();
                let mut entered = Vec::new();
                for &target in targets {
                    let g = target.func as usize;
                    if module.functions[g].basic_blocks.is_empty() {
                        continue; // no body
                    }
                    if stack.contains(&g) {
                        // recursion: the body is already modelled
                        model.cut_calls.push((id, CallCutWhy::Recursion));
                        continue;
                    }
                    let cut = if stack.len() >= self.opts.call_depth_bound {
                        Some(CallCutWhy::CallDepth)
                    } else if model.stmts.len() - self.thread_start > self.opts.clone_budget {
                        Some(CallCutWhy::CloneBudget)
                    } else {
                        None
                    };
                    model.cut_calls.extend(cut.map(|why| (id, why)));
                    let over_budget = cut.is_some();
                    let child = if over_budget {
                        let child = match self.shared.get(&(g, target.ctx)) {
                            Some(&shared) => shared,
                            None => {
                                stack.push(g);
                                let child =
                                    self.instantiate(model, target, thread, Some(id), stack)?;
                                stack.pop();
                                model.finsts[child].shared = true;
                                self.shared.insert((g, target.ctx), child);
                                child
                            }
                        };
                        let first = model.finsts[child].caller.unwrap_or(id);
                        model.shared_calls.push((id, first));
                        child
                    } else {
                        stack.push(g);
                        let child = self.instantiate(model, target, thread, Some(id), stack)?;
                        stack.pop();
                        child
                    };
                    entered.push(child);
                }
                if callback_site {
                    model.callbacks.extend(entered.iter().map(|&f| (id, f)));
                }
                if !entered.is_empty() {
                    model.callee_of.insert(id, entered);
                }
            }
            let term_id = model.new_stmt(
                thread,
                Site::Term {
                    finst: fid,
                    block: b,
                },
            );
            list.push(term_id);
            if let Some(dest) = block.term.try_get_result() {
                model.finsts[fid].defs.insert(dest.clone(), term_id);
            }
            model.finsts[fid].blocks.push(list);
        }
        Ok(fid)
    }

    #[allow(clippy::too_many_arguments)]
    fn schedule_threads(
        &mut self,
        model: &mut ProgramModel<'_>,
        create: StmtId,
        insn: u32,
        ctx: Ctx,
        parent: u32,
        finst: FInstId,
        block: usize,
    ) -> Result<()> {
        let starts = self.pt.thread_starts(ctx, insn);
        if starts.is_empty() {
            model.unresolved_starts.push(create);
            return Ok(());
        }
        let in_loop = self.in_loop(model, finst, block);
        for &start in starts {
            let func = start.func as usize;
            if model.module.functions[func].basic_blocks.is_empty() {
                model.unresolved_starts.push(create);
                continue;
            }
            let key = (insn, func, start.ctx);
            // A thread that (transitively) starts its own kind: two
            // instances stand for all of them.
            let seen = self.lineage.iter().filter(|k| **k == key).count();
            if seen >= 2 {
                model.bounded_creates.push(create);
                continue;
            }
            // The second copy of a self-starting thread is itself the "many".
            let copies = if in_loop && seen == 0 {
                self.opts.thread_loop_bound
            } else {
                1
            };
            if in_loop {
                model.bounded_creates.push(create);
            }
            let mut lineage = self.lineage.clone();
            lineage.push(key);
            for instance in 0..copies {
                self.pending.push_back(PendingThread {
                    parent,
                    create_stmt: create,
                    func,
                    ctx: start.ctx,
                    instance,
                    lineage: lineage.clone(),
                });
            }
        }
        Ok(())
    }

    /// Is this block, or any call site that led to its function instance,
    /// inside a loop of its function?
    fn in_loop(&mut self, model: &ProgramModel<'_>, finst: FInstId, block: usize) -> bool {
        let mut f = finst;
        let mut b = block;
        loop {
            let func = model.finsts[f].func;
            if self.cyclic(model, func).contains(&b) {
                return true;
            }
            let Some(caller) = model.finsts[f].caller else {
                return false;
            };
            match model.stmts[caller as usize].site {
                Site::Instr {
                    finst: cf,
                    block: cb,
                    ..
                } if model.finsts[cf].thread == model.finsts[f].thread => {
                    f = cf;
                    b = cb;
                }
                _ => return false,
            }
        }
    }

    fn cyclic(&mut self, model: &ProgramModel<'_>, func: usize) -> &HashSet<usize> {
        self.cyclic_blocks.entry(func).or_insert_with(|| {
            let f = &model.module.functions[func];
            let index: HashMap<&Name, usize> = f
                .basic_blocks
                .iter()
                .enumerate()
                .map(|(i, b)| (&b.name, i))
                .collect();
            let mut g = DiGraph::<(), ()>::new();
            let nodes: Vec<_> = f.basic_blocks.iter().map(|_| g.add_node(())).collect();
            let mut self_loops = HashSet::default();
            for (i, b) in f.basic_blocks.iter().enumerate() {
                for d in ir::successors(&b.term) {
                    if let Some(&j) = index.get(d) {
                        g.add_edge(nodes[i], nodes[j], ());
                        if i == j {
                            self_loops.insert(i);
                        }
                    }
                }
            }
            let mut cyclic = self_loops;
            for scc in petgraph::algo::tarjan_scc(&g) {
                if scc.len() > 1 {
                    cyclic.extend(scc.iter().map(|n| n.index()));
                }
            }
            cyclic
        })
    }

    fn unsupported(&self, instr: &Instruction, what: &str) -> ConcordError {
        use llvm_ir::HasDebugLoc;
        let at = instr
            .get_debug_loc()
            .as_ref()
            .map(|d| format!("{}:{}: ", d.filename, d.line))
            .unwrap_or_default();
        ConcordError::Unsupported {
            path: self.path.to_path_buf(),
            what: format!("{at}{what}"),
        }
    }
}
