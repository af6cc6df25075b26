//! `concord-last`, the link `symex` keeps to its newest results directory,
//! is never left stale silently: when something that is not a link has
//! that name (a directory a user made), it is left alone and the run says
//! the link was not updated (issue 28).

use crate::common;
use common::*;
use std::process::Command;

#[test]
fn a_concord_last_directory_is_left_alone_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let last = tmp.path().join("concord-last");
    std::fs::create_dir(&last).unwrap();
    std::fs::write(last.join("mine.txt"), "keep").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["-q", "symex", "--no-store", "--reduction", "none"])
        .arg(repo_root().join("symex-programs/racy_counter.c"))
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{err}");
    assert!(
        err.contains("concord-last") && err.contains("not updated"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(last.join("mine.txt")).unwrap(),
        "keep"
    );
    assert!(tmp.path().join("concord-out-0").is_dir());

    // With the link in place (or no name at all) nothing is said.
    std::fs::remove_dir_all(&last).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["-q", "symex", "--no-store", "--reduction", "none"])
        .arg(repo_root().join("symex-programs/racy_counter.c"))
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("concord-last"), "{err}");
    assert!(std::fs::symlink_metadata(&last)
        .unwrap()
        .file_type()
        .is_symlink());
}
