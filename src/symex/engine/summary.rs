use super::state::{Seg, State};
use super::term::{var_mask, Term, TV, Z3_ABOVE};
use super::transitions::Access;
use super::val::{Cond, Val};
use super::{Engine, SVars, Stop};
use crate::symex::FindingKind;
use llvm_ir::Name;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{Context, SatResult};

pub(super) struct PsEntry<'c> {
    pub(super) key: u64,
    pub(super) f: Cond<'c>,
    pub(super) merges: u32,
    /// Threads asleep at some visit that contributed to `f`.
    pub(super) asleep: BTreeSet<usize>,
}

/// The atom "the finding this path ends in is already reported".
const KNOWN: &str = "F!known";

impl<'c, 'm> Engine<'c, 'm> {
    /// The weakest precondition of a path that ends at `stop`.  A
    /// violation is reported as the path ends, so past that moment the path
    /// can lead to no error that is not already reported — what a summary
    /// must guarantee (Conc-iSE §6.2: ¬PS[s] are the states that may lead
    /// to *previously unexplored* errors).  The atom `F!known` says so: it
    /// is true within this run (`implied`) and false in a summary written
    /// to the store, whose reader has not reported the finding.  Anything
    /// else that ends a path (unsupported construct, cut, failed
    /// assumption) contributes `false`: the program goes on, unexplored.
    pub(super) fn end_wp(&self, stop: &Stop) -> Cond<'c> {
        match stop {
            Stop::Finding(k, _) if *k != FindingKind::Unsupported && self.track_wp => {
                Cond::T(Term::var(KNOWN, 0))
            }
            _ => Cond::C(false),
        }
    }

    /// `f` with the reported findings known (`true`) or not (`false`).
    pub(super) fn with_known(&self, f: &Bool<'c>, known: bool) -> Bool<'c> {
        let a = Bool::new_const(self.ctx, KNOWN);
        let v = Bool::from_bool(self.ctx, known);
        f.substitute(&[(&a, &v)]).simplify()
    }

    /// `with_known`, computed once per formula (a summary is checked at
    /// every visit of its node).
    fn with_known_cached(&mut self, f: &Bool<'c>, known: bool) -> Bool<'c> {
        if f.as_bool().is_some() {
            return f.clone();
        }
        let key = (f.clone(), known);
        if let Some(r) = self.known_cache.get(&key) {
            return r.clone();
        }
        let r = self.with_known(f, known);
        if self.known_cache.len() >= 1 << 14 {
            self.known_cache.clear();
        }
        self.known_cache.insert(key, r.clone());
        r
    }

    /// Apply the segment's effects to a weakest precondition.
    pub(super) fn apply_seg(&mut self, seg: &Seg<'c>, wp: Cond<'c>) -> Cond<'c> {
        if !self.track_wp || seg.bad || wp.as_bool() == Some(false) {
            return Cond::C(false);
        }
        // Nothing to substitute or add: the wp is unchanged (no z3 call).
        if seg.ov.is_empty() && seg.assumes.is_empty() && seg.havoc.is_empty() {
            return wp;
        }
        match wp {
            Cond::S(b) => norm(self.apply_seg_z3(seg, b)),
            wp => {
                // Our own terms: the overwritten state variables the wp
                // names are replaced, constants fold (no z3 call).
                let w = match &wp {
                    Cond::T(t) => match t.subst_within(seg.ov_mask, &mut |n, w| {
                        seg.ov
                            .get(n)
                            .filter(|v| v.get_size() == w)
                            .map(|v| TV::Bv(v.clone()))
                    }) {
                        TV::B(c) => c,
                        TV::Bv(_) => unreachable!("a weakest precondition is a boolean"),
                    },
                    c => c.clone(),
                };
                let mut parts = seg.assumes.clone();
                parts.push(w);
                let body = Cond::all(&parts);
                if seg.havoc.is_empty() {
                    return wp_cap(self.ctx, &self.simp, body);
                }
                // Inputs read after the node are universally quantified.
                let body = self.simp.simplify(body.bool(self.ctx));
                let bound: Vec<&dyn Ast<'c>> =
                    seg.havoc.iter().map(|h| h as &dyn Ast<'c>).collect();
                norm(z3::ast::forall_const(self.ctx, &bound, &[], &body))
            }
        }
    }

    /// `apply_seg` on a z3 formula.
    fn apply_seg_z3(&mut self, seg: &Seg<'c>, wp: Bool<'c>) -> Bool<'c> {
        // Only the state variables the wp names are substituted (profile:
        // building a constant and a term for every overwritten variable,
        // then simplifying, was most of `dpor+ag`'s time on concrete
        // programs).  A wp under a quantifier is substituted in full.
        let consts: Vec<(BV<'c>, BV<'c>)> = match self.free_svars(&wp) {
            Some(names) => names
                .iter()
                .filter_map(|(n, w)| {
                    let t = seg.ov.get(n).filter(|t| t.get_size() == *w)?;
                    Some((BV::new_const(self.ctx, n.as_str(), *w), self.zterm(t)))
                })
                .collect(),
            None => seg
                .ov
                .iter()
                .map(|(n, t)| {
                    (
                        BV::new_const(self.ctx, n.as_str(), t.get_size()),
                        self.zterm(t),
                    )
                })
                .collect(),
        };
        if consts.is_empty() && seg.assumes.is_empty() && seg.havoc.is_empty() {
            return wp;
        }
        let pairs: Vec<(&BV<'c>, &BV<'c>)> = consts.iter().map(|(a, b)| (a, b)).collect();
        let w = if pairs.is_empty() {
            wp
        } else {
            wp.substitute(&pairs)
        };
        let assumes: Vec<Bool<'c>> = seg.assumes.iter().map(|a| a.bool(self.ctx)).collect();
        let mut parts: Vec<&Bool<'c>> = assumes.iter().collect();
        parts.push(&w);
        let body = self.simp.simplify(Bool::and(self.ctx, &parts));
        if seg.havoc.is_empty() {
            return body;
        }
        // Inputs read after the node are universally quantified.
        let bound: Vec<&dyn Ast<'c>> = seg.havoc.iter().map(|h| h as &dyn Ast<'c>).collect();
        z3::ast::forall_const(self.ctx, &bound, &[], &body)
    }

    /// The state variables (`r!..`, `m!..`) `f` names, computed once per
    /// formula; `None` when `f` has a quantifier (its body is not walked).
    fn free_svars(&mut self, f: &Bool<'c>) -> Option<SVars> {
        if f.as_bool().is_some() {
            return Some(Rc::new(Vec::new()));
        }
        if let Some(v) = self.fv_cache.get(f) {
            return v.clone();
        }
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let ok = walk_svars(
            &Dynamic::from_ast(f),
            &mut seen,
            &mut out,
            SvarStop::AtQuantifier,
        );
        let v = ok.then(|| Rc::new(out));
        if self.fv_cache.len() >= 1 << 14 {
            self.fv_cache.clear();
        }
        self.fv_cache.insert(f.clone(), v.clone());
        v
    }

    /// The summary of `key`, if it may be used with the current sleep set.
    pub(super) fn ps_lookup(&self, key: u64, sleep: &[(usize, Vec<Access>)]) -> Option<Cond<'c>> {
        let n = self.opts.summary_table_size.max(1);
        let e = self
            .ps
            .get(&((key as usize) % n))
            .filter(|e| e.key == key)?;
        e.asleep
            .iter()
            .all(|t| sleep.iter().any(|(q, _)| q == t))
            .then(|| e.f.clone())
    }

    /// The summary of `key` with the threads asleep when it was computed.
    pub(super) fn ps_entry(&self, key: u64) -> Option<(Cond<'c>, BTreeSet<usize>)> {
        let n = self.opts.summary_table_size.max(1);
        let e = self
            .ps
            .get(&((key as usize) % n))
            .filter(|e| e.key == key)?;
        Some((e.f.clone(), e.asleep.clone()))
    }

    pub(super) fn ps_merge(&mut self, key: u64, wp: &Cond<'c>, sleep: &[(usize, Vec<Access>)]) {
        if wp.as_bool() == Some(false) {
            return;
        }
        let n = self.opts.summary_table_size.max(1);
        let slot = (key as usize) % n;
        let maxm = self.opts.summary_max_merges;
        match self.ps.get_mut(&slot) {
            Some(e) if e.key == key => {
                if e.merges < maxm {
                    let merged = wp_or(self.ctx, &self.simp, &e.f, wp);
                    if cond_within(&merged, MAX_SUMMARY_TERMS) {
                        e.f = merged;
                        e.merges += 1;
                        e.asleep.extend(sleep.iter().map(|(t, _)| *t));
                    } else {
                        // Frozen, like a summary at the merge cap: what it
                        // covers is still covered (an under-approximation,
                        // §6.2), and every later simplification and
                        // substitution stays small (needle's initial state
                        // grew to 13.5 MB of SMT-LIB, and dpor+ag ran 60x
                        // slower than dpor).
                        e.merges = maxm;
                    }
                }
            }
            _ => {
                // Bounded table: a colliding entry is dropped (its summary
                // becomes `false`), an under-approximation (§6.2).
                self.ps.insert(
                    slot,
                    PsEntry {
                        key,
                        f: wp.clone(),
                        merges: 1,
                        asleep: sleep.iter().map(|(t, _)| *t).collect(),
                    },
                );
            }
        }
    }

    /// Value of a state variable in `st`.
    pub(super) fn sv_value(&self, st: &State<'c>, name: &str, bits: u32) -> Option<Val<'c>> {
        let mut it = name.split('!');
        match it.next()? {
            "r" => {
                let t: usize = it.next()?.parse().ok()?;
                let d: usize = it.next()?.parse().ok()?;
                let rn = it.next()?;
                let fr = st.threads.get(t)?.frames.get(d)?;
                let n = match rn.parse::<usize>() {
                    Ok(k) => Name::Number(k),
                    Err(_) => Name::from(rn),
                };
                let v = fr.regs.get(&n)?;
                (v.get_size() == bits).then(|| v.clone())
            }
            "m" => {
                let o: usize = it.next()?.parse().ok()?;
                let off: u64 = it.next()?.parse().ok()?;
                let bytes: u64 = it.next()?.parse().ok()?;
                let obj = st.objs.get(o)?;
                if !obj.alive {
                    return None;
                }
                match obj.cells.get(&off) {
                    Some(c) if c.bytes == bytes && c.val.get_size() == bits => Some(c.val.clone()),
                    Some(_) => None,
                    None => {
                        let over = obj
                            .cells
                            .range(..off + bytes)
                            .any(|(s, c)| s + c.bytes > off);
                        (!over).then(|| self.bv(0, bits))
                    }
                }
            }
            _ => None,
        }
    }

    /// The state variables of a summary formula `f` (each shared term
    /// once); false when `f` names a heap object, which summaries do not
    /// substitute. A quantifier's free state variables stay unsubstituted,
    /// which only makes the implication check harder to pass (sound).
    pub(super) fn collect_svars(
        &self,
        f: &Dynamic<'c>,
        seen: &mut HashSet<Dynamic<'c>>,
        out: &mut Vec<(String, u32)>,
    ) -> bool {
        walk_svars(f, seen, out, SvarStop::AtHeap)
    }

    /// pcon → PS[s] under the state's memory?
    pub(super) fn implied(&mut self, st: &State<'c>, ps: &Cond<'c>) -> bool {
        self.implied_with(st, ps, true)
    }

    /// `implied`, with the findings this run reported known or not.  A
    /// visit that explores only the threads asleep when the summary was
    /// made (sleep sets) uses `known = false`: the continuations it skips
    /// are counted nowhere, so they must be runs without findings (else a
    /// program that can end normally could show no run that does).
    pub(super) fn implied_with(&mut self, st: &State<'c>, ps: &Cond<'c>, known: bool) -> bool {
        let t = match ps {
            Cond::C(true) => return true,
            Cond::T(t) if !t.has_z() => t,
            _ => return self.implied_z3(st, &ps.bool(self.ctx), known),
        };
        // Our own term: the state's values are put in and constants fold;
        // on a concrete state the summary becomes `true` or `false`
        // without z3.
        let known_c = |n: &str, _: u32| (n == KNOWN).then(|| TV::B(Cond::C(known)));
        let ps = match t.subst_within(var_mask(KNOWN), &mut { known_c }) {
            TV::B(c) => c,
            TV::Bv(_) => unreachable!("a summary is a boolean"),
        };
        let f = match &ps {
            Cond::C(true) => return true,
            Cond::C(false) => Cond::C(false),
            Cond::T(t) => {
                let mut vals: Vec<(Rc<str>, Val<'c>)> = Vec::new();
                for (n, w) in t.vars() {
                    match self.sv_value(st, &n, w) {
                        Some(v) => vals.push((n, v)),
                        None => return false,
                    }
                }
                match t.subst(&mut |n, _| {
                    vals.iter()
                        .find(|(m, _)| &**m == n)
                        .map(|(_, v)| TV::Bv(v.clone()))
                }) {
                    TV::B(c) => c,
                    TV::Bv(_) => unreachable!("a summary is a boolean"),
                }
            }
            Cond::S(_) => unreachable!("a term without z3 parts stays one"),
        };
        let f = match f {
            Cond::C(b) => Bool::from_bool(self.ctx, b),
            Cond::S(b) => self.simp.simplify(b),
            // Values are concrete or z3 terms, never state variables.
            Cond::T(_) => return false,
        };
        if f.as_bool() == Some(true) {
            return true;
        }
        self.check(&st.pcon, &[f.not()]) == SatResult::Unsat
    }

    /// `implied_with` on a z3 formula.
    fn implied_z3(&mut self, st: &State<'c>, ps: &Bool<'c>, known: bool) -> bool {
        let ps = &self.with_known_cached(ps, known);
        if ps.as_bool() == Some(true) {
            return true;
        }
        // The state variables of a summary, computed once per formula (a
        // summary is checked at every visit of its node).
        let vars = match self.svars_cache.get(ps) {
            Some(v) => v.clone(),
            None => {
                let mut vars = Vec::new();
                let mut seen = HashSet::new();
                let ok = self.collect_svars(&Dynamic::from_ast(ps), &mut seen, &mut vars);
                let v = ok.then(|| Rc::new(vars));
                if self.svars_cache.len() >= 1 << 14 {
                    self.svars_cache.clear();
                }
                self.svars_cache.insert(ps.clone(), v.clone());
                v
            }
        };
        let Some(vars) = vars else {
            return false;
        };
        let mut consts = Vec::new();
        for (n, w) in vars.iter() {
            match self.sv_value(st, n, *w) {
                Some(v) => consts.push((BV::new_const(self.ctx, n.as_str(), *w), self.zterm(&v))),
                None => return false,
            }
        }
        let pairs: Vec<(&BV<'c>, &BV<'c>)> = consts.iter().map(|(a, b)| (a, b)).collect();
        let f = self.simp.simplify(ps.substitute(&pairs));
        if f.as_bool() == Some(true) {
            return true;
        }
        self.check(&st.pcon, &[f.not()]) == SatResult::Unsat
    }
}

/// `a ∧ b` of weakest preconditions: our own term when neither side is
/// a z3 formula, else simplified by z3 (cached).
pub(super) fn wp_and<'c>(
    ctx: &'c Context,
    sc: &SimpCache<'c>,
    a: &Cond<'c>,
    b: &Cond<'c>,
) -> Cond<'c> {
    wp_join(ctx, sc, true, a, b)
}

