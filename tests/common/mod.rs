//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod corpus;

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
    f.rows(relation).any(|r| r == row)
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

/// A small deterministic generator (xorshift64*) for fuzz-style tests, so
/// a failure reproduces from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Copy the files of a directory (not recursive: fact directories are flat).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Standard output of `concord ARGS` run in the repository root, which
/// must answer (exit 0 or 1).
pub fn answer_of(args: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(repo_root())
        .args(args)
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The line of `src` whose comment carries `/* tag */`.
pub fn line_of(src: &str, tag: &str) -> u32 {
    let marker = format!("/* {tag} */");
    let hits: Vec<u32> = src
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&marker))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    assert_eq!(hits.len(), 1, "tag {tag}: lines {hits:?}");
    hits[0]
}

/// One difference of a `concord diff --format json` list (`differences`,
/// `by_line`): (rank, only_in, [(write line, read line)]).
pub type ReportedDifference = (u64, String, Vec<(u64, u64)>);

/// The differences of a JSON list of `concord diff`.
pub fn reported_differences(list: &serde_json::Value) -> Vec<ReportedDifference> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let edges = d["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e["write"]["line"].as_u64().unwrap(),
                        e["read"]["line"].as_u64().unwrap(),
                    )
                })
                .collect();
            (
                d["rank"].as_u64().unwrap(),
                d["only_in"].as_str().unwrap().to_string(),
                edges,
            )
        })
        .collect()
}
