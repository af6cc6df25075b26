//! SARIF 2.1.0 logs, built from serde-sarif's types (generated from the
//! schema, so a log missing a required field does not compile). Every
//! result gets a stable `partialFingerprints` entry, so code-scanning
//! services track it across commits; the driver's `informationUri` is the
//! package's `repository` metadata (see [`information_uri`]).

use serde_sarif::sarif as s;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

pub use serde_sarif::sarif::ResultLevel as Level;

/// The fingerprint's name; bump the suffix if its recipe changes.
pub const FINGERPRINT: &str = "concordResult/v2";

/// One entry of the driver's rule table.
pub struct Rule {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
}

/// A source location: `line` and `col` are 1-based, 0 means unknown.
pub fn location(uri: &str, line: u32, col: u32, message: Option<&str>) -> s::Location {
    let region = s::Region {
        start_line: Some(i64::from(line.max(1))),
        start_column: (col > 0).then_some(i64::from(col)),
        ..Default::default()
    };
    s::Location {
        physical_location: Some(s::PhysicalLocation {
            artifact_location: Some(s::ArtifactLocation {
                uri: Some(uri.to_string()),
                ..Default::default()
            }),
            region: Some(region),
            ..Default::default()
        }),
        message: message.map(text),
        ..Default::default()
    }
}

/// The location of a statement of `f` (line 1 when it has none).
pub fn statement_location(f: &crate::facts::FactSet, id: u32, message: &str) -> s::Location {
    let st = f.statement(id);
    location(
        st.map_or("", |st| st.file.as_str()),
        st.map_or(1, |st| st.line),
        st.map_or(0, |st| st.col),
        Some(message),
    )
}

/// A plain-text message.
pub fn text(t: &str) -> s::Message {
    s::Message {
        text: Some(t.to_string()),
        ..Default::default()
    }
}

/// A result at `primary`, with its fingerprint; `anchor` is what tells
/// results of one rule and file apart when their messages differ only in
/// numbers (the source text of the line, say).
pub fn result(
    rule: &str,
    level: Level,
    message: String,
    anchor: &str,
    primary: s::Location,
    related: Vec<s::Location>,
) -> s::Result {
    let uri = primary
        .physical_location
        .as_ref()
        .and_then(|p| p.artifact_location.as_ref())
        .and_then(|a| a.uri.clone())
        .unwrap_or_default();
    let fp = fingerprint(rule, &uri, &message, anchor);
    let mut r = s::Result::builder()
        .message(text(&message))
        .rule_id(rule)
        .level(level)
        .locations(vec![primary])
        .partial_fingerprints(BTreeMap::from([(FINGERPRINT.to_string(), fp)]))
        .build();
    if !related.is_empty() {
        r.related_locations = Some(related);
    }
    r
}

/// Extra key/value pairs of a result (`properties`).
pub fn properties(pairs: &[(&str, serde_json::Value)]) -> s::PropertyBag {
    s::PropertyBag {
        additional_properties: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        ..Default::default()
    }
}

/// A witness interleaving: one thread flow, one location per step.
pub fn code_flow(message: &str, steps: Vec<s::Location>) -> s::CodeFlow {
    let locations: Vec<s::ThreadFlowLocation> = steps
        .into_iter()
        .enumerate()
        .map(|(i, l)| s::ThreadFlowLocation {
            location: Some(l),
            execution_order: Some(i as i64 + 1),
            ..Default::default()
        })
        .collect();
    s::CodeFlow::builder()
        .message(text(message))
        .thread_flows(vec![s::ThreadFlow::builder().locations(locations).build()])
        .build()
}

/// Results whose fingerprints coincide (the same code twice in one file)
/// get the occurrence number appended, as code-scanning services do with
/// their own line hashes: no two results of a log are merged.
fn number_duplicates(results: &mut [s::Result]) {
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    for r in results {
        let Some(fp) = r
            .partial_fingerprints
            .as_mut()
            .and_then(|m| m.get_mut(FINGERPRINT))
        else {
            continue;
        };
        let n = seen.entry(fp.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            *fp = format!("{fp}:{n}");
        }
    }
}

/// The whole log: one run of concord with `rules` and `results`, as
/// pretty-printed JSON.
pub fn log(rules: &[Rule], results: Vec<s::Result>) -> String {
    log_with_notifications(rules, results, Vec::new())
}

