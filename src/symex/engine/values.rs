use super::state::State;
use super::term::Term;
use super::val::Val;
use super::{const_int, Engine, Stop, PW};
use llvm_ir::types::NamedStructDef;
use llvm_ir::{Constant, Name, Operand, Type, TypeRef};
use z3::ast::BV;

impl<'c, 'm> Engine<'c, 'm> {
    // ---------------------------------------------------------------- types

    pub(super) fn resolve(&self, ty: &Type) -> Option<TypeRef> {
        if let Type::NamedStructType { name } = ty {
            match self.m.types.named_struct_def(name) {
                Some(NamedStructDef::Defined(t)) => Some(t.clone()),
                _ => None,
            }
        } else {
            None
        }
    }

    pub(super) fn size_align(&self, ty: &Type) -> (u64, u64) {
        match ty {
            Type::IntegerType { bits } => {
                let b = (*bits as u64).div_ceil(8).next_power_of_two();
                (b, b.min(8))
            }
            Type::PointerType { .. } => (8, 8),
            Type::FPType(fp) => match fp {
                llvm_ir::types::FPType::Single => (4, 4),
                llvm_ir::types::FPType::Double => (8, 8),
                _ => (16, 16),
            },
            Type::ArrayType {
                element_type,
                num_elements,
            }
            | Type::VectorType {
                element_type,
                num_elements,
                ..
            } => {
                let (s, a) = self.size_align(element_type);
                (s * *num_elements as u64, a)
            }
            Type::StructType {
                element_types,
                is_packed,
            } => {
                let mut off = 0u64;
                let mut al = 1u64;
                for t in element_types {
                    let (s, a) = self.size_align(t);
                    let a = if *is_packed { 1 } else { a };
                    off = off.div_ceil(a) * a;
                    off += s;
                    al = al.max(a);
                }
                (off.div_ceil(al) * al, al)
            }
            Type::NamedStructType { .. } => match self.resolve(ty) {
                Some(t) => self.size_align(&t),
                None => (0, 1),
            },
            _ => (0, 1),
        }
    }

    pub(super) fn size_of(&self, ty: &Type) -> u64 {
        self.size_align(ty).0
    }

    pub(super) fn field_offset(&self, ty: &Type, idx: u64) -> (u64, TypeRef) {
        match ty {
            Type::StructType {
                element_types,
                is_packed,
            } => {
                let mut off = 0u64;
                for (k, t) in element_types.iter().enumerate() {
                    let (s, a) = self.size_align(t);
                    let a = if *is_packed { 1 } else { a };
                    off = off.div_ceil(a) * a;
                    if k as u64 == idx {
                        return (off, t.clone());
                    }
                    off += s;
                }
                (off, self.m.types.i8())
            }
            Type::NamedStructType { .. } => {
                let t = self.resolve(ty).expect("opaque struct");
                self.field_offset(&t, idx)
            }
            _ => (0, self.m.types.i8()),
        }
    }

    pub(super) fn bits_of(&self, ty: &Type) -> Option<u32> {
        match ty {
            Type::IntegerType { bits } => Some(*bits),
            Type::PointerType { .. } => Some(PW),
            _ => None,
        }
    }

    // --------------------------------------------------------------- values

