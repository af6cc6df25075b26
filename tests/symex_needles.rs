//! The needles of issue 29: two threads that each loop 5, 10 or 20 times
//! (`i += j` / `j += i` in atomic sections) and an assertion that fails
//! only on the strict alternation of their updates (each program's header
//! derives it).  With the default settings of `concord symex` (dpor+ag,
//! bound deepening) and the 60 s budget, the violation must be
//! found: the verdict is asserted, not the time (`bench-symex --needles`
//! prints the time to the first violation).

use concord::symex::{explore_with, testutil, FindingKind, SymexOptions, Verdict};
use std::path::PathBuf;

fn needle(rel: &str) {
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
        .filter(|f| f.kind == FindingKind::Assertion)
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
