//! Program order and dominance are extracted in compact form (`po_scc`,
//! `po_scc_cyclic`, `po_scc_next` with junctions, `dom_parent`) and closed
//! by rules/order.dl. On every bench program (golden facts, both versions)
//! the derived relations must equal what a plain graph search over the
//! statement-level control-flow graph (`po_next`) says:
//!
//! - po(a, b) between events of one thread (`po_scc(a, c)`,
//!   `po_scc_reach(c, d)`, `po_scc(b, d)`) iff b is reachable from a by a
//!   non-empty `po_next` path;
//! - dom(a, b) iff a != b, every `po_next` path from the thread's entry to
//!   b passes a, and b does not reach a (they share no loop).
//!
//! Both engines are asked (ascent and crepe), and a contraction example
//! checks that a run of conditional events keeps `po_scc_next` linear.

use crate::common;
use common::{bench_cases, facts_of_c, repo_root};
use concord::analysis::{run, Engine, RuleProgram};
use concord::facts::{io::read_dir, FactSet};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Statement-level successors, from `po_next`.
fn successors(f: &FactSet) -> HashMap<u32, Vec<u32>> {
    let mut succ: HashMap<u32, Vec<u32>> = HashMap::new();
    for r in f.rows("po_next") {
        succ.entry(r[0]).or_default().push(r[1]);
    }
    succ
}

/// Statements reachable from `from` by a non-empty path, optionally never
/// entering `blocked`.
fn reach(succ: &HashMap<u32, Vec<u32>>, from: u32, blocked: Option<u32>) -> HashSet<u32> {
    let mut seen = HashSet::new();
    let mut stack: Vec<u32> = succ.get(&from).cloned().unwrap_or_default();
    while let Some(x) = stack.pop() {
        if Some(x) == blocked || !seen.insert(x) {
            continue;
        }
        stack.extend(succ.get(&x).into_iter().flatten().copied());
    }
    seen
}

/// Events of each thread, and each event's component.
fn events(f: &FactSet) -> (HashMap<u32, Vec<u32>>, HashMap<u32, u32>) {
    let mut by_thread: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut comp = HashMap::new();
    for r in f.rows("po_scc") {
        comp.insert(r[0], r[1]);
        by_thread
            .entry(f.statements[r[0] as usize].thread)
            .or_default()
            .push(r[0]);
    }
    (by_thread, comp)
}

/// The thread's entry: its first statement (extraction numbers a thread's
/// statements from its start routine's entry).
fn entry_of(f: &FactSet, thread: u32) -> u32 {
    f.statements
        .iter()
        .position(|s| s.thread == thread)
        .expect("a thread has statements") as u32
}

fn check_version(f: &FactSet, what: &str, engine: Engine) {
    let derived = run(RuleProgram::Hb, engine, f);
    let reach_rows: BTreeSet<(u32, u32)> = derived["po_scc_reach"]
        .iter()
        .map(|r| (r[0], r[1]))
        .collect();
    let dom_rows: BTreeSet<(u32, u32)> = derived["dom"].iter().map(|r| (r[0], r[1])).collect();
    let succ = successors(f);
    let (by_thread, comp) = events(f);
    let mut expected_dom = BTreeSet::new();
    for (&thread, evs) in &by_thread {
        let entry = entry_of(f, thread);
        let from_entry = reach(&succ, entry, None);
        let after: HashMap<u32, HashSet<u32>> =
            evs.iter().map(|&a| (a, reach(&succ, a, None))).collect();
        for &a in evs {
            let without_a = reach(&succ, entry, Some(a));
            for &b in evs {
                let rules = reach_rows.contains(&(comp[&a], comp[&b]));
                let search = after[&a].contains(&b);
                assert_eq!(
                    rules, search,
                    "{what}: po({a}, {b}) by the rules is {rules}, by search {search}"
                );
                let b_runs = b == entry || from_entry.contains(&b);
                let dominates =
                    a != b && b_runs && (a == entry || (b != entry && !without_a.contains(&b)));
                if dominates && !after[&b].contains(&a) {
                    expected_dom.insert((a, b));
                }
            }
        }
    }
    assert_eq!(
        dom_rows, expected_dom,
        "{what}: dom by the rules (left) differs from dominance by search (right)"
    );
}

