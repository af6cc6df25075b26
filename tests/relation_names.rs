//! No code outside the schema names a relation in a string: extraction,
//! analyses, diff, lock order and reports read typed rows
//! (`facts::relations`) and the rule programs' typed outputs. The names
//! checked are every relation of the fact schema and every input and
//! output relation of every generated rule program; the code checked is
//! `src/`, except the schema itself (`src/facts/schema.rs`), which is
//! where names live.

use concord::datalog::programs;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every relation name the schema and the generated programs know.
fn relation_names() -> BTreeSet<&'static str> {
    let mut names: BTreeSet<&'static str> = concord::facts::schema::all().map(|r| r.name).collect();
    macro_rules! program_names {
        ($($p:ident),*) => {$(
            names.extend(programs::$p::ascent::INPUT_RELATIONS.iter().map(|(n, _)| *n));
            names.extend(programs::$p::ascent::OUTPUT_RELATIONS.iter().map(|(n, _)| *n));
        )*};
    }
    program_names!(sync1_core, sync1, sync2, counts, sync3, hb, cia, pointsto, diff1, diff2, diff3);
    names
}

/// `(line, name)` of each string literal in `text` that is exactly a
/// relation name.
fn relation_literals(text: &str, names: &BTreeSet<&str>) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        // the quoted pieces: odd-numbered parts between double quotes
        for (k, piece) in line.split('"').enumerate() {
            if k % 2 == 1 && names.contains(piece) {
                found.push((i + 1, piece.to_string()));
            }
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_relation_is_named_in_a_string_outside_the_schema() {
    let names = relation_names();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema = root.join("src/facts/schema.rs");
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 50, "the scan reads the sources: {files:?}");
    let mut bad = Vec::new();
    for file in files.iter().filter(|f| **f != schema) {
        let text = std::fs::read_to_string(file).expect("read source");
        for (line, name) in relation_literals(&text, &names) {
            bad.push(format!("{}:{line}: \"{name}\"", file.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "relations named by string (use the typed rows in facts::relations or a program's typed output):\n{}",
        bad.join("\n")
    );
}

/// The check can fail: it finds the literals of the old string-keyed code.
#[test]
fn the_scan_finds_relation_literals() {
    let names = relation_names();
    for expected in [
        "pt_var",
        "in_critical_section",
        "lock_order",
        "cia_seed_fwd",
        "ir_alloc",
    ] {
        assert!(names.contains(expected), "{expected} is a known relation");
    }
    let old = r#"
        let rows = |name: &str| out.get(name).into_iter().flatten();
        for r in rows("pt_var") {
        for r in f.rows("in_critical_section") { "mutex_locked" }
        let msg = "po_scc: statement {s}";
    "#;
    assert_eq!(
        relation_literals(old, &names),
        vec![
            (3, "pt_var".to_string()),
            (4, "in_critical_section".to_string())
        ]
    );
}
