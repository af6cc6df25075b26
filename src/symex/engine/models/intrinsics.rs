//! LLVM intrinsics: debug info and lifetimes (ignored), memset, memcpy, memmove.

use super::*;

/// LLVM intrinsics without an effect on the modelled state.
fn is_ignored_intrinsic(name: &str) -> bool {
    name.starts_with("llvm.dbg.")
        || name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.stacksave")
        || name.starts_with("llvm.stackrestore")
        || name == "llvm.assume"
}

/// Is `name` an LLVM intrinsic the model implements?
pub(crate) fn is_intrinsic(name: &str) -> bool {
    is_ignored_intrinsic(name)
        || name.starts_with("llvm.memset")
        || name.starts_with("llvm.memcpy")
        || name.starts_with("llvm.memmove")
}

impl<'c, 'm> Engine<'c, 'm> {
    pub(crate) fn call_intrinsic(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of(name, args, k);
        match name {
            n if is_ignored_intrinsic(n) => {
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            n if n.starts_with("llvm.memset") => {
                let (o, off) = self.resolve_ptr(st, tid, arg(0)?)?;
                let byte = self.adapt(self.op_val(st, tid, arg(1)?)?, 8);
                let len = self
                    .op_val(st, tid, arg(2)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("memset of symbolic length")?;
                let k = off.as_u64().ok_or("memset at symbolic offset")?;
                if k + len > st.objs[o as usize].size {
                    return Err(Self::finding(
                        FindingKind::MemoryError,
                        "out-of-bounds memset",
                    ));
                }
                for b in k..k + len {
                    self.mem_store(st, o, b, 1, byte.clone());
                }
                if self.is_shared(st, o) {
                    let a = self.mem_access(st, o, Some(k), len, true);
                    st.tr_acc.push(a);
                }
                st.seg.bad = true;
                self.ret(st, tid, c, None)
            }
            n if n.starts_with("llvm.memcpy") || n.starts_with("llvm.memmove") => {
                let (d, doff) = self.resolve_ptr(st, tid, arg(0)?)?;
                let (s, soff) = self.resolve_ptr(st, tid, arg(1)?)?;
                let len = self
                    .op_val(st, tid, arg(2)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("memcpy of symbolic length")?;
                let (dk, sk) = (
                    doff.as_u64().ok_or("memcpy at symbolic offset")?,
                    soff.as_u64().ok_or("memcpy at symbolic offset")?,
                );
                if dk + len > st.objs[d as usize].size || sk + len > st.objs[s as usize].size {
                    return Err(Self::finding(
                        FindingKind::MemoryError,
                        "out-of-bounds memcpy",
                    ));
                }
                let cells: Vec<(u64, Cell<'c>)> = st.objs[s as usize]
                    .cells
                    .range(sk..sk + len)
                    .map(|(a, b)| (*a, b.clone()))
                    .collect();
                let whole = cells.iter().all(|(a, c)| a + c.bytes <= sk + len);
                if whole {
                    for b in dk..dk + len {
                        self.mem_store(st, d, b, 1, self.bv(0, 8));
                    }
                    st.objs[d as usize]
                        .cells
                        .retain(|a, _| *a < dk || *a >= dk + len);
                    for (a, c) in cells {
                        st.objs[d as usize].cells.insert(a - sk + dk, c);
                    }
                } else {
                    for b in 0..len {
                        let (v, _) = self.mem_load(st, s, sk + b, 1, 8);
                        self.mem_store(st, d, dk + b, 1, v);
                    }
                }
                for (o, k, w) in [(s, sk, false), (d, dk, true)] {
                    if self.is_shared(st, o) {
                        let a = self.mem_access(st, o, Some(k), len, w);
                        st.tr_acc.push(a);
                    }
                }
                st.seg.bad = true;
                self.ret(st, tid, c, None)
            }
            other => Err(unsupported_call(other)),
        }
    }
}
