//! `concord diff` output: text, versioned JSON, SARIF 2.1.0, DOT.

use super::collapse::{self, LineGroup};
use super::coverage::Blindness;
use super::dot::DotOptions;
use super::explain::{Explanation, Versions};
use super::sarif::{self, statement_location as sarif_location, Level, Rule};
use super::style::{paint, Color};
use super::{stmt_json, JSON_VERSION};
use crate::analysis::diff::{Difference, Side, SyncDiff};
use crate::analysis::lockorder::{DeadlockCycle, LockEdge, LockOrderDiff};
use crate::analysis::unseen::UnseenChange;
use crate::facts::relations::{LocId, SharedRead, SharedWrite};
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
    /// Δmap: old statement -> its counterpart in new (for explanations).
    pub map: &'a std::collections::BTreeMap<u32, u32>,
    pub timing: Vec<(String, Duration)>,
    /// Peak resident memory of the process, bytes (when the OS tells).
    pub peak_memory: Option<u64>,
    /// Time and memory per phase (the JSON's `phase_peak_mb`, `phase_resident_mb`).
    pub phases: Vec<crate::budget::PhaseCost>,
    /// Changed places the model did not see.
    pub unseen: &'a [UnseenChange],
    /// Δmap inverted (new statement -> old), built on first use: each
    /// explanation looks counterparts up, and there may be 10^5 of them.
    pub inverse: std::cell::OnceCell<std::collections::HashMap<u32, u32>>,
}

impl DiffReport<'_> {
    /// What this answer did not see.
    pub fn blindness(&self) -> Blindness<'_> {
        Blindness::of_pair(self.old, self.new, self.unseen)
    }

    fn inverse_map(&self) -> &std::collections::HashMap<u32, u32> {
        self.inverse
            .get_or_init(|| self.map.iter().map(|(&o, &n)| (n, o)).collect())
    }

    fn version(&self, side: Side) -> &LoadedVersion {
        match side {
            Side::Old => self.old,
            Side::New => self.new,
        }
    }
}

/// `diffs` grouped by source line (thread clones and instructions of
/// one line together).
fn groups(r: &DiffReport<'_>, diffs: &[Difference]) -> Vec<LineGroup> {
    collapse::by_source_line(diffs, |side| &r.version(side).facts, edge_variable)
}

/// `threads: t1 -> t2, t2 -> t1 (...)` for a group of several members.
fn threads_line(r: &DiffReport<'_>, diffs: &[Difference], g: &LineGroup) -> Option<String> {
    if g.members.len() < 2 {
        return None;
    }
    let f = &r.version(g.only_in).facts;
    let threads = collapse::group_threads(f, diffs, g);
    let what = if threads.len() == g.members.len() {
        format!("{} thread instances of the same lines", threads.len())
    } else {
        format!(
            "{} instruction-level differences on the same lines",
            g.members.len()
        )
    };
    Some(format!("threads: {} ({what})", threads.join(", ")))
}

/// A difference in words, with its witness interleaving.
pub fn explain(r: &DiffReport<'_>, d: &Difference) -> Explanation {
    let versions = Versions {
        old: r.old,
        new: r.new,
        map: r.map,
        inverse: r.inverse_map(),
    };
    let f = &r.version(d.only_in).facts;
    super::explain::explain(&versions, d, |w, rd| edge_variable(f, w, rd))
}

/// The shared locations an edge carries: written by `w` and read by `r`.
fn edge_locations(f: &FactSet, w: u32, r: u32) -> Vec<u32> {
    let writes: BTreeSet<LocId> = f.iter_starting::<SharedWrite>(w).map(|x| x.v).collect();
    f.iter_starting::<SharedRead>(r)
        .filter(|x| writes.contains(&x.v))
        .map(|x| x.v.0)
        .collect()
}

/// The variable(s) of an edge as people read them (`names.tsv`: C field
/// names, heap objects by type and allocation site).
pub fn edge_variable(f: &FactSet, w: u32, r: u32) -> String {
    let names: Vec<&str> = edge_locations(f, w, r)
        .into_iter()
        .filter_map(|l| f.display_name(l))
        .collect();
    names.join(",")
}

