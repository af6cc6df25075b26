//! `concord diff`: synchronisation differences between two versions.

use super::values::EngineArg;
use super::{emit_committed, show_events, BudgetArgs, InputArgs, DIFF_EXIT_CODES};
use crate::analysis::diff::DiffOptions;
use crate::budget::Budget;
use crate::error::Result;
use crate::pipeline::diff::{self as pipeline, DiffRequest};
use crate::report::diff as report;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
    Sarif,
    Dot,
}

#[derive(Args, Debug)]
#[command(after_help = DIFF_EXIT_CODES)]
pub struct DiffArgs {
    /// The old version: a program (.c, .ll, .bc), a build directory
    /// (compile_commands.json), C files `a.c,b.c` or `@LIST`, or a fact directory.
    pub old: PathBuf,
    /// The new version, in the same forms.
    pub new: PathBuf,
    /// Highest rank to compute (1: single read-from edges; 2, 3: ordered pairs, triples).
    #[arg(long, default_value_t = DiffOptions::default().max_rank, value_parser = clap::value_parser!(u32).range(1..=3), help_heading = "Analysis")]
    pub max_rank: u32,
    /// Report every rank up to --max-rank instead of stopping at the first with a difference.
    #[arg(long, help_heading = "Analysis")]
    pub all_ranks: bool,
    /// Also count each version's mustHb and mayHb pairs and rank-3 read-from triples (the diff
    /// itself needs none of them; counting the pairs is quadratic in a version's events).
    #[arg(long, help_heading = "Analysis")]
    pub counts: bool,
    /// Datalog engine (crepe is the reference engine, slower).
    #[arg(long, value_enum, default_value_t = EngineArg::from(DiffOptions::default().engine), help_heading = "Analysis")]
    pub engine: EngineArg,
    /// Run the previous implementation (each version's rank-k sets compared
    /// in Rust): the reference for tests and benchmarks.
    #[arg(long, hide = true)]
    pub reference: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    #[command(flatten)]
    pub dot: super::DotArgs,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub versions: super::VersionFlags,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

impl DiffArgs {
    /// The analysis options these arguments ask for.
    pub fn options(&self) -> DiffOptions {
        DiffOptions {
            max_rank: self.max_rank,
            all_ranks: self.all_ranks,
            engine: self.engine.into(),
            counts: self.counts,
        }
    }

    /// The request these arguments make.
    pub fn request(&self) -> DiffRequest {
        DiffRequest {
            versions: self.input.pair(&self.old, &self.new, &self.versions),
            options: self.options(),
            reference: self.reference,
        }
    }
}

pub fn run(args: &DiffArgs, quiet: bool, budget: &Budget) -> Result<i32> {
    let outcome = pipeline::diff(&args.request(), budget, &mut show_events(quiet))?;
    let report = outcome.report();
    let text = match args.format {
        DiffFormat::Text => report::text(&report) + &report.blindness().text(),
        DiffFormat::Json => report::json(&report) + "\n",
        DiffFormat::Sarif => report::sarif(&report) + "\n",
        DiffFormat::Dot => report::dot(&report, &args.dot.options()),
    };
    emit_committed(budget, &text)?;
    Ok(outcome.answer().exit_code())
}
