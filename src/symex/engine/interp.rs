//! One instruction at a time: the sequential semantics.

use super::state::{ObjKind, State, TStatus};
use super::transitions::{Access, Res};
use super::val::{Cond, Val};
use super::{const_int, Engine, Step, Stop, R};
use crate::symex::FindingKind;
use llvm_ir::{Function, Instruction, IntPredicate, Name, Operand, Terminator};
use z3::SatResult;

impl<'c, 'm> Engine<'c, 'm> {
    pub(super) fn advance(st: &mut State<'c>, tid: usize) {
        st.top_mut(tid).ip += 1;
    }

    pub(super) fn finding(kind: FindingKind, msg: impl Into<String>) -> Stop {
        Stop::Finding(kind, msg.into())
    }

    /// Move thread `tid` to block `target` of its current function and run
    /// the phi nodes.  `Stop::Cut` when the loop bound is exceeded.
    pub(super) fn jump(&self, st: &mut State<'c>, tid: usize, target: usize) -> Result<(), Stop> {
        let bound = self.opts.loop_bound;
        let (f, prev) = {
            let fr = st.top_mut(tid);
            let prev = fr.bb;
            fr.prev_bb = prev;
            fr.bb = target;
            fr.ip = 0;
            let v = fr.visits.entry(target).or_insert(0);
            *v += 1;
            // Loops with a constant trip count run to their end.
            let allowed = (u64::from(bound) + 1).max(self.trip_allow[fr.f][target]);
            if u64::from(*v) > allowed {
                return Err(Stop::Cut);
            }
            (fr.f, prev)
        };
        let func: &'m Function = &self.m.functions[f];
        let prev_name = &func.basic_blocks[prev].name;
        let mut vals = Vec::new();
        for i in &func.basic_blocks[target].instrs {
            let Instruction::Phi(p) = i else { break };
            let op = p
                .incoming_values
                .iter()
                .find(|(_, b)| b == prev_name)
                .map(|(o, _)| o)
                .ok_or_else(|| format!("phi {} has no value for {}", p.dest, prev_name))?;
            let v = self.op_val(st, tid, op)?;
            let sv = if self.track_wp {
                Some(self.op_sv(st, tid, op)?)
            } else {
                None
            };
            vals.push((p.dest.clone(), v, sv));
        }
        let n = vals.len();
        for (d, v, sv) in vals {
            self.set_reg(st, tid, &d, v, sv);
        }
        st.top_mut(tid).ip = n;
        Ok(())
    }

