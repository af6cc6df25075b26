//! Output of `concord impact`: text, JSON (versioned), DOT and SARIF.
//! Computes nothing beyond grouping the result of [`crate::analysis::impact`] by
//! source line.

use super::coverage::Blindness;
use super::dot::DotOptions;
use super::ranked;
use super::sarif::{self, Level, Rule};
use super::style;
use crate::analysis::impact::{
    ChangeGroup, DepKind, Direction, GroupSet, ImpactResult, Reach, Side, Step, Via,
};
use crate::facts::FactSet;
use serde::Serialize;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// Version of the `concord impact` JSON document; bump on incompatible change.
pub const IMPACT_JSON_VERSION: u32 = 1;

/// One version as the report sees it: its facts, label and source lines
/// (a single file's, or each file of a build or list of C files).
pub use crate::load::LoadedVersion as View;

/// One impacted source line of one thread instance and function.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ImpactItem {
    pub direction: Direction,
    pub version: Side,
    pub thread: u32,
    /// Start function of the thread instance (`main` for thread 0).
    pub thread_function: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    /// Ids of the change groups that impact this line.
    pub changes: Vec<u32>,
    /// Statement ids of this line, thread and function in the impacted set.
    pub statements: Vec<u32>,
    /// The source text of the line, when the source is available.
    pub text: Option<String>,
    /// Dependence steps from the nearest change (0: the line changed).
    pub steps: u32,
    /// How the changes reach it: `data`, `control` or `cross-thread`.
    pub via: Via,
}

/// The text of `file:line` in version `v`, where its source is known.
fn source_line(v: &View, file: &str, line: u32) -> Option<String> {
    v.line_text(file, line).map(str::to_string)
}

fn short(file: &str) -> String {
    std::path::Path::new(file)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| file.to_string())
}

fn thread_function(f: &FactSet, t: u32) -> String {
    f.threads
        .iter()
        .find(|th| th.id == t)
        .map(|th| th.function.clone())
        .unwrap_or_default()
}

/// One impacted set of a result with the distances of its statements.
pub struct ImpactSet<'a> {
    pub set: &'a BTreeMap<u32, GroupSet>,
    pub reach: &'a BTreeMap<u32, Reach>,
}

/// The impacted set of one direction and version.
pub fn impact_set(result: &ImpactResult, d: Direction, v: Side) -> ImpactSet<'_> {
    let (set, reach) = match (d, v) {
        (Direction::Fwd, Side::New) => (&result.fwd, &result.reach_fwd),
        (Direction::Bwd, Side::New) => (&result.bwd, &result.reach_bwd),
        (Direction::Fwd, Side::Old) => (&result.fwd_old, &result.reach_fwd_old),
        (Direction::Bwd, Side::Old) => (&result.bwd_old, &result.reach_bwd_old),
    };
    ImpactSet { set, reach }
}

/// Group an impacted set by (thread, function, line); statements without
/// a source line are left out (they are counted in `statements`). A line
/// is as near as its nearest statement and reached the weakest way any
/// of its statements is.
pub fn items(
    view: &View,
    impacted: &ImpactSet<'_>,
    direction: Direction,
    version: Side,
) -> Vec<ImpactItem> {
    // (thread, function, file, line) -> (change groups, statements, reach)
    type Key = (u32, String, String, u32);
    let unknown = Reach {
        steps: u32::MAX,
        via: Via::CrossThread,
    };
    let mut by: BTreeMap<Key, (BTreeSet<u32>, Vec<u32>, Reach)> = BTreeMap::new();
    for (&s, groups) in impacted.set {
        let Some(info) = view.facts.statement(s) else {
            continue;
        };
        if info.line == 0 {
            continue;
        }
        let e = by
            .entry((
                info.thread,
                info.function.clone(),
                info.file.clone(),
                info.line,
            ))
            .or_insert_with(|| (BTreeSet::new(), Vec::new(), unknown));
        e.0.extend(groups.iter());
        e.1.push(s);
        if let Some(r) = impacted.reach.get(&s) {
            e.2.steps = e.2.steps.min(r.steps);
            e.2.via = e.2.via.min(r.via);
        }
    }
    by.into_iter()
        .map(
            |((thread, function, file, line), (changes, statements, reach))| ImpactItem {
                direction,
                version,
                thread,
                thread_function: thread_function(&view.facts, thread),
                function,
                text: source_line(view, &file, line),
                file,
                line,
                changes: changes.into_iter().collect(),
                statements,
                steps: reach.steps,
                via: reach.via,
            },
        )
        .collect()
}

