//! Real builds: a version is a directory with `compile_commands.json`;
//! each translation unit is compiled with its own flags, the units are
//! linked, and versions are matched by source file and line.

use crate::common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

const SHARED_H: &str = "extern int x;\nvoid *worker(void *arg);\n";

/// `VALUE` is defined only by worker.c's own compile command: the build
/// compiles only if each unit gets its own flags.
const WORKER_C: &str =
    "#include \"shared.h\"\nint x;\nvoid *worker(void *arg) {\n  x = VALUE;\n  return 0;\n}\n";

const MAIN_OLD: &str = "#include <pthread.h>\n#include \"shared.h\"\n\nint main(void) {\n  pthread_t h;\n  pthread_create(&h, 0, worker, 0);\n  pthread_join(h, 0);\n  int seen = x;\n  return seen;\n}\n";

/// The patch adds a comment line at the top (every line shifts by one) and
/// moves the read of `x` (new line 8) before the join (new line 9).
const MAIN_NEW: &str = "// patched: read before join\n#include <pthread.h>\n#include \"shared.h\"\n\nint main(void) {\n  pthread_t h;\n  pthread_create(&h, 0, worker, 0);\n  int seen = x;\n  pthread_join(h, 0);\n  return seen;\n}\n";

/// A version directory: sources, a header directory, and a compilation
/// database using both the `arguments` and the `command` form.
fn project(root: &Path, main_c: &str, worker_c: &str) {
    std::fs::create_dir_all(root.join("include")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("include/shared.h"), SHARED_H).unwrap();
    std::fs::write(root.join("src/main.c"), main_c).unwrap();
    std::fs::write(root.join("src/worker.c"), worker_c).unwrap();
    let dir = root.display().to_string();
    let db = serde_json::json!([
        {"directory": dir, "file": "src/main.c",
         "arguments": ["cc", "-O2", "-Iinclude", "-c", "src/main.c", "-o", "main.o"]},
        {"directory": format!("{dir}/src"), "file": "worker.c",
         "command": "gcc -Wall -I../include -DVALUE=42 -c worker.c -o worker.o"}
    ]);
    std::fs::write(
        root.join("compile_commands.json"),
        serde_json::to_string_pretty(&db).unwrap(),
    )
    .unwrap();
}

