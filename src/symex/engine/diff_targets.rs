//! Diff-directed exploration (`symex OLD NEW`), the engine's side.
//!
//! The caller names *targets*: read-from tuples the synchronisation diff
//! found only in NEW (each edge a writer and a reader as instructions; the
//! writer may be a global's initial value) and instructions whose
//! execution makes a run new by itself (changed or impacted code). A path
//! is **hit** once it has realised every edge of one tuple or executed one
//! of those instructions; every continuation of a hit path is explored as
//! the strategy would. A state that is not hit is **dead** when no thread
//! can still reach a target reader or a target instruction (CFG
//! reachability from every frame, through calls and thread start
//! routines): no continuation of it can realise a target.
//!
//! At a dead state only one continuation is explored (the first thread the
//! strategy picks, the first side of a branch), run to its end, so that
//! DPOR still sees its accesses and adds the backtracking points it needs
//! at the live states above: a trace that realises a target has only live
//! states on its way, and DPOR's argument for it (the explored maximal
//! execution sharing the longest prefix with it races towards it) only
//! uses maximal executions through live states and their races. With
//! assertion-guided pruning (`+ag`) only nodes of hit paths record
//! summaries: a dead state's one continuation is no summary of the others,
//! and neither is a node above it; below a hit node every continuation is
//! explored.

use super::state::State;
use super::transitions::{Access, Res};
use super::{callee_name, Engine};
use crate::symex::slice::{Criteria, InstrId, Slice};
use llvm_ir::{Constant, Instruction, Module, Operand};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// Where a target edge's value comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TargetWriter {
    /// A global's initial value (no write on the path yet).
    Init,
    /// One of these instructions.
    At(BTreeSet<InstrId>),
}

/// A read-from edge to realise: a read by one of `readers` of the value
/// `writer` wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetEdge {
    pub writer: TargetWriter,
    pub readers: BTreeSet<InstrId>,
}

/// What makes a run new (see the module comment).
#[derive(Clone, Debug, Default)]
pub struct DiffTargets {
    pub edges: Vec<TargetEdge>,
    /// Tuples of edges (indices into `edges`) realised together.
    pub tuples: Vec<Vec<usize>>,
    /// Instructions whose execution makes the run a target run.
    pub instrs: BTreeSet<InstrId>,
    /// OLD was verified: a finding no target reader or changed instruction
    /// reaches behaves as in OLD and passes in every run of NEW (docs/
    /// symex.md, "Diff-directed mode"), so it cannot end a run early.
    pub old_verified: bool,
    /// A search for OLD's violating classes (the carry-over): the
    /// instructions of NEW at the locations OLD violated, when every one
    /// maps. They stay full criteria of the slice and every other finding
    /// is control-only (under the carry-over's restricting patch, a
    /// finding OLD never violated never fails in NEW). `None`: no slice.
    pub violated: Option<BTreeSet<InstrId>>,
}

/// A path's progress towards the targets (shared with its parent).
#[derive(Clone, Debug, Default)]
pub(super) struct DiffProgress {
    realised: Rc<BTreeSet<usize>>,
    pub(super) hit: bool,
}

/// Bytes of one access considered at most (as the interference count).
const MAX_BYTES: u64 = 4096;

/// The engine's tables for the targets.
pub(super) struct DiffDirected {
    targets: Arc<DiffTargets>,
    /// Reader instruction → the edges it is a reader of.
    by_reader: HashMap<InstrId, Vec<usize>>,
    /// Per function, block and index (the terminator last): is there a
    /// hot instruction at this index or later in the block?
    suffix_hot: Vec<Vec<Vec<bool>>>,
    /// Per function and block: can a thread entering it reach a hot one?
    block_reach: Vec<Vec<bool>>,
}

impl DiffDirected {
    pub(super) fn new(m: &Module, targets: Arc<DiffTargets>) -> Self {
        let mut by_reader: HashMap<InstrId, Vec<usize>> = HashMap::new();
        for (k, e) in targets.edges.iter().enumerate() {
            for r in &e.readers {
                by_reader.entry(*r).or_default().push(k);
            }
        }
        let mut hot_at: BTreeSet<InstrId> = targets.instrs.clone();
        hot_at.extend(by_reader.keys().copied());
        let (suffix_hot, block_reach) = reachability(m, &hot_at);
        DiffDirected {
            targets,
            by_reader,
            suffix_hot,
            block_reach,
        }
    }

    /// Can a frame at (function, block, index) still reach a hot
    /// instruction?
    fn reaches(&self, m: &Module, f: usize, bb: usize, ip: usize) -> bool {
        let suffix = &self.suffix_hot[f][bb];
        if suffix.get(ip).copied().unwrap_or(false) {
            return true;
        }
        let fun = &m.functions[f];
        crate::symex::slice::block_successors(fun, &fun.basic_blocks[bb].term)
            .iter()
            .any(|s| self.block_reach[f][*s])
    }
}

