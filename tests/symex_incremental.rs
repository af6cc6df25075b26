//! `symex OLD NEW` (+CIA): soundness and pruning.
//!
//! Soundness: for every bench pair (`bench-programs/*/v1.c` → `v2.c`) and
//! for pairs of symex test programs (a correct and a broken variant, both
//! directions), the incremental mode reports the same violated locations
//! as exploring NEW alone, in every reduction mode.  The incremental answer
//! is NEW's pruned exploration plus OLD's findings outside the impacted
//! set carried over through Δmap (in dpor+ag also pruned by OLD's stored
//! summaries, +SCIA); a wrong impacted set, a wrong mapping of
//! statements to instructions or an unsound pruning shows up as a missing
//! or extra location.

use concord::frontend::{load_module, CompileOptions, Program};
use concord::symex::incremental::{explore_incremental, VersionInput};
use concord::symex::{explore, Reduction, SymexOptions};
use std::path::{Path, PathBuf};

struct Version {
    program: Program,
    facts: concord::facts::FactSet,
    source: Option<String>,
}

fn load(p: &Path) -> Version {
    let program = load_module(p, &CompileOptions::default()).unwrap();
    let facts = concord::facts::extract::extract(&program, &Default::default()).unwrap();
    Version {
        program,
        facts,
        source: std::fs::read_to_string(p).ok(),
    }
}

impl Version {
    fn input(&self) -> VersionInput<'_> {
        VersionInput {
            module: &self.program.module,
            facts: &self.facts,
            source: self.source.as_deref(),
            program_hash: &self.program.input_sha256,
        }
    }
}

fn opts(r: Reduction) -> SymexOptions {
    SymexOptions {
        reduction: r,
        loop_bound: 2,
        max_loop_bound: None,
        ..Default::default()
    }
}

const MODES: [Reduction; 3] = [Reduction::None, Reduction::Dpor, Reduction::DporAg];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Check one pair in every mode; returns (incremental runs, plain runs) of
/// NEW summed over the modes.
fn check_pair(old: &Path, new: &Path) -> (u64, u64) {
    check_pair_with(old, new, 60)
}

/// [`check_pair`], exploring every interleaving (`none`) only where DPOR
/// needs at most `none_limit` runs.
fn check_pair_with(old: &Path, new: &Path, none_limit: u64) -> (u64, u64) {
    let (o, n) = (load(old), load(new));
    let mut sums = (0, 0);
    // `none` (every interleaving) only where DPOR needs few runs: it is
    // the same check, and some pairs have tens of thousands of
    // interleavings.
    let dpor_runs = if none_limit == 0 {
        u64::MAX
    } else {
        explore(&n.program.module, &opts(Reduction::Dpor))
            .unwrap()
            .stats
            .runs()
    };
    for r in MODES {
        if r == Reduction::None && (none_limit == 0 || dpor_runs > none_limit) {
            continue;
        }
        let alone = explore(&n.program.module, &opts(r)).unwrap();
        // dpor+ag goes through a store: +SCIA (OLD's summaries) is checked
        // on every pair too.
        let tmp = tempfile::tempdir().unwrap();
        let store = (r == Reduction::DporAg)
            .then(|| concord::symex::store::Store::open(&tmp.path().join("s.db")).unwrap());
        let (inc, _) =
            explore_incremental(&o.input(), &n.input(), &opts(r), store.as_ref()).unwrap();
        assert_eq!(
            inc.violation_locations(),
            alone.violation_locations(),
            "{} -> {} in mode {r}: incremental vs NEW alone",
            old.display(),
            new.display()
        );
        sums.0 += inc.stats.runs() + inc.stats.partial_runs;
        sums.1 += alone.stats.runs() + alone.stats.partial_runs;
    }
    sums
}

