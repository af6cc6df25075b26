//! The command line: clap definitions, turning arguments into a
//! [`crate::pipeline`] request, rendering its outcome and exiting with its
//! answer. The only module that knows clap.

pub mod changes;
pub mod diff;
pub mod facts;
pub mod impact;
pub mod query;
pub mod store;
pub mod symex;
pub mod values;

use crate::budget::{Budget, Limits};
use crate::error::{exit, ConcordError, Result};
use crate::facts::extract::ExtractOptions;
use crate::frontend::{self, CompileOptions};
use crate::load::VersionSource;
use crate::pipeline::{Event, VersionPair};
use crate::report::style::{self, ColorChoice};
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use values::ColorArg;

/// An "Exit codes:" block: the command's own 0/1 lines, then the errors
/// it can end with (docs/cli.md lists the same per command).
macro_rules! exit_codes {
    ($answers:expr, $errors:expr) => {
        concat!("Exit codes:\n", $answers, $errors, "  70  internal error")
    };
    ($answers:expr, $errors:expr, $note:expr) => {
        concat!(exit_codes!($answers, $errors), "\n", $note)
    };
}

/// The errors of loading a program (3-7); the callers add 2 and 8.
macro_rules! load_errors {
    () => {
        "  4   clang-14 / opt-14 / llvm-link-14 not found or not executable
  5   C source does not compile or link, or --cflags keep clang from writing bitcode
  6   IR or bitcode unreadable (e.g. from a newer LLVM), or a malformed fact directory
  7   program outside what concord models (no main, unmodelled threading, ...)
"
    };
}

/// The errors of every command that reads a program, build or fact directory.
macro_rules! input_errors {
    () => {
        concat!(
            "  2   bad command line
  3   input missing or unreadable (not a regular file, name not UTF-8, ...)
",
            load_errors!(),
            "  8   cannot write output (full disk or closed pipe on stdout, output dir refused)
  9   --timeout or --max-memory exceeded (nothing written)
  128+n  ended by signal n (143: SIGTERM), its tools stopped and temporary files removed
"
        )
    };
}

/// Every code any command uses (`concord --help`).
pub const EXIT_CODES: &str = exit_codes!(
    "  0   success
  1   findings: `diff` found differences, `changes` changes, `impact` impacted statements, `symex` violations
  10  `symex`: inconclusive (nothing found, but runs were cut or skipped)
",
    input_errors!()
);
pub const SYMEX_EXIT_CODES: &str = exit_codes!(
    "  0   verified: every run complete, no violation
  1   violation found (a test case per finding in the results directory)
  10  inconclusive: no violation found, but runs were cut, unsupported or out of time
",
    concat!(
        "  2   bad command line
  3   program missing or unreadable, or a --store that is not a concord store
",
        load_errors!(),
        "  8   cannot write output (full disk or closed pipe on stdout, a non-empty --output-dir)
"
    )
);
pub const REPLAY_EXIT_CODES: &str = exit_codes!(
    "  0   violation confirmed
  1   not confirmed
",
    concat!(
        "  2   bad command line, or the test case does not fit the program
  3   program or test case missing or unreadable
",
        load_errors!(),
        "  8   cannot write output (full disk or closed pipe on stdout)
"
    )
);
pub const FACTS_EXIT_CODES: &str = exit_codes!("  0   facts written\n", input_errors!());
pub const DIFF_EXIT_CODES: &str = exit_codes!(
    "  0   no synchronisation or lock-order difference\n  1   differences found\n",
    input_errors!()
);
pub const CHANGES_EXIT_CODES: &str = exit_codes!(
    "  0   no statement changed\n  1   changes found\n",
    input_errors!()
);
pub const QUERY_EXIT_CODES: &str = exit_codes!(
    "  0   rows printed (possibly none)\n",
    input_errors!(),
    "(2 also for an unknown relation or column, or a malformed --where)"
);
pub const IMPACT_EXIT_CODES: &str = exit_codes!(
    "  0   nothing impacted\n  1   impacted statements found (--explain: a chain was found)\n",
    input_errors!(),
    "(2 also for a malformed FILE:LINE, or a --changed/--explain line without statements)"
);
pub const STORE_EXIT_CODES: &str = exit_codes!(
    "  0   listed or removed\n",
    "  2   bad command line\n  3   store missing, not a concord store, or another schema version\n  8   cannot write (the store or standard output)\n"
);
pub const PRINT_EXIT_CODES: &str = exit_codes!(
    "  0   printed\n",
    "  2   bad command line\n  8   cannot write output (full disk or closed pipe on stdout)\n"
);