    pub(super) fn step(&mut self, st: &mut State<'c>, tid: usize) -> R<'c> {
        let (f, bb, ip) = {
            let fr = st.threads[tid].frames.last().unwrap();
            (fr.f, fr.bb, fr.ip)
        };
        let block = &self.m.functions[f].basic_blocks[bb];
        if ip < block.instrs.len() {
            if let Some(w) = (!self.wide.is_empty())
                .then(|| self.wide.get(&(f, bb, ip)))
                .flatten()
            {
                return Err(Stop::Unsupported(format!(
                    "{w}-bit value (the executor holds at most 128 bits)"
                )));
            }
            self.exec(st, tid, &block.instrs[ip])
        } else {
            self.term(st, tid, &block.term)
        }
    }

    pub(super) fn thread_done(&self, st: &mut State<'c>, tid: usize, ret: Option<Val<'c>>) {
        let th = &mut st.threads[tid];
        th.status = TStatus::Done;
        th.ret = ret;
        th.atomic = 0;
        th.frames.clear();
        st.tr_acc.push(Access {
            res: Res::ThreadEnd(tid),
            write: true,
        });
    }

    pub(super) fn pop_frame(
        &self,
        st: &mut State<'c>,
        tid: usize,
        ret: Option<(Val<'c>, Option<Val<'c>>)>,
    ) {
        let fr = st.threads[tid].frames.pop().unwrap();
        for o in &fr.allocas {
            st.obj_mut(*o).alive = false;
        }
        if fr.atomic_fn {
            let a = &mut st.threads[tid].atomic;
            *a = a.saturating_sub(1);
        }
        if st.threads[tid].frames.is_empty() {
            st.threads[tid].frames.push(fr);
            self.thread_done(st, tid, ret.map(|r| r.0));
            return;
        }
        if let (Some(dest), Some((v, sv))) = (&fr.ret_to, ret) {
            self.set_reg(st, tid, dest, v, sv);
        }
        Self::advance(st, tid);
    }

    pub(super) fn term(&mut self, st: &mut State<'c>, tid: usize, t: &'m Terminator) -> R<'c> {
        let f = st.threads[tid].frames.last().unwrap().f;
        let func: &'m Function = &self.m.functions[f];
        let bix = |n: &Name| -> Result<usize, Stop> {
            self.bbidx[f]
                .get(n)
                .copied()
                .ok_or_else(|| Stop::Unsupported(format!("unknown block {n}")))
        };
        match t {
            Terminator::Ret(r) => {
                let ret = match &r.return_operand {
                    Some(op) => {
                        let v = self.op_val(st, tid, op)?;
                        let sv = if self.track_wp {
                            Some(self.op_sv(st, tid, op)?)
                        } else {
                            None
                        };
                        Some((v, sv))
                    }
                    None => None,
                };
                self.pop_frame(st, tid, ret);
                Ok(Step::Continue)
            }
            Terminator::Br(b) => {
                let target = bix(&b.dest)?;
                self.goto(st, tid, target)
            }
            Terminator::CondBr(c) => {
                let v = self.op_val(st, tid, &c.condition)?.simplify();
                let sv = if self.track_wp {
                    self.op_sv(st, tid, &c.condition)?
                } else {
                    v.clone()
                };
                let tb = bix(&c.true_dest)?;
                let eb = bix(&c.false_dest)?;
                // Concrete condition: no alternatives, no terms.
                if let (Some(b), false) = (v.as_u64(), self.track_wp) {
                    return self.goto(st, tid, if b == 1 { tb } else { eb });
                }
                self.branch(
                    st,
                    tid,
                    vec![
                        (v._eq(&self.bv(1, 1)), sv._eq(&self.bv(1, 1)), tb),
                        (v._eq(&self.bv(0, 1)), sv._eq(&self.bv(0, 1)), eb),
                    ],
                )
            }
            Terminator::Switch(s) => {
                let v = self.op_val(st, tid, &s.operand)?.simplify();
                let sv = if self.track_wp {
                    self.op_sv(st, tid, &s.operand)?
                } else {
                    v.clone()
                };
                let mut alts = Vec::new();
                let mut not_any = Vec::new();
                let mut not_any_sv = Vec::new();
                for (k, dest) in &s.dests {
                    let kv = self.const_val(k)?;
                    let c = v._eq(&kv);
                    let csv = sv._eq(&kv);
                    not_any.push(c.not());
                    not_any_sv.push(csv.not());
                    alts.push((c, csv, bix(dest)?));
                }
                alts.push((
                    Cond::and(self.ctx, &not_any),
                    Cond::and(self.ctx, &not_any_sv),
                    bix(&s.default_dest)?,
                ));
                self.branch(st, tid, alts)
            }
            Terminator::Unreachable(_) => Err(Self::finding(
                FindingKind::Unsupported,
                "executed `unreachable`",
            )),
            other => Err(Stop::Unsupported(format!(
                "unsupported terminator `{other}` in {}",
                func.name
            ))),
        }
    }

