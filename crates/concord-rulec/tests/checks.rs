//! Parser and checker diagnostics: one failing input per error kind.

use concord_rulec::{compile_sources, ErrorKind, Errors};

fn errs(src: &str) -> Errors {
    match compile_sources(&[("t.dl", src)]) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => e,
    }
}

fn one(src: &str, kind: ErrorKind) -> String {
    let e = errs(src);
    assert_eq!(e.kinds(), vec![kind], "{e}");
    e.to_string()
}

const DECLS: &str = ".decl a(x: unsigned)\n.decl b(x: unsigned, y: unsigned)\n.input a, b\n.decl c(x: unsigned)\n.output c\n";

#[test]
fn accepts_the_subset() {
    let src = format!(
        "{DECLS}/* block\n comment */ c(X) :- a(X), b(X, _), !b(_, X), X != 3, X < 10, 2 <= X. // tail\n\
         c(4).\nc(X) :- b(X, X), X = 7.\n.decl n(v: number)\nn(X) :- a(X).\n"
    );
    let p = compile_sources(&[("t.dl", src.as_str())]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.program.rules.len(), 3);
    assert_eq!(p.program.facts.len(), 1);
    assert_eq!(p.inputs().count(), 2);
    assert_eq!(
        p.outputs().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["c"]
    );
    // `a(1).b(2).` without spaces is two facts, not a directive
    compile_sources(&[("t.dl", format!("{DECLS}a(1).b(2, 3).").as_str())]).unwrap();
}

#[test]
fn syntax_errors_have_positions() {
    let m = one(".decl a(x: unsigned)\na(X) :- a(X)", ErrorKind::Syntax);
    assert!(
        m.starts_with("t.dl:2:13: error: expected `,` or `.` in rule body, found end of file"),
        "{m}"
    );
    let m = one(".decl a(x: symbol)", ErrorKind::Syntax);
    assert!(
        m.starts_with(
            "t.dl:1:12: error: column `x` of `a` has type `symbol`, which is not supported"
        ),
        "{m}"
    );
    let m = one(
        ".decl a(x: unsigned)\na(X) :- a(X); a(X).",
        ErrorKind::Syntax,
    );
    assert!(m.contains("disjunction `;` is not supported"), "{m}");
    let m = one(".decl a(x: unsigned)\na(99999999999).", ErrorKind::Syntax);
    assert!(
        m.contains("2:3:") && m.contains("not an unsigned 32-bit integer"),
        "{m}"
    );
    let m = one(".decl a(x: unsigned)\n/* open", ErrorKind::Syntax);
    assert!(
        m.starts_with("t.dl:2:1: error: unterminated block comment"),
        "{m}"
    );
    let m = one(
        ".decl a(x: unsigned)\na(X), a(Y) :- a(X).",
        ErrorKind::Syntax,
    );
    assert!(m.contains("several heads"), "{m}");
    let m = one(".type T = unsigned", ErrorKind::Syntax);
    assert!(m.contains("unsupported directive `.type`"), "{m}");
    let m = one(
        ".decl a(x: unsigned)\na(X) :- a(X), X + 1 < 3.",
        ErrorKind::Syntax,
    );
    assert!(m.contains("unexpected character `+`"), "{m}");
}

#[test]
fn undeclared_relation() {
    let m = one(
        &format!("{DECLS}c(X) :- a(X), d(X)."),
        ErrorKind::Undeclared,
    );
    assert!(
        m.starts_with(
            "t.dl:6:15: error: relation `d` is not declared\n    in rule: c(X) :- a(X), d(X)."
        ),
        "{m}"
    );
    let m = one(".output zz", ErrorKind::Undeclared);
    assert!(
        m.contains("`.output zz` names a relation that is not declared"),
        "{m}"
    );
}

#[test]
fn arity_mismatch() {
    let m = one(&format!("{DECLS}c(X) :- b(X)."), ErrorKind::Arity);
    assert!(m.starts_with("t.dl:6:9: error: `b(X)` has 1 argument(s) but relation `b` is declared with 2 column(s) at t.dl:2:1"), "{m}");
    one(&format!("{DECLS}c(1, 2)."), ErrorKind::Arity);
}

#[test]
fn unbound_variables() {
    let m = one(&format!("{DECLS}c(Y) :- a(X)."), ErrorKind::Unbound);
    assert!(m.contains("variable `Y` in the head is not bound by any positive body atom\n    in rule: c(Y) :- a(X)."), "{m}");
    let m = one(
        &format!("{DECLS}c(X) :- a(X), !b(X, Z)."),
        ErrorKind::Unbound,
    );
    assert!(m.contains("variable `Z` in negated atom `!b(X, Z)`"), "{m}");
    let m = one(&format!("{DECLS}c(X) :- a(X), X < Z."), ErrorKind::Unbound);
    assert!(m.contains("variable `Z` in comparison `X < Z`"), "{m}");
    one(&format!("{DECLS}c(_) :- a(X)."), ErrorKind::Unbound);
}

