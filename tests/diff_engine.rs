//! The two-version diff programs (`rules/diff*.dl`, `src/analysis/diff.rs`)
//! against the previous implementation kept as the reference
//! (`src/analysis/diff_reference.rs`: each version's rank-k sets built in
//! full and compared in Rust). docs/rules.md argues they are equal; these
//! tests check it on every bench pair and on pairs of synthetic programs,
//! at every rank, with both engines, and check the invariant the argument
//! rests on (every rank3_no triple is a triangle of rank2_may).

use crate::common;
use common::*;

use crate::synth;

use concord::analysis::diff::{sync_diff, DiffOptions, Side, SyncDiff};
use concord::analysis::diff_reference::sync_diff_reference;
use concord::analysis::{run, Engine, RuleProgram};
use concord::budget::Budget;
use concord::facts::extract::{extract, ExtractOptions};
use concord::facts::FactSet;
use concord::frontend::{load_program, CompileOptions};
use concord::versions::{match_versions, Version, VersionMatch};
use std::path::Path;

struct Pair {
    name: String,
    old: FactSet,
    new: FactSet,
    m: VersionMatch,
}

fn load(path: &Path) -> FactSet {
    let program = load_program(path, &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    extract(&program, &ExtractOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pair(name: String, old_path: &Path, new_path: &Path) -> Pair {
    let old = load(old_path);
    let new = load(new_path);
    let (so, sn) = (
        std::fs::read_to_string(old_path).unwrap(),
        std::fs::read_to_string(new_path).unwrap(),
    );
    let m = match_versions(
        &Version {
            facts: &old,
            source: Some(&so),
        },
        &Version {
            facts: &new,
            source: Some(&sn),
        },
    );
    Pair { name, old, new, m }
}

fn bench_pairs() -> Vec<Pair> {
    let cases = bench_cases();
    assert!(cases.len() >= 26, "found only {} bench pairs", cases.len());
    cases
        .into_iter()
        .map(|c| {
            let dir = repo_root().join("bench-programs").join(&c);
            pair(c, &dir.join("v1.c"), &dir.join("v2.c"))
        })
        .collect()
}

/// Pairs of synthetic programs one step apart in size or locking, so that
/// they differ at rank 1 and above.
fn synthetic_pairs(dir: &Path) -> Vec<Pair> {
    let sz = |threads, accesses, locks| synth::Size {
        threads,
        accesses,
        locks,
    };
    [
        (sz(3, 6, 1), sz(3, 6, 2)),
        (sz(2, 10, 0), sz(2, 10, 1)),
        (sz(4, 4, 2), sz(4, 5, 2)),
        (sz(3, 5, 3), sz(3, 5, 0)),
        (sz(3, 6, 1), sz(3, 6, 1)),
    ]
    .into_iter()
    .map(|(a, b)| {
        let pa = dir.join(format!("{a}.c"));
        let pb = dir.join(format!("{b}-new.c"));
        std::fs::write(&pa, synth::generate(a)).unwrap();
        std::fs::write(&pb, synth::generate(b)).unwrap();
        pair(format!("synth {a} -> {b}"), &pa, &pb)
    })
    .collect()
}

/// Three threads, each in a critical section of `m` writing one variable
/// and then reading the next: A writes y, reads x; B writes z, reads y; C
/// writes x, reads z. Each read-from edge across sections (C's x to A, A's
/// y to B, B's z to C) and each pair of them can happen, but all three
/// together need C's section before A's, A's before B's and B's before
/// C's: a cycle, so the triple is impossible in every order (rank3_no rule
/// 3', three crossing critical sections). The new version moves C to its
/// own mutex `m2`; C's section no longer excludes the others and the cycle
/// is possible. Ranks 1 and 2 see nothing (no rule of theirs involves
/// three sections); rank 3 finds the triple, only in new, in its six orders.
const CYCLE_OLD: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
int x, y, z, ra, rb, rc;
void *ta(void *p) { pthread_mutex_lock(&m); y = 1; ra = x; pthread_mutex_unlock(&m); return 0; }
void *tb(void *p) { pthread_mutex_lock(&m); z = 1; rb = y; pthread_mutex_unlock(&m); return 0; }
void *tc(void *p) { pthread_mutex_lock(&m); x = 1; rc = z; pthread_mutex_unlock(&m); return 0; }
int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, ta, 0); pthread_create(&b, 0, tb, 0); pthread_create(&c, 0, tc, 0);
  pthread_join(a, 0); pthread_join(b, 0); pthread_join(c, 0);
  return 0;
}
"#;

fn cycle_pair(dir: &Path) -> Pair {
    let new_src = CYCLE_OLD
        .replace(
            "void *tc(void *p) { pthread_mutex_lock(&m);",
            "void *tc(void *p) { pthread_mutex_lock(&m2);",
        )
        .replace(
            "rc = z; pthread_mutex_unlock(&m);",
            "rc = z; pthread_mutex_unlock(&m2);",
        );
    assert_ne!(new_src, CYCLE_OLD);
    let (a, b) = (dir.join("cycle-v1.c"), dir.join("cycle-v2.c"));
    std::fs::write(&a, CYCLE_OLD).unwrap();
    std::fs::write(&b, new_src).unwrap();
    pair("three-section cycle".into(), &a, &b)
}

#[test]
fn three_section_cycle_differs_only_at_rank_3() {
    let dir = tempfile::tempdir().unwrap();
    let p = cycle_pair(dir.path());
    let bad = check_agree(&p, Engine::Ascent);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let d = sync_diff(
        &p.old,
        &p.new,
        &p.m,
        &DiffOptions::default(),
        &Budget::unlimited(),
    )
    .unwrap();
    assert_eq!(d.first_rank, 3, "{:?}", d.differences);
    assert_eq!(d.differences.len(), 6, "{:?}", d.differences);
    // the three edges, as (write line, read line): C->A (x), A->B (y), B->C (z)
    let line = |s: u32| p.new.statement(s).unwrap().line;
    let expected: std::collections::BTreeSet<(u32, u32)> = [(7, 5), (5, 6), (6, 7)].into();
    for diff in &d.differences {
        assert_eq!(diff.only_in, concord::analysis::diff::Side::New);
        let edges: std::collections::BTreeSet<(u32, u32)> = diff
            .edges
            .iter()
            .map(|&(w, r)| (line(w), line(r)))
            .collect();
        assert_eq!(edges, expected, "{diff:?}");
    }
}

/// Four threads in critical sections of `m` whose read-from edges cross in
/// cycles (A, B, C as in CYCLE_OLD, D a fourth section reading x), and
/// three patches that break a cycle in the ways diff3.dl finds from what
/// changed: a store moved out of its section (C's `x = 1` before the
/// lock), a section put in a loop (B's), a section moved to another mutex
/// (D's). Each patch, in both directions, must agree with the reference
/// (set differences of each version's rank3_may).
const CROSS_OLD: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
int x, y, z, w, ra, rb, rc, rd;
void *ta(void *p) { pthread_mutex_lock(&m); y = 1; ra = x; pthread_mutex_unlock(&m); return 0; }
void *tb(void *p) { pthread_mutex_lock(&m); z = 1; rb = y; pthread_mutex_unlock(&m); return 0; }
void *tc(void *p) { pthread_mutex_lock(&m); x = 1; rc = z; pthread_mutex_unlock(&m); return 0; }
void *td(void *p) { pthread_mutex_lock(&m); w = 1; rd = x; y = 2; pthread_mutex_unlock(&m); return 0; }
int main(void) {
  pthread_t a, b, c, d;
  pthread_create(&a, 0, ta, 0); pthread_create(&b, 0, tb, 0);
  pthread_create(&c, 0, tc, 0); pthread_create(&d, 0, td, 0);
  pthread_join(a, 0); pthread_join(b, 0); pthread_join(c, 0); pthread_join(d, 0);
  return 0;
}
"#;

fn crossing_pairs(dir: &Path) -> Vec<Pair> {
    let patches = [
        (
            "store moved out of its section",
            "pthread_mutex_lock(&m); x = 1; rc = z;",
            "x = 1; pthread_mutex_lock(&m); rc = z;",
        ),
        (
            "section put in a loop",
            "{ pthread_mutex_lock(&m); z = 1; rb = y; pthread_mutex_unlock(&m); return 0; }",
            "{ for (int i = 0; i < 2; i++) { pthread_mutex_lock(&m); z = 1; rb = y; pthread_mutex_unlock(&m); } return 0; }",
        ),
        (
            "section moved to another mutex",
            "pthread_mutex_lock(&m); w = 1; rd = x; y = 2; pthread_mutex_unlock(&m);",
            "pthread_mutex_lock(&m2); w = 1; rd = x; y = 2; pthread_mutex_unlock(&m2);",
        ),
    ];
    let base = dir.join("cross.c");
    std::fs::write(&base, CROSS_OLD).unwrap();
    let mut out = Vec::new();
    for (i, (name, from, to)) in patches.into_iter().enumerate() {
        let patched = CROSS_OLD.replace(from, to);
        assert_ne!(patched, CROSS_OLD, "{name}: the patch does not apply");
        let path = dir.join(format!("cross-{i}.c"));
        std::fs::write(&path, patched).unwrap();
        out.push(pair(format!("{name} (forward)"), &base, &path));
        out.push(pair(format!("{name} (reverted)"), &path, &base));
    }
    out
}

#[test]
fn rank3_from_what_changed_equals_reference_on_crossing_sections() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = crossing_pairs(dir.path());
    let bad: Vec<String> = pairs
        .iter()
        .flat_map(|p| check_agree(p, Engine::Ascent))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // not vacuous: every patch changes some triple at rank 3 (one of its
    // directions removes a cycle, the other adds it)
    let opts = DiffOptions {
        max_rank: 3,
        all_ranks: true,
        ..DiffOptions::default()
    };
    for two in pairs.chunks(2) {
        let rank3: usize = two
            .iter()
            .map(|p| {
                sync_diff(&p.old, &p.new, &p.m, &opts, &Budget::unlimited())
                    .unwrap()
                    .differences
                    .iter()
                    .filter(|d| d.rank == 3)
                    .count()
            })
            .sum();
        assert!(rank3 > 0, "{}: no rank-3 difference", two[0].name);
    }
}

