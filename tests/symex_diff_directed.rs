//! Diff-directed `symex OLD NEW` (the default with NEW): the same verdict
//! as a full `symex NEW`, every violation full exploration finds in NEW and
//! not in OLD found too, and the verdicts and run counts the pairs'
//! READMEs derive (`symex-programs/pairs/*`).

use concord::frontend::CompileOptions;
use concord::pipeline::symex::{self as pipeline, StoreChoice, SymexOutcome, SymexRequest};
use concord::symex::{Reduction, SymexOptions, Verdict};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn options() -> SymexOptions {
    SymexOptions {
        loop_bound: 2,
        max_loop_bound: None,
        ..Default::default()
    }
}

fn request(program: &Path, new: Option<&Path>, out: &Path, diff: bool) -> SymexRequest {
    SymexRequest {
        program: program.to_path_buf(),
        new: new.map(Path::to_path_buf),
        compile: CompileOptions::default(),
        options: options(),
        program_args: vec![],
        output_dir: Some(out.to_path_buf()),
        store: StoreChoice::None,
        max_interferences: None,
        directed: false,
        diff_directed: diff,
        diff_rank: concord::symex::diff_directed::DEFAULT_RANK,
    }
}

fn run(program: &Path, new: Option<&Path>, diff: bool) -> SymexOutcome {
    let dir = tempfile::tempdir().unwrap();
    pipeline::symex(
        &request(program, new, &dir.path().join("out"), diff),
        &mut |_| {},
    )
    .unwrap()
}

/// Violated locations (kind and `file:line:col`) with the file name only.
fn violations(o: &SymexOutcome) -> BTreeSet<String> {
    o.exploration
        .findings
        .iter()
        .filter(|f| f.kind.is_violation())
        .map(|f| {
            let loc = f.location.rsplit('/').next().unwrap_or(&f.location);
            // OLD and NEW are different files: compare line and column
            let lc: Vec<&str> = loc.splitn(2, ':').collect();
            format!("{:?}@{}", f.kind, lc.get(1).unwrap_or(&loc))
        })
        .collect()
}

fn runs(o: &SymexOutcome) -> u64 {
    let s = &o.exploration.stats;
    s.runs() + s.partial_runs
}

/// Directed `OLD NEW` against full `NEW` (and `OLD` for the soundness
/// check); returns (directed outcome, full NEW outcome). The directed
/// answer includes the carry-over of a fix (OLD violates, NEW verified
/// without exploring it): it must then agree with the full run too, which
/// finds no violation at all.
fn check(old: &Path, new: &Path) -> (SymexOutcome, SymexOutcome) {
    let directed = run(old, Some(new), true);
    let full = run(new, None, false);
    let name = format!("{} -> {}", old.display(), new.display());
    assert_eq!(
        directed.exploration.stats.verdict,
        full.exploration.stats.verdict,
        "{name}: directed {:?} / full {:?}; diff {:?}",
        directed.exploration.findings,
        full.exploration.findings,
        directed.incremental.as_ref().and_then(|i| i.diff.as_ref())
    );
    let new_violations = violations(&full);
    let carried = directed
        .incremental
        .as_ref()
        .and_then(|i| i.diff.as_ref())
        .and_then(|d| d.carry_over.as_ref())
        .is_some_and(|c| c.verified);
    if carried {
        assert!(
            new_violations.is_empty(),
            "{name}: carried over as verified, but full NEW finds {new_violations:?}"
        );
        eprintln!("{name}: fix carried over (NEW not explored)");
    }
    let searched = directed
        .incremental
        .as_ref()
        .and_then(|i| i.diff.as_ref())
        .and_then(|d| d.carry_over.as_ref())
        .is_some_and(|c| c.searched > 0);
    if searched {
        // the search for OLD's remaining classes finds every violation of
        // NEW (docs/symex.md, "Searching NEW for OLD's remaining classes")
        let found = violations(&directed);
        assert!(
            new_violations.is_subset(&found),
            "{name}: full NEW finds {new_violations:?}, the class search {found:?}"
        );
        eprintln!("{name}: OLD's remaining classes searched for in NEW");
    }
    if !new_violations.is_empty() {
        let old_violations = violations(&run(old, None, false));
        let found = violations(&directed);
        for v in new_violations.difference(&old_violations) {
            assert!(
                found.contains(v),
                "{name}: {v} found by full NEW, not in OLD, missed by the directed run ({found:?})"
            );
        }
    }
    (directed, full)
}

