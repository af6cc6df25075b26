//! Only `src/cli` knows clap (issue 25, item 4): the library's enums and
//! options are plain Rust, and the command line maps its own value enums
//! onto them. `src/symex` holds no command-line code.

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

/// `path:line: code` of each line whose code (comments removed) names clap.
fn clap_uses(src: &Path, files: &[PathBuf]) -> Vec<String> {
    let mut uses = Vec::new();
    for p in files {
        let rel = p.strip_prefix(src).unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(p).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("clap") {
                uses.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    uses
}

#[test]
fn clap_is_named_only_in_src_cli() {
    let src = repo_root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let uses = clap_uses(&src, &files);
    assert!(
        uses.iter().any(|u| u.starts_with("cli/")),
        "the walk finds the command line's own uses: {uses:?}"
    );
    let outside: Vec<&String> = uses.iter().filter(|u| !u.starts_with("cli/")).collect();
    assert!(outside.is_empty(), "clap outside src/cli: {outside:#?}");
}

#[test]
fn the_check_catches_a_derive_in_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("report");
    std::fs::create_dir_all(&lib).unwrap();
    let file = lib.join("style.rs");
    std::fs::write(
        &file,
        "// clap in a comment is fine\n#[derive(Debug, clap::ValueEnum)]\npub enum E { A }\n",
    )
    .unwrap();
    let uses = clap_uses(dir.path(), &[file]);
    assert_eq!(uses.len(), 1, "{uses:?}");
    assert!(uses[0].starts_with("report/style.rs:2:"), "{uses:?}");
}

#[test]
fn symex_holds_no_command_line_code() {
    let symex = repo_root().join("src/symex");
    let mut files = Vec::new();
    rust_files(&symex, &mut files);
    let cli: Vec<_> = files
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("cli"))
        })
        .collect();
    assert!(cli.is_empty(), "{cli:?}");
}