/// Everything the report shows from a sync diff, except timing.
fn observable(d: &SyncDiff) -> String {
    format!(
        "first_rank {} ranks_checked {}\ndifferences {:?}\nthrough {:?}\nold {:?}\nnew {:?}\nlocks {:?} {:?}",
        d.first_rank,
        d.ranks_checked,
        d.differences,
        d.through_changes,
        d.old_stats,
        d.new_stats,
        d.old_lock_order,
        d.new_lock_order
    )
}

/// New and reference diffs agree for every rank limit, with and without
/// --all-ranks; rank-3 counts are compared too (`--counts`).
fn check_agree(p: &Pair, engine: Engine) -> Vec<String> {
    let budget = Budget::unlimited();
    let mut bad = Vec::new();
    for max_rank in 1..=3 {
        for all_ranks in [false, true] {
            let opts = DiffOptions {
                max_rank,
                all_ranks,
                engine,
                counts: true,
            };
            let new = sync_diff(&p.old, &p.new, &p.m, &opts, &budget).unwrap();
            let reference = sync_diff_reference(&p.old, &p.new, &p.m, &opts, &budget).unwrap();
            let (a, b) = (observable(&new), observable(&reference));
            if a != b {
                bad.push(format!(
                    "{} (max rank {max_rank}, all ranks {all_ranks}, {engine:?}):\n  rules:     {a}\n  reference: {b}",
                    p.name
                ));
            }
        }
    }
    bad
}

