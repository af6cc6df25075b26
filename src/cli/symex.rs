//! `concord symex` and `concord replay`: arguments, and the summaries of
//! [`crate::pipeline::symex`]'s outcome.

use super::values::SymexFormatArg;
use super::{show_events, CompileArgs};
use crate::error::{exit, Result};
use crate::pipeline::symex::{self as pipeline, ReplayRequest, StoreChoice, SymexRequest};
use crate::report::symex::SymexFormat;
use crate::symex::{Reduction, SymexOptions};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// The last loop bound iterative deepening tries by default (the first is
/// the library's default `loop_bound`).
pub const DEFAULT_MAX_LOOP_BOUND: u32 = 24;

/// The options `concord symex PROGRAM` explores with when given no flags:
/// the library's [`SymexOptions::default`] (reduction included) plus
/// iterative deepening, which only the command line turns on by default:
/// a library caller that names a loop bound, such as `replay`, means that
/// bound. Every clap default below is read from here, so the command line
/// and the library cannot drift apart unnoticed (`tests/help.rs` parses a
/// bare command line and compares).
pub fn cli_defaults() -> SymexOptions {
    SymexOptions {
        max_loop_bound: Some(DEFAULT_MAX_LOOP_BOUND),
        ..SymexOptions::default()
    }
}

/// Options of `concord symex`.
#[derive(Args, Debug, Clone)]
pub struct SymexArgs {
    /// Program: `.c` (compiled with clang-14), `.ll` or `.bc`; with NEW,
    /// the old version.
    pub program: PathBuf,
    /// The new version: explore it incrementally (+CIA), reporting the
    /// findings of the old version outside the impacted set as unchanged.
    pub new: Option<PathBuf>,
    /// none | dpor | dpor+ag | odpor | odpor+ag
    #[arg(long, default_value_t = cli_defaults().reduction)]
    pub reduction: Reduction,
    /// Times a basic block may be re-entered per function activation
    /// (given: no iterative deepening unless --max-loop-bound is given too).
    #[arg(long)]
    pub loop_bound: Option<u32>,
    /// While runs are cut, explore again with twice the loop bound (3, 6,
    /// 12, ...) up to this bound, within --max-time (default: 60 s for the
    /// deeper stages).
    #[arg(long)]
    pub max_loop_bound: Option<u32>,
    /// Stop after this many runs (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_runs: Option<u64>,
    /// Stop after this many seconds (more than 0).
    #[arg(long, value_parser = positive_seconds)]
    pub max_time: Option<f64>,
    /// A hard cap besides --max-time (which stops exploring and reports
    /// what was explored): past it the process ends with exit code 9.
    #[command(flatten)]
    pub budget: super::BudgetArgs,
    /// Entry function.
    #[arg(long, default_value_t = cli_defaults().entry)]
    pub entry: String,
    /// Entries of the bounded summary table.
    #[arg(long, default_value_t = cli_defaults().summary_table_size)]
    pub summary_table: usize,
    /// Maximal number of weakest preconditions merged into one summary.
    #[arg(long, default_value_t = cli_defaults().summary_max_merges)]
    pub summary_merges: u32,
    /// Do not use the static slice of the assertions (nor, with OLD, the
    /// diff-directed run's slice of what the patch reaches).
    #[arg(long)]
    pub no_slice: bool,
    /// Skip the first pass (short searches under other thread orders
    /// before the complete search; docs/symex.md, "First pass").
    #[arg(long)]
    pub no_first_pass: bool,
    /// Results directory (default: a fresh `concord-out-N` next to the
    /// current directory, with a `concord-last` link). A directory that
    /// exists and is not empty is refused (exit 8): results are never mixed.
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
    /// Summary format on stdout (the results directory is written in every format).
    #[arg(long, value_enum, default_value_t = SymexFormatArg::from(SymexFormat::default()))]
    pub format: SymexFormatArg,
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Summary store (default: one per program directory, OLD's for OLD NEW,
    /// in `$XDG_CACHE_HOME/concord/summaries/`, else
    /// `~/.cache/concord/summaries/`): runs, findings and summaries, reused
    /// by later runs. Nothing is written beside the program.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// Bug-finding mode (con2colic): explore with at most 0, 1, ..., K
    /// cross-thread read-from interferences per path; `inconclusive`
    /// unless a violation is found or the bound never cut a path.
    #[arg(long, value_name = "K")]
    pub max_interferences: Option<u32>,
    /// Neither read nor write a summary store.
    #[arg(long, conflicts_with = "store")]
    pub no_store: bool,
    /// With NEW (DiSE): explore paths through impacted statements first and
    /// report each impacted path condition of NEW, new or not in OLD
    /// (`directed.json`).
    #[arg(long, requires = "new")]
    pub directed: bool,
    /// With NEW: explore all of NEW (+CIA) instead of only the runs that
    /// realise a read-from tuple only in NEW or run changed code.
    #[arg(long, requires = "new")]
    pub no_diff_directed: bool,
    /// With NEW: compare read-from tuples up to this rank (1, 2 or 3).
    #[arg(long, requires = "new", default_value_t = crate::symex::diff_directed::DEFAULT_RANK,
          value_parser = clap::value_parser!(u32).range(1..=3))]
    pub diff_rank: u32,
    /// One argument of the program after its name (argv[1..]), repeatable:
    /// `--arg 2 --arg 2`. Default none: main runs with argc = 1, argv =
    /// {program, NULL}. (`--args` is the same flag: one value each time.)
    #[arg(
        long = "arg",
        visible_alias = "args",
        num_args = 1,
        action = clap::ArgAction::Append,
        allow_hyphen_values = true,
        value_name = "ARG"
    )]
    pub arg: Vec<String>,
    /// The program's arguments after `--`, in order: `concord symex prog.bc
    /// -- 2 2` runs main with argc = 3 (they follow any `--arg`).
    #[arg(last = true, value_name = "PROGRAM_ARGS")]
    pub trailing: Vec<String>,
}

