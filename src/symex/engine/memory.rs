use super::state::{Cell, Obj, ObjKind, State};
use super::term::Term;
use super::val::Val;
use super::{Engine, Stop, PW};
use crate::symex::FindingKind;
use llvm_ir::{Constant, ConstantRef, Name, Operand, Type};
use std::collections::BTreeMap;
use std::rc::Rc;

impl<'c, 'm> Engine<'c, 'm> {
    // --------------------------------------------------------------- memory

    pub(super) fn new_obj(&self, st: &mut State<'c>, size: u64, kind: ObjKind) -> u32 {
        let escaped = matches!(kind, ObjKind::Global);
        st.objs.push(Rc::new(Obj {
            size,
            cells: BTreeMap::new(),
            kind,
            escaped,
            alive: true,
            readonly: false,
            made_at: None,
            label: None,
        }));
        (st.objs.len() - 1) as u32
    }

    /// Remember that thread `tid` made object `o` where it stands now
    /// (with the call sites below), to name it in traces.
    pub(super) fn note_made_at(&self, st: &mut State<'c>, tid: usize, o: u32) {
        let at: Vec<(usize, usize, usize)> = st.threads[tid]
            .frames
            .iter()
            .rev()
            .map(|fr| (fr.f, fr.bb, fr.ip))
            .collect();
        st.obj_mut(o).made_at = Some(at.into());
    }

    pub(super) fn init_globals(&mut self) {
        let mut st = self.empty_state();
        let null = self.new_obj(&mut st, 0, ObjKind::Null);
        st.obj_mut(null).alive = false;
        for g in &self.m.global_vars {
            let pointee = match g.ty.as_ref() {
                Type::PointerType { pointee_type, .. } => pointee_type.clone(),
                _ => self.m.types.i8(),
            };
            let size = self.size_of(&pointee).max(1);
            let o = self.new_obj(&mut st, size, ObjKind::Global);
            st.obj_mut(o).readonly = g.is_constant;
            self.globals.insert(g.name.clone(), o);
            self.obj_global.insert(o, g.name.clone());
        }
        for (i, f) in self.m.functions.iter().enumerate() {
            let o = self.new_obj(&mut st, 1, ObjKind::Func(i));
            st.obj_mut(o).alive = false;
            self.globals.insert(Name::from(f.name.clone()), o);
        }
        for d in &self.m.func_declarations {
            let o = self.new_obj(&mut st, 1, ObjKind::Func(usize::MAX));
            st.obj_mut(o).alive = false;
            self.globals.insert(Name::from(d.name.clone()), o);
        }
        for g in &self.m.global_vars {
            if let Some(init) = &g.initializer {
                let o = self.globals[&g.name];
                // Large initialisers take time: `--max-time` applies here
                // too (the exploration then stops at once, inconclusive).
                if let Err(Stop::Cut) = self.write_const(&mut st, o, 0, init) {
                    self.stop = true;
                    self.stats.incomplete = true;
                    let ms = self.opts.max_seconds.unwrap_or(0.0);
                    self.stats.budget = Some(format!(
                        "--max-time {ms:.1} (during the initialisation of globals)"
                    ));
                    break;
                }
            }
        }
        self.init_objs = st.objs;
    }

    /// Is `--max-time` over (checked while globals are initialised)?
    fn init_over_time(&self) -> bool {
        self.opts
            .max_seconds
            .is_some_and(|ms| self.start.elapsed().as_secs_f64() > ms)
    }

