//! `concord facts`: arguments, and the summary line on stderr.

use super::values::FactFormatArg;
use super::{show_events, BudgetArgs, InputArgs};
use crate::budget::Budget;
use crate::error::Result;
use crate::facts::coverage::CoverageAccount;
use crate::pipeline::facts::{self as pipeline, FactsRequest};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct FactsArgs {
    /// The program: a .c, .ll or .bc file with a main function, a build
    /// directory (compile_commands.json), or C files `a.c,b.c` or `@LIST`.
    pub program: PathBuf,
    /// Output directory (created if missing).
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// File format of the relations.
    #[arg(long, value_enum, default_value_t = FactFormatArg::Tsv)]
    pub format: FactFormatArg,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

impl FactsArgs {
    pub fn request(&self) -> FactsRequest {
        FactsRequest {
            program: self.program.clone(),
            output: self.output.clone(),
            format: self.format.into(),
            compile: self.input.compile_options(),
            extract: self.input.extract_options(),
        }
    }
}

pub fn run(args: &FactsArgs, quiet: bool, budget: &Budget) -> Result<i32> {
    let outcome = pipeline::facts(&args.request(), budget, &mut show_events(quiet))?;
    if !quiet {
        let facts = &outcome.facts;
        eprintln!(
            "concord: {} statements, {} threads, {} locations, {} facts in {} relations -> {} ({:.1?})",
            facts.statements.len(),
            facts.threads.len(),
            facts.locations.len(),
            outcome.fact_count(),
            facts.relations.len(),
            args.output.display(),
            outcome.elapsed
        );
        for line in CoverageAccount::of(&outcome.facts).text_lines("") {
            eprintln!("concord: {line}");
        }
    }
    let code = outcome.answer().exit_code();
    // The process exits next: freeing millions of rows one by one took
    // about 5% of a `facts` run on pigz, for memory the exit returns anyway.
    std::mem::forget(outcome);
    Ok(code)
}
