//! Nothing lost, nothing misread: failed writes, hostile file names,
//! interrupted or tampered fact directories, and misleading exit codes
//! (issue 12). Each test runs the real binary. Mutated inputs (fuzz-style)
//! are in `fuzz_inputs.rs`.

use crate::common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const OK_PROGRAM: &str = "#include <pthread.h>\nint x;\nvoid *t(void *p) { x = 1; return 0; }\nint main(void) { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); return x; }\n";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_concord"));
    c.current_dir(repo_root());
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn no_panic(o: &Output) {
    let e = stderr(o);
    assert!(
        !e.contains("panicked") && o.status.code() != Some(101) && o.status.code().is_some(),
        "panic or signal ({:?}): {e}",
        o.status
    );
}

// ---------------------------------------------------------------- stdout

#[test]
fn a_full_disk_on_stdout_is_exit_8_for_every_reporting_command() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.c", OK_PROGRAM);
    let commands: Vec<Vec<&str>> = vec![
        vec!["diff", &p, &p],
        vec!["changes", &p, &p],
        vec!["query", &p, "thread_create"],
        vec!["impact", &p, "--changed", "3"],
        vec!["schema"],
        vec!["rules", "--emit", "souffle"],
    ];
    for args in commands {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full exists on Linux");
        let o = bin()
            .args(&args)
            .stdout(Stdio::from(full))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(8), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot write standard output"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_closed_pipe_is_exit_8_without_noise() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.c", OK_PROGRAM);
    let mut child = bin()
        .args(["diff", "-q", &p, &p])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the read end before the report (compiling takes far longer).
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

// ------------------------------------------------------------ file names

/// Run with a deadline: a FIFO must not block concord forever.
fn run_with_deadline(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_fifo_named_like_c_is_refused_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("x.c");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let o = run_with_deadline(
        bin()
            .args(["facts", fifo.to_str().unwrap(), "-o"])
            .arg(dir.path().join("out")),
        Duration::from_secs(30),
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
}

#[test]
fn a_file_name_that_is_not_utf8_is_refused_with_exit_3() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.c");
    std::fs::write(dir.path().join(name), OK_PROGRAM).unwrap();
    let o = bin()
        .current_dir(dir.path())
        .arg("facts")
        .arg(name)
        .args(["-o", "out"])
        .output()
        .unwrap();
    no_panic(&o);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("not valid UTF-8"), "{}", stderr(&o));
}

#[test]
fn a_file_name_starting_with_a_dash_is_a_file_not_an_option() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "-O3.c", OK_PROGRAM);
    let o = bin()
        .current_dir(dir.path())
        .args(["facts", "-o", "out", "--", "-O3.c"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let st = std::fs::read_to_string(dir.path().join("out/statements.tsv")).unwrap();
    assert!(st.contains("-O3.c\t"), "the statements name the file: {st}");
    // `diff` of the dashed file with itself: compiled twice, same program.
    let o = bin()
        .current_dir(dir.path())
        .args(["diff", "-q", "--", "-O3.c", "-O3.c"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

// ------------------------------------------------------------ exit codes

#[test]
fn a_clang_that_is_not_executable_is_exit_4() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.c", OK_PROGRAM);
    let fake = write(dir.path(), "clang-14", "#!/bin/sh\nexit 0\n");
    let o = bin()
        .args(["facts", &p, "-o"])
        .arg(dir.path().join("out"))
        .env("CONCORD_CLANG", &fake)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("not executable"), "{}", stderr(&o));
}

#[test]
fn cflags_that_stop_clang_short_of_bitcode_are_a_compile_error_not_newer_llvm() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.c", OK_PROGRAM);
    for flags in ["-E", "-S", "-fsyntax-only"] {
        let o = run(&[
            "facts",
            &p,
            "-o",
            dir.path().join("out").to_str().unwrap(),
            "--cflags",
            flags,
        ]);
        assert_eq!(o.status.code(), Some(5), "{flags}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            !e.contains("newer LLVM") && e.contains("no LLVM bitcode"),
            "{flags}: {e}"
        );
    }
}

// ------------------------------------------------------- fact directories

fn facts_dir(dir: &Path, name: &str, source: &str) -> PathBuf {
    let p = write(dir, &format!("{name}.c"), source);
    let out = dir.join(name);
    let o = run(&["facts", "-q", &p, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    out
}

#[test]
fn rewriting_a_fact_directory_replaces_it_whole_and_leaves_nothing_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = facts_dir(dir.path(), "v", OK_PROGRAM);
    std::fs::write(out.join("stale.extra"), "left over").unwrap();
    let two = OK_PROGRAM.replace("x = 1;", "x = 1; x = 2;");
    let p = write(dir.path(), "v2.c", &two);
    let o = run(&["facts", "-q", &p, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !out.join("stale.extra").exists(),
        "old files do not survive"
    );
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".concord")),
        "no staging directory left: {names:?}"
    );
    let back = concord::facts::io::read_dir(&out).unwrap();
    assert!(back.manifest.input.ends_with("v2.c"));
}