fn positive_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        Ok(_) => Err("must be a number of seconds greater than 0".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// Options of `concord replay`.
#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    pub program: PathBuf,
    /// A `testNNNNNN.json` written by `concord symex`.
    pub testcase: PathBuf,
    /// Loop bound (default: the one recorded in the test case).
    #[arg(long)]
    pub loop_bound: Option<u32>,
    #[command(flatten)]
    pub compile: CompileArgs,
}

/// Progress and summaries on stderr: a closed or full stderr is not worth
/// failing (or panicking) for.
macro_rules! note {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// Print to stdout; a failed write (full disk, closed pipe) is an output
/// error (exit 8), never a panic or a silent success.
fn print_out(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| crate::error::ConcordError::Output {
            path: PathBuf::from("<stdout>"),
            reason: e.to_string(),
        })
}

/// The exploration options of `a` (progress unless `quiet`); the program's
/// name and arguments are the pipeline's to add.
pub fn options(a: &SymexArgs, quiet: bool) -> SymexOptions {
    let d = cli_defaults();
    SymexOptions {
        reduction: a.reduction,
        loop_bound: a.loop_bound.unwrap_or(d.loop_bound),
        max_loop_bound: match (a.loop_bound, a.max_loop_bound) {
            (_, Some(m)) => Some(m),
            (None, None) => d.max_loop_bound,
            (Some(_), None) => None,
        },
        max_runs: a.max_runs,
        max_seconds: a.max_time,
        summary_table_size: a.summary_table,
        summary_max_merges: a.summary_merges,
        slice: !a.no_slice,
        first_pass: !a.no_first_pass && d.first_pass,
        progress: !quiet,
        entry: a.entry.clone(),
        ..d
    }
}

impl SymexArgs {
    /// The request these arguments make.
    pub fn request(&self, quiet: bool) -> SymexRequest {
        SymexRequest {
            program: self.program.clone(),
            new: self.new.clone(),
            compile: self.compile.compile_options(),
            options: options(self, quiet),
            program_args: self.arg.iter().chain(&self.trailing).cloned().collect(),
            output_dir: self.output_dir.clone(),
            store: match (&self.store, self.no_store) {
                (_, true) => StoreChoice::None,
                (Some(p), false) => StoreChoice::At(p.clone()),
                (None, false) => StoreChoice::InCache,
            },
            max_interferences: self.max_interferences,
            directed: self.directed,
            diff_directed: !self.no_diff_directed,
            diff_rank: self.diff_rank,
        }
    }
}

