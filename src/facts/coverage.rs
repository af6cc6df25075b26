//! The coverage account of one version: what the model left out. Every
//! command that answers about a program prints it (text, JSON, SARIF
//! notifications) and `concord facts` writes it to the fact directory
//! (`coverage.json`), so "no difference" can be told from "not looked at"
//! (design.md, "Coverage"). It is computed from the facts alone: the
//! relations that name each gap (`unresolved_call`, `access_no_target`,
//! `sync_dropped`, ...) and the table of unreached functions.

use super::relations::{
    AccessNoTarget, CallCut, CallbackEscape, ExternalCallback, ForkCall, InlineAsm, JoinUnmatched,
    LibraryMemory, StmtId, SyncDropped, SyncUnmodelled, ThreadBound, ThreadEndCall, UnresolvedCall,
    UnresolvedThreadStart,
};
use super::FactSet;
use serde::Serialize;
use std::collections::BTreeMap;

/// How many sites of a kind an account lists (the count is always whole).
pub const FIRST_SITES: usize = 5;

/// A kind of blind spot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GapKind {
    /// A function defined in the program that no thread reaches.
    UnreachedFunction,
    /// A call through a pointer to which no function is known.
    UnresolvedCall,
    /// A `pthread_create` whose start routine is not known.
    UnresolvedThreadStart,
    /// A load, store or memory call whose address points to nothing known.
    AccessNoTarget,
    /// A lock, unlock, wait or signal whose object may be several objects.
    SyncAmbiguous,
    /// A lock, unlock, wait or signal whose object is not known at all.
    SyncNoTarget,
    /// A call of a synchronisation primitive the facts do not model
    /// (reader-writer lock, semaphore, barrier, timed lock) or a trylock.
    SyncUnmodelled,
    /// A function handed to a library function, assumed called there.
    ExternalCallback,
    /// A `fork()`: the parent is analysed, the child process is not.
    ForkChild,
    /// Inline assembly: its effects are not modelled.
    InlineAsm,
    /// A library call handed possibly shared memory: what it reads or
    /// writes there is not modelled.
    LibraryMemory,
    /// A `pthread_join` matched to no thread: it orders nothing.
    JoinUnmatched,
    /// A `pthread_create` that may run more often than its thread has
    /// instances in the model (`--thread-loop-bound`).
    ThreadBound,
    /// A call not cloned for its call path (`--call-depth`, the statement
    /// budget, recursion).
    CallCut,
    /// A call that ends its thread or the process, or cancels a thread:
    /// the model goes on after it.
    ThreadEnd,
    /// A function handed to a library in memory or as `void *`: the library
    /// may call it back, the model does not.
    CallbackEscape,
}

impl GapKind {
    /// What a site of this kind is, in a reviewer's words (plural).
    pub fn describe(self) -> &'static str {
        match self {
            GapKind::UnreachedFunction => "functions no thread reaches (not analysed)",
            GapKind::UnresolvedCall => "calls through a pointer with no known target",
            GapKind::UnresolvedThreadStart => "thread creations with no known start routine",
            GapKind::AccessNoTarget => "memory accesses whose address points to nothing known",
            GapKind::SyncAmbiguous => {
                "lock/condition calls on one of several objects (left out of critical sections and lock order)"
            }
            GapKind::SyncNoTarget => {
                "lock/condition calls on an unknown object (left out of critical sections and lock order)"
            }
            GapKind::SyncUnmodelled => {
                "calls of synchronisation concord does not model (rwlock, semaphore, barrier, timed lock, trylock): what they order is not seen"
            }
            GapKind::ExternalCallback => {
                "callbacks handed to a library, assumed called (0 or more times) at the handing call"
            }
            GapKind::ForkChild => "fork() calls: the child process is not analysed",
            GapKind::InlineAsm => "inline asm statements: their effects are not modelled",
            GapKind::LibraryMemory => {
                "library calls handed possibly shared memory: what they read or write there is not modelled"
            }
            GapKind::JoinUnmatched => "joins matched to no thread: they order nothing",
            GapKind::ThreadBound => {
                "thread creations that may run more often than the model has instances (--thread-loop-bound)"
            }
            GapKind::CallCut => {
                "calls not cloned for their call path (--call-depth, statement budget: shared instance; recursion: not entered again)"
            }
            GapKind::ThreadEnd => {
                "calls that end a thread or the process, or cancel a thread: the model goes on after them"
            }
            GapKind::CallbackEscape => {
                "library calls handed a function in memory or as void *: it may call it back, the model does not"
            }
        }
    }
}

