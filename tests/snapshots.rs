//! Snapshots of what reviewers read: text, JSON and SARIF of `diff`,
//! `changes` and `impact` on one bench pair (ecdiff-fig2-lock: a lock the
//! patch adds), and of `symex` on symex-programs/racy_counter.c. Timings,
//! memory and absolute paths are scrubbed. After an
//! intended change of output: `INSTA_UPDATE=always cargo test --test
//! snapshots`, then review `git diff tests/snapshots/`.

use crate::common;
use common::*;
use std::process::Command;

const OLD: &str = "bench-programs/ecdiff-fig2-lock/v1.c";
const NEW: &str = "bench-programs/ecdiff-fig2-lock/v2.c";

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(&regex_escape(&repo_root().display().to_string()), "[repo]");
    // Timings: the text line and the JSON object.
    s.add_filter(r"timing: .*", "timing: [scrubbed]");
    s.add_filter(r"peak memory: [0-9]+ MB", "peak memory: [scrubbed]");
    s.add_filter(
        r#""peak_memory_mb": [0-9]+"#,
        r#""peak_memory_mb": "[scrubbed]""#,
    );
    s.add_filter(
        r#"(?s)"timing_ms": \{[^}]*\}"#,
        r#""timing_ms": "[scrubbed]""#,
    );
    // Memory per phase (issue 30): machine-dependent like the timings.
    s.add_filter(
        r#"(?s)"phase_(peak|resident)_mb": \{[^}]*\}"#,
        r#""phase_${1}_mb": "[scrubbed]""#,
    );
    // symex statistics that depend on the machine.
    s.add_filter(
        r#""(total_ms|solver_ms|peak_memory_kb)": [0-9.e+-]+"#,
        r#""$1": "[scrubbed]""#,
    );
    s.set_prepend_module_to_snapshot(false);
    s
}

/// The repository path as a literal pattern.
fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

/// The report counts mustHb and mayHb only when asked (`--counts`: the
/// count walks every pair of events); then they are the sizes of the
/// relations the `hb` program stores (`concord query`).
#[test]
fn happens_before_counts_only_with_counts_and_equal_to_the_relations() {
    let counts = |args: &[&str]| -> serde_json::Value {
        let doc: serde_json::Value = serde_json::from_str(&answer_of(args)).unwrap();
        doc["counts"].clone()
    };
    let plain = counts(&["diff", "-q", "--format", "json", OLD, NEW]);
    let asked = counts(&["diff", "-q", "--counts", "--format", "json", OLD, NEW]);
    for (side, file) in [("old", OLD), ("new", NEW)] {
        for (key, relation) in [("must_hb", "hb_must"), ("may_hb", "hb_may")] {
            assert!(plain[side][key].is_null(), "{side} {key} without --counts");
            let rows = answer_of(&["query", file, relation, "-q"]).lines().count() - 1;
            assert_eq!(asked[side][key], serde_json::json!(rows), "{side} {key}");
        }
        assert_eq!(plain[side]["may_rf"], asked[side]["may_rf"]);
    }
}

#[test]
fn diff_outputs() {
    settings().bind(|| {
        for format in ["text", "json", "sarif"] {
            insta::assert_snapshot!(
                format!("diff_{format}"),
                answer_of(&["diff", "-q", "--format", format, OLD, NEW])
            );
        }
    });
}

#[test]
fn changes_outputs() {
    settings().bind(|| {
        for format in ["text", "json", "sarif"] {
            insta::assert_snapshot!(
                format!("changes_{format}"),
                answer_of(&["changes", "--format", format, OLD, NEW])
            );
        }
    });
}

#[test]
fn impact_outputs() {
    settings().bind(|| {
        for format in ["text", "json", "sarif"] {
            insta::assert_snapshot!(
                format!("impact_{format}"),
                answer_of(&["impact", "--format", format, OLD, NEW])
            );
        }
    });
}

/// The ranked text of `impact` (issue 28) on conc-ise-fig6, whose patch
/// modifies `y += 2` (line 19, thread 2's body2): backward, the six lines
/// nearest the change. By reasoning: the branch `if (x == 0)` controls it
/// (1 step); the call `body2()` controls that branch's function (2,
/// control); the loaded `y` was last written by the initialiser `y = 0`
/// or thread 1's `y = x - 1` (2 steps each, through the add's load, across
/// threads); main's creation of thread 2 controls the call (3, control).
/// Ties go data, control, cross-thread, then by place; groups follow
/// their nearest line; 5 of 11 entries are left out and counted.
#[test]
fn impact_ranked_text() {
    settings().bind(|| {
        insta::assert_snapshot!(
            "impact_ranked_text",
            answer_of(&[
                "impact",
                "--direction",
                "bwd",
                "--limit",
                "6",
                "bench-programs/conc-ise-fig6/v1.c",
                "bench-programs/conc-ise-fig6/v2.c"
            ])
        );
    });
}

/// racy_counter.c: two threads increment a counter without a lock, main
/// asserts the sum; the lost update is a violation with a trace. The
/// unreduced search (`none`) keeps the counts independent of reductions.
const SYMEX_PROGRAM: &str = "symex-programs/racy_counter.c";

fn symex_out(format: &str) -> (Option<i32>, String) {
    let d = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["-q", "symex", "--no-store", "--reduction", "none"])
        .args(["--format", format, "--output-dir"])
        .arg(d.path().join("out"))
        .arg(repo_root().join(SYMEX_PROGRAM))
        .output()
        .unwrap();
    (o.status.code(), String::from_utf8(o.stdout).unwrap())
}

#[test]
fn symex_outputs() {
    settings().bind(|| {
        for format in ["text", "json", "sarif"] {
            let (code, text) = symex_out(format);
            assert_eq!(code, Some(1), "{format}: a violation\n{text}");
            insta::assert_snapshot!(format!("symex_{format}"), text);
        }
    });
}

/// The SARIF logs parse as SARIF 2.1.0 (serde-sarif's types, generated from
/// the schema) and every result carries a partial fingerprint.
#[test]
fn sarif_logs_are_valid_and_fingerprinted() {
    for args in [
        vec!["diff", "-q", "--format", "sarif", OLD, NEW],
        vec!["impact", "--format", "sarif", OLD, NEW],
        vec!["changes", "--format", "sarif", OLD, NEW],
    ] {
        let text = answer_of(&args);
        check_sarif(&args, &text);
    }
    let (_, text) = symex_out("sarif");
    check_sarif(&["symex"], &text);
}

/// Parses as SARIF; every result has a fingerprint, and no two results
/// of one log share one (a code-scanning service would merge them).
fn check_sarif(args: &[&str], text: &str) {
    let log: serde_sarif::sarif::Sarif =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{args:?}: {e}\n{text}"));
    let results = log.runs[0].results.as_ref().expect("results");
    assert!(!results.is_empty(), "{args:?}");
    let mut seen = std::collections::BTreeSet::new();
    for r in results {
        let fp = r
            .partial_fingerprints
            .as_ref()
            .expect("partialFingerprints");
        let fp = fp
            .get(concord::report::sarif::FINGERPRINT)
            .unwrap_or_else(|| panic!("{args:?}: no {}", concord::report::sarif::FINGERPRINT));
        assert!(seen.insert(fp.clone()), "{args:?}: fingerprint {fp} twice");
    }
}
