//! `concord diff` output: text, versioned JSON, SARIF 2.1.0, DOT.

use super::{stmt_json, JSON_VERSION};
use crate::analysis::diff::{Difference, Side, SyncDiff};
use crate::analysis::lockorder::{DeadlockCycle, LockEdge, LockOrderDiff};
use crate::facts::FactSet;
use crate::load::LoadedVersion;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::Duration;

/// Everything `concord diff` reports.
pub struct DiffReport<'a> {
    pub old: &'a LoadedVersion,
    pub new: &'a LoadedVersion,
    pub sync: &'a SyncDiff,
    pub locks: &'a LockOrderDiff,
    pub timing: Vec<(String, Duration)>,
    /// Peak resident memory of the process, bytes (when the OS tells).
    pub peak_memory: Option<u64>,
}

impl DiffReport<'_> {
    fn version(&self, side: Side) -> &LoadedVersion {
        match side {
            Side::Old => self.old,
            Side::New => self.new,
        }
    }
}

/// The shared location(s) an edge carries: written by `w` and read by `r`.
pub fn edge_variable(f: &FactSet, w: u32, r: u32) -> String {
    let writes: BTreeSet<u32> = f
        .rows("shared_write")
        .filter(|x| x[0] == w)
        .map(|x| x[1])
        .collect();
    let names: Vec<String> = f
        .rows("shared_read")
        .filter(|x| x[0] == r && writes.contains(&x[1]))
        .filter_map(|x| f.location(x[1]).map(|l| l.name.clone()))
        .collect();
    names.join(",")
}

fn describe(v: &LoadedVersion, id: u32) -> String {
    let Some(s) = v.facts.statement(id) else {
        return format!("#{id}");
    };
    let file = std::path::Path::new(&s.file)
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().to_string());
    let code = if s.kind == "init" {
        "(initial value)".to_string()
    } else {
        v.source
            .as_deref()
            .and_then(|src| src.lines().nth(s.line.saturating_sub(1) as usize))
            .map(|l| format!("`{}`", l.trim()))
            .unwrap_or_else(|| s.text.clone())
    };
    let func = if s.function.is_empty() {
        "global".to_string()
    } else {
        s.function.clone()
    };
    format!("{file}:{} {code} [{func}, t{}]", s.line, s.thread)
}

fn direction(side: Side) -> &'static str {
    match side {
        Side::Old => "only in old: behaviour removed by the patch",
        Side::New => "only in new: behaviour added by the patch",
    }
}

fn edges_text(r: &DiffReport<'_>, d: &Difference) -> String {
    let v = r.version(d.only_in);
    d.edges
        .iter()
        .map(|&(w, rd)| {
            format!(
                "RF {}: {}  ->  {}",
                edge_variable(&v.facts, w, rd),
                describe(v, w),
                describe(v, rd)
            )
        })
        .collect::<Vec<_>>()
        .join("\n      then ")
}

fn lock_edge_text(v: &LoadedVersion, e: &LockEdge) -> String {
    format!(
        "{} -> {} in t{}: holds {} since {}, acquires {} at {}",
        e.held,
        e.acquired,
        e.thread,
        e.held,
        describe(v, e.held_at),
        e.acquired,
        describe(v, e.acquired_at)
    )
}

fn cycle_text(c: &DeadlockCycle) -> String {
    let mut locks = c.locks.clone();
    locks.push(c.locks[0].clone());
    let threads: Vec<String> = c.edges.iter().map(|e| format!("t{}", e.thread)).collect();
    format!("{} (threads {})", locks.join(" -> "), threads.join(", "))
}