#[test]
fn stratification_cycle_is_printed() {
    let src = ".decl e(x: unsigned)\n.input e\n.decl p(x: unsigned)\n.decl q(x: unsigned)\n.decl r(x: unsigned)\n\
               p(X) :- e(X), !q(X).\nq(X) :- r(X).\nr(X) :- p(X).\n";
    let m = one(src, ErrorKind::Stratification);
    assert!(
        m.starts_with("t.dl:6:1: error: negation of `q` inside a recursive cycle, the program is not stratifiable: p -> !q -> r -> p\n    in rule: p(X) :- e(X), !q(X)."),
        "{m}"
    );
    let m = one(
        ".decl e(x: unsigned)\n.input e\n.decl p(x: unsigned)\np(X) :- e(X), !p(X).",
        ErrorKind::Stratification,
    );
    assert!(m.contains(": p -> !p\n"), "{m}");
}

#[test]
fn declarations_and_io() {
    one(
        ".decl a(x: unsigned)\n.decl a(y: unsigned)",
        ErrorKind::Declaration,
    );
    one(".decl a()", ErrorKind::Declaration);
    one(".decl a(x: unsigned, x: unsigned)", ErrorKind::Declaration);
    one(".decl a(x: unsigned)\n.input a\n.output a", ErrorKind::Io);
    let m = one(&format!("{DECLS}a(X) :- c(X)."), ErrorKind::Io);
    assert!(
        m.contains("rule derives `a`, which is an `.input` relation"),
        "{m}"
    );
    one(
        ".decl ab_c(x: unsigned)\n.decl ab__c(x: unsigned)",
        ErrorKind::Naming,
    );
    one(".decl __x(x: unsigned)", ErrorKind::Naming);
}

#[test]
fn several_errors_are_reported_together() {
    let e = errs(&format!("{DECLS}c(X) :- d(X).\nc(X) :- b(X)."));
    assert_eq!(e.kinds(), vec![ErrorKind::Undeclared, ErrorKind::Arity]);
}

#[test]
fn strata_respect_negation() {
    let p = compile_sources(&[(
        "t.dl",
        format!("{DECLS}.decl d(x: unsigned)\nd(X) :- a(X).\nc(X) :- a(X), !d(X)."),
    )])
    .unwrap();
    let s = |n: &str| p.relation(n).unwrap().stratum;
    assert!(s("c") > s("d"));
    assert_eq!(s("a"), 0);
    assert_eq!(p.strata.iter().flatten().count(), 4);
}

#[test]
fn real_rules_compile() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/");
    let mut files: Vec<String> =
        vec![concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/concord_input.dl").to_string()];
    files.extend(
        [
            "order.dl",
            "hb.dl",
            "hb_out.dl",
            "hb_may.dl",
            "rf.dl",
            "rf_may.dl",
            "rank2.dl",
            "rank2_store.dl",
            "rank2_may.dl",
            "rank3.dl",
            "rank3_may.dl",
        ]
        .iter()
        .map(|f| format!("{root}{f}")),
    );
    let p = concord_rulec::compile_files(&files).unwrap_or_else(|e| panic!("{e}"));
    for r in [
        "hb_must",
        "hb_may",
        "rf_covered_store",
        "rf_covered_load",
        "rf_no",
        "rf_may",
        "rank2_no",
        "rank2_may",
        "rank3_no",
        "rank3_may",
    ] {
        assert_eq!(
            p.relation(r).map(|r| r.kind),
            Some(concord_rulec::RelKind::Output),
            "{r}"
        );
    }
    // the rank-1 stages stand alone too
    concord_rulec::compile_files(&files[..3]).unwrap_or_else(|e| panic!("{e}"));
}

/// Two renamed copies of one program merge without clashes, and a rule
/// can relate them (how build.rs builds the two-version diff programs).
#[test]
fn renamed_copies_merge_and_check() {
    let src = ".decl e(x: unsigned, y: unsigned)\n.input e\n.decl p(x: unsigned, y: unsigned)\n.output p\n\
               p(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n";
    let mut both = concord_rulec::Program::default();
    for prefix in ["old_", "new_"] {
        let mut p = concord_rulec::parse_sources(&[("t.dl", src)]).unwrap();
        p.rename_relations(|r| format!("{prefix}{r}"));
        both.extend(p);
    }
    let glue = concord_rulec::parse_sources(&[(
        "d.dl",
        ".decl only_old(x: unsigned, y: unsigned)\n.output only_old\nonly_old(X, Y) :- old_p(X, Y), !new_p(X, Y).\n",
    )])
    .unwrap();
    both.extend(glue);
    let checked = concord_rulec::check(both).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = checked.inputs().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["old_e", "new_e"]);
    let rules: Vec<String> = checked
        .program
        .rules
        .iter()
        .map(|r| r.to_string())
        .collect();
    assert!(
        rules.contains(&"new_p(X, Z) :- new_p(X, Y), new_e(Y, Z).".to_string()),
        "{rules:?}"
    );
    // an unrenamed copy would clash with the first
    let mut clash = concord_rulec::parse_sources(&[("t.dl", src)]).unwrap();
    clash.extend(concord_rulec::parse_sources(&[("t.dl", src)]).unwrap());
    assert!(concord_rulec::check(clash).is_err());
}

