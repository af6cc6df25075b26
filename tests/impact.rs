//! `concord impact`: the papers' examples through the real binary, the
//! hand-derived `[impact]` tables of every bench pair, and the ascent/crepe
//! differential check of `rules/cia.dl`.

use crate::common;
use common::*;
use concord::analysis::impact::{self, run_cia, ChangeGroup, DepKind, ImpactResult};
use concord::analysis::Engine;
use concord::facts::{io, FactSet};
use concord::versions::{match_versions, Version, VersionMatch};
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

fn concord() -> Command {
    Command::new(env!("CARGO_BIN_EXE_concord"))
}

/// Run `concord impact` on a bench pair (JSON), return (exit code, document).
fn impact_json(case: &str, extra: &[&str]) -> (i32, Value) {
    let root = repo_root();
    let out = concord()
        .current_dir(&root)
        .args(["impact", "--format", "json"])
        .arg(format!("bench-programs/{case}/v1.c"))
        .arg(format!("bench-programs/{case}/v2.c"))
        .args(extra)
        .output()
        .expect("concord runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{case}: not JSON ({e}):\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), doc)
}

/// Lines of the impacted items of one direction and version.
fn lines(doc: &Value, direction: &str, version: &str) -> BTreeSet<u32> {
    doc["impacted"]
        .as_array()
        .expect("impacted list")
        .iter()
        .filter(|i| i["direction"] == direction && i["version"] == version)
        .map(|i| i["line"].as_u64().unwrap() as u32)
        .collect()
}

fn set(v: &[u32]) -> BTreeSet<u32> {
    v.iter().copied().collect()
}

/// Paper line numbers of a set of source lines within the paper's range.
fn paper(lines: &BTreeSet<u32>, offset: u32, last: u32) -> BTreeSet<u32> {
    lines
        .iter()
        .filter(|&&l| l > offset && l <= offset + last)
        .map(|l| l - offset)
        .collect()
}

#[test]
fn conc_ise_fig6_forward_and_backward_sets_by_paper_line() {
    let (code, doc) = impact_json("conc-ise-fig6", &[]);
    assert_eq!(code, 1, "impacted statements found: exit 1");
    assert_eq!(doc["version"], 1);
    let fwd = lines(&doc, "fwd", "new");
    let bwd = lines(&doc, "bwd", "new");
    // paper line k = source line k + 8; the paper's figure has lines 1-14 only
    assert_eq!(paper(&fwd, 8, 14), set(&[11, 14]), "forward {fwd:?}");
    assert_eq!(
        paper(&bwd, 8, 14),
        set(&[1, 3, 9, 10, 11]),
        "backward {bwd:?}"
    );
    // outside the paper's lines: only global initialisers, thread entry calls and creates
    assert_eq!(fwd, set(&[19, 22]));
    assert_eq!(bwd, set(&[4, 5, 9, 11, 17, 18, 19, 31, 26, 38, 39]));
    // every item names the change that impacts it
    let items = doc["impacted"].as_array().unwrap();
    assert!(items.iter().all(|i| i["changes"] == serde_json::json!([0])
        && i["file"].as_str().unwrap().ends_with("v2.c")
        && i["function"].is_string()
        && i["thread"].is_u64()));
    assert_eq!(doc["changes"][0]["kind"], "modified");
    assert_eq!(doc["changes"][0]["line"], 19);
}

fn golden(case: &str, version: &str) -> FactSet {
    io::read_dir(&repo_root().join("facts").join(case).join(version))
        .unwrap_or_else(|e| panic!("facts/{case}/{version}: {e}"))
}

#[test]
fn conc_ise_fig7_read_does_not_depend_on_write_of_later_created_thread() {
    // v2 is the paper's program: read of x (line 13) before creating thread2 (x = 5 on line 7)
    let f = golden("conc-ise-fig7", "v2");
    let read = one(&f, 13, "load");
    let write = one(&f, 7, "store");
    let run = run_cia(Engine::Ascent, &f, &BTreeSet::new(), &BTreeSet::new());
    assert!(
        run.before.contains(&(read, write)),
        "read must happen before the child's write"
    );
    assert!(
        !run.deps.iter().any(|&(u, d, _)| u == read && d == write),
        "false dependence of the read on the child's write"
    );
    // it does depend on the initial value
    let init = f.statements.iter().find(|s| s.kind == "init").unwrap().id;
    assert!(run.deps.contains(&(read, init, 2)));
    // v1 creates the child first: there the dependence is real
    let f1 = golden("conc-ise-fig7", "v1");
    let read1 = one(&f1, 14, "load");
    let write1 = one(&f1, 7, "store");
    let run1 = run_cia(Engine::Ascent, &f1, &BTreeSet::new(), &BTreeSet::new());
    assert!(run1.deps.contains(&(read1, write1, 2)));
    // and through the binary: the backward set of the moved read has no line 7
    let (_, doc) = impact_json("conc-ise-fig7", &[]);
    assert!(!lines(&doc, "bwd", "new").contains(&7));
}

/// The statement of `kind` on the line of `src` tagged `/* tag */`.
fn tagged(f: &FactSet, src: &str, tag: &str, kind: &str) -> u32 {
    one(f, line_of(src, tag), kind)
}

/// cia.dl on `f` without seeds: its dependences and cia_before.
fn unseeded_cia(f: &FactSet) -> impact::CiaRun {
    run_cia(Engine::Ascent, f, &BTreeSet::new(), &BTreeSet::new())
}

/// Whether cia.dl derives a memory dependence of `read` on `write`.
fn memory_dep(run: &impact::CiaRun, read: u32, write: u32) -> bool {
    run.deps.contains(&(read, write, 2))
}

#[test]
fn a_read_before_a_create_does_not_depend_on_a_grandchild_write() {
    // cia_before's guards recurse through thread creation: main's first
    // read of x precedes the create of `child`, which creates `grandchild`,
    // the writer; the read after the create is concurrent with the write.
    let src = r#"
#include <pthread.h>
int x;
void *grandchild(void *a) { x = 5; /* write */ return a; }
void *child(void *a) {
  pthread_t g;
  pthread_create(&g, 0, grandchild, 0);
  pthread_join(g, 0);
  return a;
}
int main(void) {
  int r = x; /* before */
  pthread_t c;
  pthread_create(&c, 0, child, 0);
  int s = x; /* after */
  pthread_join(c, 0);
  return r + s;
}
"#;
    let f = facts_of_c(src);
    let write = tagged(&f, src, "write", "store");
    let before = tagged(&f, src, "before", "load");
    let after = tagged(&f, src, "after", "load");
    let run = unseeded_cia(&f);
    assert!(run.before.contains(&(before, write)));
    assert!(
        !memory_dep(&run, before, write),
        "the read ran before the writer existed"
    );
    assert!(!run.before.contains(&(after, write)));
    assert!(
        memory_dep(&run, after, write),
        "the read after the create races the write"
    );
}

#[test]
fn a_read_in_a_joined_thread_does_not_depend_on_a_write_after_the_join() {
    // The join of the worker (its only child) dominates the write, so the
    // worker's read precedes it; the write before the join does not.
    let src = r#"
#include <pthread.h>
int y;
void *worker(void *a) { int v = y; /* read */ return (void *)(long)v; }
int main(int argc, char **argv) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  y = 1; /* racing */
  pthread_join(t, 0);
  if (argc > 1)
    argc = 2;
  y = 2; /* joined */
  return argc;
}
"#;
    let f = facts_of_c(src);
    let read = tagged(&f, src, "read", "load");
    let racing = tagged(&f, src, "racing", "store");
    let joined = tagged(&f, src, "joined", "store");
    let run = unseeded_cia(&f);
    assert!(run.before.contains(&(read, joined)));
    assert!(!memory_dep(&run, read, joined));
    assert!(memory_dep(&run, read, racing));
}

