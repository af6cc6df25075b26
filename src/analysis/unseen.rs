//! Changes an answer could not see. Comparing two versions, `changes`,
//! `diff` and `impact` may say "nothing" (exit 0) only when the model saw
//! every changed statement and every access and lock it touches
//! (design.md, "Coverage"). This module lists what it did not see, each
//! with a reason; a non-empty list turns a "nothing" answer into
//! "inconclusive" (exit 10).
//!
//! A changed place is unseen when
//! - a touched source line (of the line diff) is code of a function no
//!   thread reaches (without source texts: such a function was added,
//!   removed, or its instructions' fingerprint differs);
//! - a changed statement is an access whose address points to nothing
//!   known, a lock or condition call whose object is dropped (ambiguous or
//!   unknown), a call through a pointer with no known target, a thread
//!   create with no known start routine, inline asm, a library call handed
//!   possibly shared memory, a join matched to no thread, or a library
//!   call handed a function it may call back that the model does not call;
//! - a changed statement is a call of a synchronisation primitive the facts
//!   do not model (reader-writer lock, semaphore, barrier, timed lock,
//!   trylock);
//! - a changed statement is in a function where a lock or condition call
//!   was dropped (whether it runs under that lock is not modelled), or
//!   that calls such an unmodelled primitive (whether it runs before or
//!   after it, inside or outside its section, is not modelled), is a
//!   lock, unlock or wait in a function with a library call handed shared
//!   memory (whether that call runs under the lock changed), or is in
//!   a function handed to a library that way (its calls from there are not
//!   modelled);
//! - a call is cut by the clone budget in one version and cloned in the
//!   other (the budget is spent in the order the thread's calls are
//!   cloned, so a patch that adds or removes statements before a thread
//!   reaches it moves where the budget ends): the code the two versions
//!   model differently there is not compared like for like, and the
//!   coarser version's extra read-from edges can hide a removed one;
//! - a changed statement lies in a shared instance that two or more calls
//!   enter, or is an event or a lock wrapper's call in a function whose
//!   calls reach one (`super::joined`): both versions join program order
//!   and held locks there alike, and the over-approximation of both can
//!   hide what the change did.
//!
//! Gaps that may only over-report (a shared instance one call enters, the
//! code after `exit`, a thread bounded at `--thread-loop-bound` copies)
//! are counted in the coverage account but make no change unseen when
//! both versions have them alike: the changed statement itself is in the
//! model (docs/limitations.md).

use super::joined::JoinedInstances;
use super::Side;
use crate::facts::extract::program::CallCutWhy;
use crate::facts::relations::{
    AccessNoTarget, CallCut, CallbackEscape, CondWait, InlineAsm, JoinUnmatched, LibraryMemory,
    MutexLock, MutexTrylock, MutexUnlock, SyncDropped, SyncUnmodelled, UnresolvedCall,
    UnresolvedThreadStart,
};
use crate::facts::{FactSet, StatementInfo};
use crate::versions::{LinesByFile, VersionMatch};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Why a changed place was not seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnseenWhy {
    /// It is code of a function no thread reaches.
    UnreachedCode,
    /// It accesses memory through an address that points to nothing known.
    AccessNoTarget,
    /// It is a lock or condition call whose object was dropped.
    SyncDropped,
    /// It is a call of a synchronisation primitive the facts do not model.
    SyncUnmodelled,
    /// It is a call through a pointer with no known target.
    UnresolvedCall,
    /// It is a thread create whose start routine is not known.
    UnresolvedThreadStart,
    /// It is inline assembly, whose effects are not modelled.
    InlineAsm,
    /// It is a library call handed possibly shared memory, which it may
    /// read or write unseen.
    LibraryMemory,
    /// It is a join matched to no thread: it orders nothing.
    JoinUnmatched,
    /// It is a library call handed a function (in memory, as `void *`)
    /// that the library may call back and the model does not.
    CallbackEscape,
    /// Its function has a lock or condition call that was dropped.
    NearDroppedLock,
    /// Its function calls a synchronisation primitive the facts do not
    /// model.
    NearUnmodelledSync,
    /// It is a lock, unlock or wait in a function whose library calls are
    /// handed shared memory: whether those run under the lock changed
    /// unseen.
    NearLibraryMemory,
    /// Its function is handed to a library that may call it back, at a
    /// call the model does not call it from.
    InEscapedCallback,
    /// The clone budget cuts its thread at this call in one version only:
    /// the code past it is modelled differently in the two versions.
    CloneBudgetMoved,
    /// It lies in a shared instance of its function that two or more
    /// calls enter (past `--call-depth` or the clone budget): its program
    /// order and held locks are those of all its callers joined.
    InJoinedInstance,
    /// It is an event, or a lock call or a call of a lock wrapper, in a
    /// function whose calls reach such a joined instance: its order and
    /// held locks around those calls are joined too.
    NearJoinedInstance,
}

