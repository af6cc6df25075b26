//! The coverage account and the unseen changes, in every output format:
//! text lines after a report, a `coverage` member of JSON documents, and
//! SARIF `toolExecutionNotifications` (design.md, "Coverage").

use super::sarif;
use crate::analysis::unseen::UnseenChange;
use crate::facts::coverage::CoverageAccount;
use crate::load::LoadedVersion;
use serde_json::{json, Value};
use serde_sarif::sarif as s;

/// How many unseen changes the text lists (JSON and SARIF list all).
const UNSEEN_SHOWN: usize = 20;

/// What one answer did not see: each version's account, and (comparing
/// two versions) the changed places the model did not see.
pub struct Blindness<'a> {
    /// (label, account) per version, old first.
    pub versions: Vec<(&'a str, &'a CoverageAccount)>,
    pub unseen: &'a [UnseenChange],
}

impl<'a> Blindness<'a> {
    pub fn of_one(v: &'a LoadedVersion) -> Blindness<'a> {
        Blindness {
            versions: vec![(v.label.as_str(), &v.coverage)],
            unseen: &[],
        }
    }

    pub fn of_pair(
        old: &'a LoadedVersion,
        new: &'a LoadedVersion,
        unseen: &'a [UnseenChange],
    ) -> Blindness<'a> {
        Blindness {
            versions: vec![
                (old.label.as_str(), &old.coverage),
                (new.label.as_str(), &new.coverage),
            ],
            unseen,
        }
    }

    /// Text lines (none when everything was seen): first the unseen
    /// changes, which make the answer inconclusive, then the accounts.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if !self.unseen.is_empty() {
            out.push_str(&format!(
                "inconclusive: {} changed place(s) not analysed:\n",
                self.unseen.len()
            ));
            for u in self.unseen.iter().take(UNSEEN_SHOWN) {
                out.push_str(&format!("  {u}\n"));
            }
            if self.unseen.len() > UNSEEN_SHOWN {
                out.push_str(&format!(
                    "  and {} more (`--format json` lists every one)\n",
                    self.unseen.len() - UNSEEN_SHOWN
                ));
            }
        }
        let labelled = self.versions.len() > 1;
        for (label, account) in &self.versions {
            for line in account.text_lines(if labelled { label } else { "" }) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    /// `{"complete": bool, "versions": {label: {"gaps": [...]}}, "unseen_changes": [...]}`.
    pub fn json(&self) -> Value {
        let complete = self.unseen.is_empty() && self.versions.iter().all(|(_, a)| a.is_complete());
        let mut versions = serde_json::Map::new();
        let keys = ["old", "new"];
        for (i, (label, account)) in self.versions.iter().enumerate() {
            let key = if self.versions.len() == 1 {
                "program"
            } else {
                keys[i.min(1)]
            };
            versions.insert(
                key.to_string(),
                json!({"label": label, "gaps": account.gaps}),
            );
        }
        json!({
            "complete": complete,
            "versions": versions,
            "unseen_changes": self.unseen,
        })
    }

    /// One SARIF notification per unseen change (a warning: it makes the
    /// answer inconclusive) and per gap kind of each account (a note).
    pub fn sarif_notifications(&self) -> Vec<s::Notification> {
        let mut out = Vec::new();
        for u in self.unseen {
            out.push(notification(
                "warning",
                format!("changed code not analysed: {u}"),
                Some(sarif::location(&u.file, u.line, 0, None)),
            ));
        }
        let labelled = self.versions.len() > 1;
        for (label, account) in &self.versions {
            for line in account.text_lines(if labelled { label } else { "" }) {
                out.push(notification("note", line, None));
            }
        }
        out
    }
}

fn notification(level: &str, message: String, at: Option<s::Location>) -> s::Notification {
    let mut n = s::Notification::builder()
        .message(sarif::text(&message))
        .build();
    n.level = Some(json!(level));
    n.locations = at.map(|l| vec![l]);
    n
}
