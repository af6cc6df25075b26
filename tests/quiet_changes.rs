//! `changes` reports what a patch changed in behaviour, not the layout
//! constants it moved (issue 28): a field added to a struct renumbers the
//! fields after it and changes its `sizeof`; a helper reached from a new
//! call is not new code; allocas and phis carry no line to report. The
//! programs and the reasoning for each expectation are in
//! `tests/fixtures/quiet-changes/README.md`.

use crate::common;
use common::*;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

fn fixture(case: &str, file: &str) -> PathBuf {
    repo_root()
        .join("tests/fixtures/quiet-changes")
        .join(case)
        .join(file)
}

/// The changes of `old` -> `new` as (kind, file name, old line, new line),
/// one per changed source line and kind.
fn changed_lines(old: &str, new: &str) -> (i32, BTreeSet<(String, String, u32, u32)>) {
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["-q", "changes", "--format", "json", old, new])
        .current_dir(repo_root())
        .output()
        .expect("binary runs");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    let side = |v: &serde_json::Value| -> (String, u32) {
        if v.is_null() {
            return (String::new(), 0);
        }
        let file = v["file"].as_str().unwrap_or_default();
        let name = std::path::Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        (name, v["line"].as_u64().unwrap() as u32)
    };
    let lines = doc["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let (of, ol) = side(&c["old"]);
            let (nf, nl) = side(&c["new"]);
            let file = if nf.is_empty() { of } else { nf };
            (c["kind"].as_str().unwrap().to_string(), file, ol, nl)
        })
        .collect();
    (o.status.code().unwrap_or(-1), lines)
}

fn line(kind: &str, file: &str, old: u32, new: u32) -> (String, String, u32, u32) {
    (kind.to_string(), file.to_string(), old, new)
}

/// `long stopped` is added to `struct pool` after `limit`: `made`,
/// `count` and `total` move from fields 2-4 to 3-5 and the struct grows
/// from 32 to 40 bytes. The patch sets `stopped` (new line 31) and makes
/// the worker add to `made` instead of `count` (old 40, new 42): at the
/// same field index (3) in both versions, so only the member's name tells
/// that line changed. Nothing else: not `malloc(sizeof(struct pool))`, not
/// the eleven other accesses of shifted fields.
#[test]
fn a_field_added_to_a_struct_changes_only_the_lines_that_use_it() {
    let (code, lines) = changed_lines(
        fixture("field-shift", "v1.c").to_str().unwrap(),
        fixture("field-shift", "v2.c").to_str().unwrap(),
    );
    assert_eq!(code, 1);
    let want: BTreeSet<_> = [
        line("added", "v2.c", 0, 31),
        line("modified", "v2.c", 40, 42),
    ]
    .into_iter()
    .collect();
    assert_eq!(lines, want);
}

/// `int waiting` is added at the front of `struct lock_s` (every member
/// moves up one field; 96 -> 104 bytes) and set in `new_lock` (new line
/// 24); the worker's update of `total` and its unlock swap places (old
/// 41-42, new 43-44). A line diff keeps one of two swapped lines in place
/// and moves the other: either the update (old 41 -> new 44) or the
/// unlock (old 42 -> new 43) is moved, nothing else. The lock of
/// `p->have->mutex` (field 0 -> 1), the init calls and
/// `malloc(sizeof(struct lock_s))` do what they did.
#[test]
fn moved_locking_reports_the_move_not_the_shifted_mutex() {
    let (code, lines) = changed_lines(
        fixture("move-locking", "v1.c").to_str().unwrap(),
        fixture("move-locking", "v2.c").to_str().unwrap(),
    );
    assert_eq!(code, 1);
    let added = line("added", "v2.c", 0, 24);
    let update_moved: BTreeSet<_> = [added.clone(), line("moved", "v2.c", 41, 44)].into();
    let unlock_moved: BTreeSet<_> = [added, line("moved", "v2.c", 42, 43)].into();
    assert!(lines == update_moved || lines == unlock_moved, "{lines:?}");
}

/// `main` now calls the unchanged `add` of add.c (new line 15) and returns
/// `seen > 0 && total > 0`. add.c is not touched: its statements reached
/// from main are another instance of unchanged code. No change may be in
/// add.c, none without a line (the jump joining `&&`'s blocks has none),
/// and the new call must be reported.
#[test]
fn a_helper_reached_from_a_new_call_is_not_new_code() {
    let list = |v: &str| {
        format!(
            "{},{}",
            fixture("new-caller", v).display(),
            fixture("new-caller", "add.c").display()
        )
    };
    let (code, lines) = changed_lines(&list("v1.c"), &list("v2.c"));
    assert_eq!(code, 1);
    assert!(lines.contains(&line("added", "v2.c", 0, 15)), "{lines:?}");
    for l in &lines {
        assert!(l.1 == "v1.c" || l.1 == "v2.c", "{l:?} in {lines:?}");
        assert!(l.2 != 0 || l.3 != 0, "a change without a line: {lines:?}");
    }
}
