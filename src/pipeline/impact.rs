//! `concord impact`: forward and backward change-impact sets of a patch,
//! or of given lines, and the dependence chain that explains one line.

use super::{warn_unresolved, Answer, Events};
use crate::analysis::impact::{self, Direction, ImpactResult, Step};
use crate::analysis::unseen::UnseenChange;
use crate::analysis::Engine;
use crate::budget::Budget;
use crate::error::{ConcordError, Result};
use crate::facts::extract::ExtractOptions;
use crate::load::{LoadedVersion, VersionSource};
use crate::report::coverage::Blindness;
use std::collections::BTreeSet;

/// A line of the new version: `file:line`, or a line of any file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    pub file: Option<String>,
    pub line: u32,
}

impl SourceLine {
    fn matches(&self, s: &crate::facts::StatementInfo) -> bool {
        s.line == self.line
            && self
                .file
                .as_deref()
                .map_or(true, |f| impact::file_matches(&s.file, f))
    }
}

/// What to analyse and what to report.
#[derive(Debug, Clone)]
pub struct ImpactRequest {
    /// The old version; `None`: the `changed` lines of `new` are the changes.
    pub old: Option<VersionSource>,
    pub new: VersionSource,
    pub extract: ExtractOptions,
    /// Lines of the new version taken as the changes instead of comparing
    /// versions (required without `old`).
    pub changed: Vec<SourceLine>,
    /// Explain how the changes reach this line of the new version.
    pub explain: Option<SourceLine>,
    /// Which impacted sets count (and are reported).
    pub directions: Vec<Direction>,
    pub engine: Engine,
}

/// The chains that explain one line, one per direction asked for.
pub struct Explained {
    /// The line as the report names it (`file:line` or `line N`).
    pub target: String,
    pub chains: Vec<(Direction, Option<Vec<Step>>)>,
}

/// The loaded versions and the impacted sets.
pub struct ImpactOutcome {
    /// The old version as loaded (also when lines were given).
    pub old: Option<LoadedVersion>,
    pub new: LoadedVersion,
    pub result: ImpactResult,
    pub directions: Vec<Direction>,
    /// The changes were given lines, not a comparison.
    pub given: bool,
    /// With `explain`: the chains found.
    pub explained: Option<Explained>,
    /// Changed places the model did not see (two versions only).
    pub unseen: Vec<UnseenChange>,
}

impl ImpactOutcome {
    /// The old version the reports show: none when lines were given.
    pub fn old_view(&self) -> Option<&LoadedVersion> {
        self.old.as_ref().filter(|_| !self.given)
    }

    /// Found: a chain explains the line (with `explain`), else some
    /// statement is impacted in a direction asked for.
    pub fn answer(&self) -> Answer {
        if let Some(e) = &self.explained {
            return Answer::found_if(e.chains.iter().any(|(_, c)| c.is_some()));
        }
        let found = self.directions.iter().any(|d| match d {
            Direction::Fwd => !self.result.fwd.is_empty() || !self.result.fwd_old.is_empty(),
            Direction::Bwd => !self.result.bwd.is_empty() || !self.result.bwd_old.is_empty(),
        });
        Answer::found_unless_unseen(found, !self.unseen.is_empty())
    }

    /// What this answer did not see: both accounts and the unseen changes
    /// when two versions were compared, else the one program's account.
    pub fn blindness(&self) -> Blindness<'_> {
        match self.old_view() {
            Some(old) => Blindness::of_pair(old, &self.new, &self.unseen),
            None => Blindness::of_one(&self.new),
        }
    }
}

/// Load, match and analyse, each step a phase of `budget`. A given or
/// explained line without statements is a usage error (exit 2).
pub fn impact(req: &ImpactRequest, budget: &Budget, events: Events<'_>) -> Result<ImpactOutcome> {
    budget.phase("load")?;
    let (old, new) = match &req.old {
        Some(old) => {
            let (o, n) = crate::load::load_both(old, &req.new, &req.extract)?;
            warn_unresolved(&o.warnings, events);
            warn_unresolved(&n.warnings, events);
            (Some(o), n)
        }
        None => {
            if req.changed.is_empty() {
                return Err(ConcordError::Usage(
                    "give two versions (OLD NEW), or one program and --changed FILE:LINE,..."
                        .into(),
                ));
            }
            let n = crate::load::load_version(&req.new.path, &req.new.compile, &req.extract)?;
            warn_unresolved(&n.warnings, events);
            (None, n)
        }
    };
    if let Some(l) = req
        .changed
        .iter()
        .find(|l| !new.facts.statements.iter().any(|s| l.matches(s)))
    {
        let at = l.file.as_deref().map_or(String::new(), |f| format!("{f}:"));
        return Err(ConcordError::Usage(format!(
            "--changed {at}{}: no statement of {} is on that line",
            l.line, new.label
        )));
    }
    let given = !req.changed.is_empty();
    let mut unseen = Vec::new();
    budget.phase("match versions")?;
    let (groups, map) = if given {
        let lines: Vec<(Option<String>, u32)> = req
            .changed
            .iter()
            .map(|l| (l.file.clone(), l.line))
            .collect();
        (impact::given_groups(&new.facts, &lines), Default::default())
    } else {
        let old = old.as_ref().expect("two versions");
        let m = crate::load::match_loaded(old, &new);
        unseen = super::unseen(old, &new, &m);
        (impact::change_groups(&m, &old.facts, &new.facts), m.map)
    };
    let old_facts = old.as_ref().filter(|_| !given).map(|o| &o.facts);
    budget.phase("impact rules")?;
    let result = impact::analyse(req.engine, groups, old_facts, &new.facts, &map);
    budget.phase("report")?;
    let explained = match &req.explain {
        None => None,
        Some(line) => {
            let target = match &line.file {
                Some(f) => format!("{f}:{}", line.line),
                None => format!("line {}", line.line),
            };
            let targets: BTreeSet<u32> = new
                .facts
                .statements
                .iter()
                .filter(|s| line.matches(s))
                .map(|s| s.id)
                .collect();
            if targets.is_empty() {
                return Err(ConcordError::Usage(format!(
                    "no statement of {} is on {target}",
                    new.label
                )));
            }
            let chains = req
                .directions
                .iter()
                .map(|&d| (d, impact::explain(&result, d, &targets)))
                .collect();
            Some(Explained { target, chains })
        }
    };
    Ok(ImpactOutcome {
        old,
        new,
        result,
        directions: req.directions.clone(),
        given,
        explained,
        unseen,
    })
}