#[derive(Parser, Debug)]
#[command(
    name = "concord",
    version,
    about = "What did a patch to multithreaded C code really change?",
    long_about = "concord extracts facts from pthread programs (C, LLVM IR or bitcode), \
evaluates Datalog analyses over them, and reports what a patch changed.",
    after_help = EXIT_CODES
)]
pub struct Cli {
    /// Print nothing on stderr except errors.
    #[arg(long, short, global = true)]
    pub quiet: bool,
    /// After an analysing command, print on stderr what each phase cost:
    /// wall time, peak and final resident memory.
    #[arg(long, global = true)]
    pub verbose: bool,
    /// Colour in text output and progress (auto: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, global = true, default_value_t = ColorArg::from(ColorChoice::default()), value_name = "WHEN")]
    pub color: ColorArg,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Extract facts from a program and write them as Soufflé-style files.
    #[command(after_help = FACTS_EXIT_CODES)]
    Facts(facts::FactsArgs),
    /// Print the facts schema (the text of docs/facts.md).
    #[command(after_help = PRINT_EXIT_CODES)]
    Schema,
    /// Synchronisation differences: read-from edges (ranks 1-3) and lock orders one version allows and the other does not.
    Diff(diff::DiffArgs),
    /// Print any input or derived relation, statements shown as source locations.
    Query(query::QueryArgs),
    /// Print the analyses' Datalog rules for Soufflé or Z3's fixedpoint engine.
    #[command(after_help = PRINT_EXIT_CODES)]
    Rules(query::RulesArgs),
    /// Symbolically execute a pthread program and report assertion violations, error calls and deadlocks.
    #[command(after_help = SYMEX_EXIT_CODES)]
    Symex(symex::SymexArgs),
    /// Re-execute a test case written by `concord symex` and confirm its violation.
    #[command(after_help = REPLAY_EXIT_CODES)]
    Replay(symex::ReplayArgs),
    /// Show which statements a patch added, deleted, modified or moved (Δdiff).
    #[command(after_help = CHANGES_EXIT_CODES)]
    Changes(changes::ChangesArgs),
    /// Forward and backward change-impact sets across threads and functions.
    #[command(after_help = IMPACT_EXIT_CODES)]
    Impact(impact::ImpactArgs),
    /// Inspect or prune the summary store of `concord symex` (ls, rm).
    #[command(after_help = STORE_EXIT_CODES)]
    Store(store::StoreArgs),
}

/// How to compile C: the flags every command that reads C takes.
#[derive(Args, Debug, Clone, Default)]
pub struct CompileArgs {
    /// Add a directory to the C include path.
    #[arg(short = 'I', value_name = "DIR", help_heading = "Compiling C")]
    pub include: Vec<PathBuf>,
    /// Define a C macro (`NAME` or `NAME=VALUE`).
    #[arg(short = 'D', value_name = "MACRO", help_heading = "Compiling C")]
    pub define: Vec<String>,
    /// Extra flags for clang, as one string (split on white space).
    #[arg(
        long,
        value_name = "FLAGS",
        allow_hyphen_values = true,
        help_heading = "Compiling C"
    )]
    pub cflags: Option<String>,
}

