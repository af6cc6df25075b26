//! `concord diff`: synchronisation differences between two versions.

use super::{emit, load_version, InputArgs, DIFF_EXIT_CODES};
use crate::analysis::diff::{sync_diff, DiffOptions};
use crate::analysis::lockorder::lock_order_diff;
use crate::analysis::Engine;
use crate::error::{exit, Result};
use crate::report::diff::{self as report, DiffReport};
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

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
    /// The old version: a program (.c, .ll, .bc) or a fact directory.
    pub old: PathBuf,
    /// The new version: a program or a fact directory.
    pub new: PathBuf,
    /// Highest rank to compute (1: single read-from edges; 2, 3: ordered pairs, triples).
    #[arg(long, default_value_t = DiffOptions::default().max_rank, value_parser = clap::value_parser!(u32).range(1..=3), help_heading = "Analysis")]
    pub max_rank: u32,
    /// Report every rank up to --max-rank instead of stopping at the first with a difference.
    #[arg(long, help_heading = "Analysis")]
    pub all_ranks: bool,
    /// Datalog engine (crepe is the reference engine, slower).
    #[arg(long, value_enum, default_value_t = DiffOptions::default().engine, help_heading = "Analysis")]
    pub engine: Engine,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(args: &DiffArgs, quiet: bool) -> Result<i32> {
    let t0 = Instant::now();
    let old = load_version(&args.old, &args.input)?;
    let t1 = Instant::now();
    let new = load_version(&args.new, &args.input)?;
    let t2 = Instant::now();
    let m = super::match_loaded(&old, &new);
    let t3 = Instant::now();
    if !quiet {
        eprintln!("concord: comparing {} and {} ...", old.label, new.label);
    }
    let opts = DiffOptions {
        max_rank: args.max_rank,
        all_ranks: args.all_ranks,
        engine: args.engine,
    };
    let sync = sync_diff(&old.facts, &new.facts, &m, &opts);
    let t4 = Instant::now();
    let locks = lock_order_diff(&old.facts, &sync.old_sync1, &new.facts, &sync.new_sync1);
    let t5 = Instant::now();
    let mut timing = vec![
        ("load old".to_string(), t1 - t0),
        ("load new".to_string(), t2 - t1),
        ("match versions".to_string(), t3 - t2),
    ];
    for ((name, d_old), (_, d_new)) in sync
        .old_stats
        .rule_time
        .iter()
        .zip(&sync.new_stats.rule_time)
    {
        timing.push((format!("rules {name} old"), *d_old));
        timing.push((format!("rules {name} new"), *d_new));
    }
    timing.push((
        "compare".to_string(),
        (t4 - t3).saturating_sub(
            sync.old_stats
                .rule_time
                .iter()
                .chain(&sync.new_stats.rule_time)
                .map(|(_, d)| *d)
                .sum(),
        ),
    ));
    timing.push(("lock order".to_string(), t5 - t4));
    let report = DiffReport {
        old: &old,
        new: &new,
        sync: &sync,
        locks: &locks,
        timing,
    };
    let text = match args.format {
        DiffFormat::Text => report::text(&report),
        DiffFormat::Json => report::json(&report) + "\n",
        DiffFormat::Sarif => report::sarif(&report) + "\n",
        DiffFormat::Dot => report::dot(&report),
    };
    emit(&text)?;
    let different = sync.first_rank != 0 || locks.has_difference();
    Ok(if different { exit::FINDINGS } else { exit::OK })
}
