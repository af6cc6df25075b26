//! State-variable terms of weakest preconditions, built without z3.
//!
//! Profile (perf, `dpor+ag` on the concrete programs, fourth round): most
//! of the time went into z3 calls that build, substitute and simplify the
//! state-variable view of each instruction and the summary formulas — on
//! programs whose values are all concrete, where every summary check ends
//! in `true` or `false` once the state's values are put in.  A [`Term`] is
//! a small expression over state variables (`r!..`, `m!..`, `F!known`),
//! numerals and opaque z3 terms (symbolic inputs); substitution folds
//! constants with the same SMT-LIB semantics as [`Val`] (it evaluates
//! through `Val`/`Cond` operations), so a concrete state turns a summary
//! into a constant without z3.  A term becomes a z3 term only when it
//! meets a z3 formula, is stored, or grows past [`Z3_ABOVE`] nodes.

use super::fasthash::{FastHasher, FastMap, FastSet};
use super::val::{num, Cond, Val};
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::Context;

/// Terms with more nodes than this are handed to z3 (whose simplifier
/// keeps large summaries compact; ours only folds constants).
pub(super) const Z3_ABOVE: u32 = 400;

/// Operations; bit-vector unless named `B..` (booleans) or a comparison.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Op {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
    Not,
    Neg,
    Extract(u32, u32),
    Concat,
    ZExt(u32),
    SExt(u32),
    /// bool ? bv : bv
    Ite,
    Eq,
    Ult,
    Ule,
    Ugt,
    Uge,
    Slt,
    Sle,
    Sgt,
    Sge,
    BAnd,
    BOr,
    BNot,
}

#[derive(Debug)]
enum Kind<'c> {
    Var(Rc<str>),
    Num(u128),
    /// A z3 term without state variables (an input, a havoc constant).
    Z(Dynamic<'c>),
    App(Op, Vec<Term<'c>>),
}

#[derive(Debug)]
struct Node<'c> {
    kind: Kind<'c>,
    /// Bit width; 0 for a boolean.
    width: u32,
    hash: u64,
    /// Nodes of the tree (saturating; shared subterms count twice).
    size: u32,
    /// Some `Z` leaf below.
    has_z: bool,
    /// The variables below, as a [`var_mask`] filter (a substitution of
    /// variables outside it leaves the node as it is).
    vmask: u64,
}

/// A shared, immutable term; equality is structural (hash first).
#[derive(Clone, Debug)]
pub(super) struct Term<'c>(Rc<Node<'c>>);

impl PartialEq for Term<'_> {
    fn eq(&self, o: &Self) -> bool {
        if Rc::ptr_eq(&self.0, &o.0) {
            return true;
        }
        let (a, b) = (&*self.0, &*o.0);
        a.hash == b.hash
            && a.width == b.width
            && match (&a.kind, &b.kind) {
                (Kind::Var(x), Kind::Var(y)) => x == y,
                (Kind::Num(x), Kind::Num(y)) => x == y,
                (Kind::Z(x), Kind::Z(y)) => x == y,
                (Kind::App(p, xs), Kind::App(q, ys)) => p == q && xs == ys,
                _ => false,
            }
    }
}
impl Eq for Term<'_> {}

impl Hash for Term<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(self.0.hash);
    }
}

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29)
}

fn str_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// A one-bit filter of a variable name: a node's `vmask` is the union of
/// its variables' bits, so "mentions none of these names" is one `&`.
pub(super) fn var_mask(name: &str) -> u64 {
    1 << (str_hash(name) >> 58)
}

/// Every variable may be substituted.
const ALL_VARS: u64 = u64::MAX;