/// The same as `locations.tsv` names them (JSON `variable`, kept as it was).
fn edge_variable_raw(f: &FactSet, w: u32, r: u32) -> String {
    let names: Vec<String> = edge_locations(f, w, r)
        .into_iter()
        .filter_map(|l| f.location(l).map(|l| l.name.clone()))
        .collect();
    names.join(",")
}

fn describe(v: &LoadedVersion, id: u32) -> String {
    describe_in(v, id, true)
}

/// A statement as `file:line code [function, tN]`; without the thread
/// when a collapsed group lists its threads apart.
fn describe_in(v: &LoadedVersion, id: u32, thread: bool) -> String {
    let Some(s) = v.facts.statement(id) else {
        return format!("#{id}");
    };
    let file = std::path::Path::new(&s.file)
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().to_string());
    let code = if s.kind == "init" {
        "(initial value)".to_string()
    } else {
        v.line_text(&s.file, s.line)
            .map(|l| format!("`{l}`"))
            .unwrap_or_else(|| s.text.clone())
    };
    let func = if s.function.is_empty() {
        "global".to_string()
    } else {
        s.function.clone()
    };
    if thread {
        format!("{file}:{} {code} [{func}, t{}]", s.line, s.thread)
    } else {
        format!("{file}:{} {code} [{func}]", s.line)
    }
}

/// The source text of a statement's line (its instruction without source):
/// what a SARIF fingerprint anchors on.
fn code(v: &LoadedVersion, id: u32) -> String {
    let Some(s) = v.facts.statement(id) else {
        return String::new();
    };
    v.line_text(&s.file, s.line)
        .map_or_else(|| s.text.clone(), str::to_string)
}

fn direction(side: Side) -> &'static str {
    match side {
        Side::Old => "only in old: behaviour removed by the patch",
        Side::New => "only in new: behaviour added by the patch",
    }
}

/// The edges of a difference; `threads: false` leaves the threads out
/// (a collapsed group lists them on their own line).
fn edges_text(r: &DiffReport<'_>, d: &Difference, threads: bool) -> String {
    let v = r.version(d.only_in);
    d.edges
        .iter()
        .map(|&(w, rd)| {
            format!(
                "RF {}: {}  ->  {}",
                edge_variable(&v.facts, w, rd),
                describe_in(v, w, threads),
                describe_in(v, rd, threads)
            )
        })
        .collect::<Vec<_>>()
        .join("\n      then ")
}

fn lock_edge_text(v: &LoadedVersion, e: &LockEdge) -> String {
    let (held, acquired) = (e.held.display(&v.facts), e.acquired.display(&v.facts));
    format!(
        "{held} -> {acquired} in t{}: holds {held} since {}, acquires {acquired} at {}",
        e.thread,
        describe(v, e.held_at),
        describe(v, e.acquired_at)
    )
}

