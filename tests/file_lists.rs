//! A version given as a list of C files (`a.c,b.c` or `@FILE`): each file
//! a translation unit, compiled on its own, linked, and matched across
//! versions by source file and line.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Reads `done` after `run_pool()` returns (line 6).
const MAIN_OLD: &str = "extern int done;
void run_pool(void);

int main(void) {
  run_pool();
  return done;
}
";

/// The same with a comment line on top: the read moves to line 7 while
/// pool.c keeps its numbering, so lines must be matched per file.
const MAIN_NEW: &str = "/* entry point */
extern int done;
void run_pool(void);

int main(void) {
  run_pool();
  return done;
}
";

/// Starts a worker that sets `done` (line 5) and joins it (line 12).
const POOL_OLD: &str = "#include <pthread.h>
int done;

static void *work(void *arg) {
  done = 1;
  return 0;
}

void run_pool(void) {
  pthread_t h;
  pthread_create(&h, 0, work, 0);
  pthread_join(h, 0);
}
";

/// The patch: the join (old line 12) is gone, the worker is left running.
const POOL_NEW: &str = "#include <pthread.h>
int done;

static void *work(void *arg) {
  done = 1;
  return 0;
}

void run_pool(void) {
  pthread_t h;
  pthread_create(&h, 0, work, 0);
}
";

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

/// Old, as `old/main.c,old/pool.c`; new, as `@new/units.txt` (names
/// relative to the list). Both lists name their units `main.c` and
/// `pool.c` (relative to `old/` and `new/`), so the versions match file by
/// file.
///
/// Expected, by reasoning on the programs:
/// - `diff`: in old, `work`'s write of `done` (pool.c:5) is ordered between
///   the initial value and main's read (joined before `run_pool` returns),
///   so the read sees only that write. In new nothing orders the write
///   before the read, so the read may also see the initial value: exactly
///   one rank-1 difference, only in new, whose read is main.c:7 (new
///   numbering) in `main`, variable `done`, its write the initial value
///   (not pool.c:5, which both versions allow).
/// - `changes`: the join's statements at pool.c:12 are deleted; main.c
///   only gained a comment, so no change names it.
#[test]
fn two_lists_of_two_units_diff_and_change_at_the_right_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (old, new) = (tmp.path().join("old"), tmp.path().join("new"));
    write(&old, "main.c", MAIN_OLD);
    write(&old, "pool.c", POOL_OLD);
    write(&new, "main.c", MAIN_NEW);
    write(&new, "pool.c", POOL_NEW);
    write(&new, "units.txt", "# the program\nmain.c\npool.c\n");
    let old_list = format!(
        "{},{}",
        old.join("main.c").display(),
        old.join("pool.c").display()
    );
    let new_list = format!("@{}", new.join("units.txt").display());

    let o = run(&["diff", "-q", "--format", "json", &old_list, &new_list]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let diffs = doc["differences"].as_array().unwrap();
    assert_eq!(diffs.len(), 1, "{doc:#}");
    let d = &diffs[0];
    assert_eq!(
        (d["rank"].as_u64(), d["only_in"].as_str()),
        (Some(1), Some("new"))
    );
    let edge = &d["edges"][0];
    assert_eq!(edge["variable"], "done", "{edge:#}");
    assert_eq!(edge["read"]["file"], "main.c", "{edge:#}");
    assert_eq!(edge["read"]["line"], 7, "{edge:#}");
    assert_eq!(edge["read"]["function"], "main", "{edge:#}");
    assert!(
        !(edge["write"]["file"] == "pool.c" && edge["write"]["line"] == 5),
        "the worker's write is allowed in both versions: {edge:#}"
    );

    // The text names the file and line too.
    let o = run(&["diff", "-q", &old_list, &new_list]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("main.c:7 `return done;`"), "{text}");

    let o = run(&["changes", "--format", "json", &old_list, &new_list]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let changes = doc["changes"].as_array().unwrap();
    assert!(!changes.is_empty(), "{doc:#}");
    for c in changes {
        for side in ["old", "new"] {
            let f = &c[side]["file"];
            assert!(f.is_null() || f == "pool.c", "{c:#}");
        }
    }
    assert!(
        changes
            .iter()
            .any(|c| c["kind"] == "deleted" && c["old"]["line"] == 12),
        "{doc:#}"
    );

    // The same list for both versions: nothing changed, no difference.
    for cmd in ["changes", "diff"] {
        let o = run(&[cmd, "-q", &old_list, &old_list]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
    }
}

/// A listed file that does not exist is exit 3, naming it; a unit that
/// does not compile is exit 5, naming it with clang's diagnostics; units
/// that do not link (two definitions of `done`) are exit 5; a list that
/// names something other than C is exit 3.
#[test]
fn list_errors_name_the_file_at_fault() {
    let tmp = tempfile::tempdir().unwrap();
    let v = tmp.path().join("v");
    write(&v, "main.c", MAIN_OLD);
    write(&v, "pool.c", POOL_OLD);
    write(&v, "broken.c", "int f(void) { return }\n");
    write(&v, "twice.c", "int done = 2;\n");
    write(&v, "pool.ll", "");
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| v.join(n).display().to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let good = list(&["main.c", "pool.c"]);

    let o = run(&["changes", &list(&["main.c", "nope.c"]), &good]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("nope.c"), "{}", stderr(&o));

    let o = run(&["diff", &good, &list(&["main.c", "pool.c", "broken.c"])]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("broken.c") && stderr(&o).contains("error"),
        "{}",
        stderr(&o)
    );

    let o = run(&["diff", &good, &list(&["main.c", "pool.c", "twice.c"])]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));

    let o = run(&["diff", &good, &list(&["main.c", "pool.ll"])]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a .c file"), "{}", stderr(&o));

    let missing_list = format!("@{}", v.join("none.txt").display());
    let o = run(&["diff", &good, &missing_list]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("none.txt"), "{}", stderr(&o));
}

/// A list is a list whatever its names: one that is not UTF-8 is refused
/// as such (exit 3, "not valid UTF-8"), not reported as one missing file;
/// a name in it starting with `-` is a file, never a clang option; a FIFO
/// in a list, or as the `@` file, is refused, not read (it would block).
#[test]
fn hostile_names_in_lists() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "main.c", MAIN_OLD);
    write(d, "-pool.c", POOL_OLD);
    let run_in = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_concord"))
            .current_dir(d)
            .args(args)
            .output()
            .unwrap()
    };
    let os = |s: &str| std::ffi::OsStr::new(s).to_os_string();

    let o = run_in(&[
        &os("facts"),
        &os("-q"),
        &os("-o"),
        &os("out"),
        &os("--"),
        &os("main.c,-pool.c"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let bad = std::ffi::OsStr::from_bytes(b"main.c,po\xffol.c");
    let o = run_in(&[&os("facts"), &os("-o"), &os("out2"), bad]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("not valid UTF-8"), "{}", stderr(&o));

    for (fifo, arg) in [("f.c", "main.c,f.c"), ("units.txt", "@units.txt")] {
        let made = Command::new("mkfifo").arg(d.join(fifo)).status().unwrap();
        assert!(made.success());
        let o = run_in(&[&os("facts"), &os("-o"), &os("out3"), &os(arg)]);
        assert_eq!(o.status.code(), Some(3), "{arg}: {}", stderr(&o));
        assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    }
}
