//! Each command's `--help` lists its own exit codes, and the defaults it
//! shows are the library's.

use std::process::Command;

fn help(cmd: &str) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args([cmd, "--help"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    String::from_utf8(o.stdout).unwrap()
}

/// The "Exit codes:" block of a help text, one entry per code.
fn codes(text: &str) -> Vec<String> {
    let block = &text[text.find("Exit codes:").expect("an exit code block")..];
    block
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.chars().all(|c| c.is_ascii_digit()))
        .map(String::from)
        .collect()
}

#[test]
fn every_command_lists_its_own_exit_codes() {
    let all_errors = ["2", "3", "4", "5", "6", "7", "8", "9", "70"];
    for (cmd, answers, meaning_of_1) in [
        ("facts", vec!["0"], None),
        ("diff", vec!["0", "1"], Some("differences found")),
        ("changes", vec!["0", "1"], Some("changes found")),
        ("impact", vec!["0", "1"], Some("impacted statements found")),
        ("query", vec!["0"], None),
    ] {
        let text = help(cmd);
        let mut want: Vec<&str> = answers.clone();
        want.extend(all_errors);
        assert_eq!(codes(&text), want, "{cmd}: {text}");
        if let Some(m) = meaning_of_1 {
            assert!(text.contains(m), "{cmd}: {text}");
        }
    }
    for cmd in ["schema", "rules"] {
        assert_eq!(codes(&help(cmd)), ["0", "2", "8", "70"], "{cmd}");
    }
}

#[test]
fn defaults_shown_are_the_librarys() {
    let x = concord::facts::extract::ExtractOptions::default();
    let text = help("facts");
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("--thread-loop-bound <N> Thread instances per pthread_create inside a loop [default: {}]", x.thread_loop_bound)),
        "{text}"
    );
    assert!(
        flat.contains(&format!("[default: {}]", x.call_depth_bound)),
        "{text}"
    );
    let d = concord::analysis::diff::DiffOptions::default();
    let flat: String = help("diff")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains(&format!("[default: {}]", d.max_rank)),
        "{flat}"
    );
}

/// `-q` leaves stderr empty on success, in every command that reads a
/// program.
#[test]
fn quiet_is_quiet_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.c");
    std::fs::write(&p, "#include <pthread.h>\nint x;\nvoid *t(void *a) { x = 1; return 0; }\nint main(void) { pthread_t h; pthread_create(&h, 0, t, 0); pthread_join(h, 0); return x; }\n").unwrap();
    let p = p.to_str().unwrap();
    let out = dir.path().join("f");
    for args in [
        vec!["facts", p, "-o", out.to_str().unwrap()],
        vec!["diff", p, p],
        vec!["changes", p, p],
        vec!["query", p, "thread_create"],
        vec!["impact", p, "--changed", "3"],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_concord"))
            .arg("-q")
            .args(&args)
            .output()
            .unwrap();
        assert!(matches!(o.status.code(), Some(0 | 1)), "{args:?}");
        assert!(
            o.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