/// Every pair agrees with the reference, with ascent and (when built) crepe.
fn assert_agree_with_both_engines(pairs: &[Pair]) {
    let mut bad = Vec::new();
    for p in pairs {
        bad.extend(check_agree(p, Engine::Ascent));
        #[cfg(feature = "reference-engine")]
        bad.extend(check_agree(p, Engine::Crepe));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn rules_equal_reference_on_every_bench_pair() {
    let pairs = bench_pairs();
    let bad: Vec<String> = pairs
        .iter()
        .flat_map(|p| check_agree(p, Engine::Ascent))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The comparison is not vacuous: some pairs differ at ranks 1 and 2
    // (no bench pair differs at rank 3: see three_section_cycle_...).
    let budget = Budget::unlimited();
    for rank in 1..=2 {
        let opts = DiffOptions {
            max_rank: 3,
            all_ranks: true,
            ..DiffOptions::default()
        };
        assert!(
            pairs
                .iter()
                .any(|p| sync_diff(&p.old, &p.new, &p.m, &opts, &budget)
                    .unwrap()
                    .differences
                    .iter()
                    .any(|d| d.rank == rank)),
            "no bench pair differs at rank {rank}"
        );
    }
}

#[test]
fn rules_equal_reference_on_synthetic_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = synthetic_pairs(dir.path());
    let mut bad = Vec::new();
    for p in &pairs {
        bad.extend(check_agree(p, Engine::Ascent));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The crepe build of the diff programs (the reference engine) gives the
/// same answers, on the bench pairs that differ at rank 2 or 3 and one
/// synthetic pair.
#[cfg(feature = "reference-engine")]
#[test]
fn crepe_diff_programs_equal_reference() {
    let dir = tempfile::tempdir().unwrap();
    let mut pairs: Vec<Pair> = bench_pairs()
        .into_iter()
        .filter(|p| p.name.contains("rank2") || p.name.contains("fig"))
        .collect();
    pairs.push(synthetic_pairs(dir.path()).remove(0));
    assert!(pairs.len() >= 3);
    let bad: Vec<String> = pairs
        .iter()
        .flat_map(|p| check_agree(p, Engine::Crepe))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The argument of docs/rules.md needs every rank3_no triple to have its
/// three ordered pairs in rank2_may. Checked on every bench program and on
/// synthetic programs with locks (where the critical-section rules fire).
#[test]
fn rank3_no_triples_are_rank2_triangles() {
    let dir = tempfile::tempdir().unwrap();
    let mut programs: Vec<FactSet> = Vec::new();
    for p in bench_pairs().into_iter() {
        programs.push(p.old);
        programs.push(p.new);
    }
    for p in synthetic_pairs(dir.path()) {
        programs.push(p.old);
    }
    programs.push(cycle_pair(dir.path()).old);
    let mut seen = 0;
    for f in &programs {
        let r = run(RuleProgram::Sync3, Engine::Ascent, f);
        let rank2 = &r["rank2_may"];
        for t in &r["rank3_no"] {
            seen += 1;
            let (e1, e2, e3) = (&t[0..2], &t[2..4], &t[4..6]);
            for (a, b) in [(e1, e2), (e2, e3), (e1, e3)] {
                assert!(
                    rank2.contains(&[a, b].concat()),
                    "rank3_no{t:?}: pair {a:?},{b:?} not in rank2_may"
                );
            }
        }
    }
    assert!(
        seen > 0,
        "no rank3_no triple anywhere: the check is vacuous"
    );
}

/// Patches that change mayHb between two loads, one per way the rank-2
/// rules find such pairs without building mayHb (rules/diff2.dl, (a), (b1)
/// to (b3)); each pair is also checked in the other direction. In each, a
/// writer thread stores x then y, so both loads can read it.
/// - swap: the reader's loads of x and y change order (same thread, program
///   order reversed: (b2));
/// - loop: the loads sit in a loop in old (ordered both ways) and not in new
///   ((b2) on a cyclic component);
/// - sequential: the two readers run one after the other in new (create,
///   join, create): across threads, new mustHb forbids one order ((a));
/// - merge: old runs the reader in two threads, new in one. Case (b3) (old
///   different threads, new one thread) needs two old threads' loads mapped
///   into one new thread; the version matching maps each thread's copy to
///   its own counterpart (the second thread's copies have none here), so
///   this pair only checks agreement and has no rank-2 difference.
const ORDER_BASE: &str = r#"#include <pthread.h>
int x, y, r1, r2, i;
void *w(void *p) { x = 1; y = 1; return 0; }
void *ra(void *p) {
  r1 = x;
  r2 = y;
  return 0;
}
void *rb(void *p) { return 0; }
int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, w, 0);
  pthread_create(&b, 0, ra, 0);
  pthread_create(&c, 0, rb, 0);
  pthread_join(a, 0); pthread_join(b, 0); pthread_join(c, 0);
  return 0;
}
"#;

fn order_pairs(dir: &Path) -> Vec<Pair> {
    let variants: [(&str, String, String); 4] = [
        (
            "swap",
            ORDER_BASE.into(),
            ORDER_BASE.replace("  r1 = x;\n  r2 = y;\n", "  r2 = y;\n  r1 = x;\n"),
        ),
        (
            "loop",
            ORDER_BASE.replace(
                "  r1 = x;\n  r2 = y;\n",
                "  for (i = 0; i < 2; i++) {\n  r1 = x;\n  r2 = y;\n  }\n",
            ),
            ORDER_BASE.into(),
        ),
        (
            "sequential",
            ORDER_BASE
                .replace("  r1 = x;\n  r2 = y;\n", "  r1 = x;\n")
                .replace(
                    "void *rb(void *p) { return 0; }",
                    "void *rb(void *p) { r2 = y; return 0; }",
                ),
            ORDER_BASE
                .replace("  r1 = x;\n  r2 = y;\n", "  r1 = x;\n")
                .replace(
                    "void *rb(void *p) { return 0; }",
                    "void *rb(void *p) { r2 = y; return 0; }",
                )
                .replace(
                    "  pthread_create(&c, 0, rb, 0);\n  pthread_join(a, 0); pthread_join(b, 0);",
                    "  pthread_join(a, 0); pthread_join(b, 0);\n  pthread_create(&c, 0, rb, 0);",
                ),
        ),
        (
            "merge",
            ORDER_BASE.replace(
                "pthread_create(&c, 0, rb, 0);",
                "pthread_create(&c, 0, ra, 0);",
            ),
            ORDER_BASE.into(),
        ),
    ];
    patch_pairs(dir, variants)
}

/// Each patch `(name, old, new)` written out and loaded both ways.
fn patch_pairs(
    dir: &Path,
    variants: impl IntoIterator<Item = (&'static str, String, String)>,
) -> Vec<Pair> {
    let mut out = Vec::new();
    for (k, (name, old, new)) in variants.into_iter().enumerate() {
        assert_ne!(old, new, "{name}: the patch changes nothing");
        let (a, b) = (
            dir.join(format!("p{k}-v1.c")),
            dir.join(format!("p{k}-v2.c")),
        );
        std::fs::write(&a, &old).unwrap();
        std::fs::write(&b, &new).unwrap();
        out.push(pair(name.to_string(), &a, &b));
        out.push(pair(format!("{name} (reversed)"), &b, &a));
    }
    out
}

/// Not vacuous: every pair `expected` selects has a rank-2 difference.
fn assert_rank2_differences(pairs: &[Pair], expected: impl Fn(&Pair) -> bool) {
    let budget = Budget::unlimited();
    let opts = DiffOptions {
        max_rank: 2,
        all_ranks: true,
        ..DiffOptions::default()
    };
    for p in pairs.iter().filter(|p| expected(p)) {
        let d = sync_diff(&p.old, &p.new, &p.m, &opts, &budget).unwrap();
        assert!(
            d.differences.iter().any(|d| d.rank == 2),
            "{}: no rank-2 difference: {}",
            p.name,
            observable(&d)
        );
    }
}

#[test]
fn rules_equal_reference_when_a_patch_changes_load_order() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = order_pairs(dir.path());
    let mut bad = Vec::new();
    for p in &pairs {
        bad.extend(check_agree(p, Engine::Ascent));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // not vacuous: each patch makes a rank-2 difference (the pair of edges
    // x = 1 -> r1 = x and y = 1 -> r2 = y becomes possible or impossible in
    // one of its orders)
    assert_rank2_differences(&pairs, |p| !p.name.starts_with("merge"));
}

/// Two threads exchanging values inside critical sections of `m`; each
/// variant of it changes a fact a rank-2 exclusion rests on (docs/rules.md,
/// "rank2_no from what changed"): the critical sections, the order of the
/// threads (mustHb), a store after a load in the same section (rank2_no
/// rule 4's w3) or after it in program order (rule 6), a load in a loop
/// (rule 1).
const EXCL_BASE: &str = r#"#include <pthread.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
int x, y, r1, r2, i;
void *t1(void *p) {
  pthread_mutex_lock(&m);
  x = 1;
  r1 = y;
  pthread_mutex_unlock(&m);
  return 0;
}
void *t2(void *p) {
  pthread_mutex_lock(&m);
  y = 1;
  r2 = x;
  pthread_mutex_unlock(&m);
  return 0;
}
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0);
  pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0); pthread_join(b, 0);
  r2 = x;
  return 0;
}
"#;