/// `a ∨ b`, as `wp_and`.
pub(super) fn wp_or<'c>(
    ctx: &'c Context,
    sc: &SimpCache<'c>,
    a: &Cond<'c>,
    b: &Cond<'c>,
) -> Cond<'c> {
    wp_join(ctx, sc, false, a, b)
}

/// `a ∧ b` (`conj`) or `a ∨ b`.
fn wp_join<'c>(
    ctx: &'c Context,
    sc: &SimpCache<'c>,
    conj: bool,
    a: &Cond<'c>,
    b: &Cond<'c>,
) -> Cond<'c> {
    let z3 = |x: &Bool<'c>, y: &Bool<'c>| {
        norm(if conj {
            and2(ctx, sc, x, y)
        } else {
            or2(ctx, sc, x, y)
        })
    };
    match (a, b) {
        (Cond::S(x), Cond::S(y)) => z3(x, y),
        (Cond::S(_), _) | (_, Cond::S(_)) if a.as_bool().is_none() && b.as_bool().is_none() => {
            z3(&a.bool(ctx), &b.bool(ctx))
        }
        _ => {
            let both = [a.clone(), b.clone()];
            wp_cap(
                ctx,
                sc,
                if conj {
                    Cond::all(&both)
                } else {
                    Cond::any(&both)
                },
            )
        }
    }
}