#[test]
fn bench_pairs_report_the_violations_of_new_alone() {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("bench-programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("v1.c").exists() && p.join("v2.c").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 20, "bench pairs missing");
    for d in dirs {
        let t = std::time::Instant::now();
        let (i, a) = check_pair(&d.join("v1.c"), &d.join("v2.c"));
        eprintln!(
            "{}: runs incremental {i}, alone {a} ({:.1}s)",
            d.display(),
            t.elapsed().as_secs_f64()
        );
    }
}

/// The Table 3 version chains (benches/incremental/*/v0.c … v5.c, the
/// mutants in each README): every pair v(k-1) → vk in dpor and dpor+ag
/// (+SCIA through a store), and in `none` for the first pair of the
/// first six chains (every interleaving of the others takes minutes in a
/// debug build).
#[test]
fn version_chains_report_the_violations_of_new_alone() {
    let dir = root().join("benches/incremental");
    let mut chains: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("v5.c").exists())
        .collect();
    chains.sort();
    assert!(chains.len() >= 10, "version chains missing");
    for c in chains {
        // `none` on the first pair of the first six chains only: the
        // later ones (indexer, twostage, bluetooth, circular-buffer) have
        // more threads or lock sections, and their interleavings take
        // minutes in a debug build (CI time); dpor and dpor+ag check them.
        let first_six = [
            "account",
            "fibbench",
            "lazy01",
            "readreadwrite",
            "reorder",
            "stateful01",
        ]
        .iter()
        .any(|n| c.ends_with(n));
        for k in 1..=5 {
            let t = std::time::Instant::now();
            let (old, new) = (c.join(format!("v{}.c", k - 1)), c.join(format!("v{k}.c")));
            let none_limit = if k == 1 && first_six { u64::MAX } else { 0 };
            let (i, a) = check_pair_with(&old, &new, none_limit);
            eprintln!(
                "{}: runs incremental {i}, alone {a} ({:.1}s)",
                new.display(),
                t.elapsed().as_secs_f64()
            );
        }
    }
}

/// Only `memcmp` reads the racing buffer (tests/fixtures/symex_slice_reads,
/// README): the incremental slice must follow the memory a library call
/// reads, or it drops the two stores from the dependence and misses NEW's
/// violation.
#[test]
fn library_reads_are_in_the_slice() {
    let d = root().join("tests/fixtures/symex_slice_reads");
    check_pair(&d.join("memcmp_old.c"), &d.join("memcmp_new.c"));
    let alone = explore(
        &load(&d.join("memcmp_new.c")).program.module,
        &opts(Reduction::DporAg),
    )
    .unwrap();
    assert!(
        alone.findings.iter().any(|f| f.kind.is_violation()),
        "{:?}",
        alone.findings
    );
}

#[test]
fn symex_program_pairs_both_directions() {
    let pairs = [
        ("account_ok", "account_bad"),
        ("fig2", "fig2_bug"),
        ("lazy_init_ok", "lazy_init_bad"),
        ("list_push", "list_push_bad"),
        ("stack_cond", "stack_bad"),
        ("preempt2", "preempt3"),
    ];
    let dir = root().join("symex-programs");
    for (a, b) in pairs {
        let (pa, pb) = (dir.join(format!("{a}.c")), dir.join(format!("{b}.c")));
        check_pair(&pa, &pb);
        check_pair(&pb, &pa);
    }
}

/// Conc-iSE Fig. 2 (bench-programs/conc-ise-fig2): the change of `x` on
/// line 4 does not impact `y = 10` nor `b = y`, so their two orders need
/// not both be explored: +CIA explores fewer runs than DPOR alone (the
/// paper: 2 instead of 4), and finds the same violations.
#[test]
fn cia_prunes_the_unimpacted_orders_of_fig2() {
    let d = root().join("bench-programs/conc-ise-fig2");
    let (o, n) = (load(&d.join("v1.c")), load(&d.join("v2.c")));
    let alone = explore(&n.program.module, &opts(Reduction::Dpor)).unwrap();
    let (inc, st) =
        explore_incremental(&o.input(), &n.input(), &opts(Reduction::Dpor), None).unwrap();
    assert!(st.impacted_instructions > 0);
    assert_eq!(inc.violation_locations(), alone.violation_locations());
    assert!(
        inc.stats.runs() < alone.stats.runs(),
        "+CIA {} runs, DPOR {}",
        inc.stats.runs(),
        alone.stats.runs()
    );
}

