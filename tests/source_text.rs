//! Reports quote each statement's own source line: the line of its file in
//! a build or list of C files (each unit has its own numbering), and a
//! header's line for code included into a single file, never the main
//! file's line of the same number.

use std::path::Path;
use std::process::{Command, Output};

fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("binary runs")
}

fn out(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn write(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Line `line` (1-based) of `file`, trimmed, as the reports quote it.
fn line_of(file: &Path, line: u64) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .nth(line as usize - 1)
        .unwrap_or_else(|| panic!("{} has no line {line}", file.display()))
        .trim()
        .to_string()
}

const MAIN: &str = "extern int done;
void run_pool(void);

int main(void) {
  run_pool();
  return done;
}
";

/// Starts a worker that sets `done` and joins it (line 12).
const POOL: &str = "#include <pthread.h>
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

/// Old and new as lists of two C files; the patch drops the join (old
/// pool.c:12) and puts a comment on top of main.c (new numbering shifts
/// by one there, not in pool.c). The one change is the deleted join, so
/// the text names it with its own line, `pthread_join(h, 0);`; every
/// impacted line of the JSON carries the text of that line of its own file
/// in its own version (the join's deletion reaches main's call of
/// `run_pool`, in main.c, and the join itself, in old pool.c).
#[test]
fn impact_of_file_lists_quotes_each_files_own_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "old/main.c", MAIN);
    write(d, "old/pool.c", POOL);
    write(d, "new/main.c", &format!("/* entry point */\n{MAIN}"));
    write(
        d,
        "new/pool.c",
        &POOL.replace("  pthread_join(h, 0);\n", ""),
    );
    let (old, new) = ("old/main.c,old/pool.c", "new/main.c,new/pool.c");

    let o = run(d, &["impact", "-q", old, new]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("[c0] deleted old pool.c:12  pthread_join(h, 0);"),
        "{text}"
    );
    assert!(text.contains("main.c:6     run_pool();"), "{text}");

    let o = run(d, &["impact", "-q", "--format", "json", old, new]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let items = doc["impacted"].as_array().unwrap();
    assert!(items.len() >= 2, "{doc:#}");
    let files: Vec<&str> = items.iter().map(|i| i["file"].as_str().unwrap()).collect();
    assert!(
        files.contains(&"main.c") && files.contains(&"pool.c"),
        "{doc:#}"
    );
    for i in items {
        let version = i["version"].as_str().unwrap();
        let path = d.join(version).join(i["file"].as_str().unwrap());
        assert_eq!(
            i["text"].as_str(),
            Some(line_of(&path, i["line"].as_u64().unwrap()).as_str()),
            "{i:#}"
        );
    }

    // SARIF: the result's message quotes the changed line.
    let o = run(d, &["impact", "-q", "--format", "sarif", old, new]);
    let log = String::from_utf8_lossy(&o.stdout);
    assert!(log.contains("`pthread_join(h, 0);` in run_pool"), "{log}");
}

/// A build (compile_commands.json) of the same two units, one version with
/// `--changed` on worker's write: the text shows pool.c's line 5, `done =
/// 1;`, and main's read `return done;` (main.c:6) among the lines it may
/// affect.
#[test]
fn impact_of_a_build_quotes_each_files_own_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "b/main.c", MAIN);
    write(d, "b/pool.c", POOL);
    let dir = d.join("b").display().to_string();
    let db = serde_json::json!([
        {"directory": dir, "file": "main.c", "arguments": ["cc", "-c", "main.c"]},
        {"directory": dir, "file": "pool.c", "arguments": ["cc", "-c", "pool.c"]},
    ]);
    write(d, "b/compile_commands.json", &db.to_string());
    let o = run(d, &["impact", "-q", "b", "--changed", "pool.c:5"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("[c0] given new pool.c:5  done = 1;"),
        "{text}"
    );
    assert!(text.contains("main.c:6     return done;"), "{text}");
}

const HELPER_H: &str = "static inline void bump(int *p) {
  *p = *p + 1;
}
";

/// Both threads call `bump` (helper.h:2, a read and a write of `*p`) on
/// `x`; in old under lock `m`, in new the worker's call is outside it. So
/// new allows the lost update the lock excluded: both reads of `*p` at
/// helper.h:2 seeing the initial value of `x` (a rank-2 difference, only
/// in new). Every quoted helper.h line must be helper.h's text; prog's
/// line 2 is `#include "helper.h"` and must never be quoted for it.
#[test]
fn a_headers_lines_are_quoted_from_the_header() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "helper.h", HELPER_H);
    let prog = |worker: &str| {
        format!(
            "#include <pthread.h>\n#include \"helper.h\"\nint x;\npthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\nvoid *t(void *p) {{ {worker} return 0; }}\nint main(void) {{\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n  pthread_mutex_lock(&m); bump(&x); pthread_mutex_unlock(&m);\n  pthread_join(h, 0);\n  return x;\n}}\n"
        )
    };
    write(
        d,
        "old.c",
        &prog("pthread_mutex_lock(&m); bump(&x); pthread_mutex_unlock(&m);"),
    );
    write(d, "new.c", &prog("bump(&x);"));

    let o = run(d, &["impact", "-q", "new.c", "--changed", "helper.h:2"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("[c0] given new helper.h:2  *p = *p + 1;"),
        "{text}"
    );
    assert!(!text.contains("#include \"helper.h\""), "{text}");

    let o = run(d, &["diff", "-q", "old.c", "new.c"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("helper.h:2 `*p = *p + 1;`"), "{text}");
    assert!(!text.contains("`#include \"helper.h\"`"), "{text}");
}

/// `--help` and `--version` print to stdout: a full disk there is exit 8,
/// not 0 ("printed").
#[cfg(target_os = "linux")]
#[test]
fn help_that_cannot_be_written_is_exit_8() {
    for args in [vec!["--help"], vec!["diff", "--help"], vec!["--version"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_concord"))
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(8), "{args:?}: {}", out(&o));
    }
}
