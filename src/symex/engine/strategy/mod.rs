//! The exploration strategies: which interleavings of a state's threads
//! the scheduler (`explore`) tries, and which subtrees it may skip.
//!
//! Two independent choices, made once from the options ([`select`]):
//!
//! * an [`ExplorationStrategy`] reduces the interleavings: [`full`] tries
//!   every one (Algorithm 1 of the paper), [`dpor`] is Flanagan–Godefroid
//!   DPOR with sleep sets, [`odpor`] is optimal DPOR with wakeup trees;
//! * a [`Pruning`] skips subtrees whose weakest precondition (summary) the
//!   current state implies: [`assertion_guided`] (§5.2, §6), or none.
//!
//! The scheduler owns the search (states, nodes, transitions, clocks) and
//! calls the strategy's hooks at fixed points: at a state before a thread
//! is chosen, when a node opens, to pick each next thread and its child's
//! sleep set, after each transition, when a subtree is pruned, and when a
//! path ends early.  Strategies are stateless: what they remember lives in
//! the scheduling nodes (`DNode`: backtrack, done, sleep, wakeup tree).
//!
//! Directed search (`directed`) and the interference bound
//! (`interference`) are layered on whichever strategy runs: they order the
//! choices and end paths, in every mode.

pub(super) mod assertion_guided;
pub(super) mod dpor;
pub(super) mod full;
pub(super) mod odpor;

use super::state::State;
use super::transitions::Access;
use super::val::Cond;
use super::visibility::Next;
use super::Engine;
use crate::symex::{Reduction, SymexOptions};
use assertion_guided::{AssertionGuided, NoPruning};
use dpor::Dpor;
use full::FullSearch;
use odpor::Odpor;
pub(super) use odpor::Wut;

/// Threads asleep at a node, each with its next accesses.
pub(super) type Sleep = Vec<(usize, Vec<Access>)>;

/// What a strategy sees of the scheduling node being explored.
pub(super) struct NodeView<'a> {
    /// The node's index in `Engine::nodes`.
    pub(super) d: usize,
    /// The threads that may be explored from here, in the preferred order
    /// (round robin, directed order; at a node a summary partly covers,
    /// only the threads it does not cover).
    pub(super) order: &'a [usize],
    /// Every thread's next operation at the node.
    pub(super) nexts: &'a [Next],
    /// The sleep set the node was entered with.
    pub(super) sleep: &'a [(usize, Vec<Access>)],
    /// A summary covers every continuation but those starting with these
    /// threads (`Pruning::covered_at_node`).
    pub(super) uncovered: Option<&'a [usize]>,
}

impl NodeView<'_> {
    pub(super) fn asleep(&self, t: usize) -> bool {
        self.sleep.iter().any(|(q, _)| *q == t)
    }

    /// Thread `t`'s next accesses (none when it cannot run).
    pub(super) fn next_accesses(&self, t: usize) -> Vec<Access> {
        match &self.nexts[t] {
            Next::Enabled(a) => a.clone(),
            _ => vec![],
        }
    }
}

