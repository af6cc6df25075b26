//! Each command's pipeline as a library function: typed options in, data
//! and the command's answer out, with no command-line types (clap lives
//! in `src/cli` only). `src/cli` parses arguments into a request, calls
//! the pipeline, renders the outcome and exits with its
//! [`Answer::exit_code`]; a test calls the same function.
//!
//! What a pipeline has to say while it runs (a warning about the model, a
//! progress line) is an [`Event`] handed to the caller as it happens, so
//! stderr keeps its order; whether to show it (`-q`) is the caller's
//! choice.

pub mod changes;
pub mod diff;
pub mod facts;
pub mod impact;
pub mod query;
pub mod symex;

use crate::analysis::unseen::{unseen_changes, UnseenChange, VersionView};
use crate::budget::Budget;
use crate::error::{exit, Result};
use crate::facts::extract::ExtractOptions;
use crate::load::{LoadWarning, LoadedVersion, VersionSource};
use crate::versions::VersionMatch;

/// A command's answer, which its exit code carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Done, nothing found (no change, no difference, verified): 0.
    Clean,
    /// Something found (changes, differences, impacted statements, a
    /// violation): 1.
    Found,
    /// Nothing found, but the analysis did not see everything the answer
    /// depends on (`symex`: the search was incomplete; `changes`, `diff`,
    /// `impact`: a changed place was not analysed): 10.
    Inconclusive,
}

impl Answer {
    /// `Found` when `found`, else `Clean`.
    pub fn found_if(found: bool) -> Answer {
        if found {
            Answer::Found
        } else {
            Answer::Clean
        }
    }

    /// `Found` when `found`; else `Inconclusive` when something the answer
    /// depends on was not seen; else `Clean`.
    pub fn found_unless_unseen(found: bool, unseen: bool) -> Answer {
        match (found, unseen) {
            (true, _) => Answer::Found,
            (false, true) => Answer::Inconclusive,
            (false, false) => Answer::Clean,
        }
    }

    pub fn exit_code(self) -> i32 {
        match self {
            Answer::Clean => exit::OK,
            Answer::Found => exit::FINDINGS,
            Answer::Inconclusive => exit::INCONCLUSIVE,
        }
    }
}

/// Something a pipeline reports while it runs. Its `Display` is the line
/// the command line prints on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A loaded version has parts the model could not resolve.
    Unresolved(LoadWarning),
    /// `diff` starts comparing the two loaded versions (their labels).
    Comparing { old: String, new: String },
    /// The summary store of `symex` could not be used or written.
    Store(StoreWarning),
    /// `symex OLD NEW` has planned NEW's exploration.
    SymexPlan {
        changes: usize,
        impacted_statements: usize,
        impacted_instructions: usize,
    },
    /// `symex OLD NEW`: OLD's complete run was read from the store.
    OldRunReused,
}

/// Why the summary store was not used or not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreWarning {
    /// The default store cannot be opened: the run goes on without one.
    Unavailable(String),
    /// A finding could not be recorded (it is still in the results directory).
    FindingNotStored(String),
    /// The complete run's result could not be recorded.
    ResultNotStored(String),
}

impl Event {
    /// Shown even under `-q`: a result the store lost is worth knowing
    /// whatever the verbosity (it was printed so before the pipelines
    /// were library functions).
    pub fn shown_when_quiet(&self) -> bool {
        matches!(
            self,
            Event::Store(StoreWarning::FindingNotStored(_) | StoreWarning::ResultNotStored(_))
        )
    }
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Unresolved(w) => write!(f, "concord: warning: {w}"),
            Event::Comparing { old, new } => write!(f, "concord: comparing {old} and {new} ..."),
            Event::Store(StoreWarning::Unavailable(e)) => {
                write!(f, "concord: warning: no summary store: {e}")
            }
            Event::Store(StoreWarning::FindingNotStored(e)) => {
                write!(f, "concord: warning: finding not stored: {e}")
            }
            Event::Store(StoreWarning::ResultNotStored(e)) => {
                write!(f, "concord: warning: result not stored: {e}")
            }
            Event::SymexPlan {
                changes,
                impacted_statements,
                impacted_instructions,
            } => write!(
                f,
                "[symex] {changes} changes, {impacted_statements} impacted statements ({impacted_instructions} instructions of NEW)"
            ),
            Event::OldRunReused => {
                write!(f, "[symex] OLD: its complete run is in the store (no exploration)")
            }
        }
    }
}