fn diff_outcome(o: &SymexOutcome) -> &pipeline::DiffOutcome {
    o.incremental.as_ref().unwrap().diff.as_ref().unwrap()
}

fn pair(name: &str) -> (PathBuf, PathBuf) {
    let d = root().join("symex-programs/pairs").join(name);
    (d.join("old.c"), d.join("new.c"))
}

/// A pair whose patch adds a behaviour, as its README reasons it out.
struct NewBehaviour {
    pair: &'static str,
    /// Where NEW's violation is reported (`@line:`), when the test names it.
    violation_at: Option<&'static str>,
    /// OLD's verdict, when the test names it.
    old_verdict: Option<Verdict>,
    /// Differences only in NEW per rank (`None`: no row for the rank).
    new_only: &'static [(u32, Option<usize>)],
}

/// Runs `check` on the pair and asserts what every such pair shares: the
/// directed run finds NEW's violation and claims its guarantee, with the
/// differences the README expects. Returns (directed, full) for the
/// assertions particular to the pair.
fn expect_new_behaviour(case: &NewBehaviour) -> (SymexOutcome, SymexOutcome) {
    let name = case.pair;
    let (old, new) = pair(name);
    let (d, full) = check(&old, &new);
    assert_eq!(d.exploration.stats.verdict, Verdict::Violation, "{name}");
    if let Some(at) = case.violation_at {
        let found = violations(&d);
        assert!(found.iter().any(|v| v.contains(at)), "{name}: {found:?}");
    }
    let o = diff_outcome(&d);
    assert!(o.claimed, "{name}: {o:?}");
    if let Some(v) = case.old_verdict {
        assert_eq!(o.old_verdict, v, "{name}");
    }
    for &(rank, count) in case.new_only {
        assert_eq!(
            o.summary.new_only.get(&rank).copied(),
            count,
            "{name} rank {rank}: {o:?}"
        );
    }
    (d, full)
}

#[test]
fn lock_removed_explores_only_the_runs_that_realise_the_new_pair() {
    // README: the rank-2 pair "both loads read the initial value", listed
    // in both orders
    let (d, full) = expect_new_behaviour(&NewBehaviour {
        pair: "lock-removed",
        violation_at: Some("@40:"),
        old_verdict: Some(Verdict::Verified),
        new_only: &[(2, Some(2)), (1, None)],
    });
    let o = diff_outcome(&d);
    // 2 traces realise it; 2 more runs continue the serial traces once
    assert_eq!(o.target_runs, 2, "{o:?}");
    assert_eq!(o.new_runs, 4, "{o:?}");
    // a full exploration (default dpor+ag) explores at least ten times more
    assert!(
        runs(&full) >= 10 * o.new_runs,
        "full {} runs, directed {}",
        runs(&full),
        o.new_runs
    );
}

/// At most a tenth of the full run's runs: the directed slice leaves the
/// unrelated `mix` sections (`y`, mutex `n`) out of DPOR's dependence,
/// so they are explored in one order (README).
fn assert_tenth(d: &SymexOutcome, full: &SymexOutcome) {
    let o = diff_outcome(d);
    assert!(
        runs(full) >= 10 * o.new_runs,
        "full {} runs, directed {}: {o:?}",
        runs(full),
        o.new_runs
    );
}

/// The unrelated interleavings run alongside the racing loads: no target
/// reader reaches the check of `y`, so the order of the `mix` sections
/// cannot matter to the new pair (README).
#[test]
fn lock_removed_with_concurrent_unrelated_threads_explores_one_order_of_them() {
    let (d, full) = expect_new_behaviour(&NewBehaviour {
        pair: "lock-removed-concurrent",
        violation_at: Some("@51:"),
        old_verdict: Some(Verdict::Verified),
        new_only: &[(2, Some(2)), (1, None)],
    });
    assert_tenth(&d, &full);
}

