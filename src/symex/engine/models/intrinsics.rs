//! LLVM intrinsics: debug info and lifetimes (ignored), memset, memcpy, memmove.

use super::super::state::Cell;
use super::super::state::State;
use super::super::val::Cond;
use super::super::val::Val;
use super::super::Engine;
use super::super::Step;
use super::super::Stop;
use super::super::R;
use super::arg_of;
use super::unsupported_call;
use crate::symex::FindingKind;
use llvm_ir::instruction as ins;
use llvm_ir::Operand;
use z3::ast::Bool;

/// LLVM intrinsics without an effect on the modelled state.
fn is_ignored_intrinsic(name: &str) -> bool {
    name.starts_with("llvm.dbg.")
        || name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.stacksave")
        || name.starts_with("llvm.stackrestore")
        || name == "llvm.assume"
}

/// Bit and arithmetic intrinsics computed on the operands' bit-vectors.
const BIT_INTRINSICS: &[&str] = &[
    "llvm.ctpop.",
    "llvm.ctlz.",
    "llvm.cttz.",
    "llvm.bswap.",
    "llvm.bitreverse.",
    "llvm.abs.",
    "llvm.umax.",
    "llvm.umin.",
    "llvm.smax.",
    "llvm.smin.",
    "llvm.expect.",
    "llvm.uadd.with.overflow.",
    "llvm.sadd.with.overflow.",
    "llvm.usub.with.overflow.",
    "llvm.ssub.with.overflow.",
    "llvm.umul.with.overflow.",
    "llvm.smul.with.overflow.",
];

fn is_bit_intrinsic(name: &str) -> bool {
    BIT_INTRINSICS.iter().any(|p| name.starts_with(p))
}

/// Is `name` an LLVM intrinsic the model implements?
pub(crate) fn is_intrinsic(name: &str) -> bool {
    is_ignored_intrinsic(name)
        || is_bit_intrinsic(name)
        || name == "llvm.trap"
        || name.starts_with("llvm.memset")
        || name.starts_with("llvm.memcpy")
        || name.starts_with("llvm.memmove")
}