    pub(super) fn bv(&self, v: u64, w: u32) -> Val<'c> {
        if w <= 128 {
            Val::c(v as u128, w)
        } else {
            Val::S(BV::from_u64(self.ctx, v, w))
        }
    }

    /// A z3 term for a value (a numeral when it is concrete).
    pub(super) fn zterm(&self, v: &Val<'c>) -> BV<'c> {
        v.bv(self.ctx)
    }

    pub(super) fn ptr(&self, obj: u32, off: u64) -> Val<'c> {
        Val::C(PW, ((obj as u128) << 64) | off as u128)
    }

    pub(super) fn ptr_parts(&self, p: &Val<'c>) -> (Option<u32>, Val<'c>) {
        if let Val::C(_, v) = p {
            return (Some((v >> 64) as u32), Val::C(64, *v & u64::MAX as u128));
        }
        let o = p.extract(95, 64).simplify();
        let off = p.extract(63, 0).simplify();
        (o.as_u64().map(|x| x as u32), off)
    }

    pub(super) fn adapt(&self, v: Val<'c>, w: u32) -> Val<'c> {
        let have = v.get_size();
        if have == w {
            v
        } else if have == PW {
            self.ptr_to_int(&v, w)
        } else if w == PW {
            self.int_to_ptr(&v)
        } else if have < w {
            v.zero_ext(w - have)
        } else {
            v.extract(w - 1, 0)
        }
    }

    /// Address of a pointer as a 64-bit integer: `id ++ (id << 20) + off`.
    /// The low 32 bits alone (after a truncation, e.g. the implicit `int`
    /// of `assume(ptr)`) stay non-zero for non-null pointers and distinct
    /// across objects (ids < 4096, offsets < 1 MiB); `int_to_ptr` inverts it.
    pub(super) fn ptr_to_int(&self, p: &Val<'c>, w: u32) -> Val<'c> {
        let o = p.extract(95, 64);
        let off = p.extract(31, 0);
        let lo = o.bvshl(&self.bv(20, 32)).bvadd(&off);
        self.adapt(o.concat(&lo), w)
    }

    pub(super) fn int_to_ptr(&self, v: &Val<'c>) -> Val<'c> {
        let v = self.adapt(v.clone(), 64);
        let o = v.extract(63, 32);
        let off = v.extract(31, 0).bvsub(&o.bvshl(&self.bv(20, 32)));
        o.concat(&off.zero_ext(32))
    }

    pub(super) fn const_val(&self, c: &Constant) -> Result<Val<'c>, Stop> {
        Ok(match c {
            Constant::Int { bits, value } => self.bv(*value, *bits),
            Constant::Null(_) => self.bv(0, PW),
            Constant::Undef(t) | Constant::Poison(t) | Constant::AggregateZero(t) => self.bv(
                0,
                self.bits_of(t).ok_or("aggregate constant used as value")?,
            ),
            Constant::GlobalReference { name, .. } => {
                let o = self
                    .globals
                    .get(name)
                    .ok_or_else(|| format!("unknown global {name}"))?;
                self.ptr(*o, 0)
            }
            Constant::BitCast(b) => self.const_val(&b.operand)?,
            Constant::AddrSpaceCast(b) => self.const_val(&b.operand)?,
            Constant::PtrToInt(p) => {
                let v = self.const_val(&p.operand)?;
                self.adapt(v, self.bits_of(&p.to_type).unwrap_or(64))
            }
            Constant::IntToPtr(p) => {
                let v = self.const_val(&p.operand)?;
                self.int_to_ptr(&v)
            }
            Constant::GetElementPtr(g) => {
                let base = self.const_val(&g.address)?;
                let idx: Vec<Val<'c>> = g
                    .indices
                    .iter()
                    .map(|i| self.const_val(i))
                    .collect::<Result<_, _>>()?;
                let bty = match self.m.type_of(&*g.address).as_ref() {
                    Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                    _ => return Err("constant GEP on non-pointer".into()),
                };
                self.gep(
                    &base,
                    &bty,
                    &idx,
                    &g.indices.iter().map(const_int).collect::<Vec<_>>(),
                )?
            }
            other => return Err(Stop::Unsupported(format!("constant `{other}`"))),
        })
    }

    /// GEP over values; `base_ty` is the pointee type of the base pointer.
    pub(super) fn gep(
        &self,
        base: &Val<'c>,
        base_ty: &TypeRef,
        idx: &[Val<'c>],
        cidx: &[Option<u64>],
    ) -> Result<Val<'c>, Stop> {
        let mut off = self.bv(0, 64);
        let mut ty = base_ty.clone();
        for (k, i) in idx.iter().enumerate() {
            let i64v = self.adapt_signed(i);
            if k == 0 {
                let s = self.size_of(&ty);
                off = off.bvadd(&i64v.bvmul(&self.bv(s, 64)));
                continue;
            }
            let resolved = self.resolve(&ty).unwrap_or(ty.clone());
            match resolved.as_ref() {
                Type::StructType { .. } => {
                    let fi = cidx
                        .get(k)
                        .copied()
                        .flatten()
                        .ok_or("symbolic struct index")?;
                    let (fo, fty) = self.field_offset(&resolved, fi);
                    off = off.bvadd(&self.bv(fo, 64));
                    ty = fty;
                }
                Type::ArrayType { element_type, .. } | Type::VectorType { element_type, .. } => {
                    let s = self.size_of(element_type);
                    off = off.bvadd(&i64v.bvmul(&self.bv(s, 64)));
                    ty = element_type.clone();
                }
                t => return Err(Stop::Unsupported(format!("GEP into {t}"))),
            }
        }
        let o = base.extract(95, 64);
        Ok(o.concat(&base.extract(63, 0).bvadd(&off)).simplify())
    }

    pub(super) fn adapt_signed(&self, v: &Val<'c>) -> Val<'c> {
        let w = v.get_size();
        if w == 64 {
            v.clone()
        } else if w < 64 {
            v.sign_ext(64 - w)
        } else {
            v.extract(63, 0)
        }
    }
}

impl<'c, 'm> Engine<'c, 'm> {
    // ------------------------------------------------------------ operands

    pub(super) fn op_val(&self, st: &State<'c>, tid: usize, op: &Operand) -> Result<Val<'c>, Stop> {
        match op {
            Operand::LocalOperand { name, .. } => {
                let fr = st.threads[tid].frames.last().unwrap();
                fr.regs
                    .get(name)
                    .cloned()
                    .ok_or_else(|| Stop::Unsupported(format!("undefined register {name}")))
            }
            Operand::ConstantOperand(c) => self.const_val(c),
            Operand::MetadataOperand => Err("metadata operand".into()),
        }
    }

    pub(super) fn reg_sv_name(st: &State<'c>, tid: usize, name: &Name) -> String {
        let d = st.threads[tid].frames.len() - 1;
        match name {
            Name::Name(s) => format!("r!{tid}!{d}!{s}"),
            Name::Number(k) => format!("r!{tid}!{d}!{k}"),
        }
    }

    /// State-variable (wp) view of an operand.
    pub(super) fn op_sv(&self, st: &State<'c>, tid: usize, op: &Operand) -> Result<Val<'c>, Stop> {
        match op {
            Operand::LocalOperand { name, .. } => {
                let n = Self::reg_sv_name(st, tid, name);
                if let Some(v) = st.seg.ov.get(&n) {
                    return Ok(v.clone());
                }
                let w = self.op_val(st, tid, op)?.get_size();
                Ok(Val::T(Term::var(&n, w)))
            }
            _ => self.op_val(st, tid, op),
        }
    }

    pub(super) fn set_reg(
        &self,
        st: &mut State<'c>,
        tid: usize,
        name: &Name,
        v: Val<'c>,
        sv: Option<Val<'c>>,
    ) {
        if self.track_wp {
            let n = Self::reg_sv_name(st, tid, name);
            st.seg.overwrite(n, sv.unwrap_or_else(|| v.clone()));
        }
        st.top_mut(tid).regs.insert(name.clone(), v);
    }
}
