//! Directed incremental symbolic execution (DiSE, `symex OLD NEW
//! --directed`).
//!
//! DiSE explores the paths of NEW through impacted statements and
//! characterises the change by the *impacted path conditions*: the
//! decisions a path takes at impacted branches.  Here:
//!
//! * the recorded branches of NEW are its impacted conditional branches
//!   (IS_fwd ∪ IS_bwd as instructions); they are explored on every
//!   feasible side (never skipped as Type B), and each path keeps its
//!   decisions there (branch statement, successor index, thread);
//! * the exploration order is DiSE's greedy one (untaken directions of
//!   recorded branches first, then the side or thread with the fewest CFG
//!   edges to impacted code); only the order changes, so the violations
//!   are those of the undirected run;
//! * OLD is explored with the recorded branches of OLD that are *matched*
//!   (unchanged under Δmap) to recorded branches of NEW, and its paths'
//!   decisions are mapped to NEW's statements;
//! * an impacted path condition of NEW (its decisions per thread) is
//!   **new** when it has a decision at a branch without an unchanged
//!   counterpart in OLD (added or modified), or when no explored path of
//!   OLD took the same decisions (a path of OLD ended by summary pruning
//!   covers every continuation of its decisions).  Interleavings that take
//!   the same decisions are one path condition.

use super::incremental::{self, Plan, VersionInput};
use super::slice::InstrId;
use super::store::Store;
use super::{Exploration, SymexError, SymexOptions};
// The engine defines what it records; they are part of this mode's API.
pub use super::engine::{Decision, DecisionPath, DirectedSpec, PathEnd};
use llvm_ir::{HasDebugLoc, Module};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// A decision as reported: where, which way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DecisionText {
    pub thread: usize,
    pub location: String,
    /// `true`/`false` for a two-way branch, `case k` otherwise.
    pub taken: String,
    /// The branch has an unchanged counterpart in OLD.
    pub matched: bool,
}

/// One impacted path condition of NEW.
#[derive(Clone, Debug, Serialize)]
pub struct ImpactedCondition {
    pub decisions: Vec<DecisionText>,
    /// Not among OLD's explored path conditions over matched statements.
    pub new: bool,
    /// Only a prefix was explored (the rest was pruned by a summary).
    pub partial: bool,
    /// Paths of NEW with these decisions, and the first one's rank in the
    /// exploration order.
    pub paths: u64,
    pub first_path: u64,
    /// Violations at the end of these paths.
    pub violations: Vec<String>,
}

/// `directed.json`: NEW's impacted path conditions against OLD's.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DirectedReport {
    pub recorded_branches_new: usize,
    pub recorded_branches_old: usize,
    pub old_paths: usize,
    pub new_paths: usize,
    pub conditions: Vec<ImpactedCondition>,
    /// How many of `conditions` are new.
    pub new_conditions: usize,
}

/// Conditional branches among `ids` (terminators with two or more
/// distinct successors).
fn branches(m: &Module, ids: impl IntoIterator<Item = InstrId>) -> BTreeSet<InstrId> {
    ids.into_iter()
        .filter(|id| {
            let f = &m.functions[id.0];
            let b = &f.basic_blocks[id.1];
            if id.2 != b.instrs.len() {
                return false;
            }
            let mut s = super::slice::block_successors(f, &b.term);
            s.sort_unstable();
            s.dedup();
            s.len() > 1
        })
        .collect()
}

/// Per version: the decisions' statements in NEW's numbering.
struct Sides {
    /// NEW instruction → NEW statement.
    new_stmt: HashMap<InstrId, u32>,
    /// OLD instruction → NEW statement (through the unchanged part of Δmap).
    old_stmt: HashMap<InstrId, u32>,
    /// NEW statements with an unchanged counterpart in OLD.
    matched: BTreeSet<u32>,
}