/// The value of a term: a bit-vector or a boolean.
#[derive(Clone, Debug)]
pub(super) enum TV<'c> {
    Bv(Val<'c>),
    B(Cond<'c>),
}

impl<'c> Term<'c> {
    fn node(kind: Kind<'c>, width: u32) -> Term<'c> {
        let (hash, size, has_z, vmask) = match &kind {
            Kind::Var(n) => (mix(1, str_hash(n)), 1, false, var_mask(n)),
            Kind::Num(v) => (mix(mix(2, *v as u64), (*v >> 64) as u64), 1, false, 0),
            Kind::Z(d) => {
                let mut s = FastHasher::default();
                d.hash(&mut s);
                (mix(3, s.finish()), 1, true, 0)
            }
            Kind::App(op, args) => {
                let mut s = FastHasher::default();
                op.hash(&mut s);
                let mut h = mix(4, s.finish());
                let mut size = 1u32;
                let mut z = false;
                let mut vmask = 0;
                for a in args {
                    h = mix(h, a.0.hash);
                    size = size.saturating_add(a.0.size);
                    z |= a.0.has_z;
                    vmask |= a.0.vmask;
                }
                (h, size, z, vmask)
            }
        };
        Term(Rc::new(Node {
            kind,
            width,
            hash: mix(hash, width as u64),
            size,
            has_z,
            vmask,
        }))
    }

    /// A state variable; width 0 is a boolean.
    pub(super) fn var(name: &str, width: u32) -> Term<'c> {
        Term::node(Kind::Var(name.into()), width)
    }

    pub(super) fn width(&self) -> u32 {
        self.0.width
    }

    pub(super) fn size(&self) -> u32 {
        self.0.size
    }

    /// Does the term hold an opaque z3 part?
    pub(super) fn has_z(&self) -> bool {
        self.0.has_z
    }

    /// A value as a term (a numeral, an opaque z3 term, or itself).
    pub(super) fn of_val(v: &Val<'c>) -> Term<'c> {
        match v {
            Val::C(w, x) => Term::node(Kind::Num(*x), *w),
            Val::S(b) => {
                let w = b.get_size();
                Term::node(Kind::Z(Dynamic::from_ast(b)), w)
            }
            Val::T(t) => t.clone(),
        }
    }

    pub(super) fn of_cond(c: &Cond<'c>) -> Term<'c> {
        match c {
            // Booleans constants fold away before they reach a term;
            // kept as 1-bit numerals otherwise.
            Cond::C(b) => Term::node(Kind::Num(*b as u128), 0),
            Cond::S(b) => Term::node(Kind::Z(Dynamic::from_ast(b)), 0),
            Cond::T(t) => t.clone(),
        }
    }

    /// An application (no folding: callers fold constants first).
    pub(super) fn app(op: Op, args: Vec<Term<'c>>, width: u32) -> Term<'c> {
        Term::node(Kind::App(op, args), width)
    }

    /// An n-ary `and`/`or` with nested ones flattened and duplicates
    /// dropped, arguments in hash order (so `a∧b` equals `b∧a`).
    pub(super) fn nary(op: Op, parts: Vec<Term<'c>>) -> Term<'c> {
        let mut flat: Vec<Term<'c>> = Vec::new();
        for p in parts {
            match &p.0.kind {
                Kind::App(o, xs) if *o == op => flat.extend(xs.iter().cloned()),
                _ => flat.push(p),
            }
        }
        flat.sort_by_key(|t| t.0.hash);
        flat.dedup();
        if flat.len() == 1 {
            return flat.pop().unwrap();
        }
        Term::app(op, flat, 0)
    }

    /// `x` when this is `¬x`.
    pub(super) fn negated(&self) -> Option<&Term<'c>> {
        match &self.0.kind {
            Kind::App(Op::BNot, xs) => xs.first(),
            _ => None,
        }
    }

    /// Each state variable once: (name, width).
    pub(super) fn vars(&self) -> Vec<(Rc<str>, u32)> {
        let mut out = Vec::new();
        let mut seen = FastSet::default();
        self.vars_into(&mut seen, &mut out);
        out
    }

    fn vars_into(&self, seen: &mut FastSet<usize>, out: &mut Vec<(Rc<str>, u32)>) {
        if self.0.vmask == 0 {
            return;
        }
        match &self.0.kind {
            Kind::Var(n) if !out.iter().any(|(m, _)| m == n) => {
                out.push((n.clone(), self.0.width));
            }
            Kind::App(_, xs) => {
                // As in `subst_memo`: only a shared node can be met twice.
                if Rc::strong_count(&self.0) > 1 && !seen.insert(self.memo_key()) {
                    return;
                }
                xs.iter().for_each(|x| x.vars_into(seen, out))
            }
            _ => {}
        }
    }

    /// The term with variables replaced by `f`'s values (`None`: kept),
    /// evaluated with the `Val`/`Cond` operations: constants fold, and a
    /// term whose variables all become concrete is a constant.
    pub(super) fn subst(&self, f: &mut dyn FnMut(&str, u32) -> Option<TV<'c>>) -> TV<'c> {
        self.subst_within(ALL_VARS, f)
    }

    /// `subst` where `f` replaces only variables whose [`var_mask`] bit
    /// is in `mask`: subterms without such a variable are kept whole,
    /// never walked.
    pub(super) fn subst_within(
        &self,
        mask: u64,
        f: &mut dyn FnMut(&str, u32) -> Option<TV<'c>>,
    ) -> TV<'c> {
        let mut memo = FastMap::default();
        self.subst_memo(mask, f, &mut memo)
    }

    /// The node's address as a memo key, alignment bits dropped: the fast
    /// hasher multiplies, which keeps low zero bits zero, and the hash
    /// table picks buckets by the low bits.
    fn memo_key(&self) -> usize {
        Rc::as_ptr(&self.0) as usize >> 3
    }

    fn subst_memo(
        &self,
        mask: u64,
        f: &mut dyn FnMut(&str, u32) -> Option<TV<'c>>,
        memo: &mut FastMap<usize, TV<'c>>,
    ) -> TV<'c> {
        if self.0.vmask & mask == 0 {
            return self.as_tv();
        }
        let w = self.0.width;
        let (op, xs) = match &self.0.kind {
            Kind::Var(n) => return f(n, w).unwrap_or_else(|| self.as_tv()),
            Kind::Num(_) | Kind::Z(_) => return self.as_tv(),
            Kind::App(op, xs) => (op, xs),
        };
        // Only a node with several parents can be reached twice (each
        // parent is itself visited once), so only those are memoised.
        let shared = Rc::strong_count(&self.0) > 1;
        let key = self.memo_key();
        if shared {
            if let Some(v) = memo.get(&key) {
                return v.clone();
            }
        }
        let args: Vec<TV<'c>> = xs.iter().map(|x| x.subst_memo(mask, f, memo)).collect();
        let r = apply(*op, &args, w);
        if shared {
            memo.insert(key, r.clone());
        }
        r
    }

    /// This term as a value (a numeral folds to a constant).
    fn as_tv(&self) -> TV<'c> {
        match (&self.0.kind, self.0.width) {
            (Kind::Num(v), 0) => TV::B(Cond::C(*v != 0)),
            (Kind::Num(v), w) => TV::Bv(Val::C(w, *v)),
            (Kind::Z(d), 0) => TV::B(Cond::S(d.as_bool().expect("boolean z3 term"))),
            (Kind::Z(d), _) => TV::Bv(Val::S(d.as_bv().expect("bit-vector z3 term"))),
            (_, 0) => TV::B(Cond::T(self.clone())),
            _ => TV::Bv(Val::T(self.clone())),
        }
    }

    /// The z3 term (state variables become constants of their name).
    pub(super) fn to_z3(&self, ctx: &'c Context) -> Dynamic<'c> {
        let mut memo = FastMap::default();
        self.z3_memo(ctx, &mut memo)
    }

    pub(super) fn to_bool(&self, ctx: &'c Context) -> Bool<'c> {
        self.to_z3(ctx).as_bool().expect("boolean term")
    }

    pub(super) fn to_bv(&self, ctx: &'c Context) -> BV<'c> {
        self.to_z3(ctx).as_bv().expect("bit-vector term")
    }

    fn z3_memo(&self, ctx: &'c Context, memo: &mut FastMap<usize, Dynamic<'c>>) -> Dynamic<'c> {
        let key = self.memo_key();
        if let Some(v) = memo.get(&key) {
            return v.clone();
        }
        let w = self.0.width;
        let r = match &self.0.kind {
            Kind::Var(n) if w == 0 => Dynamic::from_ast(&Bool::new_const(ctx, &**n)),
            Kind::Var(n) => Dynamic::from_ast(&BV::new_const(ctx, &**n, w)),
            Kind::Num(v) if w == 0 => Dynamic::from_ast(&Bool::from_bool(ctx, *v != 0)),
            Kind::Num(v) => Dynamic::from_ast(&num(ctx, w, *v)),
            Kind::Z(d) => d.clone(),
            Kind::App(op, xs) => {
                let a: Vec<Dynamic<'c>> = xs.iter().map(|x| x.z3_memo(ctx, memo)).collect();
                z3_app(ctx, *op, &a)
            }
        };
        memo.insert(key, r.clone());
        r
    }
}

/// `op` on values, through the `Val`/`Cond` operations (which fold
/// constants and build terms or z3 terms otherwise).
fn apply<'c>(op: Op, a: &[TV<'c>], w: u32) -> TV<'c> {
    let v = |k: usize| match &a[k] {
        TV::Bv(x) => x,
        TV::B(_) => panic!("boolean where a bit-vector was built"),
    };
    let c = |k: usize| match &a[k] {
        TV::B(x) => x,
        TV::Bv(_) => panic!("bit-vector where a boolean was built"),
    };
    TV::Bv(match op {
        Op::Add => v(0).bvadd(v(1)),
        Op::Sub => v(0).bvsub(v(1)),
        Op::Mul => v(0).bvmul(v(1)),
        Op::UDiv => v(0).bvudiv(v(1)),
        Op::SDiv => v(0).bvsdiv(v(1)),
        Op::URem => v(0).bvurem(v(1)),
        Op::SRem => v(0).bvsrem(v(1)),
        Op::And => v(0).bvand(v(1)),
        Op::Or => v(0).bvor(v(1)),
        Op::Xor => v(0).bvxor(v(1)),
        Op::Shl => v(0).bvshl(v(1)),
        Op::LShr => v(0).bvlshr(v(1)),
        Op::AShr => v(0).bvashr(v(1)),
        Op::Not => v(0).bvnot(),
        Op::Neg => v(0).bvneg(),
        Op::Extract(h, l) => v(0).extract(h, l),
        Op::Concat => v(0).concat(v(1)),
        Op::ZExt(k) => v(0).zero_ext(k),
        Op::SExt(k) => v(0).sign_ext(k),
        Op::Ite => c(0).ite(v(1), v(2)),
        Op::Eq => return TV::B(v(0)._eq(v(1))),
        Op::Ult => return TV::B(v(0).bvult(v(1))),
        Op::Ule => return TV::B(v(0).bvule(v(1))),
        Op::Ugt => return TV::B(v(0).bvugt(v(1))),
        Op::Uge => return TV::B(v(0).bvuge(v(1))),
        Op::Slt => return TV::B(v(0).bvslt(v(1))),
        Op::Sle => return TV::B(v(0).bvsle(v(1))),
        Op::Sgt => return TV::B(v(0).bvsgt(v(1))),
        Op::Sge => return TV::B(v(0).bvsge(v(1))),
        Op::BAnd => {
            return TV::B(Cond::all(
                &(0..a.len()).map(|k| c(k).clone()).collect::<Vec<_>>(),
            ))
        }
        Op::BOr => {
            return TV::B(Cond::any(
                &(0..a.len()).map(|k| c(k).clone()).collect::<Vec<_>>(),
            ))
        }
        Op::BNot => return TV::B(c(0).not()),
    })
    .sized(w)
}

impl<'c> TV<'c> {
    /// (A check that the folded width is the term's.)
    fn sized(self, w: u32) -> TV<'c> {
        if let TV::Bv(v) = &self {
            debug_assert_eq!(v.get_size(), w);
        }
        self
    }
}