/// One interleaving reduction.  The default hooks do nothing: a strategy
/// implements those its algorithm needs.
pub(super) trait ExplorationStrategy: Sync {
    /// At a state, before a thread is chosen: the threads' next operations
    /// may race with earlier transitions.
    fn races_at_state<'c>(&self, _e: &mut Engine<'c, '_>, _st: &State<'c>, _nexts: &[Next]) {}

    /// Does a state where every enabled thread is asleep end the path
    /// (before any summary or node is looked at)?
    fn all_asleep_ends_path(&self) -> bool {
        false
    }

    /// A node was pushed: prepare its choices.  `false`: every thread
    /// that could be explored is asleep (the path ends, no run).
    fn open_node(&self, e: &mut Engine<'_, '_>, node: &NodeView<'_>) -> bool;

    /// The next thread to explore from the node, and the wakeup subtree
    /// its child starts with; `None` when the node is done.
    fn choose_next(&self, e: &mut Engine<'_, '_>, node: &NodeView<'_>) -> Option<(usize, Wut)>;

    /// The sleep set of the child where `t` (next accesses `tacc`) runs.
    fn child_sleep<'c>(
        &self,
        e: &Engine<'c, '_>,
        st: &State<'c>,
        node: &NodeView<'_>,
        t: usize,
        tacc: &[Access],
    ) -> Sleep;

    /// Thread `tid`'s transition (accesses `acc`, clock before it `pre`)
    /// was committed as the one from node `d`.
    fn on_commit<'c>(
        &self,
        _e: &mut Engine<'c, '_>,
        _st: &State<'c>,
        _tid: usize,
        _acc: &[Access],
        _pre: &[usize],
        _d: usize,
    ) {
    }

    /// The subtree of node `key` was pruned by its summary: its recorded
    /// accesses race as if executed.
    fn on_prune<'c>(&self, _e: &mut Engine<'c, '_>, _st: &State<'c>, _key: u64) {}

    /// A path ends (finding, failed assumption, step limit) inside
    /// `tid`'s transition.
    fn on_path_end<'c>(&self, _e: &mut Engine<'c, '_>, _st: &State<'c>, _tid: usize) {}
}

/// Pruning by summaries, independent of the interleaving reduction.  The
/// scheduler asks it at every node and hands it every node's weakest
/// precondition.
pub(super) trait Pruning: Sync {
    /// Are weakest preconditions computed (state variables tracked, path
    /// segments recorded)?  Read once into `Engine::track_wp`.
    fn computes_wp(&self) -> bool;

    /// The summary of node `key` when `st` implies it under sleep set
    /// `sleep`: the subtree need not be explored.
    fn covered<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        st: &State<'c>,
        key: u64,
        sleep: &[(usize, Vec<Access>)],
    ) -> Option<Cond<'c>>;

    /// At a scheduling node: the summary of `key` when `st` implies it,
    /// with the enabled threads it does not cover (asleep when it was
    /// computed, awake now); empty: it covers the whole subtree.
    fn covered_at_node<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        st: &State<'c>,
        key: u64,
        enabled: &[usize],
        sleep: &[(usize, Vec<Access>)],
    ) -> Option<(Cond<'c>, Vec<usize>)>;

    /// The weakest precondition of a scheduling node after one more child
    /// (every interleaving must be covered: a conjunction).
    fn and_child<'c>(&self, e: &Engine<'c, '_>, wp: Cond<'c>, child: &Cond<'c>) -> Cond<'c>;

    /// The weakest precondition of a branch node after one more side
    /// (`cond`: its condition over the state variables).
    fn or_side<'c>(
        &self,
        e: &Engine<'c, '_>,
        wp: Cond<'c>,
        cond: &Cond<'c>,
        side: &Cond<'c>,
    ) -> Cond<'c>;

    /// Remember the weakest precondition of node `key` explored with sleep
    /// set `sleep`.
    fn record<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        key: u64,
        wp: &Cond<'c>,
        sleep: &[(usize, Vec<Access>)],
    );

    /// Thread `tid`'s transition made accesses `acc` (its clock before was
    /// `pre`): remember them for each open node (RVar/WVar, §5.2).
    fn record_accesses<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        tid: usize,
        acc: &[Access],
        pre: &[usize],
    );
}

/// The strategy and pruning of `opts`.  A replay follows one schedule:
/// nothing is reduced or pruned.
pub(super) fn select(
    opts: &SymexOptions,
) -> (&'static dyn ExplorationStrategy, &'static dyn Pruning) {
    if opts.schedule.is_some() {
        return (&FullSearch, &NoPruning);
    }
    match opts.reduction {
        Reduction::None => (&FullSearch, &NoPruning),
        Reduction::Dpor => (&Dpor, &NoPruning),
        Reduction::DporAg => (&Dpor, &AssertionGuided),
        Reduction::Odpor => (&Odpor, &NoPruning),
        Reduction::OdporAg => (&Odpor, &AssertionGuided),
    }
}