/// The same threads, but one check reads `x` and `y` together: the new
/// pair violates it only with one order of the `mix` sections (README), so
/// that order must stay explored — the slice keeps `y` and `n`.
#[test]
fn entangled_unrelated_threads_stay_in_the_dependence() {
    let (d, _) = expect_new_behaviour(&NewBehaviour {
        pair: "lock-removed-entangled",
        violation_at: Some("@50:"),
        old_verdict: Some(Verdict::Verified),
        new_only: &[(2, Some(2)), (1, None)],
    });
    // more runs than the 4 x-traces: the mix orders are explored
    assert!(diff_outcome(&d).new_runs > 10, "{:?}", diff_outcome(&d));
}

#[test]
fn init_moved_after_with_concurrent_unrelated_threads_explores_one_order_of_them() {
    // README: one rank-1 edge, the initial value of `config` -> the load
    let (d, full) = expect_new_behaviour(&NewBehaviour {
        pair: "init-moved-after-concurrent",
        violation_at: Some("@40:"),
        old_verdict: Some(Verdict::Verified),
        new_only: &[(1, Some(1))],
    });
    assert_tenth(&d, &full);
}

/// The wait of a changed family makes every run new; the deadlock is
/// found with one order of the `mix` sections (README).
#[test]
fn wait_moved_with_concurrent_unrelated_threads_finds_the_deadlock() {
    let (d, full) = expect_new_behaviour(&NewBehaviour {
        pair: "wait-moved-concurrent",
        violation_at: Some("@27:"),
        old_verdict: Some(Verdict::Verified),
        new_only: &[(1, Some(1))],
    });
    assert!(d
        .exploration
        .findings
        .iter()
        .any(|f| f.kind == concord::symex::FindingKind::Deadlock));
    assert_tenth(&d, &full);
}

#[test]
fn init_moved_after_start_realises_one_new_edge() {
    let (d, _) = expect_new_behaviour(&NewBehaviour {
        pair: "init-moved-after",
        violation_at: None,
        old_verdict: None,
        new_only: &[(1, Some(1))],
    });
    let o = diff_outcome(&d);
    // README: 1 run realises the edge; the moved store is changed code, so
    // both runs of NEW (which all pass it) are target runs
    assert!(o.summary.target_statements >= 1, "{o:?}");
    assert_eq!(o.target_runs, 2, "{o:?}");
    assert_eq!(o.new_runs, 2, "{o:?}");
}

/// The fixes (README): OLD's violation does not replay on NEW, the patch
/// only restricts OLD's schedules, and every violating class of OLD
/// realises a read-from tuple only in OLD: NEW is verified by the
/// carry-over, with no run of NEW but the replays of OLD's test cases.
#[test]
fn fixes_carry_over_without_exploring_new() {
    // (pair, OLD's violating traces: README; plain DPOR may explore a
    // trace more than once, each run is a class and must be excluded)
    for (name, traces) in [("lock-added", 2), ("init-reordered", 1)] {
        let (old, new) = pair(name);
        let (d, full) = check(&old, &new);
        assert_eq!(d.exploration.stats.verdict, Verdict::Verified, "{name}");
        let o = diff_outcome(&d);
        assert!(o.claimed, "{name}: {o:?}");
        assert_eq!(o.old_verdict, Verdict::Violation, "{name}");
        assert!(o.summary.new_only.is_empty(), "{name}: {o:?}");
        let c = o.carry_over.as_ref().expect("carry-over tried");
        assert!(c.verified, "{name}: {c:?}");
        assert!(c.violating_classes >= traces, "{name}: {c:?}");
        assert_eq!(c.excluded, c.violating_classes, "{name}: {c:?}");
        let classes = c.violating_classes;
        assert!(c.old_class_runs > 0, "{name}: {c:?}");
        // NEW: OLD's one test case replayed, nothing explored
        assert!(o.new_not_run && o.new_runs == 0, "{name}: {o:?}");
        assert_eq!(o.new_replays, 1, "{name}: {o:?}");
        assert!(runs(&full) > o.all_new_runs() - o.new_replays, "{name}");
        let g = o.guarantee();
        assert!(
            g.contains(&format!(
                "OLD's {classes} violating classes replayed: none feasible in NEW"
            )),
            "{name}: {g}"
        );
    }
}

