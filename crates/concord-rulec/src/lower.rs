//! Lowering of checked rules to a normal form every engine accepts:
//!
//! * positive atoms have only distinct variables as arguments: `_` becomes a
//!   fresh `_wN`, a constant `c` becomes a fresh `kN` plus the condition
//!   `kN == c`, and a repeated variable becomes a fresh `eN` plus `eN == x`;
//! * negated atoms have only distinct, bound variables: any other negated atom
//!   `!r(x, _, 3)` is replaced by `!__negN_r(x)` with the auxiliary rule
//!   `__negN_r(x) :- r(x, _, 3).` (a projection, one stratum below);
//! * in a linearly recursive rule (one body atom of the head's recursive
//!   component) that atom comes first: semi-naive evaluation joins its new
//!   rows (the delta) with the rest, and the engines join left to right, so
//!   an atom of the rule's other relations in front would be scanned whole
//!   on every iteration (rf.dl's `rf_near_store`: 546 iterations over
//!   420,000 rows, 6 of rank 1's 14 s on the 5 KLoC synthetic program),
//!   and the other atoms follow it by shared variables (one sharing none
//!   would be scanned whole for each new row);
//! * body items are ordered so that each condition and negation comes right
//!   after the positive atom that binds its last variable;
//! * names are mapped to Rust identifiers (snake_case fields, CamelCase crepe
//!   structs, `v_`-prefixed variables).

use crate::ast::*;
use crate::check::{CheckedProgram, RelKind};
use crate::error::{Error, ErrorKind};
use std::collections::{BTreeMap, BTreeSet, HashMap};

#[derive(Debug, Clone)]
pub(crate) struct LRel {
    /// Name as in the rules (aux relations: `__negN_r`).
    pub name: String,
    /// snake_case Rust identifier (ascent relation, Input/Output field).
    pub snake: String,
    /// CamelCase Rust identifier (crepe struct).
    pub camel: String,
    pub arity: usize,
    pub kind: RelKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LArg {
    Var(String),
    Const(u32),
}

#[derive(Debug, Clone)]
pub(crate) enum LItem {
    Pos(usize, Vec<String>),
    Neg(usize, Vec<String>),
    Cmp(LArg, CmpOp, LArg),
}

#[derive(Debug, Clone)]
pub(crate) struct LRule {
    pub head: usize,
    pub head_args: Vec<LArg>,
    pub body: Vec<LItem>,
    /// Every variable of the lowered rule (user and fresh), sorted.
    pub vars: Vec<String>,
    /// The source rule, for a comment in the generated code.
    pub origin: String,
}

#[derive(Debug, Clone)]
pub(crate) struct Lowered {
    pub rels: Vec<LRel>,
    pub rules: Vec<LRule>,
    /// (relation index, row)
    pub facts: Vec<(usize, Vec<u32>)>,
}

const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen", "union",
];

/// Rust field / ascent relation name for a relation name.
pub(crate) fn snake(name: &str) -> String {
    let mut s = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
            if prev_lower && !s.ends_with('_') {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    // a suffix, not a trailing `_`: ascent derives field names from it and a
    // double underscore would trip the non_snake_case lint
    if RUST_KEYWORDS.contains(&s.as_str()) || s == "run" {
        s.push_str("_rel");
    }
    s
}

/// crepe struct name for a relation name.
pub(crate) fn camel(name: &str) -> String {
    let mut s = String::new();
    let mut up = true;
    for c in name.chars() {
        if c == '_' {
            up = true;
        } else if up {
            s.push(c.to_ascii_uppercase());
            up = false;
        } else {
            s.push(c);
        }
    }
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'R');
    }
    if matches!(
        s.as_str(),
        "Crepe"
            | "Self"
            | "Input"
            | "Output"
            | "Vec"
            | "Option"
            | "Some"
            | "None"
            | "Ok"
            | "Err"
            | "Result"
    ) {
        s.push_str("Rel");
    }
    s
}

/// Rust variable name for a rule variable.
fn var_name(v: &str) -> String {
    format!(
        "v_{}",
        snake(v).trim_end_matches("_rel").to_ascii_lowercase()
    )
}