/// The specs of NEW and OLD for `plan`.
pub fn specs(
    plan: &Plan,
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
) -> (DirectedSpec, DirectedSpec) {
    let sides = sides(plan, old, new);
    let rec_new = branches(new.module, plan.impacted.iter().copied());
    let rec_stmts: BTreeSet<u32> = rec_new
        .iter()
        .filter_map(|i| sides.new_stmt.get(i).copied())
        .collect();
    let rec_old = branches(
        old.module,
        sides
            .old_stmt
            .iter()
            .filter(|(_, s)| rec_stmts.contains(s))
            .map(|(i, _)| *i),
    );
    let new_spec = DirectedSpec {
        record: rec_new,
        targets: plan.impacted.clone(),
    };
    let old_spec = DirectedSpec {
        targets: rec_old.clone(),
        record: rec_old,
    };
    (new_spec, old_spec)
}

fn sides(plan: &Plan, old: &VersionInput<'_>, new: &VersionInput<'_>) -> Sides {
    let unchanged = plan.matching.unchanged();
    let new_stmt = incremental::statement_of_instrs(new.module, new.facts);
    let old_stmt = incremental::statement_of_instrs(old.module, old.facts)
        .into_iter()
        .filter_map(|(i, s)| unchanged.get(&s).map(|n| (i, *n)))
        .collect();
    Sides {
        new_stmt,
        old_stmt,
        matched: unchanged.values().copied().collect(),
    }
}

/// A path's decisions per thread, in NEW's statements; `None` for a
/// statement without an unchanged counterpart (never equal to OLD's).
type Key = BTreeMap<usize, Vec<(Option<u32>, usize)>>;

fn key_of(p: &DecisionPath, stmt: &dyn Fn(InstrId) -> Option<u32>) -> Key {
    let mut k: Key = BTreeMap::new();
    for d in &p.decisions {
        k.entry(d.thread).or_default().push((stmt(d.at), d.dir));
    }
    k
}

/// Does OLD's path `o` (complete, or a pruned prefix) take the decisions
/// of NEW's `n` (itself possibly a pruned prefix)?
fn covers(o: &Key, o_prefix: bool, n: &Key, n_prefix: bool) -> bool {
    let threads: BTreeSet<&usize> = o.keys().chain(n.keys()).collect();
    threads.into_iter().all(|t| {
        let (a, b) = (
            o.get(t).map(Vec::as_slice).unwrap_or(&[]),
            n.get(t).map(Vec::as_slice).unwrap_or(&[]),
        );
        a == b || (o_prefix && b.starts_with(a)) || (n_prefix && a.starts_with(b))
    })
}

fn location(m: &Module, id: InstrId) -> String {
    let f = &m.functions[id.0];
    let b = &f.basic_blocks[id.1];
    let dl = if id.2 < b.instrs.len() {
        b.instrs[id.2].get_debug_loc().clone()
    } else {
        b.term.get_debug_loc().clone()
    };
    let (l, line) = super::engine::loc_of(&dl);
    if line == 0 {
        format!("{}:{}", f.name, id.1)
    } else {
        l
    }
}

fn taken(m: &Module, id: InstrId, dir: usize) -> String {
    let b = &m.functions[id.0].basic_blocks[id.1];
    match (&b.term, dir) {
        (llvm_ir::Terminator::CondBr(_), 0) => "true".into(),
        (llvm_ir::Terminator::CondBr(_), 1) => "false".into(),
        (llvm_ir::Terminator::Switch(_), 0) => "default".into(),
        (_, k) => format!("case {k}"),
    }
}

