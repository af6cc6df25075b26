//! The analyses over one or two versions' facts: happens-before counts,
//! the two-version diff, lock order, change impact. They read the rule
//! programs' typed outputs (run by `crate::datalog`) and the facts' typed
//! relations, never a relation by name.

pub mod diff;
pub mod diff_counts;
pub mod diff_reference;
pub mod impact;
mod joined;
pub mod lockorder;
pub mod may_hb;
pub mod must_hb;
mod rf_parts;
pub mod unseen;

use serde::Serialize;

/// Which of the two compared versions something belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Old,
    New,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Old => "old",
            Side::New => "new",
        }
    }
}

pub use crate::datalog::{
    programs, run, run_relation, run_with, DiffProgram, Engine, Relations, RuleProgram,
};
