//! Turning results into text and JSON for people and tools. Computes nothing.

pub mod changes;
pub mod collapse;
pub mod coverage;
pub mod diff;
pub mod dot;
pub mod explain;
pub mod impact;
pub mod ranked;
pub mod sarif;
pub mod style;
pub mod symex;

use crate::facts::FactSet;
use serde_json::json;

/// Version of the JSON documents concord prints; bump on incompatible change.
pub const JSON_VERSION: u32 = 1;

pub fn stmt_json(f: &FactSet, id: Option<u32>) -> serde_json::Value {
    match id.and_then(|i| f.statement(i)) {
        Some(s) => json!({
            "id": s.id, "file": s.file, "line": s.line, "col": s.col,
            "function": s.function, "thread": s.thread, "text": s.text,
        }),
        None => serde_json::Value::Null,
    }
}

/// One figure per phase, in MB, as a JSON object keyed by phase name
/// (`phase_peak_mb`, `phase_resident_mb` of `diff` and `query`); phases
/// without the figure (not Linux) are left out.
pub fn phase_memory_mb(
    phases: &[crate::budget::PhaseCost],
    figure: impl Fn(&crate::budget::PhaseCost) -> Option<u64>,
) -> serde_json::Map<String, serde_json::Value> {
    phases
        .iter()
        .filter_map(|c| Some((c.name.clone(), json!(figure(c)? >> 20))))
        .collect()
}

/// `--verbose`: one line per phase with its wall time, the peak resident
/// memory during it and the resident memory at its end.
pub fn phase_costs_text(phases: &[crate::budget::PhaseCost]) -> String {
    let mb = |b: Option<u64>| b.map_or("?".to_string(), |b| format!("{} MB", b >> 20));
    phases
        .iter()
        .map(|c| {
            format!(
                "concord: phase {}: {:.1} ms, peak {}, resident {}\n",
                c.name,
                c.time.as_secs_f64() * 1e3,
                mb(c.peak_rss),
                mb(c.end_rss)
            )
        })
        .collect()
}
