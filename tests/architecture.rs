//! The library does not depend on its command line (issue 12, item 5):
//! reports, loading and version matching, the analyses and the facts are
//! usable without `src/cli`, and `cli` imports them, never the reverse
//! (a cycle made `report` import `cli::LoadedVersion`). The command-line
//! layers (`src/cli`, `src/main.rs`, `src/symex/cli*.rs`) are exempt.

mod common;
use common::repo_root;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn library_modules_do_not_import_the_command_line() {
    let src = repo_root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let exempt = |p: &Path| {
        let rel = p.strip_prefix(&src).unwrap().to_string_lossy().to_string();
        rel.starts_with("cli/")
            || rel == "main.rs"
            || rel == "lib.rs"
            || rel.starts_with("bin/")
            || (rel.starts_with("symex/cli") && rel.ends_with(".rs"))
    };
    let checked: Vec<&PathBuf> = files.iter().filter(|p| !exempt(p)).collect();
    assert!(
        checked.iter().any(|p| p.ends_with("report/impact.rs"))
            && checked.iter().any(|p| p.ends_with("load.rs")),
        "the walk found the library: {checked:?}"
    );
    let mut offenders = Vec::new();
    for p in checked {
        let text = std::fs::read_to_string(p).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("crate::cli") || code.contains("super::cli") {
                offenders.push(format!("{}:{}: {}", p.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}
