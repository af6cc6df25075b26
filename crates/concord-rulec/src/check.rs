//! Semantic checks (declarations, arity, binding, stratification) and strata.

use crate::ast::*;
use crate::error::{Error, ErrorKind, Errors};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// How a relation is exchanged with the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RelKind {
    /// `.input`: a field of the generated `Input`.
    Input,
    /// `.output`: a field of the generated `Output`.
    Output,
    /// Neither: computed but not returned.
    Internal,
}

/// A declared relation after checking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub name: String,
    pub columns: Vec<(String, ColType)>,
    pub kind: RelKind,
    /// Stratum number (0 = inputs and relations without negative dependencies).
    pub stratum: usize,
    pub span: Span,
}

impl Relation {
    pub fn arity(&self) -> usize {
        self.columns.len()
    }
}

/// A program that passed every check; the code generators take this.
#[derive(Debug, Clone)]
pub struct CheckedProgram {
    pub program: Program,
    /// Declared relations, in declaration order.
    pub relations: Vec<Relation>,
    /// Relation names per stratum, lowest first; evaluating the strata in
    /// this order respects every negation.
    pub strata: Vec<Vec<String>>,
}

impl CheckedProgram {
    pub fn relation(&self, name: &str) -> Option<&Relation> {
        self.relations.iter().find(|r| r.name == name)
    }
    pub fn inputs(&self) -> impl Iterator<Item = &Relation> {
        self.relations.iter().filter(|r| r.kind == RelKind::Input)
    }
    pub fn outputs(&self) -> impl Iterator<Item = &Relation> {
        self.relations.iter().filter(|r| r.kind == RelKind::Output)
    }
}

fn vars_of<'a>(terms: impl IntoIterator<Item = &'a Term>) -> Vec<&'a str> {
    terms
        .into_iter()
        .filter_map(|t| match t {
            Term::Var(v) => Some(v.as_str()),
            _ => None,
        })
        .collect()
}