#[test]
fn a_directory_that_is_not_a_fact_directory_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.c", OK_PROGRAM);
    let target = dir.path().join("mine");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("notes.txt"), "precious").unwrap();
    let o = run(&["facts", &p, "-o", target.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not a fact directory"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(target.join("notes.txt")).unwrap(),
        "precious"
    );
}

/// A killed `facts -o existing/` used to leave the old manifest beside new
/// relation files; the same mixture made by hand must be refused.
#[test]
fn a_manifest_from_another_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = facts_dir(dir.path(), "a", OK_PROGRAM);
    let two_threads = OK_PROGRAM.replace(
        "pthread_join(h, 0);",
        "pthread_t g; pthread_create(&g, 0, t, 0); pthread_join(h, 0); pthread_join(g, 0);",
    );
    let b = facts_dir(dir.path(), "b", &two_threads);
    std::fs::copy(a.join("manifest.json"), b.join("manifest.json")).unwrap();
    let o = run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert!(stderr(&o).contains("different runs"), "{}", stderr(&o));
}

#[test]
fn the_manifest_format_version_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let a = facts_dir(dir.path(), "a", OK_PROGRAM);
    let m = std::fs::read_to_string(a.join("manifest.json")).unwrap();
    assert!(m.contains("\"format_version\": 1,"), "{m}");
    for (edit, says) in [
        (m.replace("\"format_version\": 1,", ""), "older concord"),
        (
            m.replace("\"format_version\": 1,", "\"format_version\": 99,"),
            "format_version 99",
        ),
    ] {
        std::fs::write(a.join("manifest.json"), edit).unwrap();
        let o = run(&["query", a.to_str().unwrap(), "thread_create"]);
        assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
    }
}

/// Replace the text of one file of a fact directory.
fn edit(dir: &Path, file: &str, f: impl Fn(String) -> String) {
    let p = dir.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, f(text)).unwrap();
}

/// Tampered copies of a good fact directory, each with the words its
/// refusal must contain. Counts in the manifest are emptied, as the edit
/// would otherwise be caught only as a count mismatch.
#[test]
fn fact_directories_are_cross_checked_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let good = facts_dir(dir.path(), "good", OK_PROGRAM);
    let drop_counts = |m: String| {
        let start = m.find("\"counts\"").unwrap();
        let end = m.rfind('}').unwrap();
        format!("{}\"counts\": {{}}\n{}", &m[..start], &m[end..])
    };
    type Edit = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "empty statements.tsv",
            Box::new(|d| {
                edit(d, "statements.tsv", |t| {
                    t.lines().next().unwrap().to_string() + "\n"
                })
            }),
            "no statements",
        ),
        (
            "duplicate statement id",
            Box::new(|d| {
                edit(d, "statements.tsv", |t| {
                    let lines: Vec<&str> = t.lines().collect();
                    let mut out = lines.clone();
                    out.insert(2, lines[1]);
                    out.join("\n") + "\n"
                })
            }),
            "appears twice",
        ),
        (
            "dangling statement id in a relation",
            // thread_create(s, parent, child): s becomes an id with no statement.
            Box::new(|d| {
                edit(d, "thread_create.facts", |t| {
                    let rest = t.split_once('\t').unwrap().1.to_string();
                    format!("99999\t{rest}")
                })
            }),
            "names no statement",
        ),
        (
            "a thread its own parent",
            Box::new(|d| {
                edit(d, "threads.tsv", |t| {
                    let mut lines: Vec<String> = t.lines().map(String::from).collect();
                    let cells: Vec<&str> = lines[2].split('\t').collect();
                    let mut c: Vec<String> = cells.iter().map(|s| s.to_string()).collect();
                    c[1] = c[0].clone();
                    lines[2] = c.join("\t");
                    lines.join("\n") + "\n"
                })
            }),
            "its own ancestor",
        ),
        (
            "statement in a thread that does not exist",
            Box::new(|d| {
                edit(d, "statements.tsv", |t| {
                    let mut lines: Vec<String> = t.lines().map(String::from).collect();
                    let mut c: Vec<String> = lines[1].split('\t').map(String::from).collect();
                    c[5] = "42".into();
                    lines[1] = c.join("\t");
                    lines.join("\n") + "\n"
                })
            }),
            "thread 42",
        ),
    ];
    for (what, mutate, says) in cases {
        let copy = dir.path().join(what.replace(' ', "-"));
        copy_dir(&good, &copy);
        edit(&copy, "manifest.json", drop_counts);
        mutate(&copy);
        let o = run(&["diff", good.to_str().unwrap(), copy.to_str().unwrap()]);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(6), "{what}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("malformed fact directory") && stderr(&o).contains(says),
            "{what}: {}",
            stderr(&o)
        );
    }
}

// ------------------------------------------------------------------ order

