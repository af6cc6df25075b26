//! Small views over llvm-ir that the extractor needs: an instruction's
//! operands, the callee of a call, opcode names, and the library calls
//! concord gives meaning to.

use llvm_ir::constant::Constant;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::terminator::Terminator as T;
use llvm_ir::{Name, Operand};

/// The operands an instruction reads (values, not block labels).
pub fn instr_operands(instr: &I) -> Vec<&Operand> {
    match instr {
        I::Add(i) => vec![&i.operand0, &i.operand1],
        I::Sub(i) => vec![&i.operand0, &i.operand1],
        I::Mul(i) => vec![&i.operand0, &i.operand1],
        I::UDiv(i) => vec![&i.operand0, &i.operand1],
        I::SDiv(i) => vec![&i.operand0, &i.operand1],
        I::URem(i) => vec![&i.operand0, &i.operand1],
        I::SRem(i) => vec![&i.operand0, &i.operand1],
        I::And(i) => vec![&i.operand0, &i.operand1],
        I::Or(i) => vec![&i.operand0, &i.operand1],
        I::Xor(i) => vec![&i.operand0, &i.operand1],
        I::Shl(i) => vec![&i.operand0, &i.operand1],
        I::LShr(i) => vec![&i.operand0, &i.operand1],
        I::AShr(i) => vec![&i.operand0, &i.operand1],
        I::FAdd(i) => vec![&i.operand0, &i.operand1],
        I::FSub(i) => vec![&i.operand0, &i.operand1],
        I::FMul(i) => vec![&i.operand0, &i.operand1],
        I::FDiv(i) => vec![&i.operand0, &i.operand1],
        I::FRem(i) => vec![&i.operand0, &i.operand1],
        I::FNeg(i) => vec![&i.operand],
        I::ExtractElement(i) => vec![&i.vector, &i.index],
        I::InsertElement(i) => vec![&i.vector, &i.element, &i.index],
        I::ShuffleVector(i) => vec![&i.operand0, &i.operand1],
        I::ExtractValue(i) => vec![&i.aggregate],
        I::InsertValue(i) => vec![&i.aggregate, &i.element],
        I::Alloca(i) => vec![&i.num_elements],
        I::Load(i) => vec![&i.address],
        I::Store(i) => vec![&i.address, &i.value],
        I::Fence(_) => vec![],
        I::CmpXchg(i) => vec![&i.address, &i.expected, &i.replacement],
        I::AtomicRMW(i) => vec![&i.address, &i.value],
        I::GetElementPtr(i) => {
            let mut v = vec![&i.address];
            v.extend(i.indices.iter());
            v
        }
        I::Trunc(i) => vec![&i.operand],
        I::ZExt(i) => vec![&i.operand],
        I::SExt(i) => vec![&i.operand],
        I::FPTrunc(i) => vec![&i.operand],
        I::FPExt(i) => vec![&i.operand],
        I::FPToUI(i) => vec![&i.operand],
        I::FPToSI(i) => vec![&i.operand],
        I::UIToFP(i) => vec![&i.operand],
        I::SIToFP(i) => vec![&i.operand],
        I::PtrToInt(i) => vec![&i.operand],
        I::IntToPtr(i) => vec![&i.operand],
        I::BitCast(i) => vec![&i.operand],
        I::AddrSpaceCast(i) => vec![&i.operand],
        I::ICmp(i) => vec![&i.operand0, &i.operand1],
        I::FCmp(i) => vec![&i.operand0, &i.operand1],
        I::Phi(i) => i.incoming_values.iter().map(|(v, _)| v).collect(),
        I::Select(i) => vec![&i.condition, &i.true_value, &i.false_value],
        I::Freeze(i) => vec![&i.operand],
        I::Call(c) => {
            let mut v: Vec<&Operand> = c.arguments.iter().map(|(a, _)| a).collect();
            if let either::Either::Right(f) = &c.function {
                v.push(f);
            }
            v
        }
        I::VAArg(i) => vec![&i.arg_list],
        I::LandingPad(_) | I::CatchPad(_) | I::CleanupPad(_) => vec![],
    }
}

pub fn term_operands(term: &T) -> Vec<&Operand> {
    match term {
        T::Ret(r) => r.return_operand.iter().collect(),
        T::CondBr(b) => vec![&b.condition],
        T::Switch(s) => vec![&s.operand],
        T::IndirectBr(b) => vec![&b.operand],
        _ => vec![],
    }
}

/// Successor block names of a terminator.
pub fn successors(term: &T) -> Vec<&Name> {
    match term {
        T::Br(b) => vec![&b.dest],
        T::CondBr(b) => vec![&b.true_dest, &b.false_dest],
        T::Switch(s) => {
            let mut v: Vec<&Name> = s.dests.iter().map(|(_, n)| n).collect();
            v.push(&s.default_dest);
            v
        }
        T::IndirectBr(b) => b.possible_dests.iter().collect(),
        T::Invoke(i) => vec![&i.return_label, &i.exception_label],
        T::CallBr(c) => vec![&c.return_label],
        _ => vec![],
    }
}