    pub(super) fn write_const(
        &self,
        st: &mut State<'c>,
        o: u32,
        off: u64,
        c: &ConstantRef,
    ) -> Result<(), Stop> {
        match c.as_ref() {
            Constant::AggregateZero(_) | Constant::Undef(_) | Constant::Poison(_) => Ok(()),
            Constant::Struct { values, .. } => {
                let ty = self.m.type_of(&**c);
                for (k, v) in values.iter().enumerate() {
                    let (fo, _) = self.field_offset(&ty, k as u64);
                    self.write_const(st, o, off + fo, v)?;
                }
                Ok(())
            }
            Constant::Array {
                element_type,
                elements,
            } => {
                let s = self.size_of(element_type);
                for (k, v) in elements.iter().enumerate() {
                    if k % 1024 == 1023 && self.init_over_time() {
                        return Err(Stop::Cut);
                    }
                    self.write_const(st, o, off + s * k as u64, v)?;
                }
                Ok(())
            }
            _ => {
                let ty = self.m.type_of(&**c);
                let v = self.const_val(c)?;
                let bytes = self.size_of(&ty);
                self.mem_store(st, o, off, bytes, v);
                Ok(())
            }
        }
    }

    pub(super) fn byte_of(&self, cell: &Cell<'c>, k: u64) -> Val<'c> {
        let v = if cell.val.get_size() == PW {
            self.ptr_to_int(&cell.val, 64)
        } else {
            self.adapt(cell.val.clone(), (cell.bytes * 8) as u32)
        };
        v.extract((k * 8 + 7) as u32, (k * 8) as u32)
    }

    /// Read `bytes` at a concrete offset, returned with `bits` width.
    /// Also returns whether an exact cell was found.
    pub(super) fn mem_load(
        &self,
        st: &State<'c>,
        o: u32,
        off: u64,
        bytes: u64,
        bits: u32,
    ) -> (Val<'c>, bool) {
        let obj = &st.objs[o as usize];
        if let Some(c) = obj.cells.get(&off) {
            if c.bytes == bytes {
                return (self.adapt(c.val.clone(), bits), true);
            }
        }
        let overlapping = obj
            .cells
            .range(..off + bytes)
            .any(|(s, c)| s + c.bytes > off);
        if !overlapping {
            return (self.bv(0, bits), true);
        }
        let mut acc: Option<Val<'c>> = None;
        for b in off..off + bytes {
            let byte = match obj.cells.range(..=b).next_back() {
                Some((s, c)) if s + c.bytes > b => self.byte_of(c, b - s),
                _ => self.bv(0, 8),
            };
            acc = Some(match acc {
                None => byte,
                Some(a) => byte.concat(&a),
            });
        }
        (self.adapt(acc.unwrap(), bits), false)
    }

    /// Returns false when the store split other cells.
    pub(super) fn mem_store(
        &self,
        st: &mut State<'c>,
        o: u32,
        off: u64,
        bytes: u64,
        v: Val<'c>,
    ) -> bool {
        let mut exact = true;
        let obj = &st.objs[o as usize];
        let over: Vec<(u64, Cell<'c>)> = obj
            .cells
            .range(..off + bytes)
            .filter(|(s, c)| *s + c.bytes > off)
            .map(|(s, c)| (*s, c.clone()))
            .collect();
        let mut pieces = Vec::new();
        for (s, c) in &over {
            if *s != off || c.bytes != bytes {
                exact = false;
                for b in *s..*s + c.bytes {
                    if b < off || b >= off + bytes {
                        pieces.push((
                            b,
                            Cell {
                                bytes: 1,
                                val: self.byte_of(c, b - s),
                            },
                        ));
                    }
                }
            }
        }
        let obj = st.obj_mut(o);
        for (s, _) in over {
            obj.cells.remove(&s);
        }
        for (b, c) in pieces {
            obj.cells.insert(b, c);
        }
        obj.cells.insert(off, Cell { bytes, val: v });
        exact
    }
}

impl<'c, 'm> Engine<'c, 'm> {
    /// Resolve a pointer operand: concrete object and (maybe symbolic) offset.
    /// Adds the wp guard that pins the pointer.
    pub(super) fn resolve_ptr(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        op: &Operand,
    ) -> Result<(u32, Val<'c>), Stop> {
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
            return Err(Self::finding(FindingKind::MemoryError, what));
        }
        if self.track_wp {
            let psv = self.op_sv(st, tid, op)?.simplify();
            if psv.as_u64().is_none() {
                if off.as_u64().is_some() {
                    st.seg.assumes.push(psv._eq(&p));
                } else {
                    st.seg.bad = true;
                }
            }
        }
        Ok((o, off))
    }

    /// Check bounds; for symbolic offsets report a possible overflow and
    /// constrain the path to in-bounds offsets.
    pub(super) fn bounds(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        o: u32,
        off: &Val<'c>,
        bytes: u64,
    ) -> Result<(), Stop> {
        let size = st.objs[o as usize].size;
        if bytes > size {
            return Err(Self::finding(
                FindingKind::MemoryError,
                "out-of-bounds access",
            ));
        }
        let inb = off.bvule(&self.bv(size - bytes, 64));
        match off.as_u64() {
            Some(x) if x + bytes > size => Err(Self::finding(
                FindingKind::MemoryError,
                "out-of-bounds access",
            )),
            Some(_) => Ok(()),
            None => {
                let out = inb.not();
                if self.may_be(&st.pcon, &out) {
                    let mut bad = st.clone();
                    self.pc_add(&mut bad.pcon, &out);
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
                        return Err(Stop::AssumeFalse);
                    }
                    self.pc_add(&mut st.pcon, &inb);
                }
                Ok(())
            }
        }
    }