/// `wp ∨ (c ∧ w)` for the sides of a branch, as `wp_and`.
pub(super) fn wp_or_side<'c>(
    ctx: &'c Context,
    sc: &SimpCache<'c>,
    wp: &Cond<'c>,
    c: &Cond<'c>,
    w: &Cond<'c>,
) -> Cond<'c> {
    if w.as_bool() == Some(false) || c.as_bool() == Some(false) || wp.as_bool() == Some(true) {
        return wp.clone();
    }
    if [wp, c, w].iter().any(|x| matches!(x, Cond::S(_))) {
        return norm(or_side(ctx, sc, &wp.bool(ctx), &c.bool(ctx), &w.bool(ctx)));
    }
    let side = Cond::all(&[c.clone(), w.clone()]);
    wp_cap(ctx, sc, Cond::any(&[wp.clone(), side]))
}

/// A term past `Z3_ABOVE` nodes becomes a simplified z3 term.
pub(super) fn wp_cap<'c>(ctx: &'c Context, sc: &SimpCache<'c>, c: Cond<'c>) -> Cond<'c> {
    match &c {
        Cond::T(t) if t.size() > Z3_ABOVE => norm(sc.simplify(t.to_bool(ctx))),
        _ => c,
    }
}

/// A z3 formula as a condition (a constant when it is one).
fn norm(b: Bool<'_>) -> Cond<'_> {
    match b.as_bool() {
        Some(v) => Cond::C(v),
        None => Cond::S(b),
    }
}

/// What ends a walk over a formula's state variables with false.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SvarStop {
    /// a quantifier (its bound variables cannot be substituted)
    AtQuantifier,
    /// a heap object's name (`h!`)
    AtHeap,
}