/// Old: main reads `x` after joining the worker, so the read sees only the
/// worker's write. New: the read comes before the join, so it may also see
/// the initial value of `x`. The one rank-1 difference is therefore "only
/// in new": the read at src/main.c:8 (new numbering) reading the initial
/// value. The comment line shifts main.c, not worker.c, so matching must be
/// per file.
#[test]
fn a_two_unit_build_reports_the_difference_at_the_right_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    project(&old, MAIN_OLD, WORKER_C);
    project(&new, MAIN_NEW, WORKER_C);
    let o = run(&[
        "diff",
        "-q",
        "--format",
        "json",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let diffs = doc["differences"].as_array().unwrap();
    assert_eq!(diffs.len(), 1, "{doc:#}");
    let d = &diffs[0];
    assert_eq!(d["rank"], 1);
    assert_eq!(d["only_in"], "new");
    let edge = &d["edges"][0];
    assert_eq!(edge["read"]["file"], "src/main.c", "{edge:#}");
    assert_eq!(edge["read"]["line"], 8, "{edge:#}");
    assert_eq!(edge["read"]["function"], "main");
    assert_eq!(edge["variable"], "x");

    // `changes`: main.c's read and join moved; nothing in worker.c changed.
    let o = run(&[
        "changes",
        "--format",
        "json",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let changes = doc["changes"].as_array().unwrap();
    assert!(!changes.is_empty());
    for c in changes {
        for side in ["old", "new"] {
            let f = &c[side]["file"];
            assert!(f.is_null() || f == "src/main.c", "{c:#}");
        }
    }
}

#[test]
fn a_comment_only_patch_to_a_build_is_no_change() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    project(&old, MAIN_OLD, WORKER_C);
    let commented = WORKER_C.replace("int x;\n", "/* the shared counter */\nint x;\n");
    project(
        &new,
        &MAIN_OLD.replace("int main", "// entry\nint main"),
        &commented,
    );
    for cmd in ["changes", "diff"] {
        let o = run(&[cmd, "-q", old.to_str().unwrap(), new.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{cmd}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            stderr(&o)
        );
    }
}

/// A comment line at the top shifts every line by one. A constant equal to
/// its statement's line (`x = 10;` on line 10) used to be taken for
/// `__LINE__` on one side only and reported as modified.
#[test]
fn a_comment_only_patch_to_a_single_file_is_no_change() {
    let tmp = tempfile::tempdir().unwrap();
    for case in bench_cases() {
        let src = std::fs::read_to_string(repo_root().join(format!("bench-programs/{case}/v1.c")))
            .unwrap();
        let old = tmp.path().join(format!("{case}-old.c"));
        let new = tmp.path().join(format!("{case}-new.c"));
        std::fs::write(&old, &src).unwrap();
        std::fs::write(&new, format!("/* reviewed */\n{src}")).unwrap();
        let o = run(&[
            "changes",
            "-q",
            old.to_str().unwrap(),
            new.to_str().unwrap(),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{case}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            stderr(&o)
        );
    }
}

#[test]
fn a_directory_without_a_build_or_facts_is_exit_3() {
    let tmp = tempfile::tempdir().unwrap();
    let o = run(&[
        "diff",
        tmp.path().to_str().unwrap(),
        tmp.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
}

#[test]
fn units_that_do_not_link_are_exit_5() {
    let tmp = tempfile::tempdir().unwrap();
    let old = tmp.path().join("old");
    // Two definitions of `x`: each unit compiles, the link fails.
    project(
        &old,
        &MAIN_OLD.replace("int main", "int x = 3;\nint main"),
        WORKER_C.replace("int x;", "int x = 1;").as_str(),
    );
    let o = run(&[
        "facts",
        old.to_str().unwrap(),
        "-o",
        tmp.path().join("f").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
}

/// One source, two versions that differ only in their flags: `FIXED`
/// moves the join (line 13) before the read of `x` (line 12, or 15 when
/// fixed). The same file given twice is one version unless a version's
/// own flags make it the fixed build: then `changes` finds the join and
/// the read moved (exit 1), and `diff` lists the read-from edges through
/// the moved read: in the unfixed version the read may see the initial
/// value (line 2), in the fixed one only the worker's write (line 3).
#[test]
fn flags_of_one_version_only_reach_that_version() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.c");
    std::fs::write(
        &p,
        "#include <pthread.h>
int x;
void *worker(void *arg) { x = 1; return 0; }
int main(void) {
  pthread_t h;
  pthread_create(&h, 0, worker, 0);
#ifdef FIXED
  pthread_join(h, 0);
#endif
  int seen;
#ifndef FIXED
  seen = x;
  pthread_join(h, 0);
#else
  seen = x;
#endif
  return seen;
}
",
    )
    .unwrap();
    let p = p.to_str().unwrap();
    let same = run(&["-q", "changes", p, p]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    for (flag, fixed_side, unfixed_side) in [
        ("--new-cflags=-DFIXED", "new", "old"),
        ("--old-cflags=-DFIXED", "old", "new"),
    ] {
        let c = run(&["-q", "changes", p, p, flag]);
        assert_eq!(c.status.code(), Some(1), "{flag}: {}", stderr(&c));
        let text = String::from_utf8_lossy(&c.stdout).to_string();
        assert!(
            text.contains("p.c:8 ") && text.contains("p.c:13 "),
            "{text}"
        );
        let d = run(&["-q", "diff", p, p, flag]);
        assert!(matches!(d.status.code(), Some(0 | 1)), "{}", stderr(&d));
        let text = String::from_utf8_lossy(&d.stdout).to_string();
        let initial_to_read = |side: &str, line: u32| {
            text.lines().any(|l| {
                l.trim_start()
                    .starts_with(&format!("{side}  RF x: p.c:2 (initial value)"))
                    && l.contains(&format!("p.c:{line} `seen = x;`"))
            })
        };
        assert!(initial_to_read(unfixed_side, 12), "{flag}: {text}");
        assert!(!initial_to_read(fixed_side, 15), "{flag}: {text}");
    }
}
