//! Directed exploration (DiSE, `symex OLD NEW --directed`): the engine's
//! side.  Decisions at the recorded branches are kept per path (a
//! persistent list shared with the parent state); every path end hands its
//! list to the result.  Forks and scheduling points try first what leads to
//! impacted code (DiSE's greedy order: fewest blocks to an impacted
//! instruction, and at a recorded branch the direction no path took yet).
//! Only the order changes: the same paths are explored as without it.

use super::state::State;
use super::{callee_name, Engine};
use crate::symex::slice::InstrId;
use crate::symex::FindingKind;
use llvm_ir::{Instruction, Module};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// What the engine records and steers towards.
#[derive(Clone, Debug, Default)]
pub struct DirectedSpec {
    /// Conditional branches (terminators) whose decisions are recorded.
    pub record: BTreeSet<InstrId>,
    /// Instructions the exploration order heads for.
    pub targets: BTreeSet<InstrId>,
}

/// One decision at a recorded branch.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Decision {
    pub thread: usize,
    /// The branch (function, block, terminator index).
    pub at: InstrId,
    /// Index of the successor taken among the branch's successors.
    pub dir: usize,
}

/// How a path ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "end", rename_all = "kebab-case")]
pub enum PathEnd {
    Complete,
    Finding {
        kind: FindingKind,
        location: String,
    },
    /// Cut at the loop bound, the step limit or the interference bound.
    Cut,
    AssumeFalse,
    /// Ended by a summary (its continuations were explored elsewhere).
    Pruned,
}

/// A path's decisions at the recorded branches, in the order taken.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DecisionPath {
    pub decisions: Vec<Decision>,
    pub end: PathEnd,
    /// 0 for the first path that ended, 1 for the next, ...
    pub order: u64,
}

/// One decision and the decisions before it on the path.
pub(super) struct DNodeList {
    d: Decision,
    prev: Option<Rc<DNodeList>>,
}

/// What the engine keeps for directed mode.
pub(super) struct Directed {
    spec: std::sync::Arc<DirectedSpec>,
    /// Per function and block: blocks to the nearest impacted instruction.
    rank: Vec<Vec<u32>>,
    /// Recorded branch directions some path took already.
    taken: HashSet<((usize, usize, usize), usize)>,
    paths: Vec<DecisionPath>,
}

impl Directed {
    pub(super) fn new(m: &Module, spec: std::sync::Arc<DirectedSpec>) -> Self {
        let rank = ranks(m, &spec.targets);
        Directed {
            spec,
            rank,
            taken: HashSet::new(),
            paths: Vec::new(),
        }
    }
}

