//! Differences as a reviewer counts them: by source line. The analysis
//! works on IR statements of thread instances, so two threads running the
//! same start routine (thread clones), or two instructions of one line,
//! give one difference each; a report shows them once, saying which
//! threads. Groups keep the order of their first member.

use crate::analysis::diff::{Difference, Side};
use crate::facts::FactSet;
use std::collections::BTreeMap;

/// Differences that name the same source lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineGroup {
    pub rank: u32,
    pub only_in: Side,
    /// Indices of the members in the list grouped, in order.
    pub members: Vec<usize>,
}

/// One end of an edge as a key: file and line (the statement id where the
/// facts do not know it).
type End = (String, u32, Option<u32>);

fn end(f: &FactSet, id: u32) -> End {
    match f.statement(id) {
        Some(s) if s.line != 0 => (s.file.clone(), s.line, None),
        _ => (String::new(), 0, Some(id)),
    }
}

/// Group `diffs` by rank, side and, per edge, the variable and the source
/// lines of its write and read. `facts(side)` are the statements of the
/// version a difference is in; `variable(facts, w, r)` names an edge's
/// variable as the report shows it (clones of one variable share a name;
/// distinct heap objects do not, and stay apart).
pub fn by_source_line<'f>(
    diffs: &[Difference],
    facts: impl Fn(Side) -> &'f FactSet,
    variable: impl Fn(&FactSet, u32, u32) -> String,
) -> Vec<LineGroup> {
    type Key = (u32, Side, Vec<(String, End, End)>);
    let mut index: BTreeMap<Key, usize> = BTreeMap::new();
    let mut groups: Vec<LineGroup> = Vec::new();
    for (i, d) in diffs.iter().enumerate() {
        let f = facts(d.only_in);
        let edges = d
            .edges
            .iter()
            .map(|&(w, r)| (variable(f, w, r), end(f, w), end(f, r)))
            .collect();
        let k = *index.entry((d.rank, d.only_in, edges)).or_insert_with(|| {
            groups.push(LineGroup {
                rank: d.rank,
                only_in: d.only_in,
                members: Vec::new(),
            });
            groups.len() - 1
        });
        groups[k].members.push(i);
    }
    groups
}

/// The threads of one difference: `t1 -> t2` per edge (writer -> reader),
/// edges joined by `then`.
pub fn threads_of(f: &FactSet, d: &Difference) -> String {
    let t = |id: u32| f.statement(id).map_or(0, |s| s.thread);
    d.edges
        .iter()
        .map(|&(w, r)| format!("t{} -> t{}", t(w), t(r)))
        .collect::<Vec<_>>()
        .join(" then ")
}

/// The distinct thread lists of a group's members, in order.
pub fn group_threads(f: &FactSet, diffs: &[Difference], g: &LineGroup) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &i in &g.members {
        let t = threads_of(f, &diffs[i]);
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}