/// `concord symex`: exit 1 on a violation, 0 when verified, 10 when
/// inconclusive.
pub fn run(a: &SymexArgs, quiet: bool) -> Result<i32> {
    let outcome = pipeline::symex(&a.request(quiet), &mut show_events(quiet))?;
    let res = &outcome.exploration;
    let opts = &outcome.options;
    if !quiet {
        match &outcome.incremental {
            None => {
                let s = &res.stats;
                note!(
                    "[symex] done ({}): {} runs ({} complete, {} error), {} partial, {} cut, {} pruned interleavings, {} solver queries, {:.2}s",
                    opts.reduction,
                    s.runs(),
                    s.complete_runs,
                    s.error_runs,
                    s.partial_runs,
                    s.cut_runs,
                    s.pruned_interleavings,
                    s.solver_queries,
                    s.total_ms / 1000.0
                );
            }
            Some(inc) => {
                let s = &inc.new_stats;
                let scia = opts.store.is_some() && opts.reduction == Reduction::DporAg;
                // the diff-directed run is neither +CIA nor +SCIA
                let mode = if inc.diff.as_ref().is_some_and(|d| d.claimed) {
                    "diff-directed".to_string()
                } else {
                    format!("+CIA{}", if scia { "+SCIA" } else { "" })
                };
                note!(
                    "[symex] OLD: {} runs; NEW ({mode}, {}): {} runs ({} complete, {} error), {} partial, {} cut, {} stored summaries reused, {:.2}s; {} findings unchanged from OLD",
                    inc.stats.old_runs,
                    opts.reduction,
                    s.runs(),
                    s.complete_runs,
                    s.error_runs,
                    s.partial_runs,
                    s.cut_runs,
                    s.summaries_reused,
                    s.total_ms / 1000.0,
                    inc.stats.unchanged_from_old,
                );
                let carry = inc
                    .diff
                    .as_ref()
                    .and_then(|d| Some((d, d.carry_over.as_ref()?)));
                if let Some((d, c)) = carry {
                    note!(
                        "[symex] carry-over of a fix: OLD explored again for its violating classes (dpor): {} runs, {} classes, {} not feasible in NEW; NEW: {} replays of OLD's test cases{}",
                        c.old_class_runs,
                        c.violating_classes,
                        c.excluded,
                        d.new_replays,
                        c.not_concluded
                            .as_ref()
                            .map(|w| format!("; not concluded: {w}"))
                            .unwrap_or_default()
                    );
                }
            }
        }
    }
    let format = SymexFormat::from(a.format);
    print_out(&crate::report::symex::render(
        format,
        &outcome.program.display().to_string(),
        res,
    ))?;
    // the per-condition lines are text; JSON and SARIF readers find them
    // in directed.json
    let directed = outcome
        .incremental
        .as_ref()
        .and_then(|i| i.directed.as_ref());
    if let Some(r) = directed.filter(|_| format == SymexFormat::Text) {
        print_out(&r.to_string())?;
    }
    let diff = outcome.incremental.as_ref().and_then(|i| i.diff.as_ref());
    if let Some(d) = diff.filter(|_| format == SymexFormat::Text) {
        print_out(&format!("{}\n", d.guarantee()))?;
    }
    if !quiet {
        note!("[symex] results in {}", outcome.results_dir.display());
    }
    // A stale `concord-last` would point a reader at old results: say so
    // even under -q.
    if a.output_dir.is_none() && crate::symex::output::last_link_blocked() {
        note!(
            "concord: warning: `concord-last` is not a link (a file or directory of that name exists): not updated; results in {}",
            outcome.results_dir.display()
        );
    }
    Ok(outcome.answer().exit_code())
}

/// `concord replay`: exit 0 when the violation is confirmed, 1 when not,
/// 2 when the test case does not fit the program.
pub fn replay(a: &ReplayArgs) -> Result<i32> {
    let outcome = pipeline::replay(&ReplayRequest {
        program: a.program.clone(),
        testcase: a.testcase.clone(),
        loop_bound: a.loop_bound,
        compile: a.compile.compile_options(),
    })?;
    let (tc, r) = (&outcome.testcase, &outcome.replay);
    // The interleaving step by step, as the replay ran it.
    if let Some(t) = &r.trace {
        let mut text = String::from("trace:\n");
        for s in t {
            text += &format!("{s}\n");
        }
        print_out(&text)?;
    }
    if r.confirmed {
        print_out(&format!("confirmed: {:?} at {}\n", tc.kind, tc.location))?;
        Ok(exit::OK)
    } else {
        print_out(&format!(
            "NOT confirmed: expected {:?} at {}; got {:?}\n",
            tc.kind, tc.location, r.got
        ))?;
        Ok(exit::FINDINGS)
    }
}
