//! Full search (`--reduction none`, Algorithm 1 of the paper): from every
//! state, every enabled thread; no sleep sets, no races.

use super::super::state::State;
use super::super::transitions::Access;
use super::super::Engine;
use super::{ExplorationStrategy, NodeView, Sleep, Wut};

pub(in crate::symex::engine) struct FullSearch;

impl ExplorationStrategy for FullSearch {
    fn open_node(&self, _e: &mut Engine<'_, '_>, _node: &NodeView<'_>) -> bool {
        true
    }

    fn choose_next(&self, e: &mut Engine<'_, '_>, node: &NodeView<'_>) -> Option<(usize, Wut)> {
        let done = &e.nodes[node.d].done;
        let t = node.order.iter().find(|t| !done.contains(t))?;
        Some((*t, Wut::default()))
    }

    fn child_sleep<'c>(
        &self,
        _e: &Engine<'c, '_>,
        _st: &State<'c>,
        _node: &NodeView<'_>,
        _t: usize,
        _tacc: &[Access],
    ) -> Sleep {
        Vec::new()
    }
}