/// Collect the state variables (`r!`, `m!`) of `f`, each shared term once;
/// false when the walk meets what `stop` names.
fn walk_svars<'c>(
    f: &Dynamic<'c>,
    seen: &mut HashSet<Dynamic<'c>>,
    out: &mut Vec<(String, u32)>,
    stop: SvarStop,
) -> bool {
    if !seen.insert(f.clone()) {
        return true;
    }
    if !f.is_app() {
        return stop != SvarStop::AtQuantifier;
    }
    if f.is_const() {
        let n = f.decl().name();
        if n.starts_with("r!") || n.starts_with("m!") {
            let w = f.as_bv().map(|b| b.get_size()).unwrap_or(0);
            out.push((n, w));
        } else if n.starts_with("h!") && stop == SvarStop::AtHeap {
            return false;
        }
        return true;
    }
    f.children()
        .iter()
        .all(|ch| walk_svars(ch, seen, out, stop))
}

/// Distinct terms a summary may grow to by merging.
pub(super) const MAX_SUMMARY_TERMS: usize = 4096;

/// Whether `c` has at most `limit` terms (a z3 formula's distinct terms).
fn cond_within(c: &Cond<'_>, limit: usize) -> bool {
    match c {
        Cond::C(_) => true,
        Cond::T(t) => t.size() as usize <= limit,
        Cond::S(b) => dag_within(b, limit),
    }
}