fn cycle_text(f: &FactSet, c: &DeadlockCycle) -> String {
    let mut locks: Vec<String> = c.locks.iter().map(|l| l.display(f)).collect();
    locks.push(locks[0].clone());
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
        out.push_str(&paint(
            &format!(
                "no synchronisation difference up to rank {}",
                s.ranks_checked
            ),
            Color::Green,
        ));
        out.push('\n');
    }
    let grouped = groups(r, &s.differences);
    if s.first_rank != 0 {
        let instances = if grouped.len() == s.differences.len() {
            String::new()
        } else {
            format!(
                ", {} counting each thread instance and instruction",
                s.differences.len()
            )
        };
        out.push_str(&paint(
            &format!(
                "first difference at rank {} ({} difference(s) by source line{instances}; ranks checked: {})",
                s.first_rank,
                grouped.len(),
                s.ranks_checked
            ),
            Color::Bold,
        ));
        out.push('\n');
    }
    for (i, g) in grouped.iter().enumerate() {
        let d = &s.differences[g.members[0]];
        let color = match d.only_in {
            Side::Old => Color::Red,
            Side::New => Color::Green,
        };
        let threads = threads_line(r, &s.differences, g);
        out.push_str(&format!(
            "\n[{}] rank {}, {}\n      {}\n",
            i + 1,
            d.rank,
            paint(direction(d.only_in), color),
            edges_text(r, d, threads.is_none())
        ));
        if let Some(t) = &threads {
            out.push_str(&format!("      {}\n", paint(t, Color::Bold)));
        }
        let e = explain(r, d);
        out.push_str(&format!(
            "      {} {}\n",
            paint("what:", Color::Bold),
            e.summary
        ));
        if let Some(b) = &e.because {
            out.push_str(&format!("      {}  {b}\n", paint("why:", Color::Bold)));
        }
        out.push_str(&format!(
            "      {} ({}):\n",
            paint("witness", Color::Bold),
            e.witness_version
        ));
        for (k, step) in e.witness.iter().enumerate() {
            out.push_str(&format!("        {}. {}\n", k + 1, step.text));
        }
    }
    if !s.through_changes.is_empty() {
        out.push_str(&format!(
            "\nread-from edges through statements the patch added or deleted ({}; they exist in one version by construction):\n",
            s.through_changes.len()
        ));
        for g in groups(r, &s.through_changes) {
            let d = &s.through_changes[g.members[0]];
            let threads = threads_line(r, &s.through_changes, &g);
            out.push_str(&format!(
                "  {:<4} {}\n",
                d.only_in.as_str(),
                edges_text(r, d, threads.is_none())
            ));
            if let Some(t) = threads {
                out.push_str(&format!("       {t}\n"));
            }
        }
    }
    let l = r.locks;
    out.push_str(&format!("\n{}\n", paint("lock order", Color::Bold)));
    if l.old_edges.is_empty() && l.new_edges.is_empty() {
        out.push_str("  no thread holds one lock while acquiring another\n");
    }
    for (side, pairs, edges, v) in [
        (Side::Old, &l.only_old, &l.old_edges, r.old),
        (Side::New, &l.only_new, &l.new_edges, r.new),
    ] {
        for (h, a) in pairs {
            out.push_str(&format!(
                "  {}: {} -> {}\n",
                direction(side),
                v.facts.display_of(h),
                v.facts.display_of(a)
            ));
            for e in edges
                .iter()
                .filter(|e| e.held.name == *h && e.acquired.name == *a)
            {
                out.push_str(&format!("      {}\n", lock_edge_text(v, e)));
            }
        }
    }
    for (name, cycles, v) in [("old", &l.old_cycles, r.old), ("new", &l.new_cycles, r.new)] {
        if cycles.is_empty() {
            out.push_str(&format!("  potential deadlocks in {name}: none\n"));
        }
        for c in cycles {
            out.push_str(&format!(
                "  potential deadlock in {name}: {}\n",
                cycle_text(&v.facts, c)
            ));
        }
    }
    out.push_str(&format!("\n{:<16} {:>10} {:>10}\n", "counts", "old", "new"));
    let (o, n) = (&s.old_stats, &s.new_stats);
    // mustHb and mayHb are counted only with --counts (quadratic in events)
    for (name, old_count, new_count) in [
        ("mustHb", o.must_hb, n.must_hb),
        ("mayHb", o.may_hb, n.may_hb),
    ] {
        if let (Some(a), Some(b)) = (old_count, new_count) {
            out.push_str(&format!("{name:<16} {a:>10} {b:>10}\n"));
        }
    }
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
            let var = edge_variable_raw(&v.facts, w, rd);
            let shown = edge_variable(&v.facts, w, rd);
            let mut write = stmt_json(&v.facts, Some(w));
            let mut read = stmt_json(&v.facts, Some(rd));
            write["variable"] = json!(var);
            read["variable"] = json!(var);
            json!({"variable": var, "variable_display": shown, "write": write, "read": read})
        })
        .collect();
    json!({"rank": d.rank, "only_in": d.only_in, "edges": edges})
}

