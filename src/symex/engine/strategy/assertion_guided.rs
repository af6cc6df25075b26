//! Assertion-guided pruning (`dpor+ag`, `odpor+ag`; Algorithm 2, §5.2,
//! §6 of the paper): each explored node's weakest precondition (the
//! states from which no new violation is reachable below it) is kept in
//! the bounded summary table (`summary`); a later state that implies a
//! node's summary skips its subtree.  Independent of the interleaving
//! reduction it is combined with; `NoPruning` is the other choice.

use super::super::state::State;
use super::super::summary::{wp_and, wp_or_side};
use super::super::transitions::Access;
use super::super::val::Cond;
use super::super::Engine;
use super::Pruning;

pub(in crate::symex::engine) struct AssertionGuided;

impl Pruning for AssertionGuided {
    fn computes_wp(&self) -> bool {
        true
    }

    fn covered<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        st: &State<'c>,
        key: u64,
        sleep: &[(usize, Vec<Access>)],
    ) -> Option<Cond<'c>> {
        let ps = e.ps_lookup(key, sleep)?;
        e.implied(st, &ps).then_some(ps)
    }

    /// A summary computed where some threads were asleep covers only the
    /// continuations not starting with them: the enabled ones among them
    /// that are awake now are left uncovered.
    fn covered_at_node<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        st: &State<'c>,
        key: u64,
        enabled: &[usize],
        sleep: &[(usize, Vec<Access>)],
    ) -> Option<(Cond<'c>, Vec<usize>)> {
        let (ps, asleep) = e.ps_entry(key)?;
        let uncovered: Vec<usize> = asleep
            .iter()
            .copied()
            .filter(|t| enabled.contains(t) && !sleep.iter().any(|(q, _)| q == t))
            .collect();
        e.implied_with(st, &ps, uncovered.is_empty())
            .then_some((ps, uncovered))
    }

    fn and_child<'c>(&self, e: &Engine<'c, '_>, wp: Cond<'c>, child: &Cond<'c>) -> Cond<'c> {
        wp_and(e.ctx, &e.simp, &wp, child)
    }

    fn or_side<'c>(
        &self,
        e: &Engine<'c, '_>,
        wp: Cond<'c>,
        cond: &Cond<'c>,
        side: &Cond<'c>,
    ) -> Cond<'c> {
        wp_or_side(e.ctx, &e.simp, &wp, cond, side)
    }

    fn record<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        key: u64,
        wp: &Cond<'c>,
        sleep: &[(usize, Vec<Access>)],
    ) {
        e.ps_merge(key, wp, sleep);
    }

    /// With each access, the threads whose state at the open node happens
    /// before it through the subtree alone: the access has seen one of
    /// their transitions from the node's on (a chain through the path
    /// above the node would not hold where the summary is reused).  Over
    /// several paths, the threads all of them agree on.
    fn record_accesses<'c>(
        &self,
        e: &mut Engine<'c, '_>,
        tid: usize,
        acc: &[Access],
        pre: &[usize],
    ) {
        for (k, d) in &e.open {
            let mut after = 0u64;
            for (r, v) in pre.iter().enumerate() {
                if r < 64 && *v > *d {
                    after |= 1 << r;
                }
            }
            let entry = e.rw.entry(*k).or_default();
            for a in acc {
                entry
                    .entry((tid, a.clone()))
                    .and_modify(|m| *m &= after)
                    .or_insert(after);
            }
        }
    }
}

/// No pruning: every subtree the reduction keeps is explored, and no
/// weakest precondition is computed.
pub(in crate::symex::engine) struct NoPruning;

impl Pruning for NoPruning {
    fn computes_wp(&self) -> bool {
        false
    }

    fn covered<'c>(
        &self,
        _e: &mut Engine<'c, '_>,
        _st: &State<'c>,
        _key: u64,
        _sleep: &[(usize, Vec<Access>)],
    ) -> Option<Cond<'c>> {
        None
    }

    fn covered_at_node<'c>(
        &self,
        _e: &mut Engine<'c, '_>,
        _st: &State<'c>,
        _key: u64,
        _enabled: &[usize],
        _sleep: &[(usize, Vec<Access>)],
    ) -> Option<(Cond<'c>, Vec<usize>)> {
        None
    }

    fn and_child<'c>(&self, _e: &Engine<'c, '_>, wp: Cond<'c>, _child: &Cond<'c>) -> Cond<'c> {
        wp
    }

    fn or_side<'c>(
        &self,
        _e: &Engine<'c, '_>,
        wp: Cond<'c>,
        _cond: &Cond<'c>,
        _side: &Cond<'c>,
    ) -> Cond<'c> {
        wp
    }

    fn record<'c>(
        &self,
        _e: &mut Engine<'c, '_>,
        _key: u64,
        _wp: &Cond<'c>,
        _sleep: &[(usize, Vec<Access>)],
    ) {
    }

    fn record_accesses<'c>(
        &self,
        _e: &mut Engine<'c, '_>,
        _tid: usize,
        _acc: &[Access],
        _pre: &[usize],
    ) {
    }
}