fn exclusion_pairs(dir: &Path) -> Vec<Pair> {
    let t2_unlocked = EXCL_BASE.replace(
        "  pthread_mutex_lock(&m);\n  y = 1;\n  r2 = x;\n  pthread_mutex_unlock(&m);\n",
        "  y = 1;\n  r2 = x;\n",
    );
    let variants: [(&'static str, String); 5] = [
        ("unlock", t2_unlocked.clone()),
        (
            "join first",
            EXCL_BASE.replace(
                "  pthread_create(&b, 0, t2, 0);\n  pthread_join(a, 0);",
                "  pthread_join(a, 0);\n  pthread_create(&b, 0, t2, 0);",
            ),
        ),
        (
            "store after load",
            EXCL_BASE.replace("  r1 = y;\n", "  r1 = y;\n  y = 2;\n"),
        ),
        (
            "store after load, unlocked",
            t2_unlocked.replace("  r2 = x;\n", "  r2 = x;\n  x = 2;\n"),
        ),
        (
            "load in a loop",
            EXCL_BASE.replace("  r1 = y;\n", "  for (i = 0; i < 2; i++)\n    r1 = y;\n"),
        ),
    ];
    patch_pairs(
        dir,
        variants
            .into_iter()
            .map(|(name, new)| (name, EXCL_BASE.to_string(), new)),
    )
}

#[test]
fn rules_equal_reference_when_a_patch_changes_a_rank2_exclusion() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = exclusion_pairs(dir.path());
    assert_agree_with_both_engines(&pairs);
    // not vacuous: without t2's lock, t2 may read t1's x = 1 and t1 then
    // read t2's y = 1 (r2 before r1); with it, whichever section runs
    // first reads the other's initial value (rank2_no rule 3), so the pair
    // is a rank-2 difference in both directions of the patch
    assert_rank2_differences(&pairs, |p| p.name.starts_with("unlock"));
}

