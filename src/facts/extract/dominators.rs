//! Immediate dominators and post-dominators of a thread's statement graph.
//!
//! Most statements sit in straight runs (one successor, whose only
//! predecessor they are), and petgraph's Cooper-Harvey-Kennedy walks such a
//! run statement by statement on every pass: about a tenth of extraction
//! at 50 KLoC. A run has one entry and one exit, so inside it each
//! statement's immediate dominator is the one before it; the trees are
//! computed on the graph of runs and read back per statement, which gives
//! the same trees.

use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};

/// The graph's straight runs: each node's run, and each run's nodes in
/// order. A node starts a run unless it is the only successor of a node
/// that is its only predecessor; `root` always starts one.
struct Runs {
    run_of: Vec<usize>,
    runs: Vec<Vec<usize>>,
}

impl Runs {
    fn of(succ: &[Vec<usize>], preds: &[Vec<usize>], root: usize) -> Runs {
        let n = succ.len();
        let continues = |b: usize| {
            b != root && preds[b].len() == 1 && {
                let a = preds[b][0];
                a != b && succ[a].len() == 1
            }
        };
        let mut run_of = vec![usize::MAX; n];
        let mut runs = Vec::new();
        // Run starts first; the nodes left after them lie on cycles of run
        // members only (a loop no run start enters), each cut into a run.
        let starts = (0..n).filter(|&x| !continues(x)).chain(0..n);
        for start in starts {
            if run_of[start] != usize::MAX {
                continue;
            }
            let id = runs.len();
            let mut run = vec![start];
            run_of[start] = id;
            let mut x = start;
            while let [next] = succ[x][..] {
                if !continues(next) || run_of[next] != usize::MAX {
                    break;
                }
                run_of[next] = id;
                run.push(next);
                x = next;
            }
            runs.push(run);
        }
        Runs { run_of, runs }
    }
}

/// Immediate dominator of each node of `succ` from `root` (None for the
/// root and for nodes it does not reach).
pub fn immediate_dominators(succ: &[Vec<usize>], root: usize) -> Vec<Option<usize>> {
    let n = succ.len();
    if n == 0 {
        return Vec::new();
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, ss) in succ.iter().enumerate() {
        for &b in ss {
            preds[b].push(a);
        }
    }
    let runs = Runs::of(succ, &preds, root);
    let mut g = DiGraph::<(), ()>::with_capacity(runs.runs.len(), runs.runs.len());
    for _ in &runs.runs {
        g.add_node(());
    }
    for (from, run) in runs.runs.iter().enumerate() {
        for &b in &succ[*run.last().expect("runs are not empty")] {
            g.add_edge(NodeIndex::new(from), NodeIndex::new(runs.run_of[b]), ());
        }
    }
    let doms = simple_fast(&g, NodeIndex::new(runs.run_of[root]));
    let mut idom = vec![None; n];
    for (r, run) in runs.runs.iter().enumerate() {
        let head = match doms.immediate_dominator(NodeIndex::new(r)) {
            Some(d) => Some(*runs.runs[d.index()].last().expect("runs are not empty")),
            None if r == runs.run_of[root] => None,
            // not reached from the root: nor is any node of the run
            None => continue,
        };
        idom[run[0]] = head;
        for w in run.windows(2) {
            idom[w[1]] = Some(w[0]);
        }
    }
    idom
}

/// Immediate post-dominator of each node of `succ`: its dominator on the
/// reversed graph from a virtual exit that every node without successors
/// flows to (None at exits and where no exit is reachable).
pub fn immediate_post_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    let mut ipdom = immediate_dominators(&reversed_with_exit(succ), n);
    ipdom.truncate(n);
    for d in &mut ipdom {
        if *d == Some(n) {
            *d = None;
        }
    }
    ipdom
}

/// `succ` reversed, with node `succ.len()` a virtual exit that has an
/// edge to every node without successors.
fn reversed_with_exit(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = succ.len();
    let mut reversed: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (a, ss) in succ.iter().enumerate() {
        for &b in ss {
            reversed[b].push(a);
        }
        if ss.is_empty() {
            reversed[n].push(a);
        }
    }
    reversed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// petgraph on the statement graph itself: what the runs must give.
    fn direct(succ: &[Vec<usize>], root: usize) -> Vec<Option<usize>> {
        let mut g = DiGraph::<(), ()>::new();
        for _ in succ {
            g.add_node(());
        }
        for (a, ss) in succ.iter().enumerate() {
            for &b in ss {
                g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
            }
        }
        let doms = simple_fast(&g, NodeIndex::new(root));
        (0..succ.len())
            .map(|i| {
                doms.immediate_dominator(NodeIndex::new(i))
                    .map(|d| d.index())
            })
            .collect()
    }

    fn direct_post(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
        let n = succ.len();
        let mut d = direct(&reversed_with_exit(succ), n);
        d.truncate(n);
        d.into_iter().map(|x| x.filter(|&x| x != n)).collect()
    }

    /// A small xorshift: the graphs are random but the same on every run.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Mostly straight runs (as statements are), with branches, joins,
    /// back edges, self loops, exits and unreachable parts.
    fn random_graph(rng: &mut Rng, n: usize) -> Vec<Vec<usize>> {
        let mut succ = vec![Vec::new(); n];
        for (a, ss) in succ.iter_mut().enumerate() {
            match rng.below(10) {
                0 => {}
                1 => ss.push(rng.below(n)),
                2 => {
                    ss.push(rng.below(n));
                    ss.push(rng.below(n));
                }
                3 => ss.push(a),
                _ if a + 1 < n => ss.push(a + 1),
                _ => {}
            }
            ss.dedup();
        }
        succ
    }

    #[test]
    fn runs_give_the_trees_petgraph_gives_on_every_statement() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..400 {
            let n = 1 + rng.below(60);
            let succ = random_graph(&mut rng, n);
            let root = if case % 5 == 0 { rng.below(n) } else { 0 };
            assert_eq!(
                immediate_dominators(&succ, root),
                direct(&succ, root),
                "dominators, case {case}: {succ:?} from {root}"
            );
            assert_eq!(
                immediate_post_dominators(&succ),
                direct_post(&succ),
                "post-dominators, case {case}: {succ:?}"
            );
        }
    }

    #[test]
    fn a_straight_run_is_a_chain_both_ways() {
        let succ: Vec<Vec<usize>> = (0..5)
            .map(|i| if i < 4 { vec![i + 1] } else { vec![] })
            .collect();
        assert_eq!(
            immediate_dominators(&succ, 0),
            [None, Some(0), Some(1), Some(2), Some(3)]
        );
        assert_eq!(
            immediate_post_dominators(&succ),
            [Some(1), Some(2), Some(3), Some(4), None]
        );
    }

    #[test]
    fn a_loop_of_run_members_only_keeps_its_nodes_unreached() {
        // 0 -> 1 (exit); 2 -> 3 -> 2, entered by nothing
        let succ = vec![vec![1], vec![], vec![3], vec![2]];
        assert_eq!(immediate_dominators(&succ, 0), direct(&succ, 0));
        assert_eq!(immediate_post_dominators(&succ), direct_post(&succ));
    }
}
