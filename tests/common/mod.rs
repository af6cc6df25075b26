//! Helpers shared by the integration tests.
#![allow(dead_code)]

use concord::facts::extract::{extract, ExtractOptions};
use concord::facts::FactSet;
use concord::frontend::{load_program, CompileOptions};
use std::path::{Path, PathBuf};

/// Compile a C program given as text and extract its facts.
pub fn facts_of_c(source: &str) -> FactSet {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prog.c");
    std::fs::write(&path, source).unwrap();
    let program = load_program(&path, &CompileOptions::default()).expect("program loads");
    extract(&program, &ExtractOptions::default()).expect("facts extract")
}

/// Ids of statements on a source line with a given kind (`load`, `store`, `call`, ...).
pub fn at(f: &FactSet, line: u32, kind: &str) -> Vec<u32> {
    f.statements
        .iter()
        .filter(|s| s.line == line && s.kind == kind)
        .map(|s| s.id)
        .collect()
}

/// The single statement on a line with a kind.
pub fn one(f: &FactSet, line: u32, kind: &str) -> u32 {
    let v = at(f, line, kind);
    assert_eq!(
        v.len(),
        1,
        "expected one `{kind}` on line {line}, found {v:?}"
    );
    v[0]
}

pub fn loc(f: &FactSet, name: &str) -> u32 {
    f.locations
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no location named {name}: {:?}", f.locations))
        .id
}

pub fn has(f: &FactSet, relation: &str, row: &[u32]) -> bool {
    f.rows(relation).any(|r| r.as_slice() == row)
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Bench cases: directories of bench-programs/ with v1.c and v2.c.
pub fn bench_cases() -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(repo_root().join("bench-programs"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.path().join("v1.c").is_file() && e.path().join("v2.c").is_file())
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
}
