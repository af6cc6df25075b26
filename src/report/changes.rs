//! The `changes` report (Δdiff): statements a patch added, deleted,
//! modified or moved, one line per source line, as text or JSON.

use super::coverage::Blindness;
use super::{stmt_json, style, JSON_VERSION};
use crate::facts::FactSet;
use crate::load::LoadedVersion;
use crate::versions::{Change, ChangeKind, VersionMatch};
use serde_json::json;
use std::collections::BTreeMap;

fn short_file(f: &FactSet, id: u32) -> String {
    f.statement(id)
        .map(|s| {
            let name = std::path::Path::new(&s.file)
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            format!("{}:{}", name, s.line)
        })
        .unwrap_or_default()
}

/// A change group's key: the file and line a reader looks for (the new
/// ones, else the old), the old line, the kind.
type LineKey = (String, u32, u32, ChangeKind);

/// Changes grouped by source file and line (a build's files share line
/// numbers, so the file is part of the key).
fn by_line<'a>(
    m: &'a VersionMatch,
    old: &FactSet,
    new: &FactSet,
) -> BTreeMap<LineKey, Vec<&'a Change>> {
    let mut groups: BTreeMap<LineKey, Vec<&Change>> = BTreeMap::new();
    for c in &m.changes {
        let os = c.old.and_then(|o| old.statement(o));
        let ns = c.new.and_then(|n| new.statement(n));
        let ol = os.map_or(0, |s| s.line);
        let nl = ns.map_or(0, |s| s.line);
        let (file, key_line) = match (ns, os) {
            (Some(s), _) if nl != 0 => (s.file.clone(), nl),
            (_, Some(s)) => (s.file.clone(), ol),
            _ => (String::new(), 0),
        };
        groups
            .entry((file, key_line, ol, c.kind))
            .or_default()
            .push(c);
    }
    groups
}

/// The source text of a change group's line: the new line's, else the
/// old line's.
fn line_text<'a>(first: &Change, old: &'a LoadedVersion, new: &'a LoadedVersion) -> &'a str {
    first
        .new
        .and_then(|n| new.statement_line_text(n))
        .or_else(|| first.old.and_then(|o| old.statement_line_text(o)))
        .unwrap_or("")
}

/// Changes, one line per source line and kind; `ir` adds each statement's
/// instruction text under it.
pub fn text(m: &VersionMatch, old: &LoadedVersion, new: &LoadedVersion, ir: bool) -> String {
    let mut out = format!(
        "changes {} -> {} (matched by {})\n",
        old.label,
        new.label,
        match m.method {
            crate::versions::MatchMethod::SourceLines => "source lines, refined per instruction",
            crate::versions::MatchMethod::IrOnly => "IR only: no source text",
        }
    );
    let mut counts: BTreeMap<ChangeKind, usize> = BTreeMap::new();
    for ((_, _, _, kind), changes) in by_line(m, &old.facts, &new.facts) {
        *counts.entry(kind).or_default() += changes.len();
        let first = changes[0];
        let at_old = first
            .old
            .map(|o| short_file(&old.facts, o))
            .unwrap_or_default();
        let at_new = first
            .new
            .map(|n| short_file(&new.facts, n))
            .unwrap_or_default();
        let text = line_text(first, old, new);
        let place = match (at_old.is_empty(), at_new.is_empty()) {
            (false, false) => format!("{at_old} -> {at_new}"),
            (true, false) => at_new,
            (false, true) => at_old,
            (true, true) => String::new(),
        };
        // Without source text the instruction is all there is to show.
        let text = if text.is_empty() && !ir {
            first
                .new
                .and_then(|n| new.facts.statement(n))
                .or_else(|| first.old.and_then(|o| old.facts.statement(o)))
                .map_or("", |s| s.text.as_str())
        } else {
            text
        };
        let many = if changes.len() > 1 && !ir {
            format!("  ({} statements)", changes.len())
        } else {
            String::new()
        };
        let color = match kind {
            ChangeKind::Added => style::Color::Green,
            ChangeKind::Deleted => style::Color::Red,
            ChangeKind::Modified => style::Color::Yellow,
            ChangeKind::Moved => style::Color::Cyan,
        };
        out.push_str(&format!(
            "{} {:<28} {}{many}\n",
            style::paint(&format!("{:<9}", kind.as_str()), color),
            place,
            text
        ));
        if !ir {
            continue;
        }
        for c in changes {
            let o = c
                .old
                .and_then(|o| old.facts.statement(o))
                .map(|s| s.text.as_str());
            let n = c
                .new
                .and_then(|n| new.facts.statement(n))
                .map(|s| s.text.as_str());
            let detail = match (o, n) {
                (Some(o), Some(n)) if o != n => format!("{o}  =>  {n}"),
                (Some(o), _) => o.to_string(),
                (None, Some(n)) => n.to_string(),
                (None, None) => String::new(),
            };
            out.push_str(&format!("{:<38} {}\n", "", detail));
        }
    }
    let summary: Vec<String> = [
        ChangeKind::Added,
        ChangeKind::Deleted,
        ChangeKind::Modified,
        ChangeKind::Moved,
    ]
    .iter()
    .map(|k| format!("{} {}", counts.get(k).copied().unwrap_or(0), k.as_str()))
    .collect();
    out.push_str(&format!("{} statements\n", summary.join(", ")));
    out
}