impl UnseenWhy {
    pub fn describe(self) -> &'static str {
        match self {
            UnseenWhy::UnreachedCode => "in a function no thread reaches",
            UnseenWhy::AccessNoTarget => "its address points to nothing known",
            UnseenWhy::SyncDropped => "its lock/condition object is ambiguous or unknown",
            UnseenWhy::SyncUnmodelled => {
                "a synchronisation call concord does not model (rwlock, semaphore, barrier, timed lock, trylock)"
            }
            UnseenWhy::UnresolvedCall => "a call through a pointer with no known target",
            UnseenWhy::UnresolvedThreadStart => "a thread creation with no known start routine",
            UnseenWhy::InlineAsm => "inline asm, whose effects are not modelled",
            UnseenWhy::LibraryMemory => {
                "a library call handed possibly shared memory: what it reads or writes there is not modelled"
            }
            UnseenWhy::JoinUnmatched => "a join matched to no thread: it orders nothing",
            UnseenWhy::CallbackEscape => {
                "hands a function to a library (in memory or as void *) that may call it back: not modelled"
            }
            UnseenWhy::NearDroppedLock => {
                "its function takes a lock whose object is ambiguous or unknown"
            }
            UnseenWhy::NearUnmodelledSync => {
                "its function calls synchronisation concord does not model (rwlock, semaphore, barrier, timed lock, trylock)"
            }
            UnseenWhy::NearLibraryMemory => {
                "a lock call in a function whose library calls touch shared memory the model does not see"
            }
            UnseenWhy::InEscapedCallback => {
                "its function is handed to a library that may call it back where the model does not"
            }
            UnseenWhy::CloneBudgetMoved => {
                "the clone budget cuts its thread at this call in one version only: the code past it is modelled differently (raise --clone-budget)"
            }
            UnseenWhy::InJoinedInstance => {
                "in a shared instance that several calls enter: its order and held locks are joined (raise --call-depth or --clone-budget)"
            }
            UnseenWhy::NearJoinedInstance => {
                "its function calls a shared instance that several calls enter: the order and held locks around those calls are joined (raise --call-depth or --clone-budget)"
            }
        }
    }
}

/// One changed place the answer could not see.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct UnseenChange {
    pub side: Side,
    pub file: String,
    pub line: u32,
    pub function: String,
    pub why: UnseenWhy,
}

impl UnseenChange {
    /// The place of statement `s` of one side.
    fn at(s: &StatementInfo, side: Side, why: UnseenWhy) -> UnseenChange {
        UnseenChange {
            side,
            file: s.file.clone(),
            line: s.line,
            function: s.function.clone(),
            why,
        }
    }
}

impl std::fmt::Display for UnseenChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = self.side.as_str();
        write!(
            f,
            "{}:{} ({side}, in {}): {}",
            self.file,
            self.line,
            self.function,
            self.why.describe()
        )
    }
}