fn lock_edge_json(v: &LoadedVersion, e: &LockEdge) -> Value {
    json!({
        "held": e.held.name, "acquired": e.acquired.name, "thread": e.thread,
        "held_display": e.held.display(&v.facts),
        "acquired_display": e.acquired.display(&v.facts),
        "held_at": stmt_json(&v.facts, Some(e.held_at)),
        "acquired_at": stmt_json(&v.facts, Some(e.acquired_at)),
    })
}

/// The differences as the text counts them: one entry per source-line
/// group, with its members (indices into the list) and their threads.
fn by_line_json(r: &DiffReport<'_>, diffs: &[Difference]) -> Value {
    let groups: Vec<Value> = groups(r, diffs)
        .iter()
        .map(|g| {
            let f = &r.version(g.only_in).facts;
            let first = &diffs[g.members[0]];
            let place = |id: u32| {
                let s = f.statement(id);
                json!({"file": s.map(|s| &s.file), "line": s.map(|s| s.line),
                       "function": s.map(|s| &s.function)})
            };
            let edges: Vec<Value> = first
                .edges
                .iter()
                .map(|&(w, rd)| {
                    json!({"variable_display": edge_variable(f, w, rd),
                           "write": place(w), "read": place(rd)})
                })
                .collect();
            let threads: Vec<Value> = g
                .members
                .iter()
                .map(|&i| {
                    let t = |id: u32| f.statement(id).map_or(0, |s| s.thread);
                    json!(diffs[i]
                        .edges
                        .iter()
                        .map(|&(w, rd)| json!([t(w), t(rd)]))
                        .collect::<Vec<_>>())
                })
                .collect();
            json!({"rank": g.rank, "only_in": g.only_in, "edges": edges,
                   "differences": g.members, "threads": threads})
        })
        .collect();
    json!(groups)
}

pub fn json(r: &DiffReport<'_>) -> String {
    let s = r.sync;
    let l = r.locks;
    let cycles = |v: &LoadedVersion, cs: &[DeadlockCycle]| -> Vec<Value> {
        cs.iter()
            .map(|c| {
                json!({"locks": c.locks.iter().map(|l| &l.name).collect::<Vec<_>>(),
                "locks_display": c.locks.iter().map(|l| l.display(&v.facts)).collect::<Vec<_>>(),
                "edges": c.edges.iter().map(|e| lock_edge_json(v, e)).collect::<Vec<_>>()})
            })
            .collect()
    };
    let stats = |st: &crate::analysis::diff::VersionStats| {
        json!({
            "must_hb": st.must_hb, "may_hb": st.may_hb, "may_rf": st.may_rf,
            "may_rf_rank": st.may_rf_rank.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
        })
    };
    // Fields in the order serde_json's map prints them (sorted), so the
    // document reads as it did when it was one `Value`; the two lists of
    // differences are written one element at a time (a real patch has
    // hundreds of thousands: as one tree they took gigabytes).
    #[derive(serde::Serialize)]
    struct Doc<'a, D: serde::Serialize, T: serde::Serialize> {
        by_line: Value,
        counts: Value,
        coverage: Value,
        differences: D,
        first_rank: u32,
        lock_order: Value,
        new: &'a str,
        old: &'a str,
        peak_memory_mb: Option<u64>,
        phase_peak_mb: serde_json::Map<String, Value>,
        phase_resident_mb: serde_json::Map<String, Value>,
        ranks_checked: u32,
        through_changes: T,
        through_changes_by_line: Value,
        timing_ms: serde_json::Map<String, Value>,
        version: u32,
    }
    let doc = Doc {
        by_line: by_line_json(r, &s.differences),
        counts: json!({"old": stats(&s.old_stats), "new": stats(&s.new_stats)}),
        coverage: r.blindness().json(),
        differences: Lazy(|| {
            s.differences.iter().map(|d| {
                let mut v = edges_json(r.version(d.only_in), d);
                v["explanation"] = json!(explain(r, d));
                v
            })
        }),
        first_rank: s.first_rank,
        lock_order: json!({
            "only_in_old": l.only_old.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
            "only_in_new": l.only_new.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
            "old_edges": l.old_edges.iter().map(|e| lock_edge_json(r.old, e)).collect::<Vec<_>>(),
            "new_edges": l.new_edges.iter().map(|e| lock_edge_json(r.new, e)).collect::<Vec<_>>(),
            "old_deadlocks": cycles(r.old, &l.old_cycles),
            "new_deadlocks": cycles(r.new, &l.new_cycles),
        }),
        new: &r.new.label,
        old: &r.old.label,
        peak_memory_mb: r.peak_memory.map(|b| b >> 20),
        phase_peak_mb: crate::report::phase_memory_mb(&r.phases, |c| c.peak_rss),
        phase_resident_mb: crate::report::phase_memory_mb(&r.phases, |c| c.end_rss),
        ranks_checked: s.ranks_checked,
        through_changes: Lazy(|| {
            s.through_changes
                .iter()
                .map(|d| edges_json(r.version(d.only_in), d))
        }),
        through_changes_by_line: by_line_json(r, &s.through_changes),
        timing_ms: r
            .timing
            .iter()
            .map(|(k, d)| (k.clone(), json!(d.as_secs_f64() * 1e3)))
            .collect(),
        version: JSON_VERSION,
    };
    serde_json::to_string_pretty(&doc).expect("json")
}

