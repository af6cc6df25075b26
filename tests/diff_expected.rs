//! `concord diff` on every bench pair against the expected differences in
//! its `expected.toml` (written from reasoning about the programs; see each
//! case's README).

use crate::common;
use common::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

type EdgeKey = (u32, String, Vec<(u32, u32)>);

fn diff_json(case: &str) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_concord"))
        .args(["-q", "diff", "--format", "json"])
        .arg(format!("bench-programs/{case}/v1.c"))
        .arg(format!("bench-programs/{case}/v2.c"))
        .current_dir(repo_root())
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0) | Some(1)),
        "{case}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn lines_of(edges: &Value) -> Vec<(u32, u32)> {
    edges
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["write"]["line"].as_u64().unwrap() as u32,
                e["read"]["line"].as_u64().unwrap() as u32,
            )
        })
        .collect()
}

fn name_pairs(v: Option<&toml::Value>) -> BTreeSet<(String, String)> {
    v.and_then(|x| x.as_array())
        .map(|a| {
            a.iter()
                .map(|p| {
                    let p = p.as_array().unwrap();
                    (
                        p[0].as_str().unwrap().to_string(),
                        p[1].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn edge_keys(list: Option<&toml::Value>) -> BTreeSet<EdgeKey> {
    list.and_then(|d| d.as_array())
        .map(|ds| {
            ds.iter()
                .map(|d| {
                    let edges = d["edges"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|e| {
                            let e = e.as_array().unwrap();
                            (
                                e[0].as_integer().unwrap() as u32,
                                e[1].as_integer().unwrap() as u32,
                            )
                        })
                        .collect();
                    (
                        d["rank"].as_integer().unwrap() as u32,
                        d["only_in"].as_str().unwrap().to_string(),
                        edges,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Compare one case; returns the mismatches as text.
fn check_case(case: &str) -> Vec<String> {
    let expected: toml::Value = toml::from_str(
        &std::fs::read_to_string(repo_root().join(format!("bench-programs/{case}/expected.toml")))
            .unwrap(),
    )
    .unwrap();
    let got = diff_json(case);
    let mut problems = Vec::new();
    let diff = &expected["diff"];
    // The truth, minus what concord's documented approximation misses, plus
    // what it reports beyond the truth (see [diff.approximation]).
    let approx = diff.get("approximation");
    let want_rank = approx
        .and_then(|a| a.get("first_rank"))
        .unwrap_or(&diff["first_rank"])
        .as_integer()
        .unwrap() as u64;
    let got_rank = got["first_rank"].as_u64().unwrap();
    if want_rank != got_rank {
        problems.push(format!("first_rank: expected {want_rank}, got {got_rank}"));
    }
    let mut want: BTreeSet<EdgeKey> = edge_keys(diff.get("differences"));
    for m in edge_keys(approx.and_then(|a| a.get("missed"))) {
        assert!(
            want.remove(&m),
            "{case}: approximation.missed lists {m:?}, which is not an expected difference"
        );
    }
    want.extend(edge_keys(approx.and_then(|a| a.get("extra"))));
    let have: BTreeSet<EdgeKey> = got["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rank"].as_u64().unwrap() as u32,
                d["only_in"].as_str().unwrap().to_string(),
                lines_of(&d["edges"]),
            )
        })
        .collect();
    for missing in want.difference(&have) {
        problems.push(format!("missing difference {missing:?}"));
    }
    for extra in have.difference(&want) {
        problems.push(format!("unexpected difference {extra:?}"));
    }
    if let Some(lo) = expected.get("lock_order") {
        let got_pairs = |key: &str| -> BTreeSet<(String, String)> {
            got["lock_order"][key]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| {
                    (
                        e["held"].as_str().unwrap().to_string(),
                        e["acquired"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        };
        for (want_key, got_key) in [("old_edges", "old_edges"), ("new_edges", "new_edges")] {
            let (w, h) = (name_pairs(lo.get(want_key)), got_pairs(got_key));
            if w != h {
                problems.push(format!("lock order {want_key}: expected {w:?}, got {h:?}"));
            }
        }
        for (want_key, got_key) in [
            ("old_deadlock", "old_deadlocks"),
            ("new_deadlock", "new_deadlocks"),
        ] {
            let w = lo.get(want_key).and_then(|b| b.as_bool()).unwrap_or(false);
            let h = !got["lock_order"][got_key].as_array().unwrap().is_empty();
            if w != h {
                problems.push(format!("{want_key}: expected {w}, got {h}"));
            }
        }
    }
    problems
}

#[test]
fn concord_diff_matches_every_expected_toml() {
    let mut report = Vec::new();
    let cases = bench_cases();
    let exact = cases
        .iter()
        .filter(|c| {
            let text = std::fs::read_to_string(
                repo_root().join(format!("bench-programs/{c}/expected.toml")),
            )
            .unwrap();
            !text.contains("[diff.approximation]")
        })
        .count();
    eprintln!("concord diff equals the reasoned truth on {exact} of {} bench pairs; the others document their approximation", cases.len());
    for case in cases {
        let problems = check_case(&case);
        if !problems.is_empty() {
            report.push(format!("{case}:\n    {}", problems.join("\n    ")));
        }
    }
    assert!(
        report.is_empty(),
        "{} case(s) differ:\n{}",
        report.len(),
        report.join("\n")
    );
}