/// The slice of a diff-directed run: the findings a target reader or a
/// changed instruction may reach are its full criteria, and every target
/// instruction is one (so the accesses that realise a target stay
/// scheduling points). Accesses to globals outside it, and mutexes only
/// code outside it takes, are left out of DPOR's dependence: the unrelated
/// interleavings that run alongside the patched code are explored in one
/// order (what this assumes is in docs/symex.md, "Diff-directed mode").
pub(super) fn slice(m: &Module, targets: &DiffTargets, entry: &str) -> Slice {
    let mut sources: BTreeSet<InstrId> = targets.instrs.clone();
    let mut also: BTreeSet<InstrId> = targets.instrs.clone();
    if let Some(v) = &targets.violated {
        sources.extend(v.iter().copied());
        also.extend(v.iter().copied());
    }
    for e in &targets.edges {
        sources.extend(e.readers.iter().copied());
        also.extend(e.readers.iter().copied());
        if let TargetWriter::At(w) = &e.writer {
            also.extend(w.iter().copied());
        }
    }
    Slice::compute_with(
        m,
        Criteria::Directed {
            sources: &sources,
            also: &also,
            entry,
            unreached_pass: targets.old_verified || targets.violated.is_some(),
        },
    )
}

/// The functions a call instruction may enter: its callee, and every
/// function passed as an argument (a thread's start routine); `None` for
/// an indirect call (any function).
fn entered(c: &llvm_ir::instruction::Call, fidx: &HashMap<&str, usize>) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    match callee_name(c) {
        Some(n) => out.extend(fidx.get(n.as_str()).copied()),
        None => return None,
    }
    for (a, _) in &c.arguments {
        if let Operand::ConstantOperand(k) = a {
            if let Constant::GlobalReference { name, .. } = k.as_ref() {
                let n = match name {
                    llvm_ir::Name::Name(s) => s.to_string(),
                    llvm_ir::Name::Number(k) => k.to_string(),
                };
                out.extend(fidx.get(n.as_str()).copied());
            }
        }
    }
    Some(out)
}

type Tables = (Vec<Vec<Vec<bool>>>, Vec<Vec<bool>>);

