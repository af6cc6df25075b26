//! Change-impact benchmark: per bench pair (checked-in facts, so no
//! compilation is timed) the time of Algorithm 3 (`rules/cia.dl` on one or
//! both versions, best of N) and the sizes of the dependence graph and of
//! the impacted sets; then the same on synthetic programs of growing size
//! (compiled with clang-14 once, outside the timing). Prints measurements
//! only; asserts nothing.
//!
//! Run: `cargo bench --bench impact` (add `-- N` to take the best of N runs).

#[path = "synth/mod.rs"]
mod synth;

use concord::analysis::impact::{analyse, change_groups, lines_of, ImpactResult};
use concord::analysis::Engine;
use concord::facts::extract::{extract, ExtractOptions};
use concord::facts::{io, FactSet};
use concord::frontend::{load_program, CompileOptions};
use concord::versions::{match_versions, Version};
use std::path::Path;
use std::time::{Duration, Instant};

struct Measure {
    best: Duration,
    result: ImpactResult,
    changes: usize,
}

fn measure(
    old: &FactSet,
    old_src: Option<&str>,
    new: &FactSet,
    new_src: Option<&str>,
    repeats: usize,
) -> Measure {
    let m = match_versions(
        &Version {
            facts: old,
            source: old_src,
        },
        &Version {
            facts: new,
            source: new_src,
        },
    );
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let groups = change_groups(&m, old, new);
        let t = Instant::now();
        let r = analyse(Engine::Ascent, groups, Some(old), new, &m.map);
        best = best.min(t.elapsed());
        last = Some(r);
    }
    Measure {
        best,
        result: last.unwrap(),
        changes: m.changes.len(),
    }
}

fn row(name: &str, new: &FactSet, m: &Measure) {
    let r = &m.result;
    println!(
        "{:<32} {:>6} {:>7} {:>7} {:>9.2}ms {:>6} {:>6} {:>6} {:>6} {:>6}",
        name,
        new.statements.len(),
        m.changes,
        r.deps_new.len() + r.deps_old.len(),
        m.best.as_secs_f64() * 1e3,
        r.fwd.len(),
        r.bwd.len(),
        lines_of(new, &r.fwd).len(),
        lines_of(new, &r.bwd).len(),
        r.fwd_old.len() + r.bwd_old.len(),
    );
}

/// A program with `threads` workers, each running a chain of `len`
/// statements over shared counters (every worker reads what the previous
/// one writes) with a branch every fourth step; v2 changes one constant in
/// the first worker.
fn synthetic(threads: usize, len: usize, changed: bool) -> String {
    let mut s = String::from("#include <pthread.h>\n#include <assert.h>\n\n");
    for t in 0..=threads {
        s.push_str(&format!("int g{t} = 0;\n"));
    }
    for t in 0..threads {
        s.push_str(&format!("\nvoid *w{t}(void *arg) {{\n  int v = g{t};\n"));
        for i in 0..len {
            let k = if changed && t == 0 && i == 0 { 7 } else { 3 };
            if i % 4 == 3 {
                s.push_str(&format!("  if (v > {i}) v = v - {k}; else v = v + {k};\n"));
            } else {
                s.push_str(&format!("  v = v * {k} + {i};\n"));
            }
        }
        s.push_str(&format!("  g{} = v;\n  return 0;\n}}\n", t + 1));
    }
    s.push_str("\nint main(void) {\n");
    for t in 0..threads {
        s.push_str(&format!("  pthread_t h{t};\n"));
    }
    for t in 0..threads {
        s.push_str(&format!("  pthread_create(&h{t}, 0, w{t}, 0);\n"));
    }
    for t in 0..threads {
        s.push_str(&format!("  pthread_join(h{t}, 0);\n"));
    }
    s.push_str(&format!("  assert(g{threads} != 1);\n  return 0;\n}}\n"));
    s
}

fn main() {
    let repeats: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(3);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cases: Vec<String> = std::fs::read_dir(root.join("bench-programs"))
        .expect("bench-programs/")
        .flatten()
        .filter(|e| e.path().join("v1.c").is_file())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    cases.sort();
    println!(
        "concord impact benchmark: Algorithm 3 with rules/cia.dl (ascent), best of {repeats} runs"
    );
    let header = || {
        println!(
            "{:<32} {:>6} {:>7} {:>7} {:>11} {:>6} {:>6} {:>6} {:>6} {:>6}",
            "program", "stmts", "changes", "deps", "time", "fwd", "bwd", "fwdL", "bwdL", "old"
        )
    };
    header();
    let mut total = Duration::ZERO;
    for case in &cases {
        let load = |v: &str| {
            let facts = io::read_dir(&root.join("facts").join(case).join(v)).expect("golden facts");
            let src = std::fs::read_to_string(
                root.join("bench-programs")
                    .join(case)
                    .join(format!("{v}.c")),
            )
            .ok();
            (facts, src)
        };
        let (old, os) = load("v1");
        let (new, ns) = load("v2");
        let m = measure(&old, os.as_deref(), &new, ns.as_deref(), repeats);
        total += m.best;
        row(case, &new, &m);
    }
    println!(
        "total over {} pairs: {:.2} ms",
        cases.len(),
        total.as_secs_f64() * 1e3
    );
    println!(
        "\nsynthetic programs (threads x chain length; one constant changed in the first worker)"
    );
    header();
    let dir = tempfile::tempdir().expect("temp dir");
    for (threads, len) in [(2, 16), (4, 32), (8, 64), (16, 64), (16, 128)] {
        let mut versions = Vec::new();
        for (name, changed) in [("v1.c", false), ("v2.c", true)] {
            let src = synthetic(threads, len, changed);
            let path = dir.path().join(name);
            std::fs::write(&path, &src).unwrap();
            let program = load_program(&path, &CompileOptions::default()).expect("compiles");
            let facts = extract(&program, &ExtractOptions::default()).expect("extracts");
            versions.push((facts, src));
        }
        let m = measure(
            &versions[0].0,
            Some(&versions[0].1),
            &versions[1].0,
            Some(&versions[1].1),
            repeats,
        );
        row(&format!("synthetic {threads}x{len}"), &versions[1].0, &m);
    }
    println!(
        "\nsynthetic programs of the diff benchmark (benches/synth: threads x accesses x locks; the patch changes the first store's constant)"
    );
    header();
    for (threads, accesses, locks) in [
        (4, 16, 2),
        (8, 32, 4),
        (16, 32, 4),
        (32, 16, 2),
        (32, 64, 8),
    ] {
        let size = synth::Size {
            threads,
            accesses,
            locks,
        };
        let old_src = synth::generate(size);
        // The first worker's first store `x<k> = s + 0;` becomes `... + 100;`.
        let new_src = old_src.replacen(" = s + 0;", " = s + 100;", 1);
        assert_ne!(
            old_src, new_src,
            "the synthetic program has a store to change"
        );
        let mut versions = Vec::new();
        for (name, src) in [("v1.c", &old_src), ("v2.c", &new_src)] {
            let path = dir.path().join(name);
            std::fs::write(&path, src).unwrap();
            let program = load_program(&path, &CompileOptions::default()).expect("compiles");
            let facts = extract(&program, &ExtractOptions::default()).expect("extracts");
            versions.push((facts, src.clone()));
        }
        let m = measure(
            &versions[0].0,
            Some(&versions[0].1),
            &versions[1].0,
            Some(&versions[1].1),
            repeats,
        );
        row(&format!("synth {size}"), &versions[1].0, &m);
    }
}