/// Fixes with unrelated threads alongside: carried over with one replay
/// of OLD's test case (at most a tenth of a full run of NEW, which must
/// order the `mix` sections), and OLD's violating classes explored with
/// the slice of OLD's violated location, so the `mix` sections are one
/// order there too: at most a tenth of plain DPOR's runs on OLD (READMEs:
/// 240 and 120 violating traces of OLD).
#[test]
fn fixes_with_unrelated_threads_carry_over_in_one_order_of_them() {
    for name in ["lock-added-concurrent", "init-reordered-concurrent"] {
        let (old, new) = pair(name);
        let (d, full) = check(&old, &new);
        assert_eq!(d.exploration.stats.verdict, Verdict::Verified, "{name}");
        let o = diff_outcome(&d);
        let c = o.carry_over.as_ref().expect("carry-over tried");
        assert!(c.verified, "{name}: {c:?}");
        assert!(o.new_not_run && o.new_runs == 0, "{name}: {o:?}");
        assert!(10 * o.all_new_runs() <= runs(&full), "{name}: {o:?}");
        let dir = tempfile::tempdir().unwrap();
        let mut req = request(&old, None, &dir.path().join("out"), false);
        req.options.reduction = Reduction::Dpor;
        let plain = pipeline::symex(&req, &mut |_| {}).unwrap();
        assert!(
            10 * c.old_class_runs <= runs(&plain),
            "{name}: classes {} runs, plain DPOR on OLD {}",
            c.old_class_runs,
            runs(&plain)
        );
    }
}

/// The partial fix with unrelated threads alongside: OLD's classes are
/// searched for in NEW with the slice of OLD's violated location, so the
/// `mix` orders are not (README); at most a tenth of the full run's runs,
/// the replay of OLD's test case included.
#[test]
fn partial_fix_with_unrelated_threads_searches_one_order_of_them() {
    let (old, new) = pair("lock-added-one-side-concurrent");
    let (d, full) = check(&old, &new);
    assert_eq!(d.exploration.stats.verdict, Verdict::Violation);
    assert!(
        violations(&d).iter().any(|v| v.contains("@50:")),
        "{:?}",
        violations(&d)
    );
    let o = diff_outcome(&d);
    assert!(o.claimed, "{o:?}");
    let c = o.carry_over.as_ref().expect("carry-over tried");
    assert_eq!(c.searched, c.violating_classes, "{c:?}");
    assert!(10 * o.all_new_runs() <= runs(&full), "{o:?}");
}

/// A fix the carry-over must not conclude on: the lock is added around
/// one of two increments only (a restricting change), so a run of NEW
/// still loses an update — the unlocked thread reads 0 before the locked
/// section and stores 1 after it. "Both loads read the initial value" is
/// then not a pair only in OLD, and the class is not excluded.
#[test]
fn partial_fix_is_not_carried_over() {
    let dir = tempfile::tempdir().unwrap();
    let program = |locked: bool| {
        let (lock, unlock) = if locked {
            (
                "  pthread_mutex_lock(&m);\n",
                "  pthread_mutex_unlock(&m);\n",
            )
        } else {
            ("", "")
        };
        format!(
            "#include <pthread.h>\n#include <assert.h>\nint c;\npthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n\
             void *inc_a(void *arg) {{\n{lock}  int tmp = c;\n  c = tmp + 1;\n{unlock}  return 0;\n}}\n\
             void *inc_b(void *arg) {{\n  int tmp = c;\n  c = tmp + 1;\n  return 0;\n}}\n\
             int main(void) {{\n  pthread_t a, b;\n  pthread_create(&a, 0, inc_a, 0);\n  pthread_create(&b, 0, inc_b, 0);\n\
             pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(c == 2);\n  return 0;\n}}\n"
        )
    };
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&old, program(false)).unwrap();
    std::fs::write(&new, program(true)).unwrap();
    let (d, full) = check(&old, &new);
    assert_eq!(d.exploration.stats.verdict, Verdict::Violation);
    let o = diff_outcome(&d);
    // when OLD's test case does not replay, the carry-over is tried: the
    // change restricts, but some class of OLD is feasible in NEW; those
    // classes are searched for in NEW, which finds the lost update
    if let Some(c) = &o.carry_over {
        assert!(!c.verified, "{c:?}");
        assert!(!c.changes.is_empty(), "{c:?}");
        assert!(c.excluded < c.violating_classes, "{c:?}");
        assert_eq!(c.searched, c.violating_classes - c.excluded, "{c:?}");
        assert!(o.claimed, "{o:?}");
        assert!(c.search_target_runs > 0, "{c:?}");
        assert!(
            o.guarantee().contains("searched for in NEW"),
            "{}",
            o.guarantee()
        );
        assert!(o.new_runs <= runs(&full), "{o:?}");
    }
}