/// The whole log, with tool execution notifications (what the analysis
/// did not see) in an invocation when there are any.
pub fn log_with_notifications(
    rules: &[Rule],
    mut results: Vec<s::Result>,
    notifications: Vec<s::Notification>,
) -> String {
    number_duplicates(&mut results);
    let rules: Vec<s::ReportingDescriptor> = rules
        .iter()
        .map(|r| {
            s::ReportingDescriptor::builder()
                .id(r.id)
                .name(r.name)
                .short_description(message_string(r.name))
                .full_description(message_string(r.description))
                .build()
        })
        .collect();
    let mut driver = s::ToolComponent::builder()
        .name("concord")
        .version(env!("CARGO_PKG_VERSION"))
        .rules(rules)
        .build();
    driver.information_uri = information_uri();
    let mut run = s::Run::builder()
        .tool(s::Tool::builder().driver(driver).build())
        .results(results)
        .build();
    if !notifications.is_empty() {
        let invocation = s::Invocation::builder()
            .execution_successful(true)
            .tool_execution_notifications(notifications)
            .build();
        run.invocations = Some(vec![invocation]);
    }
    let log = s::Sarif::builder()
        .schema("https://json.schemastore.org/sarif-2.1.0.json")
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    serde_json::to_string_pretty(&log).expect("a SARIF log serialises")
}

/// Where a reader of a log learns about concord: Cargo.toml's
/// `repository`, else its `homepage`. No address is made up: with neither
/// set (the case while the project has no public address) the driver has
/// no `informationUri`, which SARIF allows.
pub fn information_uri() -> Option<String> {
    [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")]
        .into_iter()
        .find(|u| !u.is_empty())
        .map(String::from)
}

fn message_string(t: &str) -> s::MultiformatMessageString {
    s::MultiformatMessageString::builder().text(t).build()
}

/// Rule, file name of the primary location (not its directory: the same
/// code checked out elsewhere, or compiled with absolute paths in its debug
/// info, keeps its fingerprints), message with every number removed and
/// the anchor (source text, no line numbers): a result keeps its
/// fingerprint when a patch elsewhere shifts its lines or renumbers its
/// statements.
pub fn fingerprint(rule: &str, file: &str, message: &str, anchor: &str) -> String {
    let message: String = message.chars().filter(|c| !c.is_ascii_digit()).collect();
    let file = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let mut h = Sha256::new();
    for part in [rule, file, &message, anchor] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    format!("{:x}", h.finalize())[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_survive_line_shifts_and_tell_messages_apart() {
        assert_eq!(
            fingerprint("r", "a.c", "x line 3", "x = 1;"),
            fingerprint("r", "a.c", "x line 9", "x = 1;")
        );
        assert_ne!(
            fingerprint("r", "a.c", "x", ""),
            fingerprint("r", "a.c", "y", "")
        );
        assert_ne!(
            fingerprint("r", "a.c", "x", ""),
            fingerprint("r", "b.c", "x", "")
        );
        assert_eq!(
            fingerprint("r", "/home/a/src/a.c", "x", "y = 1;"),
            fingerprint("r", "/tmp/checkout/src/a.c", "x", "y = 1;")
        );
        // Same message up to numbers, different code: told apart.
        assert_ne!(
            fingerprint("r", "a.c", "x line 3", "x = 1;"),
            fingerprint("r", "a.c", "x line 9", "x = 2;")
        );
    }

    #[test]
    fn every_result_of_a_log_has_a_fingerprint_and_the_log_parses() {
        let rules = [Rule {
            id: "r",
            name: "R",
            description: "d",
        }];
        let results = vec![
            result(
                "r",
                Level::Note,
                "a".into(),
                "",
                location("a.c", 1, 0, None),
                vec![],
            ),
            result(
                "r",
                Level::Warning,
                "b".into(),
                "",
                location("a.c", 2, 3, Some("here")),
                vec![location("a.c", 4, 0, None)],
            ),
        ];
        let text = log(&rules, results);
        let back: s::Sarif = serde_json::from_str(&text).unwrap();
        let rs = back.runs[0].results.as_ref().unwrap();
        assert_eq!(rs.len(), 2);
        for r in rs {
            let fp = &r.partial_fingerprints.as_ref().unwrap()[FINGERPRINT];
            assert_eq!(fp.len(), 32);
        }
        assert_eq!(rs[1].related_locations.as_ref().unwrap().len(), 1);
        // The driver names the package's repository exactly when Cargo.toml does.
        let driver = &back.runs[0].tool.driver;
        assert_eq!(driver.information_uri, information_uri());
        let repo = env!("CARGO_PKG_REPOSITORY");
        if !repo.is_empty() {
            assert_eq!(driver.information_uri.as_deref(), Some(repo));
        }
        assert_eq!(driver.version.as_deref(), Some(env!("CARGO_PKG_VERSION")));
    }
}
