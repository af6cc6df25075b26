//! Cross-checks of a [`FactSet`] read from disk. A fact directory edited by
//! hand, truncated, or mixed from two runs must be refused with a reason:
//! the analyses would otherwise answer "no difference" about facts that do
//! not describe any program.

use super::relations::{DomParent, PoScc, PoSccCyclic, PoSccNext};
use super::schema::{ColumnKind, RELATIONS};
use super::FactSet;

/// The first inconsistency found, as a sentence naming the file and row.
pub fn check(f: &FactSet) -> Result<(), String> {
    if f.statements.is_empty() {
        return Err(
            "statements.tsv has no statements (a program with main has at least one)".into(),
        );
    }
    if f.threads.is_empty() {
        return Err("threads.tsv has no threads (main is thread 0)".into());
    }
    dense_ids("statements.tsv", f.statements.iter().map(|s| s.id))?;
    dense_ids("locations.tsv", f.locations.iter().map(|l| l.id))?;
    dense_ids("threads.tsv", f.threads.iter().map(|t| t.id))?;
    // names.tsv is optional (older directories); present, it names every
    // location once, in order.
    if !f.names.is_empty() {
        dense_ids("names.tsv", f.names.iter().map(|n| n.id))?;
        if f.names.len() != f.locations.len() {
            return Err(format!(
                "names.tsv names {} locations, locations.tsv has {}",
                f.names.len(),
                f.locations.len()
            ));
        }
    }
    let (n_stmt, n_loc, n_thread) = (
        f.statements.len() as u64,
        f.locations.len() as u64,
        f.threads.len() as u64,
    );
    for s in &f.statements {
        if u64::from(s.thread) >= n_thread {
            return Err(format!(
                "statements.tsv: statement {} belongs to thread {}, which threads.tsv does not have",
                s.id, s.thread
            ));
        }
    }
    check_threads(f)?;
    for rel in RELATIONS {
        for row in f.rows(rel.name) {
            for (col, &value) in rel.columns.iter().zip(row) {
                let bound = match col.kind {
                    ColumnKind::Stmt => n_stmt,
                    ColumnKind::Loc => n_loc,
                    ColumnKind::Thread => n_thread,
                    ColumnKind::Number => continue,
                };
                if u64::from(value) >= bound {
                    return Err(format!(
                        "{}: column {} = {value} names no {} (there are {bound})",
                        rel.name,
                        col.name,
                        col.kind.describe()
                    ));
                }
            }
        }
    }
    check_order(f)?;
    check_counts(f)
}

/// Program order in compact form: every event lies in one component, the
/// events of a component run in one thread, `po_scc_cyclic` names event
/// components, `po_scc_next` is acyclic and links event components of one
/// thread only, and `dom_parent` gives each event at most one parent, an
/// event of its thread.
fn check_order(f: &FactSet) -> Result<(), String> {
    use std::collections::{HashMap, HashSet};

    let mut comp_of = HashMap::new();
    let mut thread_of_comp = HashMap::new();
    for row in f.iter::<PoScc>() {
        let (s, c) = (row.s.0, row.c);
        if let Some(old) = comp_of.insert(s, c) {
            return Err(format!(
                "po_scc: statement {s} lies in components {old} and {c}; an event has one"
            ));
        }
        let t = f.statements[s as usize].thread;
        if let Some(u) = thread_of_comp.insert(c, t) {
            if u != t {
                return Err(format!(
                    "po_scc: component {c} holds statements of threads {u} and {t}"
                ));
            }
        }
    }
    for row in f.iter::<PoSccCyclic>() {
        if !thread_of_comp.contains_key(&row.c) {
            return Err(format!(
                "po_scc_cyclic: component {} holds no event in po_scc",
                row.c
            ));
        }
    }
    // A cycle in the component DAG would order events both ways.
    let mut graph = petgraph::graphmap::DiGraphMap::<u32, ()>::new();
    for row in f.iter::<PoSccNext>() {
        let (c, d) = (row.c1, row.c2);
        if let (Some(t), Some(u)) = (thread_of_comp.get(&c), thread_of_comp.get(&d)) {
            if t != u {
                return Err(format!(
                    "po_scc_next: components {c} and {d} belong to threads {t} and {u}"
                ));
            }
        }
        graph.add_edge(c, d, ());
    }
    if petgraph::algo::is_cyclic_directed(&graph) {
        return Err("po_scc_next: the component graph has a cycle".into());
    }
    let mut has_parent = HashSet::new();
    for row in f.iter::<DomParent>() {
        let (a, b) = (row.s1.0, row.s2.0);
        if !comp_of.contains_key(&a) || !comp_of.contains_key(&b) {
            return Err(format!(
                "dom_parent: {a} -> {b} names a statement that is not an event in po_scc"
            ));
        }
        if f.statements[a as usize].thread != f.statements[b as usize].thread {
            return Err(format!("dom_parent: {a} and {b} run in different threads"));
        }
        if !has_parent.insert(b) {
            return Err(format!("dom_parent: event {b} has two parents"));
        }
    }
    Ok(())
}

