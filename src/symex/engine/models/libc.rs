//! The C library: allocation, exit, output (printing is a no-op).

use super::super::state::ObjKind;
use super::super::state::State;
use super::super::state::TStatus;
use super::super::Engine;
use super::super::Step;
use super::super::Stop;
use super::super::R;
use super::arg_of;
use crate::symex::FindingKind;
use llvm_ir::instruction as ins;
use llvm_ir::Operand;

use crate::calls::LibcOp;

impl<'c, 'm> Engine<'c, 'm> {
    pub(crate) fn call_libc(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        op: LibcOp,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of(name, args, k);
        match op {
            LibcOp::Exit => {
                for t in 0..st.threads.len() {
                    if st.threads[t].status != TStatus::Done {
                        self.thread_done(st, t, None);
                    }
                }
                Ok(Step::Continue)
            }
            LibcOp::Malloc | LibcOp::Calloc => {
                let mut n = self
                    .op_val(st, tid, arg(0)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("allocation of a symbolic size")?;
                if op == LibcOp::Calloc {
                    n *= self
                        .op_val(st, tid, arg(1)?)?
                        .simplify()
                        .as_u64()
                        .ok_or("allocation of a symbolic size")?;
                }
                let o = self.new_obj(st, n.max(1), ObjKind::Heap);
                self.note_made_at(st, tid, o);
                st.seg_fresh(o);
                let p = self.ptr(o, 0);
                self.ret(st, tid, c, Some(p))
            }
            LibcOp::Free => {
                let p = self.op_val(st, tid, arg(0)?)?.simplify();
                match self.ptr_parts(&p) {
                    (Some(0), _) => {}
                    (Some(o), off) => {
                        let ok = st
                            .objs
                            .get(o as usize)
                            .map(|x| x.alive && x.kind == ObjKind::Heap)
                            .unwrap_or(false);
                        if !ok || off.as_u64() != Some(0) {
                            return Err(Self::finding(
                                FindingKind::MemoryError,
                                "invalid or double free",
                            ));
                        }
                        st.obj_mut(o).alive = false;
                        if self.is_shared(st, o) {
                            let a = self.mem_access(st, o, None, 0, true);
                            st.tr_acc.push(a);
                        }
                    }
                    _ => return Err("free of a symbolic pointer".into()),
                }
                self.ret(st, tid, c, None)
            }
            // Output and sleeping do not change the modelled state; they
            // return 0 (printf's byte count is not modelled).
            LibcOp::NoEffect => self.ret(st, tid, c, Some(self.bv(0, 32))),
            LibcOp::MemoryFunction => {
                // Same semantics as the intrinsics; the C functions also
                // return their destination.
                let d = self.op_val(st, tid, arg(0)?)?;
                let step = self.call_intrinsic(st, tid, c, &format!("llvm.{name}"), args)?;
                if let Some(dest) = &c.dest {
                    self.set_reg(st, tid, dest, d, None);
                }
                st.seg.bad = true;
                Ok(step)
            }
            LibcOp::Strlen => {
                let s = self.c_bytes(st, tid, arg(0)?, None)?;
                st.seg.bad = true;
                let w = self.bits_of(&self.m.type_of(c)).unwrap_or(64);
                self.ret(st, tid, c, Some(self.bv(s.len() as u64, w)))
            }
            LibcOp::Strcmp | LibcOp::Strncmp => {
                let limit = if op == LibcOp::Strncmp {
                    Some(
                        self.op_val(st, tid, arg(2)?)?
                            .simplify()
                            .as_u64()
                            .ok_or_else(|| format!("{name} with a symbolic length"))?,
                    )
                } else {
                    None
                };
                let a = self.c_bytes(st, tid, arg(0)?, limit)?;
                let b = self.c_bytes(st, tid, arg(1)?, limit)?;
                // The sign of the first difference (C only promises the sign).
                let mut r: i64 = 0;
                for k in 0..a.len().max(b.len()) {
                    let (x, y) = (*a.get(k).unwrap_or(&0), *b.get(k).unwrap_or(&0));
                    if x != y {
                        r = if x < y { -1 } else { 1 };
                        break;
                    }
                }
                st.seg.bad = true;
                self.ret(st, tid, c, Some(self.bv(r as u64, 32)))
            }
            LibcOp::Abs => {
                let x = self.op_val(st, tid, arg(0)?)?;
                let w = x.get_size();
                let v = x.bvslt(&self.bv(0, w)).ite(&x.bvneg(), &x).simplify();
                self.ret(st, tid, c, Some(v))
            }
        }
    }

    /// The bytes of the C string at `op` (without its NUL, at most
    /// `limit`), recording the read as an access to a shared object.
    /// Symbolic bytes are not modelled (a string compared or measured
    /// symbolically would need a symbolic length).
    fn c_bytes(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        op: &Operand,
        limit: Option<u64>,
    ) -> Result<Vec<u8>, Stop> {
        let (o, off) = self.resolve_ptr(st, tid, op)?;
        let start = off.as_u64().ok_or("string at a symbolic offset")?;
        let size = st.objs[o as usize].size;
        let mut out = Vec::new();
        let mut k = start;
        loop {
            if limit.is_some_and(|l| out.len() as u64 >= l) {
                break;
            }
            if k >= size {
                return Err(Self::finding(
                    FindingKind::MemoryError,
                    "string read past the end of its object (no NUL)",
                ));
            }
            let (b, _) = self.mem_load(st, o, k, 1, 8);
            let b = b
                .simplify()
                .as_u64()
                .ok_or("string function on symbolic characters")? as u8;
            if b == 0 {
                break;
            }
            out.push(b);
            k += 1;
        }
        if self.is_shared(st, o) {
            let a = self.mem_access(st, o, Some(start), k - start + 1, false);
            st.tr_acc.push(a);
        }
        Ok(out)
    }

    pub(crate) fn c_string(&self, st: &State<'c>, tid: usize, op: &Operand) -> Option<String> {
        let p = self.op_val(st, tid, op).ok()?.simplify();
        let (o, off) = self.ptr_parts(&p);
        let (o, mut k) = (o?, off.as_u64()?);
        let obj = st.objs.get(o as usize)?;
        let mut s = Vec::new();
        while k < obj.size && s.len() < 256 {
            let (b, _) = self.mem_load(st, o, k, 1, 8);
            let b = b.simplify().as_u64()? as u8;
            if b == 0 {
                break;
            }
            s.push(b);
            k += 1;
        }
        String::from_utf8(s).ok()
    }
}
