//! `--timeout` and `--max-memory` on the analysing commands: exit code 9,
//! a message naming the limit, and nothing written.

use crate::common;
use common::*;
use std::process::Command;

fn concord(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .unwrap()
}

const V1: &str = "bench-programs/ecdiff-fig2-lock/v1.c";
const V2: &str = "bench-programs/ecdiff-fig2-lock/v2.c";

#[test]
fn diff_over_its_time_limit_exits_9_and_prints_no_report() {
    // compiling a version alone takes far longer than a millisecond, so the
    // check at the start of the next phase fails
    let o = concord(&["diff", "--timeout", "0.001", V1, V2]);
    assert_eq!(
        o.status.code(),
        Some(9),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty(), "a partial report was printed");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("time limit of 0.001 s (--timeout)"), "{err}");
    // the same command without a limit succeeds (exit 1: differences)
    assert_eq!(concord(&["-q", "diff", V1, V2]).status.code(), Some(1));
}

#[test]
fn facts_over_its_memory_limit_writes_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("facts");
    let out_s = out.display().to_string();
    // any process is larger than 1 MB: the watchdog flags it before the
    // facts are written, and the write is refused
    let o = concord(&["facts", "--max-memory", "1", V1, "-o", &out_s]);
    assert_eq!(
        o.status.code(),
        Some(9),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("memory limit of 1 MB (--max-memory)"), "{err}");
    assert!(!out.exists(), "fact directory written despite the limit");
    // with a generous limit the directory is written
    let o = concord(&["-q", "facts", "--max-memory", "4000", V1, "-o", &out_s]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.join("manifest.json").is_file());
}

#[test]
fn other_analysing_commands_take_the_budget_flags() {
    for args in [
        vec!["changes", "--timeout", "0.001", V1, V2],
        vec!["impact", "--timeout", "0.001", V1, V2],
        vec!["query", "--timeout", "0.001", V1, "rf_may"],
    ] {
        let o = concord(&args);
        assert_eq!(
            o.status.code(),
            Some(9),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.stdout.is_empty(), "{args:?}: output despite the limit");
    }
    // a malformed limit is a usage error
    assert_eq!(
        concord(&["diff", "--timeout", "-1", V1, V2]).status.code(),
        Some(2)
    );
}

#[test]
fn every_command_has_a_default_budget_and_none_lifts_it() {
    use clap::Parser;
    #[derive(Parser)]
    struct Probe {
        #[command(flatten)]
        budget: concord::cli::BudgetArgs,
    }
    let limits = |args: &[&str]| {
        let argv = std::iter::once("probe").chain(args.iter().copied());
        Probe::parse_from(argv).budget.limits()
    };
    // no option: the documented defaults (half an hour, 3/4 of the memory)
    let default = limits(&[]);
    assert_eq!(
        default.timeout,
        Some(std::time::Duration::from_secs_f64(
            concord::cli::DEFAULT_TIMEOUT_SECONDS
        ))
    );
    let total_kb: u64 = std::fs::read_to_string("/proc/meminfo")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .unwrap()
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .unwrap();
    assert_eq!(default.max_rss, Some(total_kb * 1024 / 4 * 3));
    // `none` lifts a limit, a number sets it
    let lifted = limits(&["--timeout", "none", "--max-memory", "none"]);
    assert_eq!((lifted.timeout, lifted.max_rss), (None, None));
    let set = limits(&["--timeout", "2.5", "--max-memory", "100"]);
    assert_eq!(set.timeout, Some(std::time::Duration::from_millis(2500)));
    assert_eq!(set.max_rss, Some(100 << 20));
    // and `none` is accepted on the command line of every analysing command
    assert_eq!(
        concord(&[
            "-q",
            "diff",
            "--timeout",
            "none",
            "--max-memory",
            "none",
            V1,
            V2
        ])
        .status
        .code(),
        Some(1)
    );
}

#[test]
fn symex_has_a_hard_cap_besides_max_time() {
    // a program whose exploration runs for a long time: 12 threads each
    // incrementing a shared counter three times
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("many.c");
    let mut c = String::from("#include <pthread.h>\nint x;\nvoid *w(void *a) { x++; x++; x++; return a; }\nint main(void) {\n  pthread_t t[12];\n");
    c.push_str("  for (int i = 0; i < 12; i++) pthread_create(&t[i], 0, w, 0);\n");
    c.push_str("  for (int i = 0; i < 12; i++) pthread_join(t[i], 0);\n  return x;\n}\n");
    std::fs::write(&src, c).unwrap();
    let o = concord(&[
        "-q",
        "symex",
        "--reduction",
        "none",
        "--timeout",
        "1",
        src.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(9),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("(--timeout)"));
}

/// `--jobs 1` runs the two versions one after the other: the same report
/// (timings and memory aside) as the default, on a pair that differs at
/// ranks 1-3 with `--all-ranks`; `--jobs 0` is refused.
#[test]
fn one_job_gives_the_report_of_many() {
    let report = |extra: &[&str]| {
        let mut args = vec!["-q", "diff", "--all-ranks", "--format", "json"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&[V1, V2]);
        let o = concord(&args);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let obj = v.as_object_mut().unwrap();
        for machine_dependent in [
            "peak_memory_mb",
            "phase_peak_mb",
            "phase_resident_mb",
            "timing_ms",
        ] {
            obj.remove(machine_dependent);
        }
        v
    };
    let serial = report(&["--jobs", "1"]);
    assert!(!serial["differences"].as_array().unwrap().is_empty());
    assert_eq!(serial, report(&[]));
    let o = concord(&["diff", "--jobs", "0", V1, V2]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
