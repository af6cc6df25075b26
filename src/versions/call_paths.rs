//! The call path of each function instance, for pairing the instances of a
//! cloned helper: a patch that drops one call of `touch()` must not shift
//! the pairing of the instances cloned for the other calls.
//!
//! `stmt_caller` gives the call each instance was cloned for. Matching goes
//! down the call depth: the instances of depth 0 (thread start routines)
//! are matched first, so when the instances of depth d + 1 are grouped,
//! the calls they were cloned for already have their counterparts. An old
//! instance then pairs with the new instance cloned for the new
//! counterpart of its call, whether the calls were matched by source line
//! or, without source text, by aligning the caller's instructions.

use crate::facts::relations::StmtCaller;
use crate::facts::{FactSet, StatementInfo};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// One call of an instance's call path, named in the new version's
/// statement ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum CallRef {
    /// A new call, or an old call whose counterpart is this new call.
    New(u32),
    /// An old call with no counterpart (yet): pairs with nothing.
    OldOnly(u32),
}

/// A function instance's call path, outermost call first (empty for a
/// thread's start routine).
pub(super) type CallPathKey = Vec<CallRef>;

/// One version's statements by call depth, each with the calls its
/// instance was cloned for (statement ids of that version).
pub(super) fn by_depth(facts: &FactSet) -> Vec<Vec<(&StatementInfo, Vec<u32>)>> {
    let callers: HashMap<u32, u32> = facts.iter::<StmtCaller>().map(|r| (r.s.0, r.c.0)).collect();
    let mut memo: HashMap<u32, Vec<u32>> = HashMap::default();
    let mut levels: Vec<Vec<(&StatementInfo, Vec<u32>)>> = Vec::new();
    for s in &facts.statements {
        let chain = match callers.get(&s.id) {
            Some(&c) => chain_of_call(&callers, c, &mut memo),
            None => Vec::new(),
        };
        let depth = chain.len();
        if levels.len() <= depth {
            levels.resize_with(depth + 1, Vec::new);
        }
        levels[depth].push((s, chain));
    }
    levels
}

/// The key of an old instance's call path: each call through the map
/// built so far (`OldOnly` where it has no counterpart).
pub(super) fn old_key(chain: &[u32], map: &BTreeMap<u32, u32>) -> CallPathKey {
    chain
        .iter()
        .map(|c| {
            map.get(c)
                .map_or(CallRef::OldOnly(*c), |&n| CallRef::New(n))
        })
        .collect()
}

/// The key of a new instance's call path.
pub(super) fn new_key(chain: &[u32]) -> CallPathKey {
    chain.iter().map(|&c| CallRef::New(c)).collect()
}

/// The calls the instance entered by `call` was cloned for, `call` last;
/// memoised per call.
fn chain_of_call(
    callers: &HashMap<u32, u32>,
    call: u32,
    memo: &mut HashMap<u32, Vec<u32>>,
) -> Vec<u32> {
    if let Some(p) = memo.get(&call) {
        return p.clone();
    }
    // Walk up to a memoised call (or the thread's root), then back down.
    let mut chain = vec![call];
    let mut seen: BTreeSet<u32> = BTreeSet::from([call]);
    let mut base: Vec<u32> = Vec::new();
    while let Some(&up) = callers.get(chain.last().expect("non-empty")) {
        if let Some(p) = memo.get(&up) {
            base = p.clone();
            break;
        }
        if !seen.insert(up) {
            break; // a shared instance calling itself back: stop here
        }
        chain.push(up);
    }
    for &c in chain.iter().rev() {
        base.push(c);
        memo.insert(c, base.clone());
    }
    base
}
