//! Impacted lines as a reviewer reads them: one entry per source line of
//! a function in a thread *function* (the instances of one start routine
//! share their lines), nearest the changes first, at most a given number,
//! with the totals of what is not shown.

use super::impact::ImpactItem;
use crate::analysis::impact::Via;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One impacted source line of one function, over the thread instances of
/// one start function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RankedLine {
    pub thread_function: String,
    /// The thread instances (ids) whose statements of this line are impacted.
    pub threads: Vec<u32>,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub steps: u32,
    pub via: Via,
    pub changes: Vec<u32>,
    pub text: Option<String>,
}

/// The totals of one impacted set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    /// Distinct source lines (file and line).
    pub lines: usize,
    /// Distinct functions those lines are in.
    pub functions: usize,
    /// Lines the patch changed (0 steps).
    pub changed: usize,
    /// The other lines by the weakest way the changes reach them.
    pub data: usize,
    pub control: usize,
    pub cross_thread: usize,
}

/// The items of one direction and version merged over thread instances and
/// ranked: fewest steps first, then data before control before
/// cross-thread, then by place.
pub fn rank(items: &[&ImpactItem]) -> Vec<RankedLine> {
    type Key = (String, String, String, u32);
    let mut by: BTreeMap<Key, RankedLine> = BTreeMap::new();
    for i in items {
        let key = (
            i.thread_function.clone(),
            i.function.clone(),
            i.file.clone(),
            i.line,
        );
        let e = by.entry(key).or_insert_with(|| RankedLine {
            thread_function: i.thread_function.clone(),
            threads: Vec::new(),
            function: i.function.clone(),
            file: i.file.clone(),
            line: i.line,
            steps: i.steps,
            via: i.via,
            changes: Vec::new(),
            text: i.text.clone(),
        });
        e.threads.push(i.thread);
        e.steps = e.steps.min(i.steps);
        e.via = e.via.min(i.via);
        e.changes.extend(i.changes.iter().copied());
    }
    let mut out: Vec<RankedLine> = by
        .into_values()
        .map(|mut l| {
            l.threads.sort_unstable();
            l.threads.dedup();
            l.changes.sort_unstable();
            l.changes.dedup();
            l
        })
        .collect();
    out.sort_by(|a, b| {
        (
            a.steps,
            a.via,
            &a.file,
            a.line,
            &a.thread_function,
            &a.function,
        )
            .cmp(&(
                b.steps,
                b.via,
                &b.file,
                b.line,
                &b.thread_function,
                &b.function,
            ))
    });
    out
}

/// Totals over ranked lines: a source line counts once, reached the
/// weakest way any of its entries is.
pub fn totals(lines: &[RankedLine]) -> Totals {
    // per line: (steps, via) of its nearest entry, the weakest way
    let mut per_line: BTreeMap<(&str, u32), (u32, Via)> = BTreeMap::new();
    let mut functions: BTreeSet<&str> = BTreeSet::new();
    for l in lines {
        let v = per_line
            .entry((&l.file, l.line))
            .or_insert((l.steps, l.via));
        *v = (v.0.min(l.steps), v.1.min(l.via));
        functions.insert(&l.function);
    }
    let count = |via: Via| {
        per_line
            .values()
            .filter(|&&(steps, v)| steps > 0 && v == via)
            .count()
    };
    Totals {
        lines: per_line.len(),
        functions: functions.len(),
        changed: per_line.values().filter(|&&(steps, _)| steps == 0).count(),
        data: count(Via::Data),
        control: count(Via::Control),
        cross_thread: count(Via::CrossThread),
    }
}

/// The first `limit` lines (all without a limit) grouped by function and
/// thread function, groups in the order of their nearest line.
pub fn grouped(lines: &[RankedLine], limit: Option<usize>) -> Vec<Vec<&RankedLine>> {
    let shown = &lines[..limit.map_or(lines.len(), |n| n.min(lines.len()))];
    let mut order: Vec<(&str, &str)> = Vec::new();
    let mut groups: BTreeMap<(&str, &str), Vec<&RankedLine>> = BTreeMap::new();
    for l in shown {
        let key = (l.thread_function.as_str(), l.function.as_str());
        if !groups.contains_key(&key) {
            order.push(key);
        }
        groups.entry(key).or_default().push(l);
    }
    order
        .into_iter()
        .filter_map(|k| groups.remove(&k))
        .collect()
}

/// `1375` -> `1,375`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::impact::{Direction, Side};

    fn item(thread: u32, function: &str, line: u32, steps: u32, via: Via) -> ImpactItem {
        ImpactItem {
            direction: Direction::Fwd,
            version: Side::New,
            thread,
            thread_function: if thread == 0 { "main" } else { "worker" }.into(),
            function: function.into(),
            file: "p.c".into(),
            line,
            changes: vec![0],
            statements: vec![line],
            text: None,
            steps,
            via,
        }
    }

    /// Three instances of one worker print its lines once; nearest first.
    #[test]
    fn instances_merge_and_the_nearest_come_first() {
        let items = [
            item(1, "worker", 20, 3, Via::Control),
            item(2, "worker", 20, 2, Via::CrossThread),
            item(3, "worker", 20, 4, Via::Data),
            item(0, "main", 30, 1, Via::Data),
            item(1, "helper", 5, 2, Via::Data),
        ];
        let refs: Vec<&ImpactItem> = items.iter().collect();
        let ranked = rank(&refs);
        assert_eq!(ranked.len(), 3);
        assert_eq!((ranked[0].line, ranked[0].steps), (30, 1));
        // line 20: nearest over its instances, weakest kind of any
        let worker = ranked.iter().find(|l| l.line == 20).unwrap();
        assert_eq!(worker.threads, vec![1, 2, 3]);
        assert_eq!((worker.steps, worker.via), (2, Via::Data));
        // a tie on steps: data before data by place (helper's line 5 first)
        assert_eq!(ranked[1].line, 5);
        let t = totals(&ranked);
        assert_eq!((t.lines, t.functions, t.changed, t.data), (3, 3, 0, 3));
        let groups = grouped(&ranked, Some(2));
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0][0].function, "main");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(1375), "1,375");
        assert_eq!(thousands(35510), "35,510");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