/// One place of a gap, as a person finds it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct GapSite {
    pub file: String,
    pub line: u32,
    pub function: String,
}

impl std::fmt::Display for GapSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.file.is_empty(), self.function.is_empty()) {
            (true, _) => write!(f, "in {}", self.function),
            (false, true) => write!(f, "{}:{}", self.file, self.line),
            (false, false) => write!(f, "{}:{} in {}", self.file, self.line, self.function),
        }
    }
}

/// All sites of one kind: how many (source places, not thread instances),
/// and the first few in source order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub kind: GapKind,
    pub count: usize,
    pub first: Vec<GapSite>,
}

/// What one version's model left out, kind by kind (kinds with no site are
/// not listed: an empty account means nothing was left out).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CoverageAccount {
    pub gaps: Vec<Gap>,
}

impl CoverageAccount {
    pub fn of(facts: &FactSet) -> CoverageAccount {
        let mut sites: BTreeMap<GapKind, Vec<GapSite>> = BTreeMap::new();
        let stmt_site = |s: StmtId| {
            facts.statement(s.0).map(|st| GapSite {
                file: st.file.clone(),
                line: st.line,
                function: st.function.clone(),
            })
        };
        let mut add_stmts = |kind: GapKind, stmts: &mut dyn Iterator<Item = StmtId>| {
            let found = sites.entry(kind).or_default();
            found.extend(stmts.filter_map(stmt_site));
        };
        add_stmts(
            GapKind::UnresolvedCall,
            &mut facts.iter::<UnresolvedCall>().map(|r| r.s),
        );
        add_stmts(
            GapKind::UnresolvedThreadStart,
            &mut facts.iter::<UnresolvedThreadStart>().map(|r| r.s),
        );
        add_stmts(
            GapKind::AccessNoTarget,
            &mut facts.iter::<AccessNoTarget>().map(|r| r.s),
        );
        add_stmts(
            GapKind::SyncAmbiguous,
            &mut facts
                .iter::<SyncDropped>()
                .filter(|r| r.targets >= 2)
                .map(|r| r.s),
        );
        add_stmts(
            GapKind::SyncNoTarget,
            &mut facts
                .iter::<SyncDropped>()
                .filter(|r| r.targets < 2)
                .map(|r| r.s),
        );
        add_stmts(
            GapKind::SyncUnmodelled,
            &mut facts.iter::<SyncUnmodelled>().map(|r| r.s),
        );
        add_stmts(
            GapKind::ExternalCallback,
            &mut facts.iter::<ExternalCallback>().map(|r| r.s),
        );
        add_stmts(
            GapKind::ForkChild,
            &mut facts.iter::<ForkCall>().map(|r| r.s),
        );
        add_stmts(
            GapKind::InlineAsm,
            &mut facts.iter::<InlineAsm>().map(|r| r.s),
        );
        add_stmts(
            GapKind::LibraryMemory,
            &mut facts.iter::<LibraryMemory>().map(|r| r.s),
        );
        add_stmts(
            GapKind::JoinUnmatched,
            &mut facts.iter::<JoinUnmatched>().map(|r| r.s),
        );
        add_stmts(
            GapKind::ThreadBound,
            &mut facts.iter::<ThreadBound>().map(|r| r.s),
        );
        add_stmts(GapKind::CallCut, &mut facts.iter::<CallCut>().map(|r| r.s));
        add_stmts(
            GapKind::ThreadEnd,
            &mut facts.iter::<ThreadEndCall>().map(|r| r.s),
        );
        add_stmts(
            GapKind::CallbackEscape,
            &mut facts.iter::<CallbackEscape>().map(|r| r.s),
        );
        sites
            .entry(GapKind::UnreachedFunction)
            .or_default()
            .extend(facts.unreached.iter().map(|u| GapSite {
                file: u.file.clone(),
                line: u.lines.first().unwrap_or(0),
                function: u.function.clone(),
            }));
        let gaps = sites
            .into_iter()
            .filter_map(|(kind, mut found)| {
                found.sort();
                found.dedup();
                (!found.is_empty()).then(|| Gap {
                    kind,
                    count: found.len(),
                    first: found.into_iter().take(FIRST_SITES).collect(),
                })
            })
            .collect();
        CoverageAccount { gaps }
    }

