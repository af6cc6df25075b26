//! Extraction benchmark over the whole bench-programs set: per program the
//! time to compile (clang-14 + opt-14), the time to extract, and fact
//! counts; then totals. Prints measurements only; asserts nothing.
//!
//! Run: `cargo bench --bench facts` (add `-- N` to take the best of N runs).

use concord::facts::extract::{extract, ExtractOptions};
use concord::frontend::{load_program, CompileOptions};
use std::path::Path;
use std::time::{Duration, Instant};

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
    println!("concord facts benchmark: best of {repeats} runs per program (compile = clang-14 + opt-14 + llvm-ir load)");
    println!(
        "{:<36} {:>3} {:>10} {:>10} {:>6} {:>7} {:>6} {:>7} {:>7} {:>7}",
        "program",
        "ver",
        "compile",
        "extract",
        "stmts",
        "threads",
        "events",
        "po",
        "mayacc",
        "facts"
    );
    let (mut total_compile, mut total_extract) = (Duration::ZERO, Duration::ZERO);
    let (mut total_facts, mut total_stmts, mut programs) = (0usize, 0usize, 0usize);
    for case in &cases {
        for version in ["v1", "v2"] {
            let src = root
                .join("bench-programs")
                .join(case)
                .join(format!("{version}.c"));
            let mut best_compile = Duration::MAX;
            let mut best_extract = Duration::MAX;
            let mut last = None;
            for _ in 0..repeats.max(1) {
                let t0 = Instant::now();
                let program =
                    load_program(&src, &CompileOptions::default()).expect("bench program compiles");
                let t1 = Instant::now();
                let facts =
                    extract(&program, &ExtractOptions::default()).expect("bench program extracts");
                let t2 = Instant::now();
                best_compile = best_compile.min(t1 - t0);
                best_extract = best_extract.min(t2 - t1);
                last = Some(facts);
            }
            let f = last.unwrap();
            let facts: usize = f.relations.values().map(|r| r.len()).sum();
            let events: std::collections::BTreeSet<u32> = ["shared_read", "shared_write"]
                .iter()
                .flat_map(|r| f.rows(r).map(|row| row[0]))
                .collect();
            println!(
                "{:<36} {:>3} {:>8.1}ms {:>8.2}ms {:>6} {:>7} {:>6} {:>7} {:>7} {:>7}",
                case,
                version,
                best_compile.as_secs_f64() * 1e3,
                best_extract.as_secs_f64() * 1e3,
                f.statements.len(),
                f.threads.len(),
                events.len(),
                f.count("po"),
                f.count("shared_read") + f.count("shared_write"),
                facts
            );
            total_compile += best_compile;
            total_extract += best_extract;
            total_facts += facts;
            total_stmts += f.statements.len();
            programs += 1;
        }
    }
    println!(
        "total: {programs} programs, {total_stmts} statements, {total_facts} facts; compile {:.1} ms, extract {:.1} ms; extraction is {:.1}% of the front-to-facts time",
        total_compile.as_secs_f64() * 1e3,
        total_extract.as_secs_f64() * 1e3,
        100.0 * total_extract.as_secs_f64() / (total_compile + total_extract).as_secs_f64()
    );
}