pub(crate) fn lower(p: &CheckedProgram) -> Result<Lowered, Error> {
    let mut rels: Vec<LRel> = p
        .relations
        .iter()
        .map(|r| LRel {
            name: r.name.clone(),
            snake: snake(&r.name),
            camel: camel(&r.name),
            arity: r.arity(),
            kind: r.kind,
        })
        .collect();
    let mut index: HashMap<String, usize> = rels
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.clone(), i))
        .collect();

    let recursive = recursive_atoms(p, &index);
    let mut rules = Vec::new();
    let mut aux: BTreeMap<(String, Vec<Term>), usize> = BTreeMap::new();
    let mut pending: Vec<Rule> = p.program.rules.clone();
    let mut i = 0;
    while i < pending.len() {
        let r = pending[i].clone();
        i += 1;
        // user variable -> rust name (distinct even if two map alike)
        let mut names: BTreeMap<&str, String> = BTreeMap::new();
        let mut used: BTreeSet<String> = BTreeSet::new();
        let mut terms: Vec<&Term> = r.head.args.iter().collect();
        for l in &r.body {
            match l {
                Literal::Pos(a) | Literal::Neg(a) => terms.extend(a.args.iter()),
                Literal::Cmp { lhs, rhs, .. } => terms.extend([lhs, rhs]),
            }
        }
        let all_vars: Vec<&str> = terms
            .iter()
            .filter_map(|t| match t {
                Term::Var(v) => Some(v.as_str()),
                _ => None,
            })
            .collect();
        for v in all_vars {
            if names.contains_key(v) {
                continue;
            }
            let mut n = var_name(v);
            let mut k = 1;
            while used.contains(&n) {
                n = format!("{}_{k}", var_name(v));
                k += 1;
            }
            used.insert(n.clone());
            names.insert(v, n);
        }
        let arg = |t: &Term| match t {
            Term::Var(v) => LArg::Var(names[v.as_str()].clone()),
            Term::Const(c) => LArg::Const(*c),
            Term::Wildcard => unreachable!("checked: no wildcard outside positive/negative atoms"),
        };
        let mut fresh = 0usize;
        let mut positives: Vec<(usize, Vec<String>)> = Vec::new();
        let mut filters: Vec<LItem> = Vec::new();
        for l in &r.body {
            match l {
                Literal::Pos(a) => {
                    let mut seen = BTreeSet::new();
                    let mut vs = Vec::new();
                    for t in &a.args {
                        match t {
                            Term::Var(v) => {
                                let n = names[v.as_str()].clone();
                                if seen.insert(n.clone()) {
                                    vs.push(n);
                                } else {
                                    let e = format!("e{fresh}");
                                    fresh += 1;
                                    filters.push(LItem::Cmp(
                                        LArg::Var(e.clone()),
                                        CmpOp::Eq,
                                        LArg::Var(n),
                                    ));
                                    vs.push(e);
                                }
                            }
                            Term::Wildcard => {
                                vs.push(format!("_w{fresh}"));
                                fresh += 1;
                            }
                            Term::Const(c) => {
                                let k = format!("k{fresh}");
                                fresh += 1;
                                filters.push(LItem::Cmp(
                                    LArg::Var(k.clone()),
                                    CmpOp::Eq,
                                    LArg::Const(*c),
                                ));
                                vs.push(k);
                            }
                        }
                    }
                    positives.push((index[&a.rel], vs));
                }
                Literal::Neg(a) => {
                    let simple = {
                        let mut seen = BTreeSet::new();
                        a.args
                            .iter()
                            .all(|t| matches!(t, Term::Var(v) if seen.insert(v)))
                    };
                    if simple {
                        let vs = a
                            .args
                            .iter()
                            .map(|t| match arg(t) {
                                LArg::Var(v) => v,
                                LArg::Const(_) => unreachable!(),
                            })
                            .collect();
                        filters.push(LItem::Neg(index[&a.rel], vs));
                    } else {
                        // projection onto the distinct variables
                        let mut seen = BTreeSet::new();
                        let proj: Vec<&String> = a
                            .args
                            .iter()
                            .filter_map(|t| match t {
                                Term::Var(v) if seen.insert(v) => Some(v),
                                _ => None,
                            })
                            .collect();
                        if proj.is_empty() {
                            return Err(Error::new(
                                ErrorKind::Syntax,
                                Some(a.span.clone()),
                                format!(
                                    "negated atom `!{a}` has no variables; this is not supported"
                                ),
                            )
                            .with_rule(&r));
                        }
                        let key = (a.rel.clone(), a.args.clone());
                        let ai = match aux.get(&key) {
                            Some(i) => *i,
                            None => {
                                let n = aux.len();
                                let name = format!("__neg{n}_{}", a.rel);
                                let ri = rels.len();
                                rels.push(LRel {
                                    name: name.clone(),
                                    snake: format!("__neg{n}_{}", snake(&a.rel)),
                                    camel: format!("AuxNeg{n}{}", camel(&a.rel)),
                                    arity: proj.len(),
                                    kind: RelKind::Internal,
                                });
                                index.insert(name.clone(), ri);
                                aux.insert(key, ri);
                                pending.push(Rule {
                                    head: Atom {
                                        rel: name,
                                        args: proj
                                            .iter()
                                            .map(|v| Term::Var((*v).clone()))
                                            .collect(),
                                        span: a.span.clone(),
                                    },
                                    body: vec![Literal::Pos(a.clone())],
                                    span: a.span.clone(),
                                });
                                ri
                            }
                        };
                        filters.push(LItem::Neg(
                            ai,
                            proj.iter().map(|v| names[v.as_str()].clone()).collect(),
                        ));
                    }
                }
                Literal::Cmp { lhs, op, rhs, .. } => {
                    filters.push(LItem::Cmp(arg(lhs), *op, arg(rhs)))
                }
            }
        }
        // linear recursion: the recursive atom first (an auxiliary rule,
        // added below, is never recursive)
        if let Some(r_atoms) = recursive.get(i - 1) {
            if let [only] = r_atoms[..] {
                let at = positives_index(&r.body, only);
                if at > 0 {
                    let atom = positives.remove(at);
                    positives.insert(0, atom);
                    positives = connected_order(positives);
                }
            }
        }
        // order: each filter right after the positive atom binding its vars
        let mut body = Vec::new();
        let mut bound: BTreeSet<String> = BTreeSet::new();
        let mut vars: BTreeSet<String> = BTreeSet::new();
        let needs = |it: &LItem| -> Vec<String> {
            match it {
                LItem::Neg(_, vs) => vs.clone(),
                LItem::Cmp(a, _, b) => [a, b]
                    .iter()
                    .filter_map(|x| match x {
                        LArg::Var(v) => Some(v.clone()),
                        _ => None,
                    })
                    .collect(),
                LItem::Pos(..) => vec![],
            }
        };
        let mut rest: Vec<LItem> = filters;
        for (ri, vs) in positives {
            bound.extend(vs.iter().cloned());
            vars.extend(vs.iter().cloned());
            body.push(LItem::Pos(ri, vs));
            let (ready, later): (Vec<_>, Vec<_>) = rest
                .into_iter()
                .partition(|it| needs(it).iter().all(|v| bound.contains(v)));
            // conditions before negations: cheaper first
            let (c, n): (Vec<_>, Vec<_>) = ready
                .into_iter()
                .partition(|it| matches!(it, LItem::Cmp(..)));
            body.extend(c);
            body.extend(n);
            rest = later;
        }
        assert!(rest.is_empty(), "checked: every filter variable is bound");
        let head_args: Vec<LArg> = r.head.args.iter().map(arg).collect();
        rules.push(LRule {
            head: index[&r.head.rel],
            head_args,
            body,
            vars: vars.into_iter().collect(),
            origin: r.to_string(),
        });
    }

    // distinct Rust names
    let mut by_snake: HashMap<&str, &str> = HashMap::new();
    let mut by_camel: HashMap<&str, &str> = HashMap::new();
    for r in &rels {
        for (map, key, what) in [
            (&mut by_snake, r.snake.as_str(), "Rust field name"),
            (&mut by_camel, r.camel.as_str(), "crepe struct name"),
        ] {
            if let Some(other) = map.insert(key, &r.name) {
                return Err(Error::new(
                    ErrorKind::Naming,
                    p.relation(&r.name).map(|x| x.span.clone()),
                    format!(
                        "relations `{other}` and `{}` both map to the {what} `{key}`; rename one",
                        r.name
                    ),
                ));
            }
        }
    }

    let facts = p
        .program
        .facts
        .iter()
        .map(|f| (index[&f.rel], f.values.clone()))
        .collect();
    Ok(Lowered { rels, rules, facts })
}