impl CompileArgs {
    pub fn compile_options(&self) -> CompileOptions {
        CompileOptions {
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            extra_flags: self
                .cflags
                .as_deref()
                .map(|f| f.split_whitespace().map(String::from).collect())
                .unwrap_or_default(),
        }
    }
}

/// How to compile and model a program.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Thread instances per pthread_create inside a loop.
    #[arg(
        long,
        default_value_t = ExtractOptions::default().thread_loop_bound,
        value_name = "N",
        help_heading = "Modelling"
    )]
    pub thread_loop_bound: u32,
    /// Maximum depth of calls cloned into a thread's context.
    #[arg(
        long,
        default_value_t = ExtractOptions::default().call_depth_bound,
        value_name = "N",
        help_heading = "Modelling"
    )]
    pub call_depth: usize,
    /// Statements a thread may have before calls stop being cloned per call
    /// path and link to one shared instance of the callee (precision for
    /// size: past it, two calls of a helper share its statements).
    #[arg(
        long,
        default_value_t = ExtractOptions::default().clone_budget,
        value_name = "N",
        help_heading = "Modelling"
    )]
    pub clone_budget: usize,
}

impl InputArgs {
    pub fn compile_options(&self) -> CompileOptions {
        self.compile.compile_options()
    }
    pub fn extract_options(&self) -> ExtractOptions {
        ExtractOptions {
            thread_loop_bound: self.thread_loop_bound.max(1),
            call_depth_bound: self.call_depth.max(1),
            clone_budget: self.clone_budget,
            ..ExtractOptions::default()
        }
    }
}

/// Compile flags of one version only, for the commands that compare two
/// (a patch that changes the build: `-DFIXED`, another `-std=`).
#[derive(Args, Debug, Clone, Default)]
pub struct VersionFlags {
    /// Extra clang flags for the old version only (after --cflags).
    #[arg(
        long,
        value_name = "FLAGS",
        allow_hyphen_values = true,
        help_heading = "Compiling C"
    )]
    pub old_cflags: Option<String>,
    /// Extra clang flags for the new version only (after --cflags).
    #[arg(
        long,
        value_name = "FLAGS",
        allow_hyphen_values = true,
        help_heading = "Compiling C"
    )]
    pub new_cflags: Option<String>,
}

impl InputArgs {
    /// The compile options plus one version's own flags (after `--cflags`).
    pub fn compile_options_with(&self, extra: Option<&str>) -> CompileOptions {
        let mut compile = self.compile_options();
        if let Some(e) = extra {
            compile
                .extra_flags
                .extend(e.split_whitespace().map(String::from));
        }
        compile
    }

    /// One version at `path`, compiled with these arguments plus `extra`.
    pub fn version(&self, path: &Path, extra: Option<&str>) -> VersionSource {
        VersionSource {
            path: path.to_path_buf(),
            compile: self.compile_options_with(extra),
        }
    }

    /// Two versions, each with its own flags.
    pub fn pair(&self, old: &Path, new: &Path, flags: &VersionFlags) -> VersionPair {
        VersionPair {
            old: self.version(old, flags.old_cflags.as_deref()),
            new: self.version(new, flags.new_cflags.as_deref()),
            extract: self.extract_options(),
        }
    }
}

/// Limits of an analysing command (`symex` has its own `--max-time`).
/// Every command has a budget: without an option, the defaults below; a
/// user lifts one with `none`.
#[derive(Args, Debug, Clone, Default)]
pub struct BudgetArgs {
    /// Stop after this many seconds of wall time, with exit code 9 and
    /// nothing written [default: 1800; `none`: no limit].
    #[arg(long, value_name = "SECONDS", value_parser = parse_time_limit, help_heading = "Budget")]
    pub timeout: Option<Limit<f64>>,
    /// Stop when the process's resident memory exceeds this many MB, with
    /// exit code 9 and nothing written [default: 3/4 of the machine's
    /// memory; `none`: no limit].
    #[arg(long, value_name = "MB", value_parser = parse_memory_limit, help_heading = "Budget")]
    pub max_memory: Option<Limit<u64>>,
    /// Run at most N pieces of work at once (the two versions of a diff,
    /// extraction's per-thread passes) [default: the machine's cores].
    /// `--jobs 1` trades time for memory: the two versions' rules then
    /// never run together.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), help_heading = "Budget")]
    pub jobs: Option<u32>,
}

