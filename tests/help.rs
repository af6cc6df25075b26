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
    // symex has no --timeout (its --max-time makes a run inconclusive, 10),
    // replay neither; replay's 2 and 3 also cover the test case.
    let symex = help("symex");
    assert_eq!(
        codes(&symex),
        ["0", "1", "10", "2", "3", "4", "5", "6", "7", "8", "70"],
        "{symex}"
    );
    assert!(symex.contains("inconclusive") && symex.contains("--output-dir"));
    let replay = help("replay");
    assert_eq!(
        codes(&replay),
        ["0", "1", "2", "3", "4", "5", "6", "7", "8", "70"],
        "{replay}"
    );
    assert!(replay.contains("does not fit") && replay.contains("test case missing"));
    assert_eq!(codes(&help("store")), ["0", "2", "3", "8", "70"], "store");
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

/// A bare command line runs with the library's defaults: `concord symex P`
/// explores with `cli::symex::cli_defaults()`, which is
/// `SymexOptions::default()` (reduction `dpor+ag` included) plus iterative
/// deepening, the one thing only the command line turns on; `facts`
/// models with `ExtractOptions::default()`; `diff` analyses with
/// `DiffOptions::default()`, and `query`/`impact` use its engine. Parsed
/// in-process, so a clap default that drifts from the library fails here.
#[test]
fn bare_command_lines_run_with_the_librarys_defaults() {
    use clap::Parser;
    use concord::analysis::diff::DiffOptions;
    use concord::cli::symex as sx;
    use concord::cli::{Cli, Command};
    use concord::symex::{Reduction, SymexOptions};

    let cli = Cli::try_parse_from(["concord", "symex", "p.c"]).unwrap();
    let Command::Symex(args) = &cli.command else {
        panic!("parsed as {:?}", cli.command)
    };
    let got = sx::options(args, true);
    let want = sx::cli_defaults();
    let lib = SymexOptions::default();
    let fields = |o: &SymexOptions| {
        format!(
            "reduction={} loop_bound={} max_loop_bound={:?} max_runs={:?} max_seconds={:?} \
             table={} merges={} slice={} first_pass={} entry={} deepening={} interferences={:?}",
            o.reduction,
            o.loop_bound,
            o.max_loop_bound,
            o.max_runs,
            o.max_seconds,
            o.summary_table_size,
            o.summary_max_merges,
            o.slice,
            o.first_pass,
            o.entry,
            o.deepening_seconds,
            o.max_interferences
        )
    };
    assert_eq!(fields(&got), fields(&want));
    // The library itself reduces with dpor+ag, as the command line does.
    assert_eq!(lib.reduction, Reduction::DporAg);
    assert_eq!(got.reduction, lib.reduction);
    // The documented difference from the library, and nothing else.
    assert_eq!(lib.max_loop_bound, None);
    assert_eq!(want.max_loop_bound, Some(sx::DEFAULT_MAX_LOOP_BOUND));
    let lib_as_cli = SymexOptions {
        max_loop_bound: want.max_loop_bound,
        ..lib
    };
    assert_eq!(fields(&lib_as_cli), fields(&want));
    // The first pass is on by default and `--no-first-pass` turns it off,
    // and nothing else.
    assert!(got.first_pass && lib.first_pass);
    let cli = Cli::try_parse_from(["concord", "symex", "p.c", "--no-first-pass"]).unwrap();
    let Command::Symex(args) = &cli.command else {
        panic!("parsed as {:?}", cli.command)
    };
    let off = sx::options(args, true);
    assert!(!off.first_pass, "--no-first-pass left the first pass on");
    let want_off = SymexOptions {
        first_pass: false,
        ..sx::cli_defaults()
    };
    assert_eq!(fields(&off), fields(&want_off));

    let cli = Cli::try_parse_from(["concord", "facts", "p.c", "-o", "out"]).unwrap();
    let Command::Facts(args) = &cli.command else {
        panic!("parsed as {:?}", cli.command)
    };
    let (got, lib) = (
        args.input.extract_options(),
        concord::facts::extract::ExtractOptions::default(),
    );
    assert_eq!(
        format!("{got:?}"),
        format!("{lib:?}"),
        "`concord facts` models with other options than the library"
    );

    // Every command that reads a program models it alike.
    let lib_extract = format!("{lib:?}");
    let diff_lib = DiffOptions::default();
    let cli = Cli::try_parse_from(["concord", "diff", "a.c", "b.c"]).unwrap();
    let Command::Diff(args) = &cli.command else {
        panic!("parsed as {:?}", cli.command)
    };
    assert_eq!(format!("{:?}", args.options()), format!("{diff_lib:?}"));
    assert_eq!(format!("{:?}", args.input.extract_options()), lib_extract);

    let cli = Cli::try_parse_from(["concord", "impact", "a.c", "b.c"]).unwrap();
    let Command::Impact(args) = &cli.command else {
        panic!("parsed as {:?}", cli.command)
    };
    assert_eq!(
        concord::analysis::Engine::from(args.engine),
        diff_lib.engine
    );
    assert_eq!(format!("{:?}", args.input.extract_options()), lib_extract);

    let cli = Cli::try_parse_from(["concord", "query", "a.c", "rf_may"]).unwrap();
    let Command::Query(args) = &cli.command else {
        panic!("parsed as {:?}", cli.command)
    };
    assert_eq!(
        concord::analysis::Engine::from(args.engine),
        diff_lib.engine
    );
    assert_eq!(format!("{:?}", args.input.extract_options()), lib_extract);

    let cli = Cli::try_parse_from(["concord", "changes", "a.c", "b.c"]).unwrap();
    let Command::Changes(args) = &cli.command else {
        panic!("parsed as {:?}", cli.command)
    };
    assert_eq!(format!("{:?}", args.input.extract_options()), lib_extract);
}
