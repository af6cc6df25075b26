//! Differential test of the two rule engines: every rule program (sync1,
//! sync2, sync3, and main's change-impact program cia) runs through ascent (production) and crepe (reference) on
//! the golden facts of every bench program, both versions, and the derived
//! relations must be identical, relation by relation.
//!
//! No program or bench pair is left out. Measured after the merge with
//! main (debug build, 2 shared cores, 27 pairs = 54 fact sets): sync1 ascent
//! 0.15 s / crepe 0.36 s, sync2 0.17 / 0.43 s, sync3 0.19 / 0.47 s, cia
//! 0.07 / 0.15 s; the bench programs are small enough that rank 3 under crepe
//! needs no restriction.

// The reference engine is in builds with feature `reference-engine`
// (scripts/test passes --all-features).
#![cfg(feature = "reference-engine")]

use concord::analysis::{run, Engine, RuleProgram};
use concord::facts::{io::read_dir, FactSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn fact_dirs() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("facts");
    let mut cases: Vec<String> = std::fs::read_dir(&root)
        .expect("facts/")
        .flatten()
        .filter(|e| e.path().join("v1").is_dir())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 26,
        "expected at least the 26 bench pairs under facts/, found {}",
        cases.len()
    );
    assert_eq!(
        cases.len(),
        bench_pairs(),
        "every bench-programs/<case> has golden facts under facts/<case>"
    );
    cases
        .iter()
        .flat_map(|c| {
            let dir = root.join(c);
            ["v1", "v2"]
                .into_iter()
                .map(move |v| (format!("{c}/{v}"), dir.join(v)))
        })
        .collect()
}

/// Number of bench pairs (`bench-programs/<case>/v1.c`).
fn bench_pairs() -> usize {
    std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("bench-programs"))
        .expect("bench-programs/")
        .flatten()
        .filter(|e| e.path().join("v1.c").is_file())
        .count()
}

fn load(dir: &Path) -> FactSet {
    read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// Run `program` with both engines on every fact set, require equal relations, and return (fact sets compared, total rows
/// compared, time in ascent, time in crepe).
fn compare(program: RuleProgram) -> (usize, usize, Duration, Duration) {
    let (mut sets, mut rows) = (0, 0);
    let (mut t_ascent, mut t_crepe) = (Duration::ZERO, Duration::ZERO);
    for (name, dir) in fact_dirs() {
        let facts = load(&dir);
        let t0 = Instant::now();
        let a = run(program, Engine::Ascent, &facts);
        let t1 = Instant::now();
        let c = run(program, Engine::Crepe, &facts);
        t_ascent += t1 - t0;
        t_crepe += t1.elapsed();
        // same relation names: every declared output, nothing else
        let declared: Vec<&str> = program.outputs().iter().map(|(n, _)| *n).collect();
        assert_eq!(
            a.keys().map(String::as_str).collect::<Vec<_>>(),
            {
                let mut d = declared.clone();
                d.sort();
                d
            },
            "{name}: ascent output names"
        );
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            c.keys().collect::<Vec<_>>(),
            "{name}: engines report different relation names for {}",
            program.name()
        );
        for (rel, rows_a) in &a {
            let rows_c = &c[rel];
            if rows_a != rows_c {
                let only_a: Vec<_> = rows_a.difference(rows_c).take(5).collect();
                let only_c: Vec<_> = rows_c.difference(rows_a).take(5).collect();
                panic!(
                    "{name}: {} relation {rel} differs: ascent {} rows, crepe {} rows; \
                     only in ascent (first 5) {only_a:?}; only in crepe (first 5) {only_c:?}",
                    program.name(),
                    rows_a.len(),
                    rows_c.len()
                );
            }
            rows += rows_a.len();
        }
        sets += 1;
    }
    eprintln!(
        "{}: {sets} fact sets, {rows} rows equal; ascent {:.2} s, crepe {:.2} s",
        program.name(),
        t_ascent.as_secs_f64(),
        t_crepe.as_secs_f64()
    );
    (sets, rows, t_ascent, t_crepe)
}

#[test]
fn sync1_engines_agree() {
    let (sets, rows, _, _) = compare(RuleProgram::Sync1);
    assert_eq!(sets, 2 * bench_pairs());
    // the comparison is not vacuous: the bench set derives relations
    assert!(rows > 1000, "only {rows} rows derived over the bench set");
}

#[test]
fn sync2_engines_agree() {
    let (sets, rows, _, _) = compare(RuleProgram::Sync2);
    assert_eq!(sets, 2 * bench_pairs());
    assert!(rows > 1000, "only {rows} rows derived over the bench set");
}

#[test]
fn sync3_engines_agree() {
    let (sets, rows, _, _) = compare(RuleProgram::Sync3);
    assert_eq!(sets, 2 * bench_pairs());
    assert!(rows > 1000, "only {rows} rows derived over the bench set");
}

/// The mayHb set itself (rules/hb_may.dl) is a program of its own.
#[test]
fn hb_engines_agree() {
    let (sets, rows, _, _) = compare(RuleProgram::Hb);
    assert_eq!(sets, 2 * bench_pairs());
    assert!(rows > 1000, "only {rows} rows derived over the bench set");
}

/// The change-impact program (rules/cia.dl) is a rule program too.
#[test]
fn cia_engines_agree() {
    let (sets, rows, _, _) = compare(RuleProgram::Cia);
    assert_eq!(sets, 2 * bench_pairs());
    assert!(rows > 1000, "only {rows} rows derived over the bench set");
}

use crate::synth;

/// Synthetic programs (the benchmark's generator, through the normal C
/// front end) have more contention than the bench pairs: more stores per
/// location, several critical sections per thread, three threads. Both
/// engines must agree on them too, for every program.
#[test]
fn synthetic_programs_engines_agree() {
    use concord::facts::extract::{extract, ExtractOptions};
    use concord::frontend::{load_program, CompileOptions};
    let dir = tempfile::tempdir().unwrap();
    for (threads, accesses, locks) in [(3, 4, 1), (2, 6, 0), (3, 4, 2), (2, 5, 1)] {
        let size = synth::Size {
            threads,
            accesses,
            locks,
        };
        let path = dir.path().join(format!("{size}.c"));
        std::fs::write(&path, synth::generate(size)).unwrap();
        let program = load_program(&path, &CompileOptions::default()).expect("compiles");
        let facts = extract(&program, &ExtractOptions::default()).expect("extracts");
        for p in RuleProgram::ALL {
            let a = run(p, Engine::Ascent, &facts);
            let c = run(p, Engine::Crepe, &facts);
            assert_eq!(a, c, "{size}: {} differs between the engines", p.name());
            if p == RuleProgram::Sync3 {
                assert!(!a["rank3_may"].is_empty(), "{size}: no rank-3 triples");
            }
        }
    }
}
