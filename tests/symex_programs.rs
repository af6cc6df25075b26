//! Every program in `symex-programs/` carries its expected verdict in its
//! header (`// expect: safe`, `// expect: violation at line N, M`,
//! `// expect: deadlock`), derived by reasoning about the program.  These
//! tests run the executor in every reduction mode and check the verdicts,
//! that the modes agree on the violated locations (soundness of DPOR and of
//! the assertion-guided pruning), and that every reported violation replays.
//! `// verdict: inconclusive` marks a correct program whose runs are cut
//! (busy waiting spins past every bound): its verdict must say so, never
//! `verified`.

use concord::symex::{
    explore, output, testutil, Exploration, FindingKind, Reason, Reduction, SymexOptions, Verdict,
};
use std::collections::BTreeSet;
use std::path::PathBuf;

struct Expect {
    lines: BTreeSet<u32>,
    deadlock: bool,
    /// `// bound: N`; without it the loop bound is deepened (3, 6, 12, 24)
    /// as `concord symex` does by default.
    bound: Option<u32>,
    /// Safe, but cut at every bound.
    inconclusive: bool,
}

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("symex-programs");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().map(|e| e == "c").unwrap_or(false))
        .collect();
    v.sort();
    v
}

fn expectation(p: &std::path::Path) -> Expect {
    let text = std::fs::read_to_string(p).unwrap();
    let mut e = Expect {
        lines: BTreeSet::new(),
        deadlock: false,
        bound: None,
        inconclusive: false,
    };
    e.inconclusive = text
        .lines()
        .any(|l| l.starts_with("// verdict: inconclusive"));
    if let Some(b) = text.lines().find_map(|l| l.strip_prefix("// bound: ")) {
        e.bound = Some(b.split_whitespace().next().unwrap().parse().unwrap());
    }
    let mut seen = false;
    for l in text.lines().filter_map(|l| l.strip_prefix("// expect: ")) {
        seen = true;
        if l == "deadlock" {
            e.deadlock = true;
        } else if let Some(ns) = l.strip_prefix("violation at line ") {
            e.lines
                .extend(ns.split(',').map(|n| n.trim().parse::<u32>().unwrap()));
        } else {
            assert_eq!(l, "safe", "{}: bad expect line", p.display());
        }
    }
    assert!(seen, "{} has no `// expect:` header", p.display());
    e
}

fn run(m: &llvm_ir::Module, r: Reduction, e: &Expect) -> Exploration {
    let o = SymexOptions {
        reduction: r,
        loop_bound: e.bound.unwrap_or(3),
        max_loop_bound: if e.bound.is_none() { Some(24) } else { None },
        max_seconds: Some(300.0),
        ..Default::default()
    };
    explore(m, &o).unwrap()
}

fn check_verdict(p: &std::path::Path, e: &Expect, x: &Exploration, mode: Reduction) {
    let name = p.file_name().unwrap().to_string_lossy();
    let unsupported: Vec<_> = x
        .findings
        .iter()
        .filter(|f| f.kind == FindingKind::Unsupported)
        .collect();
    assert!(
        unsupported.is_empty(),
        "{name} ({mode}): unsupported constructs: {unsupported:?}"
    );
    assert!(
        !x.stats.incomplete,
        "{name} ({mode}): exploration did not finish"
    );
    let lines: BTreeSet<u32> = x
        .findings
        .iter()
        .filter(|f| f.kind.is_violation() && f.kind != FindingKind::Deadlock)
        .map(|f| f.line)
        .collect();
    assert_eq!(lines, e.lines, "{name} ({mode}): violated lines");
    let dl = x.findings.iter().any(|f| f.kind == FindingKind::Deadlock);
    assert_eq!(dl, e.deadlock, "{name} ({mode}): deadlock");
    let want = if !e.lines.is_empty() || e.deadlock {
        Verdict::Violation
    } else if e.inconclusive {
        Verdict::Inconclusive
    } else {
        Verdict::Verified
    };
    assert_eq!(
        x.stats.verdict, want,
        "{name} ({mode}): verdict ({:?})",
        x.stats.reasons
    );
    if want == Verdict::Inconclusive {
        assert!(
            x.stats
                .reasons
                .iter()
                .any(|r| matches!(r, Reason::Cut { runs, .. } if *runs > 0)),
            "{name} ({mode}): inconclusive must name the cut runs: {:?}",
            x.stats.reasons
        );
    }
}

#[test]
fn there_are_at_least_20_concurrency_programs() {
    let n = programs()
        .iter()
        .filter(|p| !p.to_string_lossy().contains("fig"))
        .count();
    assert!(n >= 20, "only {n} programs");
}

#[test]
fn verdicts_under_dpor() {
    for p in programs() {
        let m = testutil::load(&p).unwrap();
        let e = expectation(&p);
        check_verdict(&p, &e, &run(&m, Reduction::Dpor, &e), Reduction::Dpor);
    }
}

#[test]
fn verdicts_under_dpor_ag() {
    for p in programs() {
        let m = testutil::load(&p).unwrap();
        let e = expectation(&p);
        check_verdict(&p, &e, &run(&m, Reduction::DporAg, &e), Reduction::DporAg);
    }
}

