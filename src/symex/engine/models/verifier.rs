//! `__VERIFIER_*`, `assert`, `abort`, symbolic inputs: the SV-COMP and KLEE conventions.

use super::super::state::State;
use super::super::Engine;
use super::super::Step;
use super::super::Stop;
use super::super::R;
use super::arg_of;
use crate::symex::FindingKind;
use llvm_ir::instruction as ins;
use llvm_ir::Operand;

use crate::calls::VerifierOp;

impl<'c, 'm> Engine<'c, 'm> {
    pub(crate) fn call_verifier(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        op: VerifierOp,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of(name, args, k);
        match op {
            VerifierOp::Nondet => {
                // `__VERIFIER_nondet_int` -> input `nondet_int`.
                let suffix = name.split_once("nondet_").map_or("", |(_, s)| s);
                let w = self
                    .bits_of(&self.m.type_of(c))
                    .ok_or("nondet of non-scalar type")?;
                let (v, h) = self.fresh_input(st, &format!("nondet_{suffix}"), w);
                let d = c.dest.clone().ok_or("nondet without result")?;
                self.set_reg(st, tid, &d, v, Some(h));
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            VerifierOp::Symbolic => {
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
                if self.track_wp {
                    st.seg.ov.insert(format!("m!{o}!{k}!{bytes}!{bits}"), h);
                }
                if self.is_shared(st, o) {
                    let a = self.mem_access(st, o, Some(k), bytes, true);
                    st.tr_acc.push(a);
                }
                self.ret(st, tid, c, None)
            }
            VerifierOp::Assume => {
                let v = self.op_val(st, tid, arg(0)?)?;
                let z = self.bv(0, v.get_size());
                let cond = v._eq(&z).not();
                if !self.may_be(&st.pcon, &cond) {
                    return Err(Stop::AssumeFalse);
                }
                self.pc_add(&mut st.pcon, &cond);
                if self.track_wp {
                    let sv = self.op_sv(st, tid, arg(0)?)?;
                    st.seg.assumes.push(sv._eq(&z).not().simplify());
                }
                self.ret(st, tid, c, None)
            }
            VerifierOp::Assert => {
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
            VerifierOp::AssertFail => {
                Err(Self::finding(FindingKind::Assertion, "assertion failed"))
            }
            VerifierOp::ErrorCall => Err(Self::finding(
                FindingKind::ErrorCall,
                format!("{name}() reached"),
            )),
            VerifierOp::Abort => {
                if self.in_assume_helper(st, tid) {
                    Err(Stop::AssumeFalse)
                } else {
                    Err(Self::finding(FindingKind::Abort, "abort() called"))
                }
            }
            VerifierOp::AtomicBegin => {
                st.threads[tid].atomic += 1;
                self.ret(st, tid, c, None)
            }
            VerifierOp::AtomicEnd => {
                let a = &mut st.threads[tid].atomic;
                *a = a.saturating_sub(1);
                self.ret(st, tid, c, None)
            }
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