/// One version, as this check reads it.
pub struct VersionView<'a> {
    pub facts: &'a FactSet,
    /// The name a single file's statements carry for the compared source
    /// (`None`: every name is taken for it).
    pub source_name: Option<&'a str>,
}

/// Every changed place of the pair the model did not see, in order.
pub fn unseen_changes(
    old: &VersionView<'_>,
    new: &VersionView<'_>,
    matching: &VersionMatch,
) -> Vec<UnseenChange> {
    let mut out: BTreeSet<UnseenChange> = BTreeSet::new();
    match &matching.touched {
        Some(t) => {
            out.extend(touched_unreached(old, &t.old, Side::Old));
            out.extend(touched_unreached(new, &t.new, Side::New));
        }
        None => out.extend(differing_unreached(old.facts, new.facts)),
    }
    out.extend(changed_statements(
        old.facts,
        &matching.changed_old(),
        Side::Old,
    ));
    out.extend(changed_statements(
        new.facts,
        &matching.changed_new(),
        Side::New,
    ));
    out.extend(clone_budget_moved(old.facts, new.facts, &matching.map));
    // one place per line: the most specific reason (the order of `UnseenWhy`)
    let mut seen = BTreeSet::new();
    out.into_iter()
        .filter(|u| seen.insert((u.side, u.file.clone(), u.line, u.function.clone())))
        .collect()
}

/// Touched lines that are code of an unreached function: one place per
/// function (its first touched line).
fn touched_unreached(v: &VersionView<'_>, touched: &LinesByFile, side: Side) -> Vec<UnseenChange> {
    let lines_of = |file: &str| -> Option<&BTreeSet<u32>> {
        touched.iter().find_map(|(name, lines)| {
            let same = match name {
                Some(n) => n == file || file.ends_with(&format!("/{n}")),
                None => v.source_name.map_or(true, |s| s == file),
            };
            same.then_some(lines)
        })
    };
    v.facts
        .unreached
        .iter()
        .filter_map(|u| {
            let touched = lines_of(&u.file)?;
            let first = u.lines.lines().find(|l| touched.contains(l))?;
            Some(UnseenChange {
                side,
                file: u.file.clone(),
                line: first,
                function: u.function.clone(),
                why: UnseenWhy::UnreachedCode,
            })
        })
        .collect()
}

/// Without source texts: unreached functions that one side has and the
/// other lacks, or whose fingerprints differ.
fn differing_unreached(old: &FactSet, new: &FactSet) -> Vec<UnseenChange> {
    let prints = |f: &FactSet| -> BTreeMap<String, String> {
        f.unreached
            .iter()
            .map(|u| (u.function.clone(), u.fingerprint.clone()))
            .collect()
    };
    let (po, pn) = (prints(old), prints(new));
    let mut out = Vec::new();
    for (facts, side, other) in [(old, Side::Old, &pn), (new, Side::New, &po)] {
        for u in &facts.unreached {
            if other.get(&u.function) != Some(&u.fingerprint) {
                out.push(UnseenChange {
                    side,
                    file: u.file.clone(),
                    line: u.lines.first().unwrap_or(0),
                    function: u.function.clone(),
                    why: UnseenWhy::UnreachedCode,
                });
            }
        }
    }
    out
}