/// A thread function of straight-line statements: its control-flow graph
/// is one long path. The component search used to recurse once per
/// statement; on a small stack (as in a test thread or a library user's
/// worker thread) that overflowed and aborted the process.
#[test]
fn a_long_straight_line_thread_fits_in_a_small_stack() {
    // With the recursive search, 400 statements overflowed 64 KiB and 3,000
    // aborted the command line (issue 12). The budget is 1 MiB: the rule
    // engine run inside extraction (points-to) needs a fixed few hundred KiB
    // in debug builds. 1,000 statements keep the test fast in debug builds
    // (4,000 pass too, in minutes: the order facts are quadratic in events).
    let (n, stack) = (1000, 1024 * 1024);
    let mut src = String::from("#include <pthread.h>\nint x;\nvoid *t(void *p) {\n");
    for i in 0..n {
        src.push_str(&format!("  x = {i};\n"));
    }
    src.push_str("  return 0;\n}\nint main(void) { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); return x; }\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.c");
    std::fs::write(&path, src).unwrap();
    let program = concord::frontend::load_program(&path, &Default::default()).unwrap();
    let facts = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            concord::facts::extract::extract(&program, &Default::default())
                .unwrap()
                .statements
                .len()
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(facts > n);
}

/// The symbolic executor's explorer thread asks for a 1 GiB stack; under
/// `ulimit -v` of less than that (here ~1 GB, so the first request cannot
/// succeed) it must fall back to a smaller stack and still answer: the
/// racy counter has a violation (exit 1), never an internal error (70).
#[test]
fn symex_answers_under_a_virtual_memory_limit_below_its_stack() {
    let out = tempfile::tempdir().unwrap();
    let program = repo_root().join("symex-programs/racy_counter.c");
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1000000 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_concord"))
        .args(["symex", "-q", "--no-store", "--output-dir"])
        .arg(out.path().join("r"))
        .arg(&program)
        .output()
        .unwrap();
    no_panic(&o);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

// ------------------------------------------------------------------ store

/// `concord store`: a missing store is exit 3 saying so (not the hint
/// about .c/.ll/.bc programs that a missing program gets), a file that is
/// not a store is exit 3, and a listing that cannot be written is exit 8.
#[test]
fn store_commands_end_with_their_documented_codes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let db = db.to_str().unwrap();
    let o = run(&["store", "ls", "--store", db]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no summary store") && !stderr(&o).contains(".ll"),
        "{}",
        stderr(&o)
    );
    let o = run(&["store", "rm", "--all", "--store", db]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));

    let not_a_store = write(dir.path(), "notes.db", "just text\n");
    let o = run(&["store", "ls", "--store", &not_a_store]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));

    let program = repo_root().join("symex-programs/racy_counter.c");
    let o = run(&[
        "-q",
        "symex",
        "--store",
        db,
        "--output-dir",
        dir.path().join("r").to_str().unwrap(),
        program.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = bin()
        .args(["store", "ls", "--store", db])
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    let o = run(&["store", "ls", "--store", db]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("racy_counter.c"));
}

#[test]
fn an_empty_ir_file_is_unreadable_not_a_program_without_main() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["empty.bc", "empty.ll"] {
        let path = write(dir.path(), name, "");
        let o = run(&["facts", &path, "-o", dir.path().join("f").to_str().unwrap()]);
        no_panic(&o);
        assert_eq!(o.status.code(), Some(6), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains("the file is empty"), "{}", stderr(&o));
    }
}

/// Processes whose command line mentions `needle` (from /proc).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(needle) {
            found.push(text);
        }
    }
    found
}

/// A C file whose compilation blocks forever: it includes a FIFO nobody
/// writes to. Returns (its path, a private TMPDIR for concord).
fn blocking_program(dir: &Path) -> (String, PathBuf) {
    let fifo = dir.join("blocker.h");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let src = write(
        dir,
        "blocked.c",
        "#include \"blocker.h\"\nint main(void) { return 0; }\n",
    );
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    (src, tmp)
}

#[test]
fn a_timeout_stops_the_compiler_and_removes_the_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let (src, tmp) = blocking_program(dir.path());
    let o = run_with_deadline(
        bin()
            .env("TMPDIR", &tmp)
            .args(["facts", "--timeout", "1", &src, "-o"])
            .arg(dir.path().join("f")),
        Duration::from_secs(30),
    );
    assert_eq!(o.status.code(), Some(9), "{}", stderr(&o));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(processes_mentioning(&src), Vec::<String>::new());
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn sigterm_stops_the_compiler_and_removes_the_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let (src, tmp) = blocking_program(dir.path());
    let mut child = bin()
        .env("TMPDIR", &tmp)
        .args(["facts", "--timeout", "none", &src, "-o"])
        .arg(dir.path().join("f"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // wait until clang is running (blocked on the FIFO)
    let start = Instant::now();
    while processes_mentioning("clang-14")
        .iter()
        .all(|p| !p.contains(&src))
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "clang never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + 15));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(processes_mentioning(&src), Vec::<String>::new());
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