impl<'c, 'm> Engine<'c, 'm> {
    /// Value of a bit intrinsic; `*.with.overflow` returns `overflow ++
    /// result` (the layout `extractvalue` reads).
    fn bit_intrinsic(&self, n: &str, a: &[Val<'c>]) -> Result<Val<'c>, Stop> {
        let x = a.first().ok_or("intrinsic without operand")?;
        let w = x.get_size();
        let y = || a.get(1).cloned().ok_or("intrinsic without second operand");
        let bit = |b: &Cond<'c>| b.ite(&self.bv(1, 1), &self.bv(0, 1));
        let name = n.strip_prefix("llvm.").unwrap_or(n);
        let op = name.split('.').next().unwrap_or("");
        Ok(match op {
            "ctpop" => {
                let mut s = self.bv(0, w);
                for k in 0..w {
                    s = s.bvadd(&x.extract(k, k).zero_ext(w - 1));
                }
                s
            }
            // Count leading / trailing zeros: an ite chain from the far end
            // (the "zero is poison" flag is ignored: 0 gives the width).
            "ctlz" => {
                let mut r = self.bv(w as u64, w);
                for k in 0..w {
                    let set = x.extract(k, k)._eq(&self.bv(1, 1));
                    r = set.ite(&self.bv((w - 1 - k) as u64, w), &r);
                }
                r
            }
            "cttz" => {
                let mut r = self.bv(w as u64, w);
                for k in (0..w).rev() {
                    let set = x.extract(k, k)._eq(&self.bv(1, 1));
                    r = set.ite(&self.bv(k as u64, w), &r);
                }
                r
            }
            "bswap" => {
                let mut r = x.extract(7, 0);
                for b in 1..w / 8 {
                    r = r.concat(&x.extract(b * 8 + 7, b * 8));
                }
                r
            }
            "bitreverse" => {
                let mut r = x.extract(0, 0);
                for k in 1..w {
                    r = r.concat(&x.extract(k, k));
                }
                r
            }
            "abs" => x.bvslt(&self.bv(0, w)).ite(&x.bvneg(), x),
            "umax" => {
                let y = y()?;
                x.bvugt(&y).ite(x, &y)
            }
            "umin" => {
                let y = y()?;
                x.bvult(&y).ite(x, &y)
            }
            "smax" => {
                let y = y()?;
                x.bvsgt(&y).ite(x, &y)
            }
            "smin" => {
                let y = y()?;
                x.bvslt(&y).ite(x, &y)
            }
            "expect" => x.clone(),
            _ => {
                let y = y()?;
                // Overflow flags are rare: computed as z3 terms and
                // simplified back (to a concrete bit when the operands are).
                let (xb, yb) = (self.zterm(x), self.zterm(&y));
                let (r, ovf) = match op {
                    "uadd" => (x.bvadd(&y), xb.bvadd_no_overflow(&yb, false).not()),
                    "sadd" => (
                        x.bvadd(&y),
                        Bool::or(
                            self.ctx,
                            &[
                                &xb.bvadd_no_overflow(&yb, true).not(),
                                &xb.bvadd_no_underflow(&yb).not(),
                            ],
                        ),
                    ),
                    "usub" => (x.bvsub(&y), xb.bvsub_no_underflow(&yb, false).not()),
                    "ssub" => (
                        x.bvsub(&y),
                        Bool::or(
                            self.ctx,
                            &[
                                &xb.bvsub_no_overflow(&yb).not(),
                                &xb.bvsub_no_underflow(&yb, true).not(),
                            ],
                        ),
                    ),
                    "umul" => (x.bvmul(&y), xb.bvmul_no_overflow(&yb, false).not()),
                    "smul" => (
                        x.bvmul(&y),
                        Bool::or(
                            self.ctx,
                            &[
                                &xb.bvmul_no_overflow(&yb, true).not(),
                                &xb.bvmul_no_underflow(&yb).not(),
                            ],
                        ),
                    ),
                    _ => return Err(unsupported_call(n)),
                };
                let ovf = Cond::S(ovf).simplify();
                bit(&ovf).concat(&r)
            }
        })
    }

    pub(crate) fn call_intrinsic(
        &mut self,
        st: &mut State<'c>,
        tid: usize,
        c: &'m ins::Call,
        name: &str,
        args: &[&Operand],
    ) -> R<'c> {
        let arg = |k: usize| arg_of(name, args, k);
        match name {
            n if is_ignored_intrinsic(n) => {
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            "llvm.trap" => Err(Self::finding(FindingKind::Abort, "llvm.trap reached")),
            n if is_bit_intrinsic(n) => {
                let vals: Vec<Val<'c>> = args
                    .iter()
                    .map(|o| self.op_val(st, tid, o))
                    .collect::<Result<_, _>>()?;
                let v = self.bit_intrinsic(n, &vals)?.simplify();
                // The wp does not model these: the segment contributes false.
                st.seg.bad = true;
                let d = c.dest.clone().ok_or("intrinsic without result")?;
                self.set_reg(st, tid, &d, v, None);
                Self::advance(st, tid);
                Ok(Step::Continue)
            }
            n if n.starts_with("llvm.memset") => {
                let (o, off) = self.resolve_ptr(st, tid, arg(0)?)?;
                let byte = self.adapt(self.op_val(st, tid, arg(1)?)?, 8);
                let len = self
                    .op_val(st, tid, arg(2)?)?
                    .simplify()
                    .as_u64()
                    .ok_or("memset of symbolic length")?;
                let k = off.as_u64().ok_or("memset at symbolic offset")?;
                if k + len > st.objs[o as usize].size {
                    return Err(Self::finding(
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
                let (d, doff) = self.resolve_ptr(st, tid, arg(0)?)?;
                let (s, soff) = self.resolve_ptr(st, tid, arg(1)?)?;
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
                    return Err(Self::finding(
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
                    let obj = st.obj_mut(d);
                    obj.cells.retain(|a, _| *a < dk || *a >= dk + len);
                    for (a, c) in cells {
                        obj.cells.insert(a - sk + dk, c);
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
            other => Err(unsupported_call(other)),
        }
    }
}
