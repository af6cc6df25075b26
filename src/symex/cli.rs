//! `concord symex` and `concord replay`: arguments, the results directory,
//! the verdict and its exit code.

use super::{explore_with, output, Exploration, Reduction, SymexError, SymexOptions, Verdict};
use crate::error::{exit, ConcordError, Result};
use crate::frontend::{load_module, CompileOptions};
use crate::report::symex::SymexFormat;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit code of `concord symex` when no violation was found but the search
/// was not complete (cuts, unsupported constructs, a budget, or no run
/// reaching the end); the summary and `stats.json` say why.
pub const EXIT_INCONCLUSIVE: i32 = 10;

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
    /// Entry function.
    #[arg(long, default_value_t = cli_defaults().entry)]
    pub entry: String,
    /// Entries of the bounded summary table.
    #[arg(long, default_value_t = cli_defaults().summary_table_size)]
    pub summary_table: usize,
    /// Maximal number of weakest preconditions merged into one summary.
    #[arg(long, default_value_t = cli_defaults().summary_max_merges)]
    pub summary_merges: u32,
    /// Do not use the static slice of the assertions.
    #[arg(long)]
    pub no_slice: bool,
    /// Results directory (default: a fresh `concord-out-N` next to the
    /// current directory, with a `concord-last` link). A directory that
    /// exists and is not empty is refused (exit 8): results are never mixed.
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
    /// Summary format on stdout (the results directory is written in every format).
    #[arg(long, value_enum, default_value_t = SymexFormat::default())]
    pub format: SymexFormat,
    #[command(flatten)]
    pub compile: crate::cli::CompileArgs,
    /// Summary store (default: `.concord/summaries.db` beside the program,
    /// or beside OLD): runs, findings and summaries, reused by later runs.
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
    /// Arguments of the program after its name (argv[1..]); default none:
    /// main runs with argc = 1, argv = {program, NULL}.
    #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "ARG")]
    pub args: Vec<String>,
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
    pub compile: crate::cli::CompileArgs,
}

/// Load through the shared frontend (its error classes and exit codes).
fn load(program: &Path, co: &CompileOptions) -> Result<llvm_ir::Module> {
    Ok(load_module(program, co)?.module)
}

pub(super) fn symex_error(program: &Path, e: SymexError) -> ConcordError {
    match e {
        SymexError::Internal(m) => ConcordError::Internal(m),
        SymexError::Mismatch(_) => ConcordError::Usage(e.to_string()),
        e => ConcordError::Unsupported {
            path: program.to_path_buf(),
            what: e.to_string(),
        },
    }
}

pub(super) fn output_error(path: &Path, e: impl std::fmt::Display) -> ConcordError {
    ConcordError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
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
pub(super) fn print_out(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| output_error(Path::new("<stdout>"), e))
}

/// Exit code of a verdict.
pub fn verdict_exit_code(v: Verdict) -> i32 {
    match v {
        Verdict::Violation => exit::FINDINGS,
        Verdict::Verified => exit::OK,
        Verdict::Inconclusive => EXIT_INCONCLUSIVE,
    }
}

/// The text summary (one line per finding, then the verdict).
pub fn summary_text(res: &Exploration) -> String {
    crate::report::symex::text(res)
}

/// The summary on stdout in the format `a` asks for.
pub(super) fn summary(a: &SymexArgs, program: &Path, res: &Exploration) -> String {
    crate::report::symex::render(a.format, &program.display().to_string(), res)
}

/// The exploration options of `a` for `program` (argv[0]).
pub fn options(a: &SymexArgs, program: &Path, quiet: bool) -> SymexOptions {
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
        progress: !quiet,
        entry: a.entry.clone(),
        args: std::iter::once(program.display().to_string())
            .chain(a.args.iter().cloned())
            .collect(),
        ..d
    }
}