/// A budget option's value: a limit, or `none`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit<T> {
    At(T),
    Unlimited,
}

/// The wall-time limit of a command given no `--timeout`.
pub const DEFAULT_TIMEOUT_SECONDS: f64 = 1800.0;

fn parse_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

fn parse_time_limit(s: &str) -> std::result::Result<Limit<f64>, String> {
    if s == "none" {
        return Ok(Limit::Unlimited);
    }
    parse_seconds(s)
        .map(Limit::At)
        .map_err(|e| format!("{e} (or `none`)"))
}

fn parse_memory_limit(s: &str) -> std::result::Result<Limit<u64>, String> {
    match s {
        "none" => Ok(Limit::Unlimited),
        _ => match s.parse::<u64>() {
            Ok(mb) if mb > 0 => Ok(Limit::At(mb)),
            _ => Err(format!("`{s}` is not a positive number of MB (or `none`)")),
        },
    }
}

/// Three quarters of the machine's memory, in bytes (`/proc/meminfo`);
/// `None` where it cannot be read.
fn default_max_rss() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024 / 4 * 3)
}

impl BudgetArgs {
    /// The limits this command runs under: the options, else the defaults.
    pub fn limits(&self) -> Limits {
        let timeout = match self.timeout {
            Some(Limit::At(s)) => Some(s),
            Some(Limit::Unlimited) => None,
            None => Some(DEFAULT_TIMEOUT_SECONDS),
        };
        let max_rss = match self.max_memory {
            Some(Limit::At(mb)) => Some(mb << 20),
            Some(Limit::Unlimited) => None,
            None => default_max_rss(),
        };
        Limits {
            timeout: timeout.map(std::time::Duration::from_secs_f64),
            max_rss,
        }
    }

    /// Start the budget of a command; progress on stderr unless `quiet`.
    /// A signal that ends the command stops the tools it started and
    /// removes its temporary files first (`cleanup`).
    pub fn start(&self, quiet: bool) -> Budget {
        crate::cleanup::catch_termination_signals();
        if let Some(n) = self.jobs {
            crate::parallel::set_jobs(n as usize);
        }
        Budget::start(self.limits(), !quiet)
    }
}

/// `--limit` and `--focus` of a command that draws DOT graphs.
#[derive(Args, Debug, Clone, Default)]
pub struct DotArgs {
    /// DOT: draw at most N nodes (nearest the focus or the changes first).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Graphs")]
    pub limit: Option<u64>,
    /// DOT: draw the part of the graph around this line (`FILE:LINE` or `LINE`).
    #[arg(long, value_name = "FILE:LINE", value_parser = parse_focus, help_heading = "Graphs")]
    pub focus: Option<crate::report::dot::Focus>,
}

fn parse_focus(s: &str) -> std::result::Result<crate::report::dot::Focus, String> {
    let (file, line) = impact::parse_line_spec(s)?;
    Ok(crate::report::dot::Focus { file, line })
}

impl DotArgs {
    pub fn options(&self) -> crate::report::dot::DotOptions {
        crate::report::dot::DotOptions {
            limit: self.limit.map(|l| l as usize),
            focus: self.focus.clone(),
        }
    }
}

/// Show a pipeline's events on stderr, except under `-q` (where only
/// those [`Event::shown_when_quiet`] are). A closed or full stderr is not
/// worth failing for.
pub fn show_events(quiet: bool) -> impl FnMut(Event) {
    move |e| {
        if !quiet || e.shown_when_quiet() {
            let _ = writeln!(std::io::stderr(), "{e}");
        }
    }
}

