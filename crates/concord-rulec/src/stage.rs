//! Splitting a lowered program into stages for the ascent backend.
//!
//! `ascent!` puts every rule of a program into one `run` function, and
//! rustc's type checking of a function grows faster than linearly with its
//! size: the 490-rule rank-2 diff program alone took about 14 minutes to
//! compile, most of it type checking. A stage is a run of whole recursive
//! components (dependencies first) holding a bounded amount of rules; each
//! becomes its own `ascent!` program, and the generated `run` hands each
//! stage the relations it reads from the stages before it. The result is
//! the same: every rule of a component, and every rule deriving a relation,
//! lands in one stage, and a stage runs only after all it reads is complete.

use crate::check::RelKind;
use crate::lower::{LItem, Lowered};
use std::collections::BTreeSet;

/// Body items (atoms, negations, comparisons) a stage may hold before the
/// next component starts a new one; a bigger component is a stage alone.
/// Each stage re-indexes the relations it reads, so fewer, bigger stages
/// run faster (sync1_core at 50 KLoC: 8 stages at 120 items, 2.6 s per
/// version; 4 at 260, 2.2 s) for the same release build time (measured
/// from scratch: 3 m 52 s at 120, 3 m 48 s at 260).
const STAGE_BODY_ITEMS: usize = 260;

/// One stage: the rules and facts it evaluates, the relations they derive
/// and the relations it reads from earlier stages or the input.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stage {
    /// Indices into `Lowered::rules`.
    pub rules: Vec<usize>,
    /// Indices into `Lowered::facts` (facts of derived relations only).
    pub facts: Vec<usize>,
    /// Relations this stage's rules and facts derive.
    pub derived: BTreeSet<usize>,
    /// Relations its rules read and earlier stages (or the input) give.
    pub read: BTreeSet<usize>,
}

impl Stage {
    /// Every relation the stage's program declares.
    pub fn relations(&self) -> BTreeSet<usize> {
        self.derived.union(&self.read).copied().collect()
    }
}

fn body_relation(item: &LItem) -> Option<usize> {
    match item {
        LItem::Pos(r, _) | LItem::Neg(r, _) => Some(*r),
        LItem::Cmp(..) => None,
    }
}

/// The stages of `l`, in evaluation order.
pub(crate) fn stages(l: &Lowered) -> Vec<Stage> {
    let n = l.rels.len();
    let mut edges: Vec<Vec<(usize, bool, usize)>> = vec![Vec::new(); n];
    for (ri, rule) in l.rules.iter().enumerate() {
        for item in &rule.body {
            if let Some(b) = body_relation(item) {
                edges[rule.head].push((b, matches!(item, LItem::Neg(..)), ri));
            }
        }
    }
    // Component ids come dependencies first.
    let comp = crate::check::tarjan(n, &edges);
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut comp_rules: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (ri, rule) in l.rules.iter().enumerate() {
        comp_rules[comp[rule.head]].push(ri);
    }
    let mut comp_facts: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (fi, (r, _)) in l.facts.iter().enumerate() {
        if l.rels[*r].kind != RelKind::Input {
            comp_facts[comp[*r]].push(fi);
        }
    }
    let mut out: Vec<Stage> = Vec::new();
    let mut current = Stage::default();
    let mut cost = 0;
    for c in 0..ncomp {
        if comp_rules[c].is_empty() && comp_facts[c].is_empty() {
            continue;
        }
        let c_cost: usize = comp_rules[c].iter().map(|&ri| l.rules[ri].body.len()).sum();
        if cost > 0 && cost + c_cost > STAGE_BODY_ITEMS {
            out.push(std::mem::take(&mut current));
            cost = 0;
        }
        cost += c_cost;
        for &ri in &comp_rules[c] {
            current.rules.push(ri);
            current.derived.insert(l.rules[ri].head);
        }
        for &fi in &comp_facts[c] {
            current.facts.push(fi);
            current.derived.insert(l.facts[fi].0);
        }
    }
    if !current.rules.is_empty() || !current.facts.is_empty() {
        out.push(current);
    }
    for st in &mut out {
        let read: BTreeSet<usize> = st
            .rules
            .iter()
            .flat_map(|&ri| l.rules[ri].body.iter().filter_map(body_relation))
            .filter(|r| !st.derived.contains(r))
            .collect();
        st.read = read;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(src: &str) -> Lowered {
        let p = crate::compile_sources(&[("t.dl".to_string(), src.to_string())]).unwrap();
        crate::lower::lower(&p).unwrap()
    }

    fn rel(l: &Lowered, name: &str) -> usize {
        l.rels.iter().position(|r| r.name == name).unwrap()
    }

    /// A chain longer than one stage's budget is cut between components,
    /// never inside the recursive one, and every stage reads only what
    /// earlier stages derive.
    #[test]
    fn stages_cut_between_components_in_dependency_order() {
        let mut src = String::from(
            ".decl e(a: unsigned, b: unsigned)\n.input e\n\
             .decl r0(a: unsigned, b: unsigned)\n\
             r0(X, Y) :- e(X, Y).\nr0(X, Z) :- r0(X, Y), e(Y, Z).\n",
        );
        // 200 relations, each 1 body item more than a stage can hold together.
        for i in 1..=200 {
            src.push_str(&format!(
                ".decl r{i}(a: unsigned, b: unsigned)\nr{i}(X, Y) :- r{}(X, Y), e(X, Y), !e(Y, X).\n",
                i - 1
            ));
        }
        src.push_str(".output r200\n");
        let l = lowered(&src);
        let st = stages(&l);
        assert!(st.len() > 1, "one stage for {} rules", l.rules.len());
        let recursive = rel(&l, "r0");
        let holding: Vec<usize> = (0..st.len())
            .filter(|&k| st[k].derived.contains(&recursive))
            .collect();
        assert_eq!(holding.len(), 1);
        assert_eq!(
            st[holding[0]]
                .rules
                .iter()
                .filter(|&&ri| l.rules[ri].head == recursive)
                .count(),
            2
        );
        let mut done: BTreeSet<usize> = (0..l.rels.len())
            .filter(|&r| l.rels[r].kind == RelKind::Input)
            .collect();
        for s in &st {
            assert!(s.read.is_subset(&done), "a stage reads a later relation");
            assert!(
                s.rules
                    .iter()
                    .map(|&ri| l.rules[ri].body.len())
                    .sum::<usize>()
                    <= STAGE_BODY_ITEMS
            );
            done.extend(s.derived.iter().copied());
        }
        assert_eq!(
            st.iter().map(|s| s.rules.len()).sum::<usize>(),
            l.rules.len()
        );
    }
}