/// The store: a first `OLD NEW` explores OLD and fills the store; a second
/// reuses OLD's run (no OLD exploration) and the same violations come out;
/// NEW's dpor+ag exploration reads OLD's summaries (+SCIA) at states whose
/// code ahead is unchanged.
#[test]
fn second_incremental_run_reuses_the_store() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("s.db");
    for (old, new) in [
        (
            "bench-programs/conc-ise-fig2/v1.c",
            "bench-programs/conc-ise-fig2/v2.c",
        ),
        (
            "symex-programs/account_ok.c",
            "symex-programs/account_bad.c",
        ),
        (
            "bench-programs/dise-wbs/v1.c",
            "bench-programs/dise-wbs/v2.c",
        ),
    ] {
        let (o, n) = (load(&root().join(old)), load(&root().join(new)));
        let alone = explore(&n.program.module, &opts(Reduction::DporAg)).unwrap();
        let store = concord::symex::store::Store::open(&path).unwrap();
        let (first, s1) = explore_incremental(
            &o.input(),
            &n.input(),
            &opts(Reduction::DporAg),
            Some(&store),
        )
        .unwrap();
        let (second, s2) = explore_incremental(
            &o.input(),
            &n.input(),
            &opts(Reduction::DporAg),
            Some(&store),
        )
        .unwrap();
        assert!(
            !s1.old_reused && s1.old_runs > 0,
            "{old}: first run explores OLD"
        );
        assert!(
            s2.old_reused && s2.old_runs == 0,
            "{old}: second run reuses OLD"
        );
        assert_eq!(first.violation_locations(), alone.violation_locations());
        assert_eq!(second.violation_locations(), alone.violation_locations());
        assert!(store.integrity_ok().unwrap());
        eprintln!(
            "{old}: summaries imported {} reused {}",
            first.stats.summaries_imported, first.stats.summaries_reused
        );
    }
}

/// A store from another schema version, or a file that is not a store, is
/// refused with a message naming the problem, never read.
#[test]
fn foreign_stores_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let junk = tmp.path().join("junk.db");
    std::fs::write(&junk, b"not a database at all, just text").unwrap();
    let e = concord::symex::store::Store::open(&junk).err().unwrap();
    assert!(e.to_string().contains("not a concord summary store"), "{e}");
    let old = tmp.path().join("old.db");
    {
        let s = concord::symex::store::Store::open(&old).unwrap();
        drop(s);
        let c = rusqlite::Connection::open(&old).unwrap();
        c.execute(
            "UPDATE meta SET value = '0' WHERE key = 'schema_version'",
            [],
        )
        .unwrap();
    }
    let e = concord::symex::store::Store::open(&old).err().unwrap();
    assert!(e.to_string().contains("schema version 0"), "{e}");
}

/// `--max-interferences` on symex-programs/racy_counter.c: the lost update
/// needs main's final read of `c` to read another thread's write (1
/// interference; both increments read the initial value, written by no
/// thread).  K = 0 cuts every path at main's read: no violation, and the
/// verdict says the bound bit.  K = 1 finds the violation, reported with
/// its interference count 1.
#[test]
fn interference_bound() {
    use concord::symex::interference::explore_bounded;
    use concord::symex::{Reason, Verdict};
    let p = load(&root().join("symex-programs/racy_counter.c"));
    let m = &p.program.module;
    let k0 = explore_bounded(m, &opts(Reduction::Dpor), 0, &mut |_, _| {}).unwrap();
    assert_eq!(k0.stats.verdict, Verdict::Inconclusive);
    assert!(k0.stats.interference_cut_runs > 0);
    assert!(k0
        .stats
        .reasons
        .iter()
        .any(|r| matches!(r, Reason::Interferences { max: 0, .. })));
    let k2 = explore_bounded(m, &opts(Reduction::Dpor), 2, &mut |_, _| {}).unwrap();
    assert_eq!(k2.stats.verdict, Verdict::Violation);
    let f = k2.findings.iter().find(|f| f.line == 23).unwrap();
    assert_eq!(f.interferences, Some(1));
    assert_eq!(
        k2.stats.max_interferences,
        Some(1),
        "stops at the first bound that finds it"
    );
}