/// A JSON list made one element at a time while it is written.
struct Lazy<F>(F);

impl<F, I> serde::Serialize for Lazy<F>
where
    F: Fn() -> I,
    I: Iterator<Item = Value>,
{
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq((self.0)())
    }
}

/// SARIF rule table: one entry per finding kind; results refer to these ids.
const SARIF_RULES: &[Rule] = &[
    Rule { id: "rf-only-in-old", name: "Read-from behaviour removed by the patch", description: "The old version allows these read-from edges (in this order); the new version does not." },
    Rule { id: "rf-only-in-new", name: "Read-from behaviour added by the patch", description: "The new version allows these read-from edges (in this order); the old version does not." },
    Rule { id: "lock-order-only-in-old", name: "Lock order removed by the patch", description: "A thread of the old version acquires the second lock while holding the first; no thread of the new version does." },
    Rule { id: "lock-order-only-in-new", name: "Lock order added by the patch", description: "A thread of the new version acquires the second lock while holding the first; no thread of the old version does." },
    Rule { id: "deadlock-only-in-old", name: "Potential deadlock removed by the patch", description: "Threads of the old version can take these locks in a cycle." },
    Rule { id: "deadlock-only-in-new", name: "Potential deadlock added by the patch", description: "Threads of the new version can take these locks in a cycle." },
];

pub fn sarif(r: &DiffReport<'_>) -> String {
    let mut results = Vec::new();
    let diffs = &r.sync.differences;
    for g in groups(r, diffs) {
        let d = &diffs[g.members[0]];
        let v = r.version(d.only_in);
        let rule = if d.only_in == Side::Old {
            "rf-only-in-old"
        } else {
            "rf-only-in-new"
        };
        let (w0, r0) = d.edges[0];
        let mut related = Vec::new();
        for &(w, rd) in &d.edges {
            related.push(sarif_location(&v.facts, w, "write"));
            related.push(sarif_location(&v.facts, rd, "read"));
        }
        let e = explain(r, d);
        let mut message = match &e.because {
            Some(b) => format!("rank {} difference: {}; {b}", d.rank, e.summary),
            None => format!("rank {} difference: {}", d.rank, e.summary),
        };
        if let Some(t) = threads_line(r, diffs, &g) {
            message.push_str(&format!("; {t}"));
        }
        let mut res = sarif::result(
            rule,
            Level::Warning,
            message,
            &d.edges
                .iter()
                .map(|&(w, rd)| format!("{}\n{}", code(v, w), code(v, rd)))
                .collect::<Vec<_>>()
                .join("\n"),
            sarif_location(&v.facts, r0, "read"),
            related,
        );
        let steps = e
            .witness
            .iter()
            .map(|w| sarif::location(&w.file, w.line, w.col, Some(&w.text)))
            .collect();
        res.code_flows = Some(vec![sarif::code_flow(
            &format!("witness interleaving in {}", e.witness_version),
            steps,
        )]);
        res.properties = Some(sarif::properties(&[
            ("rank", json!(d.rank)),
            ("firstWrite", json!(line(&v.facts, w0))),
            ("instances", json!(g.members.len())),
        ]));
        results.push(res);
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
            if let Some(e) = edges
                .iter()
                .find(|e| e.held.name == *h && e.acquired.name == *a)
            {
                results.push(sarif::result(
                    rule,
                    Level::Note,
                    format!(
                        "{} held while acquiring {}",
                        v.facts.display_of(h),
                        v.facts.display_of(a)
                    ),
                    &code(v, e.acquired_at),
                    sarif_location(&v.facts, e.acquired_at, "acquisition"),
                    vec![sarif_location(&v.facts, e.held_at, "held since")],
                ));
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
            results.push(sarif::result(
                rule,
                Level::Warning,
                format!("potential deadlock: {}", cycle_text(&v.facts, c)),
                &code(v, c.edges[0].acquired_at),
                sarif_location(&v.facts, c.edges[0].acquired_at, "acquisition"),
                c.edges
                    .iter()
                    .skip(1)
                    .map(|e| sarif_location(&v.facts, e.acquired_at, "acquisition"))
                    .collect(),
            ));
        }
    }
    sarif::log_with_notifications(SARIF_RULES, results, r.blindness().sarif_notifications())
}