/// Calls the clone budget cut in one version whose counterpart the other
/// version cloned for its call path. The budget is a count of a thread's
/// statements, spent in the order its calls are cloned, so a patch that
/// adds statements before the budget runs out moves where it does: the
/// calls in between link to a shared instance in one version (their paths
/// joined, program order there lost) and are cloned in the other. The
/// read-from edges there then differ with the model, not with the program
/// (a shifted budget made the 20 and 50 KLoC synthetic pairs report six
/// such differences; `--clone-budget 400000` none), and the coarser side
/// can hide a real one. A call without counterpart is the patch's own.
fn clone_budget_moved(old: &FactSet, new: &FactSet, map: &BTreeMap<u32, u32>) -> Vec<UnseenChange> {
    let budget_cuts = |f: &FactSet| -> BTreeSet<u32> {
        f.iter::<CallCut>()
            .filter(|r| r.why == CallCutWhy::CloneBudget as u32)
            .map(|r| r.s.0)
            .collect()
    };
    let (cut_old, cut_new) = (budget_cuts(old), budget_cuts(new));
    if cut_old.is_empty() && cut_new.is_empty() {
        return Vec::new();
    }
    let place = |facts: &FactSet, id: u32, side| {
        facts
            .statement(id)
            .map(|s| UnseenChange::at(s, side, UnseenWhy::CloneBudgetMoved))
    };
    let mut out = Vec::new();
    for (&o, &n) in map {
        match (cut_old.contains(&o), cut_new.contains(&n)) {
            (true, false) => out.extend(place(old, o, Side::Old)),
            (false, true) => out.extend(place(new, n, Side::New)),
            _ => {}
        }
    }
    out
}

