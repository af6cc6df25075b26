//! The C library: allocation, exit, output (printing is a no-op).

use super::super::state::ObjKind;
use super::super::state::State;
use super::super::state::TStatus;
use super::super::val::Cond;
use super::super::Engine;
use super::super::Step;
use super::super::Stop;
use super::super::R;
use super::arg_of;
use super::parse_int::parse_c_integer;
use super::printf_format::{format_c, ArgNeed, FmtArg};
use crate::calls::FORMAT_MAX_ARGS;
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
            LibcOp::Memcmp => self.memcmp(st, tid, c, args),
            LibcOp::ParseInt { unsigned, with_end } => {
                self.parse_int(st, tid, c, args, unsigned, with_end)
            }
            LibcOp::Format { bounded } => self.format_into(st, tid, c, name, args, bounded),
            LibcOp::Time => self.time(st, tid, c, args),
        }
    }

    /// `memcmp(a, b, n)`: the difference of the first differing bytes as
    /// unsigned chars (glibc's result; C only promises its sign), over
    /// symbolic bytes too (an `ite` chain from the last byte back).
    fn memcmp(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of("memcmp", args, k);
        let n = self
            .op_val(st, tid, arg(2)?)?
            .simplify()
            .as_u64()
            .ok_or("memcmp of a symbolic length")?;
        let mut sides = Vec::new();
        for k in 0..2 {
            let (o, off) = self.resolve_ptr(st, tid, arg(k)?)?;
            let at = off.as_u64().ok_or("memcmp at a symbolic offset")?;
            if at + n > st.objs[o as usize].size {
                return Err(Self::finding(
                    FindingKind::MemoryError,
                    "out-of-bounds memcmp",
                ));
            }
            sides.push((o, at));
        }
        let mut r = self.bv(0, 32);
        for k in (0..n).rev() {
            let (x, _) = self.mem_load(st, sides[0].0, sides[0].1 + k, 1, 8);
            let (y, _) = self.mem_load(st, sides[1].0, sides[1].1 + k, 1, 8);
            let d = x.zero_ext(24).bvsub(&y.zero_ext(24));
            r = x._eq(&y).ite(&r, &d).simplify();
        }
        for (o, at) in sides {
            if self.is_shared(st, o) {
                let a = self.mem_access(st, o, Some(at), n, false);
                st.tr_acc.push(a);
            }
        }
        st.seg.bad = true;
        self.ret(st, tid, c, Some(r))
    }

    /// `strtol`, `strtoul`, `atoi` and their kin on a string of concrete
    /// characters (symbolic ones end the path as unsupported): the value
    /// clamped as C says, truncated to the call's result type, and
    /// `*endptr` set after the digits.
    fn parse_int(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        args: &[&Operand],
        unsigned: bool,
        with_end: bool,
    ) -> R<'c> {
        let arg = |k: usize| arg_of("strtol", args, k);
        let text = self.c_bytes(st, tid, arg(0)?, None)?;
        let base = if with_end {
            self.op_val(st, tid, arg(2)?)?
                .simplify()
                .as_u64()
                .ok_or("strtol with a symbolic base")? as u32
        } else {
            10
        };
        let parsed = parse_c_integer(&text, base, unsigned);
        if with_end {
            let end = self.op_val(st, tid, arg(1)?)?.simplify();
            if self.ptr_parts(&end).0 != Some(0) {
                let s = self.op_val(st, tid, arg(0)?)?.simplify();
                let (o, off) = self.ptr_parts(&s);
                let (o, off) = (
                    o.ok_or("string at a symbolic pointer")?,
                    off.as_u64().ok_or("string at a symbolic offset")?,
                );
                let after = self.ptr(o, off + parsed.consumed as u64);
                self.store(st, tid, arg(1)?, 8, after, None)?;
            }
        }
        st.seg.bad = true;
        self.ret(st, tid, c, Some(self.bv(parsed.value, 64)))
    }

    /// `sprintf(buf, fmt, ...)` and `snprintf(buf, n, fmt, ...)` with
    /// concrete arguments: the text `printf` would print, written with its
    /// NUL (`snprintf`: at most `n - 1` bytes and the NUL); the result is
    /// the full length.  Writing past the buffer is a memory error.  A
    /// symbolic number, symbolic characters of a `%s`, floating point and
    /// `%n` end the path as unsupported: their text (and its length) is
    /// not a single value.
    fn format_into(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        args: &[&Operand],
        bounded: bool,
    ) -> R<'c> {
        if args.len() > FORMAT_MAX_ARGS {
            return Err(format!("{name} with more than {FORMAT_MAX_ARGS} arguments").into());
        }
        let arg = |k: usize| arg_of(name, args, k);
        let fmt_at = if bounded { 2 } else { 1 };
        let limit = if bounded {
            Some(
                self.op_val(st, tid, arg(1)?)?
                    .simplify()
                    .as_u64()
                    .ok_or_else(|| format!("{name} with a symbolic size"))?,
            )
        } else {
            None
        };
        let fmt = self.c_bytes(st, tid, arg(fmt_at)?, None)?;
        let mut next_arg = fmt_at + 1;
        let mut next = |need: ArgNeed| -> Result<FmtArg, Stop> {
            let op = arg(next_arg)
                .map_err(|_| Stop::from(format!("{name}: too few arguments for its format")))?;
            next_arg += 1;
            match need {
                ArgNeed::Str(precision) => Ok(FmtArg::Str(self.c_bytes(
                    st,
                    tid,
                    op,
                    precision.map(|p| p as u64),
                )?)),
                ArgNeed::Int(_) | ArgNeed::Ptr => {
                    let v = self.op_val(st, tid, op)?.simplify();
                    let v = self
                        .adapt(v, 64)
                        .simplify()
                        .as_u64()
                        .ok_or_else(|| Stop::from(format!("{name} of a symbolic value")))?;
                    Ok(if need == ArgNeed::Ptr {
                        FmtArg::Ptr(v)
                    } else {
                        FmtArg::Int(v)
                    })
                }
            }
        };
        let text = format_c(&fmt, &mut next)?;
        let mut written = text.clone();
        match limit {
            None => written.push(0),
            Some(0) => written.clear(),
            Some(n) => {
                written.truncate((n - 1) as usize);
                written.push(0);
            }
        }
        if !written.is_empty() {
            let (o, off) = self.resolve_ptr(st, tid, arg(0)?)?;
            let at = off
                .as_u64()
                .ok_or_else(|| format!("{name} into a symbolic offset"))?;
            if st.objs[o as usize].readonly {
                return Err(Self::finding(
                    FindingKind::MemoryError,
                    "write to read-only memory",
                ));
            }
            if at + written.len() as u64 > st.objs[o as usize].size {
                return Err(Self::finding(
                    FindingKind::MemoryError,
                    format!("{name} writes past the end of its buffer"),
                ));
            }
            for (k, b) in written.iter().enumerate() {
                self.mem_store(st, o, at + k as u64, 1, self.bv(*b as u64, 8));
            }
            if self.is_shared(st, o) {
                let a = self.mem_access(st, o, Some(at), written.len() as u64, true);
                st.tr_acc.push(a);
            }
        }
        st.seg.bad = true;
        self.ret(st, tid, c, Some(self.bv(text.len() as u64, 32)))
    }

    /// `time(t)`: the clock is an input (a fresh 64-bit value, named
    /// `time`, `time#k`, replayed from the test case like any input),
    /// never negative and never below the previous call's value; stored
    /// to `*t` too when `t` is not null.
    fn time(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of("time", args, k);
        let previous = st
            .inputs
            .iter()
            .rev()
            .find(|(n, _)| n == "time" || n.starts_with("time#"))
            .map(|(_, v)| v.clone());
        let (v, _) = self.fresh_input(st, "time", 64);
        let zero = self.bv(0, 64);
        let mut cond = v.bvsge(&zero);
        if let Some(p) = previous {
            cond = Cond::all(&[cond, v.bvsge(&p)]);
        }
        if !self.may_be(&st.pcon, &cond) {
            return Err(Stop::AssumeFalse);
        }
        self.pc_add(&mut st.pcon, &cond);
        let t = self.op_val(st, tid, arg(0)?)?.simplify();
        if self.ptr_parts(&t).0 != Some(0) {
            self.store(st, tid, arg(0)?, 8, v.clone(), None)?;
        }
        st.seg.bad = true;
        self.ret(st, tid, c, Some(v))
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
