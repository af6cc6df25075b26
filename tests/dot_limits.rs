//! `--limit N` and `--focus FILE:LINE` keep the DOT graphs of `diff` and
//! `impact` readable: the graph shrinks to at most N nodes, around the
//! focused line, and says what it left out.

use crate::common;
use common::answer_of;
use std::collections::{BTreeMap, BTreeSet};

/// Node names (the quoted ids of impact's graph) and edges.
fn impact_graph(dot: &str) -> (BTreeSet<String>, BTreeSet<(String, String)>) {
    let mut nodes = BTreeSet::new();
    let mut edges = BTreeSet::new();
    for l in dot.lines().map(str::trim) {
        let q: Vec<&str> = l.split('"').collect();
        if l.starts_with('"') && l.contains(" -> ") && q.len() > 3 {
            edges.insert((q[1].to_string(), q[3].to_string()));
        } else if l.starts_with('"') {
            nodes.insert(q[1].to_string());
        }
    }
    (nodes, edges)
}

const FIG6: [&str; 2] = [
    "bench-programs/conc-ise-fig6/v1.c",
    "bench-programs/conc-ise-fig6/v2.c",
];

#[test]
fn impact_dot_limit_and_focus_cut_the_graph() {
    let base = ["-q", "impact", "--format", "dot", FIG6[0], FIG6[1]];
    let full = answer_of(&base);
    let (nodes, edges) = impact_graph(&full);
    assert!(nodes.len() > 4, "{full}");
    assert!(!full.contains("not shown"));
    // --limit 3: three nodes, and a note for the rest.
    let limited = answer_of(&[&base[..], &["--limit", "3"]].concat());
    let (n3, e3) = impact_graph(&limited);
    assert_eq!(n3.len(), 3, "{limited}");
    assert!(n3.is_subset(&nodes));
    assert!(e3.iter().all(|(a, b)| n3.contains(a) && n3.contains(b)));
    assert!(
        limited.contains(&format!("{} impacted line(s) not shown", nodes.len() - 3)),
        "{limited}"
    );
    // --focus v2.c:19 (thread 2's `y += 2`): exactly the nodes connected
    // to that line in the full graph (computed here from its edges).
    let focus = "t2:body2:19";
    assert!(nodes.contains(focus), "{full}");
    let mut adj: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in &edges {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default().push(a);
    }
    let mut component = BTreeSet::from([focus]);
    let mut todo = vec![focus];
    while let Some(n) = todo.pop() {
        for &m in adj.get(n).into_iter().flatten() {
            if component.insert(m) {
                todo.push(m);
            }
        }
    }
    let focused = answer_of(&[&base[..], &["--focus", "v2.c:19"]].concat());
    let (nf, _) = impact_graph(&focused);
    let expected: BTreeSet<String> = component.iter().map(|s| s.to_string()).collect();
    assert_eq!(nf, expected, "{focused}");
    // Focus and limit together: the focused line first.
    let one = answer_of(&[&base[..], &["--focus", "v2.c:19", "--limit", "1"]].concat());
    assert_eq!(impact_graph(&one).0, BTreeSet::from([focus.to_string()]));
}

/// stats-counter-out-of-cs at rank 2 has many differences; the DOT graph
/// labels each drawn read-from edge `#i rank k`.
#[test]
fn diff_dot_limit_and_focus_choose_differences() {
    let p = "bench-programs/stats-counter-out-of-cs";
    let (old, new) = (format!("{p}/v1.c"), format!("{p}/v2.c"));
    let base = [
        "-q",
        "diff",
        "--all-ranks",
        "--max-rank",
        "2",
        old.as_str(),
        new.as_str(),
    ];
    let drawn = |dot: &str| -> BTreeSet<usize> {
        dot.lines()
            .filter_map(|l| l.split("label=\"#").nth(1))
            .filter_map(|r| r.split(' ').next()?.parse().ok())
            .collect()
    };
    let doc: serde_json::Value =
        serde_json::from_str(&answer_of(&[&base[..], &["--format", "json"]].concat())).unwrap();
    let diffs = doc["differences"].as_array().unwrap();
    assert!(diffs.len() > 3);
    let full = answer_of(&[&base[..], &["--format", "dot"]].concat());
    assert_eq!(drawn(&full).len(), diffs.len());
    // Each difference of rank 2 has at most 4 statements: --limit 4 keeps
    // the first difference (at least) and not all of them.
    let limited = answer_of(&[&base[..], &["--format", "dot", "--limit", "4"]].concat());
    let d = drawn(&limited);
    assert!(d.contains(&1) && d.len() < diffs.len(), "{limited}");
    assert!(limited.contains("difference(s) not shown"), "{limited}");
    // --focus v2.c:20: the differences with a statement on line 20, by
    // the JSON report.
    let on_20: BTreeSet<usize> = diffs
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            d["edges"].as_array().unwrap().iter().any(|e| {
                ["write", "read"]
                    .iter()
                    .any(|k| e[k]["line"] == 20 && e[k]["file"].as_str().unwrap().ends_with("v2.c"))
            })
        })
        .map(|(i, _)| i + 1)
        .collect();
    assert!(!on_20.is_empty() && on_20.len() < diffs.len());
    let focused = answer_of(&[&base[..], &["--format", "dot", "--focus", "v2.c:20"]].concat());
    assert_eq!(drawn(&focused), on_20, "{focused}");
}
