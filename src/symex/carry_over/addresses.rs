//! What memory a statement of the carry-over touches, read from the IR:
//! the statement's own instruction (through its place in the facts), the
//! object an address points into (through GEPs and casts, instructions
//! or constant expressions), and whether an `alloca` stays private to its
//! thread.

use crate::calls::Role;
use crate::facts::StatementInfo;
use llvm_ir::instruction::Call;
use llvm_ir::{Constant, Function, Instruction, Module, Name, Operand};

/// The callee of a direct call.
pub(super) fn callee(c: &Call) -> Option<&str> {
    crate::ir::callee_name(c)
}

/// What an address points into, seen through GEPs and casts (instructions
/// and constant expressions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Base<'m> {
    Global(String),
    /// An `alloca` of the function the address is used in.
    Alloca(&'m Name),
    Null,
    /// Loaded, returned, selected, computed from an integer…
    Unknown,
}

/// Derivations followed at most (a GEP of a cast of a GEP…).
const MAX_DERIVATIONS: usize = 64;

/// The instruction of `fun` that defines the local `name`.
fn definition<'m>(fun: &'m Function, name: &Name) -> Option<&'m Instruction> {
    fun.basic_blocks
        .iter()
        .flat_map(|b| b.instrs.iter())
        .find(|i| i.try_get_result() == Some(name))
}

/// The object the address `op` (used in `fun`) points into.
pub(super) fn address_base<'m>(fun: &'m Function, op: &'m Operand) -> Base<'m> {
    let mut op = op;
    for _ in 0..MAX_DERIVATIONS {
        match op {
            Operand::ConstantOperand(k) => return constant_base(k, MAX_DERIVATIONS),
            Operand::LocalOperand { name, .. } => match definition(fun, name) {
                Some(Instruction::Alloca(a)) => return Base::Alloca(&a.dest),
                Some(Instruction::GetElementPtr(g)) => op = &g.address,
                Some(Instruction::BitCast(c)) => op = &c.operand,
                Some(Instruction::AddrSpaceCast(c)) => op = &c.operand,
                _ => return Base::Unknown,
            },
            Operand::MetadataOperand => return Base::Unknown,
        }
    }
    Base::Unknown
}

fn constant_base<'m>(k: &Constant, depth: usize) -> Base<'m> {
    if depth == 0 {
        return Base::Unknown;
    }
    match k {
        Constant::GlobalReference { name, .. } => Base::Global(crate::ir::plain_name(name)),
        Constant::Null(_) => Base::Null,
        Constant::BitCast(c) => constant_base(&c.operand, depth - 1),
        Constant::AddrSpaceCast(c) => constant_base(&c.operand, depth - 1),
        Constant::GetElementPtr(g) => constant_base(&g.address, depth - 1),
        _ => Base::Unknown,
    }
}

/// A statement's own instruction in `m` (the facts keep its place in
/// memory; the function's name must agree), with its function.
pub(super) fn stmt_instr<'m>(
    m: &'m Module,
    s: &StatementInfo,
) -> Option<(&'m Function, &'m Instruction)> {
    let at = s.instr?;
    let fun = m.functions.get(at.function)?;
    if fun.name != s.function {
        return None;
    }
    let i = fun.basic_blocks.get(at.block)?.instrs.get(at.index)?;
    Some((fun, i))
}

/// A call statement's call, in `m`.
pub(super) fn stmt_call<'m>(m: &'m Module, s: &StatementInfo) -> Option<(&'m Function, &'m Call)> {
    match stmt_instr(m, s)? {
        (fun, Instruction::Call(c)) => Some((fun, c)),
        _ => None,
    }
}

/// The role of a call statement (`None` for other statements and
/// indirect calls).
pub(super) fn stmt_role(m: &Module, s: &StatementInfo) -> Option<Role> {
    stmt_call(m, s)
        .and_then(|(_, c)| callee(c))
        .map(crate::calls::role)
}

/// The function and address operand of a load or store statement.
fn access_address<'m>(m: &'m Module, s: &StatementInfo) -> Option<(&'m Function, &'m Operand)> {
    let (fun, i) = stmt_instr(m, s)?;
    match i {
        Instruction::Load(l) => Some((fun, &l.address)),
        Instruction::Store(st) => Some((fun, &st.address)),
        _ => None,
    }
}

/// The one global a load or store statement accesses (its address,
/// through GEPs and casts), if it is a load or store of a global.
pub(super) fn accessed_global(m: &Module, s: &StatementInfo) -> Option<String> {
    let (fun, address) = access_address(m, s)?;
    match address_base(fun, address) {
        Base::Global(g) => Some(g),
        _ => None,
    }
}

