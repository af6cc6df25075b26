//! The exported facts of every bench program are checked in under
//! `facts/<case>/{v1,v2}/`. This test re-extracts them and compares file by
//! file. `UPDATE_GOLDEN=1 cargo test --all-features --test suite golden_facts` rewrites them:
//! review every rewritten file (`git diff facts/`) before committing.

use crate::common;
use common::*;
use concord::facts::extract::{extract, ExtractOptions};
use concord::facts::io::{self, FactFormat};
use concord::frontend::{load_program, CompileOptions};
use std::path::Path;

#[test]
fn golden_facts_match_fresh_extraction() {
    let root = repo_root();
    let cases = bench_cases();
    assert!(
        cases.len() >= 24,
        "bench-programs/ must hold at least 24 pairs, found {}",
        cases.len()
    );
    let bless = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut mismatches = Vec::new();
    for case in &cases {
        for version in ["v1", "v2"] {
            // A relative path, so debug locations do not depend on the checkout.
            let src = format!("bench-programs/{case}/{version}.c");
            let program = load_program(Path::new(&src), &CompileOptions::default())
                .unwrap_or_else(|e| panic!("{src}: {e}"));
            let facts = extract(&program, &ExtractOptions::default())
                .unwrap_or_else(|e| panic!("{src}: {e}"));
            let golden = root.join("facts").join(case).join(version);
            if bless {
                let _ = std::fs::remove_dir_all(&golden);
                io::write_dir(&facts, &golden, FactFormat::Tsv).unwrap();
                continue;
            }
            let fresh = tempfile::tempdir().unwrap();
            io::write_dir(&facts, fresh.path(), FactFormat::Tsv).unwrap();
            for name in io::file_names(FactFormat::Tsv) {
                let want = std::fs::read_to_string(golden.join(&name)).unwrap_or_default();
                let got = std::fs::read_to_string(fresh.path().join(&name)).unwrap();
                if want != got {
                    mismatches.push(format!("facts/{case}/{version}/{}", name.display()));
                }
            }
        }
    }
    // No golden directory may outlive its bench case.
    if let Ok(rd) = std::fs::read_dir(root.join("facts")) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if !cases.contains(&name) {
                mismatches.push(format!("facts/{name} has no bench case"));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "golden facts differ (UPDATE_GOLDEN=1 to rewrite, then review):\n  {}",
        mismatches.join("\n  ")
    );
}
