//! `concord changes`: arguments and the Δdiff report.

use super::{emit_committed, show_events, BudgetArgs, InputArgs, VersionFlags};
use crate::budget::Budget;
use crate::error::Result;
use crate::pipeline::changes::{self as pipeline, ChangesRequest};
use crate::report::changes as report;
use crate::report::coverage::Blindness;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ChangesFormat {
    Text,
    Json,
    Sarif,
}

#[derive(Args, Debug)]
pub struct ChangesArgs {
    /// The old version: a program (.c, .ll, .bc), a build directory
    /// (compile_commands.json), C files `a.c,b.c` or `@LIST`, or a fact directory.
    pub old: PathBuf,
    /// The new version, in the same forms.
    pub new: PathBuf,
    /// Output format (SARIF: one note per changed line).
    #[arg(long, value_enum, default_value_t = ChangesFormat::Text)]
    pub format: ChangesFormat,
    /// Show each changed statement's LLVM instruction under its source line.
    #[arg(long)]
    pub ir: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub versions: VersionFlags,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

pub fn run(args: &ChangesArgs, quiet: bool, budget: &Budget) -> Result<i32> {
    let req = ChangesRequest {
        versions: args.input.pair(&args.old, &args.new, &args.versions),
    };
    let outcome = pipeline::changes(&req, budget, &mut show_events(quiet))?;
    let (m, old, new) = (&outcome.pair.matching, &outcome.pair.old, &outcome.pair.new);
    let blind = Blindness::of_pair(old, new, &outcome.pair.unseen);
    let text = match args.format {
        ChangesFormat::Json => report::json(m, old, new, &blind) + "\n",
        ChangesFormat::Sarif => report::sarif(m, old, new, &blind) + "\n",
        ChangesFormat::Text => report::text(m, old, new, args.ir) + &blind.text(),
    };
    emit_committed(budget, &text)?;
    Ok(outcome.answer().exit_code())
}
