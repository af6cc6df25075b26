//! What the engine tells its caller while it explores.  The engine prints
//! nothing: progress, warnings and debug traces are sent to the caller
//! (`run`'s `on_note`), which decides where they go.

use crate::symex::FindingKind;
use std::fmt;

/// A message from a running exploration.
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// Periodic progress (`--progress`, about once a second).
    Progress {
        seconds: f64,
        runs: u64,
        partial: u64,
        findings: usize,
        queries: u64,
    },
    /// A new finding (`--progress`).
    Found {
        kind: FindingKind,
        location: String,
        message: String,
    },
    /// The summary store could not be used as asked.
    Store(StoreWarning),
    /// `CONCORD_SYMEX_DEBUG`: one step of the search, for a developer.
    Debug(String),
}

/// Why summaries were not read or written (the exploration goes on
/// without them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreWarning {
    NotRead(String),
    NotStored(String),
}

impl fmt::Display for StoreWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreWarning::NotRead(e) => write!(f, "stored summaries not read: {e}"),
            StoreWarning::NotStored(e) => write!(f, "summaries not stored: {e}"),
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Progress {
                seconds,
                runs,
                partial,
                findings,
                queries,
            } => write!(
                f,
                "[symex] {seconds:.1}s runs={runs} partial={partial} findings={findings} queries={queries}"
            ),
            Note::Found {
                kind,
                location,
                message,
            } => write!(f, "[symex] {kind:?} at {location}: {message}"),
            Note::Store(w) => write!(f, "concord: warning: {w}"),
            Note::Debug(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Note, StoreWarning};
    use crate::symex::FindingKind;

    /// The text is what the engine used to print itself.
    #[test]
    fn notes_print_as_before() {
        let p = Note::Progress {
            seconds: 1.25,
            runs: 3,
            partial: 1,
            findings: 2,
            queries: 7,
        };
        assert_eq!(
            p.to_string(),
            "[symex] 1.2s runs=3 partial=1 findings=2 queries=7"
        );
        let f = Note::Found {
            kind: FindingKind::Assertion,
            location: "a.c:3:1".into(),
            message: "boom".into(),
        };
        assert_eq!(f.to_string(), "[symex] Assertion at a.c:3:1: boom");
        let w = Note::Store(StoreWarning::NotStored("disk full".into()));
        assert_eq!(
            w.to_string(),
            "concord: warning: summaries not stored: disk full"
        );
    }
}