pub fn text(r: &DiffReport<'_>) -> String {
    let s = r.sync;
    let mut out = format!("concord diff {} -> {}\n", r.old.label, r.new.label);
    if s.first_rank == 0 && r.locks.has_difference() {
        // Read-from edges agree, but the patch changes the lock order: that
        // is a synchronisation difference (EC-Diff's missed rtl8169-3 case).
        let l = r.locks;
        out.push_str(&format!(
            "synchronisation differs in lock order only: no read-from difference up to rank {}; \
             lock-order pairs only in old {}, only in new {}; potential deadlocks old {}, new {}\n",
            s.ranks_checked,
            l.only_old.len(),
            l.only_new.len(),
            l.old_cycles.len(),
            l.new_cycles.len()
        ));
    } else if s.first_rank == 0 {
        out.push_str(&format!(
            "no synchronisation difference up to rank {}\n",
            s.ranks_checked
        ));
    } else {
        out.push_str(&format!(
            "first difference at rank {} ({} difference(s); ranks checked: {})\n",
            s.first_rank,
            s.differences.len(),
            s.ranks_checked
        ));
    }
    for (i, d) in s.differences.iter().enumerate() {
        out.push_str(&format!(
            "\n[{}] rank {}, {}\n      {}\n",
            i + 1,
            d.rank,
            direction(d.only_in),
            edges_text(r, d)
        ));
    }
    if !s.through_changes.is_empty() {
        out.push_str(&format!(
            "\nread-from edges through statements the patch added or deleted ({}; they exist in one version by construction):\n",
            s.through_changes.len()
        ));
        for d in &s.through_changes {
            out.push_str(&format!(
                "  {:<4} {}\n",
                d.only_in.as_str(),
                edges_text(r, d)
            ));
        }
    }
    let l = r.locks;
    out.push_str("\nlock order\n");
    if l.old_edges.is_empty() && l.new_edges.is_empty() {
        out.push_str("  no thread holds one lock while acquiring another\n");
    }
    for (side, pairs, edges, v) in [
        (Side::Old, &l.only_old, &l.old_edges, r.old),
        (Side::New, &l.only_new, &l.new_edges, r.new),
    ] {
        for (h, a) in pairs {
            out.push_str(&format!("  {}: {h} -> {a}\n", direction(side)));
            for e in edges.iter().filter(|e| &e.held == h && &e.acquired == a) {
                out.push_str(&format!("      {}\n", lock_edge_text(v, e)));
            }
        }
    }
    for (name, cycles) in [("old", &l.old_cycles), ("new", &l.new_cycles)] {
        if cycles.is_empty() {
            out.push_str(&format!("  potential deadlocks in {name}: none\n"));
        }
        for c in cycles {
            out.push_str(&format!(
                "  potential deadlock in {name}: {}\n",
                cycle_text(c)
            ));
        }
    }
    out.push_str(&format!("\n{:<16} {:>10} {:>10}\n", "counts", "old", "new"));
    let (o, n) = (&s.old_stats, &s.new_stats);
    out.push_str(&format!(
        "{:<16} {:>10} {:>10}\n",
        "mustHb", o.must_hb, n.must_hb
    ));
    out.push_str(&format!(
        "{:<16} {:>10} {:>10}\n",
        "mayHb", o.may_hb, n.may_hb
    ));
    out.push_str(&format!(
        "{:<16} {:>10} {:>10}\n",
        "MayRf", o.may_rf, n.may_rf
    ));
    for (rank, count) in &o.may_rf_rank {
        let other = n.may_rf_rank.get(rank).copied().unwrap_or(0);
        out.push_str(&format!(
            "{:<16} {:>10} {:>10}\n",
            format!("MayRf rank {rank}"),
            count,
            other
        ));
    }
    for rank in 2..=s.ranks_checked.min(3) {
        if !o.may_rf_rank.contains_key(&rank) {
            out.push_str(&format!(
                "{:<16} not counted (--counts counts them)\n",
                format!("MayRf rank {rank}")
            ));
        }
    }
    let timing: Vec<String> = r
        .timing
        .iter()
        .map(|(k, d)| format!("{k} {:.1} ms", d.as_secs_f64() * 1e3))
        .collect();
    out.push_str(&format!("\ntiming: {}\n", timing.join(", ")));
    if let Some(peak) = r.peak_memory {
        out.push_str(&format!("peak memory: {} MB\n", peak >> 20));
    }
    out
}

fn edges_json(v: &LoadedVersion, d: &Difference) -> Value {
    let edges: Vec<Value> = d
        .edges
        .iter()
        .map(|&(w, rd)| {
            let var = edge_variable(&v.facts, w, rd);
            let mut write = stmt_json(&v.facts, Some(w));
            let mut read = stmt_json(&v.facts, Some(rd));
            write["variable"] = json!(var);
            read["variable"] = json!(var);
            json!({"variable": var, "write": write, "read": read})
        })
        .collect();
    json!({"rank": d.rank, "only_in": d.only_in, "edges": edges})
}

fn lock_edge_json(v: &LoadedVersion, e: &LockEdge) -> Value {
    json!({
        "held": e.held, "acquired": e.acquired, "thread": e.thread,
        "held_at": stmt_json(&v.facts, Some(e.held_at)),
        "acquired_at": stmt_json(&v.facts, Some(e.acquired_at)),
    })
}