#[test]
fn conc_ise_fig2_change_impacts_line_1_of_other_thread_not_lines_2_and_5() {
    let (code, doc) = impact_json("conc-ise-fig2", &["--direction", "fwd"]);
    assert_eq!(code, 1);
    let fwd = lines(&doc, "fwd", "new");
    // L1 = line 10 (`a = x`, thread1), L2 = 11 (`y = 10`), L5 = 17 (`b = y`)
    assert!(fwd.contains(&10), "{fwd:?}");
    assert!(!fwd.contains(&11) && !fwd.contains(&17), "{fwd:?}");
    assert!(lines(&doc, "bwd", "new").is_empty(), "--direction fwd only");
    let l1 = doc["impacted"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["line"] == 10)
        .unwrap();
    assert_eq!(l1["thread_function"], "thread1");
    assert_eq!(l1["function"], "thread1");
}

#[test]
fn dise_wbs_change_on_first_condition_gives_paper_nodes() {
    let (_, doc) = impact_json("dise-wbs", &["--direction", "fwd"]);
    // n0 9, n1 10, n2 11, n3 12, n4 14, n5 15, n10 20, n11 21, n12 22, n13 23, n14 25
    assert_eq!(
        lines(&doc, "fwd", "new"),
        set(&[9, 10, 11, 12, 14, 15, 20, 21, 22, 23, 25])
    );
}

