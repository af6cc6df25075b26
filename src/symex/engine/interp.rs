//! One instruction at a time: the sequential semantics.

use super::*;

type R<'c> = Result<Step<'c>, String>;

impl<'c, 'm> Engine<'c, 'm> {
    fn advance(st: &mut State<'c>, tid: usize) {
        st.threads[tid].frames.last_mut().unwrap().ip += 1;
    }

    fn finding(kind: FindingKind, msg: impl Into<String>) -> Step<'c> {
        Step::End(EndKind::Finding(kind, msg.into()))
    }

    /// Move thread `tid` to block `target` of its current function and run
    /// the phi nodes.  Err("cut") when the loop bound is exceeded.
    pub(super) fn jump(&self, st: &mut State<'c>, tid: usize, target: usize) -> Result<(), String> {
        let bound = self.opts.loop_bound;
        let (f, prev) = {
            let fr = st.threads[tid].frames.last_mut().unwrap();
            let prev = fr.bb;
            fr.prev_bb = prev;
            fr.bb = target;
            fr.ip = 0;
            let v = fr.visits.entry(target).or_insert(0);
            *v += 1;
            if *v > bound + 1 {
                return Err("cut".into());
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
            let sv = if self.ag {
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
        st.threads[tid].frames.last_mut().unwrap().ip = n;
        Ok(())
    }

    pub(super) fn step(&mut self, st: &mut State<'c>, tid: usize) -> R<'c> {
        let (f, bb, ip) = {
            let fr = st.threads[tid].frames.last().unwrap();
            (fr.f, fr.bb, fr.ip)
        };
        let block = &self.m.functions[f].basic_blocks[bb];
        if ip < block.instrs.len() {
            self.exec(st, tid, &block.instrs[ip])
        } else {
            self.term(st, tid, &block.term)
        }
    }

    fn thread_done(&self, st: &mut State<'c>, tid: usize, ret: Option<BV<'c>>) {
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

    fn pop_frame(&self, st: &mut State<'c>, tid: usize, ret: Option<(BV<'c>, Option<BV<'c>>)>) {
        let fr = st.threads[tid].frames.pop().unwrap();
        for o in &fr.allocas {
            st.objs[*o as usize].alive = false;
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
        if let (Some(dest), Some((v, sv))) = (fr.ret_to, ret) {
            self.set_reg(st, tid, &dest, v, sv);
        }
        Self::advance(st, tid);
    }

    fn term(&mut self, st: &mut State<'c>, tid: usize, t: &'m Terminator) -> R<'c> {
        let f = st.threads[tid].frames.last().unwrap().f;
        let func: &'m Function = &self.m.functions[f];
        let bix = |n: &Name| -> Result<usize, String> {
            self.bbidx[f]
                .get(n)
                .copied()
                .ok_or_else(|| format!("unknown block {n}"))
        };
        match t {
            Terminator::Ret(r) => {
                let ret = match &r.return_operand {
                    Some(op) => {
                        let v = self.op_val(st, tid, op)?;
                        let sv = if self.ag {
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
                let sv = if self.ag {
                    self.op_sv(st, tid, &c.condition)?
                } else {
                    v.clone()
                };
                let tb = bix(&c.true_dest)?;
                let eb = bix(&c.false_dest)?;
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
                let sv = if self.ag {
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
                let refs: Vec<&Bool<'c>> = not_any.iter().collect();
                let refs_sv: Vec<&Bool<'c>> = not_any_sv.iter().collect();
                alts.push((
                    Bool::and(self.ctx, &refs),
                    Bool::and(self.ctx, &refs_sv),
                    bix(&s.default_dest)?,
                ));
                self.branch(st, tid, alts)
            }
            Terminator::Unreachable(_) => Ok(Self::finding(
                FindingKind::Unsupported,
                "executed `unreachable`",
            )),
            other => Err(format!("unsupported terminator `{other}` in {}", func.name)),
        }
    }

    fn goto(&self, st: &mut State<'c>, tid: usize, target: usize) -> R<'c> {
        match self.jump(st, tid, target) {
            Ok(()) => Ok(Step::Continue),
            Err(m) if m == "cut" => Ok(Step::End(EndKind::Cut)),
            Err(m) => Err(m),
        }
    }

    fn branch(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        alts: Vec<(Bool<'c>, Bool<'c>, usize)>,
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
        };
        if irrelevant {
            for (c, _, t) in &alts {
                let cs = c.simplify();
                let ok = match cs.as_bool() {
                    Some(b) => b,
                    None => self.check(&st.pcon, std::slice::from_ref(&cs)) != SatResult::Unsat,
                };
                if ok {
                    if cs.as_bool().is_none() {
                        st.pcon.push(cs);
                        self.stats.slice_skipped_branches += 1;
                    }
                    return self.goto(st, tid, *t);
                }
            }
            return Ok(Step::End(EndKind::AssumeFalse));
        }
        let mut feasible = Vec::new();
        for (c, csv, t) in alts {
            let cs = c.simplify();
            match cs.as_bool() {
                Some(false) => continue,
                Some(true) => feasible.push((cs, csv, t, true)),
                None => {
                    if self.check(&st.pcon, std::slice::from_ref(&cs)) != SatResult::Unsat {
                        feasible.push((cs, csv, t, false));
                    }
                }
            }
        }
        match feasible.len() {
            0 => Ok(Step::End(EndKind::AssumeFalse)),
            1 => {
                let (_, csv, t, _) = feasible.pop().unwrap();
                if self.ag {
                    let s = csv.simplify();
                    if s.as_bool() != Some(true) {
                        st.seg.assumes.push(s);
                    }
                }
                self.goto(st, tid, t)
            }
            _ => Ok(Step::Fork {
                alts: feasible
                    .into_iter()
                    .map(|(c, csv, t, _)| (c, csv, t))
                    .collect(),
            }),
        }
    }

    fn pure(&self, i: &Instruction, a: &[BV<'c>]) -> Result<BV<'c>, String> {
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
            other => return Err(format!("unsupported instruction `{other}`")),
        })
    }

    fn pure_operands(i: &Instruction) -> Option<Vec<&Operand>> {
        use Instruction as I;
        Some(match i {
            I::Add(b) => vec![&b.operand0, &b.operand1],
            I::Sub(b) => vec![&b.operand0, &b.operand1],
            I::Mul(b) => vec![&b.operand0, &b.operand1],
            I::UDiv(b) => vec![&b.operand0, &b.operand1],
            I::SDiv(b) => vec![&b.operand0, &b.operand1],
            I::URem(b) => vec![&b.operand0, &b.operand1],
            I::SRem(b) => vec![&b.operand0, &b.operand1],
            I::And(b) => vec![&b.operand0, &b.operand1],
            I::Or(b) => vec![&b.operand0, &b.operand1],
            I::Xor(b) => vec![&b.operand0, &b.operand1],
            I::Shl(b) => vec![&b.operand0, &b.operand1],
            I::LShr(b) => vec![&b.operand0, &b.operand1],
            I::AShr(b) => vec![&b.operand0, &b.operand1],
            I::ICmp(b) => vec![&b.operand0, &b.operand1],
            I::ZExt(c) => vec![&c.operand],
            I::SExt(c) => vec![&c.operand],
            I::Trunc(c) => vec![&c.operand],
            I::BitCast(c) => vec![&c.operand],
            I::AddrSpaceCast(c) => vec![&c.operand],
            I::Freeze(c) => vec![&c.operand],
            I::PtrToInt(c) => vec![&c.operand],
            I::IntToPtr(c) => vec![&c.operand],
            I::Select(s) => vec![&s.condition, &s.true_value, &s.false_value],
            I::GetElementPtr(g) => {
                let mut v = vec![&g.address];
                v.extend(g.indices.iter());
                v
            }
            _ => return None,
        })
    }

    fn exec(&mut self, st: &mut State<'c>, tid: usize, i: &'m Instruction) -> R<'c> {
        if let Some(ops) = Self::pure_operands(i) {
            let dest = i
                .try_get_result()
                .ok_or("pure instruction without result")?;
            let vals: Vec<BV<'c>> = ops
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
                    return Ok(Self::finding(FindingKind::MemoryError, "division by zero"));
                }
            }
            let v = self.pure(i, &vals)?.simplify();
            let sv = if self.ag {
                let svs: Vec<BV<'c>> = ops
                    .iter()
                    .map(|o| self.op_sv(st, tid, o))
                    .collect::<Result<_, _>>()?;
                Some(self.pure(i, &svs)?.simplify())
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
                let n = match &a.num_elements {
                    Operand::ConstantOperand(c) => const_int(c).unwrap_or(1),
                    _ => return Err("variable-length alloca".into()),
                };
                let size = (self.size_of(&a.allocated_type) * n).max(1);
                let o = self.new_obj(st, size, ObjKind::Stack);
                st.seg_fresh(o);
                st.threads[tid].frames.last_mut().unwrap().allocas.push(o);
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
                match self.load(st, tid, &l.address, bytes, bits)? {
                    Ok((v, sv)) => {
                        self.set_reg(st, tid, &l.dest, v, sv);
                        Self::advance(st, tid);
                        Ok(Step::Continue)
                    }
                    Err(s) => Ok(s),
                }
            }
            I::Store(s) => {
                let ty = self.m.type_of(&s.value);
                let bytes = self.size_of(&ty);
                let v = self.op_val(st, tid, &s.value)?;
                let sv = if self.ag {
                    Some(self.op_sv(st, tid, &s.value)?)
                } else {
                    None
                };
                if let Some(st2) = self.store(st, tid, &s.address, bytes, v, sv)? {
                    return Ok(st2);
                }
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::AtomicRMW(a) => {
                let ty = self.m.type_of(&a.value);
                let bits = self.bits_of(&ty).ok_or("atomicrmw on aggregate")?;
                let bytes = self.size_of(&ty);
                let old = match self.load(st, tid, &a.address, bytes, bits)? {
                    Ok((v, _)) => v,
                    Err(s) => return Ok(s),
                };
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
                if let Some(s) = self.store(st, tid, &a.address, bytes, new.simplify(), None)? {
                    return Ok(s);
                }
                self.set_reg(st, tid, &a.dest, old, None);
                st.seg.bad = true;
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            I::CmpXchg(c) => {
                let ty = self.m.type_of(&c.expected);
                let bits = self.bits_of(&ty).ok_or("cmpxchg on aggregate")?;
                let bytes = self.size_of(&ty);
                let old = match self.load(st, tid, &c.address, bytes, bits)? {
                    Ok((v, _)) => v,
                    Err(s) => return Ok(s),
                };
                let exp = self.op_val(st, tid, &c.expected)?;
                let rep = self.op_val(st, tid, &c.replacement)?;
                let eq = old._eq(&exp);
                let new = eq.ite(&rep, &old).simplify();
                if let Some(s) = self.store(st, tid, &c.address, bytes, new, None)? {
                    return Ok(s);
                }
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
            other => Err(format!("unsupported instruction `{other}`")),
        }
    }

    /// Resolve a pointer operand: concrete object and (maybe symbolic) offset.
    /// Adds the wp guard that pins the pointer.
    fn resolve_ptr(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        op: &Operand,
    ) -> Result<Result<(u32, BV<'c>), Step<'c>>, String> {
        let p = self.op_val(st, tid, op)?.simplify();
        let (o, off) = self.ptr_parts(&p);
        let Some(o) = o else {
            return Err("pointer to a symbolic object".into());
        };
        let ok = st.objs.get(o as usize).map(|x| x.alive).unwrap_or(false);
        if !ok {
            let what = if o == 0 {
                "null pointer dereference"
            } else {
                "access to a dead or invalid object"
            };
            return Ok(Err(Self::finding(FindingKind::MemoryError, what)));
        }
        if self.ag {
            let psv = self.op_sv(st, tid, op)?.simplify();
            if psv.as_u64().is_none() {
                if off.as_u64().is_some() {
                    st.seg.assumes.push(psv._eq(&p));
                } else {
                    st.seg.bad = true;
                }
            }
        }
        Ok(Ok((o, off)))
    }

    /// Check bounds; for symbolic offsets report a possible overflow and
    /// constrain the path to in-bounds offsets.
    fn bounds(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        o: u32,
        off: &BV<'c>,
        bytes: u64,
    ) -> Option<Step<'c>> {
        let size = st.objs[o as usize].size;
        if bytes > size {
            return Some(Self::finding(
                FindingKind::MemoryError,
                "out-of-bounds access",
            ));
        }
        let inb = off.bvule(&self.bv(size - bytes, 64));
        match off.as_u64() {
            Some(x) => (x + bytes > size)
                .then(|| Self::finding(FindingKind::MemoryError, "out-of-bounds access")),
            None => {
                let out = inb.not();
                if self.may_be(&st.pcon, &out) {
                    let mut bad = st.clone();
                    bad.pcon.push(out);
                    let (loc, f) = self.thread_loc(&bad, tid);
                    self.stats.error_runs += 1;
                    self.report(
                        &bad,
                        tid,
                        FindingKind::MemoryError,
                        "out-of-bounds access (symbolic offset)".into(),
                        loc,
                        f,
                    );
                    if !self.may_be(&st.pcon, &inb) {
                        return Some(Step::End(EndKind::AssumeFalse));
                    }
                    st.pcon.push(inb);
                }
                None
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn load(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        addr: &Operand,
        bytes: u64,
        bits: u32,
    ) -> Result<Result<(BV<'c>, Option<BV<'c>>), Step<'c>>, String> {
        let (o, off) = match self.resolve_ptr(st, tid, addr)? {
            Ok(x) => x,
            Err(s) => return Ok(Err(s)),
        };
        if let Some(s) = self.bounds(st, tid, o, &off, bytes) {
            return Ok(Err(s));
        }
        if self.is_shared(st, o) {
            let a = self.mem_access(st, o, off.as_u64(), bytes, false);
            st.tr_acc.push(a);
        }
        match off.as_u64() {
            Some(k) => {
                let (v, exact) = self.mem_load(st, o, k, bytes, bits);
                let sv = if self.ag {
                    if !exact {
                        st.seg.bad = true;
                        None
                    } else {
                        let cell_bits = st.objs[o as usize].cells.get(&k).map(|c| c.val.get_size());
                        match cell_bits {
                            Some(cb) => {
                                let n = format!("m!{o}!{k}!{bytes}!{cb}");
                                let raw = match st.seg.ov.get(&n) {
                                    Some(x) => x.clone(),
                                    None if st.seg.fresh.contains(&o) => {
                                        st.objs[o as usize].cells[&k].val.clone()
                                    }
                                    None => BV::new_const(self.ctx, n, cb),
                                };
                                Some(self.adapt(raw, bits))
                            }
                            None => Some(v.clone()),
                        }
                    }
                } else {
                    None
                };
                Ok(Ok((v, sv)))
            }
            None => {
                if self.ag {
                    st.seg.bad = true;
                }
                let size = st.objs[o as usize].size;
                let mut v = self.bv(0, bits);
                let mut k = 0;
                while k + bytes <= size {
                    let (cv, _) = self.mem_load(st, o, k, bytes, bits);
                    v = off._eq(&self.bv(k, 64)).ite(&cv, &v);
                    k += bytes;
                }
                Ok(Ok((v.simplify(), None)))
            }
        }
    }

    fn store(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        addr: &Operand,
        bytes: u64,
        v: BV<'c>,
        sv: Option<BV<'c>>,
    ) -> Result<Option<Step<'c>>, String> {
        let (o, off) = match self.resolve_ptr(st, tid, addr)? {
            Ok(x) => x,
            Err(s) => return Ok(Some(s)),
        };
        if st.objs[o as usize].readonly {
            return Ok(Some(Self::finding(
                FindingKind::MemoryError,
                "write to read-only memory",
            )));
        }
        if let Some(s) = self.bounds(st, tid, o, &off, bytes) {
            return Ok(Some(s));
        }
        if self.is_shared(st, o) {
            let a = self.mem_access(st, o, off.as_u64(), bytes, true);
            st.tr_acc.push(a);
        }
        // A pointer stored anywhere makes its target shared.
        if v.get_size() == PW {
            if let (Some(t), _) = self.ptr_parts(&v) {
                if let Some(obj) = st.objs.get_mut(t as usize) {
                    obj.escaped = true;
                }
            }
        }
        match off.as_u64() {
            Some(k) => {
                let exact = self.mem_store(st, o, k, bytes, v.clone());
                if self.ag {
                    if !exact {
                        st.seg.bad = true;
                    }
                    let n = format!("m!{o}!{k}!{bytes}!{}", v.get_size());
                    match sv {
                        Some(s) => st.seg.ov.insert(n, s),
                        None => {
                            st.seg.bad = true;
                            None
                        }
                    };
                }
            }
            None => {
                if self.ag {
                    st.seg.bad = true;
                }
                let size = st.objs[o as usize].size;
                let mut k = 0;
                while k + bytes <= size {
                    let (old, _) = self.mem_load(st, o, k, bytes, v.get_size());
                    let nv = off._eq(&self.bv(k, 64)).ite(&v, &old).simplify();
                    self.mem_store(st, o, k, bytes, nv);
                    k += bytes;
                }
            }
        }
        Ok(None)
    }

    fn fresh_input(&self, st: &mut State<'c>, base: &str, bits: u32) -> (BV<'c>, BV<'c>) {
        st.nondet_count += 1;
        let mut name = base.to_string();
        if st.inputs.iter().any(|(n, _)| *n == name) || base.starts_with("nondet") {
            name = format!("{base}#{}", st.nondet_count);
        }
        let v = match self.opts.inputs.as_ref().and_then(|m| m.get(&name)) {
            Some(x) => self.bv(*x, bits),
            None => BV::new_const(self.ctx, format!("in!{name}"), bits),
        };
        st.inputs.push((name, v.clone()));
        let h = BV::new_const(
            self.ctx,
            format!("h!{}!{}", st.sched.len(), st.nondet_count),
            bits,
        );
        st.seg.havoc.push(h.clone());
        (v, h)
    }

    fn call(&mut self, st: &mut State<'c>, tid: usize, c: &'m ins::Call) -> R<'c> {
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
                let vals: Vec<BV<'c>> = args
                    .iter()
                    .map(|o| self.op_val(st, tid, o))
                    .collect::<Result<_, _>>()?;
                let svs: Option<Vec<BV<'c>>> = if self.ag {
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
                    return Ok(Step::End(EndKind::Cut));
                }
                st.threads[tid].frames.push(fr);
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
                st.threads[tid].frames.last_mut().unwrap().ip = nphi;
                return Ok(Step::Continue);
            }
        }
        self.builtin(st, tid, c, &name, &args)
    }

    fn ret(&self, st: &mut State<'c>, tid: usize, c: &ins::Call, v: Option<BV<'c>>) -> R<'c> {
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

    fn in_assume_helper(&self, st: &State<'c>, tid: usize) -> bool {
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

    fn builtin(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| -> Result<&Operand, String> {
            args.get(k)
                .copied()
                .ok_or_else(|| format!("{name}: missing argument"))
        };
        if name.starts_with("llvm.dbg.")
            || name.starts_with("llvm.lifetime.")
            || name.starts_with("llvm.stacksave")
            || name.starts_with("llvm.stackrestore")
            || name == "llvm.assume"
        {
            Self::advance(st, tid);
            return Ok(Step::Continue);
        }
        if let Some(suffix) = name.strip_prefix("__VERIFIER_nondet_") {
            let w = self
                .bits_of(&self.m.type_of(c))
                .ok_or("nondet of non-scalar type")?;
            let (v, h) = self.fresh_input(st, &format!("nondet_{suffix}"), w);
            let d = c.dest.clone().ok_or("nondet without result")?;
            self.set_reg(st, tid, &d, v, Some(h));
            Self::advance(st, tid);
            return Ok(Step::Continue);
        }
        match name {
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
                let (o, off) = match self.resolve_ptr(st, tid, arg(0)?)? {
                    Ok(x) => x,
                    Err(s) => return Ok(s),
                };
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
                    return Ok(Step::End(EndKind::AssumeFalse));
                }
                st.pcon.push(cond.simplify());
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
                    bad.pcon.push(fail.clone());
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
                        return Ok(Step::End(EndKind::AssumeFalse));
                    }
                    st.pcon.push(fail.not());
                    st.seg.bad = true;
                }
                self.ret(st, tid, c, None)
            }
            "__assert_fail" | "__assert" | "__assert_rtn" => {
                Ok(Self::finding(FindingKind::Assertion, "assertion failed"))
            }
            "reach_error" | "__VERIFIER_error" => Ok(Self::finding(
                FindingKind::ErrorCall,
                format!("{name}() reached"),
            )),
            "abort" => {
                if self.in_assume_helper(st, tid) {
                    Ok(Step::End(EndKind::AssumeFalse))
                } else {
                    Ok(Self::finding(FindingKind::Abort, "abort() called"))
                }
            }
            "exit" | "_exit" => {
                for t in 0..st.threads.len() {
                    if st.threads[t].status != TStatus::Done {
                        self.thread_done(st, t, None);
                    }
                }
                Ok(Step::Continue)
            }
            "pthread_create" => {
                let fp = self.op_val(st, tid, arg(2)?)?.simplify();
                let fi = match self
                    .ptr_parts(&fp)
                    .0
                    .and_then(|o| st.objs.get(o as usize).map(|x| x.kind.clone()))
                {
                    Some(ObjKind::Func(i)) if i != usize::MAX => i,
                    _ => return Err("pthread_create with an unknown start routine".into()),
                };
                let a = self.op_val(st, tid, arg(3)?)?.simplify();
                let asv = if self.ag {
                    Some(self.op_sv(st, tid, arg(3)?)?)
                } else {
                    None
                };
                if let (Some(o), _) = self.ptr_parts(&a) {
                    if let Some(obj) = st.objs.get_mut(o as usize) {
                        obj.escaped = true;
                    }
                }
                let nt = st.threads.len();
                let mut fr = self.frame(fi);
                let nphi = self.m.functions[fi].basic_blocks[0]
                    .instrs
                    .iter()
                    .take_while(|i| matches!(i, Instruction::Phi(_)))
                    .count();
                fr.ip = nphi;
                let clock = st.threads[tid].clock.clone();
                st.threads.push(Thread {
                    frames: vec![fr],
                    status: TStatus::Run,
                    ret: None,
                    atomic: 0,
                    clock,
                    tail: false,
                });
                if let Some(p) = self.m.functions[fi].parameters.first() {
                    let w = self.bits_of(&p.ty).unwrap_or(PW);
                    let v = self.adapt(a, w);
                    let sv = asv.map(|s| self.adapt(s, w));
                    self.set_reg(st, nt, &p.name, v, sv);
                }
                st.created.push(nt);
                // *thread = id
                let tp = self.op_val(st, tid, arg(0)?)?.simplify();
                if let (Some(o), off) = self.ptr_parts(&tp) {
                    if o != 0 {
                        let k = off.as_u64().ok_or("pthread_t at a symbolic offset")?;
                        let v = self.bv(nt as u64, 64);
                        if self.is_shared(st, o) {
                            let a = self.mem_access(st, o, Some(k), 8, true);
                            st.tr_acc.push(a);
                        }
                        self.mem_store(st, o, k, 8, v.clone());
                        if self.ag {
                            if let Ok(psv) = self.op_sv(st, tid, arg(0)?) {
                                let psv = psv.simplify();
                                if psv.as_u64().is_none() {
                                    st.seg.assumes.push(psv._eq(&tp));
                                }
                            }
                            st.seg.ov.insert(format!("m!{o}!{k}!8!64"), v);
                        }
                    }
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            "pthread_join" => {
                let t = self
                    .op_val(st, tid, arg(0)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("pthread_join on a symbolic thread id")?
                    as usize;
                if t >= st.threads.len() {
                    return Ok(Self::finding(
                        FindingKind::MemoryError,
                        "pthread_join on an unknown thread",
                    ));
                }
                st.tr_acc.push(Access {
                    res: Res::ThreadEnd(t),
                    write: false,
                });
                let rp = self.op_val(st, tid, arg(1)?)?.simplify();
                if let (Some(o), off) = self.ptr_parts(&rp) {
                    if o != 0 {
                        let k = off.as_u64().ok_or("join result at symbolic offset")?;
                        let rv = st.threads[t]
                            .ret
                            .clone()
                            .map(|v| self.adapt(v, PW))
                            .unwrap_or_else(|| self.bv(0, PW));
                        self.mem_store(st, o, k, 8, rv);
                        st.seg.bad = true;
                    }
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            "pthread_exit" => {
                let v = self.op_val(st, tid, arg(0)?)?;
                self.thread_done(st, tid, Some(v));
                Ok(Step::Continue)
            }
            "pthread_self" => self.ret(st, tid, c, Some(self.bv(tid as u64, 64))),
            "pthread_mutex_init" | "pthread_mutex_destroy" => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Mutex(a),
                    write: true,
                });
                if name == "pthread_mutex_init" {
                    st.mutex.remove(&a);
                } else if st.mutex.contains_key(&a) {
                    return Ok(Self::finding(
                        FindingKind::MemoryError,
                        "pthread_mutex_destroy on a locked mutex",
                    ));
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            "pthread_mutex_lock" | "pthread_mutex_trylock" => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Mutex(a),
                    write: true,
                });
                match st.mutex.get(&a) {
                    None => {
                        st.mutex.insert(a, tid);
                        self.ret(st, tid, c, Some(self.bv(0, 32)))
                    }
                    Some(_) if name == "pthread_mutex_trylock" => {
                        self.ret(st, tid, c, Some(self.bv(16, 32)))
                    }
                    Some(o) if *o == tid => Ok(Self::finding(
                        FindingKind::Deadlock,
                        "thread locks a mutex it already holds",
                    )),
                    Some(_) => Ok(Step::Yield),
                }
            }
            "pthread_mutex_unlock" => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Mutex(a),
                    write: true,
                });
                if st.mutex.get(&a) != Some(&tid) {
                    return Ok(Self::finding(
                        FindingKind::MemoryError,
                        "unlock of a mutex the thread does not hold",
                    ));
                }
                st.mutex.remove(&a);
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            "pthread_cond_init" | "pthread_cond_destroy" => {
                let a = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("condition at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Cond(a),
                    write: true,
                });
                self.ret(st, tid, c, Some(self.bv(0, 32)))
            }
            "pthread_cond_wait" => {
                let cv = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("condition at a symbolic address")?;
                let mx = self
                    .sync_addr(st, tid, arg(1)?)
                    .ok_or("mutex at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Cond(cv),
                    write: true,
                });
                st.tr_acc.push(Access {
                    res: Res::Mutex(mx),
                    write: true,
                });
                match st.threads[tid].status.clone() {
                    TStatus::Reacquire { mutex } => {
                        st.mutex.insert(mutex, tid);
                        st.threads[tid].status = TStatus::Run;
                        self.ret(st, tid, c, Some(self.bv(0, 32)))
                    }
                    _ => {
                        if st.mutex.get(&mx) != Some(&tid) {
                            return Ok(Self::finding(
                                FindingKind::MemoryError,
                                "pthread_cond_wait without holding the mutex",
                            ));
                        }
                        st.mutex.remove(&mx);
                        st.conds.entry(cv).or_default().push(tid);
                        st.threads[tid].status = TStatus::WaitCond {
                            cond: cv,
                            mutex: mx,
                        };
                        st.seg.bad = true;
                        Ok(Step::Yield)
                    }
                }
            }
            "pthread_cond_signal" | "pthread_cond_broadcast" => {
                let cv = self
                    .sync_addr(st, tid, arg(0)?)
                    .ok_or("condition at a symbolic address")?;
                st.tr_acc.push(Access {
                    res: Res::Cond(cv),
                    write: true,
                });
                let waiters = st.conds.entry(cv).or_default();
                let woken: Vec<usize> = if name == "pthread_cond_signal" {
                    if waiters.is_empty() {
                        vec![]
                    } else {
                        vec![waiters.remove(0)]
                    }
                } else {
                    std::mem::take(waiters)
                };
                if st.conds.get(&cv).map(|w| w.is_empty()).unwrap_or(false) {
                    st.conds.remove(&cv);
                }
                for w in woken {
                    if let TStatus::WaitCond { mutex, .. } = st.threads[w].status {
                        st.threads[w].status = TStatus::Reacquire { mutex };
                    }
                }
                self.ret(st, tid, c, Some(self.bv(0, 32)))
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
                            return Ok(Self::finding(
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
            n if n.starts_with("llvm.memset") => {
                let (o, off) = match self.resolve_ptr(st, tid, arg(0)?)? {
                    Ok(x) => x,
                    Err(s) => return Ok(s),
                };
                let byte = self.adapt(self.op_val(st, tid, arg(1)?)?, 8);
                let len = self
                    .op_val(st, tid, arg(2)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("memset of symbolic length")?;
                let k = off.as_u64().ok_or("memset at symbolic offset")?;
                if k + len > st.objs[o as usize].size {
                    return Ok(Self::finding(
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
                let (d, doff) = match self.resolve_ptr(st, tid, arg(0)?)? {
                    Ok(x) => x,
                    Err(s) => return Ok(s),
                };
                let (s, soff) = match self.resolve_ptr(st, tid, arg(1)?)? {
                    Ok(x) => x,
                    Err(s) => return Ok(s),
                };
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
                    return Ok(Self::finding(
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
            "printf"
            | "puts"
            | "putchar"
            | "fprintf"
            | "fflush"
            | "usleep"
            | "sleep"
            | "sched_yield"
            | "pthread_attr_init"
            | "pthread_attr_destroy"
            | "pthread_mutexattr_init"
            | "pthread_mutexattr_settype"
            | "pthread_mutexattr_destroy" => self.ret(st, tid, c, Some(self.bv(0, 32))),
            other => Err(format!("unsupported call to `{other}`")),
        }
    }

    fn c_string(&self, st: &State<'c>, tid: usize, op: &Operand) -> Option<String> {
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