pub fn json(r: &DiffReport<'_>) -> String {
    let s = r.sync;
    let l = r.locks;
    let diffs: Vec<Value> = s
        .differences
        .iter()
        .map(|d| edges_json(r.version(d.only_in), d))
        .collect();
    let through: Vec<Value> = s
        .through_changes
        .iter()
        .map(|d| edges_json(r.version(d.only_in), d))
        .collect();
    let cycles = |v: &LoadedVersion, cs: &[DeadlockCycle]| -> Vec<Value> {
        cs.iter()
            .map(|c| json!({"locks": c.locks, "edges": c.edges.iter().map(|e| lock_edge_json(v, e)).collect::<Vec<_>>()}))
            .collect()
    };
    let stats = |st: &crate::analysis::diff::VersionStats| {
        json!({
            "must_hb": st.must_hb, "may_hb": st.may_hb, "may_rf": st.may_rf,
            "may_rf_rank": st.may_rf_rank.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        })
    };
    let doc = json!({
        "version": JSON_VERSION,
        "old": r.old.label,
        "new": r.new.label,
        "first_rank": s.first_rank,
        "ranks_checked": s.ranks_checked,
        "differences": diffs,
        "through_changes": through,
        "lock_order": {
            "only_in_old": l.only_old.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
            "only_in_new": l.only_new.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
            "old_edges": l.old_edges.iter().map(|e| lock_edge_json(r.old, e)).collect::<Vec<_>>(),
            "new_edges": l.new_edges.iter().map(|e| lock_edge_json(r.new, e)).collect::<Vec<_>>(),
            "old_deadlocks": cycles(r.old, &l.old_cycles),
            "new_deadlocks": cycles(r.new, &l.new_cycles),
        },
        "counts": {"old": stats(&s.old_stats), "new": stats(&s.new_stats)},
        "peak_memory_mb": r.peak_memory.map(|b| b >> 20),
        "timing_ms": r.timing.iter().map(|(k, d)| (k.clone(), json!(d.as_secs_f64() * 1e3))).collect::<serde_json::Map<_, _>>(),
    });
    serde_json::to_string_pretty(&doc).expect("json")
}

/// SARIF rule table: one entry per finding kind; results refer to these ids.
const SARIF_RULES: &[(&str, &str, &str)] = &[
    ("rf-only-in-old", "Read-from behaviour removed by the patch", "The old version allows these read-from edges (in this order); the new version does not."),
    ("rf-only-in-new", "Read-from behaviour added by the patch", "The new version allows these read-from edges (in this order); the old version does not."),
    ("lock-order-only-in-old", "Lock order removed by the patch", "A thread of the old version acquires the second lock while holding the first; no thread of the new version does."),
    ("lock-order-only-in-new", "Lock order added by the patch", "A thread of the new version acquires the second lock while holding the first; no thread of the old version does."),
    ("deadlock-only-in-old", "Potential deadlock removed by the patch", "Threads of the old version can take these locks in a cycle."),
    ("deadlock-only-in-new", "Potential deadlock added by the patch", "Threads of the new version can take these locks in a cycle."),
];

fn sarif_location(f: &FactSet, id: u32, message: &str) -> Value {
    let s = f.statement(id);
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": s.map_or("", |s| s.file.as_str())},
            "region": {"startLine": s.map_or(1, |s| s.line.max(1)), "startColumn": s.map_or(1, |s| s.col.max(1))},
        },
        "message": {"text": message},
    })
}

