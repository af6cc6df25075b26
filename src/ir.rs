//! Small views over llvm-ir shared by the fact extractor, the property
//! slice and the symbolic executor: an instruction's operands, a call's
//! callee, integer constants, opcode names, and where an instruction is.
//! One copy each; the callers decide what the views mean to them.

use llvm_ir::constant::Constant;
use llvm_ir::instruction::Instruction as I;
use llvm_ir::terminator::Terminator as T;
use llvm_ir::{ConstantRef, Name, Operand};

/// Where an instruction is in its module: function, block, and index in
/// the block (the block's length for its terminator).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstrLoc {
    pub function: usize,
    pub block: usize,
    pub index: usize,
}

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

/// The name of a directly called function (through constant casts);
/// `None` for indirect calls, inline assembly and numbered functions.
pub fn callee_name(call: &llvm_ir::instruction::Call) -> Option<&str> {
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

/// An integer constant operand: (bits, value).
pub fn int_constant(op: &Operand) -> Option<(u32, u64)> {
    match op {
        Operand::ConstantOperand(c) => match c.as_ref() {
            Constant::Int { bits, value } => Some((*bits, *value)),
            _ => None,
        },
        _ => None,
    }
}

/// The value of an integer constant.
pub fn constant_int_value(c: &ConstantRef) -> Option<u64> {
    match c.as_ref() {
        Constant::Int { value, .. } => Some(*value),
        _ => None,
    }
}

/// The pointer a pointer-valued instruction derives from (a field or
/// element address, a cast), if it is one.
pub fn pointer_source(instr: &I) -> Option<&Operand> {
    match instr {
        I::GetElementPtr(g) => Some(&g.address),
        I::BitCast(c) => Some(&c.operand),
        I::PtrToInt(c) => Some(&c.operand),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{callee_name, constant_int_value, instr_operands, int_constant, I};
    use llvm_ir::constant::Constant;
    use llvm_ir::instruction::{Add, Call, Store};
    use llvm_ir::types::Types;
    use llvm_ir::{ConstantRef, Name, Operand};

    fn int(bits: u32, value: u64) -> Operand {
        Operand::ConstantOperand(ConstantRef::new(Constant::Int { bits, value }))
    }

    fn local(name: &str) -> Operand {
        let types = Types::blank_for_testing();
        Operand::LocalOperand {
            name: Name::from(name),
            ty: types.i32(),
        }
    }

    fn global(name: &str) -> ConstantRef {
        let types = Types::blank_for_testing();
        ConstantRef::new(Constant::GlobalReference {
            name: Name::from(name),
            ty: types.func_type(types.i32(), vec![], false),
        })
    }

    #[test]
    fn integer_constants_are_read_from_operands_only() {
        assert_eq!(int_constant(&int(8, 250)), Some((8, 250)));
        assert_eq!(int_constant(&local("x")), None);
        let c = ConstantRef::new(Constant::Int { bits: 32, value: 7 });
        assert_eq!(constant_int_value(&c), Some(7));
    }

    #[test]
    fn operands_in_order_and_callees_through_casts() {
        let add = I::Add(Add {
            operand0: local("a"),
            operand1: int(32, 1),
            dest: Name::from("s"),
            debugloc: None,
        });
        assert_eq!(instr_operands(&add), vec![&local("a"), &int(32, 1)]);
        let store = I::Store(Store {
            address: local("p"),
            value: int(32, 0),
            alignment: 4,
            volatile: false,
            atomicity: None,
            debugloc: None,
        });
        assert_eq!(instr_operands(&store), vec![&local("p"), &int(32, 0)]);
        let types = Types::blank_for_testing();
        let cast = ConstantRef::new(Constant::BitCast(llvm_ir::constant::BitCast {
            operand: global("worker"),
            to_type: types.pointer_to(types.i32()),
        }));
        let call = Call {
            function: either::Either::Right(Operand::ConstantOperand(cast)),
            arguments: vec![(local("m"), vec![])],
            return_attributes: vec![],
            dest: None,
            function_attributes: vec![],
            is_tail_call: false,
            calling_convention: llvm_ir::function::CallingConvention::C,
            debugloc: None,
        };
        assert_eq!(callee_name(&call), Some("worker"));
        assert_eq!(instr_operands(&I::Call(call)).len(), 2);
    }
}