/// All items of a result for the chosen directions: new version first,
/// then the old-version closures of deleted statements.
pub fn all_items(
    result: &ImpactResult,
    old: Option<&View>,
    new: &View,
    dirs: &[Direction],
) -> Vec<ImpactItem> {
    let mut out = Vec::new();
    for &d in dirs {
        out.extend(items(new, &impact_set(result, d, Side::New), d, Side::New));
    }
    if let Some(old) = old {
        for &d in dirs {
            out.extend(items(old, &impact_set(result, d, Side::Old), d, Side::Old));
        }
    }
    out
}

fn group_label(g: &ChangeGroup) -> String {
    let side = match g.side {
        Side::Old => "old",
        Side::New => "new",
    };
    if g.line == 0 {
        format!("{} ({side}, no source line)", g.kind.as_str())
    } else {
        format!("{} {side} {}:{}", g.kind.as_str(), short(&g.file), g.line)
    }
}

fn tags(ids: &[u32]) -> String {
    ids.iter()
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn dir_title(d: Direction, v: Side) -> &'static str {
    match (d, v) {
        (Direction::Fwd, Side::New) => {
            "forward (statements of the new version the changes may affect)"
        }
        (Direction::Bwd, Side::New) => {
            "backward (statements of the new version that may affect the changes)"
        }
        (Direction::Fwd, Side::Old) => {
            "forward in the old version (affected by deleted statements; mapped above)"
        }
        (Direction::Bwd, Side::Old) => {
            "backward in the old version (affecting deleted statements; mapped above)"
        }
    }
}

/// The text report: the changes, then per direction the impacted lines
/// merged over thread instances, nearest the changes first, at most
/// `limit` of them (all with `None`), under their totals.
pub fn impact_text(
    result: &ImpactResult,
    old: Option<&View>,
    new: &View,
    dirs: &[Direction],
    limit: Option<usize>,
) -> String {
    let all = all_items(result, old, new, dirs);
    let mut out = match old {
        Some(o) => format!("impact {} -> {}\n", o.label, new.label),
        None => format!("impact {}\n", new.label),
    };
    if result.groups.is_empty() {
        out.push_str("no changes: nothing is impacted\n");
        return out;
    }
    out.push_str(&style::paint("changes:", style::Color::Bold));
    out.push('\n');
    for g in &result.groups {
        let view = match g.side {
            Side::Old => old.unwrap_or(new),
            Side::New => new,
        };
        let text = source_line(view, &g.file, g.line).unwrap_or_default();
        out.push_str(&format!("  [c{}] {}  {}\n", g.id, group_label(g), text));
    }
    for version in [Side::New, Side::Old] {
        for &d in dirs {
            let sel: Vec<&ImpactItem> = all
                .iter()
                .filter(|i| i.direction == d && i.version == version)
                .collect();
            if version == Side::Old && sel.is_empty() {
                continue;
            }
            out.push_str(&ranked_section(
                &style::paint(dir_title(d, version), style::Color::Bold),
                &sel,
                limit,
            ));
        }
    }
    out
}