/// Directed mode on benches/incremental/directed-new-branch (reasoning in
/// its README): the patch adds `if (v < -10) x = 3;` on the else side of
/// the unchanged `if (v > 10)`.  NEW's three paths give three impacted
/// path conditions: `v > 10` true is OLD's (not new); the two through the
/// added branch are new, one of them ends in the violation.  The order is
/// directed: the first path explored goes through the added branch.
#[test]
fn directed_reports_new_and_unchanged_path_conditions() {
    use concord::symex::directed::explore_directed;
    let d = root().join("benches/incremental/directed-new-branch");
    let (o, n) = (load(&d.join("v1.c")), load(&d.join("v2.c")));
    let (x, _, rep) =
        explore_directed(&o.input(), &n.input(), &opts(Reduction::Dpor), None).unwrap();
    eprintln!("{rep}");
    assert_eq!(x.violation_lines(), vec![27]);
    assert_eq!(rep.conditions.len(), 3, "{rep}");
    let one: Vec<_> = rep
        .conditions
        .iter()
        .filter(|c| c.decisions.len() == 1)
        .collect();
    assert_eq!(one.len(), 1, "{rep}");
    assert!(!one[0].new && one[0].decisions[0].matched, "{rep}");
    assert!(one[0].decisions[0].location.contains(":13:"), "{rep}");
    for c in rep.conditions.iter().filter(|c| c.decisions.len() == 2) {
        assert!(c.new, "{rep}");
        assert!(c
            .decisions
            .iter()
            .any(|d| !d.matched && d.location.contains(":16:")));
    }
    assert_eq!(
        rep.conditions
            .iter()
            .filter(|c| !c.violations.is_empty())
            .count(),
        1
    );
    assert!(rep
        .conditions
        .iter()
        .filter(|c| !c.violations.is_empty())
        .all(|c| c.new));
    assert_eq!(rep.new_conditions, 2);
    let first = rep.conditions.iter().find(|c| c.first_path == 0).unwrap();
    assert!(
        first.new,
        "directed order: a path through the added branch first\n{rep}"
    );
}

/// Directed mode only reorders (and explores impacted branches on both
/// sides): it finds the violations of the undirected incremental run, in
/// every reduction mode.
#[test]
fn directed_finds_the_violations_of_the_undirected_run() {
    use concord::symex::directed::explore_directed;
    let b = root().join("bench-programs");
    let s = root().join("symex-programs");
    let mut pairs: Vec<(PathBuf, PathBuf)> = [
        "conc-ise-fig2",
        "conc-ise-fig6",
        "dise-wbs",
        "ag-fig2",
        "double-checked-init",
    ]
    .iter()
    .map(|n| (b.join(n).join("v1.c"), b.join(n).join("v2.c")))
    .collect();
    let d = root().join("benches/incremental/directed-new-branch");
    pairs.push((d.join("v1.c"), d.join("v2.c")));
    pairs.push((d.join("v2.c"), d.join("v1.c")));
    for (a, c) in [
        ("account_ok", "account_bad"),
        ("lazy_init_bad", "lazy_init_ok"),
    ] {
        pairs.push((s.join(format!("{a}.c")), s.join(format!("{c}.c"))));
    }
    for (old, new) in pairs {
        let (o, n) = (load(&old), load(&new));
        for r in MODES {
            let (plain, _) = explore_incremental(&o.input(), &n.input(), &opts(r), None).unwrap();
            if r == Reduction::None && plain.stats.runs() > 200 {
                continue;
            }
            let (dir, _, rep) = explore_directed(&o.input(), &n.input(), &opts(r), None).unwrap();
            assert_eq!(
                dir.violation_locations(),
                plain.violation_locations(),
                "{} -> {} in mode {r}: directed vs undirected",
                old.display(),
                new.display()
            );
            // Every violation of NEW's own exploration ends some recorded path.
            let ended: std::collections::BTreeSet<String> = rep
                .conditions
                .iter()
                .flat_map(|c| c.violations.iter().cloned())
                .collect();
            for f in dir.findings.iter().filter(|f| f.kind.is_violation()) {
                if !f.message.starts_with("unchanged from OLD") {
                    assert!(
                        ended.contains(&f.location),
                        "{} not on a recorded path",
                        f.location
                    );
                }
            }
        }
    }
}

