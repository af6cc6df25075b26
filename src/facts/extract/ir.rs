//! The extractor's views over llvm-ir: the shared helpers of
//! `crate::ir`, and the library calls' roles from `crate::calls`.

pub use crate::calls::Role as LibCall;
pub use crate::ir::{
    callee_name as direct_callee, function_operand, instr_operands, name_str, opcode, plain_name,
    strip_casts, successors, term_opcode, term_operands,
};

pub fn classify(callee: &str) -> LibCall {
    crate::calls::role(callee)
}
