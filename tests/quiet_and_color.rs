//! Tool habits every command shares: `-q` leaves only errors on stderr,
//! `--color` decides whether text output carries ANSI colour (never JSON).

use std::path::Path;
use std::process::{Command, Output};

/// A call through an unknown function pointer (line 8): every command
/// that loads the program warns that the callee is not modelled, so
/// without `-q` stderr is not empty.
const PROG: &str = r#"#include <pthread.h>
extern void (*hook)(int *);
int x;
void *t(void *a) { x = 1; return 0; }
int main(void) {
  pthread_t h;
  pthread_create(&h, 0, t, 0);
  hook(&x);
  pthread_join(h, 0);
  return x;
}
"#;

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .unwrap()
}

fn setup() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.c"), PROG).unwrap();
    std::fs::write(d.path().join("b.c"), PROG.replace("x = 1;", "x = 2;")).unwrap();
    let o = run(d.path(), &["-q", "facts", "-o", "f", "a.c"]);
    assert_eq!(o.status.code(), Some(0));
    d
}

#[test]
fn quiet_leaves_stderr_empty_in_every_command() {
    let d = setup();
    let p = d.path();
    // (arguments, does the command say something on stderr without -q?)
    let cases: Vec<(Vec<&str>, bool)> = vec![
        (vec!["facts", "-o", "g", "a.c"], true),
        (vec!["diff", "a.c", "b.c"], true),
        (vec!["impact", "a.c", "b.c"], true),
        (vec!["changes", "a.c", "b.c"], true),
        (vec!["query", "f", "shared_write"], true),
        (vec!["schema"], false),
        (vec!["rules", "--emit", "souffle"], false),
        (
            vec!["symex", "--store", "s.db", "--output-dir", "o1", "a.c"],
            true,
        ),
        (vec!["store", "ls", "--store", "s.db"], false),
    ];
    for (args, talks) in &cases {
        let o = run(p, args);
        assert!(matches!(o.status.code(), Some(0 | 1 | 10)), "{args:?}");
        if *talks {
            assert!(!o.stderr.is_empty(), "{args:?} says nothing without -q");
        }
        // The same command quietly (fresh output names where it writes).
        let quiet: Vec<&str> = std::iter::once("-q")
            .chain(args.iter().map(|a| match *a {
                "g" => "g2",
                "o1" => "o2",
                a => a,
            }))
            .collect();
        let o = run(p, &quiet);
        assert!(matches!(o.status.code(), Some(0 | 1 | 10)), "{quiet:?}");
        assert!(
            o.stderr.is_empty(),
            "{quiet:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // replay of the test case symex wrote (an unsupported call: whatever
    // the verdict, -q keeps stderr empty).
    if p.join("o2/test000001.json").exists() {
        let o = run(p, &["-q", "replay", "a.c", "o2/test000001.json"]);
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // Errors still speak under -q.
    let o = run(p, &["-q", "diff", "missing.c", "b.c"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("error"));
}

fn has_ansi(b: &[u8]) -> bool {
    b.windows(2).any(|w| w == b"\x1b[")
}

#[test]
fn color_is_chosen_by_the_flag_and_never_reaches_json() {
    let d = setup();
    let p = d.path();
    for cmd in ["diff", "changes", "impact"] {
        let always = run(p, &["-q", "--color", "always", cmd, "a.c", "b.c"]);
        assert!(has_ansi(&always.stdout), "{cmd} --color always");
        let never = run(p, &["-q", "--color", "never", cmd, "a.c", "b.c"]);
        assert!(!has_ansi(&never.stdout), "{cmd} --color never");
        // Output to a pipe under auto: plain.
        let auto = run(p, &["-q", cmd, "a.c", "b.c"]);
        assert!(!has_ansi(&auto.stdout), "{cmd} auto into a pipe");
        // Without the colour codes the text is the same (timings aside).
        assert_eq!(
            untimed(&strip_ansi(&always.stdout)),
            untimed(&never.stdout),
            "{cmd}"
        );
        let json = run(
            p,
            &[
                "-q", "--color", "always", cmd, "--format", "json", "a.c", "b.c",
            ],
        );
        assert!(!has_ansi(&json.stdout), "{cmd} JSON");
        serde_json::from_slice::<serde_json::Value>(&json.stdout).unwrap();
    }
    // --color always wins over NO_COLOR (the command line is more specific).
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(p)
        .env("NO_COLOR", "1")
        .args(["-q", "--color", "always", "changes", "a.c", "b.c"])
        .output()
        .unwrap();
    assert!(has_ansi(&o.stdout));
    // An error's prefix is coloured on stderr too.
    let o = run(p, &["--color", "always", "diff", "missing.c", "b.c"]);
    assert!(has_ansi(&o.stderr));
    let o = run(p, &["--color", "never", "diff", "missing.c", "b.c"]);
    assert!(!has_ansi(&o.stderr));
}

fn untimed(b: &[u8]) -> String {
    String::from_utf8_lossy(b)
        .lines()
        .filter(|l| !l.starts_with("timing:") && !l.starts_with("peak memory:"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn strip_ansi(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == 0x1b && b.get(i + 1) == Some(&b'[') {
            i += 2;
            while i < b.len() && !b[i].is_ascii_alphabetic() {
                i += 1;
            }
            i += 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// A phase longer than a second shows a spinner on stderr, with the
/// phase's name, elapsed seconds and memory, when stderr is a terminal
/// (`script` gives the command one) and not under `-q`; never into a pipe.
/// The phase is made long by a clang that waits two seconds first.
#[test]
fn long_phases_show_a_spinner_on_a_terminal_only() {
    let d = setup();
    let p = d.path();
    let slow = p.join("slow-clang");
    std::fs::write(&slow, "#!/bin/sh\nsleep 2\nexec clang-14 \"$@\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = env!("CARGO_BIN_EXE_concord");
    // What a terminal receives: `script` runs the command on a pty and
    // copies what it writes there to its own stdout.
    let on_tty = |args: &str| {
        let o = Command::new("script")
            .current_dir(p)
            .env("CONCORD_CLANG", &slow)
            .args(["-qec", &format!("{bin} {args}"), "/dev/null"])
            .output()
            .expect("`script` (util-linux) runs");
        assert!(o.status.success(), "{args}: {o:?}");
        String::from_utf8_lossy(&strip_ansi(&o.stdout)).to_string()
    };
    let shown = on_tty("facts -o t1 a.c");
    assert!(
        shown.contains("concord: ") && shown.contains("extract facts ("),
        "{shown}"
    );
    assert!(shown.contains(" s, ") && shown.contains(" MB)"), "{shown}");
    let quiet = on_tty("-q facts -o t2 a.c");
    assert!(!quiet.contains("extract facts ("), "{quiet}");
    // Into a pipe: no spinner, only the closing summary line.
    let o = Command::new(bin)
        .current_dir(p)
        .env("CONCORD_CLANG", &slow)
        .args(["facts", "-o", "t3", "a.c"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("extract facts ("), "{err}");
}