    /// Nothing was left out.
    pub fn is_complete(&self) -> bool {
        self.gaps.is_empty()
    }

    /// The account as text lines (none when nothing was left out): per
    /// kind, `coverage (LABEL): N what` and the first places indented.
    pub fn text_lines(&self, label: &str) -> Vec<String> {
        let of = if label.is_empty() {
            String::new()
        } else {
            format!(" ({label})")
        };
        let mut out = Vec::new();
        for g in &self.gaps {
            out.push(format!("coverage{of}: {} {}", g.count, g.kind.describe()));
            let first: Vec<String> = g.first.iter().map(|s| s.to_string()).collect();
            let more = if g.count > g.first.len() {
                format!("; and {} more", g.count - g.first.len())
            } else {
                String::new()
            };
            out.push(format!("    {}{more}", first.join("; ")));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::relations::{AccessNoTarget, SyncDropped};
    use crate::facts::{LineRanges, StatementInfo, UnreachedFunction};

    fn stmt(id: u32, line: u32, function: &str) -> StatementInfo {
        StatementInfo {
            id,
            file: "a.c".into(),
            line,
            col: 1,
            function: function.into(),
            thread: 0,
            kind: "call".into(),
            text: String::new(),
            instr: None,
        }
    }

    #[test]
    fn counts_source_places_not_instances_and_splits_ambiguous_from_unknown() {
        let mut f = FactSet {
            relations: FactSet::empty_relations(),
            ..FactSet::default()
        };
        // two thread instances of one lock call on line 7, one on line 9
        f.statements = vec![
            stmt(0, 7, "w"),
            stmt(1, 7, "w"),
            stmt(2, 9, "w"),
            stmt(3, 4, "m"),
        ];
        for s in [0, 1] {
            f.insert(SyncDropped {
                s: StmtId(s),
                targets: 2,
            });
        }
        f.insert(SyncDropped {
            s: StmtId(2),
            targets: 0,
        });
        f.insert(AccessNoTarget { s: StmtId(3) });
        f.unreached.push(UnreachedFunction {
            function: "handler".into(),
            file: "a.c".into(),
            lines: LineRanges::from_lines([20, 21, 22]),
            fingerprint: "0".into(),
        });
        let a = CoverageAccount::of(&f);
        let count = |k| a.gaps.iter().find(|g| g.kind == k).map(|g| g.count);
        assert_eq!(count(GapKind::SyncAmbiguous), Some(1));
        assert_eq!(count(GapKind::SyncNoTarget), Some(1));
        assert_eq!(count(GapKind::AccessNoTarget), Some(1));
        assert_eq!(count(GapKind::UnreachedFunction), Some(1));
        assert_eq!(count(GapKind::UnresolvedCall), None);
        assert!(!a.is_complete());
        let lines = a.text_lines("");
        let at = lines
            .iter()
            .position(|l| l.contains("1 functions no thread reaches"))
            .expect("the unreached function is counted");
        assert_eq!(lines[at + 1], "    a.c:20 in handler");
        assert!(CoverageAccount::of(&FactSet {
            relations: FactSet::empty_relations(),
            ..FactSet::default()
        })
        .is_complete());
    }

    #[test]
    fn line_ranges_round_trip_through_text() {
        let r = LineRanges::from_lines([3, 4, 5, 9, 11, 12]);
        assert_eq!(String::from(r.clone()), "3-5,9,11-12");
        assert_eq!(
            LineRanges::try_from("3-5,9,11-12".to_string()),
            Ok(r.clone())
        );
        assert!(r.contains(4) && !r.contains(10));
        assert!(LineRanges::try_from("5-3".to_string()).is_err());
        assert!(LineRanges::try_from("x".to_string()).is_err());
    }
}
