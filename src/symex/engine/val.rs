//! Values that stay plain numbers while they are concrete.
//!
//! Profiling (perf, `fig3_k6`, no reduction) showed that ~60% of the time
//! went into building and simplifying z3 terms for values that were
//! concrete all along (pointer parts, constants, arithmetic on them).  A
//! [`Val`] is either a concrete bit-vector of at most 128 bits, computed
//! here with the bit-vector semantics of SMT-LIB, or a z3 term; a [`Cond`]
//! is a concrete or symbolic boolean.  z3 terms are built only when a
//! symbolic value takes part in an operation.

use super::term::{Op, Term};
use z3::ast::{Ast, Bool, BV};
use z3::Context;

/// A bit-vector value: concrete (`width`, value masked to the width), a
/// z3 term, or a state-variable term of a weakest precondition (`T`,
/// engine/term.rs; never a numeral).  A z3 term (`S`) never names a state
/// variable: an operation with a `T` operand gives a `T`.
#[derive(Clone, Debug)]
pub(super) enum Val<'c> {
    C(u32, u128),
    S(BV<'c>),
    T(Term<'c>),
}

/// A boolean: concrete, a z3 term, or a state-variable term.
#[derive(Clone, Debug)]
pub(super) enum Cond<'c> {
    C(bool),
    S(Bool<'c>),
    T(Term<'c>),
}

fn mask(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// Sign-extend the low `w` bits of `v` to an i128.
fn sx(v: u128, w: u32) -> i128 {
    if w >= 128 {
        v as i128
    } else {
        ((v << (128 - w)) as i128) >> (128 - w)
    }
}

/// A concrete value as a z3 term.
pub(super) fn num<'c>(ctx: &'c Context, w: u32, v: u128) -> BV<'c> {
    if w <= 64 {
        BV::from_u64(ctx, v as u64, w)
    } else {
        let hi = BV::from_u64(ctx, (v >> 64) as u64, w - 64);
        hi.concat(&BV::from_u64(ctx, v as u64, 64))
    }
}

macro_rules! binop {
    ($name:ident, $z3:ident, $op:ident, |$w:ident, $a:ident, $b:ident| $body:expr) => {
        pub(super) fn $name(&self, o: &Val<'c>) -> Val<'c> {
            match (self, o) {
                (Val::C($w, $a), Val::C(_, $b)) => {
                    let ($w, $a, $b) = (*$w, *$a, *$b);
                    Val::C($w, ($body) & mask($w))
                }
                (Val::T(_), _) | (_, Val::T(_)) => Val::T(Term::app(
                    Op::$op,
                    vec![Term::of_val(self), Term::of_val(o)],
                    self.get_size(),
                )),
                _ => {
                    let (x, y) = Val::pair(self, o);
                    Val::S(x.$z3(&y))
                }
            }
        }
    };
}

macro_rules! cmpop {
    ($name:ident, $z3:ident, $op:ident, |$w:ident, $a:ident, $b:ident| $body:expr) => {
        pub(super) fn $name(&self, o: &Val<'c>) -> Cond<'c> {
            match (self, o) {
                (Val::C($w, $a), Val::C(_, $b)) => {
                    let ($w, $a, $b) = (*$w, *$a, *$b);
                    let _ = $w;
                    Cond::C($body)
                }
                (Val::T(_), _) | (_, Val::T(_)) => Cond::T(Term::app(
                    Op::$op,
                    vec![Term::of_val(self), Term::of_val(o)],
                    0,
                )),
                _ => {
                    let (x, y) = Val::pair(self, o);
                    Cond::S(x.$z3(&y))
                }
            }
        }
    };
}

impl<'c> Val<'c> {
    /// A concrete value; widths above 128 bits need a context (`num`).
    pub(super) fn c(v: u128, w: u32) -> Val<'c> {
        debug_assert!(w <= 128 && w > 0);
        Val::C(w, v & mask(w))
    }

    pub(super) fn ctx(&self) -> Option<&'c Context> {
        match self {
            Val::S(b) => Some(b.get_ctx()),
            Val::C(..) | Val::T(_) => None,
        }
    }

    /// The z3 term (building a numeral for a concrete value).
    pub(super) fn bv(&self, ctx: &'c Context) -> BV<'c> {
        match self {
            Val::C(w, v) => num(ctx, *w, *v),
            Val::S(b) => b.clone(),
            Val::T(t) => t.to_bv(ctx),
        }
    }

    /// `op` on `self` as a state-variable term.
    fn t1(&self, op: Op, width: u32) -> Val<'c> {
        Val::T(Term::app(op, vec![Term::of_val(self)], width))
    }

    /// Both operands as z3 terms; at least one is symbolic.
    fn pair(a: &Val<'c>, b: &Val<'c>) -> (BV<'c>, BV<'c>) {
        let ctx = a.ctx().or(b.ctx()).expect("one operand is symbolic");
        (a.bv(ctx), b.bv(ctx))
    }

    pub(super) fn get_size(&self) -> u32 {
        match self {
            Val::C(w, _) => *w,
            Val::S(b) => b.get_size(),
            Val::T(t) => t.width(),
        }
    }

    #[cfg(test)]
    pub(super) fn as_u128(&self) -> Option<u128> {
        match self {
            Val::C(_, v) => Some(*v),
            Val::S(_) | Val::T(_) => None,
        }
    }

    pub(super) fn as_u64(&self) -> Option<u64> {
        match self {
            Val::C(_, v) => u64::try_from(*v).ok(),
            Val::S(b) => b.as_u64(),
            Val::T(_) => None,
        }
    }

    /// Simplify a term; a numeral becomes concrete again.
    pub(super) fn simplify(&self) -> Val<'c> {
        match self {
            Val::C(..) | Val::T(_) => self.clone(),
            Val::S(b) => Val::from_bv(b.simplify()),
        }
    }

    /// A simplified term as a value (concrete when it is a numeral).
    pub(super) fn from_bv(b: BV<'c>) -> Val<'c> {
        let w = b.get_size();
        if w <= 64 {
            if let Some(v) = b.as_u64() {
                return Val::C(w, v as u128);
            }
        } else if w <= 128 && b.is_const() && b.decl().kind() == z3::DeclKind::BNUM {
            let hi = b.extract(w - 1, 64).simplify().as_u64();
            let lo = b.extract(63, 0).simplify().as_u64();
            if let (Some(h), Some(l)) = (hi, lo) {
                return Val::C(w, ((h as u128) << 64) | l as u128);
            }
        }
        Val::S(b)
    }

    binop!(bvadd, bvadd, Add, |w, a, b| a.wrapping_add(b));
    binop!(bvsub, bvsub, Sub, |w, a, b| a.wrapping_sub(b));
    binop!(bvmul, bvmul, Mul, |w, a, b| a.wrapping_mul(b));
    binop!(bvand, bvand, And, |w, a, b| a & b);
    binop!(bvor, bvor, Or, |w, a, b| a | b);
    binop!(bvxor, bvxor, Xor, |w, a, b| a ^ b);
    // Division by zero as in SMT-LIB: udiv gives all ones, urem the
    // dividend, sdiv -1 or 1 by the dividend's sign, srem the dividend.
    binop!(bvudiv, bvudiv, UDiv, |w, a, b| a
        .checked_div(b)
        .unwrap_or(u128::MAX));
    binop!(bvurem, bvurem, URem, |w, a, b| a
        .checked_rem(b)
        .unwrap_or(a));
    binop!(bvsdiv, bvsdiv, SDiv, |w, a, b| if b == 0 {
        if sx(a, w) < 0 {
            1
        } else {
            u128::MAX
        }
    } else {
        sx(a, w).wrapping_div(sx(b, w)) as u128
    });
    binop!(bvsrem, bvsrem, SRem, |w, a, b| if b == 0 {
        a
    } else {
        sx(a, w).wrapping_rem(sx(b, w)) as u128
    });
    binop!(bvshl, bvshl, Shl, |w, a, b| if b >= w as u128 {
        0
    } else {
        a << b
    });
    binop!(bvlshr, bvlshr, LShr, |w, a, b| if b >= w as u128 {
        0
    } else {
        a >> b
    });
    binop!(bvashr, bvashr, AShr, |w, a, b| {
        let s = b.min(w as u128 - 1) as u32;
        (sx(a, w) >> s) as u128
    });

    cmpop!(bvugt, bvugt, Ugt, |w, a, b| a > b);
    cmpop!(bvuge, bvuge, Uge, |w, a, b| a >= b);
    cmpop!(bvult, bvult, Ult, |w, a, b| a < b);
    cmpop!(bvule, bvule, Ule, |w, a, b| a <= b);
    cmpop!(bvsgt, bvsgt, Sgt, |w, a, b| sx(a, w) > sx(b, w));
    cmpop!(bvsge, bvsge, Sge, |w, a, b| sx(a, w) >= sx(b, w));
    cmpop!(bvslt, bvslt, Slt, |w, a, b| sx(a, w) < sx(b, w));
    cmpop!(bvsle, bvsle, Sle, |w, a, b| sx(a, w) <= sx(b, w));

    pub(super) fn _eq(&self, o: &Val<'c>) -> Cond<'c> {
        match (self, o) {
            (Val::C(_, a), Val::C(_, b)) => Cond::C(a == b),
            (Val::T(_), _) | (_, Val::T(_)) => Cond::T(Term::app(
                Op::Eq,
                vec![Term::of_val(self), Term::of_val(o)],
                0,
            )),
            _ => {
                let (x, y) = Val::pair(self, o);
                Cond::S(x._eq(&y))
            }
        }
    }

    pub(super) fn bvnot(&self) -> Val<'c> {
        match self {
            Val::C(w, a) => Val::C(*w, !a & mask(*w)),
            Val::S(b) => Val::S(b.bvnot()),
            Val::T(_) => self.t1(Op::Not, self.get_size()),
        }
    }

    pub(super) fn bvneg(&self) -> Val<'c> {
        match self {
            Val::C(w, a) => Val::C(*w, a.wrapping_neg() & mask(*w)),
            Val::S(b) => Val::S(b.bvneg()),
            Val::T(_) => self.t1(Op::Neg, self.get_size()),
        }
    }

    pub(super) fn extract(&self, hi: u32, lo: u32) -> Val<'c> {
        match self {
            Val::C(_, a) => Val::C(hi - lo + 1, (a >> lo) & mask(hi - lo + 1)),
            Val::S(b) => Val::S(b.extract(hi, lo)),
            Val::T(_) => self.t1(Op::Extract(hi, lo), hi - lo + 1),
        }
    }

    /// `self` is the high part.
    pub(super) fn concat(&self, lo: &Val<'c>) -> Val<'c> {
        match (self, lo) {
            (Val::C(wh, h), Val::C(wl, l)) if wh + wl <= 128 => Val::C(wh + wl, (h << wl) | l),
            // Concrete values wider than 128 bits do not occur (pointers
            // are 96 bits; `Engine::bv` makes wider constants terms).
            (Val::C(wh, _), Val::C(wl, _)) => panic!("concat of {wh}+{wl} concrete bits"),
            (Val::T(_), _) | (_, Val::T(_)) => Val::T(Term::app(
                Op::Concat,
                vec![Term::of_val(self), Term::of_val(lo)],
                self.get_size() + lo.get_size(),
            )),
            _ => {
                let (x, y) = Val::pair(self, lo);
                Val::S(x.concat(&y))
            }
        }
    }

    pub(super) fn zero_ext(&self, k: u32) -> Val<'c> {
        match self {
            Val::C(w, a) if w + k <= 128 => Val::C(w + k, *a),
            Val::C(w, a) => panic!("zero_ext of {w} bits ({a}) by {k} exceeds 128"),
            Val::S(b) => Val::S(b.zero_ext(k)),
            Val::T(_) => self.t1(Op::ZExt(k), self.get_size() + k),
        }
    }

    pub(super) fn sign_ext(&self, k: u32) -> Val<'c> {
        match self {
            Val::C(w, a) if w + k <= 128 => Val::C(w + k, (sx(*a, *w) as u128) & mask(w + k)),
            Val::C(w, a) => panic!("sign_ext of {w} bits ({a}) by {k} exceeds 128"),
            Val::S(b) => Val::S(b.sign_ext(k)),
            Val::T(_) => self.t1(Op::SExt(k), self.get_size() + k),
        }
    }
}