/// Where a pipeline sends its events.
pub type Events<'a> = &'a mut dyn FnMut(Event);

/// Send the warnings of a loaded version.
fn warn_unresolved(warnings: &[LoadWarning], events: Events<'_>) {
    for w in warnings {
        events(Event::Unresolved(w.clone()));
    }
}

/// Two versions to compare, each compiled with its own flags, modelled alike.
#[derive(Debug, Clone)]
pub struct VersionPair {
    pub old: VersionSource,
    pub new: VersionSource,
    pub extract: ExtractOptions,
}

/// Both versions loaded, and how they match.
pub struct LoadedPair {
    pub old: LoadedVersion,
    pub new: LoadedVersion,
    pub matching: VersionMatch,
    /// Changed places the model did not see (see `analysis::unseen`).
    pub unseen: Vec<UnseenChange>,
}

/// Changed places of a matched pair that the model did not see.
pub fn unseen(old: &LoadedVersion, new: &LoadedVersion, m: &VersionMatch) -> Vec<UnseenChange> {
    fn view(v: &LoadedVersion) -> VersionView<'_> {
        VersionView {
            facts: &v.facts,
            source_name: v.source_name.as_deref(),
        }
    }
    unseen_changes(&view(old), &view(new), m)
}

/// Load both versions and match them, each step a phase of `budget`;
/// warnings come after both loads, old's first. `omit`: relations the
/// command reads none of (`ExtractOptions::omit`).
fn load_pair(
    pair: &VersionPair,
    omit: &'static [&'static str],
    budget: &Budget,
    events: Events<'_>,
) -> Result<LoadedPair> {
    let (loaded, ()) = load_pair_beside(pair, omit, budget, events, "match versions", |_, _| ())?;
    Ok(loaded)
}

/// [`load_pair`], running `beside` on the loaded versions while they are
/// matched (on another core; `phase` names the two together): work that
/// needs each version but not how they match, such as a diff's rank-1
/// layers, need not wait for the matching.
fn load_pair_beside<T: Send>(
    pair: &VersionPair,
    omit: &'static [&'static str],
    budget: &Budget,
    events: Events<'_>,
    phase: &str,
    beside: impl FnOnce(&LoadedVersion, &LoadedVersion) -> T + Send,
) -> Result<(LoadedPair, T)> {
    budget.phase("load both versions")?;
    let extract = ExtractOptions {
        omit,
        ..pair.extract
    };
    let (old, new) = crate::load::load_both(&pair.old, &pair.new, &extract)?;
    warn_unresolved(&old.warnings, events);
    warn_unresolved(&new.warnings, events);
    budget.phase(phase)?;
    let ((matching, unseen), beside) = crate::parallel::join(
        || {
            let matching = crate::load::match_loaded(&old, &new);
            let unseen = unseen(&old, &new, &matching);
            (matching, unseen)
        },
        || beside(&old, &new),
    );
    budget.end_phase();
    let loaded = LoadedPair {
        old,
        new,
        matching,
        unseen,
    };
    Ok((loaded, beside))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_carry_the_documented_exit_codes() {
        assert_eq!(Answer::Clean.exit_code(), 0);
        assert_eq!(Answer::Found.exit_code(), 1);
        assert_eq!(Answer::Inconclusive.exit_code(), 10);
        assert_eq!(Answer::found_if(true), Answer::Found);
        assert_eq!(Answer::found_if(false), Answer::Clean);
    }

    #[test]
    fn events_print_as_the_lines_stderr_showed() {
        let w = Event::Unresolved(LoadWarning("a.c:3:5: in f: call".into()));
        assert_eq!(w.to_string(), "concord: warning: a.c:3:5: in f: call");
        let plan = Event::SymexPlan {
            changes: 2,
            impacted_statements: 5,
            impacted_instructions: 7,
        };
        assert_eq!(
            plan.to_string(),
            "[symex] 2 changes, 5 impacted statements (7 instructions of NEW)"
        );
        assert!(!w.shown_when_quiet());
        assert!(Event::Store(StoreWarning::FindingNotStored("x".into())).shown_when_quiet());
        assert!(!Event::Store(StoreWarning::Unavailable("x".into())).shown_when_quiet());
    }
}