/// Whether `f` has at most `limit` distinct terms (walks at most that many).
pub(super) fn dag_within(f: &Bool<'_>, limit: usize) -> bool {
    let mut seen = HashSet::new();
    let mut todo: Vec<Dynamic<'_>> = vec![Dynamic::from_ast(f)];
    while let Some(t) = todo.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        if seen.len() > limit {
            return false;
        }
        if t.is_app() {
            todo.extend(t.children());
        }
    }
    true
}

/// Simplified weakest preconditions by term.  z3 builds a fresh rewriter
/// for every `simplify` call (≈8 µs even on a tiny formula), and the same
/// segment formulas come back in every interleaving of the other
/// threads: terms are hash-consed, so a lookup is a pointer comparison.
#[derive(Default)]
pub(super) struct SimpCache<'c>(std::cell::RefCell<HashMap<Bool<'c>, Bool<'c>>>);

/// Entries kept before the cache is cleared (bounds memory).
const SIMP_MAX: usize = 1 << 16;

impl<'c> SimpCache<'c> {
    pub(super) fn simplify(&self, b: Bool<'c>) -> Bool<'c> {
        if b.as_bool().is_some() {
            return b;
        }
        if let Some(r) = self.0.borrow().get(&b) {
            return r.clone();
        }
        let r = b.simplify();
        let mut m = self.0.borrow_mut();
        if m.len() >= SIMP_MAX {
            m.clear();
        }
        m.insert(b, r.clone());
        r
    }
}

/// `a ∧ b`, simplified, without a z3 call when one side is a constant.
pub(super) fn and2<'c>(
    ctx: &'c Context,
    sc: &SimpCache<'c>,
    a: &Bool<'c>,
    b: &Bool<'c>,
) -> Bool<'c> {
    match (a.as_bool(), b.as_bool()) {
        (Some(false), _) | (_, Some(false)) => Bool::from_bool(ctx, false),
        (Some(true), _) => b.clone(),
        (_, Some(true)) => a.clone(),
        _ if a == b => a.clone(),
        _ => sc.simplify(Bool::and(ctx, &[a, b])),
    }
}

