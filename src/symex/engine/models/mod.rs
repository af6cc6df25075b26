//! Library calls: each model has its footprint (for scheduling and DPOR)
//! and its semantics in one place.

use super::callee_name;
use super::state::ObjKind;
use super::state::State;
use super::transitions::Access;
use super::transitions::Res;
use super::val::Val;
use super::Engine;
use super::Step;
use super::Stop;
use super::PW;
use super::R;
use crate::calls::{self, Footprint, Semantics};
use llvm_ir::instruction as ins;
use llvm_ir::Function;
use llvm_ir::Instruction;
use llvm_ir::Operand;
use std::rc::Rc;
use z3::ast::BV;

mod intrinsics;
mod libc;
mod parse_int;
mod printf_format;
mod pthread;
mod verifier;

use intrinsics::is_intrinsic;

/// Argument `k` of a call to `name`.
pub(crate) fn arg_of<'a>(name: &str, args: &[&'a Operand], k: usize) -> Result<&'a Operand, Stop> {
    args.get(k)
        .copied()
        .ok_or_else(|| Stop::Unsupported(format!("{name}: missing argument")))
}

/// External calls that never touch shared state or synchronise (so a
/// thread whose remaining code only calls these may run late, as a tail).
pub(crate) fn is_thread_local_call(n: &str) -> bool {
    calls::is_thread_local(n)
}

/// The stop for a call no model implements.
pub(crate) fn unsupported_call(name: &str) -> Stop {
    Stop::Unsupported(format!("unsupported call to `{name}`"))
}

impl<'c, 'm> Engine<'c, 'm> {
    pub(crate) fn fresh_input(
        &mut self,
        st: &mut State<'c>,
        base: &str,
        bits: u32,
    ) -> (Val<'c>, Val<'c>) {
        st.nondet_count += 1;
        let mut name = base.to_string();
        if st.inputs.iter().any(|(n, _)| *n == name) || base.starts_with("nondet") {
            name = format!("{base}#{}", st.nondet_count);
        }
        let v = match self.opts.inputs.as_ref().map(|m| m.get(&name)) {
            Some(Some(x)) => self.bv(*x, bits),
            Some(None) => {
                if self.stats.replay_mismatch.is_none() {
                    self.stats.replay_mismatch = Some(format!(
                        "the program reads input `{name}`, the test case has no value for it"
                    ));
                }
                Val::S(BV::new_const(self.ctx, format!("in!{name}"), bits))
            }
            None => Val::S(BV::new_const(self.ctx, format!("in!{name}"), bits)),
        };
        st.inputs.push((name, v.clone()));
        let h = BV::new_const(
            self.ctx,
            format!("h!{}!{}", st.sched.len(), st.nondet_count),
            bits,
        );
        st.seg.havoc.push(h.clone());
        (v, Val::S(h))
    }

