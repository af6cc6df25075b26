//! Inline relations: `.decl r(...) inline` is a view, not a table.
//!
//! Each positive use `r(t1, ..., tn)` in a rule body is replaced by the body
//! of each rule defining `r` (one copy of the using rule per defining rule),
//! with `r`'s head variables bound to the arguments of the use and its other
//! variables renamed apart. A relation whose rows would be many (mustHb on a
//! real program: ten million pairs) but that is only ever tested with both
//! ends bound, or joined on one bound end, then costs nothing to store.
//!
//! Rules for the use:
//! * the defining rules' heads are variables (one listed twice unifies the
//!   use's arguments there); no facts; not `.input`;
//! * no negated use (negating a view with existential variables is not a
//!   conjunction of negations: materialise the pairs you test in a relation
//!   of your own and negate that);
//! * no recursion through inline relations;
//! * an inline relation that is also `.output` is kept as a table (a program
//!   that wants its rows, such as `concord query`, gets them).
//!
//! The inserted literals are reordered greedily: atoms whose arguments are
//! all bound (pure tests) first, then the first in the text that shares a
//! variable bound before it (the engines join left to right, so a view used
//! with its second column bound must not start by scanning its first atom).

use crate::ast::{Atom, Literal, Program, Rule, Term};
use crate::error::{Error, ErrorKind, Errors};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Expands every inline relation that is not an output. Returns the
/// program without their declarations and rules.
pub fn expand(mut p: Program) -> Result<Program, Errors> {
    let outputs: HashSet<&str> = p.outputs.iter().map(|o| o.rel.as_str()).collect();
    let inline: HashSet<String> = p
        .decls
        .iter()
        .filter(|d| d.inline && !outputs.contains(d.name.as_str()))
        .map(|d| d.name.clone())
        .collect();
    if inline.is_empty() {
        return Ok(p);
    }
    let mut errs = Vec::new();
    for io in &p.inputs {
        if inline.contains(&io.rel) {
            errs.push(Error::new(
                ErrorKind::Io,
                Some(io.span.clone()),
                format!("inline relation `{}` cannot be `.input`", io.rel),
            ));
        }
    }
    for f in &p.facts {
        if inline.contains(&f.rel) {
            errs.push(Error::new(
                ErrorKind::Declaration,
                Some(f.span.clone()),
                format!(
                    "inline relation `{}` cannot have facts (declare it without `inline`)",
                    f.rel
                ),
            ));
        }
    }
    let mut defs: HashMap<String, Vec<Rule>> = HashMap::new();
    let mut rest = Vec::new();
    for r in std::mem::take(&mut p.rules) {
        if inline.contains(&r.head.rel) {
            let ok = r.head.args.iter().all(|t| matches!(t, Term::Var(_)));
            if !ok {
                errs.push(
                    Error::new(
                        ErrorKind::Declaration,
                        Some(r.span.clone()),
                        format!(
                            "the head of a rule for inline relation `{}` must list variables",
                            r.head.rel
                        ),
                    )
                    .with_rule(&r),
                );
            }
            defs.entry(r.head.rel.clone()).or_default().push(r);
        } else {
            rest.push(r);
        }
    }
    for (name, rules) in &defs {
        if let Some(cycle) = cycle_through(name, &defs) {
            errs.push(
                Error::new(
                    ErrorKind::Declaration,
                    Some(rules[0].span.clone()),
                    format!("inline relations cannot be recursive: {cycle}"),
                )
                .with_rule(&rules[0]),
            );
        }
    }
    for r in rest.iter().chain(defs.values().flatten()) {
        for l in &r.body {
            if let Literal::Neg(a) = l {
                if inline.contains(&a.rel) {
                    errs.push(
                        Error::new(
                            ErrorKind::Stratification,
                            Some(a.span.clone()),
                            format!(
                                "negation of inline relation `{}`: store the pairs you test in a \
                                 relation of your own (`ask(X, Y) :- ..., {}(X, Y).`) and negate that",
                                a.rel, a.rel
                            ),
                        )
                        .with_rule(r),
                    );
                }
            }
        }
    }
    if !errs.is_empty() {
        return Err(Errors(errs));
    }
    let mut fresh = 0usize;
    let mut out = Vec::new();
    for r in rest {
        expand_rule(r, &defs, &mut fresh, &mut out);
    }
    p.rules = out;
    p.decls.retain(|d| !inline.contains(&d.name));
    Ok(p)
}