    pub(super) fn goto(&self, st: &mut State<'c>, tid: usize, target: usize) -> R<'c> {
        self.jump(st, tid, target)?;
        Ok(Step::Continue)
    }

    pub(super) fn branch(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        alts: Vec<(Cond<'c>, Cond<'c>, usize)>,
    ) -> R<'c> {
        // Type B pivot (§6.1): a branch outside the slice cannot change any
        // property; explore its first feasible side only and keep its
        // condition out of the weakest precondition.
        let irrelevant = match &self.slice {
            Some(sl) => {
                let fr = st.threads[tid].frames.last().unwrap();
                let n = self.m.functions[fr.f].basic_blocks[fr.bb].instrs.len();
                !sl.branch_relevant(fr.f, fr.bb, n)
            }
            None => false,
        } && !self.directed_branch(st, tid);
        if irrelevant {
            for (c, _, t) in &alts {
                let cs = c.simplify();
                let ok = match cs.as_bool() {
                    Some(b) => b,
                    None => self.check(&st.pcon, &[cs.bool(self.ctx)]) != SatResult::Unsat,
                };
                if ok {
                    if cs.as_bool().is_none() {
                        st.pcon.push(cs.bool(self.ctx));
                        self.stats.slice_skipped_branches += 1;
                    }
                    self.directed_push(st, tid, *t);
                    return self.goto(st, tid, *t);
                }
            }
            return Err(Stop::AssumeFalse);
        }
        let mut feasible = Vec::new();
        for (c, csv, t) in alts {
            let cs = c.simplify();
            match cs.as_bool() {
                Some(false) => continue,
                Some(true) => feasible.push((cs, csv, t, true)),
                None => {
                    if self.check(&st.pcon, &[cs.bool(self.ctx)]) != SatResult::Unsat {
                        feasible.push((cs, csv, t, false));
                    }
                }
            }
        }
        match feasible.len() {
            0 => Err(Stop::AssumeFalse),
            1 => {
                let (_, csv, t, _) = feasible.pop().unwrap();
                // Simplified with the segment's formula (`apply_seg`).
                if self.track_wp && csv.as_bool() != Some(true) {
                    st.seg.assumes.push(csv);
                }
                self.directed_push(st, tid, t);
                self.goto(st, tid, t)
            }
            _ => Ok(Step::Fork {
                alts: feasible
                    .into_iter()
                    .map(|(c, csv, t, _)| (c.bool(self.ctx), csv, t))
                    .collect(),
            }),
        }
    }