#[test]
fn verdicts_under_odpor() {
    for p in programs() {
        let m = testutil::load(&p).unwrap();
        let e = expectation(&p);
        check_verdict(&p, &e, &run(&m, Reduction::Odpor, &e), Reduction::Odpor);
    }
}

#[test]
fn verdicts_under_odpor_ag() {
    for p in programs() {
        let m = testutil::load(&p).unwrap();
        let e = expectation(&p);
        check_verdict(&p, &e, &run(&m, Reduction::OdporAg, &e), Reduction::OdporAg);
    }
}

/// odpor+ag against dpor: the same violated locations on every program,
/// normal termination kept (as a complete or a pruned run), and never more
/// complete runs than odpor alone (the pruning only removes runs).
#[test]
fn odpor_ag_finds_what_dpor_finds() {
    for p in programs() {
        let m = testutil::load(&p).unwrap();
        let e = expectation(&p);
        let dpor = run(&m, Reduction::Dpor, &e);
        let odpor = run(&m, Reduction::Odpor, &e);
        let oag = run(&m, Reduction::OdporAg, &e);
        let name = p.file_name().unwrap().to_string_lossy();
        assert_eq!(
            dpor.violation_locations(),
            oag.violation_locations(),
            "{name}: dpor vs odpor+ag"
        );
        assert_eq!(
            dpor.stats.complete_runs > 0,
            oag.stats.complete_runs + oag.stats.partial_runs > 0,
            "{name}: normal termination lost by odpor+ag"
        );
        assert!(
            oag.stats.runs() <= odpor.stats.runs(),
            "{name}: odpor+ag explored more runs ({}) than odpor ({})",
            oag.stats.runs(),
            odpor.stats.runs()
        );
    }
}

/// Baseline is exhaustive: the verdicts must hold there too, and the three
/// modes must report the same violated locations.
#[test]
fn soundness_same_violations_in_all_modes() {
    for p in programs() {
        let m = testutil::load(&p).unwrap();
        let e = expectation(&p);
        let none = run(&m, Reduction::None, &e);
        check_verdict(&p, &e, &none, Reduction::None);
        let dpor = run(&m, Reduction::Dpor, &e);
        let ag = run(&m, Reduction::DporAg, &e);
        let odpor = run(&m, Reduction::Odpor, &e);
        let name = p.file_name().unwrap().to_string_lossy();
        assert_eq!(
            none.violation_locations(),
            odpor.violation_locations(),
            "{name}: none vs odpor"
        );
        assert_eq!(
            none.stats.complete_runs > 0,
            odpor.stats.complete_runs > 0,
            "{name}: normal termination lost by odpor"
        );
        // Optimal: never more runs than FG-DPOR (one per trace and path).
        assert!(
            odpor.stats.runs() <= dpor.stats.runs(),
            "{name}: odpor explored more runs ({}) than dpor ({})",
            odpor.stats.runs(),
            dpor.stats.runs()
        );
        assert_eq!(
            none.violation_locations(),
            dpor.violation_locations(),
            "{name}: none vs dpor"
        );
        assert_eq!(
            none.violation_locations(),
            ag.violation_locations(),
            "{name}: none vs dpor+ag"
        );
        // A program that can terminate normally still does under DPOR (a
        // reduction must keep one run per trace, not only the failing ones).
        assert_eq!(
            none.stats.complete_runs > 0,
            dpor.stats.complete_runs > 0,
            "{name}: normal termination lost by dpor"
        );
        // (Only one way: a partial run may also stand for paths that end
        // in an already reported violation, Conc-iSE §6.2.)
        assert!(
            none.stats.complete_runs == 0 || ag.stats.complete_runs + ag.stats.partial_runs > 0,
            "{name}: normal termination lost by dpor+ag"
        );
        // The reductions never explore more complete runs than the baseline.
        assert!(
            dpor.stats.runs() <= none.stats.runs(),
            "{name}: dpor explored more runs than none"
        );
        assert!(
            ag.stats.runs() <= dpor.stats.runs(),
            "{name}: dpor+ag explored more runs than dpor"
        );
    }
}

#[test]
fn every_violation_replays() {
    for p in programs() {
        let m = testutil::load(&p).unwrap();
        let e = expectation(&p);
        let x = run(&m, Reduction::DporAg, &e);
        for f in x.findings.iter().filter(|f| f.kind.is_violation()) {
            let r = output::replay(&m, f, x.stats.loop_bound).unwrap();
            assert!(
                r.confirmed,
                "{}: {:?} at {} did not replay: {:?}",
                p.display(),
                f.kind,
                f.location,
                r.got
            );
        }
    }
}

/// Replay is not vacuous: a schedule that avoids the race does not confirm.
#[test]
fn replay_with_a_safe_schedule_does_not_confirm() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("symex-programs/racy_counter.c");
    let m = testutil::load(&p).unwrap();
    let x = run(&m, Reduction::Dpor, &expectation(&p));
    let mut f = x.findings[0].clone();
    // Main creates a, a reads and writes c, main creates b, b reads and
    // writes c, main joins both: no interleaving inside an increment.
    f.schedule = vec![0, 1, 1, 0, 2, 2, 0, 0];
    let r = output::replay(&m, &f, 3).unwrap();
    assert!(
        !r.confirmed,
        "serial schedule must not reproduce the lost update: {:?}",
        r.got
    );
}
