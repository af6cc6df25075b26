//! `concord symex` and `concord replay` (parsed here; the top-level binary
//! only forwards its arguments).

use super::{explore, output, Reduction, SymexOptions};
use crate::error::{exit, ConcordError, Result};
use crate::frontend::{load_module, CompileOptions};
use clap::Args;
use std::path::{Path, PathBuf};

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

/// Load through the shared frontend (its error classes and exit codes).
fn load(program: &Path) -> Result<llvm_ir::Module> {
    Ok(load_module(program, &CompileOptions::default())?.module)
}

fn failed(program: &Path, e: impl std::fmt::Display) -> ConcordError {
    ConcordError::Unsupported {
        path: program.to_path_buf(),
        what: e.to_string(),
    }
}

/// `concord symex`: exit 0 when no violation was found, 1 when one was.
pub fn symex(a: &SymexArgs, quiet: bool) -> Result<i32> {
    let module = load(&a.program)?;
    let opts = SymexOptions {
        reduction: a.reduction,
        loop_bound: a.loop_bound,
        max_runs: a.max_runs,
        max_seconds: a.max_time,
        summary_table_size: a.summary_table,
        summary_max_merges: a.summary_merges,
        slice: !a.no_slice,
        progress: !quiet,
        entry: a.entry.clone(),
        ..Default::default()
    };
    let started = std::time::SystemTime::now();
    let res = explore(&module, &opts).map_err(|e| failed(&a.program, e))?;
    let dir = output::write_results(a.output_dir.as_deref(), &a.program, &opts, &res, started)
        .map_err(|e| ConcordError::Output {
            path: a.output_dir.clone().unwrap_or_else(|| PathBuf::from(".")),
            reason: format!("{e:#}"),
        })?;
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
        exit::FINDINGS
    } else {
        exit::OK
    })
}

/// `concord replay`: exit 0 when the violation is confirmed, 1 when not.
pub fn replay(a: &ReplayArgs) -> Result<i32> {
    let module = load(&a.program)?;
    let tc = output::read_testcase(&a.testcase).map_err(|e| ConcordError::BadFacts {
        path: a.testcase.clone(),
        reason: format!("{e:#}"),
    })?;
    let r = output::replay(&module, &tc, a.loop_bound).map_err(|e| failed(&a.program, e))?;
    if r.confirmed {
        println!("confirmed: {:?} at {}", tc.kind, tc.location);
        Ok(exit::OK)
    } else {
        println!(
            "NOT confirmed: expected {:?} at {}; got {:?}",
            tc.kind, tc.location, r.got
        );
        Ok(exit::FINDINGS)
    }
}