    pub(super) fn pure(&self, i: &Instruction, a: &[Val<'c>]) -> Result<Val<'c>, Stop> {
        use Instruction as I;
        let x = || a[0].clone();
        Ok(match i {
            I::Add(_) => a[0].bvadd(&a[1]),
            I::Sub(_) => a[0].bvsub(&a[1]),
            I::Mul(_) => a[0].bvmul(&a[1]),
            I::UDiv(_) => a[0].bvudiv(&a[1]),
            I::SDiv(_) => a[0].bvsdiv(&a[1]),
            I::URem(_) => a[0].bvurem(&a[1]),
            I::SRem(_) => a[0].bvsrem(&a[1]),
            I::And(_) => a[0].bvand(&a[1]),
            I::Or(_) => a[0].bvor(&a[1]),
            I::Xor(_) => a[0].bvxor(&a[1]),
            I::Shl(_) => a[0].bvshl(&a[1]),
            I::LShr(_) => a[0].bvlshr(&a[1]),
            I::AShr(_) => a[0].bvashr(&a[1]),
            I::ICmp(c) => {
                let (p, q) = (&a[0], &a[1]);
                let b = match c.predicate {
                    IntPredicate::EQ => p._eq(q),
                    IntPredicate::NE => p._eq(q).not(),
                    IntPredicate::UGT => p.bvugt(q),
                    IntPredicate::UGE => p.bvuge(q),
                    IntPredicate::ULT => p.bvult(q),
                    IntPredicate::ULE => p.bvule(q),
                    IntPredicate::SGT => p.bvsgt(q),
                    IntPredicate::SGE => p.bvsge(q),
                    IntPredicate::SLT => p.bvslt(q),
                    IntPredicate::SLE => p.bvsle(q),
                };
                b.ite(&self.bv(1, 1), &self.bv(0, 1))
            }
            I::ZExt(z) => {
                let w = self.bits_of(&z.to_type).ok_or("zext to non-int")?;
                x().zero_ext(w - a[0].get_size())
            }
            I::SExt(z) => {
                let w = self.bits_of(&z.to_type).ok_or("sext to non-int")?;
                x().sign_ext(w - a[0].get_size())
            }
            I::Trunc(z) => {
                let w = self.bits_of(&z.to_type).ok_or("trunc to non-int")?;
                x().extract(w - 1, 0)
            }
            I::BitCast(b) => {
                let w = self.bits_of(&b.to_type).ok_or("bitcast to non-scalar")?;
                self.adapt(x(), w)
            }
            I::AddrSpaceCast(_) | I::Freeze(_) => x(),
            I::PtrToInt(p) => self.ptr_to_int(&a[0], self.bits_of(&p.to_type).unwrap_or(64)),
            I::IntToPtr(_) => self.int_to_ptr(&a[0]),
            I::Select(_) => a[0]._eq(&self.bv(1, 1)).ite(&a[1], &a[2]),
            I::GetElementPtr(g) => {
                let cidx: Vec<Option<u64>> = g
                    .indices
                    .iter()
                    .map(|o| match o {
                        Operand::ConstantOperand(c) => const_int(c),
                        _ => None,
                    })
                    .collect();
                self.gep(&a[0], &g.source_element_type, &a[1..], &cidx)?
            }
            other => {
                return Err(Stop::Unsupported(format!(
                    "unsupported instruction `{other}`"
                )))
            }
        })
    }

    /// The operands of an instruction `pure` computes (arithmetic,
    /// comparisons, casts, select, address arithmetic); `None` for others.
    pub(super) fn pure_operands(i: &Instruction) -> Option<Vec<&Operand>> {
        use Instruction as I;
        let pure = matches!(
            i,
            I::Add(_)
                | I::Sub(_)
                | I::Mul(_)
                | I::UDiv(_)
                | I::SDiv(_)
                | I::URem(_)
                | I::SRem(_)
                | I::And(_)
                | I::Or(_)
                | I::Xor(_)
                | I::Shl(_)
                | I::LShr(_)
                | I::AShr(_)
                | I::ICmp(_)
                | I::ZExt(_)
                | I::SExt(_)
                | I::Trunc(_)
                | I::BitCast(_)
                | I::AddrSpaceCast(_)
                | I::Freeze(_)
                | I::PtrToInt(_)
                | I::IntToPtr(_)
                | I::Select(_)
                | I::GetElementPtr(_)
        );
        pure.then(|| crate::ir::instr_operands(i))
    }

    pub(super) fn exec(&mut self, st: &mut State<'c>, tid: usize, i: &'m Instruction) -> R<'c> {
        if let Some(ops) = Self::pure_operands(i) {
            let dest = i
                .try_get_result()
                .ok_or("pure instruction without result")?;
            let vals: Vec<Val<'c>> = ops
                .iter()
                .map(|o| self.op_val(st, tid, o))
                .collect::<Result<_, _>>()?;
            if matches!(
                i,
                Instruction::UDiv(_)
                    | Instruction::SDiv(_)
                    | Instruction::URem(_)
                    | Instruction::SRem(_)
            ) {
                let z = vals[1]._eq(&self.bv(0, vals[1].get_size()));
                if self.may_be(&st.pcon, &z) {
                    return Err(Self::finding(FindingKind::MemoryError, "division by zero"));
                }
            }
            let v = self.pure(i, &vals)?.simplify();
            let sv = if self.track_wp {
                let svs: Vec<Val<'c>> = ops
                    .iter()
                    .map(|o| self.op_sv(st, tid, o))
                    .collect::<Result<_, _>>()?;
                // Not simplified here: `apply_seg` simplifies the
                // segment's formula once (one z3 rewriter per segment
                // instead of one per instruction).
                Some(self.pure(i, &svs)?)
            } else {
                None
            };
            self.set_reg(st, tid, dest, v, sv);
            Self::advance(st, tid);
            return Ok(Step::Continue);
        }
        use Instruction as I;
        match i {
            I::Alloca(a) => {
                // A variable-length array has the size its (concrete)
                // length has when the declaration runs.
                let n = match &a.num_elements {
                    Operand::ConstantOperand(c) => const_int(c).unwrap_or(1),
                    op => self
                        .op_val(st, tid, op)?
                        .simplify()
                        .as_u64()
                        .ok_or("variable-length array of a symbolic length")?,
                };
                if n > 1 << 24 {
                    return Err("variable-length array larger than 16 Mi elements".into());
                }
                let size = (self.size_of(&a.allocated_type) * n).max(1);
                let o = self.new_obj(st, size, ObjKind::Stack);
                self.note_made_at(st, tid, o);
                st.seg_fresh(o);
                st.top_mut(tid).allocas.push(o);
                let p = self.ptr(o, 0);
                self.set_reg(st, tid, &a.dest, p, None);
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::Load(l) => {
                let ty = self.m.type_of(l);
                let bits = self
                    .bits_of(&ty)
                    .ok_or_else(|| format!("load of aggregate type {ty}"))?;
                let bytes = self.size_of(&ty);
                let (v, sv) = self.load(st, tid, &l.address, bytes, bits)?;
                self.set_reg(st, tid, &l.dest, v, sv);
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::Store(s) => {
                let ty = self.m.type_of(&s.value);
                let bytes = self.size_of(&ty);
                let v = self.op_val(st, tid, &s.value)?;
                let sv = if self.track_wp {
                    Some(self.op_sv(st, tid, &s.value)?)
                } else {
                    None
                };
                self.store(st, tid, &s.address, bytes, v, sv)?;
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::AtomicRMW(a) => {
                let ty = self.m.type_of(&a.value);
                let bits = self.bits_of(&ty).ok_or("atomicrmw on aggregate")?;
                let bytes = self.size_of(&ty);
                let (old, _) = self.load(st, tid, &a.address, bytes, bits)?;
                let x = self.op_val(st, tid, &a.value)?;
                use llvm_ir::instruction::RMWBinOp as B;
                let new = match a.operation {
                    B::Xchg => x.clone(),
                    B::Add => old.bvadd(&x),
                    B::Sub => old.bvsub(&x),
                    B::And => old.bvand(&x),
                    B::Or => old.bvor(&x),
                    B::Xor => old.bvxor(&x),
                    B::Nand => old.bvand(&x).bvnot(),
                    B::Max => old.bvsgt(&x).ite(&old, &x),
                    B::Min => old.bvslt(&x).ite(&old, &x),
                    B::UMax => old.bvugt(&x).ite(&old, &x),
                    B::UMin => old.bvult(&x).ite(&old, &x),
                    _ => return Err("floating-point atomicrmw".into()),
                };
                st.seg.bad = true;
                self.store(st, tid, &a.address, bytes, new.simplify(), None)?;
                self.set_reg(st, tid, &a.dest, old, None);
                st.seg.bad = true;
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::CmpXchg(c) => {
                let ty = self.m.type_of(&c.expected);
                let bits = self.bits_of(&ty).ok_or("cmpxchg on aggregate")?;
                let bytes = self.size_of(&ty);
                let (old, _) = self.load(st, tid, &c.address, bytes, bits)?;
                let exp = self.op_val(st, tid, &c.expected)?;
                let rep = self.op_val(st, tid, &c.replacement)?;
                let eq = old._eq(&exp);
                let new = eq.ite(&rep, &old).simplify();
                self.store(st, tid, &c.address, bytes, new, None)?;
                let res = eq
                    .ite(&self.bv(1, 1), &self.bv(0, 1))
                    .concat(&old)
                    .simplify();
                self.set_reg(st, tid, &c.dest, res, None);
                st.seg.bad = true;
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::ExtractValue(e) => {
                let agg = self.op_val(st, tid, &e.aggregate)?;
                let w = agg.get_size();
                let v = match e.indices.as_slice() {
                    [0] => agg.extract(w - 2, 0),
                    [1] => agg.extract(w - 1, w - 1),
                    _ => return Err("extractvalue on aggregate registers".into()),
                };
                st.seg.bad = true;
                self.set_reg(st, tid, &e.dest, v.simplify(), None);
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::Fence(_) => {
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::Phi(_) => Err("phi in the middle of a block".into()),
            I::Call(c) => self.call(st, tid, c),
            other => Err(Stop::Unsupported(format!(
                "unsupported instruction `{other}`"
            ))),
        }
    }
}
