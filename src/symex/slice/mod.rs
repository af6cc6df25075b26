//! Static backward slice of the properties (assertion-guided paper §6.1).
//!
//! Criteria: every instruction that can end a path with a finding (error
//! calls, `abort`, `__VERIFIER_assert`/`assume`, divisions, memory accesses
//! through non-constant addresses), every synchronisation call, and every
//! call into an undefined function.  The slice is the closure over SSA data
//! dependences, flow-insensitive memory dependences (a load depends on every
//! store to the same global, or on every store when either address is not a
//! plain global; read-modify-writes, and library calls through the
//! arguments the call table says they read, are loads too), control dependences (post-dominator based), call sites of
//! functions containing relevant code, and callee returns of relevant calls.
//!
//! Two concurrency-aware additions keep a branch in the slice although no
//! property depends on it: branches inside loops (they decide when the
//! thread reaches the code after the loop, and whether the loop bound cuts
//! the path) and branches controlling memory accesses or calls.
//!
//! The executor uses it in `dpor+ag` mode:
//! * a branch outside the slice is a Type B pivot: only its first feasible
//!   side is explored and its condition is left out of the weakest
//!   precondition (which side runs cannot change any property);
//! * accesses to globals that no relevant instruction reads are left out of
//!   the DPOR dependence relation (their order cannot matter).

mod forward;
mod mutexes;

use crate::calls;
use crate::ir::{callee_name, instr_operands};
use llvm_ir::{Constant, Function, Instruction, Module, Name, Operand, Terminator};
use std::collections::{BTreeSet, HashMap, HashSet};

type Id = InstrId;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Mem {
    Global(Name),
    /// A stack variable accessed directly (+CIA only): function, alloca.
    Local(usize, Name),
    Any,
}

/// Result of the slicing.
#[derive(Debug, Default, Clone)]
pub struct Slice {
    relevant: HashSet<Id>,
    relevant_mem: HashSet<Name>,
    all_mem: bool,
    /// Global mutexes whose acquisition order cannot matter to the slice
    /// (`Criteria::Directed` only; empty otherwise).
    irrelevant_mutexes: HashSet<Name>,
}

/// Which finding-producing instructions are the slicing criteria.
///
/// `Every` is the slice of the assertion-guided mode.  `Impacted` is the
/// change-impact slice of `symex OLD NEW` (+CIA): only findings at impacted
/// instructions are full criteria; every other finding-producing
/// instruction keeps just the branches that decide whether it is reached
/// (a path ending there ends the run, so which side of such a branch runs
/// still matters to the impacted findings after it), not its data.
///
/// A failing finding ends the run, so a non-impacted finding is only
/// control-only when its failure cannot keep an impacted one from being
/// checked: it lies in the entry function (one activation, one thread),
/// every impacted finding does too, and none of them is reachable from the
/// branch that decides it.  Any other finding stays a full criterion.
///
/// `Directed` is the slice of the diff-directed run of NEW
/// (`engine/diff_targets.rs`): the findings that the forward closure of
/// `sources` (target readers and changed instructions) reaches are full
/// criteria, the others are treated as in `Impacted`, and the instructions
/// of `also` (every target instruction, writers included) are criteria too,
/// so that the accesses realising a target stay scheduling points. In this
/// mode a mutex that only code outside the slice locks is left out of the
/// dependence relation as well ([`Slice::mutex_relevant`]).
#[derive(Clone, Copy)]
pub enum Criteria<'a> {
    Every,
    Impacted {
        impacted: &'a dyn Fn(Id) -> bool,
        entry: &'a str,
    },
    Directed {
        sources: &'a BTreeSet<Id>,
        also: &'a BTreeSet<Id>,
        entry: &'a str,
        /// The findings `sources` cannot reach pass in every run (OLD was
        /// verified): none can end a run before a reached one, so all are
        /// control-only.
        unreached_pass: bool,
    },
}

