//! The real binary on good and bad input: exit codes, messages, outputs.

use crate::common;
use common::*;
use concord::facts::io::{self, FactFormat};
use std::path::Path;
use std::process::{Command, Output};

fn concord(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("binary runs")
}

fn concord_env(args: &[&str], key: &str, value: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .env(key, value)
        .current_dir(repo_root())
        .output()
        .expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const OK_PROGRAM: &str = "#include <pthread.h>\nint x;\nvoid *t(void *p) { x = 1; return 0; }\nint main(void) { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); return x; }\n";

#[test]
fn missing_input_file_exits_3() {
    let out = tempfile::tempdir().unwrap();
    let o = concord(&[
        "facts",
        "no/such/file.c",
        "-o",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("input file not found: no/such/file.c"),
        "{}",
        stderr(&o)
    );
}

/// The two versions load side by side: whichever fails, the message names
/// that file, and when both fail it is old's (the order a reader expects).
#[test]
fn diff_names_the_version_that_failed_to_load() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.c", OK_PROGRAM);
    for (old, new, named) in [
        ("no/such/old.c", good.as_str(), "no/such/old.c"),
        (good.as_str(), "no/such/new.c", "no/such/new.c"),
        ("no/such/old.c", "no/such/new.c", "no/such/old.c"),
    ] {
        let o = concord(&["diff", old, new]);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("input file not found: {named}")),
            "{old} {new}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn unknown_input_kind_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.txt", "hello");
    let o = concord(&["facts", &p, "-o", dir.path().join("out").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains(".c"), "{}", stderr(&o));
}

#[test]
fn missing_clang_exits_4_and_says_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.c", OK_PROGRAM);
    let o = concord_env(
        &["facts", &p, "-o", dir.path().join("out").to_str().unwrap()],
        "CONCORD_CLANG",
        "/nonexistent/clang-14",
    );
    assert_eq!(o.status.code(), Some(4));
    assert!(
        stderr(&o).contains("apt-get install -y clang-14"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn c_that_does_not_compile_exits_5_with_clangs_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "broken.c",
        "int main(void) { return undefined_variable; }\n",
    );
    let o = concord(&["facts", &p, "-o", dir.path().join("out").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(5));
    let e = stderr(&o);
    assert!(e.contains("does not compile"), "{e}");
    assert!(
        e.contains("undeclared identifier 'undefined_variable'"),
        "clang's own diagnostic is shown: {e}"
    );
}

#[test]
fn defines_and_include_dirs_reach_clang() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("inc")).unwrap();
    write(&dir.path().join("inc"), "cfg.h", "#define LIMIT 3\n");
    let p = write(
        dir.path(),
        "prog.c",
        "#include \"cfg.h\"\nint x = LIMIT + EXTRA;\nint main(void) { return x; }\n",
    );
    let out = dir.path().join("out");
    let inc = dir.path().join("inc");
    let o = concord(&[
        "facts",
        &p,
        "-o",
        out.to_str().unwrap(),
        "-I",
        inc.to_str().unwrap(),
        "-D",
        "EXTRA=4",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let without = concord(&["facts", &p, "-o", out.to_str().unwrap()]);
    assert_eq!(
        without.status.code(),
        Some(5),
        "without -I/-D the program does not compile"
    );
}

#[test]
fn bitcode_from_a_newer_llvm_exits_6_naming_the_producer() {
    let o = concord(&["facts", "tests/fixtures/newer-llvm.bc", "-o", "/dev/null/x"]);
    assert_eq!(o.status.code(), Some(6));
    assert!(stderr(&o).contains("newer LLVM (LLVM22"), "{}", stderr(&o));
}

#[test]
fn text_ir_from_a_newer_llvm_exits_6() {
    let o = concord(&["facts", "tests/fixtures/newer-llvm.ll", "-o", "/dev/null/x"]);
    assert_eq!(o.status.code(), Some(6));
    assert!(
        stderr(&o).contains("newer LLVM (clang version 22"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn garbage_ir_exits_6() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "junk.ll", "this is not LLVM IR\n");
    let o = concord(&["facts", &p, "-o", dir.path().join("out").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(6));
    assert!(
        stderr(&o).contains("not valid LLVM 14 IR"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn ir_that_parses_but_does_not_verify_exits_6_with_the_verifier_message() {
    // %x uses %y before %y is defined: the parser takes forward references,
    // the verifier refuses the module. concord parses a user's IR in its
    // own process; this is the case where opt-14 must still say why.
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "bad.ll",
        "define i32 @main() {\nentry:\n  %x = add i32 %y, 1\n  %y = add i32 %x, 1\n  ret i32 %x\n}\n",
    );
    let o = concord(&["facts", &p, "-o", dir.path().join("out").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert!(stderr(&o).contains("does not dominate"), "{}", stderr(&o));
}

#[test]
fn module_without_main_exits_7() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "lib.c", "int helper(int a) { return a + 1; }\n");
    let o = concord(&["facts", &p, "-o", dir.path().join("out").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(7));
    assert!(stderr(&o).contains("no `main` function"), "{}", stderr(&o));
}

#[test]
fn thread_starts_through_pointers_are_resolved_and_unknown_ones_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    // f may be a or b: both become threads. g comes from outside the
    // program: the create at line 6 starts nothing concord can see.
    let p = write(
        dir.path(),
        "fp.c",
        "#include <pthread.h>\n#include <stdlib.h>\nvoid *a(void *p) { return p; }\nvoid *b(void *p) { return p; }\n\
int main(int argc, char **argv) { void *(*f)(void *) = argc > 1 ? a : b; pthread_t h;\n\
void *(*g)(void *) = (void *(*)(void *))getenv(\"X\"); pthread_create(&h, 0, g, 0);\n\
pthread_create(&h, 0, f, 0); pthread_join(h, 0); return 0; }\n",
    );
    let out = dir.path().join("out");
    let o = concord(&["facts", &p, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("warning: ") && e.contains("fp.c:6:") && e.contains("start routine"),
        "{e}"
    );
    let threads = std::fs::read_to_string(out.join("threads.tsv")).unwrap();
    assert!(
        threads.contains("\ta\t") && threads.contains("\tb\t"),
        "{threads}"
    );
    let unresolved = std::fs::read_to_string(out.join("unresolved_thread_start.facts")).unwrap();
    assert_eq!(unresolved.lines().count(), 1, "{unresolved}");
    // -q silences the warning.
    let o = concord(&["-q", "facts", &p, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

#[test]
fn output_that_cannot_be_written_exits_8() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.c", OK_PROGRAM);
    let blocker = write(dir.path(), "file", "not a directory");
    let o = concord(&["facts", &p, "-o", &format!("{blocker}/sub")]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
}

#[test]
fn bad_command_line_exits_2_and_help_lists_exit_codes() {
    assert_eq!(concord(&["facts"]).status.code(), Some(2));
    let help = concord(&["facts", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("Exit codes:") && text.contains("Compiling C"),
        "{text}"
    );
}

#[test]
fn facts_round_trip_through_both_formats() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "prog.c", OK_PROGRAM);
    for (format, flag) in [(FactFormat::Tsv, "tsv"), (FactFormat::Csv, "csv")] {
        let out = dir.path().join(flag);
        let o = concord(&["facts", &p, "-o", out.to_str().unwrap(), "--format", flag]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let names: std::collections::BTreeSet<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| std::path::PathBuf::from(e.unwrap().file_name()))
            .collect();
        assert_eq!(names, io::file_names(format));
        let back = io::read_dir(&out).expect("reads back");
        let fresh = facts_of_c(OK_PROGRAM);
        assert_eq!(
            back.relations, fresh.relations,
            "relations survive the round trip ({flag})"
        );
        assert_eq!(back.statements.len(), fresh.statements.len());
        // Writing what was read gives the same files again.
        let again = dir.path().join(format!("{flag}-again"));
        io::write_dir(&back, &again, format).unwrap();
        for name in io::file_names(format) {
            assert_eq!(
                std::fs::read(out.join(&name)).unwrap(),
                std::fs::read(again.join(&name)).unwrap(),
                "{}",
                name.display()
            );
        }
    }
}

#[test]
fn schema_page_matches_the_code() {
    let page =
        std::fs::read_to_string(repo_root().join("docs/facts.md")).expect("docs/facts.md exists");
    let generated = concord::facts::schema::schema_markdown();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(repo_root().join("docs/facts.md"), &generated).unwrap();
        return;
    }
    assert!(
        page == generated,
        "docs/facts.md is stale: run `UPDATE_GOLDEN=1 cargo test --all-features --test suite cli::schema_page`"
    );
    let o = concord(&["schema"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), generated);
}
