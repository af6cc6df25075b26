//! The real projects of `../shared/corpus` (git bundles), for tests that
//! clone and build them in a temporary directory.

use super::repo_root;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The corpus directory: `$CONCORD_CORPUS`, `../shared/corpus` or
/// `/work/shared/corpus`. Without one the test says so (naming itself)
/// and passes, unless `CONCORD_REQUIRE_CORPUS=1`.
pub fn corpus(test: &str) -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("CONCORD_CORPUS").map(PathBuf::from),
        Some(repo_root().join("../shared/corpus")),
        Some(PathBuf::from("/work/shared/corpus")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_dir());
    if found.is_none() {
        assert!(
            std::env::var_os("CONCORD_REQUIRE_CORPUS").is_none(),
            "CONCORD_REQUIRE_CORPUS is set but no corpus directory was found"
        );
        eprintln!("{test}: SKIPPED: no corpus (set CONCORD_CORPUS)");
    }
    found
}

/// Run a tool in `dir`; its failure fails the test with its stderr.
pub fn run_tool(dir: &Path, program: &str, args: &[&str]) {
    let o = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        o.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A checkout of `commit` from `bundle` in `src` (created): init, fetch
/// every ref of the bundle (its HEAD may name no branch), check out.
pub fn checkout_bundle(bundle: &Path, commit: &str, src: &Path) {
    std::fs::create_dir_all(src).unwrap();
    run_tool(src, "git", &["init", "-q"]);
    run_tool(
        src,
        "git",
        &[
            "fetch",
            "-q",
            bundle.to_str().unwrap(),
            "*:refs/remotes/b/*",
        ],
    );
    run_tool(src, "git", &["checkout", "-q", commit]);
}