/// Strip bitcasts around a constant.
pub fn strip_casts(c: &Constant) -> &Constant {
    match c {
        Constant::BitCast(b) => strip_casts(&b.operand),
        Constant::AddrSpaceCast(b) => strip_casts(&b.operand),
        other => other,
    }
}

/// The name of a directly called function (through constant casts).
pub fn direct_callee(call: &llvm_ir::instruction::Call) -> Option<&str> {
    match &call.function {
        either::Either::Right(Operand::ConstantOperand(c)) => match strip_casts(c) {
            Constant::GlobalReference { name, .. } => name_str(name),
            _ => None,
        },
        _ => None,
    }
}

/// A function named by an operand (e.g. pthread_create's start routine).
pub fn function_operand(op: &Operand) -> Option<&str> {
    match op {
        Operand::ConstantOperand(c) => match strip_casts(c) {
            Constant::GlobalReference { name, .. } => name_str(name),
            _ => None,
        },
        _ => None,
    }
}

pub fn name_str(name: &Name) -> Option<&str> {
    match name {
        Name::Name(s) => Some(s.as_str()),
        Name::Number(_) => None,
    }
}

/// A readable name without LLVM's sigil: `x`, `3`.
pub fn plain_name(name: &Name) -> String {
    match name {
        Name::Name(s) => s.to_string(),
        Name::Number(n) => n.to_string(),
    }
}

pub fn opcode(instr: &I) -> &'static str {
    match instr {
        I::Add(_) => "add",
        I::Sub(_) => "sub",
        I::Mul(_) => "mul",
        I::UDiv(_) => "udiv",
        I::SDiv(_) => "sdiv",
        I::URem(_) => "urem",
        I::SRem(_) => "srem",
        I::And(_) => "and",
        I::Or(_) => "or",
        I::Xor(_) => "xor",
        I::Shl(_) => "shl",
        I::LShr(_) => "lshr",
        I::AShr(_) => "ashr",
        I::FAdd(_) => "fadd",
        I::FSub(_) => "fsub",
        I::FMul(_) => "fmul",
        I::FDiv(_) => "fdiv",
        I::FRem(_) => "frem",
        I::FNeg(_) => "fneg",
        I::ExtractElement(_) => "extractelement",
        I::InsertElement(_) => "insertelement",
        I::ShuffleVector(_) => "shufflevector",
        I::ExtractValue(_) => "extractvalue",
        I::InsertValue(_) => "insertvalue",
        I::Alloca(_) => "alloca",
        I::Load(_) => "load",
        I::Store(_) => "store",
        I::Fence(_) => "fence",
        I::CmpXchg(_) => "cmpxchg",
        I::AtomicRMW(_) => "atomicrmw",
        I::GetElementPtr(_) => "getelementptr",
        I::Trunc(_) => "trunc",
        I::ZExt(_) => "zext",
        I::SExt(_) => "sext",
        I::FPTrunc(_) => "fptrunc",
        I::FPExt(_) => "fpext",
        I::FPToUI(_) => "fptoui",
        I::FPToSI(_) => "fptosi",
        I::UIToFP(_) => "uitofp",
        I::SIToFP(_) => "sitofp",
        I::PtrToInt(_) => "ptrtoint",
        I::IntToPtr(_) => "inttoptr",
        I::BitCast(_) => "bitcast",
        I::AddrSpaceCast(_) => "addrspacecast",
        I::ICmp(_) => "icmp",
        I::FCmp(_) => "fcmp",
        I::Phi(_) => "phi",
        I::Select(_) => "select",
        I::Freeze(_) => "freeze",
        I::Call(_) => "call",
        I::VAArg(_) => "va_arg",
        I::LandingPad(_) => "landingpad",
        I::CatchPad(_) => "catchpad",
        I::CleanupPad(_) => "cleanuppad",
    }
}

pub fn term_opcode(term: &T) -> &'static str {
    match term {
        T::Ret(_) => "ret",
        T::Br(_) => "br",
        T::CondBr(_) => "br",
        T::Switch(_) => "switch",
        T::IndirectBr(_) => "indirectbr",
        T::Invoke(_) => "invoke",
        T::Resume(_) => "resume",
        T::Unreachable(_) => "unreachable",
        T::CleanupRet(_) => "cleanupret",
        T::CatchRet(_) => "catchret",
        T::CatchSwitch(_) => "catchswitch",
        T::CallBr(_) => "callbr",
    }
}

/// What a library call means to the facts: a row of `crate::calls`.
pub use crate::calls::Role as LibCall;

pub fn classify(callee: &str) -> LibCall {
    crate::calls::role(callee)
}
