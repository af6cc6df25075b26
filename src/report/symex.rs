//! `concord symex` summaries on stdout: text, versioned JSON, SARIF 2.1.0
//! (each finding a result, its interleaving a code flow). The results
//! directory (`testNNNNNN.json`, `stats.json`) is written by
//! `symex::output`.

use super::sarif::{self, Level, Rule};
use super::style::{paint, Color};
use super::JSON_VERSION;
use crate::symex::{Exploration, Finding, FindingKind, TraceStep, Verdict};
use serde_json::json;

/// Output format of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SymexFormat {
    #[default]
    Text,
    Json,
    Sarif,
}

/// The summary of `res` (an exploration of `program`) in `format`.
pub fn render(format: SymexFormat, program: &str, res: &Exploration) -> String {
    match format {
        SymexFormat::Text => text(res),
        SymexFormat::Json => json(program, res) + "\n",
        SymexFormat::Sarif => sarif(program, res) + "\n",
    }
}

/// One line per finding, then the verdict and its reasons.
pub fn text(res: &Exploration) -> String {
    let mut s = String::new();
    for f in &res.findings {
        s += &format!(
            "{:?} at {} ({}): {} [thread {}, schedule {:?}]\n",
            f.kind, f.location, f.function, f.message, f.thread, f.schedule
        );
    }
    if res.stats.loop_bounds_tried.len() > 1 {
        s += &format!(
            "loop bounds tried: {:?} (iterative deepening)\n",
            res.stats.loop_bounds_tried
        );
    }
    let color = match res.stats.verdict {
        Verdict::Violation => Color::Red,
        Verdict::Verified => Color::Green,
        Verdict::Inconclusive => Color::Yellow,
    };
    s += &format!(
        "verdict: {}\n",
        paint(&res.stats.verdict.to_string(), color)
    );
    for r in &res.stats.reasons {
        s += &format!("  because: {r}\n");
    }
    s
}

/// The JSON summary: `version` is [`JSON_VERSION`] (docs/cli.md, "JSON
/// versions"); `findings` are the test cases' findings, `stats` is
/// `stats.json` without its own version.
pub fn json(program: &str, res: &Exploration) -> String {
    let doc = json!({
        "version": JSON_VERSION,
        "program": program,
        "verdict": res.stats.verdict,
        "reasons": res.stats.reasons,
        "findings": res.findings,
        "stats": res.stats,
    });
    serde_json::to_string_pretty(&doc).expect("json")
}

const SARIF_RULES: &[Rule] = &[
    Rule {
        id: "symex/assertion",
        name: "Assertion violation",
        description: "An assert (or __VERIFIER_assert) fails on an explored interleaving and input.",
    },
    Rule {
        id: "symex/error-call",
        name: "Error function reached",
        description: "reach_error() or __VERIFIER_error() is called on an explored interleaving and input.",
    },
    Rule {
        id: "symex/abort",
        name: "abort() reached",
        description: "abort() is called outside an assume helper.",
    },
    Rule {
        id: "symex/deadlock",
        name: "Deadlock",
        description: "No thread can move while some have not finished.",
    },
    Rule {
        id: "symex/memory-error",
        name: "Memory or lock misuse",
        description: "A null, dangling or out-of-bounds access, a bad free or a bad lock operation.",
    },
    Rule {
        id: "symex/unsupported",
        name: "Not modelled",
        description: "An instruction or library call the executor does not model: paths through it were not explored.",
    },
];

fn rule_id(k: FindingKind) -> &'static str {
    match k {
        FindingKind::Assertion => "symex/assertion",
        FindingKind::ErrorCall => "symex/error-call",
        FindingKind::Abort => "symex/abort",
        FindingKind::Deadlock => "symex/deadlock",
        FindingKind::MemoryError => "symex/memory-error",
        FindingKind::Unsupported => "symex/unsupported",
    }
}

/// `file:line:col` -> (file, col); a location without debug info
/// (`function:block`) falls back to the program.
fn place<'a>(location: &'a str, line: u32, program: &'a str) -> (&'a str, u32) {
    if line == 0 {
        return (program, 0);
    }
    let mut parts = location.rsplitn(3, ':');
    let col = parts.next().and_then(|c| c.parse().ok()).unwrap_or(0);
    let _line = parts.next();
    (parts.next().unwrap_or(program), col)
}

fn step_location(s: &TraceStep, program: &str) -> serde_sarif::sarif::Location {
    let (file, col) = place(&s.location, s.line, program);
    sarif::location(file, s.line, col, Some(&format!("T{}: {}", s.thread, s.op)))
}

fn result(f: &Finding, program: &str) -> serde_sarif::sarif::Result {
    let (file, col) = place(&f.location, f.line, program);
    let level = if f.kind.is_violation() {
        Level::Error
    } else {
        Level::Warning
    };
    // The line's text anchors the fingerprint (not its number).
    let anchor = (f.line > 0)
        .then(|| std::fs::read_to_string(file).ok())
        .flatten()
        .and_then(|s| {
            s.lines()
                .nth(f.line.saturating_sub(1) as usize)
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_default();
    let mut r = sarif::result(
        rule_id(f.kind),
        level,
        format!("{} (thread {}, in {})", f.message, f.thread, f.function),
        &anchor,
        sarif::location(file, f.line, col, None),
        Vec::new(),
    );
    if !f.trace.is_empty() {
        let steps = f.trace.iter().map(|s| step_location(s, program)).collect();
        r.code_flows = Some(vec![sarif::code_flow(
            "the interleaving, step by step",
            steps,
        )]);
    }
    r.properties = Some(sarif::properties(&[
        ("schedule", json!(f.schedule)),
        ("inputs", json!(f.inputs)),
        ("hits", json!(f.hits)),
    ]));
    r
}

/// SARIF 2.1.0: one result per finding; a finding's recorded trace is its
/// code flow.
pub fn sarif(program: &str, res: &Exploration) -> String {
    let results = res.findings.iter().map(|f| result(f, program)).collect();
    sarif::log(SARIF_RULES, results)
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn places_split_file_and_column() {
        assert_eq!(place("a/b.c:12:5", 12, "p.c"), ("a/b.c", 5));
        assert_eq!(place("main:bb3", 0, "p.c"), ("p.c", 0));
        assert_eq!(place("C:/x.c:3:1", 3, "p.c"), ("C:/x.c", 1));
    }
}
