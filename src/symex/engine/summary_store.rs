//! The summary store as the engine sees it: summaries of global control
//! states read at the start of an exploration and written as they grow.
//! Where they live (the SQLite file of `symex/store.rs`, memory in tests)
//! is the caller's choice; the engine only calls [`SummaryStore`].

use serde::{Deserialize, Serialize};
#[cfg(test)]
use std::sync::{Arc, Mutex};

/// Summaries kept across explorations.  Errors are the store's own
/// message; the engine reports them as warnings and goes on without.
pub trait SummaryStore: Send {
    /// The summaries stored for this loop bound (empty when this
    /// exploration does not read any).
    fn load(&mut self, loop_bound: u32) -> Result<Vec<StoredSummary>, String>;
    /// Does this exploration write its summaries?  (When not, the engine
    /// does not prepare them.)
    fn saves(&self) -> bool;
    /// Write `items`, replacing summaries with the same key.
    fn save(&mut self, items: &[StoredSummary]) -> Result<(), String>;
}

/// Summaries in memory, keyed like the SQLite store (state key, loop
/// bound): for tests, and for callers that keep summaries between two
/// explorations of one process.
#[cfg(test)]
/// Clones share the summaries (the engine owns the store it is given).
#[derive(Clone, Debug, Default)]
pub struct MemorySummaries {
    pub summaries: Arc<Mutex<Vec<StoredSummary>>>,
    /// Read the summaries held (`load`), write new ones (`save`).
    pub import: bool,
    pub export: bool,
}

#[cfg(test)]
impl SummaryStore for MemorySummaries {
    fn load(&mut self, loop_bound: u32) -> Result<Vec<StoredSummary>, String> {
        if !self.import {
            return Ok(Vec::new());
        }
        Ok(self
            .summaries
            .lock()
            .map_err(|e| e.to_string())?
            .iter()
            .filter(|s| s.loop_bound == loop_bound)
            .cloned()
            .collect())
    }
    fn saves(&self) -> bool {
        self.export
    }
    fn save(&mut self, items: &[StoredSummary]) -> Result<(), String> {
        let mut held = self.summaries.lock().map_err(|e| e.to_string())?;
        for s in items {
            held.retain(|o| (o.state_key, o.loop_bound) != (s.state_key, s.loop_bound));
            held.push(s.clone());
        }
        Ok(())
    }
}

/// One stored summary (engine-independent form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredSummary {
    pub state_key: u64,
    pub loop_bound: u32,
    /// SMT-LIB 2 text: declarations and one assertion.
    pub formula: String,
    /// Threads asleep at the visits that produced it.
    pub asleep: Vec<usize>,
    /// Accesses below the state (RVar/WVar): (thread, access).
    pub accesses: Vec<StoredAccess>,
}

/// A DPOR access of a summary's RVar/WVar set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAccess {
    pub thread: usize,
    pub res: StoredRes,
    pub write: bool,
    /// The portable name of the accessed object (`g:NAME` for a global,
    /// `o:K` for the K-th object made at run time): when present, the
    /// numeric `object` of `res` is not used (object numbers differ
    /// between versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_name: Option<String>,
    /// Bit r: the access happens after thread r's state at the summarised
    /// node, through the summarised executions alone (its own thread
    /// always; 0 in rows written before this field).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub after: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoredRes {
    Mem { object: u32, lo: u64, hi: u64 },
    Mutex { object: u32, offset: u64 },
    Cond { object: u32, offset: u64 },
    ThreadEnd(usize),
    All,
    Independent,
}

#[cfg(test)]
mod tests {
    use super::{MemorySummaries, StoredSummary, SummaryStore};
    use crate::symex::engine::{run, Note};
    use crate::symex::{Exploration, Reduction, SymexOptions};
    use std::path::Path;

    fn explore(m: &llvm_ir::Module, store: Box<dyn SummaryStore>) -> (Exploration, Vec<Note>) {
        let opts = SymexOptions {
            reduction: Reduction::DporAg,
            ..Default::default()
        };
        let mut notes = Vec::new();
        let x = run(m, &opts, Some(store), &mut |_| {}, &mut |n| {
            notes.push(n.clone())
        })
        .unwrap();
        (x, notes)
    }

    fn fig2() -> llvm_ir::Module {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("symex-programs/fig2.c");
        crate::symex::testutil::load(&p).unwrap()
    }

    /// The engine writes its summaries through the trait, and a second
    /// exploration reads them back and reuses them, with the same answer.
    #[test]
    fn engine_saves_and_reuses_summaries_through_the_trait() {
        let m = fig2();
        let mem = MemorySummaries {
            export: true,
            ..Default::default()
        };
        let (first, notes) = explore(&m, Box::new(mem.clone()));
        assert!(notes.is_empty(), "{notes:?}");
        let saved = mem.summaries.lock().unwrap().len() as u64;
        assert!(saved > 0);
        assert_eq!(first.stats.summaries_stored, saved);
        assert_eq!(first.stats.summaries_imported, 0);

        let reader = MemorySummaries {
            import: true,
            export: false,
            summaries: mem.summaries.clone(),
        };
        let (second, _) = explore(&m, Box::new(reader));
        assert_eq!(second.stats.summaries_imported, saved);
        assert!(second.stats.summaries_reused > 0);
        assert_eq!(second.stats.summaries_stored, 0);
        assert_eq!(second.violation_locations(), first.violation_locations());
        assert!(second.stats.runs() <= first.stats.runs());
    }

    /// A store that fails is a warning for the caller, not an error.
    #[test]
    fn store_errors_come_back_as_notes() {
        struct Broken;
        impl SummaryStore for Broken {
            fn load(&mut self, _: u32) -> Result<Vec<StoredSummary>, String> {
                Err("disk on fire".into())
            }
            fn saves(&self) -> bool {
                true
            }
            fn save(&mut self, _: &[StoredSummary]) -> Result<(), String> {
                Err("read-only".into())
            }
        }
        let (x, notes) = explore(&fig2(), Box::new(Broken));
        let text: Vec<String> = notes.iter().map(|n| n.to_string()).collect();
        assert_eq!(
            text,
            [
                "concord: warning: stored summaries not read: disk on fire",
                "concord: warning: summaries not stored: read-only",
            ]
        );
        assert_eq!(x.stats.summaries_stored, 0);
    }
}
