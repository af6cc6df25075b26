//! `concord impact`: arguments and dispatch for the change-impact analysis.

use super::{load_both, load_version, InputArgs};
use crate::analysis::impact::{self, Direction};
use crate::analysis::Engine;
use crate::budget::Budget;
use crate::error::{exit, Result};
use crate::report::impact as report;
use clap::Args;
use std::collections::BTreeSet;
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
    #[arg(long, value_enum, default_value_t = crate::analysis::diff::DiffOptions::default().engine, hide = true)]
    pub engine: Engine,
    #[command(flatten)]
    pub dot: super::DotArgs,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub versions: super::VersionFlags,
    #[command(flatten)]
    pub budget: super::BudgetArgs,
}

/// `file:line` or `line`.
pub fn parse_line_spec(spec: &str) -> std::result::Result<(Option<String>, u32), String> {
    let bad = || format!("`{spec}` is not a line: write FILE:LINE or LINE");
    let spec = spec.trim();
    match spec.rsplit_once(':') {
        Some((file, line)) => Ok((Some(file.to_string()), line.parse().map_err(|_| bad())?)),
        None => Ok((None, spec.parse().map_err(|_| bad())?)),
    }
}

/// A command-line mistake clap cannot see: reported like clap's own (exit 2).
fn usage(msg: &str) -> Result<i32> {
    eprintln!("concord: error: {msg}");
    Ok(exit::USAGE)
}

pub fn run_impact(args: &ImpactArgs, budget: &Budget) -> Result<i32> {
    let given: Vec<(Option<String>, u32)> = match args
        .changed
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| parse_line_spec(s))
        .collect::<std::result::Result<_, _>>()
    {
        Ok(g) => g,
        Err(e) => return usage(&e),
    };
    let explain = match args.explain.as_deref().map(parse_line_spec).transpose() {
        Ok(e) => e,
        Err(e) => return usage(&e),
    };
    budget.phase("load")?;
    let (old, new) = match &args.new {
        Some(n) => {
            let (o, n) = load_both(&args.old, n, &args.input, &args.versions)?;
            (Some(o), n)
        }
        None => {
            if given.is_empty() {
                return usage(
                    "give two versions (OLD NEW), or one program and --changed FILE:LINE,...",
                );
            }
            let input = args.input.with_cflags(args.versions.new_cflags.as_deref());
            (None, load_version(&args.old, &input)?)
        }
    };
    if let Some((file, line)) = given.iter().find(|(file, line)| {
        !new.facts.statements.iter().any(|s| {
            s.line == *line
                && file
                    .as_deref()
                    .map_or(true, |f| impact::file_matches(&s.file, f))
        })
    }) {
        let at = file.as_deref().map_or(String::new(), |f| format!("{f}:"));
        return usage(&format!(
            "--changed {at}{line}: no statement of {} is on that line",
            new.label
        ));
    }
    budget.phase("match versions")?;
    let (groups, map) = if !given.is_empty() {
        (impact::given_groups(&new.facts, &given), Default::default())
    } else {
        let old = old.as_ref().expect("two versions");
        let m = super::match_loaded(old, &new);
        (impact::change_groups(&m, &old.facts, &new.facts), m.map)
    };
    let old_facts = if given.is_empty() {
        old.as_ref().map(|o| &o.facts)
    } else {
        None
    };
    budget.phase("impact rules")?;
    let result = impact::analyse(args.engine, groups, old_facts, &new.facts, &map);
    budget.phase("report")?;
    let dirs: Vec<Direction> = match args.direction {
        DirectionArg::Fwd => vec![Direction::Fwd],
        DirectionArg::Bwd => vec![Direction::Bwd],
        DirectionArg::Both => vec![Direction::Fwd, Direction::Bwd],
    };
    let old_view = old.as_ref().filter(|_| given.is_empty());
    let new_view = &new;
    if let Some((file, line)) = explain {
        let target = match &file {
            Some(f) => format!("{f}:{line}"),
            None => format!("line {line}"),
        };
        let targets: BTreeSet<u32> = new
            .facts
            .statements
            .iter()
            .filter(|s| {
                s.line == line
                    && file
                        .as_deref()
                        .map_or(true, |f| impact::file_matches(&s.file, f))
            })
            .map(|s| s.id)
            .collect();
        if targets.is_empty() {
            return usage(&format!("no statement of {} is on {target}", new.label));
        }
        let mut out = String::new();
        let mut any = false;
        for &d in &dirs {
            let chain = impact::explain(&result, d, &targets);
            any |= chain.is_some();
            out.push_str(&report::explain_text(
                &result,
                old_view,
                new_view,
                d,
                &target,
                chain.as_deref(),
            ));
        }
        super::emit_committed(budget, &out)?;
        return Ok(if any { exit::FINDINGS } else { exit::OK });
    }
    let text = match args.format {
        ImpactFormat::Text => report::impact_text(&result, old_view, new_view, &dirs),
        ImpactFormat::Json => report::impact_json(&result, old_view, new_view, &dirs) + "\n",
        ImpactFormat::Dot => report::impact_dot(&result, new_view, &dirs, &args.dot.options()),
        ImpactFormat::Sarif => report::impact_sarif(&result, old_view, new_view, &dirs) + "\n",
    };
    super::emit_committed(budget, &text)?;
    let impacted = dirs.iter().any(|d| match d {
        Direction::Fwd => !result.fwd.is_empty() || !result.fwd_old.is_empty(),
        Direction::Bwd => !result.bwd.is_empty() || !result.bwd_old.is_empty(),
    });
    Ok(if impacted { exit::FINDINGS } else { exit::OK })
}