/// `a ∨ b`, simplified, without a z3 call when one side is a constant.
pub(super) fn or2<'c>(
    ctx: &'c Context,
    sc: &SimpCache<'c>,
    a: &Bool<'c>,
    b: &Bool<'c>,
) -> Bool<'c> {
    match (a.as_bool(), b.as_bool()) {
        (Some(true), _) | (_, Some(true)) => Bool::from_bool(ctx, true),
        (Some(false), _) => b.clone(),
        (_, Some(false)) => a.clone(),
        _ if a == b => a.clone(),
        _ => sc.simplify(Bool::or(ctx, &[a, b])),
    }
}

/// `wp ∨ (c ∧ w)`, simplified, for the sides of a branch: no z3 call when
/// the side contributes nothing.
pub(super) fn or_side<'c>(
    ctx: &'c Context,
    sc: &SimpCache<'c>,
    wp: &Bool<'c>,
    c: &Bool<'c>,
    w: &Bool<'c>,
) -> Bool<'c> {
    if w.as_bool() == Some(false) || c.as_bool() == Some(false) {
        return wp.clone();
    }
    if wp.as_bool() == Some(true) {
        return wp.clone();
    }
    let side = Bool::and(ctx, &[c, w]);
    match wp.as_bool() {
        Some(false) => sc.simplify(side),
        _ => sc.simplify(Bool::or(ctx, &[wp, &side])),
    }
}