/// One direction's lines: totals, the nearest `limit` grouped by function
/// and thread function, and how many were left out.
fn ranked_section(title: &str, sel: &[&ImpactItem], limit: Option<usize>) -> String {
    let lines = ranked::rank(sel);
    let t = ranked::totals(&lines);
    let plural = |n: usize, one: &str, many: &str| {
        format!(
            "{} {}",
            ranked::thousands(n),
            if n == 1 { one } else { many }
        )
    };
    let mut out = format!(
        "{title}: {} in {}",
        plural(t.lines, "line", "lines"),
        plural(t.functions, "function", "functions")
    );
    if t.lines > 0 {
        out.push_str(&format!(
            " ({} changed, {} data, {} control, {} cross-thread)",
            ranked::thousands(t.changed),
            ranked::thousands(t.data),
            ranked::thousands(t.control),
            ranked::thousands(t.cross_thread)
        ));
    }
    out.push('\n');
    let groups = ranked::grouped(&lines, limit);
    let shown: usize = groups.iter().map(Vec::len).sum();
    if shown < lines.len() {
        out.push_str(&format!(
            "  nearest {} of {} entries (steps from a change; --limit N, --all)\n",
            ranked::thousands(shown),
            ranked::thousands(lines.len())
        ));
    }
    for group in groups {
        let first = group[0];
        let function = if first.function.is_empty() {
            "(global initialisers)"
        } else {
            first.function.as_str()
        };
        let instances = group
            .iter()
            .flat_map(|l| l.threads.iter())
            .collect::<BTreeSet<_>>()
            .len();
        let threads = if instances > 1 {
            format!("thread {}, {instances} instances", first.thread_function)
        } else {
            format!("thread {}", first.thread_function)
        };
        out.push_str(&format!("  {function}  ({threads})\n"));
        for l in group {
            let (steps, via) = if l.steps == 0 {
                ("changed".to_string(), "")
            } else {
                let unit = if l.steps == 1 { "step" } else { "steps" };
                (format!("{} {unit}", l.steps), l.via.as_str())
            };
            out.push_str(&format!(
                "    {steps:>8} {via:<12} {}:{:<5} {:<40} [{}]\n",
                short(&l.file),
                l.line,
                l.text.as_deref().unwrap_or(""),
                tags(&l.changes)
            ));
        }
    }
    if shown < lines.len() {
        out.push_str(&format!(
            "  ... {} more {}\n",
            ranked::thousands(lines.len() - shown),
            if lines.len() - shown == 1 {
                "entry"
            } else {
                "entries"
            }
        ));
    }
    out
}

