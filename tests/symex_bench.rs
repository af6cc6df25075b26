//! The symbolic executor on every bench program (both versions): the five
//! reduction modes report the same violated assertions (soundness of DPOR
//! and of the assertion-guided pruning), every violation replays, and the
//! violated lines are the ones each case's `expected.toml` gives in
//! `[symex]` (written from reasoning about the program).

use crate::common;
use common::*;
use concord::symex::{
    explore, output, testutil, Exploration, FindingKind, Reduction, SymexOptions,
};
use std::collections::BTreeSet;

const LOOP_BOUND: u32 = 3;

fn run(m: &llvm_ir::Module, reduction: Reduction) -> Exploration {
    let opts = SymexOptions {
        reduction,
        loop_bound: LOOP_BOUND,
        max_seconds: Some(120.0),
        progress: false,
        ..Default::default()
    };
    explore(m, &opts).expect("explores")
}

fn expected_lines(case: &str, key: &str) -> Option<BTreeSet<u32>> {
    let text =
        std::fs::read_to_string(repo_root().join(format!("bench-programs/{case}/expected.toml")))
            .unwrap();
    let v: toml::Value = toml::from_str(&text).unwrap();
    let lines = v.get("symex")?.get(key)?.as_array()?;
    Some(
        lines
            .iter()
            .map(|l| l.as_integer().unwrap() as u32)
            .collect(),
    )
}

#[test]
fn bench_programs_same_violations_in_every_mode_and_as_reasoned() {
    let mut problems = Vec::new();
    for case in bench_cases() {
        for (version, key) in [("v1", "old_violation_lines"), ("v2", "new_violation_lines")] {
            let path = repo_root().join(format!("bench-programs/{case}/{version}.c"));
            let m = testutil::load(&path).unwrap();
            let none = run(&m, Reduction::None);
            let dpor = run(&m, Reduction::Dpor);
            let ag = run(&m, Reduction::DporAg);
            let odpor = run(&m, Reduction::Odpor);
            let oag = run(&m, Reduction::OdporAg);
            let name = format!("{case}/{version}");
            for (mode, x) in [
                ("none", &none),
                ("dpor", &dpor),
                ("dpor+ag", &ag),
                ("odpor", &odpor),
                ("odpor+ag", &oag),
            ] {
                if x.stats.incomplete {
                    problems.push(format!(
                        "{name}: {mode} did not finish within the time limit"
                    ));
                }
            }
            if none.violation_locations() != dpor.violation_locations() {
                problems.push(format!(
                    "{name}: none {:?} vs dpor {:?}",
                    none.violation_locations(),
                    dpor.violation_locations()
                ));
            }
            if none.violation_locations() != odpor.violation_locations() {
                problems.push(format!(
                    "{name}: none {:?} vs odpor {:?}",
                    none.violation_locations(),
                    odpor.violation_locations()
                ));
            }
            if dpor.violation_locations() != oag.violation_locations() {
                problems.push(format!(
                    "{name}: dpor {:?} vs odpor+ag {:?}",
                    dpor.violation_locations(),
                    oag.violation_locations()
                ));
            }
            if none.violation_locations() != ag.violation_locations() {
                problems.push(format!(
                    "{name}: none {:?} vs dpor+ag {:?}",
                    none.violation_locations(),
                    ag.violation_locations()
                ));
            }
            for f in ag.findings.iter().filter(|f| f.kind.is_violation()) {
                let r = output::replay(&m, f, LOOP_BOUND).expect("replays");
                if !r.confirmed {
                    problems.push(format!(
                        "{name}: {:?} at {} does not replay",
                        f.kind, f.location
                    ));
                }
            }
            if let Some(want) = expected_lines(&case, key) {
                // [symex] lists failing assertions and error calls (deadlocks are reported apart).
                let got: BTreeSet<u32> = none
                    .findings
                    .iter()
                    .filter(|f| matches!(f.kind, FindingKind::Assertion | FindingKind::ErrorCall))
                    .map(|f| f.line)
                    .collect();
                if got != want {
                    problems.push(format!("{name}: violated lines {got:?}, expected {want:?}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