/// `suffix_hot` and `block_reach` (see [`DiffDirected`]): an instruction
/// is hot when it is a target or enters a function holding a hot one.
fn reachability(m: &Module, targets: &BTreeSet<InstrId>) -> Tables {
    let fidx: HashMap<&str, usize> = m
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    // each instruction's entered functions, once
    let calls: Vec<Vec<Vec<Option<Vec<usize>>>>> = m
        .functions
        .iter()
        .map(|f| {
            f.basic_blocks
                .iter()
                .map(|b| {
                    b.instrs
                        .iter()
                        .map(|i| match i {
                            Instruction::Call(c) => entered(c, &fidx),
                            _ => Some(Vec::new()),
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let mut fn_hot: Vec<bool> = (0..m.functions.len())
        .map(|fi| targets.iter().any(|t| t.0 == fi))
        .collect();
    let hot_instr = |fn_hot: &[bool], fi: usize, bi: usize, ii: usize| -> bool {
        targets.contains(&(fi, bi, ii))
            || match calls[fi][bi].get(ii) {
                Some(None) => true,
                Some(Some(fs)) => fs.iter().any(|g| fn_hot[*g]),
                None => false,
            }
    };
    loop {
        let mut changed = false;
        for (fi, f) in m.functions.iter().enumerate() {
            if fn_hot[fi] {
                continue;
            }
            let hot = f
                .basic_blocks
                .iter()
                .enumerate()
                .any(|(bi, b)| (0..=b.instrs.len()).any(|ii| hot_instr(&fn_hot, fi, bi, ii)));
            if hot {
                fn_hot[fi] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut suffix = Vec::with_capacity(m.functions.len());
    let mut reach = Vec::with_capacity(m.functions.len());
    for (fi, f) in m.functions.iter().enumerate() {
        let sfx: Vec<Vec<bool>> = f
            .basic_blocks
            .iter()
            .enumerate()
            .map(|(bi, b)| {
                let n = b.instrs.len();
                let mut v = vec![false; n + 1];
                let mut any = false;
                for ii in (0..=n).rev() {
                    any = any || hot_instr(&fn_hot, fi, bi, ii);
                    v[ii] = any;
                }
                v
            })
            .collect();
        let nb = f.basic_blocks.len();
        let mut pred = vec![Vec::new(); nb];
        for (b, blk) in f.basic_blocks.iter().enumerate() {
            for s in crate::symex::slice::block_successors(f, &blk.term) {
                pred[s].push(b);
            }
        }
        let mut r = vec![false; nb];
        let mut stack: Vec<usize> = (0..nb).filter(|b| sfx[*b][0]).collect();
        for b in &stack {
            r[*b] = true;
        }
        while let Some(b) = stack.pop() {
            for p in &pred[b] {
                if !r[*p] {
                    r[*p] = true;
                    stack.push(*p);
                }
            }
        }
        suffix.push(sfx);
        reach.push(r);
    }
    (suffix, reach)
}

impl<'c, 'm> Engine<'c, 'm> {
    /// Is the path not hit and no target reachable any more (explore one
    /// continuation only)?
    pub(super) fn diff_dead(&mut self, st: &State<'c>) -> bool {
        let Some(dd) = self.diff.as_ref() else {
            return false;
        };
        if st.diff.hit {
            return false;
        }
        let live = st.threads.iter().any(|th| {
            let n = th.frames.len();
            th.frames.iter().enumerate().any(|(k, fr)| {
                // a caller's frame sits at its call: it goes on after it
                let ip = if k + 1 == n { fr.ip } else { fr.ip + 1 };
                dd.reaches(self.m, fr.f, fr.bb, ip)
            })
        });
        if !live {
            self.stats.diff_dead_nodes += 1;
        }
        !live
    }

    /// Thread `tid` is about to execute the instruction it is at: a
    /// target instruction makes the path hit.
    pub(super) fn diff_before_step(&self, st: &mut State<'c>, tid: usize) {
        let Some(dd) = self.diff.as_ref() else {
            return;
        };
        if st.diff.hit {
            return;
        }
        if let Some(fr) = st.threads[tid].frames.last() {
            if dd.targets.instrs.contains(&(fr.f, fr.bb, fr.ip)) {
                st.diff.hit = true;
            }
        }
    }

    /// The transition of thread `tid` ends with accesses `acc` at the
    /// visible instructions `st.tr_at`: mark the target edges its reads
    /// realise, then record its writes.
    pub(super) fn diff_commit(&mut self, st: &mut State<'c>, tid: usize, acc: &[Access]) {
        let Some(dd) = self.diff.as_ref() else {
            return;
        };
        if st.diff.hit {
            st.tr_at.clear();
            return;
        }
        let at = Rc::new(std::mem::take(&mut st.tr_at));
        let candidates: Vec<usize> = at
            .iter()
            .filter_map(|s| dd.by_reader.get(s))
            .flatten()
            .copied()
            .collect();
        if !candidates.is_empty() {
            let mut newly = Vec::new();
            for a in acc.iter().filter(|a| !a.write) {
                let Res::Mem(o, lo, hi) = a.res else {
                    continue;
                };
                for b in lo..hi.min(lo + MAX_BYTES) {
                    let w = st.writers.get(&(o, b));
                    for &k in &candidates {
                        let realised = match (&dd.targets.edges[k].writer, w) {
                            (TargetWriter::Init, None) => true,
                            (TargetWriter::At(ws), Some((_, wat))) => {
                                wat.iter().any(|s| ws.contains(s))
                            }
                            _ => false,
                        };
                        if realised && !st.diff.realised.contains(&k) {
                            newly.push(k);
                        }
                    }
                }
            }
            if !newly.is_empty() {
                let set = Rc::make_mut(&mut st.diff.realised);
                set.extend(newly);
                st.diff.hit = dd
                    .targets
                    .tuples
                    .iter()
                    .any(|t| t.iter().all(|e| set.contains(e)));
            }
        }
        if self.opts.max_interferences.is_some() {
            // the interference count records the writes itself
            st.tr_at = Rc::try_unwrap(at).unwrap_or_else(|a| (*a).clone());
            return;
        }
        for a in acc.iter().filter(|a| a.write) {
            if let Res::Mem(o, lo, hi) = a.res {
                for b in lo..hi.min(lo + MAX_BYTES) {
                    st.writers.insert((o, b), (tid, at.clone()));
                }
            }
        }
    }

    /// May the node of `st` record a summary? Only when every
    /// continuation below was explored: without targets, or on a hit path
    /// (a hit path has no dead state below it). A summary recorded there
    /// is used at any state with its key, as in any `+ag` run: it covers
    /// every continuation of that control state.
    pub(super) fn diff_may_record(&self, st: &State<'c>) -> bool {
        self.diff.is_none() || st.diff.hit
    }

    /// Does directed mode need the visible instructions of transitions?
    pub(super) fn diff_wants_sites(&self) -> bool {
        self.diff.is_some()
    }

    /// A path ends: count it when it realised a target.
    pub(super) fn diff_path_end(&mut self, st: &State<'c>) {
        if self.diff.is_some() && st.diff.hit {
            self.stats.diff_target_runs += 1;
        }
    }
}
