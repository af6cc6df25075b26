//! A synchronisation difference in words: which thread may read which
//! write in which version, what the patch changed in the locking around
//! those accesses, and a witness interleaving (the differing read-from
//! edges in their order).  Reads facts only; decides nothing.

use crate::analysis::diff::{Difference, Side};
use crate::facts::relations::InCriticalSection;
use crate::facts::FactSet;
use crate::load::LoadedVersion;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One step of a witness interleaving.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WitnessStep {
    /// Statement id of the version the difference is in.
    pub statement: u32,
    pub thread: u32,
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// `t2 (thread2) writes x at v1.c:15`
    pub text: String,
}

/// A difference explained.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Explanation {
    /// Who may read what, in which version and not the other.
    pub summary: String,
    /// What the patch changed around those accesses, when the locks tell.
    pub because: Option<String>,
    /// The version the witness runs in (`old` or `new`).
    pub witness_version: &'static str,
    pub witness: Vec<WitnessStep>,
}

/// Both versions and the statement map between them.
pub struct Versions<'a> {
    pub old: &'a LoadedVersion,
    pub new: &'a LoadedVersion,
    /// Δmap: old statement -> its counterpart in new.
    pub map: &'a BTreeMap<u32, u32>,
    /// The same map inverted: new statement -> old.
    pub inverse: &'a HashMap<u32, u32>,
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Old => "old",
        Side::New => "new",
    }
}

fn other(side: Side) -> Side {
    match side {
        Side::Old => Side::New,
        Side::New => Side::Old,
    }
}

impl Versions<'_> {
    fn version(&self, side: Side) -> &LoadedVersion {
        match side {
            Side::Old => self.old,
            Side::New => self.new,
        }
    }

    /// The counterpart of `id` (a statement of `side`) in the other version.
    fn counterpart(&self, side: Side, id: u32) -> Option<u32> {
        match side {
            Side::Old => self.map.get(&id).copied(),
            Side::New => self.inverse.get(&id).copied(),
        }
    }
}

fn short_place(f: &FactSet, id: u32) -> String {
    f.statement(id)
        .map(|s| {
            let file = std::path::Path::new(&s.file)
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().to_string());
            format!("{file}:{}", s.line)
        })
        .unwrap_or_else(|| format!("statement {id}"))
}

fn thread_name(f: &FactSet, id: u32) -> String {
    let Some(t) = f.statement(id).map(|s| s.thread) else {
        return "a thread".into();
    };
    match f.threads.iter().find(|th| th.id == t) {
        Some(th) if !th.function.is_empty() => format!("t{t} ({})", th.function),
        _ => format!("t{t}"),
    }
}

/// Names of the mutexes whose critical sections contain `id` (as
/// `locations.tsv` names them: comparable across versions).
fn locks_at(f: &FactSet, id: u32) -> BTreeSet<String> {
    f.iter_starting::<InCriticalSection>(id)
        .filter_map(|r| f.location(r.m.0).map(|l| l.name.clone()))
        .collect()
}

/// Locks around both ends of an edge.
fn common_locks(f: &FactSet, w: u32, r: u32) -> BTreeSet<String> {
    locks_at(f, w)
        .intersection(&locks_at(f, r))
        .cloned()
        .collect()
}

/// What the patch changed in the locks around the accesses of `d`'s
/// edges: locks around both ends in the version without the behaviour
/// and not in the version with it.
fn because(v: &Versions<'_>, d: &Difference) -> Option<String> {
    let mine = v.version(d.only_in);
    let theirs_side = other(d.only_in);
    let theirs = v.version(theirs_side);
    let mut extra: BTreeSet<String> = BTreeSet::new();
    let mut where_: Vec<String> = Vec::new();
    for &(w, r) in &d.edges {
        let (Some(w2), Some(r2)) = (v.counterpart(d.only_in, w), v.counterpart(d.only_in, r))
        else {
            return Some(format!(
                "the patch changed the statements of this edge ({} or {} has no counterpart in {})",
                short_place(&mine.facts, w),
                short_place(&mine.facts, r),
                side_name(theirs_side)
            ));
        };
        let here = common_locks(&mine.facts, w, r);
        let there = common_locks(&theirs.facts, w2, r2);
        let new_locks: Vec<String> = there.difference(&here).cloned().collect();
        if !new_locks.is_empty() {
            where_.push(format!(
                "{} and {}",
                short_place(&theirs.facts, w2),
                short_place(&theirs.facts, r2)
            ));
        }
        // Shown as people read them (C field names, allocation sites).
        extra.extend(new_locks.iter().map(|l| theirs.facts.display_of(l)));
    }
    if extra.is_empty() {
        return None;
    }
    let locks = extra.into_iter().collect::<Vec<_>>().join(", ");
    let verb = match d.only_in {
        Side::Old => "added",
        Side::New => "removed",
    };
    Some(format!(
        "the patch {verb} lock {locks} around these accesses: in {} the write and the read ({}) are both inside critical sections of {locks}, in {} they are not",
        side_name(theirs_side),
        where_.join("; "),
        side_name(d.only_in),
    ))
}

/// The explanation of one difference.
pub fn explain(
    v: &Versions<'_>,
    d: &Difference,
    variable: impl Fn(u32, u32) -> String,
) -> Explanation {
    let mine = v.version(d.only_in);
    let f = &mine.facts;
    let (this, that) = (side_name(d.only_in), side_name(other(d.only_in)));
    let mut witness = Vec::new();
    for &(w, r) in &d.edges {
        let var = variable(w, r);
        let var = if var.is_empty() { "memory".into() } else { var };
        let write_step = witness.len() + 1;
        for (id, text) in [
            (
                w,
                format!(
                    "{} writes {var} at {}",
                    thread_name(f, w),
                    short_place(f, w)
                ),
            ),
            (
                r,
                format!(
                    "{} reads {var} at {} and sees the write of step {write_step}",
                    thread_name(f, r),
                    short_place(f, r)
                ),
            ),
        ] {
            let s = f.statement(id);
            witness.push(WitnessStep {
                statement: id,
                thread: s.map_or(0, |s| s.thread),
                file: s.map_or_else(String::new, |s| s.file.clone()),
                line: s.map_or(0, |s| s.line),
                col: s.map_or(0, |s| s.col),
                text,
            });
        }
    }
    let (w0, r0) = d.edges[0];
    let var = variable(w0, r0);
    let summary = if d.edges.len() == 1 {
        format!(
            "in {this}, {} may read {} at {} the value {} writes at {}; in {that} it cannot",
            thread_name(f, r0),
            if var.is_empty() { "memory" } else { &var },
            short_place(f, r0),
            thread_name(f, w0),
            short_place(f, w0),
        )
    } else {
        format!(
            "in {this}, these {} reads may see these writes one after the other (the witness below); in {that} not all of them together",
            d.edges.len()
        )
    };
    Explanation {
        summary,
        because: because(v, d),
        witness_version: this,
        witness,
    }
}