/// Per function and block, the number of CFG edges to the nearest block
/// holding a target instruction or calling a function that (transitively)
/// holds one; `u32::MAX` when none is reachable.
fn ranks(m: &Module, targets: &BTreeSet<(usize, usize, usize)>) -> Vec<Vec<u32>> {
    let fidx: HashMap<&str, usize> = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    let calls_of = |b: &llvm_ir::BasicBlock| -> Vec<usize> {
        b.instrs
            .iter()
            .filter_map(|i| match i {
                Instruction::Call(c) => callee_name(c).and_then(|n| fidx.get(n.as_str()).copied()),
                _ => None,
            })
            .collect()
    };
    let mut hot: Vec<bool> = (0..m.functions.len())
        .map(|fi| targets.iter().any(|t| t.0 == fi))
        .collect();
    loop {
        let mut changed = false;
        for (fi, f) in m.functions.iter().enumerate() {
            if !hot[fi]
                && f.basic_blocks
                    .iter()
                    .any(|b| calls_of(b).iter().any(|c| hot[*c]))
            {
                hot[fi] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    m.functions
        .iter()
        .enumerate()
        .map(|(fi, f)| {
            let n = f.basic_blocks.len();
            let succ: Vec<Vec<usize>> = f
                .basic_blocks
                .iter()
                .map(|b| crate::symex::slice::block_successors(f, &b.term))
                .collect();
            let mut dist = vec![u32::MAX; n];
            let mut queue = std::collections::VecDeque::new();
            for (bi, b) in f.basic_blocks.iter().enumerate() {
                let here = targets.iter().any(|t| t.0 == fi && t.1 == bi)
                    || calls_of(b).iter().any(|c| hot[*c]);
                if here {
                    dist[bi] = 0;
                    queue.push_back(bi);
                }
            }
            // Backwards breadth-first search over the CFG.
            let mut pred = vec![Vec::new(); n];
            for (b, ss) in succ.iter().enumerate() {
                for s in ss {
                    pred[*s].push(b);
                }
            }
            while let Some(b) = queue.pop_front() {
                for p in &pred[b] {
                    if dist[*p] == u32::MAX {
                        dist[*p] = dist[b] + 1;
                        queue.push_back(*p);
                    }
                }
            }
            dist
        })
        .collect()
}

impl<'c, 'm> Engine<'c, 'm> {
    /// The branch thread `tid` is at, if directed mode records it.
    fn recorded_branch(&self, st: &State<'c>, tid: usize) -> Option<(usize, usize, usize)> {
        let d = self.directed.as_ref()?;
        let fr = st.threads[tid].frames.last()?;
        let n = self.m.functions[fr.f].basic_blocks[fr.bb].instrs.len();
        let id = (fr.f, fr.bb, n);
        d.spec.record.contains(&id).then_some(id)
    }

    /// Is the branch thread `tid` is at one directed mode explores on
    /// every side (so that every impacted path condition is seen)?
    pub(super) fn directed_branch(&self, st: &State<'c>, tid: usize) -> bool {
        self.recorded_branch(st, tid).is_some()
    }

    /// Record that thread `tid` leaves its current block for `target`
    /// (call before the jump).
    pub(super) fn directed_push(&mut self, st: &mut State<'c>, tid: usize, target: usize) {
        let Some(at) = self.recorded_branch(st, tid) else {
            return;
        };
        let f = &self.m.functions[at.0];
        let succ = crate::symex::slice::block_successors(f, &f.basic_blocks[at.1].term);
        let dir = succ.iter().position(|s| *s == target).unwrap_or(usize::MAX);
        if let Some(d) = self.directed.as_mut() {
            d.taken.insert((at, dir));
        }
        st.decisions = Some(Rc::new(DNodeList {
            d: Decision {
                thread: tid,
                at,
                dir,
            },
            prev: st.decisions.take(),
        }));
    }

    /// Order a fork's alternatives: an untaken direction of a recorded
    /// branch first, then the side closer to impacted code.
    pub(super) fn directed_order_alts<T, U>(
        &self,
        st: &State<'c>,
        tid: usize,
        alts: &mut [(T, U, usize)],
    ) {
        let Some(d) = self.directed.as_ref() else {
            return;
        };
        let Some(fr) = st.threads[tid].frames.last() else {
            return;
        };
        let f = &self.m.functions[fr.f];
        let at = (fr.f, fr.bb, f.basic_blocks[fr.bb].instrs.len());
        let succ = crate::symex::slice::block_successors(f, &f.basic_blocks[fr.bb].term);
        let rank = &d.rank[fr.f];
        alts.sort_by_key(|(_, _, t)| {
            let dir = succ.iter().position(|s| s == t).unwrap_or(usize::MAX);
            (d.taken.contains(&(at, dir)), rank[*t])
        });
    }

    /// Order the threads tried at a scheduling point: the one closest to
    /// impacted code first (stable: ties keep the round-robin order).
    pub(super) fn directed_order_threads(&self, st: &State<'c>, order: &mut [usize]) {
        let Some(d) = self.directed.as_ref() else {
            return;
        };
        order.sort_by_key(|t| {
            st.threads[*t]
                .frames
                .iter()
                .map(|fr| d.rank[fr.f][fr.bb])
                .min()
                .unwrap_or(u32::MAX)
        });
    }

    /// A path ends: keep its decisions.
    pub(super) fn directed_end(&mut self, st: &State<'c>, end: PathEnd) {
        self.diff_path_end(st);
        let Some(d) = self.directed.as_mut() else {
            return;
        };
        let mut decisions = Vec::new();
        let mut cur = st.decisions.clone();
        while let Some(n) = cur {
            decisions.push(n.d.clone());
            cur = n.prev.clone();
        }
        decisions.reverse();
        let order = d.paths.len() as u64;
        d.paths.push(DecisionPath {
            decisions,
            end,
            order,
        });
    }

    /// The paths recorded so far (moved out at the end).
    pub(super) fn directed_paths(&mut self) -> Vec<DecisionPath> {
        self.directed
            .as_mut()
            .map(|d| std::mem::take(&mut d.paths))
            .unwrap_or_default()
    }
}