pub fn sarif(r: &DiffReport<'_>) -> String {
    let mut results = Vec::new();
    for d in &r.sync.differences {
        let v = r.version(d.only_in);
        let rule = if d.only_in == Side::Old {
            "rf-only-in-old"
        } else {
            "rf-only-in-new"
        };
        let summary: Vec<String> = d
            .edges
            .iter()
            .map(|&(w, rd)| {
                format!(
                    "RF({} line {} -> line {})",
                    edge_variable(&v.facts, w, rd),
                    line(&v.facts, w),
                    line(&v.facts, rd)
                )
            })
            .collect();
        let (w0, r0) = d.edges[0];
        let mut related = Vec::new();
        for &(w, rd) in &d.edges {
            related.push(sarif_location(&v.facts, w, "write"));
            related.push(sarif_location(&v.facts, rd, "read"));
        }
        results.push(json!({
            "ruleId": rule,
            "level": "warning",
            "message": {"text": format!("rank {} difference, {}: {}", d.rank, direction(d.only_in), summary.join(" then "))},
            "locations": [sarif_location(&v.facts, r0, "read")],
            "relatedLocations": related,
            "properties": {"rank": d.rank, "firstWrite": line(&v.facts, w0)},
        }));
    }
    let l = r.locks;
    for (side, pairs, edges, v) in [
        (Side::Old, &l.only_old, &l.old_edges, r.old),
        (Side::New, &l.only_new, &l.new_edges, r.new),
    ] {
        let rule = if side == Side::Old {
            "lock-order-only-in-old"
        } else {
            "lock-order-only-in-new"
        };
        for (h, a) in pairs {
            if let Some(e) = edges.iter().find(|e| &e.held == h && &e.acquired == a) {
                results.push(json!({
                    "ruleId": rule, "level": "note",
                    "message": {"text": format!("{h} held while acquiring {a}")},
                    "locations": [sarif_location(&v.facts, e.acquired_at, "acquisition")],
                    "relatedLocations": [sarif_location(&v.facts, e.held_at, "held since")],
                }));
            }
        }
    }
    for (side, mine, theirs, v) in [
        (Side::Old, &l.old_cycles, &l.new_cycles, r.old),
        (Side::New, &l.new_cycles, &l.old_cycles, r.new),
    ] {
        let rule = if side == Side::Old {
            "deadlock-only-in-old"
        } else {
            "deadlock-only-in-new"
        };
        for c in mine
            .iter()
            .filter(|c| !theirs.iter().any(|t| t.locks == c.locks))
        {
            results.push(json!({
                "ruleId": rule, "level": "warning",
                "message": {"text": format!("potential deadlock: {}", cycle_text(c))},
                "locations": [sarif_location(&v.facts, c.edges[0].acquired_at, "acquisition")],
                "relatedLocations": c.edges.iter().skip(1).map(|e| sarif_location(&v.facts, e.acquired_at, "acquisition")).collect::<Vec<_>>(),
            }));
        }
    }
    let rules: Vec<Value> = SARIF_RULES
        .iter()
        .map(|(id, name, text)| json!({"id": id, "name": name, "shortDescription": {"text": name}, "fullDescription": {"text": text}}))
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "concord", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "results": results,
        }],
    });
    let mut doc = doc;
    super::sarif::finish(&mut doc);
    serde_json::to_string_pretty(&doc).expect("json")
}

fn line(f: &FactSet, id: u32) -> u32 {
    f.statement(id).map_or(0, |s| s.line)
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Both versions side by side: per thread, the statements that take part in
/// a difference (in program order), and the differing read-from edges.
pub fn dot(r: &DiffReport<'_>) -> String {
    let mut out = String::from("digraph concord_diff {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    for side in [Side::Old, Side::New] {
        let v = r.version(side);
        let mine: Vec<&Difference> = r
            .sync
            .differences
            .iter()
            .filter(|d| d.only_in == side)
            .collect();
        let mut nodes: BTreeSet<u32> = BTreeSet::new();
        for d in &mine {
            for &(w, rd) in &d.edges {
                nodes.insert(w);
                nodes.insert(rd);
            }
        }
        out.push_str(&format!(
            "  subgraph cluster_{0} {{\n    label=\"{0}: {1}\";\n",
            side.as_str(),
            dot_escape(&v.label)
        ));
        let threads: BTreeSet<u32> = nodes
            .iter()
            .filter_map(|&n| v.facts.statement(n).map(|s| s.thread))
            .collect();
        for t in threads {
            out.push_str(&format!(
                "    subgraph cluster_{}_t{t} {{\n      label=\"thread {t}\";\n",
                side.as_str()
            ));
            let in_thread: Vec<u32> = nodes
                .iter()
                .copied()
                .filter(|&n| v.facts.statement(n).is_some_and(|s| s.thread == t))
                .collect();
            for &n in &in_thread {
                out.push_str(&format!(
                    "      {}_{n} [label=\"{}\"];\n",
                    side.as_str(),
                    dot_escape(&describe(v, n))
                ));
            }
            for w in in_thread.windows(2) {
                out.push_str(&format!(
                    "      {0}_{1} -> {0}_{2} [color=gray, style=dotted];\n",
                    side.as_str(),
                    w[0],
                    w[1]
                ));
            }
            out.push_str("    }\n");
        }
        out.push_str("  }\n");
        let color = if side == Side::Old {
            "red"
        } else {
            "darkgreen"
        };
        for (i, d) in r
            .sync
            .differences
            .iter()
            .enumerate()
            .filter(|(_, d)| d.only_in == side)
        {
            for (k, &(w, rd)) in d.edges.iter().enumerate() {
                out.push_str(&format!(
                    "  {0}_{w} -> {0}_{rd} [color={color}, label=\"#{1} rank {2}{3}: {4}\"];\n",
                    side.as_str(),
                    i + 1,
                    d.rank,
                    if d.edges.len() > 1 {
                        format!(" ({})", k + 1)
                    } else {
                        String::new()
                    },
                    dot_escape(&edge_variable(&v.facts, w, rd))
                ));
            }
        }
    }
    out.push_str("}\n");
    out
}