/// Rank 1 lists only the edges in one thread and the pairs in two threads
/// that MayRf leaves out (rules/diff1.dl); an edge in two threads changes
/// through one of three kinds of patch, each enumerated from its own side.
const CROSS_BASE: &str = r#"#include <pthread.h>
int x, y, r1;
int *target = &x;
void *wa(void *p) { *target = 1; return 0; }
void *rb(void *p) { r1 = x; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, wa, 0);
  pthread_create(&b, 0, rb, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
"#;

fn cross_pairs(dir: &Path) -> Vec<Pair> {
    let variants: [(&str, String, String); 3] = [
        // (a) the unchanged store `*target = 1` now writes y: its edge to
        // rb's load of x is lost
        (
            "retarget",
            CROSS_BASE.into(),
            CROSS_BASE.replace("int *target = &x;", "int *target = &y;"),
        ),
        // (b) the store and main's load now run in one thread: main calls
        // wa after its load instead of creating a thread for it (thread b
        // keeps x shared)
        (
            "one thread",
            CROSS_BASE.replace(
                "  pthread_join(a, 0);\n",
                "  rb(0);\n  pthread_join(a, 0);\n",
            ),
            CROSS_BASE
                .replace("  pthread_create(&a, 0, wa, 0);\n", "")
                .replace("  pthread_join(a, 0);\n", "  rb(0);\n  wa(0);\n"),
        ),
        // (c) main's store moves after the join of the reader: the load
        // must happen before it, so the new version leaves the pair out
        (
            "store after join",
            CROSS_BASE
                .replace("  pthread_create(&a, 0, wa, 0);\n", "")
                .replace("  pthread_join(a, 0);\n", "")
                .replace(
                    "  pthread_join(b, 0);\n",
                    "  x = 2;\n  pthread_join(b, 0);\n",
                ),
            CROSS_BASE
                .replace("  pthread_create(&a, 0, wa, 0);\n", "")
                .replace("  pthread_join(a, 0);\n", "")
                .replace(
                    "  pthread_join(b, 0);\n",
                    "  pthread_join(b, 0);\n  x = 2;\n",
                ),
        ),
    ];
    patch_pairs(dir, variants)
}

#[test]
fn rules_equal_reference_when_a_patch_changes_an_edge_between_threads() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = cross_pairs(dir.path());
    assert_agree_with_both_engines(&pairs);
    // not vacuous: each patch drops an edge between two threads, so the
    // old version of each has a rank-1 difference or an edge through the
    // change, on the old side
    let budget = Budget::unlimited();
    let opts = DiffOptions {
        max_rank: 1,
        ..DiffOptions::default()
    };
    for p in pairs.iter().filter(|p| !p.name.ends_with("(reversed)")) {
        let d = sync_diff(&p.old, &p.new, &p.m, &opts, &budget).unwrap();
        let old_side = d
            .differences
            .iter()
            .chain(&d.through_changes)
            .any(|d| d.rank == 1 && d.only_in == Side::Old);
        assert!(
            old_side,
            "{}: no edge only in old: {}",
            p.name,
            observable(&d)
        );
    }
}
