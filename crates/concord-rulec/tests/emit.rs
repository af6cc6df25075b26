//! Soufflé and Z3 printers (runs z3 when it is installed).

use concord_rulec::*;

const SRC: &str = ".decl edge(a: unsigned, b: unsigned)\n.input edge\n.decl reach(a: unsigned, b: unsigned)\n.output reach\n\
.decl far(a: unsigned)\n.output far\n.decl lonely(a: unsigned)\n.output lonely\n\
reach(X, Y) :- edge(X, Y).\nreach(X, Z) :- reach(X, Y), edge(Y, Z).\nfar(X) :- reach(X, 3), X != 3, X < 10.\n\
lonely(X) :- edge(X, _), !edge(_, X).\nedge(7, 8).\n";

#[test]
fn souffle_output_reparses_and_keeps_io() {
    let p = compile_sources(&[("t.dl", SRC)]).unwrap();
    let s = to_souffle(&p);
    assert!(
        s.contains(".decl edge(a: unsigned, b: unsigned)\n.input edge\n"),
        "{s}"
    );
    assert!(s.contains(".output reach\n"));
    assert!(s.contains("far(X) :- reach(X, 3), X != 3, X < 10.\n"));
    assert!(s.contains("lonely(X) :- edge(X, _), !edge(_, X).\n"));
    assert!(s.contains("edge(7, 8).\n"));
    let q = compile_sources(&[("gen.dl", s.as_str())]).unwrap();
    assert_eq!(
        q.program.rules,
        compile_sources(&[("gen.dl", to_souffle(&q).as_str())])
            .unwrap()
            .program
            .rules
    );
}

#[test]
fn z3_script_shape() {
    let p = compile_sources(&[("t.dl", SRC)]).unwrap();
    let z = to_z3_fixedpoint(&p);
    assert!(z.contains("(set-option :fp.engine datalog)"));
    assert!(z.contains("(declare-rel reach ((_ BitVec 32) (_ BitVec 32)))"));
    assert!(z.contains("(declare-var ?v_x (_ BitVec 32))"));
    assert!(z.contains("(rule (=> (and (reach ?v_x ?k0) (= ?k0 (_ bv3 32)) (distinct ?v_x (_ bv3 32)) (bvult ?v_x (_ bv10 32))) (far ?v_x)))"), "{z}");
    assert!(z.contains("(not (__neg0_edge ?v_x))"), "{z}");
    assert_eq!(
        z3_facts("edge", &[vec![1, 2]]),
        "(rule (edge (_ bv1 32) (_ bv2 32)))\n"
    );
    assert_eq!(z3_queries(&p), "(query reach :print-answer true)\n(query far :print-answer true)\n(query lonely :print-answer true)\n");
}

#[test]
fn z3_runs_the_script_when_installed() {
    let Ok(out) = std::process::Command::new("z3").arg("-version").output() else {
        eprintln!("z3 not installed; skipping");
        return;
    };
    assert!(out.status.success());
    let p = compile_sources(&[("t.dl", SRC)]).unwrap();
    let facts = z3_facts("edge", &[vec![1, 2], vec![2, 3]]);
    let script = z3_script(&p, &facts);
    let dir = std::env::temp_dir().join(format!("rulec-z3-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("t.smt2");
    std::fs::write(&f, &script).unwrap();
    let out = std::process::Command::new("z3")
        .arg("-smt2")
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!text.contains("error"), "{text}\n{script}");
    // reach, far (1 and 2 reach 3), lonely (1 and 7) are all non-empty
    let answers: Vec<&str> = text
        .lines()
        .filter(|l| *l == "sat" || *l == "unsat")
        .collect();
    assert_eq!(answers, ["sat", "sat", "sat"], "{text}");
    assert!(
        text.contains("#x00000007") || text.contains("(_ bv7 32)"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn rust_names_and_identical_interfaces() {
    let src = ".decl type(x: unsigned)\n.decl MustHb(a: unsigned, b: unsigned)\n.decl run(x: unsigned)\n.decl crepe(x: unsigned)\n\
               .input type, MustHb\n.output run, crepe\nrun(X) :- type(X), !MustHb(X, X).\ncrepe(Y) :- MustHb(_, Y), Y > 2.\n";
    let p = compile_sources(&[("n.dl", src)]).unwrap_or_else(|e| panic!("{e}"));
    let a = to_ascent(&p, "Prog");
    let c = to_crepe(&p, "prog_crepe");
    assert!(
        a.contains("relation type_rel(u32,);")
            && a.contains("relation must_hb(u32, u32);")
            && a.contains("relation run_rel(u32,);"),
        "{a}"
    );
    assert!(
        c.contains("struct Type(u32);")
            && c.contains("struct MustHb(u32, u32);")
            && c.contains("struct CrepeRel(u32);"),
        "{c}"
    );
    // negated atom with a repeated variable goes through a projection
    assert!(
        a.contains("__neg0_must_hb(v_x) <-- must_hb(v_x, e0), if rulec_u32(e0) == rulec_u32(v_x);"),
        "{a}"
    );
    let block = |s: &str, start: &str| {
        let i = s.find(start).unwrap();
        s[i..i + s[i..].find("\n}\n").unwrap()].to_string()
    };
    for item in [
        "pub struct Input {",
        "pub struct Output {",
        "pub const INPUT_RELATIONS",
        "impl Input {",
        "impl Output {",
    ] {
        assert_eq!(block(&a, item), block(&c, item), "{item}");
    }
    assert!(block(&a, "pub struct Input {").contains("pub type_rel: ::std::vec::Vec<(u32,)>,"));
}