// ------------------------------------------------------------ bench tables

fn load(case: &str, version: &str) -> (FactSet, Option<String>) {
    let src =
        std::fs::read_to_string(repo_root().join(format!("bench-programs/{case}/{version}.c")))
            .ok();
    (golden(case, version), src)
}

fn analyse(case: &str, engine: Engine) -> (FactSet, FactSet, VersionMatch, ImpactResult) {
    let (old, os) = load(case, "v1");
    let (new, ns) = load(case, "v2");
    let m = match_versions(
        &Version {
            facts: &old,
            source: os.as_deref(),
        },
        &Version {
            facts: &new,
            source: ns.as_deref(),
        },
    );
    let groups: Vec<ChangeGroup> = impact::change_groups(&m, &old, &new);
    let r = impact::analyse(engine, groups, Some(&old), &new, &m.map);
    (old, new, m, r)
}

fn toml_lines(t: &toml::Value, key: &str) -> Option<BTreeSet<u32>> {
    t.get(key).map(|v| {
        v.as_array()
            .unwrap_or_else(|| panic!("{key} must be a list of lines"))
            .iter()
            .map(|x| x.as_integer().expect("line") as u32)
            .collect()
    })
}

#[test]
fn bench_pairs_match_expected_impact_tables() {
    let mut failures = Vec::new();
    for case in bench_cases() {
        let path = repo_root().join(format!("bench-programs/{case}/expected.toml"));
        let doc: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let Some(t) = doc.get("impact") else {
            failures.push(format!("{case}: expected.toml has no [impact] table"));
            continue;
        };
        let (old, new, _, r) = analyse(&case, Engine::Ascent);
        let got = [
            ("forward", impact::lines_of(&new, &r.fwd)),
            ("backward", impact::lines_of(&new, &r.bwd)),
            ("forward_old", impact::lines_of(&old, &r.fwd_old)),
            ("backward_old", impact::lines_of(&old, &r.bwd_old)),
        ];
        for (key, got) in got {
            let want = toml_lines(t, key).unwrap_or_default();
            if t.get(key).is_none() && key.ends_with("_old") && got.is_empty() {
                continue;
            }
            if want != got {
                let missing: Vec<_> = want.difference(&got).collect();
                let extra: Vec<_> = got.difference(&want).collect();
                failures.push(format!(
                    "{case}: {key}: expected {want:?}, got {got:?} (missing {missing:?}, extra {extra:?})"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[cfg(feature = "reference-engine")]
#[test]
fn cia_rules_agree_between_ascent_and_crepe_on_every_bench_program() {
    for case in bench_cases() {
        let (old, new, m, _) = analyse(&case, Engine::Ascent);
        // seeds: every change in its version, one group each
        let seeds_new: BTreeSet<(u32, u32)> =
            m.changed_new().into_iter().map(|s| (s % 3, s)).collect();
        let seeds_old: BTreeSet<(u32, u32)> =
            m.changed_old().into_iter().map(|s| (s % 3, s)).collect();
        for (facts, seeds, v) in [(&old, &seeds_old, "v1"), (&new, &seeds_new, "v2")] {
            let a = run_cia(Engine::Ascent, facts, seeds, seeds);
            let c = run_cia(Engine::Crepe, facts, seeds, seeds);
            assert_eq!(a, c, "{case}/{v}: ascent and crepe differ");
            assert!(!a.deps.is_empty(), "{case}/{v}: no dependences at all");
        }
        // and the whole pipeline
        let (_, _, _, ra) = analyse(&case, Engine::Ascent);
        let (_, _, _, rc) = analyse(&case, Engine::Crepe);
        assert_eq!(
            (ra.fwd, ra.bwd, ra.fwd_old, ra.bwd_old),
            (rc.fwd, rc.bwd, rc.fwd_old, rc.bwd_old),
            "{case}"
        );
    }
}

/// `analyse` closes the seeds over the component graph in Rust; the rules'
/// `impact_fwd` and `impact_bwd` define the same sets, one row per group
/// and statement. Every change its own group, and groups shared by thirds,
/// on every bench program.
#[test]
fn impact_closures_agree_with_the_rules_on_every_bench_program() {
    use impact::closure::{close, GroupSet};
    use std::collections::BTreeMap;
    let as_sets = |rows: &[(u32, u32)]| {
        let mut by: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for &(g, s) in rows {
            by.entry(s).or_default().insert(g);
        }
        by.into_iter()
            .map(|(s, g)| (s, g.into_iter().collect::<GroupSet>()))
            .collect::<BTreeMap<u32, GroupSet>>()
    };
    let mut closed = 0;
    for case in bench_cases() {
        let (old, new, m, _) = analyse(&case, Engine::Ascent);
        for (facts, changed) in [(&old, m.changed_old()), (&new, m.changed_new())] {
            for group_of in [|s: u32| s, |s: u32| s % 3] {
                let seeds: BTreeSet<(u32, u32)> =
                    changed.iter().map(|&s| (group_of(s), s)).collect();
                let run = run_cia(Engine::Ascent, facts, &seeds, &seeds);
                let seed_sets = as_sets(&seeds.iter().copied().collect::<Vec<_>>());
                let fwd: Vec<(u32, u32)> = run.deps.iter().map(|&(u, d, _)| (d, u)).collect();
                let bwd: Vec<(u32, u32)> = run.deps.iter().map(|&(u, d, _)| (u, d)).collect();
                assert_eq!(
                    close(fwd.iter().copied(), &seed_sets),
                    as_sets(&run.fwd),
                    "{case}: forward"
                );
                assert_eq!(
                    close(bwd.iter().copied(), &seed_sets),
                    as_sets(&run.bwd),
                    "{case}: backward"
                );
                closed += run.fwd.len() + run.bwd.len();
            }
        }
    }
    assert!(closed > 1000, "the bench programs close {closed} rows");
}

#[test]
fn dependence_kinds_and_control_through_calls() {
    // fig6: the store of line 19 is control-dependent on the branch of line 18,
    // which is data-dependent on the load of x of line 18
    let f = golden("conc-ise-fig6", "v2");
    let run = run_cia(Engine::Ascent, &f, &BTreeSet::new(), &BTreeSet::new());
    let store = one(&f, 19, "store");
    let br = at(&f, 18, "br")[0];
    assert!(run.deps.contains(&(store, br, 3)));
    let cmp = one(&f, 18, "icmp");
    assert!(run.deps.contains(&(br, cmp, 1)));
    assert_eq!(DepKind::from_code(2), DepKind::Memory);
    // the assertion's branch controls only the failure report, not the return after it
    let ret = one(&f, 23, "ret");
    let abr = at(&f, 22, "br")[0];
    assert!(!run.deps.contains(&(ret, abr, 3)));
    let fail = one(&f, 22, "call");
    assert!(run.deps.contains(&(fail, abr, 3)));
}

fn run_cli(args: &[&str]) -> (i32, String, String) {
    let out = concord()
        .current_dir(repo_root())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn cli_single_program_with_changed_lines() {
    let (code, out, err) = run_cli(&[
        "impact",
        "bench-programs/conc-ise-fig6/v1.c",
        "--changed",
        "v1.c:19",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(lines(&doc, "fwd", "new"), set(&[19, 22]));
    assert_eq!(doc["changes"][0]["kind"], "given");
    // an untouched program line without dependents still impacts itself
    let (code, _, err) = run_cli(&["impact", "bench-programs/conc-ise-fig6/v1.c"]);
    assert_eq!(code, 2, "one program needs --changed: {err}");
    let (code, _, _) = run_cli(&[
        "impact",
        "bench-programs/conc-ise-fig6/v1.c",
        "--changed",
        "x:y",
    ]);
    assert_eq!(code, 2);
    // a line without statements is a mistake, not "nothing impacted"
    let (code, _, err) = run_cli(&[
        "impact",
        "bench-programs/conc-ise-fig6/v1.c",
        "--changed",
        "14",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no statement"), "{err}");
    // an absolute path names the same file
    let abs = repo_root().join("bench-programs/conc-ise-fig6/v1.c");
    let spec = format!("{}:19", abs.display());
    let (code, _, err) = run_cli(&[
        "impact",
        "bench-programs/conc-ise-fig6/v1.c",
        "--changed",
        &spec,
    ]);
    assert_eq!(code, 1, "{err}");
}

#[test]
fn cli_unchanged_program_impacts_nothing() {
    let (code, out, _) = run_cli(&[
        "impact",
        "bench-programs/conc-ise-fig6/v1.c",
        "bench-programs/conc-ise-fig6/v1.c",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("nothing is impacted"), "{out}");
}

#[test]
fn cli_explain_prints_a_shortest_chain() {
    let (code, out, err) = run_cli(&[
        "impact",
        "bench-programs/conc-ise-fig6/v1.c",
        "bench-programs/conc-ise-fig6/v2.c",
        "--explain",
        "v2.c:9",
        "--direction",
        "bwd",
    ]);
    assert_eq!(code, 1, "{err}");
    // change (19) <- control 18 <- data (cmp, load) <- memory: store of x on line 9
    let steps: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(steps.len(), 5, "{out}");
    assert!(
        steps[0].contains("v2.c:19") && steps[0].contains("change c0"),
        "{out}"
    );
    assert!(
        steps[1].contains("control") && steps[1].contains("v2.c:18"),
        "{out}"
    );
    assert!(
        steps[4].contains("memory") && steps[4].contains("v2.c:9"),
        "{out}"
    );
    // a line that is not impacted says so
    let (code, out, _) = run_cli(&[
        "impact",
        "bench-programs/conc-ise-fig6/v1.c",
        "bench-programs/conc-ise-fig6/v2.c",
        "--explain",
        "10",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("not impacted"), "{out}");
}

#[test]
fn cli_formats_dot_and_sarif() {
    let base = [
        "impact",
        "bench-programs/conc-ise-fig2/v1.c",
        "bench-programs/conc-ise-fig2/v2.c",
    ];
    let (_, dot, _) = run_cli(&[&base[..], &["--format", "dot"]].concat());
    assert!(
        dot.starts_with("digraph impact {") && dot.contains("->"),
        "{dot}"
    );
    let (_, sarif, _) =
        run_cli(&[&base[..], &["--format", "sarif", "--direction", "fwd"]].concat());
    let doc: Value = serde_json::from_str(&sarif).unwrap();
    assert_eq!(doc["version"], "2.1.0");
    // One result per change (the patch modifies line 16 only), at the
    // change; the impacted lines (10: thread1 reads x; 28: main's assert
    // reads a) are its related locations, not results of their own.
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{sarif}");
    let r = &results[0];
    assert_eq!(r["ruleId"], "impact/change");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        16
    );
    let related: Vec<u64> = r["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert!(
        related.contains(&10) && related.contains(&28),
        "{related:?}"
    );
    let (_, text, _) = run_cli(&base);
    assert!(
        text.contains("(thread thread1)") && text.contains("[c0]"),
        "{text}"
    );
}

#[test]
fn deleted_statements_are_closed_in_old_version_and_mapped() {
    // Algorithm 3 lines 9-13 on a synthetic pair: v1 has an extra store to x
    // that thread t reads; deleting it impacts (through Δmap) the read in v2.
    let dir = tempfile::tempdir().unwrap();
    let v1 = "#include <pthread.h>\nint x = 0;\nint y = 0;\nvoid *t(void *a) {\n  y = x + 1;\n  return 0;\n}\nint main(void) {\n  pthread_t h;\n  x = 3;\n  pthread_create(&h, 0, t, 0);\n  pthread_join(h, 0);\n  return y;\n}\n";
    let v2 = v1.replace("  x = 3;\n", "");
    std::fs::write(dir.path().join("v1.c"), v1).unwrap();
    std::fs::write(dir.path().join("v2.c"), &v2).unwrap();
    let out = concord()
        .args(["impact", "--format", "json"])
        .arg(dir.path().join("v1.c"))
        .arg(dir.path().join("v2.c"))
        .output()
        .unwrap();
    let doc: Value = serde_json::from_str(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!(doc["changes"][0]["kind"], "deleted");
    // old: x = 3 (10) -> y = x + 1 (5) -> return y (13); mapped: line 5 -> 5, 13 -> 12
    assert_eq!(lines(&doc, "fwd", "old"), set(&[5, 10, 13]));
    assert_eq!(lines(&doc, "fwd", "new"), set(&[5, 12]));
}

#[test]
fn happens_before_filter_from_join_and_loop_created_threads() {
    let src = "#include <pthread.h>\n\
int x = 0;\n\
int y = 0;\n\
void *child(void *a) {\n\
  int r = x;\n\
  y = r;\n\
  return 0;\n\
}\n\
int main(void) {\n\
  pthread_t h[2];\n\
  pthread_t c;\n\
  for (int i = 0; i < 2; i++)\n\
    pthread_create(&h[i], 0, child, 0);\n\
  pthread_create(&c, 0, child, 0);\n\
  pthread_join(c, 0);\n\
  x = 5;\n\
  return y;\n\
}\n";
    let f = facts_of_c(src);
    let run = run_cia(Engine::Ascent, &f, &BTreeSet::new(), &BTreeSet::new());
    let store_x = one(&f, 16, "store");
    let loads: Vec<u32> = at(&f, 5, "load");
    assert_eq!(loads.len(), 3, "three child instances");
    let joined = f
        .statements
        .iter()
        .find(|s| {
            s.line == 5 && s.kind == "load" && {
                let create = f
                    .threads
                    .iter()
                    .find(|t| t.id == s.thread)
                    .unwrap()
                    .create_stmt
                    .unwrap();
                f.statement(create).unwrap().line == 14
            }
        })
        .unwrap()
        .id;
    for &l in &loads {
        let dep = run.deps.contains(&(l, store_x, 2));
        // the joined child's read precedes `x = 5`; the loop children are never joined
        assert_eq!(dep, l != joined, "load {l} (joined {joined})");
    }
    // two instances from one create in a loop: each may read the other's store of y?
    // (no read of y in the children; main's `return y` may read every child's store)
    let ret_load = one(&f, 17, "load");
    assert_eq!(
        at(&f, 6, "store")
            .iter()
            .filter(|&&w| run.deps.contains(&(ret_load, w, 2)))
            .count(),
        3
    );
}

#[test]
fn sibling_instances_of_a_loop_create_depend_on_each_other() {
    let f = golden("loop-workers-join", "v2");
    let run = run_cia(Engine::Ascent, &f, &BTreeSet::new(), &BTreeSet::new());
    let loads = at(&f, 9, "load");
    let stores = at(&f, 10, "store");
    assert_eq!((loads.len(), stores.len()), (2, 2));
    for &l in &loads {
        let t = f.statement(l).unwrap().thread;
        for &w in &stores {
            let same = f.statement(w).unwrap().thread == t;
            // own store comes after the load; the sibling's store may come first
            assert_eq!(run.deps.contains(&(l, w, 2)), !same, "load {l} store {w}");
        }
    }
}

#[test]
fn a_thread_creation_controls_the_loops_of_the_thread() {
    // ecdiff-fig5-adhoc-flag v2: thread2 (created on line 25) spins on line 15,
    // then copies `a` into `x` (17), which main checks after the joins (28)
    let (code, out, err) = run_cli(&[
        "impact",
        "bench-programs/ecdiff-fig5-adhoc-flag/v2.c",
        "--changed",
        "25",
        "--direction",
        "fwd",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(lines(&doc, "fwd", "new"), set(&[15, 17, 18, 25, 28]));
}

/// loop-workers-join: main creates `worker` twice in a loop and then
/// reads `counter` (the moved line 22). Backward, both instances' write
/// `counter = n + 1` (line 10) may be what main reads: the text prints
/// the worker's lines once, under one header naming its two instances,
/// reached only across threads; JSON keeps one item per instance.
#[test]
fn impact_text_merges_thread_instances() {
    let base = [
        "-q",
        "impact",
        "--direction",
        "bwd",
        "bench-programs/loop-workers-join/v1.c",
        "bench-programs/loop-workers-join/v2.c",
    ];
    let (_, text, err) = run_cli(&base);
    assert!(
        text.contains("worker  (thread worker, 2 instances)"),
        "{text}{err}"
    );
    let writes: Vec<&str> = text.lines().filter(|l| l.contains("v2.c:10 ")).collect();
    assert_eq!(writes.len(), 1, "{text}");
    assert!(writes[0].contains("1 step cross-thread"), "{text}");
    let (_, json, _) = run_cli(&[&base[..], &["--format", "json"]].concat());
    let doc: Value = serde_json::from_str(&json).unwrap();
    let instances = doc["impacted"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["line"] == 10 && i["version"] == "new")
        .count();
    assert_eq!(instances, 2, "{json}");
    let ranked = &doc["ranked"][0];
    assert_eq!(ranked["direction"], "bwd");
    assert_eq!(
        ranked["totals"]["lines"].as_u64().unwrap() as usize,
        ranked["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["file"].as_str().unwrap(), l["line"].as_u64().unwrap()))
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
}