impl<'c> Cond<'c> {
    pub(super) fn bool(&self, ctx: &'c Context) -> Bool<'c> {
        match self {
            Cond::C(b) => Bool::from_bool(ctx, *b),
            Cond::S(b) => b.clone(),
            Cond::T(t) => t.to_bool(ctx),
        }
    }

    pub(super) fn as_bool(&self) -> Option<bool> {
        match self {
            Cond::C(b) => Some(*b),
            Cond::S(b) => b.as_bool(),
            Cond::T(_) => None,
        }
    }

    pub(super) fn simplify(&self) -> Cond<'c> {
        match self {
            Cond::C(_) | Cond::T(_) => self.clone(),
            Cond::S(b) => {
                let s = b.simplify();
                match s.as_bool() {
                    Some(v) => Cond::C(v),
                    None => Cond::S(s),
                }
            }
        }
    }

    pub(super) fn not(&self) -> Cond<'c> {
        match self {
            Cond::C(b) => Cond::C(!b),
            Cond::S(b) => Cond::S(b.not()),
            Cond::T(t) => Cond::T(Term::app(Op::BNot, vec![t.clone()], 0)),
        }
    }

    /// Conjunction.
    pub(super) fn all(parts: &[Cond<'c>]) -> Cond<'c> {
        Cond::nary(parts, false)
    }

    /// Disjunction.
    pub(super) fn any(parts: &[Cond<'c>]) -> Cond<'c> {
        Cond::nary(parts, true)
    }

    /// `and` (`or` when `or`): constants fold; a state-variable part
    /// makes a term, else a z3 term.
    fn nary(parts: &[Cond<'c>], or: bool) -> Cond<'c> {
        let mut rest: Vec<&Cond<'c>> = Vec::new();
        for p in parts {
            match p {
                Cond::C(b) if *b == or => return Cond::C(or),
                Cond::C(_) => {}
                _ if rest.iter().any(|q| same(q, p)) => {}
                _ => rest.push(p),
            }
        }
        // x ∧ ¬x, x ∨ ¬x (the two sides of a branch).
        let complement = rest.iter().any(|p| match p {
            Cond::T(t) => t
                .negated()
                .is_some_and(|x| rest.iter().any(|q| matches!(q, Cond::T(y) if y == x))),
            _ => false,
        });
        if complement {
            return Cond::C(or);
        }
        match rest.len() {
            0 => Cond::C(!or),
            1 => rest[0].clone(),
            _ if rest.iter().any(|p| matches!(p, Cond::T(_))) => {
                let op = if or { Op::BOr } else { Op::BAnd };
                Cond::T(Term::nary(
                    op,
                    rest.iter().map(|p| Term::of_cond(p)).collect(),
                ))
            }
            _ => {
                let bs: Vec<&Bool<'c>> = rest
                    .iter()
                    .map(|p| match p {
                        Cond::S(b) => b,
                        _ => unreachable!("constants and terms are handled above"),
                    })
                    .collect();
                let ctx = bs[0].get_ctx();
                Cond::S(if or {
                    Bool::or(ctx, &bs)
                } else {
                    Bool::and(ctx, &bs)
                })
            }
        }
    }

    /// Conjunction (kept for callers that hold a context).
    pub(super) fn and(_ctx: &'c Context, parts: &[Cond<'c>]) -> Cond<'c> {
        Cond::all(parts)
    }

    pub(super) fn ite(&self, a: &Val<'c>, b: &Val<'c>) -> Val<'c> {
        match (self, a, b) {
            (Cond::C(true), ..) => a.clone(),
            (Cond::C(false), ..) => b.clone(),
            (Cond::T(_), ..) | (_, Val::T(_), _) | (_, _, Val::T(_)) => Val::T(Term::app(
                Op::Ite,
                vec![Term::of_cond(self), Term::of_val(a), Term::of_val(b)],
                a.get_size(),
            )),
            (Cond::S(c), ..) => {
                let ctx = c.get_ctx();
                Val::S(c.ite(&a.bv(ctx), &b.bv(ctx)))
            }
        }
    }
}

/// The same condition (terms structurally, z3 terms by identity).
fn same<'c>(a: &Cond<'c>, b: &Cond<'c>) -> bool {
    match (a, b) {
        (Cond::S(x), Cond::S(y)) => x == y,
        (Cond::T(x), Cond::T(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{num, Val};
    use z3::Context;

    /// Every folded operation agrees with z3 on a few edge values.
    #[test]
    fn folding_agrees_with_z3() {
        let cfg = z3::Config::new();
        let ctx = Context::new(&cfg);
        let vals: [u128; 7] = [0, 1, 2, 7, 0x7f, 0x80, 0xff];
        type Op<'c> = fn(&Val<'c>, &Val<'c>) -> Val<'c>;
        let ops: Vec<(&str, Op)> = vec![
            ("add", |a, b| a.bvadd(b)),
            ("sub", |a, b| a.bvsub(b)),
            ("mul", |a, b| a.bvmul(b)),
            ("udiv", |a, b| a.bvudiv(b)),
            ("urem", |a, b| a.bvurem(b)),
            ("sdiv", |a, b| a.bvsdiv(b)),
            ("srem", |a, b| a.bvsrem(b)),
            ("shl", |a, b| a.bvshl(b)),
            ("lshr", |a, b| a.bvlshr(b)),
            ("ashr", |a, b| a.bvashr(b)),
            ("and", |a, b| a.bvand(b)),
            ("xor", |a, b| a.bvxor(b)),
        ];
        for (name, op) in &ops {
            for &x in &vals {
                for &y in &vals {
                    let c = op(&Val::c(x, 8), &Val::c(y, 8));
                    // One symbolic operand forces the z3 path.
                    let s = op(&Val::S(num(&ctx, 8, x)), &Val::c(y, 8)).simplify();
                    assert_eq!(c.as_u128(), s.as_u128(), "{name} {x} {y}");
                }
            }
        }
        for &x in &vals {
            for &y in &vals {
                let c = Val::c(x, 8).bvslt(&Val::c(y, 8)).as_bool();
                let s = Val::S(num(&ctx, 8, x))
                    .bvslt(&Val::c(y, 8))
                    .simplify()
                    .as_bool();
                assert_eq!(c, s, "slt {x} {y}");
            }
        }
        let p = Val::c(5, 32).concat(&Val::c(9, 64));
        let s = Val::S(num(&ctx, 32, 5).concat(&num(&ctx, 64, 9))).simplify();
        assert_eq!(p.as_u128(), s.as_u128());
        assert_eq!(Val::c(0x80, 8).sign_ext(8).as_u128(), Some(0xff80));
    }
}
