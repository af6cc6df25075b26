//! Values wider than the executor holds.
//!
//! A concrete value holds at most 128 bits (`engine/val.rs`); an integer
//! type wider than that (`i256`), or an aggregate result whose parts add
//! up to more (`{i128, i1}` of a `cmpxchg` or an overflow intrinsic on
//! `i128`), is an unsupported construct: the path stops there with an
//! `unsupported` finding (verdict at best `inconclusive`) instead of the
//! engine panicking on it.

use super::fasthash::FastMap;
use super::PW;
use llvm_ir::types::NamedStructDef;
use llvm_ir::{Module, Type};

/// Bits the engine needs for a value of `ty` (aggregates concatenate
/// their parts); `None` for what it does not hold as one value.
fn repr_bits(m: &Module, ty: &Type) -> Option<u32> {
    match ty {
        Type::IntegerType { bits } => Some(*bits),
        Type::PointerType { .. } => Some(PW),
        Type::StructType { element_types, .. } => element_types
            .iter()
            .map(|t| repr_bits(m, t))
            .sum::<Option<u32>>(),
        Type::NamedStructType { name } => match m.types.named_struct_def(name) {
            Some(NamedStructDef::Defined(t)) => repr_bits(m, t),
            _ => None,
        },
        _ => None,
    }
}

/// Per instruction (function, block, index) whose result is wider than
/// 128 bits: that width.
pub(super) fn wide_results(m: &Module) -> FastMap<(usize, usize, usize), u32> {
    let mut out = FastMap::default();
    for (f, func) in m.functions.iter().enumerate() {
        for (b, bb) in func.basic_blocks.iter().enumerate() {
            for (k, i) in bb.instrs.iter().enumerate() {
                if i.try_get_result().is_none() {
                    continue;
                }
                if let Some(w) = repr_bits(m, &m.type_of(i)).filter(|w| *w > 128) {
                    out.insert((f, b, k), w);
                }
            }
        }
    }
    out
}