/// `a -> b -> a` if `start` reaches itself through inline bodies.
fn cycle_through(start: &str, defs: &HashMap<String, Vec<Rule>>) -> Option<String> {
    fn walk(
        at: &str,
        start: &str,
        defs: &HashMap<String, Vec<Rule>>,
        path: &mut Vec<String>,
        seen: &mut HashSet<String>,
    ) -> bool {
        for r in defs.get(at).into_iter().flatten() {
            for l in &r.body {
                let (Literal::Pos(a) | Literal::Neg(a)) = l else {
                    continue;
                };
                if a.rel == start {
                    path.push(a.rel.clone());
                    return true;
                }
                if defs.contains_key(&a.rel) && seen.insert(a.rel.clone()) {
                    path.push(a.rel.clone());
                    if walk(&a.rel, start, defs, path, seen) {
                        return true;
                    }
                    path.pop();
                }
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    let mut seen = HashSet::new();
    walk(start, start, defs, &mut path, &mut seen).then(|| path.join(" -> "))
}

fn vars_of(r: &Rule) -> BTreeSet<String> {
    let mut vs = BTreeSet::new();
    let mut add = |t: &Term| {
        if let Term::Var(v) = t {
            vs.insert(v.clone());
        }
    };
    r.head.args.iter().for_each(&mut add);
    for l in &r.body {
        match l {
            Literal::Pos(a) | Literal::Neg(a) => a.args.iter().for_each(&mut add),
            Literal::Cmp { lhs, rhs, .. } => {
                add(lhs);
                add(rhs);
            }
        }
    }
    vs
}

/// Expands the first inline atom of `r` (recursively, until none is left)
/// and pushes the resulting rules to `out`.
fn expand_rule(r: Rule, defs: &HashMap<String, Vec<Rule>>, fresh: &mut usize, out: &mut Vec<Rule>) {
    let Some(pos) = r
        .body
        .iter()
        .position(|l| matches!(l, Literal::Pos(a) if defs.contains_key(&a.rel)))
    else {
        out.push(r);
        return;
    };
    let Literal::Pos(used) = &r.body[pos] else {
        unreachable!()
    };
    let taken = vars_of(&r);
    let bound: HashSet<String> = r.body[..pos]
        .iter()
        .filter_map(|l| match l {
            Literal::Pos(a) => Some(a),
            _ => None,
        })
        .flat_map(|a| a.args.iter())
        .filter_map(|t| match t {
            Term::Var(v) => Some(v.clone()),
            _ => None,
        })
        .collect();
    for def in &defs[&used.rel] {
        *fresh += 1;
        let copy = *fresh;
        // head variable -> the use's argument; other variables -> fresh names.
        // A head variable listed twice (`v(A, B, A)`) unifies the use's
        // arguments at those places: the second one is renamed to the first
        // in this copy of the using rule (two different constants: no copy).
        let mut subst: HashMap<String, Term> = HashMap::new();
        let mut unify: HashMap<String, Term> = HashMap::new();
        let mut clash = false;
        for (h, arg) in def.head.args.iter().zip(&used.args) {
            let Term::Var(h) = h else { unreachable!() };
            let t = match arg {
                Term::Wildcard => Term::Var(fresh_name(copy, h, &taken)),
                other => other.clone(),
            };
            match subst.get(h).map(|first| resolve(first, &unify)) {
                None => {
                    subst.insert(h.clone(), t);
                }
                Some(first) => match (resolve(&t, &unify), first) {
                    (a, b) if a == b => {}
                    (Term::Var(v), b) if !matches!(arg, Term::Wildcard) => {
                        unify.insert(v, b);
                    }
                    (Term::Var(_), _) => {}
                    (c, Term::Var(v)) => {
                        unify.insert(v, c);
                    }
                    _ => clash = true,
                },
            }
        }
        if clash {
            continue;
        }
        let mut subst: HashMap<String, Term> = subst
            .into_iter()
            .map(|(h, t)| (h, resolve(&t, &unify)))
            .collect();
        let mut rename = |t: &Term| -> Term {
            match t {
                Term::Var(v) => subst
                    .entry(v.clone())
                    .or_insert_with(|| Term::Var(fresh_name(copy, v, &taken)))
                    .clone(),
                other => other.clone(),
            }
        };
        let inserted: Vec<Literal> = def
            .body
            .iter()
            .map(|l| match l {
                Literal::Pos(a) => Literal::Pos(rename_atom(a, &mut rename)),
                Literal::Neg(a) => Literal::Neg(rename_atom(a, &mut rename)),
                Literal::Cmp { lhs, op, rhs, span } => Literal::Cmp {
                    lhs: rename(lhs),
                    op: *op,
                    rhs: rename(rhs),
                    span: span.clone(),
                },
            })
            .collect();
        let unified = |l: &Literal| unify_literal(l, &unify);
        let bound: HashSet<String> = bound
            .iter()
            .map(|v| match resolve(&Term::Var(v.clone()), &unify) {
                Term::Var(u) => u,
                _ => v.clone(),
            })
            .collect();
        let mut body: Vec<Literal> = r.body[..pos].iter().map(unified).collect();
        body.extend(join_order(inserted, &bound));
        body.extend(r.body[pos + 1..].iter().map(unified));
        let head = unify_atom(&r.head, &unify);
        expand_rule(
            Rule {
                head,
                body,
                span: r.span.clone(),
            },
            defs,
            fresh,
            out,
        );
    }
}

/// `t` with the unifications made so far applied (they form chains).
fn resolve(t: &Term, unify: &HashMap<String, Term>) -> Term {
    let mut t = t.clone();
    while let Term::Var(v) = &t {
        match unify.get(v) {
            Some(next) if next != &t => t = next.clone(),
            _ => break,
        }
    }
    t
}

fn unify_atom(a: &Atom, unify: &HashMap<String, Term>) -> Atom {
    rename_atom(a, &mut |t: &Term| resolve(t, unify))
}

fn unify_literal(l: &Literal, unify: &HashMap<String, Term>) -> Literal {
    match l {
        Literal::Pos(a) => Literal::Pos(unify_atom(a, unify)),
        Literal::Neg(a) => Literal::Neg(unify_atom(a, unify)),
        Literal::Cmp { lhs, op, rhs, span } => Literal::Cmp {
            lhs: resolve(lhs, unify),
            op: *op,
            rhs: resolve(rhs, unify),
            span: span.clone(),
        },
    }
}

fn rename_atom(a: &Atom, rename: &mut impl FnMut(&Term) -> Term) -> Atom {
    Atom {
        rel: a.rel.clone(),
        args: a.args.iter().map(&mut *rename).collect(),
        span: a.span.clone(),
    }
}

/// A variable name that no variable of the using rule has: `Inl<copy><Name>`.
fn fresh_name(copy: usize, base: &str, taken: &BTreeSet<String>) -> String {
    let mut name = format!("Inl{copy}{}", base.trim_start_matches('_'));
    while taken.contains(&name) {
        name.push('x');
    }
    name
}

/// Orders the positive atoms of an inserted body: an atom whose arguments
/// are all bound first, else the first (in the text) that shares a
/// variable bound before it, else the next in the text; negations and
/// comparisons keep
/// their relative order after the atoms (the lowering places them right
/// after the atom that binds their last variable anyway).
fn join_order(lits: Vec<Literal>, bound: &HashSet<String>) -> Vec<Literal> {
    let mut bound = bound.clone();
    let (mut atoms, others): (Vec<Literal>, Vec<Literal>) =
        lits.into_iter().partition(|l| matches!(l, Literal::Pos(_)));
    let mut ordered = Vec::new();
    while !atoms.is_empty() {
        let shares = |l: &Literal| match l {
            Literal::Pos(a) => a.args.iter().any(|t| {
                matches!(t, Term::Var(v) if bound.contains(v)) || matches!(t, Term::Const(_))
            }),
            _ => false,
        };
        // an atom whose every argument is bound is a pure test: it can
        // only shrink the join, so it goes first (Soufflé's "all-bound")
        let all_bound = |l: &Literal| match l {
            Literal::Pos(a) => a
                .args
                .iter()
                .all(|t| !matches!(t, Term::Var(v) if !bound.contains(v))),
            _ => false,
        };
        let i = atoms
            .iter()
            .position(all_bound)
            .or_else(|| atoms.iter().position(shares))
            .unwrap_or(0);
        let l = atoms.remove(i);
        if let Literal::Pos(a) = &l {
            for t in &a.args {
                if let Term::Var(v) = t {
                    bound.insert(v.clone());
                }
            }
        }
        ordered.push(l);
    }
    ordered.extend(others);
    ordered
}

#[cfg(test)]
mod tests {
    use crate::parse_sources;

    fn expanded(src: &str) -> Vec<String> {
        let p = super::expand(parse_sources(&[("t.dl", src)]).unwrap()).unwrap();
        p.rules.iter().map(|r| r.to_string()).collect()
    }

    #[test]
    fn each_defining_rule_gives_one_copy_with_fresh_existentials() {
        let rules = expanded(
            ".decl e(a: unsigned, b: unsigned)\n.input e\n\
             .decl v(a: unsigned, b: unsigned) inline\n\
             v(X, Y) :- e(X, Y).\nv(X, Y) :- e(X, Z), e(Z, Y).\n\
             .decl q(a: unsigned)\n.input q\n\
             .decl out(a: unsigned, b: unsigned)\n.output out\n\
             out(A, B) :- q(A), v(A, B).\n",
        );
        assert_eq!(
            rules,
            vec![
                "out(A, B) :- q(A), e(A, B).",
                "out(A, B) :- q(A), e(A, Inl2Z), e(Inl2Z, B).",
            ]
        );
    }

    #[test]
    fn an_atom_with_every_argument_bound_is_tested_before_any_join() {
        // used with B bound, the view first binds W through e(W, B); s(W)
        // is then a pure test and must come before the scan f(W, Z), which
        // comes first in the text among the atoms sharing W
        let rules = expanded(
            ".decl e(a: unsigned, b: unsigned)\n.input e\n\
             .decl f(a: unsigned, b: unsigned)\n.input f\n\
             .decl s(a: unsigned)\n.input s\n\
             .decl v(a: unsigned, b: unsigned) inline\n\
             v(Z, B) :- f(W, Z), s(W), e(W, B).\n\
             .decl q(a: unsigned)\n.input q\n\
             .decl out(a: unsigned, b: unsigned)\n.output out\n\
             out(A, B) :- q(B), v(A, B).\n",
        );
        assert_eq!(
            rules,
            vec!["out(A, B) :- q(B), e(Inl1W, B), s(Inl1W), f(Inl1W, A)."]
        );
    }

    #[test]
    fn a_use_bound_on_its_second_column_starts_from_that_end() {
        let rules = expanded(
            ".decl e(a: unsigned, b: unsigned)\n.input e\n\
             .decl v(a: unsigned, b: unsigned) inline\n\
             v(X, Y) :- e(X, Z), e(Z, Y).\n\
             .decl q(a: unsigned)\n.input q\n\
             .decl out(a: unsigned, b: unsigned)\n.output out\n\
             out(A, B) :- q(B), v(A, B), A != 3.\n",
        );
        assert_eq!(
            rules,
            vec!["out(A, B) :- q(B), e(Inl1Z, B), e(A, Inl1Z), A != 3."]
        );
    }

    #[test]
    fn a_head_variable_listed_twice_unifies_the_use_arguments() {
        let rules = expanded(
            ".decl e(a: unsigned, b: unsigned)\n.input e\n\
             .decl v(a: unsigned, b: unsigned, c: unsigned) inline\n\
             v(X, Y, X) :- e(X, Y).\n\
             .decl q(a: unsigned)\n.input q\n\
             .decl out(a: unsigned, b: unsigned, c: unsigned)\n.output out\n\
             out(A, B, C) :- q(A), v(A, B, C), e(C, B).\n\
             .decl one(a: unsigned)\n.output one\n\
             one(B) :- v(1, B, 2).\n\
             .decl two(a: unsigned)\n.output two\n\
             two(B) :- v(A, B, 2), q(A).\n",
        );
        assert_eq!(
            rules,
            vec![
                "out(A, B, A) :- q(A), e(A, B), e(A, B).",
                // two different constants: the copy can never hold
                "two(B) :- e(2, B), q(2).",
            ]
        );
    }

    #[test]
    fn an_inline_output_stays_a_table() {
        let rules = expanded(
            ".decl e(a: unsigned, b: unsigned)\n.input e\n\
             .decl v(a: unsigned, b: unsigned) inline\n.output v\n\
             v(X, Y) :- e(X, Y).\n",
        );
        assert_eq!(rules, vec!["v(X, Y) :- e(X, Y)."]);
    }

    #[test]
    fn negated_and_recursive_inline_relations_are_refused() {
        let neg = super::expand(
            parse_sources(&[(
                "t.dl",
                ".decl e(a: unsigned)\n.input e\n.decl v(a: unsigned) inline\nv(X) :- e(X).\n\
                 .decl o(a: unsigned)\n.output o\no(X) :- e(X), !v(X).\n",
            )])
            .unwrap(),
        )
        .unwrap_err();
        assert!(
            neg.to_string().contains("negation of inline relation `v`"),
            "{neg}"
        );
        let rec = super::expand(
            parse_sources(&[(
                "t.dl",
                ".decl e(a: unsigned)\n.input e\n.decl v(a: unsigned) inline\nv(X) :- e(X).\n\
                 v(X) :- v(X), e(X).\n.decl o(a: unsigned)\n.output o\no(X) :- v(X).\n",
            )])
            .unwrap(),
        )
        .unwrap_err();
        assert!(
            rec.to_string().contains("cannot be recursive: v -> v"),
            "{rec}"
        );
    }
}
