//! What keeps a DOT graph readable on a real program: `--limit N` (at
//! most N nodes) and `--focus FILE:LINE` (the part of the graph around
//! that line). Shared by `diff --format dot` and `impact --format dot`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A line to centre a graph on: `file` matches a path's suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Focus {
    pub file: Option<String>,
    pub line: u32,
}

impl Focus {
    /// Does a statement at `file:line` sit on the focused line?
    pub fn matches(&self, file: &str, line: u32) -> bool {
        line == self.line
            && self
                .file
                .as_deref()
                .map_or(true, |f| file == f || file.ends_with(&format!("/{f}")))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DotOptions {
    /// At most this many nodes.
    pub limit: Option<usize>,
    pub focus: Option<Focus>,
}

/// The nodes to draw: breadth-first from `start` over `edges` (either
/// direction), nearest first, at most `limit`. Without a focus `start` is
/// the caller's choice (seeds, or every node in order).
pub fn select<N: Ord + Clone>(
    start: &[N],
    edges: &BTreeSet<(N, N)>,
    limit: Option<usize>,
) -> BTreeSet<N> {
    let mut adj: BTreeMap<&N, Vec<&N>> = BTreeMap::new();
    for (a, b) in edges {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default().push(a);
    }
    let cap = limit.unwrap_or(usize::MAX);
    let mut seen: BTreeSet<N> = BTreeSet::new();
    let mut queue: VecDeque<&N> = start.iter().collect();
    while let Some(n) = queue.pop_front() {
        if seen.len() >= cap {
            break;
        }
        if !seen.insert(n.clone()) {
            continue;
        }
        for &m in adj.get(n).into_iter().flatten() {
            if !seen.contains(m) {
                queue.push_back(m);
            }
        }
    }
    seen
}

/// A note node saying what was left out, so a cut graph never looks whole.
pub fn hidden_note(hidden: usize, what: &str) -> String {
    if hidden == 0 {
        return String::new();
    }
    format!("  hidden [shape=note, label=\"{hidden} {what} not shown (--limit / --focus)\"];\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_goes_nearest_first_and_stops_at_the_limit() {
        let edges: BTreeSet<(u32, u32)> = [(1, 2), (2, 3), (3, 4), (10, 11)].into();
        assert_eq!(select(&[2], &edges, None), [1, 2, 3, 4].into());
        assert_eq!(select(&[2], &edges, Some(3)), [1, 2, 3].into());
        assert_eq!(select(&[10], &edges, None), [10, 11].into());
    }

    #[test]
    fn focus_matches_a_path_suffix() {
        let f = Focus {
            file: Some("a.c".into()),
            line: 3,
        };
        assert!(f.matches("/x/a.c", 3));
        assert!(!f.matches("/x/ba.c", 3));
        assert!(!f.matches("/x/a.c", 4));
    }
}