/// Ids must be 0, 1, 2, ... in order: lookups index by id.
fn dense_ids(file: &str, ids: impl Iterator<Item = u32>) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for (row, id) in ids.enumerate() {
        if !seen.insert(id) {
            return Err(format!("{file}: id {id} appears twice"));
        }
        if id as usize != row {
            return Err(format!(
                "{file}: row {} has id {id}; ids must be 0, 1, 2, ... in order",
                row + 1
            ));
        }
    }
    Ok(())
}

/// Thread 0 (main) has no parent; every other thread descends from it
/// through existing threads, and its creating statement exists.
fn check_threads(f: &FactSet) -> Result<(), String> {
    let n = f.threads.len();
    if let Some(p) = f.threads[0].parent {
        return Err(format!(
            "threads.tsv: thread 0 (main) has parent {p}; main has none"
        ));
    }
    for t in &f.threads {
        if let Some(c) = t.create_stmt {
            if c as usize >= f.statements.len() {
                return Err(format!(
                    "threads.tsv: thread {} is created by statement {c}, which statements.tsv does not have",
                    t.id
                ));
            }
        }
        if t.id == 0 {
            continue;
        }
        let Some(mut p) = t.parent else {
            return Err(format!(
                "threads.tsv: thread {} has no parent; only main (thread 0) may lack one",
                t.id
            ));
        };
        // Walk up to main; more than n steps means a cycle.
        let mut steps = 0;
        loop {
            if p as usize >= n {
                return Err(format!(
                    "threads.tsv: thread {} has ancestor {p}, which threads.tsv does not have",
                    t.id
                ));
            }
            if p == t.id {
                return Err(format!(
                    "threads.tsv: thread {} is its own ancestor (a thread cannot create itself)",
                    t.id
                ));
            }
            match f.threads[p as usize].parent {
                None => break,
                Some(q) => p = q,
            }
            steps += 1;
            if steps > n {
                return Err(format!(
                    "threads.tsv: the ancestors of thread {} form a cycle",
                    t.id
                ));
            }
        }
    }
    Ok(())
}

/// The manifest's counts were written with the files: a mismatch means the
/// files come from different runs (or were edited).
fn check_counts(f: &FactSet) -> Result<(), String> {
    for (name, &want) in &f.manifest.counts {
        let got = match name.as_str() {
            "statements" => f.statements.len(),
            "locations" => f.locations.len(),
            "threads" => f.threads.len(),
            rel => match f.relations.get(rel) {
                Some(rows) => rows.len(),
                None => continue,
            },
        };
        if got != want {
            return Err(format!(
                "manifest.json counts {want} {name} but the files hold {got}; the directory mixes files from different runs or was edited\n  hint: re-run `concord facts`"
            ));
        }
    }
    Ok(())
}