#[test]
fn unused_inputs_are_dropped_and_read_ones_kept() {
    // `a` is read by a rule, `b` only negated, `d` by nothing, `k` is
    // unused but asked to stay.
    let src = ".decl a(x: unsigned)\n.decl b(x: unsigned)\n.decl d(x: unsigned)\n\
               .decl k(x: unsigned)\n.input a, b, d, k\n\
               .decl c(x: unsigned)\n.output c\nc(X) :- a(X), !b(X).\n";
    let mut p = concord_rulec::parse_sources(&[("t.dl", src)]).unwrap();
    let dropped = p.drop_unused_inputs(&["k"]);
    assert_eq!(dropped, ["d"]);
    let checked = concord_rulec::check(p).unwrap_or_else(|e| panic!("{e}"));
    let inputs: Vec<&str> = checked.inputs().map(|r| r.name.as_str()).collect();
    assert_eq!(inputs, ["a", "b", "k"]);
}

#[test]
fn carried_layers_become_inputs_and_their_views_stay() {
    // `p` is derived (carried in as an input), `v` is an inline view over
    // it (kept, expanded where used), `o` was an output (dropped).
    let src = ".decl e(x: unsigned, y: unsigned)\n.input e\n\
               .decl p(x: unsigned, y: unsigned)\np(X, Y) :- e(X, Y).\np(X, Z) :- p(X, Y), e(Y, Z).\n\
               .decl v(x: unsigned) inline\nv(X) :- p(X, X).\n\
               .decl o(x: unsigned)\n.output o\no(X) :- v(X).\n";
    let mut p = concord_rulec::parse_sources(&[("t.dl", src)]).unwrap();
    let carried = p.carry_derived();
    assert_eq!(carried, ["o", "p"]);
    assert!(p.outputs.is_empty());
    assert!(p.rules.iter().all(|r| r.head.rel == "v"), "{:?}", p.rules);
    // a rule over the view reads the carried relation once inlined
    let use_it = ".decl w(x: unsigned)\n.output w\nw(X) :- v(X).\n";
    p.extend(concord_rulec::parse_sources(&[("u.dl", use_it)]).unwrap());
    p.drop_unused_inputs(&[]);
    let checked = concord_rulec::check(p).unwrap_or_else(|e| panic!("{e}"));
    let inputs: Vec<&str> = checked.inputs().map(|r| r.name.as_str()).collect();
    assert_eq!(inputs, ["p"]);
}

/// The program transformations build.rs uses for the diff programs: the
/// mirror of one direction (`swap_arguments`) and one direction kept with
/// what it reads of the other (`retain_needed_by`).
#[test]
fn swap_arguments_and_retain_needed_by() {
    let src = ".decl m(o: unsigned, n: unsigned)\n.input m\n.decl e(x: unsigned)\n.input e\n\
               .decl f(x: unsigned)\n.input f\n\
               .decl a_old(x: unsigned)\n.output a_old\n.decl a_new(x: unsigned)\n.output a_new\n\
               .decl h(x: unsigned)\n.decl unused(x: unsigned)\n\
               a_old(X) :- e(X), m(X, Y), !h(Y).\nh(Y) :- f(Y).\na_new(Y) :- f(Y), m(_, Y).\n\
               unused(X) :- f(X).\nm(1, 2).\n";
    let mut p = concord_rulec::parse_sources(&[("t.dl", src)]).unwrap_or_else(|e| panic!("{e}"));
    let mut swapped = p.clone();
    swapped.swap_arguments(&["m"]);
    assert_eq!(
        swapped.rules[0].to_string(),
        "a_old(X) :- e(X), m(Y, X), !h(Y)."
    );
    assert_eq!(swapped.rules[2].to_string(), "a_new(Y) :- f(Y), m(Y, _).");
    assert_eq!(swapped.facts[0].values, [2, 1]);
    // a unary relation of the list and other relations keep their order
    swapped.swap_arguments(&["e", "h"]);
    assert_eq!(
        swapped.rules[0].to_string(),
        "a_old(X) :- e(X), m(Y, X), !h(Y)."
    );

    let mut kept = p.clone();
    kept.retain_needed_by(&["a_new"], &["e"]);
    assert_eq!(
        kept.decls
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>(),
        ["m", "e", "f", "a_new"],
        "e is kept although a_new does not read it"
    );
    p.retain_needed_by(&["a_old"], &[]);
    let names = |p: &concord_rulec::Program| -> Vec<String> {
        p.decls.iter().map(|d| d.name.clone()).collect()
    };
    // a_old reads e, m and (negated) h, which reads f; a_new and unused go
    assert_eq!(names(&p), ["m", "e", "f", "a_old", "h"]);
    assert_eq!(p.outputs.len(), 1);
    assert_eq!(p.rules.len(), 2);
    assert_eq!(p.facts.len(), 1, "m's fact stays: a_old reads m");
    assert_eq!(p.inputs.len(), 3);
    concord_rulec::check(p).unwrap_or_else(|e| panic!("{e}"));
}