    pub(crate) fn call(&mut self, st: &mut State<'c>, tid: usize, c: &'m ins::Call) -> R<'c> {
        let name = match callee_name(c) {
            Some(n) => n,
            None => match c.function.as_ref().right() {
                Some(op) => {
                    let p = self.op_val(st, tid, op)?.simplify();
                    match self
                        .ptr_parts(&p)
                        .0
                        .and_then(|o| st.objs.get(o as usize).map(|x| x.kind.clone()))
                    {
                        Some(ObjKind::Func(i)) if i != usize::MAX => {
                            self.m.functions[i].name.clone()
                        }
                        _ => return Err("indirect call through a non-function pointer".into()),
                    }
                }
                None => return Err("inline assembly".into()),
            },
        };
        let args: Vec<&Operand> = c.arguments.iter().map(|a| &a.0).collect();
        if let Some(&fi) = self.fidx.get(&name) {
            if !self.m.functions[fi].basic_blocks.is_empty() {
                let vals: Vec<Val<'c>> = args
                    .iter()
                    .map(|o| self.op_val(st, tid, o))
                    .collect::<Result<_, _>>()?;
                let svs: Option<Vec<Val<'c>>> = if self.track_wp {
                    Some(
                        args.iter()
                            .map(|o| self.op_sv(st, tid, o))
                            .collect::<Result<_, _>>()?,
                    )
                } else {
                    None
                };
                let mut fr = self.frame(fi);
                fr.ret_to = c.dest.clone();
                if fr.atomic_fn {
                    st.threads[tid].atomic += 1;
                }
                if st.threads[tid].frames.len() > 64 {
                    return Err(Stop::Cut);
                }
                st.threads[tid].frames.push(Rc::new(fr));
                let params = &self.m.functions[fi].parameters;
                for (k, p) in params.iter().enumerate() {
                    let v = vals.get(k).cloned().ok_or("too few arguments")?;
                    let sv = svs.as_ref().map(|s| s[k].clone());
                    self.set_reg(st, tid, &p.name, v, sv);
                }
                let f: &'m Function = &self.m.functions[fi];
                let nphi = f.basic_blocks[0]
                    .instrs
                    .iter()
                    .take_while(|i| matches!(i, Instruction::Phi(_)))
                    .count();
                st.top_mut(tid).ip = nphi;
                return Ok(Step::Continue);
            }
        }
        self.builtin(st, tid, c, &name, &args)
    }

    pub(crate) fn ret(
        &self,
        st: &mut State<'c>,
        tid: usize,
        c: &ins::Call,
        v: Option<Val<'c>>,
    ) -> R<'c> {
        if let (Some(d), Some(v)) = (&c.dest, v) {
            let w = self.bits_of(&self.m.type_of(c)).unwrap_or(v.get_size());
            let v = self.adapt(v, w);
            self.set_reg(st, tid, d, v, None);
        } else if let Some(d) = &c.dest {
            let w = self.bits_of(&self.m.type_of(c)).unwrap_or(32);
            self.set_reg(st, tid, d, self.bv(0, w), None);
        }
        Self::advance(st, tid);
        Ok(Step::Continue)
    }

    /// A call to an external function: dispatched to its model.
    pub(crate) fn builtin(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        args: &[&Operand],
    ) -> R<'c> {
        if is_intrinsic(name) {
            return self.call_intrinsic(st, tid, c, name, args);
        }
        match calls::semantics(name) {
            Some(Semantics::Verifier(op)) => self.call_verifier(st, tid, c, name, op, args),
            Some(Semantics::Pthread(op)) => self.call_pthread(st, tid, c, name, op, args),
            Some(Semantics::Libc(op)) => self.call_libc(st, tid, c, name, op, args),
            Some(Semantics::Intrinsic | Semantics::Unsupported) | None => {
                Err(unsupported_call(name))
            }
        }
    }

    /// What a call does that other threads can observe (its accesses) and
    /// whether it can run now; `None` for thread-local calls.
    pub(crate) fn call_footprint(
        &self,
        st: &State<'c>,
        tid: usize,
        c: &ins::Call,
    ) -> Option<(Vec<Access>, bool)> {
        let name = callee_name(c)?;
        if name.starts_with("__VERIFIER_atomic_") && name != "__VERIFIER_atomic_end" {
            return Some((
                vec![Access {
                    res: Res::All,
                    write: true,
                }],
                true,
            ));
        }
        let model = calls::lookup(&name)?;
        match model.semantics {
            Semantics::Pthread(op) => self.pthread_footprint(st, tid, c, op, &model.footprint),
            _ => self.memory_footprint(st, tid, c, &model.footprint),
        }
    }

    /// String and memory functions read (and write) whole objects: on
    /// shared ones they are scheduling points like loads and stores.
    fn memory_footprint(
        &self,
        st: &State<'c>,
        tid: usize,
        c: &ins::Call,
        footprint: &Footprint,
    ) -> Option<(Vec<Access>, bool)> {
        let mut acc = Vec::new();
        for (k, (a, _)) in c.arguments.iter().enumerate() {
            let write = footprint.writes.contains(&k);
            if !write && !footprint.reads.contains(&k) {
                continue;
            }
            let Ok(v) = self.op_val(st, tid, a) else {
                continue;
            };
            if v.get_size() != PW {
                continue;
            }
            match self.ptr_parts(&v.simplify()).0 {
                Some(o) if self.is_shared(st, o) => {
                    acc.push(self.mem_access(st, o, None, 0, write))
                }
                Some(_) => {}
                None => acc.push(Access {
                    res: Res::All,
                    write: true,
                }),
            }
        }
        (!acc.is_empty()).then_some((acc, true))
    }
}