pub fn impact_json(
    result: &ImpactResult,
    old: Option<&View>,
    new: &View,
    dirs: &[Direction],
    blind: &Blindness<'_>,
) -> String {
    let all = all_items(result, old, new, dirs);
    let lines = |d: Direction, v: Side| -> Vec<u32> {
        all.iter()
            .filter(|i| i.direction == d && i.version == v)
            .map(|i| i.line)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    let mut summary = serde_json::Map::new();
    for &d in dirs {
        summary.insert(
            match d {
                Direction::Fwd => "forward".into(),
                Direction::Bwd => "backward".into(),
            },
            json!({
                "lines": lines(d, Side::New),
                "statements": match d { Direction::Fwd => result.fwd.len(), Direction::Bwd => result.bwd.len() },
                "old_lines": lines(d, Side::Old),
            }),
        );
    }
    // What the text shows, complete: lines merged over thread instances,
    // nearest first, with their totals.
    let mut by_distance = Vec::new();
    for version in [Side::New, Side::Old] {
        for &d in dirs {
            let sel: Vec<&ImpactItem> = all
                .iter()
                .filter(|i| i.direction == d && i.version == version)
                .collect();
            if version == Side::Old && sel.is_empty() {
                continue;
            }
            let lines = ranked::rank(&sel);
            by_distance.push(json!({
                "direction": d,
                "version": version,
                "totals": ranked::totals(&lines),
                "lines": lines,
            }));
        }
    }
    let doc = json!({
        "version": IMPACT_JSON_VERSION,
        "old": old.map(|o| o.label.as_str()),
        "new": new.label,
        "directions": dirs.iter().map(|d| d.as_str()).collect::<Vec<_>>(),
        "changes": result.groups,
        "summary": summary,
        "ranked": by_distance,
        "impacted": all,
        "coverage": blind.json(),
    });
    serde_json::to_string_pretty(&doc).expect("json")
}

/// The dependence graph among impacted lines of the new version.
pub fn impact_dot(
    result: &ImpactResult,
    new: &View,
    dirs: &[Direction],
    opts: &DotOptions,
) -> String {
    let mut member: BTreeSet<u32> = BTreeSet::new();
    for &d in dirs {
        match d {
            Direction::Fwd => member.extend(result.fwd.keys()),
            Direction::Bwd => member.extend(result.bwd.keys()),
        }
    }
    let seeds: BTreeSet<u32> = result
        .seeds_fwd
        .keys()
        .chain(result.seeds_bwd.keys())
        .copied()
        .collect();
    let node = |s: u32| -> Option<String> {
        new.facts
            .statement(s)
            .filter(|i| i.line != 0)
            .map(|i| format!("t{}:{}:{}", i.thread, i.function, i.line))
    };
    let mut nodes: BTreeMap<String, bool> = BTreeMap::new();
    // A node's source text (its name has no file: a build has several).
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut focused: Vec<String> = Vec::new();
    for &s in &member {
        if let Some(n) = node(s) {
            *nodes.entry(n.clone()).or_default() |= seeds.contains(&s);
            if let Some(i) = new.facts.statement(s) {
                texts
                    .entry(n.clone())
                    .or_insert_with(|| source_line(new, &i.file, i.line).unwrap_or_default());
            }
            let on_focus = opts.focus.as_ref().is_some_and(|f| {
                new.facts
                    .statement(s)
                    .is_some_and(|i| f.matches(&i.file, i.line))
            });
            if on_focus && !focused.contains(&n) {
                focused.push(n);
            }
        }
    }
    let mut edges: BTreeSet<(String, String, &'static str)> = BTreeSet::new();
    for &(u, d, k) in &result.deps_new {
        if member.contains(&u) && member.contains(&d) {
            if let (Some(a), Some(b)) = (node(d), node(u)) {
                if a != b {
                    edges.insert((a, b, k.as_str()));
                }
            }
        }
    }
    // Around the focused line, else from the changes outwards.
    let start: Vec<String> = if opts.focus.is_some() {
        focused
    } else {
        let (s, rest): (Vec<_>, Vec<_>) = nodes.iter().partition(|(_, &seed)| seed);
        s.into_iter().chain(rest).map(|(n, _)| n.clone()).collect()
    };
    let pairs: BTreeSet<(String, String)> = edges
        .iter()
        .map(|(a, b, _)| (a.clone(), b.clone()))
        .collect();
    let keep = super::dot::select(&start, &pairs, opts.limit);
    let hidden = nodes.len() - keep.len();
    nodes.retain(|n, _| keep.contains(n));
    edges.retain(|(a, b, _)| keep.contains(a) && keep.contains(b));
    let mut out =
        String::from("digraph impact {\n  rankdir=TB;\n  node [shape=box, fontname=monospace];\n");
    out.push_str(&super::dot::hidden_note(hidden, "impacted line(s)"));
    for (n, seed) in &nodes {
        let text = texts.get(n).map_or("", String::as_str);
        let label = format!("{n}\\n{}", text.replace('\\', "\\\\").replace('"', "\\\""));
        out.push_str(&format!(
            "  \"{n}\" [label=\"{label}\"{}];\n",
            if *seed {
                ", style=filled, fillcolor=lightyellow"
            } else {
                ""
            }
        ));
    }
    for (a, b, k) in edges {
        let style = match k {
            "control" => ", style=dashed",
            "memory" => ", color=blue",
            _ => "",
        };
        out.push_str(&format!("  \"{a}\" -> \"{b}\" [label=\"{k}\"{style}];\n"));
    }
    out.push_str("}\n");
    out
}

const SARIF_RULES: &[Rule] = &[Rule {
    id: "impact/change",
    name: "A changed line and the lines it may affect or be affected by",
    description: "The primary location is the changed line; the related locations are the lines of the new version the change may affect (forward impact) or that may affect it (backward impact), across threads and functions.",
}];

/// SARIF 2.1.0: one `note` result per change (changed source line), with
/// the lines it impacts as related locations, so a log stays as long as
/// the patch rather than as the program.
pub fn impact_sarif(
    result: &ImpactResult,
    old: Option<&View>,
    new: &View,
    dirs: &[Direction],
    blind: &Blindness<'_>,
) -> String {
    let its: Vec<ImpactItem> = dirs
        .iter()
        .flat_map(|&d| items(new, &impact_set(result, d, Side::New), d, Side::New))
        .collect();
    let results = result
        .groups
        .iter()
        .map(|g| {
            let mine: Vec<&ImpactItem> = its.iter().filter(|i| i.changes.contains(&g.id)).collect();
            let count = |d: Direction| {
                mine.iter()
                    .filter(|i| i.direction == d)
                    .map(|i| (i.file.as_str(), i.line))
                    .collect::<BTreeSet<_>>()
                    .len()
            };
            let related = mine
                .iter()
                .map(|i| {
                    let what = match i.direction {
                        Direction::Fwd => "may be affected",
                        Direction::Bwd => "may affect it",
                    };
                    let func = if i.function.is_empty() {
                        "global initialisers"
                    } else {
                        i.function.as_str()
                    };
                    sarif::location(
                        &i.file,
                        i.line,
                        0,
                        Some(&format!(
                            "{what}: thread {} ({}), {func}",
                            i.thread, i.thread_function
                        )),
                    )
                })
                .collect();
            let mut parts = Vec::new();
            if dirs.contains(&Direction::Fwd) {
                parts.push(format!("{} line(s) may be affected", count(Direction::Fwd)));
            }
            if dirs.contains(&Direction::Bwd) {
                parts.push(format!("{} line(s) may affect it", count(Direction::Bwd)));
            }
            let side = match g.side {
                Side::Old => "old version",
                Side::New => "new version",
            };
            // The line's text tells changes of one file apart (the
            // fingerprint ignores numbers).
            let view = match g.side {
                Side::New => Some(new),
                Side::Old => old,
            };
            let text = view
                .and_then(|v| source_line(v, &g.file, g.line))
                .unwrap_or_default();
            let function = view
                .and_then(|v| g.statements.first().and_then(|&s| v.facts.statement(s)))
                .map(|s| s.function.as_str())
                .filter(|f| !f.is_empty())
                .unwrap_or("global initialisers");
            let code = if text.is_empty() {
                format!(" in {function}")
            } else {
                format!(" `{text}` in {function}")
            };
            sarif::result(
                "impact/change",
                Level::Note,
                format!(
                    "{} line ({side}){code}: {}",
                    g.kind.as_str(),
                    parts.join(", ")
                ),
                &format!("{function}\n{text}"),
                sarif::location(&g.file, g.line, 0, None),
                related,
            )
        })
        .collect();
    sarif::log_with_notifications(SARIF_RULES, results, blind.sarif_notifications())
}

/// A dependence chain, one step a line.
pub fn explain_text(
    result: &ImpactResult,
    old: Option<&View>,
    new: &View,
    dir: Direction,
    target: &str,
    chain: Option<&[Step]>,
) -> String {
    let what = match dir {
        Direction::Fwd => "forward: how a change reaches",
        Direction::Bwd => "backward: how it reaches a change from",
    };
    let Some(chain) = chain else {
        return format!("{what} {target}: not impacted\n");
    };
    let mut out = format!("{what} {target}\n");
    let describe = |s: u32, v: &View| -> String {
        v.facts
            .statement(s)
            .map(|i| {
                format!(
                    "{}:{} [thread {}, {}] {}  | {}",
                    short(&i.file),
                    i.line,
                    i.thread,
                    i.function,
                    source_line(v, &i.file, i.line).unwrap_or_default(),
                    i.text
                )
            })
            .unwrap_or_else(|| format!("statement {s}"))
    };
    for (n, step) in chain.iter().enumerate() {
        let seed_tag = if n == 0 {
            let groups: Vec<String> = [&result.seeds_fwd, &result.seeds_bwd]
                .into_iter()
                .filter_map(|seeds| seeds.get(&step.stmt))
                .flat_map(GroupSet::iter)
                .collect::<BTreeSet<u32>>()
                .into_iter()
                .map(|g| format!("c{g}"))
                .collect();
            let mut tag = format!("change {}", groups.join(","));
            if let (Some(&o), Some(old)) = (result.mapped_from.get(&step.stmt), old) {
                tag.push_str(&format!(" (via Δmap from old {})", describe(o, old)));
            }
            tag
        } else {
            let k = step.kind.unwrap_or(DepKind::Data);
            match dir {
                Direction::Fwd => format!("{} dep on previous", k.as_str()),
                Direction::Bwd => format!("previous has {} dep on", k.as_str()),
            }
        };
        out.push_str(&format!(
            "  {:>2}. {:<28} {}\n",
            n + 1,
            seed_tag,
            describe(step.stmt, new)
        ));
    }
    out
}
