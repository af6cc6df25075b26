//! Mutexes whose acquisition order cannot matter to the slice.
//!
//! The order in which threads take a mutex orders its critical sections
//! and decides when each thread goes on. When every function that takes or
//! releases global mutex `g` — and every function that calls one of them,
//! transitively — contains no instruction of the slice other than those
//! calls, then no sliced instruction runs inside a critical section of `g`
//! or after a thread passed one, and no sliced value depends on what the
//! sections do: the sections' order is invisible to the slice, and DPOR
//! need not reverse it (`Slice::mutex_relevant`). A mutex named through a
//! pointer is not a global here and stays relevant, as does one named by
//! any other threading call (a condition wait, for instance), and one
//! whose functions are reachable through a function pointer (their callers
//! are unknown). `pthread_mutex_init` and `_destroy` order nothing and do
//! not count.

use super::{Id, InstrId};
use crate::calls::{self, PthreadOp, Role, Semantics};
use crate::ir::callee_name;
use llvm_ir::{Constant, Instruction, Module, Name, Operand};
use std::collections::{HashMap, HashSet};

/// Global mutexes whose order is invisible to `rel` (see the module
/// comment). `call_sites`: the slice's direct call sites and thread
/// starts, by callee.
pub(super) fn irrelevant(
    m: &Module,
    rel: &HashSet<Id>,
    call_sites: &HashMap<usize, Vec<Id>>,
    globals: &HashSet<&Name>,
) -> HashSet<Name> {
    let fnames: HashSet<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    // Mutex calls naming a global, the functions naming each, globals named
    // by other threading calls, and functions whose address escapes.
    let mut ops: HashMap<&Name, HashSet<InstrId>> = HashMap::new();
    let mut naming: HashMap<&Name, HashSet<usize>> = HashMap::new();
    let mut pinned: HashSet<&Name> = HashSet::new();
    let mut escaped: HashSet<&str> = HashSet::new();
    for (fi, f) in m.functions.iter().enumerate() {
        for (bi, b) in f.basic_blocks.iter().enumerate() {
            for (ii, i) in b.instrs.iter().enumerate() {
                let Instruction::Call(c) = i else {
                    for o in crate::ir::instr_operands(i) {
                        functions_in_operand(o, &fnames, &mut escaped);
                    }
                    continue;
                };
                let name = callee_name(c).unwrap_or_default();
                let role = calls::role(name);
                for (k, (a, _)) in c.arguments.iter().enumerate() {
                    if !(role == Role::ThreadCreate && k == 2) {
                        functions_in_operand(a, &fnames, &mut escaped);
                    }
                }
                if !calls::is_pthread_api(name) {
                    continue;
                }
                let named = c
                    .arguments
                    .iter()
                    .filter_map(|(a, _)| global_of(a, globals));
                match role {
                    Role::MutexLock | Role::MutexUnlock | Role::MutexTrylock => {
                        for g in named {
                            ops.entry(g).or_default().insert((fi, bi, ii));
                            naming.entry(g).or_default().insert(fi);
                        }
                    }
                    _ if matches!(
                        calls::semantics(name),
                        Some(Semantics::Pthread(
                            PthreadOp::MutexInit | PthreadOp::MutexDestroy
                        ))
                    ) =>
                    {
                        for g in named {
                            ops.entry(g).or_default().insert((fi, bi, ii));
                        }
                    }
                    _ => pinned.extend(named),
                }
            }
        }
    }
    for g in &m.global_vars {
        if let Some(init) = &g.initializer {
            functions_in_constant(init, &fnames, &mut escaped);
        }
    }
    // Direct callers of each function (thread starts are not calls).
    let mut callers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (t, sites) in call_sites {
        for &(fi, bi, ii) in sites {
            let direct = m.functions[fi].basic_blocks[bi]
                .instrs
                .get(ii)
                .and_then(|i| match i {
                    Instruction::Call(c) => callee_name(c),
                    _ => None,
                })
                .is_some_and(|n| n == m.functions[*t].name);
            if direct {
                callers.entry(*t).or_default().push(fi);
            }
        }
    }
    let mut sliced_in: HashMap<usize, Vec<Id>> = HashMap::new();
    for id in rel {
        sliced_in.entry(id.0).or_default().push(*id);
    }
    let mut out = HashSet::new();
    for (g, fs) in naming {
        if pinned.contains(g) {
            continue;
        }
        let mut closure: HashSet<usize> = HashSet::new();
        let mut work: Vec<usize> = fs.into_iter().collect();
        while let Some(f) = work.pop() {
            if closure.insert(f) {
                work.extend(callers.get(&f).into_iter().flatten().copied());
            }
        }
        let own = &ops[g];
        let invisible = closure.iter().all(|f| {
            !escaped.contains(m.functions[*f].name.as_str())
                && sliced_in
                    .get(f)
                    .into_iter()
                    .flatten()
                    .all(|id| own.contains(id))
        });
        if invisible {
            out.insert(g.clone());
        }
    }
    out
}

/// The global an operand names (directly, or through a constant cast or
/// GEP).
fn global_of<'a>(o: &'a Operand, globals: &HashSet<&Name>) -> Option<&'a Name> {
    let Operand::ConstantOperand(c) = o else {
        return None;
    };
    let mut c: &Constant = c.as_ref();
    loop {
        match c {
            Constant::GlobalReference { name, .. } => {
                return globals.contains(name).then_some(name);
            }
            Constant::BitCast(b) => c = b.operand.as_ref(),
            Constant::GetElementPtr(g) => c = g.address.as_ref(),
            _ => return None,
        }
    }
}

fn functions_in_operand<'m>(o: &'m Operand, fnames: &HashSet<&'m str>, out: &mut HashSet<&'m str>) {
    if let Operand::ConstantOperand(c) = o {
        functions_in_constant(c.as_ref(), fnames, out);
    }
}

/// The functions a constant mentions (their address escapes).
fn functions_in_constant<'m>(
    c: &'m Constant,
    fnames: &HashSet<&'m str>,
    out: &mut HashSet<&'m str>,
) {
    match c {
        Constant::GlobalReference {
            name: Name::Name(s),
            ..
        } => {
            if let Some(f) = fnames.get(s.as_str()) {
                out.insert(f);
            }
        }
        Constant::BitCast(b) => functions_in_constant(b.operand.as_ref(), fnames, out),
        Constant::PtrToInt(p) => functions_in_constant(p.operand.as_ref(), fnames, out),
        Constant::GetElementPtr(g) => functions_in_constant(g.address.as_ref(), fnames, out),
        Constant::Struct { values, .. } => {
            for v in values {
                functions_in_constant(v.as_ref(), fnames, out);
            }
        }
        Constant::Array { elements, .. } | Constant::Vector(elements) => {
            for v in elements {
                functions_in_constant(v.as_ref(), fnames, out);
            }
        }
        _ => {}
    }
}