/// `concord symex`: exit 1 on a violation, 0 when verified, 10 when
/// inconclusive.
pub fn symex(a: &SymexArgs, quiet: bool) -> Result<i32> {
    if let Some(new) = &a.new {
        return super::cli_incremental::symex_incremental(a, new, quiet);
    }
    let program = load_module(&a.program, &a.compile.compile_options())?;
    let module = &program.module;
    // Claimed before the store records a run: a refused directory leaves
    // no trace anywhere.
    let out_path = a.output_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let dir =
        output::results_dir(a.output_dir.as_deref()).map_err(|e| output_error(&out_path, e))?;

    let mut opts = options(a, &a.program, quiet);
    // The store: findings as found, the result when complete, summaries
    // (dpor+ag) as they are computed; a killed run's summaries are read
    // back by the next run of the same program and options.
    let store = super::cli_incremental::open_store(a, &a.program, quiet)?;
    let key = super::incremental::options_key(&opts);
    let run = store.as_ref().and_then(|s| {
        let done = matches!(s.completed_run(&program.input_sha256, &key), Ok(Some(_)));
        opts.store = Some(super::store::StoreOptions {
            path: s.path().to_path_buf(),
            program_hash: program.input_sha256.clone(),
            import: !done,
            export: true,
        });
        s.begin_run(
            &a.program.display().to_string(),
            &program.input_sha256,
            &key,
        )
        .ok()
    });
    let started = std::time::SystemTime::now();
    // Each test case is written when found: a killed run keeps it.
    let mut written = 0usize;
    let mut write_err: Option<ConcordError> = None;
    let explore =
        |opts: &SymexOptions, on: &mut dyn FnMut(&super::Finding, u32)| match a.max_interferences {
            Some(k) => super::interference::explore_bounded_program(&program, opts, k, on),
            None => explore_with(module, opts, on),
        };
    let res = explore(&opts, &mut |f, bound| {
        if let (Some(s), Some(r)) = (&store, run) {
            if let Err(e) = s.add_finding(r, bound, f) {
                note!("concord: warning: finding not stored: {e}");
            }
        }
        written += 1;
        let tc = output::testcase(&a.program, &opts, bound, f);
        if let Err(e) = output::write_testcase(&dir, written, &tc) {
            write_err.get_or_insert(output_error(&dir, e));
        }
    })
    .map_err(|e| symex_error(&a.program, e))?;
    if let Some(e) = write_err {
        return Err(e);
    }
    let mut res = res;
    output::attach_traces(module, &mut res, &opts.args);
    output::write_results(&dir, &a.program, &opts, &res, started)
        .map_err(|e| output_error(&dir, e))?;
    if let (Some(st), Some(r), false) = (&store, run, res.stats.incomplete) {
        if let Err(e) = st.finish_run(r, &res) {
            note!("concord: warning: result not stored: {e}");
        }
    }
    let s = &res.stats;
    if !quiet {
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
    print_out(&summary(a, &a.program, &res))?;
    if !quiet {
        note!("[symex] results in {}", dir.display());
    }
    Ok(verdict_exit_code(s.verdict))
}

/// `concord replay`: exit 0 when the violation is confirmed, 1 when not,
/// 2 when the test case does not fit the program.
pub fn replay(a: &ReplayArgs) -> Result<i32> {
    let tc = output::read_testcase(&a.testcase).map_err(|e| match e {
        output::OutputError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
            ConcordError::InputMissing {
                path: a.testcase.clone(),
            }
        }
        e => ConcordError::InputUnreadable {
            path: a.testcase.clone(),
            reason: format!("not a concord test case: {e}"),
        },
    })?;
    let module = load(&a.program, &a.compile.compile_options())?;
    let bound = a.loop_bound.unwrap_or(tc.loop_bound);
    let args = if tc.args.is_empty() {
        vec![a.program.display().to_string()]
    } else {
        tc.args.clone()
    };
    let r = output::replay_with_args(&module, &tc, bound, &args)
        .map_err(|e| symex_error(&a.program, e))?;
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