/// `--max-interferences` tries only the interferences `rf_may` allows.  On
/// symex-programs/racy_counter.c the lost update needs main's read of `c`
/// (line 23) to read a worker's write (line 13): with the rules' `rf_may`
/// it is tried and the violation is found with 1 interference; with an
/// `rf_may` from which every edge into line 23 was removed, the path that
/// makes it ends there: no violation, and the verdict is inconclusive
/// (the bound was not the only limit: `rf_disallowed` paths).
#[test]
fn interference_bound_tries_only_rf_may_edges() {
    use concord::symex::interference::{explore_bounded, RfMay};
    use concord::symex::{Reason, Verdict};
    use std::sync::Arc;
    let p = load(&root().join("symex-programs/racy_counter.c"));
    let m = &p.program.module;
    let rel = concord::analysis::run(
        concord::analysis::RuleProgram::Sync1,
        concord::analysis::Engine::Ascent,
        &p.facts,
    );
    let rows: Vec<(u32, u32)> = rel["rf_may"].iter().map(|r| (r[0], r[1])).collect();
    let into_23 = |r: u32| p.facts.statement(r).is_some_and(|s| s.line == 23);
    assert!(
        rows.iter().any(|(_, r)| into_23(*r)),
        "rf_may has edges into line 23"
    );
    let mut o = opts(Reduction::Dpor);
    o.rf_may = Some(Arc::new(RfMay::from_statements(m, &p.facts, &rows)));
    let full = explore_bounded(m, &o, 2, &mut |_, _| {}).unwrap();
    assert_eq!(full.stats.verdict, Verdict::Violation);
    assert_eq!(full.stats.rf_disallowed_runs, 0);
    let f = full.findings.iter().find(|f| f.line == 23).unwrap();
    assert_eq!(f.interferences, Some(1));
    let cut: Vec<(u32, u32)> = rows.iter().copied().filter(|(_, r)| !into_23(*r)).collect();
    o.rf_may = Some(Arc::new(RfMay::from_statements(m, &p.facts, &cut)));
    let part = explore_bounded(m, &o, 2, &mut |_, _| {}).unwrap();
    assert!(part.violation_lines().is_empty(), "{:?}", part.findings);
    assert!(part.stats.rf_disallowed_runs > 0);
    assert_eq!(part.stats.verdict, Verdict::Inconclusive);
    assert!(part
        .stats
        .reasons
        .iter()
        .any(|r| matches!(r, Reason::Interferences { rf_disallowed, .. } if *rf_disallowed > 0)));
}

/// `concord symex OLD NEW --directed`: exit 1 (NEW has the violation),
/// one line per impacted path condition on stdout (2 new, 1 not new, see
/// the README of benches/incremental/directed-new-branch), and
/// `directed.json` in the results directory saying the same.
#[test]
fn directed_cli_prints_and_writes_the_conditions() {
    let d = root().join("benches/incremental/directed-new-branch");
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_concord"))
        .args([
            "symex",
            "--directed",
            "--no-store",
            "--reduction",
            "dpor",
            "--output-dir",
        ])
        .arg(tmp.path())
        .arg(d.join("v1.c"))
        .arg(d.join("v2.c"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("new "))
            .count(),
        2,
        "{stdout}"
    );
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("not new "))
            .count(),
        1,
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("directed.json")).unwrap())
            .unwrap();
    assert_eq!(json["new_conditions"], 2);
    assert_eq!(json["conditions"].as_array().unwrap().len(), 3);
}

/// Summaries are reused across versions whose objects are numbered
/// differently: readreadwrite v3 adds `assert(a2 <= a3)`, whose message
/// string is a new global, so every later global, function and
/// declaration has another object number than in v2.  States where the
/// reader is done have the same code ahead in both versions and reuse
/// v2's summaries (named by global, function and declaration names, not
/// numbers); with numbers in the key none would be.
#[test]
fn summaries_are_reused_when_objects_are_renumbered() {
    let d = root().join("benches/incremental/readreadwrite");
    let (o, n) = (load(&d.join("v2.c")), load(&d.join("v3.c")));
    assert_ne!(
        o.program.module.global_vars.len(),
        n.program.module.global_vars.len(),
        "the pair no longer renumbers objects"
    );
    let tmp = tempfile::tempdir().unwrap();
    reusing_beside_alone(&o, &n, &tmp.path().join("s.db"));
}

/// NEW explored by dpor+ag with OLD's summaries (a fresh store at
/// `store`) and alone: the same violations, and some summary of OLD
/// reused. Returns (with OLD's summaries, alone).
fn reusing_beside_alone(
    o: &Version,
    n: &Version,
    store: &Path,
) -> (concord::symex::Exploration, concord::symex::Exploration) {
    let store = concord::symex::store::Store::open(store).unwrap();
    let (inc, _) = explore_incremental(
        &o.input(),
        &n.input(),
        &opts(Reduction::DporAg),
        Some(&store),
    )
    .unwrap();
    let alone = explore(&n.program.module, &opts(Reduction::DporAg)).unwrap();
    assert_eq!(inc.violation_locations(), alone.violation_locations());
    assert!(
        inc.stats.summaries_reused > 0,
        "no summary of OLD reused in NEW ({} imported)",
        inc.stats.summaries_imported
    );
    (inc, alone)
}

