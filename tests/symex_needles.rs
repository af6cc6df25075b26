//! The needles of issue 29: two threads that each loop 5, 10 or 20 times
//! (`i += j` / `j += i`, in atomic sections or plain, joined or read by
//! main while they run as in SV-COMP's `fib_bench`) and an assertion that
//! fails only on the strict alternation of their updates (each program's
//! header derives it).  With the default settings of `concord symex`
//! (first pass, then dpor+ag with bound deepening) and the 60 s
//! budget, the violation must be found: the verdict is asserted, not the
//! time (`bench-symex --needles` prints the time to the first violation).

use concord::symex::{explore_with, testutil, FindingKind, SymexOptions, Verdict};
use std::path::PathBuf;

fn needle(rel: &str) {
    needle_with(rel, None)
}

/// `max_runs`: a cap on the complete search, which goes on after the
/// violation until the budget runs out (the first pass takes at most
/// `first_pass::RUNS_PER_ORDER` runs per order whatever the cap).
fn needle_with(rel: &str, max_runs: Option<u64>) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    let line: u32 = text
        .lines()
        .find_map(|l| l.strip_prefix("// expect: violation at line "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let m = testutil::load(&p).unwrap();
    // `concord symex`'s defaults: dpor+ag, deepening up to bound 24; the
    // budget is the issue's.
    let o = SymexOptions {
        max_loop_bound: Some(24),
        max_seconds: Some(60.0),
        max_runs,
        ..Default::default()
    };
    let x = explore_with(&m, &o, &mut |_, _| {}).unwrap();
    assert_eq!(
        x.stats.verdict,
        Verdict::Violation,
        "{rel}: {:?}",
        x.stats.reasons
    );
    let lines: Vec<u32> = x
        .findings
        .iter()
        .filter(|f| matches!(f.kind, FindingKind::Assertion | FindingKind::ErrorCall))
        .map(|f| f.line)
        .collect();
    assert_eq!(lines, vec![line], "{rel}");
}

#[test]
fn the_needle_with_5_iterations_is_found() {
    needle("symex-programs/needle.c");
}

#[test]
fn the_needle_with_10_iterations_is_found() {
    needle("symex-programs/needles/needle10.c");
}

#[test]
fn the_needle_with_20_iterations_is_found() {
    needle("symex-programs/needles/needle20.c");
}

// The forms the thread order of the complete search does not reach
// first: found by the first pass.  The complete search is capped at 200
// runs (it would go on for the whole budget): the verdict comes from the
// first pass's violation.

#[test]
fn the_plain_needle_with_10_iterations_is_found() {
    needle_with("symex-programs/needles/plain10.c", Some(200));
}

#[test]
fn the_plain_needle_with_20_iterations_is_found() {
    needle_with("symex-programs/needles/plain20.c", Some(200));
}

#[test]
fn fib_bench_with_10_iterations_is_found() {
    needle_with("symex-programs/needles/fib_bench10.c", Some(200));
}

#[test]
fn fib_bench_with_20_iterations_is_found() {
    needle_with("symex-programs/needles/fib_bench20.c", Some(200));
}

#[test]
fn plain_fib_bench_with_10_iterations_is_found() {
    needle_with("symex-programs/needles/fib_bench_plain10.c", Some(200));
}

#[test]
fn plain_fib_bench_with_20_iterations_is_found() {
    needle_with("symex-programs/needles/fib_bench_plain20.c", Some(200));
}

/// The first pass never decides a verdict: without it the complete search
/// alone, capped, finds nothing on these needles (so the tests above do
/// test the first pass), and with it the complete search's counters are
/// the same.
#[test]
fn the_first_pass_is_counted_apart_and_changes_no_counter() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("symex-programs/needles/plain10.c");
    let m = testutil::load(&p).unwrap();
    let o = SymexOptions {
        max_runs: Some(50),
        ..Default::default()
    };
    let with = explore_with(&m, &o, &mut |_, _| {}).unwrap();
    let without = explore_with(
        &m,
        &SymexOptions {
            first_pass: false,
            ..o
        },
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(without.stats.verdict, Verdict::Inconclusive);
    assert_eq!(without.stats.first_pass_runs, 0);
    assert_eq!(with.stats.verdict, Verdict::Violation);
    assert!(with.stats.first_pass_runs > 0);
    assert_eq!(with.stats.runs(), without.stats.runs());
    assert_eq!(with.stats.partial_runs, without.stats.partial_runs);
}
