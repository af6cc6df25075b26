//! `__VERIFIER_*`, `assert`, `abort`, symbolic inputs: the SV-COMP and KLEE conventions.

use super::*;

/// Is `name` a verifier primitive (inputs, assumptions, assertions,
/// error calls, atomic sections)?
pub(crate) fn is_verifier(name: &str) -> bool {
    name.starts_with("__VERIFIER_nondet_")
        || matches!(
            name,
            "concord_symbolic"
                | "klee_make_symbolic"
                | "__VERIFIER_assume"
                | "assume"
                | "__VERIFIER_assert"
                | "__assert_fail"
                | "__assert"
                | "__assert_rtn"
                | "reach_error"
                | "__VERIFIER_error"
                | "abort"
                | "__VERIFIER_atomic_begin"
                | "__VERIFIER_atomic_end"
        )
}

impl<'c, 'm> Engine<'c, 'm> {
    pub(crate) fn call_verifier(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of(name, args, k);
        match name {
            n if n.starts_with("__VERIFIER_nondet_") => {
                let suffix = &n["__VERIFIER_nondet_".len()..];
                let w = self
                    .bits_of(&self.m.type_of(c))
                    .ok_or("nondet of non-scalar type")?;
                let (v, h) = self.fresh_input(st, &format!("nondet_{suffix}"), w);
                let d = c.dest.clone().ok_or("nondet without result")?;
                self.set_reg(st, tid, &d, v, Some(h));
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            "concord_symbolic" | "klee_make_symbolic" => {
                let bytes = self
                    .op_val(st, tid, arg(1)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("symbolic size must be concrete")?;
                let label = self
                    .c_string(st, tid, arg(2)?)
                    .unwrap_or_else(|| "sym".into());
                let bits = match bytes {
                    1 | 2 | 4 | 8 => (bytes * 8) as u32,
                    _ => {
                        return Err("concord_symbolic: only 1, 2, 4 or 8 bytes are supported".into())
                    }
                };
                let (v, h) = self.fresh_input(st, &label, bits);
                let (o, off) = self.resolve_ptr(st, tid, arg(0)?)?;
                let k = off
                    .as_u64()
                    .ok_or("concord_symbolic on a symbolic offset")?;
                self.mem_store(st, o, k, bytes, v);
                if self.ag {
                    st.seg.ov.insert(format!("m!{o}!{k}!{bytes}!{bits}"), h);
                }
                if self.is_shared(st, o) {
                    let a = self.mem_access(st, o, Some(k), bytes, true);
                    st.tr_acc.push(a);
                }
                self.ret(st, tid, c, None)
            }
            "__VERIFIER_assume" | "assume" => {
                let v = self.op_val(st, tid, arg(0)?)?;
                let z = self.bv(0, v.get_size());
                let cond = v._eq(&z).not();
                if !self.may_be(&st.pcon, &cond) {
                    return Err(Stop::AssumeFalse);
                }
                self.pc_add(&mut st.pcon, &cond);
                if self.ag {
                    let sv = self.op_sv(st, tid, arg(0)?)?;
                    st.seg.assumes.push(sv._eq(&z).not().simplify());
                }
                self.ret(st, tid, c, None)
            }
            "__VERIFIER_assert" => {
                let v = self.op_val(st, tid, arg(0)?)?;
                let z = self.bv(0, v.get_size());
                let fail = v._eq(&z);
                if self.may_be(&st.pcon, &fail) {
                    let mut bad = st.clone();
                    self.pc_add(&mut bad.pcon, &fail);
                    let (loc, f) = self.thread_loc(&bad, tid);
                    self.stats.error_runs += 1;
                    self.report(
                        &bad,
                        tid,
                        FindingKind::Assertion,
                        "__VERIFIER_assert failed".into(),
                        loc,
                        f,
                    );
                    if !self.may_be(&st.pcon, &fail.not()) {
                        return Err(Stop::AssumeFalse);
                    }
                    self.pc_add(&mut st.pcon, &fail.not());
                    st.seg.bad = true;
                }
                self.ret(st, tid, c, None)
            }
            "__assert_fail" | "__assert" | "__assert_rtn" => {
                Err(Self::finding(FindingKind::Assertion, "assertion failed"))
            }
            "reach_error" | "__VERIFIER_error" => Err(Self::finding(
                FindingKind::ErrorCall,
                format!("{name}() reached"),
            )),
            "abort" => {
                if self.in_assume_helper(st, tid) {
                    Err(Stop::AssumeFalse)
                } else {
                    Err(Self::finding(FindingKind::Abort, "abort() called"))
                }
            }
            "__VERIFIER_atomic_begin" => {
                st.threads[tid].atomic += 1;
                self.ret(st, tid, c, None)
            }
            "__VERIFIER_atomic_end" => {
                let a = &mut st.threads[tid].atomic;
                *a = a.saturating_sub(1);
                self.ret(st, tid, c, None)
            }
            other => Err(unsupported_call(other)),
        }
    }

    pub(crate) fn in_assume_helper(&self, st: &State<'c>, tid: usize) -> bool {
        st.threads[tid]
            .frames
            .last()
            .map(|fr| {
                self.m.functions[fr.f]
                    .name
                    .to_lowercase()
                    .contains("assume")
            })
            .unwrap_or(false)
    }
}
