//! `concord symex` (one program, or OLD NEW incrementally) and `concord
//! replay`: explore, write the results directory and the summary store,
//! and return the exploration for the caller to render.

mod diff;

use super::{warn_unresolved, Answer, Event, Events, StoreWarning};
use crate::error::{ConcordError, Result};
use crate::facts::extract::ExtractOptions;
use crate::frontend::{CompileOptions, Program};
use crate::load::LoadedVersion;
use crate::symex::directed::{self, DirectedReport};
use crate::symex::incremental::{self, IncrementalStats, VersionInput};
use crate::symex::store::{self, Store, StoreOptions};
use crate::symex::{
    explore, explore_with, interference, output, Exploration, Finding, Stats, SymexError,
    SymexOptions, Verdict,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which summary store a run reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreChoice {
    /// The program's (or OLD's) directory's store in the cache directory
    /// (`symex::store::default_path`); when it cannot be used, a warning
    /// and the run goes on without it.
    InCache,
    /// This file; when it cannot be used, an error (exit 3).
    At(PathBuf),
    /// Neither read nor write one.
    None,
}

/// What to explore and where the results go.
#[derive(Debug, Clone)]
pub struct SymexRequest {
    /// The program; with `new`, the old version.
    pub program: PathBuf,
    /// The new version: explore it incrementally (+CIA).
    pub new: Option<PathBuf>,
    pub compile: CompileOptions,
    /// How to explore. `args` is replaced by each program's name followed
    /// by `program_args`; OLD is explored without progress.
    pub options: SymexOptions,
    /// argv[1..] of the program.
    pub program_args: Vec<String>,
    /// The results directory (`None`: a fresh `concord-out-N`); an existing
    /// non-empty one is refused (exit 8).
    pub output_dir: Option<PathBuf>,
    pub store: StoreChoice,
    /// Bug-finding mode: at most K cross-thread interferences per path
    /// (one program only).
    pub max_interferences: Option<u32>,
    /// DiSE (with `new`): impacted paths first, and `directed.json`.
    pub directed: bool,
    /// With `new` (default on): explore NEW only where the synchronisation
    /// diff or changed code makes a run new (`diff-directed.json`).
    pub diff_directed: bool,
    /// Read-from tuples are compared up to this rank (1 to 3).
    pub diff_rank: u32,
}

/// What `symex OLD NEW` adds to an exploration.
pub struct IncrementalOutcome {
    /// The counters of `incremental.json`.
    pub stats: IncrementalStats,
    /// NEW's own exploration (before OLD's findings were carried over).
    pub new_stats: Stats,
    /// With `directed`: each impacted path condition of NEW, new or not.
    pub directed: Option<DirectedReport>,
    /// The diff-directed mode's answer (claimed or fallen back).
    pub diff: Option<diff::DiffOutcome>,
}

pub use diff::DiffOutcome;

/// The exploration (NEW's, with OLD's unchanged findings, incrementally),
/// where its results were written, and how it was explored.
pub struct SymexOutcome {
    pub exploration: Exploration,
    /// The program explored (NEW, incrementally).
    pub program: PathBuf,
    pub results_dir: PathBuf,
    /// The options of the (NEW's) exploration.
    pub options: SymexOptions,
    pub incremental: Option<IncrementalOutcome>,
}

impl SymexOutcome {
    /// The verdict's answer: violation (1), verified (0), inconclusive (10).
    pub fn answer(&self) -> Answer {
        verdict_answer(self.exploration.stats.verdict)
    }
}

/// The answer of a verdict.
pub fn verdict_answer(v: Verdict) -> Answer {
    match v {
        Verdict::Violation => Answer::Found,
        Verdict::Verified => Answer::Clean,
        Verdict::Inconclusive => Answer::Inconclusive,
    }
}

fn symex_error(program: &Path, e: SymexError) -> ConcordError {
    match e {
        SymexError::Internal(m) => ConcordError::Internal(m),
        SymexError::Mismatch(_) => ConcordError::Usage(e.to_string()),
        e => ConcordError::Unsupported {
            path: program.to_path_buf(),
            what: e.to_string(),
        },
    }
}

fn output_error(path: &Path, e: impl std::fmt::Display) -> ConcordError {
    ConcordError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// The options of `req` for exploring `program` (argv[0]).
fn options_for(req: &SymexRequest, program: &Path) -> SymexOptions {
    SymexOptions {
        args: std::iter::once(program.display().to_string())
            .chain(req.program_args.iter().cloned())
            .collect(),
        ..req.options.clone()
    }
}

/// The results directory, claimed before the store records a run: a
/// refused directory leaves no trace anywhere.
fn claim_results_dir(req: &SymexRequest) -> Result<PathBuf> {
    let out_path = req.output_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    output::results_dir(req.output_dir.as_deref()).map_err(|e| output_error(&out_path, e))
}

/// The summary store of a run beside `program`, per `choice`.
fn open_store(choice: &StoreChoice, program: &Path, events: Events<'_>) -> Result<Option<Store>> {
    match choice {
        StoreChoice::None => Ok(None),
        // not a store: exit 3; a store that cannot be written (read-only
        // or full file system): exit 8, as every output
        StoreChoice::At(p) => Store::open(p).map(Some).map_err(|e| {
            if e.is_not_a_store() {
                ConcordError::InputUnreadable {
                    path: p.clone(),
                    reason: e.to_string(),
                }
            } else {
                output_error(p, format!("cannot write the summary store: {e}"))
            }
        }),
        StoreChoice::InCache => match Store::open(&store::default_path(program)) {
            Ok(s) => Ok(Some(s)),
            Err(e) => {
                events(Event::Store(StoreWarning::Unavailable(e.to_string())));
                Ok(None)
            }
        },
    }
}

/// Explore `req.program` (or NEW incrementally), writing a test case per
/// finding as it is found, `stats.json`, and the store.
pub fn symex(req: &SymexRequest, events: Events<'_>) -> Result<SymexOutcome> {
    match &req.new {
        Some(new) => symex_incremental(req, new, events),
        None => symex_one(req, events),
    }
}

fn symex_one(req: &SymexRequest, events: Events<'_>) -> Result<SymexOutcome> {
    let program = crate::load::load_module(&req.program, &req.compile)?;
    let module = &program.module;
    let dir = claim_results_dir(req)?;
    let mut opts = options_for(req, &req.program);
    opts.member_names = Some(output::member_names(&program));
    // The store: findings as found, the result when complete, summaries
    // (dpor+ag) as they are computed; a killed run's summaries are read
    // back by the next run of the same program and options.
    let store = open_store(&req.store, &req.program, events)?;
    let key = incremental::options_key(&opts);
    let run = store.as_ref().and_then(|s| {
        let done = matches!(s.completed_run(&program.input_sha256, &key), Ok(Some(_)));
        opts.store = Some(StoreOptions {
            path: s.path().to_path_buf(),
            program_hash: program.input_sha256.clone(),
            import: !done,
            export: true,
        });
        s.begin_run(
            &req.program.display().to_string(),
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
        |opts: &SymexOptions, on: &mut dyn FnMut(&Finding, u32)| match req.max_interferences {
            Some(k) => interference::explore_bounded_program(&program, opts, k, on),
            None => explore_with(module, opts, on),
        };
    let res = explore(&opts, &mut |f, bound| {
        if let (Some(s), Some(r)) = (&store, run) {
            if let Err(e) = s.add_finding(r, bound, f) {
                events(Event::Store(StoreWarning::FindingNotStored(e.to_string())));
            }
        }
        written += 1;
        let tc = output::testcase(&req.program, &opts, bound, f);
        if let Err(e) = output::write_testcase(&dir, written, &tc) {
            write_err.get_or_insert(output_error(&dir, e));
        }
    })
    .map_err(|e| symex_error(&req.program, e))?;
    if let Some(e) = write_err {
        return Err(e);
    }
    let mut res = res;
    output::attach_traces(module, &mut res, &opts);
    output::write_results(&dir, &req.program, &opts, &res, started)
        .map_err(|e| output_error(&dir, e))?;
    if let (Some(st), Some(r), false) = (&store, run, res.stats.incomplete) {
        if let Err(e) = st.finish_run(r, &res) {
            events(Event::Store(StoreWarning::ResultNotStored(e.to_string())));
        }
    }
    Ok(SymexOutcome {
        exploration: res,
        program: req.program.clone(),
        results_dir: dir,
        options: opts,
        incremental: None,
    })
}

/// One version of `symex OLD NEW`: loaded through [`crate::load`] like
/// every command's (programs, builds, lists of C files), with its module.
struct Version {
    loaded: LoadedVersion,
    program: Program,
}

impl Version {
    fn load(path: &Path, compile: &CompileOptions) -> Result<Version> {
        let (loaded, program) =
            crate::load::load_version_with_module(path, compile, &ExtractOptions::default())?;
        Ok(Version { loaded, program })
    }

    fn input(&self) -> VersionInput<'_> {
        VersionInput {
            module: &self.program.module,
            facts: &self.loaded.facts,
            source: self.loaded.source.as_deref(),
            program_hash: &self.program.input_sha256,
        }
    }
}

/// Load both versions, run the change-impact analysis, explore OLD (its
/// findings) and NEW with +CIA pruning, and combine NEW's findings with
/// OLD's unchanged ones.
fn symex_incremental(
    req: &SymexRequest,
    new_path: &Path,
    events: Events<'_>,
) -> Result<SymexOutcome> {
    if req.max_interferences.is_some() {
        return Err(ConcordError::Usage(
            "--max-interferences explores one program; it does not combine with OLD NEW".into(),
        ));
    }
    let old = Version::load(&req.program, &req.compile)?;
    let new = Version::load(new_path, &req.compile)?;
    warn_unresolved(&old.loaded.warnings, events);
    warn_unresolved(&new.loaded.warnings, events);
    let matching = crate::load::match_loaded(&old.loaded, &new.loaded);
    let plan = incremental::plan_matched(matching, &old.input(), &new.input());
    events(Event::SymexPlan {
        changes: plan.matching.changes.len(),
        impacted_statements: plan.impacted_stmts.len(),
        impacted_instructions: plan.impacted.len(),
    });
    let started = std::time::SystemTime::now();
    let dir = claim_results_dir(req)?;
    // OLD's findings (the unimpacted part of the answer): from the store
    // when a complete run of OLD with these options is there.
    let store = open_store(&req.store, &req.program, events)?;
    let mut old_opts = SymexOptions {
        progress: false,
        member_names: Some(output::member_names(&old.program)),
        ..options_for(req, &req.program)
    };
    // NEW's options name memory by NEW's own debug information, in the
    // diff-directed and the impact-directed path alike.
    let new_base_opts = SymexOptions {
        member_names: Some(output::member_names(&new.program)),
        ..options_for(req, new_path)
    };
    // Directed mode needs OLD's paths: OLD is explored afresh, recording.
    let specs = req
        .directed
        .then(|| directed::specs(&plan, &old.input(), &new.input()));
    let (old_res, reused) = match &specs {
        Some((_, old_spec)) => {
            old_opts.directed = Some(Arc::new(old_spec.clone()));
            let x = explore(&old.program.module, &old_opts)
                .map_err(|e| symex_error(&req.program, e))?;
            (x, false)
        }
        None => incremental::old_exploration(
            &old.input(),
            &old_opts,
            store.as_ref(),
            &req.program.display().to_string(),
            &mut |_, _| {},
        )
        .map_err(|e| symex_error(&req.program, e))?,
    };
    if reused {
        events(Event::OldRunReused);
    }
    let old_runs = if reused {
        0
    } else {
        incremental::old_runs(&old_res.stats)
    };
    let mut diff_fallback = None;
    if req.diff_directed && !req.directed {
        let inputs = diff::Inputs {
            req,
            old: &old,
            new: &new,
            matching: &plan.matching,
            old_res: &old_res,
            old_runs,
            new_opts: &new_base_opts,
            dir: &dir,
            new_path,
        };
        match diff::attempt(&inputs)? {
            diff::Attempt::Done(done) => {
                let diff::Done {
                    exploration,
                    new_stats,
                    mut stats,
                    options,
                    outcome,
                } = *done;
                stats.old_reused = reused;
                output::write_results(&dir, new_path, &options, &exploration, started)
                    .map_err(|e| output_error(&dir, e))?;
                let json =
                    serde_json::to_string_pretty(&stats).map_err(|e| output_error(&dir, e))?;
                output::write_atomic(&dir.join("incremental.json"), json.as_bytes())
                    .map_err(|e| output_error(&dir, e))?;
                diff::write_outcome(&dir, &outcome)?;
                return Ok(SymexOutcome {
                    exploration,
                    program: new_path.to_path_buf(),
                    results_dir: dir,
                    options,
                    incremental: Some(IncrementalOutcome {
                        stats,
                        new_stats,
                        directed: None,
                        diff: Some(outcome),
                    }),
                });
            }
            diff::Attempt::Fallback(o) => diff_fallback = Some(*o),
        }
    }
    let mut new_opts =
        incremental::new_options(&plan, &new.input(), &new_base_opts, store.as_ref());
    if let Some((new_spec, _)) = &specs {
        new_opts.directed = Some(Arc::new(new_spec.clone()));
    }
    let mut written = 0usize;
    let mut write_err = None;
    let new_res = explore_with(&new.program.module, &new_opts, &mut |f, bound| {
        written += 1;
        let tc = output::testcase(new_path, &new_opts, bound, f);
        if let Err(e) = output::write_testcase(&dir, written, &tc) {
            write_err.get_or_insert(output_error(&dir, e));
        }
    })
    .map_err(|e| symex_error(new_path, e))?;
    if let Some(e) = write_err {
        return Err(e);
    }
    let (res, carried, mut ist) =
        incremental::combine(&plan, &old.input(), &new.input(), &old_res, &new_res);
    ist.old_runs = old_runs;
    ist.old_reused = reused;
    // OLD's witnesses are test cases of OLD (their schedule and inputs
    // replay there, not necessarily on NEW).
    for f in &carried {
        written += 1;
        let tc = output::testcase(&req.program, &old_opts, old_res.stats.loop_bound, f);
        output::write_testcase(&dir, written, &tc).map_err(|e| output_error(&dir, e))?;
    }
    output::write_results(&dir, new_path, &new_opts, &res, started)
        .map_err(|e| output_error(&dir, e))?;
    let json = serde_json::to_string_pretty(&ist).map_err(|e| output_error(&dir, e))?;
    output::write_atomic(&dir.join("incremental.json"), json.as_bytes())
        .map_err(|e| output_error(&dir, e))?;
    let report = specs.as_ref().map(|(n, o)| {
        directed::compare(
            &plan,
            &old.input(),
            &new.input(),
            (n, o),
            &old_res,
            &new_res,
        )
    });
    if let Some(r) = &report {
        let json = serde_json::to_string_pretty(r).map_err(|e| output_error(&dir, e))?;
        output::write_atomic(&dir.join("directed.json"), json.as_bytes())
            .map_err(|e| output_error(&dir, e))?;
    }
    if let Some(o) = &diff_fallback {
        diff::write_outcome(&dir, o)?;
    }
    Ok(SymexOutcome {
        exploration: res,
        program: new_path.to_path_buf(),
        results_dir: dir,
        options: new_opts,
        incremental: Some(IncrementalOutcome {
            stats: ist,
            new_stats: new_res.stats,
            directed: report,
            diff: diff_fallback,
        }),
    })
}

/// Which test case to re-execute on which program.
#[derive(Debug, Clone)]
pub struct ReplayRequest {
    pub program: PathBuf,
    /// A `testNNNNNN.json` written by `symex`.
    pub testcase: PathBuf,
    /// `None`: the loop bound recorded in the test case.
    pub loop_bound: Option<u32>,
    pub compile: CompileOptions,
}

/// The test case and what re-executing it gave.
pub struct ReplayOutcome {
    pub testcase: output::TestCase,
    pub replay: output::Replay,
}

/// Re-execute a test case's schedule with its inputs. A missing test case
/// is exit 3, one that does not fit the program exit 2.
pub fn replay(req: &ReplayRequest) -> Result<ReplayOutcome> {
    let tc = output::read_testcase(&req.testcase).map_err(|e| match e {
        output::OutputError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
            ConcordError::InputMissing {
                path: req.testcase.clone(),
            }
        }
        e => ConcordError::InputUnreadable {
            path: req.testcase.clone(),
            reason: format!("not a concord test case: {e}"),
        },
    })?;
    let program = crate::load::load_module(&req.program, &req.compile)?;
    let bound = req.loop_bound.unwrap_or(tc.loop_bound);
    let args = if tc.args.is_empty() {
        vec![req.program.display().to_string()]
    } else {
        tc.args.clone()
    };
    let names = Some(output::member_names(&program));
    let replay = output::replay_named(&program.module, &tc, bound, &args, names)
        .map_err(|e| symex_error(&req.program, e))?;
    Ok(ReplayOutcome {
        testcase: tc,
        replay,
    })
}