/// Changed statements that are, or sit beside, something the model dropped.
fn changed_statements(facts: &FactSet, changed: &BTreeSet<u32>, side: Side) -> Vec<UnseenChange> {
    if changed.is_empty() {
        return Vec::new();
    }
    let no_target: BTreeSet<u32> = facts.iter::<AccessNoTarget>().map(|r| r.s.0).collect();
    let dropped: BTreeSet<u32> = facts.iter::<SyncDropped>().map(|r| r.s.0).collect();
    let unmodelled: BTreeSet<u32> = facts.iter::<SyncUnmodelled>().map(|r| r.s.0).collect();
    let unresolved: BTreeSet<u32> = facts.iter::<UnresolvedCall>().map(|r| r.s.0).collect();
    let no_start: BTreeSet<u32> = facts
        .iter::<UnresolvedThreadStart>()
        .map(|r| r.s.0)
        .collect();
    let asm: BTreeSet<u32> = facts.iter::<InlineAsm>().map(|r| r.s.0).collect();
    let library: BTreeSet<u32> = facts.iter::<LibraryMemory>().map(|r| r.s.0).collect();
    let unmatched: BTreeSet<u32> = facts.iter::<JoinUnmatched>().map(|r| r.s.0).collect();
    let escapes: BTreeSet<u32> = facts.iter::<CallbackEscape>().map(|r| r.s.0).collect();
    let functions_of = |stmts: &mut dyn Iterator<Item = u32>| -> BTreeSet<String> {
        stmts
            .filter_map(|s| facts.statement(s))
            .map(|s| s.function.clone())
            .collect()
    };
    let dropped_in = functions_of(&mut dropped.iter().copied());
    let unmodelled_in = functions_of(&mut unmodelled.iter().copied());
    let library_in = functions_of(&mut library.iter().copied());
    let locking: BTreeSet<u32> = facts
        .iter::<MutexLock>()
        .map(|r| r.s.0)
        .chain(facts.iter::<MutexUnlock>().map(|r| r.s.0))
        .chain(facts.iter::<MutexTrylock>().map(|r| r.s.0))
        .chain(facts.iter::<CondWait>().map(|r| r.s.0))
        .collect();
    // the functions a library may call back: `e` names one of their
    // statements (`e == s`: no thread reaches the function)
    let escaped = functions_of(
        &mut facts
            .iter::<CallbackEscape>()
            .filter(|r| r.e != r.s)
            .map(|r| r.e.0),
    );
    let joined = JoinedInstances::of(facts, &locking);
    let mut out = Vec::new();
    for s in changed.iter().filter_map(|&id| facts.statement(id)) {
        let id = s.id;
        let why = if no_target.contains(&id) {
            Some(UnseenWhy::AccessNoTarget)
        } else if dropped.contains(&id) {
            Some(UnseenWhy::SyncDropped)
        } else if unmodelled.contains(&id) {
            Some(UnseenWhy::SyncUnmodelled)
        } else if unresolved.contains(&id) {
            Some(UnseenWhy::UnresolvedCall)
        } else if no_start.contains(&id) {
            Some(UnseenWhy::UnresolvedThreadStart)
        } else if asm.contains(&id) {
            Some(UnseenWhy::InlineAsm)
        } else if library.contains(&id) {
            Some(UnseenWhy::LibraryMemory)
        } else if unmatched.contains(&id) {
            Some(UnseenWhy::JoinUnmatched)
        } else if escapes.contains(&id) {
            Some(UnseenWhy::CallbackEscape)
        } else if dropped_in.contains(&s.function) {
            Some(UnseenWhy::NearDroppedLock)
        } else if unmodelled_in.contains(&s.function) {
            Some(UnseenWhy::NearUnmodelledSync)
        } else if locking.contains(&id) && library_in.contains(&s.function) {
            Some(UnseenWhy::NearLibraryMemory)
        } else if escaped.contains(&s.function) {
            Some(UnseenWhy::InEscapedCallback)
        } else if joined.as_ref().is_some_and(|j| j.in_joined(id)) {
            Some(UnseenWhy::InJoinedInstance)
        } else if joined.as_ref().is_some_and(|j| j.near_joined(id, &locking)) {
            Some(UnseenWhy::NearJoinedInstance)
        } else {
            None
        };
        out.extend(why.map(|w| UnseenChange::at(s, side, w)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{LineRanges, UnreachedFunction};
    use crate::versions::MatchMethod;

    fn with_unreached(fingerprint: &str) -> FactSet {
        FactSet {
            relations: FactSet::empty_relations(),
            unreached: vec![UnreachedFunction {
                function: "on_reload".into(),
                file: "a.c".into(),
                lines: LineRanges::from_lines([9, 10, 11]),
                fingerprint: fingerprint.into(),
            }],
            ..FactSet::default()
        }
    }

    fn ir_only() -> VersionMatch {
        VersionMatch {
            changes: Vec::new(),
            map: Default::default(),
            line_map: Default::default(),
            method: MatchMethod::IrOnly,
            touched: None,
        }
    }

    fn view(f: &FactSet) -> VersionView<'_> {
        VersionView {
            facts: f,
            source_name: None,
        }
    }

    #[test]
    fn without_source_text_an_unreached_function_is_compared_by_fingerprint() {
        let (a, b, c) = (
            with_unreached("1"),
            with_unreached("1"),
            with_unreached("2"),
        );
        assert!(unseen_changes(&view(&a), &view(&b), &ir_only()).is_empty());
        let u = unseen_changes(&view(&a), &view(&c), &ir_only());
        // one place per side, at the function's first line
        assert_eq!(u.len(), 2, "{u:?}");
        assert!(u
            .iter()
            .all(|x| x.why == UnseenWhy::UnreachedCode && x.line == 9));
        // a function only one version has is a change too
        let none = FactSet {
            relations: FactSet::empty_relations(),
            ..FactSet::default()
        };
        let u = unseen_changes(&view(&none), &view(&a), &ir_only());
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].side, Side::New);
    }

    #[test]
    fn with_source_text_only_touched_lines_of_unreached_code_count() {
        let (a, b) = (with_unreached("1"), with_unreached("2"));
        let mut m = ir_only();
        let touched = |lines: &[u32]| {
            crate::versions::LinesByFile::from([(None, lines.iter().copied().collect())])
        };
        // a touched line outside the function: the fingerprints differ, but
        // the lines say the function's own code did not change
        m.touched = Some(crate::versions::TouchedLines {
            old: touched(&[3]),
            new: touched(&[3]),
        });
        assert!(unseen_changes(&view(&a), &view(&b), &m).is_empty());
        m.touched = Some(crate::versions::TouchedLines {
            old: touched(&[10]),
            new: touched(&[]),
        });
        let u = unseen_changes(&view(&a), &view(&b), &m);
        assert_eq!(u.len(), 1);
        assert_eq!((u[0].side, u[0].line), (Side::Old, 10));
    }
}