/// An instruction: function, block, instruction index (the block's
/// length for its terminator).
pub type InstrId = (usize, usize, usize);

impl Slice {
    /// Compute the slice of `m`.
    pub fn compute(m: &Module) -> Slice {
        Slice::compute_with(m, Criteria::Every)
    }

    /// Compute the slice of `m` for the given criteria.
    pub fn compute_with(m: &Module, criteria: Criteria<'_>) -> Slice {
        let fidx: HashMap<&str, usize> = m
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let globals: HashSet<&Name> = m.global_vars.iter().map(|g| &g.name).collect();
        let mut defs: Vec<HashMap<Name, Id>> = Vec::new();
        let mut cd: Vec<HashMap<usize, Vec<usize>>> = Vec::new();
        let mut call_sites: HashMap<usize, Vec<Id>> = HashMap::new();
        let mut stores: Vec<(Id, Mem)> = Vec::new();
        // Library calls that read memory through their arguments
        // (`memcmp`, `strlen`, `memcpy`'s source): loads of that memory.
        let mut call_reads: HashMap<Id, Vec<Mem>> = HashMap::new();
        let mut work: Vec<Id> = Vec::new();
        let mut finding_seeds: Vec<Id> = Vec::new();
        // +CIA: direct accesses to a function's stack variables are their
        // own memory (stores through pointers stay `Any` and reach them).
        let cia = !matches!(criteria, Criteria::Every);
        let allocas: Vec<HashSet<Name>> = m
            .functions
            .iter()
            .map(|f| {
                f.basic_blocks
                    .iter()
                    .flat_map(|b| b.instrs.iter())
                    .filter_map(|i| match i {
                        Instruction::Alloca(a) if cia => Some(a.dest.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let locals = |fi: usize| Some((fi, &allocas[fi]));
        for (fi, f) in m.functions.iter().enumerate() {
            let mut d = HashMap::new();
            for (bi, b) in f.basic_blocks.iter().enumerate() {
                for (ii, i) in b.instrs.iter().enumerate() {
                    let id = (fi, bi, ii);
                    if let Some(n) = i.try_get_result() {
                        d.insert(n.clone(), id);
                    }
                    match i {
                        Instruction::Store(s) => {
                            stores.push((id, mem_of(&s.address, &globals, locals(fi))))
                        }
                        Instruction::AtomicRMW(a) => {
                            stores.push((id, mem_of(&a.address, &globals, locals(fi))));
                            work.push(id);
                        }
                        Instruction::CmpXchg(a) => {
                            stores.push((id, mem_of(&a.address, &globals, locals(fi))));
                            work.push(id);
                        }
                        Instruction::Load(l)
                            if mem_of(&l.address, &globals, locals(fi)) == Mem::Any =>
                        {
                            finding_seeds.push(id)
                        }
                        Instruction::UDiv(_)
                        | Instruction::SDiv(_)
                        | Instruction::URem(_)
                        | Instruction::SRem(_) => finding_seeds.push(id),
                        Instruction::Call(c) => {
                            let name = callee_name(c).unwrap_or_default();
                            let target = fidx.get(name).copied();
                            let defined = target
                                .map(|t| !m.functions[t].basic_blocks.is_empty())
                                .unwrap_or(false);
                            if let Some(t) = target.filter(|_| defined) {
                                call_sites.entry(t).or_default().push(id);
                                if name.starts_with("__VERIFIER_atomic_") {
                                    work.push(id);
                                }
                            } else if !(name.starts_with("llvm.dbg.")
                                || name.starts_with("llvm.lifetime.")
                                || name.starts_with("__VERIFIER_nondet_"))
                            {
                                // Library calls: error calls, assumptions,
                                // synchronisation, allocation, memory
                                // intrinsics (which also write memory).
                                // Assumptions and synchronisation shape
                                // every later path: always criteria.
                                if calls::is_pthread_api(name) || name.contains("assume") {
                                    work.push(id);
                                } else {
                                    finding_seeds.push(id);
                                }
                                // The +CIA slice knows which library calls
                                // write no program memory.
                                if !(cia && calls::writes_no_memory(name)) {
                                    stores.push((id, Mem::Any));
                                }
                                let reads =
                                    calls::lookup(name).map_or(&[][..], |c| c.footprint.reads);
                                let read: Vec<Mem> = reads
                                    .iter()
                                    .filter_map(|k| c.arguments.get(*k))
                                    .map(|(a, _)| mem_of(a, &globals, locals(fi)))
                                    .collect();
                                if !read.is_empty() {
                                    call_reads.insert(id, read);
                                }
                            }
                            if calls::role(name) == calls::Role::ThreadCreate {
                                if let Some(Operand::ConstantOperand(c2)) =
                                    c.arguments.get(2).map(|a| &a.0)
                                {
                                    if let Constant::GlobalReference {
                                        name: Name::Name(s),
                                        ..
                                    } = c2.as_ref()
                                    {
                                        if let Some(t) = fidx.get(s.as_str()) {
                                            call_sites.entry(*t).or_default().push(id);
                                        }
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                }
                if let Terminator::Unreachable(_) = b.term {
                    finding_seeds.push((fi, bi, b.instrs.len()));
                }
            }
            for p in &f.parameters {
                d.insert(p.name.clone(), (fi, usize::MAX, 0));
            }
            defs.push(d);
            cd.push(control_deps(f));
        }
        // Concurrency-aware additions: a branch stays relevant when it is
        // part of a loop (it decides when the thread reaches the code after
        // the loop, and whether the loop bound cuts the path) or when code
        // it controls accesses memory or calls a function (visible
        // operations whose timing matters to other threads).
        for (fi, f) in m.functions.iter().enumerate() {
            let succ: Vec<Vec<usize>> = successor_lists(f);
            let mut controlled: HashMap<usize, Vec<usize>> = HashMap::new();
            for (b, deps) in &cd[fi] {
                for a in deps {
                    controlled.entry(*a).or_default().push(*b);
                }
            }
            for (bi, b) in f.basic_blocks.iter().enumerate() {
                if succ[bi].len() < 2 {
                    continue;
                }
                let id = (fi, bi, b.instrs.len());
                let in_loop = reaches(&succ, &succ[bi], bi);
                let effects = controlled.get(&bi).into_iter().flatten().any(|cb| {
                    f.basic_blocks[*cb].instrs.iter().any(|i| {
                        matches!(
                            i,
                            Instruction::Load(_)
                                | Instruction::Store(_)
                                | Instruction::Call(_)
                                | Instruction::AtomicRMW(_)
                                | Instruction::CmpXchg(_)
                        ) && !matches!(i, Instruction::Call(c) if callee_name(c).is_some_and(|n| n.starts_with("llvm.dbg.")))
                    })
                });
                // (+CIA: sliced stores and synchronisation calls bring
                // their controlling branches in anyway; accesses to memory
                // no impacted finding reads cannot change one.)
                let effects = effects && matches!(criteria, Criteria::Every);
                if in_loop || effects {
                    work.push(id);
                }
            }
        }
        // Control-only criteria: findings outside the impacted set.
        let mut control_only: Vec<Id> = Vec::new();
        let graph = forward::Graph {
            m,
            defs: &defs,
            cd: &cd,
            call_sites: &call_sites,
            stores: &stores,
            call_reads: &call_reads,
            globals: &globals,
            allocas: &allocas,
        };
        let reached: HashSet<Id> = match criteria {
            Criteria::Directed { sources, .. } => graph.forward(sources.iter().copied()),
            _ => HashSet::new(),
        };
        type Restricted<'r> = (&'r dyn Fn(Id) -> bool, &'r str, bool);
        let restricted: Option<Restricted<'_>> = match criteria {
            Criteria::Every => None,
            Criteria::Impacted { impacted, entry } => Some((impacted, entry, false)),
            Criteria::Directed {
                also,
                entry,
                unreached_pass,
                ..
            } => {
                work.extend(also.iter().copied());
                Some((&|id| reached.contains(&id), entry, unreached_pass))
            }
        };
        if let Some((impacted, entry, unreached_pass)) = restricted {
            let (hit, rest): (Vec<Id>, Vec<Id>) =
                finding_seeds.into_iter().partition(|id| impacted(*id));
            let entry = fidx.get(entry).copied();
            let all_in_entry = hit.iter().all(|a| Some(a.0) == entry);
            for n in rest {
                if unreached_pass
                    || all_in_entry
                        && Some(n.0) == entry
                        && !blocks_later_findings(&m.functions[n.0], n.1, &hit)
                {
                    control_only.push(n);
                } else {
                    work.push(n);
                }
            }
            work.extend(hit);
        } else {
            work.extend(finding_seeds);
        }
        let mut rel: HashSet<Id> = HashSet::new();
        let mut mem: HashSet<Mem> = HashSet::new();
        let mut funcs_done: HashSet<usize> = HashSet::new();
        while let Some(id) = work.pop() {
            if !rel.insert(id) {
                continue;
            }
            let (fi, bi, ii) = id;
            if bi == usize::MAX {
                // A parameter: every call site (and thread creation) matters.
                for cs in call_sites.get(&fi).into_iter().flatten() {
                    work.push(*cs);
                }
                continue;
            }
            let f = &m.functions[fi];
            if funcs_done.insert(fi) {
                for cs in call_sites.get(&fi).into_iter().flatten() {
                    work.push(*cs);
                }
            }
            for a in cd[fi].get(&bi).into_iter().flatten() {
                work.push((fi, *a, m.functions[fi].basic_blocks[*a].instrs.len()));
            }
            let b = &f.basic_blocks[bi];
            let ops = operands_of(f, bi, ii);
            if ii < b.instrs.len() {
                let i = &b.instrs[ii];
                match i {
                    Instruction::Phi(p) => {
                        for (_, pred) in &p.incoming_values {
                            if let Some(pb) = f.basic_blocks.iter().position(|x| &x.name == pred) {
                                work.push((fi, pb, f.basic_blocks[pb].instrs.len()));
                            }
                        }
                    }
                    Instruction::Load(_) | Instruction::AtomicRMW(_) | Instruction::CmpXchg(_) => {
                        if let Some(address) = read_address(i) {
                            let lm = mem_of(address, &globals, locals(fi));
                            mem.insert(lm.clone());
                            work.extend(stores_reaching(&lm, &stores));
                        }
                    }
                    Instruction::Call(c) => {
                        for lm in call_reads.get(&id).into_iter().flatten() {
                            mem.insert(lm.clone());
                            work.extend(stores_reaching(lm, &stores));
                        }
                        if let Some(t) = callee_name(c).and_then(|n| fidx.get(n).copied()) {
                            for (bj, bb) in m.functions[t].basic_blocks.iter().enumerate() {
                                if let Terminator::Ret(_) = bb.term {
                                    work.push((t, bj, bb.instrs.len()));
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            for o in ops {
                if let Operand::LocalOperand { name, .. } = o {
                    if let Some(d) = defs[fi].get(name) {
                        work.push(*d);
                    }
                }
            }
        }
        // The branches deciding whether a control-only criterion is reached
        // (its blocks' control dependences, through the call sites of its
        // function): explored on both sides, their data left out.
        let mut seen_ctl: HashSet<Id> = HashSet::new();
        while let Some((fi, bi, ii)) = control_only.pop() {
            if !seen_ctl.insert((fi, bi, ii)) {
                continue;
            }
            if bi != usize::MAX {
                for a in cd[fi].get(&bi).into_iter().flatten() {
                    let br = (fi, *a, m.functions[fi].basic_blocks[*a].instrs.len());
                    rel.insert(br);
                    control_only.push(br);
                }
            }
            for cs in call_sites.get(&fi).into_iter().flatten() {
                control_only.push(*cs);
            }
        }
        let all_mem = mem.contains(&Mem::Any);
        let relevant_mem = mem
            .into_iter()
            .filter_map(|x| {
                if let Mem::Global(n) = x {
                    Some(n)
                } else {
                    None
                }
            })
            .collect();
        let irrelevant_mutexes = match criteria {
            Criteria::Directed { .. } => mutexes::irrelevant(m, &rel, &call_sites, &globals),
            _ => HashSet::new(),
        };
        Slice {
            relevant: rel,
            relevant_mem,
            all_mem,
            irrelevant_mutexes,
        }
    }

    /// Number of instructions in the slice.
    pub fn size(&self) -> usize {
        self.relevant.len()
    }

    /// Is the terminator of block `bb` of function `f` in the slice?
    pub fn branch_relevant(&self, f: usize, bb: usize, term_index: usize) -> bool {
        self.relevant.contains(&(f, bb, term_index))
    }

    /// May the order in which threads take global mutex `g` matter to
    /// the slice? (Always, except for the mutexes `Criteria::Directed`
    /// found that only code outside the slice names.)
    pub fn mutex_relevant(&self, g: &Name) -> bool {
        !self.irrelevant_mutexes.contains(g)
    }

    /// May a relevant instruction read global `g`?
    pub fn global_relevant(&self, g: &Name) -> bool {
        self.all_mem || self.relevant_mem.contains(g)
    }
}

/// The SSA values instruction `ii` of block `bi` uses (`ii` = the block's
/// length: its terminator's condition, switch operand or returned value).
fn operands_of(f: &Function, bi: usize, ii: usize) -> Vec<&Operand> {
    let b = &f.basic_blocks[bi];
    let Some(i) = b.instrs.get(ii) else {
        return match &b.term {
            Terminator::CondBr(c) => vec![&c.condition],
            Terminator::Switch(s) => vec![&s.operand],
            Terminator::Ret(r) => r.return_operand.iter().collect(),
            _ => vec![],
        };
    };
    match i {
        Instruction::Phi(p) => p.incoming_values.iter().map(|(o, _)| o).collect(),
        Instruction::Load(l) => vec![&l.address],
        Instruction::Call(c) => c.arguments.iter().map(|a| &a.0).collect(),
        _ => instr_operands(i),
    }
}

/// May one of `hit` (findings of `f`) run after the branch deciding
/// whether block `b` runs?  (Reachability from `b`'s predecessors.)
fn blocks_later_findings(f: &Function, b: usize, hit: &[Id]) -> bool {
    let succ: Vec<Vec<usize>> = successor_lists(f);
    let mut from: Vec<usize> = (0..succ.len()).filter(|p| succ[*p].contains(&b)).collect();
    from.push(b);
    hit.iter()
        .any(|a| from.contains(&a.1) || reaches(&succ, &from, a.1))
}

fn mem_of(
    addr: &Operand,
    globals: &HashSet<&Name>,
    locals: Option<(usize, &HashSet<Name>)>,
) -> Mem {
    match addr {
        Operand::LocalOperand { name, .. } => match locals {
            Some((fi, l)) if l.contains(name) => Mem::Local(fi, name.clone()),
            _ => Mem::Any,
        },
        Operand::ConstantOperand(c) => match c.as_ref() {
            Constant::GlobalReference { name, .. } if globals.contains(name) => {
                Mem::Global(name.clone())
            }
            Constant::GetElementPtr(g) => match g.address.as_ref() {
                Constant::GlobalReference { name, .. } if globals.contains(name) => {
                    Mem::Global(name.clone())
                }
                _ => Mem::Any,
            },
            Constant::BitCast(b) => match b.operand.as_ref() {
                Constant::GlobalReference { name, .. } if globals.contains(name) => {
                    Mem::Global(name.clone())
                }
                _ => Mem::Any,
            },
            _ => Mem::Any,
        },
        _ => Mem::Any,
    }
}

/// The address an instruction reads memory at: loads, and
/// read-modify-writes (which read what earlier stores wrote).
fn read_address(i: &Instruction) -> Option<&Operand> {
    match i {
        Instruction::Load(l) => Some(&l.address),
        Instruction::AtomicRMW(a) => Some(&a.address),
        Instruction::CmpXchg(a) => Some(&a.address),
        _ => None,
    }
}

/// The stores a read of `lm` may read from (flow-insensitively).
fn stores_reaching<'a>(lm: &'a Mem, stores: &'a [(Id, Mem)]) -> impl Iterator<Item = Id> + 'a {
    stores
        .iter()
        .filter(move |(_, sm)| *lm == Mem::Any || *sm == Mem::Any || sm == lm)
        .map(|(sid, _)| *sid)
}

/// Each block's successor blocks.
fn successor_lists(f: &Function) -> Vec<Vec<usize>> {
    f.basic_blocks
        .iter()
        .map(|b| successors(f, &b.term))
        .collect()
}

/// Successor blocks of a terminator (indices into `f.basic_blocks`).
pub fn block_successors(f: &Function, t: &Terminator) -> Vec<usize> {
    successors(f, t)
}

/// Can `target` be reached from any of `from`?
fn reaches(succ: &[Vec<usize>], from: &[usize], target: usize) -> bool {
    let mut seen = vec![false; succ.len()];
    let mut stack: Vec<usize> = from.to_vec();
    while let Some(b) = stack.pop() {
        if b == target {
            return true;
        }
        if std::mem::replace(&mut seen[b], true) {
            continue;
        }
        stack.extend(succ[b].iter().copied());
    }
    false
}

fn successors(f: &Function, t: &Terminator) -> Vec<usize> {
    let ix = |n: &Name| f.basic_blocks.iter().position(|b| &b.name == n);
    match t {
        Terminator::Br(b) => ix(&b.dest).into_iter().collect(),
        Terminator::CondBr(c) => [ix(&c.true_dest), ix(&c.false_dest)]
            .into_iter()
            .flatten()
            .collect(),
        Terminator::Switch(s) => s
            .dests
            .iter()
            .map(|(_, d)| ix(d))
            .chain([ix(&s.default_dest)])
            .flatten()
            .collect(),
        _ => vec![],
    }
}

/// Block -> the branching blocks it is control dependent on.
pub(crate) fn control_deps(f: &Function) -> HashMap<usize, Vec<usize>> {
    let n = f.basic_blocks.len();
    let succ: Vec<Vec<usize>> = successor_lists(f);
    let all: BTreeSet<usize> = (0..n).collect();
    let mut pdom: Vec<BTreeSet<usize>> = (0..n)
        .map(|b| {
            if succ[b].is_empty() {
                BTreeSet::from([b])
            } else {
                all.clone()
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            if succ[b].is_empty() {
                continue;
            }
            let mut s: Option<BTreeSet<usize>> = None;
            for x in &succ[b] {
                s = Some(match s {
                    None => pdom[*x].clone(),
                    Some(acc) => acc.intersection(&pdom[*x]).copied().collect(),
                });
            }
            let mut s = s.unwrap_or_default();
            s.insert(b);
            if s != pdom[b] {
                pdom[b] = s;
                changed = true;
            }
        }
    }
    let mut cd: HashMap<usize, Vec<usize>> = HashMap::new();
    for a in 0..n {
        if succ[a].len() < 2 {
            continue;
        }
        for s in &succ[a] {
            for b in pdom[*s].iter() {
                if *b == a || !pdom[a].contains(b) {
                    cd.entry(*b).or_default().push(a);
                }
            }
        }
    }
    cd
}