/// Compare NEW's recorded paths with OLD's.
pub fn compare(
    plan: &Plan,
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
    specs: (&DirectedSpec, &DirectedSpec),
    old_x: &Exploration,
    new_x: &Exploration,
) -> DirectedReport {
    let sides = sides(plan, old, new);
    let new_key = |i: InstrId| {
        sides
            .new_stmt
            .get(&i)
            .copied()
            .filter(|s| sides.matched.contains(s))
    };
    let old_key = |i: InstrId| sides.old_stmt.get(&i).copied();
    let olds: Vec<(Key, bool)> = old_x
        .paths
        .iter()
        .map(|p| (key_of(p, &old_key), p.end == PathEnd::Pruned))
        .collect();
    // NEW's paths grouped by their decisions (first explored first).
    let mut groups: Vec<(Key, Vec<&DecisionPath>)> = Vec::new();
    let mut at: HashMap<Vec<Decision>, usize> = HashMap::new();
    for p in &new_x.paths {
        let mut d = p.decisions.clone();
        // Interleavings taking the same decisions: one condition.
        d.sort_by_key(|x| x.thread);
        match at.get(&d) {
            Some(&g) => groups[g].1.push(p),
            None => {
                at.insert(d, groups.len());
                groups.push((key_of(p, &new_key), vec![p]));
            }
        }
    }
    let mut conditions = Vec::new();
    for (key, ps) in groups {
        let partial = ps.iter().all(|p| p.end == PathEnd::Pruned);
        let unmatched = key.values().flatten().any(|(s, _)| s.is_none());
        let is_new = unmatched || !olds.iter().any(|(o, op)| covers(o, *op, &key, partial));
        let first = ps[0];
        let mut violations: Vec<String> = ps
            .iter()
            .filter_map(|p| match &p.end {
                PathEnd::Finding { kind, location } if kind.is_violation() => {
                    Some(location.clone())
                }
                _ => None,
            })
            .collect();
        violations.sort();
        violations.dedup();
        let mut decisions: Vec<&Decision> = first.decisions.iter().collect();
        decisions.sort_by_key(|x| x.thread);
        conditions.push(ImpactedCondition {
            decisions: decisions
                .iter()
                .map(|d| DecisionText {
                    thread: d.thread,
                    location: location(new.module, d.at),
                    taken: taken(new.module, d.at, d.dir),
                    matched: new_key(d.at).is_some(),
                })
                .collect(),
            new: is_new,
            partial,
            paths: ps.len() as u64,
            first_path: first.order,
            violations,
        });
    }
    DirectedReport {
        recorded_branches_new: specs.0.record.len(),
        recorded_branches_old: specs.1.record.len(),
        old_paths: old_x.paths.len(),
        new_paths: new_x.paths.len(),
        new_conditions: conditions.iter().filter(|c| c.new).count(),
        conditions,
    }
}

/// `symex OLD NEW --directed` as a library call.  OLD is explored afresh
/// (its paths are needed, the store keeps only findings and summaries);
/// NEW is explored as `symex OLD NEW` does (+CIA, +SCIA with a store),
/// recording its impacted decisions and ordered towards impacted code.
pub fn explore_directed(
    old: &VersionInput<'_>,
    new: &VersionInput<'_>,
    opts: &SymexOptions,
    store: Option<&Store>,
) -> Result<(Exploration, incremental::IncrementalStats, DirectedReport), SymexError> {
    let plan = incremental::plan(old, new);
    let (new_spec, old_spec) = specs(&plan, old, new);
    let mut oo = opts.clone();
    oo.impacted = None;
    oo.store = None;
    oo.directed = Some(Arc::new(old_spec.clone()));
    let old_x = super::explore(old.module, &oo)?;
    let mut no = incremental::new_options(&plan, new, opts, store);
    no.directed = Some(Arc::new(new_spec.clone()));
    let new_x = super::explore(new.module, &no)?;
    let report = compare(&plan, old, new, (&new_spec, &old_spec), &old_x, &new_x);
    let (x, _, mut st) = incremental::combine(&plan, old, new, &old_x, &new_x);
    st.old_runs = incremental::old_runs(&old_x.stats);
    Ok((x, st, report))
}

impl std::fmt::Display for DirectedReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "directed: {} impacted path conditions of NEW ({} new in NEW), {} recorded branches",
            self.conditions.len(),
            self.new_conditions,
            self.recorded_branches_new
        )?;
        for c in &self.conditions {
            let ds: Vec<String> = c
                .decisions
                .iter()
                .map(|d| {
                    format!(
                        "T{} {} {}{}",
                        d.thread,
                        d.location,
                        d.taken,
                        if d.matched { "" } else { " (changed)" }
                    )
                })
                .collect();
            writeln!(
                f,
                "  {:<7} {}{}{}",
                if c.new { "new" } else { "not new" },
                if ds.is_empty() {
                    "(no impacted branch)".to_string()
                } else {
                    ds.join(", ")
                },
                if c.partial { " [prefix]" } else { "" },
                if c.violations.is_empty() {
                    String::new()
                } else {
                    format!(" -> violation at {}", c.violations.join(", "))
                }
            )?;
        }
        Ok(())
    }
}
