//! The program as thread instances: every function reached from a thread's
//! start routine is cloned per call site (depth-bounded, recursion cut), so
//! each thread has one inlined control-flow graph whose nodes are
//! statements. Thread instances come from `pthread_create` sites; a site
//! inside a loop yields `thread_loop_bound` instances.

use super::ir::{self, LibCall};
use crate::error::{ConcordError, Result};
use llvm_ir::instruction::Instruction;
use llvm_ir::terminator::Terminator;
use llvm_ir::{Function, Module, Name};
use petgraph::graph::DiGraph;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

pub type StmtId = u32;
pub type FInstId = usize;

#[derive(Debug, Clone, Copy)]
pub struct ExtractOptions {
    /// Thread instances per `pthread_create` inside a loop.
    pub thread_loop_bound: u32,
    /// Maximum nesting of cloned calls within one thread.
    pub call_depth_bound: usize,
    /// Refuse programs with more thread instances than this.
    pub max_threads: usize,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            thread_loop_bound: 2,
            call_depth_bound: 8,
            max_threads: 64,
        }
    }
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
    /// The call (or thread create) statement this instance was cloned for.
    pub caller: Option<StmtId>,
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
    pub entry: FInstId,
    /// All statements of the thread, in id order.
    pub stmts: Vec<StmtId>,
}

pub struct ProgramModel<'m> {
    pub module: &'m Module,
    pub stmts: Vec<Stmt>,
    pub finsts: Vec<FuncInstance>,
    pub threads: Vec<ThreadInst>,
    /// Inlined call statement -> the callee instance.
    pub callee_of: HashMap<StmtId, FInstId>,
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
    instance: u32,
}

impl<'m> ProgramModel<'m> {
    pub fn build(module: &'m Module, path: &Path, opts: &ExtractOptions) -> Result<Self> {
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
            callee_of: HashMap::new(),
            children_of: HashMap::new(),
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
            pending: VecDeque::new(),
            cyclic_blocks: HashMap::new(),
        };
        builder.pending.push_back(PendingThread {
            parent: u32::MAX,
            create_stmt: StmtId::MAX,
            func: main,
            instance: 0,
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
            let entry = builder.instantiate(&mut model, p.func, tid, caller, &mut stack)?;
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
                        if let Some(&callee) = self.callee_of.get(&s) {
                            let entry = self.finsts[callee].blocks[0][0];
                            self.succ[s as usize].push(entry);
                            for r in self.returns_of(callee) {
                                self.succ[r as usize].push(next);
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
                Some(c) if self.callee_of.get(&c) == Some(&fi) => {
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
    pending: VecDeque<PendingThread>,
    cyclic_blocks: HashMap<usize, HashSet<usize>>,
}

impl Builder<'_> {
    fn instantiate(
        &mut self,
        model: &mut ProgramModel<'_>,
        func: usize,
        thread: u32,
        caller: Option<StmtId>,
        stack: &mut Vec<usize>,
    ) -> Result<FInstId> {
        let module = model.module;
        let f = &module.functions[func];
        let fid = model.finsts.len();
        model.finsts.push(FuncInstance {
            func,
            thread,
            caller,
            blocks: Vec::new(),
            defs: HashMap::new(),
        });
        for (b, block) in f.basic_blocks.iter().enumerate() {
            let mut list = Vec::new();
            for (i, instr) in block.instrs.iter().enumerate() {
                let call = match instr {
                    Instruction::Call(c) => Some(c),
                    _ => None,
                };
                let callee = call.and_then(ir::direct_callee);
                let kind = callee.map_or(LibCall::Other, ir::classify);
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
                let Some(call) = call else { continue };
                match kind {
                    LibCall::ThreadCreate => {
                        self.schedule_threads(model, id, call, thread, fid, b)?
                    }
                    LibCall::UnmodelledThreads => {
                        return Err(self.unsupported(
                            instr,
                            &format!(
                            "`{}` starts a thread concord does not model (only pthread_create is)",
                            callee.unwrap_or("?")
                        ),
                        ))
                    }
                    _ => {}
                }
                if let Some(&callee_idx) = callee.and_then(|n| model.func_index.get(n)) {
                    let defined = !module.functions[callee_idx].basic_blocks.is_empty();
                    if defined
                        && !stack.contains(&callee_idx)
                        && stack.len() < self.opts.call_depth_bound
                    {
                        stack.push(callee_idx);
                        let child = self.instantiate(model, callee_idx, thread, Some(id), stack)?;
                        stack.pop();
                        model.callee_of.insert(id, child);
                    }
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

    fn schedule_threads(
        &mut self,
        model: &ProgramModel<'_>,
        create: StmtId,
        call: &llvm_ir::instruction::Call,
        parent: u32,
        finst: FInstId,
        block: usize,
    ) -> Result<()> {
        let routine = call
            .arguments
            .get(2)
            .and_then(|(op, _)| ir::function_operand(op))
            .and_then(|name| model.func_index.get(name).copied());
        let Some(func) = routine else {
            return Err(self.unsupported(
                &Instruction::Call(call.clone()),
                "pthread_create's start routine is not a function named directly (function pointers are not modelled)",
            ));
        };
        if model.module.functions[func].basic_blocks.is_empty() {
            return Err(self.unsupported(
                &Instruction::Call(call.clone()),
                "pthread_create's start routine has no body in this module",
            ));
        }
        let in_loop = self.in_loop(model, finst, block);
        let copies = if in_loop {
            self.opts.thread_loop_bound
        } else {
            1
        };
        for instance in 0..copies {
            self.pending.push_back(PendingThread {
                parent,
                create_stmt: create,
                func,
                instance,
            });
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
            let mut self_loops = HashSet::new();
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