/// The partial fix of the pairs (README): nothing is only in OLD, so none
/// of OLD's violating classes is excluded; both are searched for in NEW,
/// each realised by one trace, and the violation is found.
#[test]
fn partial_fix_pair_is_answered_by_searching_old_classes() {
    let (old, new) = pair("lock-added-one-side");
    let (d, _) = check(&old, &new);
    assert_eq!(d.exploration.stats.verdict, Verdict::Violation);
    assert!(
        violations(&d).iter().any(|v| v.contains("@30:")),
        "{:?}",
        violations(&d)
    );
    let o = diff_outcome(&d);
    assert!(o.claimed, "{o:?}");
    assert_eq!(o.old_verdict, Verdict::Violation);
    assert!(o.summary.new_only.is_empty(), "{o:?}");
    let c = o.carry_over.as_ref().expect("carry-over tried");
    assert!(!c.verified && c.excluded == 0, "{c:?}");
    assert!(c.violating_classes >= 2, "{c:?}");
    assert_eq!(c.searched, c.violating_classes, "{c:?}");
    // README: 2 traces of NEW realise a class (DPOR may run one twice)
    assert!(c.search_target_runs >= 2, "{c:?}");
}

/// The fix of `init-reordered` with the thread handle's address published
/// in a global: another thread could read the handle before the create
/// writes it, so moving the create is not shown to restrict OLD's
/// schedules and nothing carries over (NEW is explored, and verified).
#[test]
fn moved_start_with_a_published_handle_is_not_carried_over() {
    let dir = tempfile::tempdir().unwrap();
    let program = |store_first: bool| {
        let (a, b) = if store_first {
            ("  config = 21;\n", "  pthread_create(&w, 0, worker, 0);\n")
        } else {
            ("  pthread_create(&w, 0, worker, 0);\n", "  config = 21;\n")
        };
        format!(
            "#include <pthread.h>\n#include <assert.h>\nint config;\nint out;\npthread_t *published;\n\
             void *worker(void *arg) {{\n  out = config * 2;\n  return 0;\n}}\n\
             int main(void) {{\n  pthread_t w;\n  published = &w;\n{a}{b}  pthread_join(w, 0);\n  assert(out == 42);\n  return 0;\n}}\n"
        )
    };
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&old, program(false)).unwrap();
    std::fs::write(&new, program(true)).unwrap();
    let (d, _) = check(&old, &new);
    assert_eq!(d.exploration.stats.verdict, Verdict::Verified);
    let o = diff_outcome(&d);
    assert_eq!(o.old_verdict, Verdict::Violation, "{o:?}");
    let c = o.carry_over.as_ref().expect("carry-over tried");
    assert!(!c.verified && c.changes.is_empty(), "{c:?}");
    assert!(
        c.not_concluded
            .as_deref()
            .is_some_and(|w| w.contains("thread's own memory")),
        "{c:?}"
    );
    assert!(!o.claimed, "{o:?}");
}

#[test]
fn moved_wait_makes_every_run_new_and_finds_the_deadlock() {
    let (old, new) = pair("wait-moved");
    let (d, _) = check(&old, &new);
    assert_eq!(d.exploration.stats.verdict, Verdict::Violation);
    assert!(d
        .exploration
        .findings
        .iter()
        .any(|f| f.kind == concord::symex::FindingKind::Deadlock));
    let o = diff_outcome(&d);
    assert!(o.claimed, "{o:?}");
    assert!(o.summary.target_statements > 0, "{o:?}");
}