/// Runs every check and computes strata. Reports all problems found in one
/// phase (declarations, then rules, then stratification).
pub fn check(program: Program) -> Result<CheckedProgram, Errors> {
    let program = crate::inline::expand(program)?;
    let mut errs = Vec::new();

    // ---- declarations
    let mut decls: HashMap<&str, &Decl> = HashMap::new();
    for d in &program.decls {
        if let Some(prev) = decls.get(d.name.as_str()) {
            errs.push(Error::new(
                ErrorKind::Declaration,
                Some(d.span.clone()),
                format!(
                    "relation `{}` is declared twice (first declaration at {})",
                    d.name, prev.span
                ),
            ));
            continue;
        }
        if d.columns.is_empty() {
            errs.push(Error::new(
                ErrorKind::Declaration,
                Some(d.span.clone()),
                format!(
                    "relation `{}` has no columns; nullary relations are not supported",
                    d.name
                ),
            ));
        }
        if d.name.starts_with("__") {
            errs.push(Error::new(
                ErrorKind::Naming,
                Some(d.span.clone()),
                format!(
                    "relation name `{}` starts with `__`, which is reserved for the compiler",
                    d.name
                ),
            ));
        }
        let mut cols = BTreeSet::new();
        for (c, _) in &d.columns {
            if !cols.insert(c) {
                errs.push(Error::new(
                    ErrorKind::Declaration,
                    Some(d.span.clone()),
                    format!("relation `{}` has two columns named `{c}`", d.name),
                ));
            }
        }
        decls.insert(&d.name, d);
    }

    // ---- IO directives
    let mut kinds: HashMap<&str, RelKind> = HashMap::new();
    for (list, kind, word) in [
        (&program.inputs, RelKind::Input, "input"),
        (&program.outputs, RelKind::Output, "output"),
    ] {
        for io in list {
            if !decls.contains_key(io.rel.as_str()) {
                errs.push(Error::new(
                    ErrorKind::Undeclared,
                    Some(io.span.clone()),
                    format!(
                        "`.{word} {}` names a relation that is not declared (add `.decl {}(...)`)",
                        io.rel, io.rel
                    ),
                ));
                continue;
            }
            match kinds.get(io.rel.as_str()) {
                Some(k) if *k != kind => errs.push(Error::new(
                    ErrorKind::Io,
                    Some(io.span.clone()),
                    format!("relation `{}` is both `.input` and `.output`; declare a copy relation for the output", io.rel),
                )),
                _ => {
                    kinds.insert(&io.rel, kind);
                }
            }
        }
    }
    if !errs.is_empty() {
        return Err(Errors(errs));
    }

    // ---- atoms: declared + arity
    let check_atom = |a: &Atom, rule: Option<&Rule>, errs: &mut Vec<Error>| {
        let e = match decls.get(a.rel.as_str()) {
            None => Some(Error::new(
                ErrorKind::Undeclared,
                Some(a.span.clone()),
                format!("relation `{}` is not declared", a.rel),
            )),
            Some(d) if d.arity() != a.args.len() => Some(Error::new(
                ErrorKind::Arity,
                Some(a.span.clone()),
                format!(
                    "`{}` has {} argument(s) but relation `{}` is declared with {} column(s) at {}",
                    a,
                    a.args.len(),
                    a.rel,
                    d.arity(),
                    d.span
                ),
            )),
            _ => None,
        };
        if let Some(e) = e {
            errs.push(match rule {
                Some(r) => e.with_rule(r),
                None => e,
            });
        }
    };

    for f in &program.facts {
        let a = Atom {
            rel: f.rel.clone(),
            args: f.values.iter().map(|v| Term::Const(*v)).collect(),
            span: f.span.clone(),
        };
        check_atom(&a, None, &mut errs);
    }
    for r in &program.rules {
        let before = errs.len();
        check_atom(&r.head, Some(r), &mut errs);
        for l in &r.body {
            match l {
                Literal::Pos(a) | Literal::Neg(a) => check_atom(a, Some(r), &mut errs),
                Literal::Cmp { .. } => {}
            }
        }
        if errs.len() > before {
            continue;
        }
        if kinds.get(r.head.rel.as_str()) == Some(&RelKind::Input) {
            errs.push(
                Error::new(
                    ErrorKind::Io,
                    Some(r.span.clone()),
                    format!("rule derives `{}`, which is an `.input` relation; inputs are only filled by the caller (or facts)", r.head.rel),
                )
                .with_rule(r),
            );
        }
        // ---- binding
        let bound: BTreeSet<&str> = r
            .body
            .iter()
            .filter_map(|l| match l {
                Literal::Pos(a) => Some(vars_of(&a.args)),
                _ => None,
            })
            .flatten()
            .collect();
        let unbound = |v: &str, place: &str, span: &Span| {
            Error::new(
                ErrorKind::Unbound,
                Some(span.clone()),
                format!("variable `{v}` {place} is not bound by any positive body atom"),
            )
            .with_rule(r)
        };
        let mut seen = BTreeSet::new();
        for v in vars_of(&r.head.args) {
            if !bound.contains(v) && seen.insert(v) {
                errs.push(unbound(v, "in the head", &r.head.span));
            }
        }
        if r.head.args.contains(&Term::Wildcard) {
            errs.push(
                Error::new(
                    ErrorKind::Unbound,
                    Some(r.head.span.clone()),
                    "`_` cannot appear in a rule head",
                )
                .with_rule(r),
            );
        }
        for l in &r.body {
            match l {
                Literal::Neg(a) => {
                    for v in vars_of(&a.args) {
                        if !bound.contains(v) && seen.insert(v) {
                            errs.push(unbound(v, &format!("in negated atom `!{a}`"), &a.span));
                        }
                    }
                }
                Literal::Cmp { lhs, rhs, span, op } => {
                    for t in [lhs, rhs] {
                        match t {
                            Term::Var(v) if !bound.contains(v.as_str()) && seen.insert(v) => errs
                                .push(unbound(
                                    v,
                                    &format!(
                                        "in comparison `{lhs} {} {rhs}` (comparisons never bind)",
                                        op.symbol()
                                    ),
                                    span,
                                )),
                            Term::Wildcard => errs.push(
                                Error::new(
                                    ErrorKind::Unbound,
                                    Some(span.clone()),
                                    "`_` cannot appear in a comparison",
                                )
                                .with_rule(r),
                            ),
                            _ => {}
                        }
                    }
                }
                Literal::Pos(_) => {}
            }
        }
    }
    if !errs.is_empty() {
        return Err(Errors(errs));
    }

    // ---- stratification
    let names: Vec<&str> = program.decls.iter().map(|d| d.name.as_str()).collect();
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    // edges[head] = (body relation, negative?, rule index)
    let mut edges: Vec<Vec<(usize, bool, usize)>> = vec![Vec::new(); names.len()];
    for (ri, r) in program.rules.iter().enumerate() {
        let h = index[r.head.rel.as_str()];
        for l in &r.body {
            match l {
                Literal::Pos(a) => edges[h].push((index[a.rel.as_str()], false, ri)),
                Literal::Neg(a) => edges[h].push((index[a.rel.as_str()], true, ri)),
                Literal::Cmp { .. } => {}
            }
        }
    }
    let comp = tarjan(names.len(), &edges);
    let mut reported = BTreeSet::new();
    for (h, es) in edges.iter().enumerate() {
        for &(b, neg, ri) in es {
            if neg && comp[h] == comp[b] && reported.insert((h, b)) {
                let cycle = cycle_through(h, b, &edges, &comp, &names);
                let r = &program.rules[ri];
                errs.push(
                    Error::new(
                        ErrorKind::Stratification,
                        Some(r.span.clone()),
                        format!(
                            "negation of `{}` inside a recursive cycle, the program is not stratifiable: {cycle}",
                            names[b]
                        ),
                    )
                    .with_rule(r),
                );
            }
        }
    }
    if !errs.is_empty() {
        return Err(Errors(errs));
    }

    // Components come out of Tarjan dependencies-first; strata by longest
    // path counting negative edges.
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut comp_stratum = vec![0usize; ncomp];
    for c in 0..ncomp {
        for (h, es) in edges.iter().enumerate() {
            if comp[h] != c {
                continue;
            }
            for &(b, neg, _) in es {
                if comp[b] != c {
                    let s = comp_stratum[comp[b]] + usize::from(neg);
                    if s > comp_stratum[c] {
                        comp_stratum[c] = s;
                    }
                }
            }
        }
    }
    let mut strata: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut relations = Vec::new();
    for (i, d) in program.decls.iter().enumerate() {
        let stratum = comp_stratum[comp[i]];
        strata.entry(stratum).or_default().push(d.name.clone());
        relations.push(Relation {
            name: d.name.clone(),
            columns: d.columns.clone(),
            kind: kinds
                .get(d.name.as_str())
                .copied()
                .unwrap_or(RelKind::Internal),
            stratum,
            span: d.span.clone(),
        });
    }
    let checked = CheckedProgram {
        program,
        relations,
        strata: strata.into_values().collect(),
    };
    // Names must map to distinct Rust identifiers.
    crate::lower::lower(&checked).map_err(Errors::from)?;
    Ok(checked)
}