/// A path that ends in a violation contributes "nothing new" to the
/// summaries once the violation is reported (Conc-iSE §6.2: the pruning
/// looks for *previously unexplored* errors): in prodcons_if every run
/// ends in the assertion failure or the deadlock, and dpor+ag stops the
/// later paths into the assertion early (partial runs): fewer paths are
/// explored to the violation than under dpor (before, every one was);
/// the violations are those of dpor.
#[test]
fn paths_into_reported_violations_are_pruned() {
    let p = root().join("symex-programs/prodcons_if.c");
    let m = load(&p);
    let dpor = explore(&m.program.module, &opts(Reduction::Dpor)).unwrap();
    let ag = explore(&m.program.module, &opts(Reduction::DporAg)).unwrap();
    assert_eq!(ag.violation_locations(), dpor.violation_locations());
    assert_eq!(dpor.stats.complete_runs, 0, "prodcons_if can end normally");
    assert!(ag.stats.partial_runs > 0, "no path pruned");
    assert!(
        ag.stats.error_runs < dpor.stats.error_runs,
        "dpor+ag explored {} paths into a violation to their end, dpor {}",
        ag.stats.error_runs,
        dpor.stats.error_runs
    );
}

/// Summaries are reused where only the names of values changed. OLD:
/// two threads each add 1 to `x` (load, add, store: a lost update is
/// possible), main joins them and asserts `1 <= x <= 2` — it holds in
/// every interleaving (each thread stores its own read + 1, so x ends at
/// 1 or 2). NEW first copies `y` into `x` (`x = y;`, both 0: the same
/// values), which adds a load before main's later load of `x`: clang
/// numbers it `%0` in OLD and `%1` in NEW, so main's code ahead differs
/// in names at every state after the copy, and only the same up to value
/// names. Neither version can fail; NEW reuses OLD's summaries at the
/// states after the copy and explores fewer runs than alone.
#[test]
fn summaries_are_reused_when_values_are_renamed() {
    const OLD: &str = "#include <pthread.h>
#include <assert.h>
int x, y;
void *t(void *a) { x = x + 1; return 0; }
int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, t, 0);
  pthread_create(&b, 0, t, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  int v = x;
  assert(v >= 1 && v <= 2);
  return 0;
}
";
    let new_src = OLD.replace("  pthread_t a, b;\n", "  x = y;\n  pthread_t a, b;\n");
    let dir = tempfile::tempdir().unwrap();
    let (po, pn) = (dir.path().join("old.c"), dir.path().join("new.c"));
    std::fs::write(&po, OLD).unwrap();
    std::fs::write(&pn, &new_src).unwrap();
    let (o, n) = (load(&po), load(&pn));
    // The premise: main's load of x is renamed.
    let load_of_x = |m: &llvm_ir::Module| -> Vec<String> {
        let f = m.functions.iter().find(|f| f.name == "main").unwrap();
        f.basic_blocks
            .iter()
            .flat_map(|b| b.instrs.iter())
            .map(|i| i.to_string())
            .filter(|t| t.contains(" = load ") && t.contains("@x"))
            .collect()
    };
    let (lo, ln) = (load_of_x(&o.program.module), load_of_x(&n.program.module));
    assert!(
        lo.len() == 1 && ln.len() == 1 && lo[0] != ln[0],
        "main's load of x is not renamed: {lo:?} / {ln:?}"
    );
    let (inc, alone) = reusing_beside_alone(&o, &n, &dir.path().join("s.db"));
    assert!(alone.violation_locations().is_empty());
    assert!(
        inc.stats.runs() + inc.stats.partial_runs < alone.stats.runs() + alone.stats.partial_runs,
        "runs with OLD's summaries {} + {} partial, alone {} + {}",
        inc.stats.runs(),
        inc.stats.partial_runs,
        alone.stats.runs(),
        alone.stats.partial_runs
    );
}