/// The argument of `pthread_join` its thread's result is written to.
pub(super) const JOIN_RESULT: usize = 1;

/// A computation that touches no memory and calls nothing: it commutes
/// with any event of any thread.
pub(super) fn is_pure(i: &Instruction) -> bool {
    !matches!(
        i,
        Instruction::Load(_)
            | Instruction::Store(_)
            | Instruction::Call(_)
            | Instruction::AtomicRMW(_)
            | Instruction::CmpXchg(_)
            | Instruction::Fence(_)
            | Instruction::VAArg(_)
            | Instruction::Alloca(_)
            | Instruction::LandingPad(_)
            | Instruction::CatchPad(_)
            | Instruction::CleanupPad(_)
    )
}

/// Is `name` an `alloca` of `fun` whose address stays with the thread
/// running `fun`? Every use of it, or of a GEP or cast of it, must be the
/// address of a load or store, the handle a `pthread_create` writes, the
/// result pointer a `pthread_join` writes, or an `llvm.*` intrinsic
/// (debug, lifetime): nothing stores it, passes it to other code (a
/// thread's argument included), returns it or computes with it. Then no
/// other thread can access the object.
pub(super) fn private_alloca(fun: &Function, name: &Name) -> bool {
    if !matches!(definition(fun, name), Some(Instruction::Alloca(_))) {
        return false;
    }
    let mut derived: Vec<&Name> = vec![name];
    let mut k = 0;
    while let Some(&p) = derived.get(k) {
        k += 1;
        if derived.len() > MAX_DERIVATIONS {
            return false;
        }
        let is_p = |o: &Operand| matches!(o, Operand::LocalOperand { name: n, .. } if n == p);
        for b in &fun.basic_blocks {
            if crate::ir::term_operands(&b.term).into_iter().any(is_p) {
                return false;
            }
            for i in &b.instrs {
                let ok = match i {
                    Instruction::Load(_) => true,
                    Instruction::Store(s) => !is_p(&s.value),
                    Instruction::GetElementPtr(_)
                    | Instruction::BitCast(_)
                    | Instruction::AddrSpaceCast(_) => {
                        if crate::ir::instr_operands(i).into_iter().any(is_p) {
                            derived.extend(i.try_get_result());
                        }
                        true
                    }
                    Instruction::Call(c) => {
                        let allowed = match callee(c) {
                            Some(n) if n.starts_with("llvm.") => None,
                            Some(n) => match crate::calls::role(n) {
                                Role::ThreadCreate => crate::calls::lookup(n)
                                    .and_then(|r| r.footprint.thread)
                                    .or(Some(usize::MAX)),
                                Role::ThreadJoin => Some(JOIN_RESULT),
                                _ => Some(usize::MAX),
                            },
                            None => Some(usize::MAX),
                        };
                        match allowed {
                            None => true,
                            Some(at) => {
                                c.arguments
                                    .iter()
                                    .enumerate()
                                    .all(|(j, (a, _))| j == at || !is_p(a))
                                    && !matches!(&c.function, either::Either::Right(f) if is_p(f))
                            }
                        }
                    }
                    _ => !crate::ir::instr_operands(i).into_iter().any(is_p),
                };
                if !ok {
                    return false;
                }
            }
        }
    }
    true
}

/// The private `alloca` a load or store statement accesses, if it is one
/// ([`private_alloca`]).
pub(super) fn private_access<'m>(m: &'m Module, s: &StatementInfo) -> Option<&'m Name> {
    let (fun, address) = access_address(m, s)?;
    match address_base(fun, address) {
        Base::Alloca(a) if private_alloca(fun, a) => Some(a),
        _ => None,
    }
}

/// Does the statement have an operand pointing into the `alloca` `a`?
pub(super) fn touches_alloca(m: &Module, s: &StatementInfo, a: &Name) -> bool {
    let Some((fun, i)) = stmt_instr(m, s) else {
        return true;
    };
    crate::ir::instr_operands(i)
        .into_iter()
        .any(|o| address_base(fun, o) == Base::Alloca(a))
}

/// Is the instruction at `(function, block, index)` a load of a private
/// `alloca`? It reads its own thread's last write whatever the schedule.
pub(super) fn private_read_at(m: &Module, (f, b, i): (usize, usize, usize)) -> bool {
    let Some(fun) = m.functions.get(f) else {
        return false;
    };
    match fun.basic_blocks.get(b).and_then(|blk| blk.instrs.get(i)) {
        Some(Instruction::Load(l)) => match address_base(fun, &l.address) {
            Base::Alloca(a) => private_alloca(fun, a),
            _ => false,
        },
        _ => false,
    }
}