fn z3_app<'c>(ctx: &'c Context, op: Op, a: &[Dynamic<'c>]) -> Dynamic<'c> {
    let v = |k: usize| a[k].as_bv().expect("bit-vector operand");
    let b = |k: usize| a[k].as_bool().expect("boolean operand");
    let d = |x: BV<'c>| Dynamic::from_ast(&x);
    let e = |x: Bool<'c>| Dynamic::from_ast(&x);
    match op {
        Op::Add => d(v(0).bvadd(&v(1))),
        Op::Sub => d(v(0).bvsub(&v(1))),
        Op::Mul => d(v(0).bvmul(&v(1))),
        Op::UDiv => d(v(0).bvudiv(&v(1))),
        Op::SDiv => d(v(0).bvsdiv(&v(1))),
        Op::URem => d(v(0).bvurem(&v(1))),
        Op::SRem => d(v(0).bvsrem(&v(1))),
        Op::And => d(v(0).bvand(&v(1))),
        Op::Or => d(v(0).bvor(&v(1))),
        Op::Xor => d(v(0).bvxor(&v(1))),
        Op::Shl => d(v(0).bvshl(&v(1))),
        Op::LShr => d(v(0).bvlshr(&v(1))),
        Op::AShr => d(v(0).bvashr(&v(1))),
        Op::Not => d(v(0).bvnot()),
        Op::Neg => d(v(0).bvneg()),
        Op::Extract(h, l) => d(v(0).extract(h, l)),
        Op::Concat => d(v(0).concat(&v(1))),
        Op::ZExt(k) => d(v(0).zero_ext(k)),
        Op::SExt(k) => d(v(0).sign_ext(k)),
        Op::Ite => d(b(0).ite(&v(1), &v(2))),
        Op::Eq => e(v(0)._eq(&v(1))),
        Op::Ult => e(v(0).bvult(&v(1))),
        Op::Ule => e(v(0).bvule(&v(1))),
        Op::Ugt => e(v(0).bvugt(&v(1))),
        Op::Uge => e(v(0).bvuge(&v(1))),
        Op::Slt => e(v(0).bvslt(&v(1))),
        Op::Sle => e(v(0).bvsle(&v(1))),
        Op::Sgt => e(v(0).bvsgt(&v(1))),
        Op::Sge => e(v(0).bvsge(&v(1))),
        Op::BAnd => {
            let xs: Vec<Bool<'c>> = (0..a.len()).map(b).collect();
            let r: Vec<&Bool<'c>> = xs.iter().collect();
            e(Bool::and(ctx, &r))
        }
        Op::BOr => {
            let xs: Vec<Bool<'c>> = (0..a.len()).map(b).collect();
            let r: Vec<&Bool<'c>> = xs.iter().collect();
            e(Bool::or(ctx, &r))
        }
        Op::BNot => e(b(0).not()),
    }
}

#[cfg(test)]
mod tests {
    use super::{var_mask, Term, TV};
    use crate::symex::engine::val::{num, Cond, Val};
    use std::rc::Rc;
    use z3::ast::{Ast, Bool, BV};
    use z3::Context;

    /// `subst_within` asks `f` only about variables in the mask (a filter
    /// bit may be shared, so at most those whose bit collides), leaves a
    /// subterm without them as the same node, and over a DAG visits a
    /// shared subterm once.
    #[test]
    fn masked_substitution_skips_unmentioned_subterms() {
        let x = Val::T(Term::var("r!0!0!x", 8));
        let names: Vec<String> = (0..40).map(|i| format!("m!{i}!0!1!8")).collect();
        let others: Vec<Val> = names.iter().map(|n| Val::T(Term::var(n, 8))).collect();
        // A shared subterm s = o0 + o1 + … used twice, and x.
        let s = others
            .iter()
            .skip(1)
            .fold(others[0].clone(), |a, b| a.bvadd(b));
        let c = Cond::all(&[s.bvugt(&Val::c(1, 8)), s._eq(&x).not()]);
        let Cond::T(t) = &c else {
            panic!("a term expected")
        };
        let mask = var_mask("r!0!0!x");
        let mut asked = Vec::new();
        let r = t.subst_within(mask, &mut |n, _| {
            asked.push(n.to_string());
            (n == "r!0!0!x").then(|| TV::Bv(Val::c(5, 8)))
        });
        assert!(asked.contains(&"r!0!0!x".to_string()));
        assert!(asked
            .iter()
            .all(|n| n == "r!0!0!x" || var_mask(n) & mask != 0));
        // The result names the others but no longer x.
        let TV::B(Cond::T(rt)) = r else {
            panic!("a term expected")
        };
        let vars: Vec<String> = rt.vars().iter().map(|(n, _)| n.to_string()).collect();
        assert!(!vars.contains(&"r!0!0!x".to_string()));
        assert_eq!(vars.len(), names.len());
        // A mask none of the variables has: the very same node back.
        let none = (0..64)
            .map(|b| 1u64 << b)
            .find(|b| t.0.vmask & b == 0)
            .expect("41 names leave a bit free");
        let TV::B(Cond::T(same)) = t.subst_within(none, &mut |_, _| panic!("not asked")) else {
            panic!("a term expected")
        };
        assert!(Rc::ptr_eq(&same.0, &t.0));
        // Every variable substituted: the whole term folds to a constant
        // (0+…+39 = 780 = 12 mod 256 > 1, and 12 ≠ 5).
        let all = t.subst(&mut |n, _| {
            Some(TV::Bv(Val::c(
                if n == "r!0!0!x" {
                    5
                } else {
                    n.split('!').nth(1).unwrap().parse().unwrap()
                },
                8,
            )))
        });
        assert!(matches!(all, TV::B(Cond::C(true))));
    }

    /// A term over state variables, with values put in, folds to the
    /// constant z3 computes for the same term and values; with a symbolic
    /// value it stays a z3 term z3 finds equal to the substitution.
    #[test]
    fn substitution_folds_like_z3() {
        let cfg = z3::Config::new();
        let ctx = Context::new(&cfg);
        let x = Val::T(Term::var("r!0!0!x", 8));
        let y = Val::T(Term::var("m!1!0!1!8", 8));
        let known = Cond::T(Term::var("F!known", 0));
        // (x + y > 7 signed) ∧ ¬(x = 3) ∨ F!known, and an ite on it.
        let c = Cond::any(&[
            Cond::all(&[x.bvadd(&y).bvsgt(&Val::c(7, 8)), x._eq(&Val::c(3, 8)).not()]),
            known,
        ]);
        let v = c.ite(
            &x.bvmul(&y).zero_ext(8),
            &y.sign_ext(8).bvlshr(&Val::c(1, 16)),
        );
        let (Cond::T(ct), Val::T(vt)) = (&c, &v) else {
            panic!("terms expected")
        };
        for (a, b, k) in [
            (3u128, 9u128, false),
            (4, 9, false),
            (200, 100, true),
            (0, 0, false),
        ] {
            let mut f = |n: &str, _w: u32| match n {
                "r!0!0!x" => Some(TV::Bv(Val::c(a, 8))),
                "m!1!0!1!8" => Some(TV::Bv(Val::c(b, 8))),
                "F!known" => Some(TV::B(Cond::C(k))),
                _ => None,
            };
            let got_c = match ct.subst(&mut f) {
                TV::B(Cond::C(b)) => b,
                other => panic!("not folded: {other:?}"),
            };
            let got_v = match vt.subst(&mut f) {
                TV::Bv(Val::C(_, v)) => v,
                other => panic!("not folded: {other:?}"),
            };
            let pairs = [
                (BV::new_const(&ctx, "r!0!0!x", 8), num(&ctx, 8, a)),
                (BV::new_const(&ctx, "m!1!0!1!8", 8), num(&ctx, 8, b)),
            ];
            let p: Vec<(&BV, &BV)> = pairs.iter().map(|(a, b)| (a, b)).collect();
            let kb = [(Bool::new_const(&ctx, "F!known"), Bool::from_bool(&ctx, k))];
            let kp: Vec<(&Bool, &Bool)> = kb.iter().map(|(a, b)| (a, b)).collect();
            let zc = ct.to_bool(&ctx).substitute(&p).substitute(&kp).simplify();
            assert_eq!(zc.as_bool(), Some(got_c), "{a} {b} {k}");
            let zv = vt.to_bv(&ctx).substitute(&p).substitute(&kp).simplify();
            assert_eq!(zv.as_u64().map(u128::from), Some(got_v), "{a} {b} {k}");
        }
        // A symbolic value: the result is a z3 term equal to z3's own
        // substitution.
        let inp = BV::new_const(&ctx, "in!a", 8);
        let mut f = |n: &str, _w: u32| match n {
            "r!0!0!x" => Some(TV::Bv(Val::S(inp.clone()))),
            "m!1!0!1!8" => Some(TV::Bv(Val::c(9, 8))),
            "F!known" => Some(TV::B(Cond::C(false))),
            _ => None,
        };
        let TV::B(Cond::S(got)) = ct.subst(&mut f) else {
            panic!("a z3 term expected")
        };
        let want = ct
            .to_bool(&ctx)
            .substitute(&[(&BV::new_const(&ctx, "r!0!0!x", 8), &inp)])
            .substitute(&[(&BV::new_const(&ctx, "m!1!0!1!8", 8), &num(&ctx, 8, 9))])
            .substitute(&[(
                &Bool::new_const(&ctx, "F!known"),
                &Bool::from_bool(&ctx, false),
            )]);
        let s = z3::Solver::new(&ctx);
        s.assert(&got._eq(&want).not());
        assert_eq!(s.check(), z3::SatResult::Unsat);
        // x ∨ ¬x and x ∧ ¬x fold; a ∧ b equals b ∧ a.
        let e = x._eq(&y);
        assert_eq!(Cond::any(&[e.clone(), e.not()]).as_bool(), Some(true));
        assert_eq!(Cond::all(&[e.clone(), e.not()]).as_bool(), Some(false));
        let g = x.bvult(&y);
        match (Cond::all(&[e.clone(), g.clone()]), Cond::all(&[g, e])) {
            (Cond::T(a), Cond::T(b)) => assert_eq!(a, b),
            other => panic!("terms expected: {other:?}"),
        }
    }
}