pub fn json(
    m: &VersionMatch,
    old: &LoadedVersion,
    new: &LoadedVersion,
    blind: &Blindness<'_>,
) -> String {
    let changes: Vec<_> = m
        .changes
        .iter()
        .map(|c| json!({"kind": c.kind, "old": stmt_json(&old.facts, c.old), "new": stmt_json(&new.facts, c.new)}))
        .collect();
    let doc = json!({
        "version": JSON_VERSION,
        "old": old.label,
        "new": new.label,
        "method": m.method,
        "changes": changes,
        "line_map": m.line_map.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
        "coverage": blind.json(),
    });
    serde_json::to_string_pretty(&doc).expect("json")
}

const SARIF_RULES: &[super::sarif::Rule] = &[
    super::sarif::Rule {
        id: "statement-added",
        name: "Statement added by the patch",
        description: "The new version has statements on this line that the old version does not.",
    },
    super::sarif::Rule {
        id: "statement-deleted",
        name: "Statement deleted by the patch",
        description: "The old version has statements on this line that the new version does not; the location is in the old version.",
    },
    super::sarif::Rule {
        id: "statement-modified",
        name: "Statement modified by the patch",
        description: "Statements of this line changed; the related location is the line in the old version.",
    },
    super::sarif::Rule {
        id: "statement-moved",
        name: "Statement moved by the patch",
        description: "Statements of this line moved; the related location is where they were in the old version.",
    },
];

/// SARIF: one note per changed source line and kind (as the text groups
/// them), at the new line (the old one for deletions), with the old line
/// as a related location where the statements have both.
pub fn sarif(
    m: &VersionMatch,
    old: &LoadedVersion,
    new: &LoadedVersion,
    blind: &Blindness<'_>,
) -> String {
    use super::sarif;
    let place = sarif::statement_location;
    let mut results = Vec::new();
    for ((_, _, _, kind), changes) in by_line(m, &old.facts, &new.facts) {
        let first = changes[0];
        let text = line_text(first, old, new);
        let (primary, related) = match (first.old, first.new) {
            (Some(o), Some(n)) => (
                place(&new.facts, n, "new"),
                vec![place(&old.facts, o, "old")],
            ),
            (None, Some(n)) => (place(&new.facts, n, "new"), vec![]),
            (Some(o), None) => (place(&old.facts, o, "old"), vec![]),
            (None, None) => continue,
        };
        let count = if changes.len() > 1 {
            format!(" ({} statements)", changes.len())
        } else {
            String::new()
        };
        results.push(sarif::result(
            &format!("statement-{}", kind.as_str()),
            sarif::Level::Note,
            format!("{}: {text}{count}", kind.as_str()),
            text,
            primary,
            related,
        ));
    }
    sarif::log_with_notifications(SARIF_RULES, results, blind.sarif_notifications())
}
