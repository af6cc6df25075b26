//! Shared function instances that two or more calls enter. Past
//! `--call-depth` or the clone budget, a call links to its thread's one
//! shared instance of the callee (per function and points-to context)
//! instead of a clone. When two calls link to the same instance, the model
//! joins their paths there: the instance returns to both callers, its
//! held locks are those both callers hold, and the code around the calls
//! may seem to run after either (between the two, on a loop the program
//! does not have). Program order and locks are lost there in both
//! versions of a comparison alike, so a change there can be hidden by the
//! over-approximation of both (a lock removed around one of the calls
//! changes nothing the model sees): such a change is unseen
//! (`super::unseen`). Functions the callers call on the way, cloned, keep
//! their own order.

use crate::facts::relations::{CallShared, PoScc, StmtCaller};
use crate::facts::FactSet;
use std::collections::{BTreeSet, HashMap, HashSet};

/// A function instance of one version: named by the call it was cloned
/// for (for a shared instance, the first call that entered it), or the
/// start routine of a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Instance {
    ClonedFor(u32),
    StartOf(u32),
}

/// How one version's joined shared instances touch its statements.
pub struct JoinedInstances<'f> {
    facts: &'f FactSet,
    caller: HashMap<u32, u32>,
    /// Shared instances entered from two or more calls.
    joined: HashSet<Instance>,
    /// Instances that call, directly or through their callees, into a
    /// joined instance.
    above_joined: HashSet<Instance>,
    /// Instances that take or release a lock, directly or through their
    /// callees (a lock wrapper's callers).
    locking_below: HashSet<Instance>,
    /// The version's hb events (accesses, lock and condition calls,
    /// creates, joins).
    events: HashSet<u32>,
}

impl<'f> JoinedInstances<'f> {
    /// One version's joined instances, given its lock, unlock, trylock and
    /// wait calls; `None` when it has none (a program within the default
    /// bounds): nothing to ask then. pigz's main thread outgrows the clone
    /// budget: 252 of its 392 shared instances are entered from two calls
    /// or more.
    pub fn of(facts: &'f FactSet, locking: &BTreeSet<u32>) -> Option<JoinedInstances<'f>> {
        let mut entered_by: HashMap<u32, HashSet<u32>> = HashMap::new();
        for r in facts.iter::<CallShared>() {
            entered_by.entry(r.c.0).or_default().insert(r.s.0);
        }
        entered_by.retain(|_, calls| calls.len() >= 2);
        if entered_by.is_empty() {
            return None;
        }
        let mut view = JoinedInstances {
            facts,
            caller: facts.iter::<StmtCaller>().map(|r| (r.s.0, r.c.0)).collect(),
            joined: entered_by.keys().map(|&c| Instance::ClonedFor(c)).collect(),
            above_joined: HashSet::new(),
            locking_below: HashSet::new(),
            events: facts.iter::<PoScc>().map(|r| r.s.0).collect(),
        };
        view.above_joined = view.instances_on_call_paths(entered_by.values().flatten().copied());
        view.locking_below = view.instances_on_call_paths(locking.iter().copied());
        Some(view)
    }

    /// The instances of the statements and of every call on their call
    /// paths up to their thread's start routine.
    fn instances_on_call_paths(&self, stmts: impl IntoIterator<Item = u32>) -> HashSet<Instance> {
        let mut out = HashSet::new();
        for s in stmts {
            let mut at = s;
            while let Some(i) = self.instance_of(at) {
                if !out.insert(i) {
                    break;
                }
                match i {
                    Instance::ClonedFor(c) => at = c,
                    Instance::StartOf(_) => break,
                }
            }
        }
        out
    }

    fn instance_of(&self, s: u32) -> Option<Instance> {
        match self.caller.get(&s) {
            Some(&c) => Some(Instance::ClonedFor(c)),
            None => self
                .facts
                .statement(s)
                .map(|st| Instance::StartOf(st.thread)),
        }
    }

    /// Statement `s` lies in a joined instance, or in an instance a
    /// joined one calls (itself shared: past a bound, every deeper call is
    /// cut too).
    pub fn in_joined(&self, s: u32) -> bool {
        let mut at = s;
        while let Some(&c) = self.caller.get(&at) {
            if self.joined.contains(&Instance::ClonedFor(c)) {
                return true;
            }
            at = c;
        }
        false
    }

    /// Statement `s` is an event, or a call of a function that takes or
    /// releases a lock, in an instance whose calls reach a joined
    /// instance. That instance returns to every caller, so the code around
    /// those calls may seem to run after either of them (between two
    /// calls, on a loop the program does not have), holding only the locks
    /// held at both: the event's order and held locks are joined, and a
    /// section it opens or closes may enclose joined code.
    pub fn near_joined(&self, s: u32, locking: &BTreeSet<u32>) -> bool {
        let relevant = self.events.contains(&s)
            || locking.contains(&s)
            || self.locking_below.contains(&Instance::ClonedFor(s));
        relevant
            && self
                .instance_of(s)
                .is_some_and(|i| self.above_joined.contains(&i))
    }
}