/// Tarjan's SCC algorithm (iterative). Returns the component id of every
/// node; ids are assigned so that a component's dependencies have smaller ids.
pub(crate) fn tarjan(n: usize, edges: &[Vec<(usize, bool, usize)>]) -> Vec<usize> {
    const UNSET: usize = usize::MAX;
    let mut idx = vec![UNSET; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut comp = vec![UNSET; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut ncomp = 0;
    for root in 0..n {
        if idx[root] != UNSET {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        idx[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut ei)) = call.last_mut() {
            if *ei < edges[v].len() {
                let w = edges[v][*ei].0;
                *ei += 1;
                if idx[w] == UNSET {
                    idx[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(idx[w]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == idx[v] {
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on[w] = false;
                        comp[w] = ncomp;
                        if w == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
    }
    comp
}

/// Shortest dependency cycle `head -> !neg -> ... -> head` inside one SCC.
fn cycle_through(
    head: usize,
    neg: usize,
    edges: &[Vec<(usize, bool, usize)>],
    comp: &[usize],
    names: &[&str],
) -> String {
    // BFS from `neg` back to `head` within the component.
    let mut prev: HashMap<usize, (usize, bool)> = HashMap::new();
    let mut q = VecDeque::from([neg]);
    let mut seen = BTreeSet::from([neg]);
    while let Some(v) = q.pop_front() {
        if v == head {
            break;
        }
        for &(w, n, _) in &edges[v] {
            if comp[w] == comp[head] && seen.insert(w) {
                prev.insert(w, (v, n));
                q.push_back(w);
            }
        }
    }
    // Walk back from `head` to `neg`; each step carries the sign of the
    // dependency edge that enters the node.
    let mut chain = Vec::new();
    let mut cur = head;
    while cur != neg {
        let (p, n) = prev[&cur];
        chain.push((cur, n));
        cur = p;
    }
    chain.reverse();
    let mut s = format!("{} -> !{}", names[head], names[neg]);
    for (node, n) in chain {
        s.push_str(" -> ");
        if n {
            s.push('!');
        }
        s.push_str(names[node]);
    }
    s
}
