//! The exploration strategies explore exactly what they explored before
//! they were put behind a trait (issue 25): for every program of
//! `symex-programs/`, every reduction mode (and the interference bound on
//! top of three of them), the run counts, the pruning counters and the
//! findings must equal the row of `tests/fixtures/symex_strategy_counts.tsv`.
//!
//! That table is a reviewed golden: it was produced by the engine at
//! f728e89, before the strategies were moved (the code under test did not
//! write it).  Issue 29 changed the thread order (threads that have not
//! run yet first) and regenerated it: 61 rows changed, no finding;
//! docs/symex.md ("Needles") explains each kind of change. On 2026-11-28
//! the slice began to count a read-modify-write's read of memory: in
//! `ticket_lock` the two fetch-adds on `next_ticket` became dependent, so
//! `dpor+ag` and `odpor+ag` explore both ticket orders (2 rows changed:
//! more partial and cut runs, the same findings).  Set `CONCORD_WRITE_STRATEGY_COUNTS=FILE` to print the
//! current rows into FILE instead of comparing (to inspect a change, not
//! to bless one).
//!
//! Each exploration is bounded by a run count, not by time, so that a
//! slow machine gives the same rows.

use concord::symex::{explore, testutil, Exploration, Reduction, SymexOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Runs (of every kind) after which an exploration stops: large enough for
/// most programs to finish, small enough for a debug build.
const MAX_RUNS: u64 = 3000;

fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("symex-programs");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    v
}

/// `// bound: N` of the program, else 3 (one stage, no deepening).
fn bound_of(p: &std::path::Path) -> u32 {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("// bound: "))
        .and_then(|b| b.split_whitespace().next()?.parse().ok())
        .unwrap_or(3)
}

/// One row: what the strategy decided, as counters and findings.
fn row(x: &Exploration) -> String {
    let s = &x.stats;
    let mut findings: Vec<String> = x
        .findings
        .iter()
        // The file name only: the checkout's directory is no part of the row.
        .map(|f| {
            let at = f.location.rsplit('/').next().unwrap_or(&f.location);
            format!("{:?}@{at}", f.kind)
        })
        .collect();
    findings.sort();
    format!(
        "complete={} error={} partial={} cut={} assume_false={} sleep_blocked={} \
         pruned_branches={} pruned_interleavings={} summaries={} interference_cut={} \
         incomplete={}\t{}",
        s.complete_runs,
        s.error_runs,
        s.partial_runs,
        s.cut_runs,
        s.assume_false,
        s.sleep_blocked,
        s.pruned_branches,
        s.pruned_interleavings,
        s.summaries,
        s.interference_cut_runs,
        s.incomplete,
        findings.join(" ")
    )
}

/// The configurations compared: each reduction mode, and the interference
/// bound (1) layered on none, dpor and odpor.
fn configurations() -> Vec<(String, Reduction, Option<u32>)> {
    let mut v: Vec<(String, Reduction, Option<u32>)> = [
        Reduction::None,
        Reduction::Dpor,
        Reduction::DporAg,
        Reduction::Odpor,
        Reduction::OdporAg,
    ]
    .into_iter()
    .map(|r| (r.to_string(), r, None))
    .collect();
    for r in [Reduction::None, Reduction::Dpor, Reduction::Odpor] {
        v.push((format!("{r}/interference<=1"), r, Some(1)));
    }
    v
}

fn current_rows() -> BTreeMap<String, String> {
    let mut rows = BTreeMap::new();
    for p in programs() {
        let m = testutil::load(&p).unwrap();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        for (label, reduction, max_interferences) in configurations() {
            let o = SymexOptions {
                reduction,
                loop_bound: bound_of(&p),
                max_runs: Some(MAX_RUNS),
                max_interferences,
                ..Default::default()
            };
            let x = explore(&m, &o).unwrap();
            rows.insert(format!("{name}\t{label}"), row(&x));
        }
    }
    rows
}

#[test]
fn every_strategy_explores_what_it_explored_before_the_trait() {
    let rows = current_rows();
    let text: String = rows.iter().map(|(k, v)| format!("{k}\t{v}\n")).collect();
    if let Some(out) = std::env::var_os("CONCORD_WRITE_STRATEGY_COUNTS") {
        std::fs::write(out, text).unwrap();
        return;
    }
    let golden_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/symex_strategy_counts.tsv");
    let golden = std::fs::read_to_string(golden_path).unwrap();
    let expected: BTreeMap<String, String> = golden
        .lines()
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let (p, c, rest) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            (format!("{p}\t{c}"), rest.to_string())
        })
        .collect();
    let mut diffs = Vec::new();
    for (k, v) in &expected {
        match rows.get(k) {
            Some(now) if now == v => {}
            Some(now) => diffs.push(format!("{k}\n  before: {v}\n  now:    {now}")),
            None => diffs.push(format!("{k}: no longer explored")),
        }
    }
    for k in rows.keys().filter(|k| !expected.contains_key(*k)) {
        diffs.push(format!("{k}: not in the golden table"));
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