    pub(super) fn load(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        addr: &Operand,
        bytes: u64,
        bits: u32,
    ) -> Result<(Val<'c>, Option<Val<'c>>), Stop> {
        let (o, off) = self.resolve_ptr(st, tid, addr)?;
        self.bounds(st, tid, o, &off, bytes)?;
        if self.is_shared(st, o) {
            let a = self.mem_access(st, o, off.as_u64(), bytes, false);
            st.tr_acc.push(a);
        }
        match off.as_u64() {
            Some(k) => {
                let (v, exact) = self.mem_load(st, o, k, bytes, bits);
                let sv = if self.track_wp {
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
                                    None => Val::T(Term::var(&n, cb)),
                                };
                                Some(self.adapt(raw, bits))
                            }
                            None => Some(v.clone()),
                        }
                    }
                } else {
                    None
                };
                Ok((v, sv))
            }
            None => {
                if self.track_wp {
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
                Ok((v.simplify(), None))
            }
        }
    }

    pub(super) fn store(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        addr: &Operand,
        bytes: u64,
        v: Val<'c>,
        sv: Option<Val<'c>>,
    ) -> Result<(), Stop> {
        let (o, off) = self.resolve_ptr(st, tid, addr)?;
        if st.objs[o as usize].readonly {
            return Err(Self::finding(
                FindingKind::MemoryError,
                "write to read-only memory",
            ));
        }
        self.bounds(st, tid, o, &off, bytes)?;
        if self.is_shared(st, o) {
            let a = self.mem_access(st, o, off.as_u64(), bytes, true);
            st.tr_acc.push(a);
        }
        // A pointer stored anywhere makes its target shared.
        if v.get_size() == PW {
            if let (Some(t), _) = self.ptr_parts(&v) {
                if st.objs.get(t as usize).is_some_and(|x| !x.escaped) {
                    st.obj_mut(t).escaped = true;
                }
            }
        }
        match off.as_u64() {
            Some(k) => {
                let exact = self.mem_store(st, o, k, bytes, v.clone());
                if self.track_wp {
                    if !exact {
                        st.seg.bad = true;
                    }
                    let n = format!("m!{o}!{k}!{bytes}!{}", v.get_size());
                    match sv {
                        Some(s) => st.seg.overwrite(n, s),
                        None => st.seg.bad = true,
                    }
                }
            }
            None => {
                if self.track_wp {
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
        Ok(())
    }
}