/// For each rule of `p` (by index), the positions in its body of the
/// positive atoms whose relation lies in the head's recursive component.
fn recursive_atoms(p: &CheckedProgram, index: &HashMap<String, usize>) -> Vec<Vec<usize>> {
    let n = index.len();
    let mut edges: Vec<Vec<(usize, bool, usize)>> = vec![Vec::new(); n];
    for (ri, r) in p.program.rules.iter().enumerate() {
        for l in &r.body {
            if let Literal::Pos(a) | Literal::Neg(a) = l {
                edges[index[&r.head.rel]].push((index[&a.rel], false, ri));
            }
        }
    }
    let comp = crate::check::tarjan(n, &edges);
    p.program
        .rules
        .iter()
        .map(|r| {
            let h = index[&r.head.rel];
            r.body
                .iter()
                .enumerate()
                .filter_map(|(k, l)| match l {
                    Literal::Pos(a) if comp[index[&a.rel]] == comp[h] => Some(k),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// `atoms` with the first kept in front and the rest joined greedily: next
/// the first (in the text's order) whose variables are all bound (a pure
/// test), else the first sharing a bound variable, else the first left.
/// Once the recursive atom has moved to the front, the text's order may
/// start with an atom sharing nothing with it, which the engines (joining
/// left to right) would scan whole for every new row: pointsto.dl's
/// `pt_var(..) :- ir_alloc(I, V, O), ir_insn_func(I, F), pt_reach(C, F)`
/// scanned every allocation per new context.
fn connected_order(mut atoms: Vec<(usize, Vec<String>)>) -> Vec<(usize, Vec<String>)> {
    if atoms.len() < 3 {
        return atoms;
    }
    let mut rest = atoms.split_off(1);
    let mut bound: BTreeSet<String> = atoms[0].1.iter().cloned().collect();
    while !rest.is_empty() {
        let pick = rest
            .iter()
            .position(|(_, vs)| vs.iter().all(|v| bound.contains(v)))
            .or_else(|| {
                rest.iter()
                    .position(|(_, vs)| vs.iter().any(|v| bound.contains(v)))
            })
            .unwrap_or(0);
        let atom = rest.remove(pick);
        bound.extend(atom.1.iter().cloned());
        atoms.push(atom);
    }
    atoms
}

/// The index among the positive atoms of `body` of the literal at `at`.
fn positives_index(body: &[Literal], at: usize) -> usize {
    body[..at]
        .iter()
        .filter(|l| matches!(l, Literal::Pos(_)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lowered bodies of `src`'s rules, as relation names of their
    /// positive atoms.
    fn positive_atoms(src: &str) -> Vec<Vec<String>> {
        let p = crate::compile_sources(&[("t.dl".to_string(), src.to_string())]).unwrap();
        let l = lower(&p).unwrap();
        l.rules
            .iter()
            .map(|r| {
                r.body
                    .iter()
                    .filter_map(|it| match it {
                        LItem::Pos(rel, _) => Some(l.rels[*rel].name.clone()),
                        _ => None,
                    })
                    .collect()
            })
            .collect()
    }

    const DECLS: &str = ".decl e(a: unsigned, b: unsigned)\n.input e\n\
                         .decl f(a: unsigned, b: unsigned)\n.input f\n\
                         .decl r(a: unsigned, b: unsigned)\n.output r\n\
                         .decl s(a: unsigned, b: unsigned)\n.output s\n";

    #[test]
    fn linear_recursion_joins_from_the_recursive_atom() {
        let bodies = positive_atoms(&format!(
            "{DECLS}r(X, Y) :- e(X, Y).\n\
             r(X, Z) :- e(X, Y), f(Y, Y2), r(Y2, Z).\n\
             s(X, Y) :- e(X, Y), r(Y, X).\n"
        ));
        assert_eq!(bodies[0], ["e"]);
        // the recursive atom moves to the front, the others follow by
        // shared variables: `f(Y, Y2)` joins `r(Y2, Z)`, then `e(X, Y)`
        assert_eq!(bodies[1], ["r", "f", "e"]);
        // `s` is not recursive: its order is the text's
        assert_eq!(bodies[2], ["e", "r"]);
    }

    #[test]
    fn mutual_and_nonlinear_recursion() {
        let bodies = positive_atoms(&format!(
            "{DECLS}r(X, Y) :- e(X, Y).\n\
             r(X, Z) :- e(X, Y), s(Y, Z).\n\
             s(X, Z) :- f(X, Y), r(Y, Z).\n\
             s(X, Z) :- e(X, Y), s(Y, W), r(W, Z).\n"
        ));
        // one atom of the component (r and s are mutually recursive)
        assert_eq!(bodies[1], ["s", "e"]);
        assert_eq!(bodies[2], ["r", "f"]);
        // two recursive atoms: the text's order
        assert_eq!(bodies[3], ["e", "s", "r"]);
    }
}