/// Write `text` to stdout inside the budget's commit (never cut by a limit).
pub fn emit_committed(budget: &Budget, text: &str) -> Result<()> {
    budget.commit(|| emit(text))
}

pub fn main() -> i32 {
    frontend::quiet_ir_reader_panics();
    guarded(run)
}

/// Run `f`; a panic (a bug) ends in exit 70 with a message saying so, as
/// documented, never in Rust's own 101 that no document lists (and that a
/// script could take for an answer).
pub fn guarded(f: impl FnOnce() -> i32) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(code) => code,
        Err(p) => {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into());
            report_error(&ConcordError::Internal(format!(
                "{what}\n  hint: this is a bug in concord; please report it with the input"
            )))
        }
    }
}

fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let printed = e
                .print()
                .and_then(|()| std::io::Write::flush(&mut std::io::stdout()));
            if e.use_stderr() {
                return exit::USAGE;
            }
            // `--help` and `--version` are answers on stdout: one that was
            // not delivered (full disk, closed pipe) is not a success.
            return match printed {
                Ok(()) => exit::OK,
                Err(io) if io.kind() == std::io::ErrorKind::BrokenPipe => {
                    report_error(&ConcordError::StdoutClosed)
                }
                Err(io) => report_error(&ConcordError::Output {
                    path: PathBuf::from("standard output"),
                    reason: io.to_string(),
                }),
            };
        }
    };
    style::init(cli.color.into());
    let q = cli.quiet;
    // Runs an analysing command under its budget; `--verbose` then prints
    // the phases' costs, whatever the outcome.
    let budgeted = |b: &BudgetArgs, run: &dyn Fn(&Budget) -> Result<i32>| {
        let budget = b.start(q);
        let result = run(&budget);
        if cli.verbose {
            budget.end_phase();
            eprint!("{}", crate::report::phase_costs_text(&budget.phase_costs()));
        }
        result
    };
    let result = match &cli.command {
        Command::Facts(args) => budgeted(&args.budget, &|b| facts::run(args, q, b)),
        Command::Changes(args) => budgeted(&args.budget, &|b| changes::run(args, q, b)),
        Command::Diff(args) => budgeted(&args.budget, &|b| diff::run(args, q, b)),
        Command::Query(args) => budgeted(&args.budget, &|b| query::run(args, q, b)),
        Command::Rules(args) => query::run_rules(args),
        Command::Symex(args) => {
            // the watchdog lives as long as the budget: through the run
            let _hard_cap = args.budget.start(true);
            symex::run(args, q)
        }
        Command::Replay(args) => symex::replay(args),
        Command::Impact(args) => budgeted(&args.budget, &|b| impact::run(args, q, b)),
        Command::Store(args) => store::run(args),
        Command::Schema => emit(&crate::facts::schema::schema_markdown()).map(|()| exit::OK),
    };
    match result {
        Ok(code) => code,
        Err(e) => report_error(&e),
    }
}

/// Write results to stdout. A write that fails (full disk, closed pipe)
/// is an error with its own exit code: the answer was not delivered, so
/// the exit code must not claim one ("no difference" would be a lie).
pub fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                ConcordError::StdoutClosed
            } else {
                ConcordError::Output {
                    path: PathBuf::from("standard output"),
                    reason: e.to_string(),
                }
            }
        })
}

pub fn report_error(e: &ConcordError) -> i32 {
    // A reader that went away (`| head`) knows; a message would be noise.
    if !matches!(e, ConcordError::StdoutClosed) {
        eprintln!(
            "concord: {} {e}",
            style::paint_err("error:", style::Color::Red)
        );
    }
    e.exit_code()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_an_internal_error_not_rusts_101() {
        assert_eq!(guarded(|| exit::FINDINGS), exit::FINDINGS);
        assert_eq!(guarded(|| panic!("a bug")), exit::INTERNAL);
        assert_eq!(guarded(|| panic!("{} bugs", 2)), exit::INTERNAL);
    }
}
