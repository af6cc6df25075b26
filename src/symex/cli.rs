//! `concord symex` and `concord replay` (parsed here; the top-level binary
//! only forwards its arguments).

use super::{explore, output, testutil, Reduction, SymexOptions};
use clap::{Args, Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;

/// Options of `concord symex`.
#[derive(Args, Debug, Clone)]
pub struct SymexArgs {
    /// Program: `.c` (compiled with clang-14), `.ll` or `.bc`.
    pub program: PathBuf,
    /// none | dpor | dpor+ag
    #[arg(long, default_value = "dpor+ag")]
    pub reduction: Reduction,
    /// Times a basic block may be re-entered per function activation.
    #[arg(long, default_value_t = 3)]
    pub loop_bound: u32,
    /// Stop after this many runs.
    #[arg(long)]
    pub max_runs: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long)]
    pub max_time: Option<f64>,
    /// Entry function.
    #[arg(long, default_value = "main")]
    pub entry: String,
    /// Entries of the bounded summary table.
    #[arg(long, default_value_t = 1 << 16)]
    pub summary_table: usize,
    /// Maximal number of weakest preconditions merged into one summary.
    #[arg(long, default_value_t = 256)]
    pub summary_merges: u32,
    /// Do not use the static slice of the assertions.
    #[arg(long)]
    pub no_slice: bool,
    /// Results directory (default: a fresh `concord-out-N` next to the
    /// current directory, with a `concord-last` link).
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Options of `concord replay`.
#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    pub program: PathBuf,
    /// A `testNNNNNN.json` written by `concord symex`.
    pub testcase: PathBuf,
    #[arg(long, default_value_t = 3)]
    pub loop_bound: u32,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Symbolically execute a pthread program.
    Symex(SymexArgs),
    /// Re-execute a test case's schedule with its concrete inputs.
    Replay(ReplayArgs),
}

#[derive(Parser, Debug)]
#[command(name = "concord")]
struct Top {
    #[command(subcommand)]
    cmd: Cmd,
}

/// Parse `concord symex|replay ...` and run it; returns the exit code
/// (0: no violation / replay confirmed, 1: violations found / replay did not
/// confirm, 2: usage or load error).
pub fn cli_main<I, T>(args: I) -> anyhow::Result<i32>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let top = Top::parse_from(args);
    run_cmd(top.cmd)
}

/// Run one parsed subcommand.
pub fn run_cmd(cmd: Cmd) -> anyhow::Result<i32> {
    match cmd {
        Cmd::Symex(a) => symex(a),
        Cmd::Replay(a) => replay(a),
    }
}

fn symex(a: SymexArgs) -> anyhow::Result<i32> {
    let module = testutil::load(&a.program).map_err(|e| anyhow::anyhow!(e))?;
    let opts = SymexOptions {
        reduction: a.reduction,
        loop_bound: a.loop_bound,
        max_runs: a.max_runs,
        max_seconds: a.max_time,
        summary_table_size: a.summary_table,
        summary_max_merges: a.summary_merges,
        slice: !a.no_slice,
        progress: !a.quiet,
        entry: a.entry.clone(),
        ..Default::default()
    };
    let started = std::time::SystemTime::now();
    let res = explore(&module, &opts)?;
    let dir = output::write_results(a.output_dir.as_deref(), &a.program, &opts, &res, started)?;
    let s = &res.stats;
    eprintln!(
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
    for f in &res.findings {
        println!(
            "{:?} at {} ({}): {} [thread {}, schedule {:?}]",
            f.kind, f.location, f.function, f.message, f.thread, f.schedule
        );
    }
    eprintln!("[symex] results in {}", dir.display());
    Ok(if res.findings.iter().any(|f| f.kind.is_violation()) {
        1
    } else {
        0
    })
}

fn replay(a: ReplayArgs) -> anyhow::Result<i32> {
    let module = testutil::load(&a.program).map_err(|e| anyhow::anyhow!(e))?;
    let tc = output::read_testcase(&a.testcase)?;
    let r = output::replay(&module, &tc, a.loop_bound)?;
    if r.confirmed {
        println!("confirmed: {:?} at {}", tc.kind, tc.location);
        Ok(0)
    } else {
        println!(
            "NOT confirmed: expected {:?} at {}; got {:?}",
            tc.kind, tc.location, r.got
        );
        Ok(1)
    }
}