#[test]
fn nothing_new_is_answered_without_running_new() {
    // OLD verified; NEW differs in a comment only
    let (old, _) = pair("init-moved-after");
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.c");
    let text = std::fs::read_to_string(&old).unwrap();
    std::fs::write(&new, text.replace("(OLD: the", "(NEW: the")).unwrap();
    let d = run(&old, Some(&new), true);
    assert_eq!(d.exploration.stats.verdict, Verdict::Verified);
    let o = diff_outcome(&d);
    assert!(o.claimed && o.new_not_run, "{o:?}");
    assert_eq!(o.new_runs, 0);
    assert!(o
        .guarantee()
        .contains("every behaviour new up to rank 2 explored"));
}

/// Every pair of `symex-programs/pairs` read backwards (NEW → OLD; the
/// forward direction has its own test above).
#[test]
fn reversed_pairs_answer_as_full_new() {
    for name in [
        "lock-removed",
        "lock-added",
        "wait-moved",
        "init-reordered",
        "init-moved-after",
    ] {
        let (old, new) = pair(name);
        check(&new, &old);
    }
}

/// Every step v(k-1) → vk of the Table 3 chains (`benches/incremental`).
#[test]
fn chains_answer_as_full_new() {
    let mut chains: Vec<PathBuf> = std::fs::read_dir(root().join("benches/incremental"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    chains.sort();
    for c in chains {
        let mut vs: Vec<PathBuf> = std::fs::read_dir(&c)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "c"))
            .collect();
        vs.sort();
        for w in vs.windows(2) {
            check(&w[0], &w[1]);
        }
    }
}

/// Every bench pair `bench-programs/*/v1.c` → `v2.c`.
#[test]
fn bench_pairs_answer_as_full_new() {
    let mut benches: Vec<PathBuf> = std::fs::read_dir(root().join("bench-programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("v1.c").is_file() && p.join("v2.c").is_file())
        .collect();
    benches.sort();
    for b in benches {
        check(&b.join("v1.c"), &b.join("v2.c"));
    }
}

/// `init-reordered` with the configuration in an array written through a
/// computed address (`slot[1]`, `slot` being `config`): a GEP instruction
/// on `config`, whose statement text names no global. (Through a
/// variable index, `config[which]`, the store may write either element:
/// it hides no earlier value from the rules, which then cannot exclude
/// OLD's class.) Read from the IR,
/// the move (the store, its index load and address computation now before
/// the start) only restricts OLD's schedules, and OLD's one violating
/// class (the worker reads the initial `config[1]`) is excluded in NEW by
/// the rules: the fix carries over without exploring NEW, which a full
/// run confirms verified.
#[test]
fn a_fix_through_a_computed_address_carries_over() {
    let dir = tempfile::tempdir().unwrap();
    let program = |store_first: bool| {
        let (a, b) = if store_first {
            ("  slot[1] = 21;\n", "  pthread_create(&w, 0, worker, 0);\n")
        } else {
            ("  pthread_create(&w, 0, worker, 0);\n", "  slot[1] = 21;\n")
        };
        format!(
            "#include <pthread.h>\n#include <assert.h>\nint config[2];\nint which = 1;\nint out;\n\
             void *worker(void *arg) {{\n  out = config[1] * 2;\n  return 0;\n}}\n\
             int main(void) {{\n  pthread_t w;\n  int *slot = config;\n{a}{b}  pthread_join(w, 0);\n  assert(out == 42);\n  return 0;\n}}\n"
        )
    };
    let (old, new) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&old, program(false)).unwrap();
    std::fs::write(&new, program(true)).unwrap();
    let (d, _) = check(&old, &new);
    assert_eq!(d.exploration.stats.verdict, Verdict::Verified);
    let o = diff_outcome(&d);
    assert_eq!(o.old_verdict, Verdict::Violation, "{o:?}");
    assert!(o.claimed && o.new_not_run, "{o:?}");
    let c = o.carry_over.as_ref().expect("carry-over tried");
    assert!(c.verified, "{c:?}");
    assert_eq!((c.violating_classes, c.excluded), (1, 1), "{c:?}");
}