#[test]
fn derived_program_order_and_dominance_match_graph_search_on_every_bench_program() {
    let cases = bench_cases();
    assert!(cases.len() >= 26, "found only {} bench pairs", cases.len());
    for case in cases {
        for v in ["v1", "v2"] {
            let dir = repo_root().join("facts").join(&case).join(v);
            let f = read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
            check_version(&f, &format!("{case}/{v} (ascent)"), Engine::Ascent);
        }
    }
}

#[cfg(feature = "reference-engine")]
#[test]
fn the_reference_engine_derives_the_same_order() {
    // A few programs with loops, conditionals and several threads suffice
    // for the engines to disagree if they can.
    for case in ["ag-fig4", "conc-ise-fig7", "producer-consumer-condvar"] {
        let dir = repo_root().join("facts").join(case).join("v2");
        let f = read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let a = run(RuleProgram::Hb, Engine::Ascent, &f);
        let c = run(RuleProgram::Hb, Engine::Crepe, &f);
        for rel in ["po_scc_reach", "dom"] {
            assert_eq!(a[rel], c[rel], "{case}: {rel} differs between engines");
        }
    }
}

/// A run of `if (c) x = ...;` statements: every store reaches every later
/// one, through the skipped branches. Projected onto events that is a
/// quadratic edge set; contracted, the junctions between the ifs carry it.
#[test]
fn a_run_of_conditional_events_keeps_the_component_graph_linear() {
    let n = 40;
    let mut body = String::new();
    for i in 0..n {
        body.push_str(&format!("  if (c > {i}) x = {i};\n"));
    }
    let src = format!(
        "#include <pthread.h>\nint x;\nvoid *t(void *p) {{\n  int c = *(int *)p;\n{body}  return 0;\n}}\n\
         int main(void) {{ pthread_t h; int c = 3; pthread_create(&h, 0, t, &c); pthread_join(h, 0); return 0; }}\n"
    );
    let f = facts_of_c(&src);
    let next = f.rows("po_scc_next").count();
    assert!(
        next <= 4 * n,
        "{next} po_scc_next rows for {n} conditional stores: not linear"
    );
    check_version(&f, "conditional run", Engine::Ascent);
    let derived = run(RuleProgram::Hb, Engine::Ascent, &f);
    let stores: Vec<u32> = f
        .rows("shared_write")
        .map(|r| r[0])
        .filter(|&s| {
            let st = &f.statements[s as usize];
            st.kind == "store" && st.function == "t"
        })
        .collect();
    assert!(
        stores.len() >= n,
        "expected {n} stores, got {}",
        stores.len()
    );
    // the closure still orders the first store before the last
    let comp: HashMap<u32, u32> = f.rows("po_scc").map(|r| (r[0], r[1])).collect();
    let (first, last) = (stores[0], stores[stores.len() - 1]);
    assert!(
        derived["po_scc_reach"].contains(&vec![comp[&first], comp[&last]]),
        "store {first} (line {}) should reach store {last} (line {}); stores {stores:?}",
        f.statements[first as usize].line,
        f.statements[last as usize].line
    );
}

/// `concord query` prints the derived component pairs as numbers (the
/// rows of the relation), not as location names.
#[test]
fn query_prints_derived_component_reachability_as_numbers() {
    let dir = repo_root().join("facts/ag-fig4/v1");
    let f = read_dir(&dir).unwrap();
    let want: BTreeSet<Vec<String>> = run(RuleProgram::Hb, Engine::Ascent, &f)["po_scc_reach"]
        .iter()
        .map(|r| r.iter().map(u32::to_string).collect())
        .collect();
    assert!(!want.is_empty());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["query", dir.to_str().unwrap(), "po_scc_reach", "-q"])
        .output()
        .expect("run concord");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let got: BTreeSet<Vec<String>> = text
        .lines()
        .skip(1) // header
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    assert_eq!(got, want);
}
