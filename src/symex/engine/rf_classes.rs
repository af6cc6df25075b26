//! Violating classes (`SymexOptions::rf_classes`): every path that ends in
//! a violation is kept with the read-from edges it realised, in the order
//! its reads ran. The carry-over of a fix (`symex OLD NEW`,
//! `crate::symex::carry_over`) asks of each such class of OLD whether NEW
//! can realise it at all.
//!
//! A read is recorded with its writer only when that is unambiguous: the
//! reading transition has one visible instruction, and every byte read was
//! last written by one transition with one visible instruction (or by
//! nobody: a global's initial value). Anything else is recorded as
//! [`RfWriter::Unknown`], which the caller must never use to exclude a
//! class.

use super::state::State;
use super::transitions::{Access, Res};
use super::Engine;
use crate::symex::slice::InstrId;
use serde::Serialize;
use std::rc::Rc;

/// Where a read's value came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum RfWriter {
    /// No write on the path yet: this global's initial value.
    Init(String),
    /// The store (or other writing instruction) of this thread at this
    /// instruction.
    At(usize, InstrId),
    /// Several writers, a transition with several visible instructions,
    /// or memory that is not a global's.
    Unknown,
}

/// One read of a path: the reading instruction (`None` when its
/// transition had several visible instructions) and its writer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RfEvent {
    pub thread: usize,
    pub reader: Option<InstrId>,
    pub writer: RfWriter,
}

/// Where a thread of a path came from: the thread that created it and
/// the `pthread_create` call (both `None` for the entry thread).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThreadOrigin {
    pub parent: Option<usize>,
    pub created_at: Option<InstrId>,
}

/// A path that ended in a violation, with its reads in order.
#[derive(Clone, Debug, Serialize)]
pub struct ViolatingClass {
    pub kind: crate::symex::FindingKind,
    pub location: String,
    pub events: Vec<RfEvent>,
    /// Per thread id of the events, its origin.
    pub threads: Vec<ThreadOrigin>,
}

/// The reads of a path so far (shared with the parent state).
#[derive(Debug)]
pub(super) struct RfNode {
    event: RfEvent,
    prev: Option<Rc<RfNode>>,
}

/// Violating paths kept at most: past it the caller cannot know every
/// class (`Exploration::violating_classes` is then this long).
pub const MAX_VIOLATING_CLASSES: usize = 10_000;

/// Bytes of one access considered at most (as the interference count).
const MAX_BYTES: u64 = 4096;

impl<'c, 'm> Engine<'c, 'm> {
    /// The read events of `acc`, done by thread `tid` at the visible
    /// instructions `st.tr_at`.
    fn rf_events(&self, st: &State<'c>, tid: usize, acc: &[Access]) -> Vec<RfEvent> {
        let reader = match st.tr_at.as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        let mut out = Vec::new();
        for a in acc.iter().filter(|a| !a.write) {
            let writer = match a.res {
                Res::Mem(o, lo, hi) => {
                    let mut ws = (lo..hi.min(lo + MAX_BYTES)).map(|b| st.writers.get(&(o, b)));
                    let first = ws.next().flatten();
                    let same = ws.all(|w| match (w, first) {
                        (None, None) => true,
                        (Some(a), Some(b)) => a.0 == b.0 && Rc::ptr_eq(&a.1, &b.1),
                        _ => false,
                    });
                    let left_out = match (&self.slice, self.obj_global.get(&o)) {
                        (Some(sl), Some(g)) => !sl.global_relevant(g),
                        _ => false,
                    };
                    match (same, first) {
                        // an access the slice leaves out may read another
                        // writer in an execution this one stands for
                        _ if left_out => RfWriter::Unknown,
                        (false, _) => RfWriter::Unknown,
                        (true, None) => match self.obj_global.get(&o) {
                            Some(g) => RfWriter::Init(crate::ir::plain_name(g)),
                            None => RfWriter::Unknown,
                        },
                        (true, Some((t, at))) => match at.as_slice() {
                            [one] => RfWriter::At(*t, *one),
                            _ => RfWriter::Unknown,
                        },
                    }
                }
                _ => RfWriter::Unknown,
            };
            out.push(RfEvent {
                thread: tid,
                reader,
                writer,
            });
        }
        out
    }

    /// The transition of thread `tid` ends with accesses `acc`: log its
    /// reads, then record its writes (unless the interference count or
    /// the diff targets record them already).
    pub(super) fn rf_classes_commit(&mut self, st: &mut State<'c>, tid: usize, acc: &[Access]) {
        if !self.opts.rf_classes {
            return;
        }
        for event in self.rf_events(st, tid, acc) {
            st.rf_log = Some(Rc::new(RfNode {
                event,
                prev: st.rf_log.take(),
            }));
        }
        if self.opts.max_interferences.is_some() || self.opts.diff_targets.is_some() {
            return;
        }
        let at = Rc::new(std::mem::take(&mut st.tr_at));
        for a in acc.iter().filter(|a| a.write) {
            if let Res::Mem(o, lo, hi) = a.res {
                for b in lo..hi.min(lo + MAX_BYTES) {
                    st.writers.insert((o, b), (tid, at.clone()));
                }
            }
        }
    }

    /// A path ends in a violation of thread `tid`: keep its class (the
    /// reads of the transition in progress included).
    pub(super) fn rf_classes_violation(
        &mut self,
        st: &State<'c>,
        tid: usize,
        kind: crate::symex::FindingKind,
        location: &str,
    ) {
        if !self.opts.rf_classes
            || !kind.is_violation()
            || self.violating_classes.len() >= MAX_VIOLATING_CLASSES
        {
            return;
        }
        let mut events = Vec::new();
        let mut node = st.rf_log.as_ref();
        while let Some(n) = node {
            events.push(n.event.clone());
            node = n.prev.as_ref();
        }
        events.reverse();
        events.extend(self.rf_events(st, tid, &st.tr_acc));
        let threads = st
            .threads
            .iter()
            .map(|t| ThreadOrigin {
                parent: t.parent,
                created_at: t.created_at,
            })
            .collect();
        self.violating_classes.push(ViolatingClass {
            kind,
            location: location.to_string(),
            events,
            threads,
        });
    }
}
