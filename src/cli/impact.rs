//! `concord impact`: arguments and the change-impact reports.

use super::values::EngineArg;
use super::{show_events, InputArgs};
use crate::analysis::impact::Direction;
use crate::budget::Budget;
use crate::error::{ConcordError, Result};
use crate::pipeline::impact::{self as pipeline, ImpactRequest, SourceLine};
use crate::report::impact as report;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DirectionArg {
    Fwd,
    Bwd,
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ImpactFormat {
    Text,
    Json,
    Dot,
    Sarif,
}

#[derive(Args, Debug)]
pub struct ImpactArgs {
    /// The old version (a program or a fact directory); with `--changed` and
    /// no NEW, the one program to analyse.
    pub old: PathBuf,
    /// The new version: a program (.c, .ll, .bc), a build directory, C files
    /// `a.c,b.c` or `@LIST`, or a fact directory.
    pub new: Option<PathBuf>,
    /// Which impacted sets to report.
    #[arg(long, value_enum, default_value_t = DirectionArg::Both)]
    pub direction: DirectionArg,
    /// Print one shortest dependence chain between a change and this line
    /// (`file:line` or `line`, a line of the new version).
    #[arg(long, value_name = "FILE:LINE")]
    pub explain: Option<String>,
    /// Treat these lines of the new version as the changes, instead of
    /// comparing versions (`file:line` or `line`, comma-separated).
    #[arg(long, value_name = "FILE:LINE,...", value_delimiter = ',')]
    pub changed: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ImpactFormat::Text)]
    pub format: ImpactFormat,
    /// Rule engine (crepe is the reference engine used in tests).
    #[arg(long, value_enum, default_value_t = EngineArg::from(crate::analysis::diff::DiffOptions::default().engine), hide = true)]
    pub engine: EngineArg,
    /// Text: show the N impacted lines nearest the changes (default 20);
    /// DOT: draw at most N nodes. JSON and SARIF keep every line.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Text: show every impacted line.
    #[arg(long, conflicts_with = "limit")]
    pub all: bool,
    /// DOT: draw the part of the graph around this line (`FILE:LINE` or `LINE`).
    #[arg(long, value_name = "FILE:LINE", value_parser = parse_focus, help_heading = "Graphs")]
    pub focus: Option<crate::report::dot::Focus>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub versions: super::VersionFlags,
    #[command(flatten)]
    pub budget: super::BudgetArgs,
}

/// Impacted lines the text shows without `--limit`: a screenful.
pub const DEFAULT_TEXT_LIMIT: usize = 20;

/// `file:line` or `line`.
pub fn parse_line_spec(spec: &str) -> std::result::Result<(Option<String>, u32), String> {
    let bad = || format!("`{spec}` is not a line: write FILE:LINE or LINE");
    let spec = spec.trim();
    match spec.rsplit_once(':') {
        Some((file, line)) => Ok((Some(file.to_string()), line.parse().map_err(|_| bad())?)),
        None => Ok((None, spec.parse().map_err(|_| bad())?)),
    }
}

fn parse_focus(s: &str) -> std::result::Result<crate::report::dot::Focus, String> {
    let (file, line) = parse_line_spec(s)?;
    Ok(crate::report::dot::Focus { file, line })
}

/// `--changed` and `--explain` as lines; a malformed one is a usage error.
fn lines(specs: &[String]) -> Result<Vec<SourceLine>> {
    specs
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| source_line(s))
        .collect()
}

fn source_line(spec: &str) -> Result<SourceLine> {
    let (file, line) = parse_line_spec(spec).map_err(ConcordError::Usage)?;
    Ok(SourceLine { file, line })
}

impl ImpactArgs {
    /// The request these arguments make.
    pub fn request(&self) -> Result<ImpactRequest> {
        let changed = lines(&self.changed)?;
        let explain = self.explain.as_deref().map(source_line).transpose()?;
        let (old, new) = match &self.new {
            Some(new) => (
                Some(
                    self.input
                        .version(&self.old, self.versions.old_cflags.as_deref()),
                ),
                self.input.version(new, self.versions.new_cflags.as_deref()),
            ),
            // One program: its changes are the given lines of it.
            None => (
                None,
                self.input
                    .version(&self.old, self.versions.new_cflags.as_deref()),
            ),
        };
        Ok(ImpactRequest {
            old,
            new,
            extract: self.input.extract_options(),
            changed,
            explain,
            directions: match self.direction {
                DirectionArg::Fwd => vec![Direction::Fwd],
                DirectionArg::Bwd => vec![Direction::Bwd],
                DirectionArg::Both => vec![Direction::Fwd, Direction::Bwd],
            },
            engine: self.engine.into(),
        })
    }
}

pub fn run(args: &ImpactArgs, quiet: bool, budget: &Budget) -> Result<i32> {
    let outcome = pipeline::impact(&args.request()?, budget, &mut show_events(quiet))?;
    let (old, new, dirs) = (outcome.old_view(), &outcome.new, &outcome.directions);
    let blind = outcome.blindness();
    let text = match (&outcome.explained, args.format) {
        (Some(e), _) => e
            .chains
            .iter()
            .map(|(d, chain)| {
                report::explain_text(&outcome.result, old, new, *d, &e.target, chain.as_deref())
            })
            .collect(),
        (None, ImpactFormat::Text) => {
            let limit = match (args.all, args.limit) {
                (true, _) => None,
                (false, Some(n)) => Some(n as usize),
                (false, None) => Some(DEFAULT_TEXT_LIMIT),
            };
            report::impact_text(&outcome.result, old, new, dirs, limit) + &blind.text()
        }
        (None, ImpactFormat::Json) => {
            report::impact_json(&outcome.result, old, new, dirs, &blind) + "\n"
        }
        (None, ImpactFormat::Dot) => {
            let dot = crate::report::dot::DotOptions {
                limit: args.limit.map(|l| l as usize),
                focus: args.focus.clone(),
            };
            report::impact_dot(&outcome.result, new, dirs, &dot)
        }
        (None, ImpactFormat::Sarif) => {
            report::impact_sarif(&outcome.result, old, new, dirs, &blind) + "\n"
        }
    };
    super::emit_committed(budget, &text)?;
    Ok(outcome.answer().exit_code())
}
