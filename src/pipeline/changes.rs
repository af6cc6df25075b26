//! `concord changes`: which statements a patch added, deleted, modified
//! or moved (Δdiff).

use super::{load_pair, Answer, Events, LoadedPair, VersionPair};
use crate::budget::Budget;
use crate::error::Result;

/// The two versions to compare.
#[derive(Debug, Clone)]
pub struct ChangesRequest {
    pub versions: VersionPair,
}

/// Both versions and their matching (Δdiff in `pair.matching.changes`).
pub struct ChangesOutcome {
    pub pair: LoadedPair,
}

impl ChangesOutcome {
    /// Found: some statement changed.
    pub fn answer(&self) -> Answer {
        Answer::found_unless_unseen(
            !self.pair.matching.changes.is_empty(),
            !self.pair.unseen.is_empty(),
        )
    }
}

/// Load and match both versions.
pub fn changes(
    req: &ChangesRequest,
    budget: &Budget,
    events: Events<'_>,
) -> Result<ChangesOutcome> {
    Ok(ChangesOutcome {
        pair: load_pair(&req.versions, &[], budget, events)?,
    })
}
