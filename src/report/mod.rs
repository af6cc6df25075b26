//! Turning results into text and JSON for people and tools. Computes nothing.

pub mod changes;
pub mod collapse;
pub mod coverage;
pub mod diff;
pub mod dot;
pub mod explain;
pub mod impact;
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