fn line(f: &FactSet, id: u32) -> u32 {
    f.statement(id).map_or(0, |s| s.line)
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The differences a DOT graph shows: those touching the focused line
/// (all without a focus), in order, while their nodes fit the limit.
fn dot_selection(r: &DiffReport<'_>, opts: &DotOptions) -> BTreeSet<usize> {
    let on_focus = |d: &Difference| {
        let f = &r.version(d.only_in).facts;
        opts.focus.as_ref().map_or(true, |focus| {
            d.edges.iter().any(|&(w, rd)| {
                [w, rd].iter().any(|&s| {
                    f.statement(s)
                        .is_some_and(|s| focus.matches(&s.file, s.line))
                })
            })
        })
    };
    let mut nodes: BTreeSet<(Side, u32)> = BTreeSet::new();
    let mut shown = BTreeSet::new();
    for (i, d) in r.sync.differences.iter().enumerate() {
        if !on_focus(d) {
            continue;
        }
        let mut more = nodes.clone();
        for &(w, rd) in &d.edges {
            more.insert((d.only_in, w));
            more.insert((d.only_in, rd));
        }
        if opts.limit.is_some_and(|l| more.len() > l) {
            break;
        }
        nodes = more;
        shown.insert(i);
    }
    shown
}

/// Both versions side by side: per thread, the statements that take part in
/// a difference (in program order), and the differing read-from edges.
pub fn dot(r: &DiffReport<'_>, opts: &DotOptions) -> String {
    let mut out = String::from("digraph concord_diff {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    let shown = dot_selection(r, opts);
    // Labels number differences as the text does: by source-line group.
    let mut number = vec![0; r.sync.differences.len()];
    for (k, g) in groups(r, &r.sync.differences).iter().enumerate() {
        for &i in &g.members {
            number[i] = k + 1;
        }
    }
    out.push_str(&super::dot::hidden_note(
        r.sync.differences.len() - shown.len(),
        "difference(s)",
    ));
    for side in [Side::Old, Side::New] {
        let v = r.version(side);
        let mine: Vec<&Difference> = r
            .sync
            .differences
            .iter()
            .enumerate()
            .filter(|(i, d)| d.only_in == side && shown.contains(i))
            .map(|(_, d)| d)
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
            .filter(|(i, d)| d.only_in == side && shown.contains(i))
        {
            for (k, &(w, rd)) in d.edges.iter().enumerate() {
                out.push_str(&format!(
                    "  {0}_{w} -> {0}_{rd} [color={color}, label=\"#{1} rank {2}{3}: {4}\"];\n",
                    side.as_str(),
                    number[i],
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
