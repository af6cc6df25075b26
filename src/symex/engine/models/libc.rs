//! The C library: allocation, exit, output (printing is a no-op).

use super::*;

/// Is `name` a C library call the model implements?
pub(crate) fn is_libc(name: &str) -> bool {
    matches!(
        name,
        "exit"
            | "_exit"
            | "malloc"
            | "calloc"
            | "free"
            | "printf"
            | "puts"
            | "putchar"
            | "fprintf"
            | "fflush"
            | "usleep"
            | "sleep"
            | "sched_yield"
    )
}

impl<'c, 'm> Engine<'c, 'm> {
    pub(crate) fn call_libc(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of(name, args, k);
        match name {
            "exit" | "_exit" => {
                for t in 0..st.threads.len() {
                    if st.threads[t].status != TStatus::Done {
                        self.thread_done(st, t, None);
                    }
                }
                Ok(Step::Continue)
            }
            "malloc" | "calloc" => {
                let mut n = self
                    .op_val(st, tid, arg(0)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("allocation of a symbolic size")?;
                if name == "calloc" {
                    n *= self
                        .op_val(st, tid, arg(1)?)?
                        .simplify()
                        .as_u64()
                        .ok_or("allocation of a symbolic size")?;
                }
                let o = self.new_obj(st, n.max(1), ObjKind::Heap);
                st.seg_fresh(o);
                let p = self.ptr(o, 0);
                self.ret(st, tid, c, Some(p))
            }
            "free" => {
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
                        st.objs[o as usize].alive = false;
                        if self.is_shared(st, o) {
                            let a = self.mem_access(st, o, None, 0, true);
                            st.tr_acc.push(a);
                        }
                    }
                    _ => return Err("free of a symbolic pointer".into()),
                }
                self.ret(st, tid, c, None)
            }
            "printf" | "puts" | "putchar" | "fprintf" | "fflush" | "usleep" | "sleep"
            | "sched_yield" => self.ret(st, tid, c, Some(self.bv(0, 32))),
            other => Err(unsupported_call(other)),
        }
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
