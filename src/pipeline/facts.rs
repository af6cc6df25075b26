//! `concord facts`: extract one program's facts and write them as files.

use super::{warn_unresolved, Answer, Events};
use crate::budget::Budget;
use crate::error::Result;
use crate::facts::{self, extract::ExtractOptions, io::FactFormat, FactSet};
use crate::frontend::CompileOptions;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What to extract and where to write it.
#[derive(Debug, Clone)]
pub struct FactsRequest {
    /// A program, a build directory or a list of C files.
    pub program: PathBuf,
    /// The fact directory to write (replaced only if it is one, or empty).
    pub output: PathBuf,
    pub format: FactFormat,
    pub compile: CompileOptions,
    pub extract: ExtractOptions,
}

/// The facts written, and how long extracting and writing took.
pub struct FactsOutcome {
    pub facts: FactSet,
    pub elapsed: Duration,
}

impl FactsOutcome {
    /// `facts` answers nothing but "written".
    pub fn answer(&self) -> Answer {
        Answer::Clean
    }

    /// Rows over every relation.
    pub fn fact_count(&self) -> usize {
        self.facts.relations.values().map(|r| r.len()).sum()
    }
}

/// Extract the facts of `req.program` and write them to `req.output`
/// inside `budget`'s commit (complete or absent).
pub fn facts(req: &FactsRequest, budget: &Budget, events: Events<'_>) -> Result<FactsOutcome> {
    let start = Instant::now();
    budget.phase("extract facts")?;
    let facts = crate::load::extract_program(&req.program, &req.compile, &req.extract)?;
    warn_unresolved(&crate::load::unresolved(&facts), events);
    budget.commit(|| facts::io::write_dir(&facts, &req.output, req.format))?;
    Ok(FactsOutcome {
        facts,
        elapsed: start.elapsed(),
    })
}
