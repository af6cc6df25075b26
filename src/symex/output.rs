//! KLEE-style results directory and replay.
//!
//! `concord-out-N/` holds `info` (command line, versions, times, stats),
//! `testNNNNNN.json` (one per finding) and `stats.json`; `concord-last`
//! links to the newest directory.

use super::{explore, Exploration, Finding, FindingKind, MemberNames, SymexError, SymexOptions};
use crate::facts::extract::names::DebugTypes;
use crate::frontend::Program;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why results could not be written or a test case not read.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("{} exists and is not empty; results of two runs are never mixed: remove it or choose another --output-dir", .0.display())]
    NotEmpty(PathBuf),
    #[error("{0}")]
    Invalid(String),
}

/// Format version of `testNNNNNN.json` (and `stats.json`): raised when a
/// field changes meaning or disappears; new fields may appear without it.
pub const FORMAT_VERSION: u32 = 2;

fn default_bound() -> u32 {
    3
}

/// One test case file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestCase {
    /// [`FORMAT_VERSION`] of the writer (absent: 1).
    #[serde(default = "default_version")]
    pub version: u32,
    pub program: String,
    pub reduction: String,
    /// Loop bound of the run that found it (replay uses the same).
    #[serde(default = "default_bound")]
    pub loop_bound: u32,
    /// argv of the run (argv[0] first).
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(flatten)]
    pub finding: Finding,
}

impl std::ops::Deref for TestCase {
    type Target = Finding;
    fn deref(&self) -> &Finding {
        &self.finding
    }
}

fn default_version() -> u32 {
    1
}

/// Claim a fresh `concord-out-N`: `create_dir` fails when the directory
/// exists, so two concurrent runs never share one.
fn fresh_dir(base: &Path) -> std::io::Result<PathBuf> {
    let mut n = 0u64;
    loop {
        let d = base.join(format!("concord-out-{n}"));
        match std::fs::create_dir(&d) {
            Ok(()) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Create the results directory (an existing empty one is used, a
/// non-empty one refused); returns its path.
pub fn results_dir(dir: Option<&Path>) -> Result<PathBuf, OutputError> {
    Ok(match dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            if std::fs::read_dir(d)?.next().is_some() {
                return Err(OutputError::NotEmpty(d.to_path_buf()));
            }
            d.to_path_buf()
        }
        None => {
            let d = fresh_dir(Path::new("."))?;
            // The link is a convenience: replace it atomically (a temporary
            // link renamed over the old one), ignore failures.
            #[cfg(unix)]
            if let Some(name) = d.file_name() {
                let tmp = PathBuf::from(format!(".concord-last.{}", std::process::id()));
                let _ = std::fs::remove_file(&tmp);
                if std::os::unix::fs::symlink(name, &tmp).is_ok()
                    && std::fs::rename(&tmp, "concord-last").is_err()
                {
                    let _ = std::fs::remove_file(&tmp);
                }
            }
            d
        }
    })
}

/// Something that is not a link is named `concord-last` in the current
/// directory (a directory a user made, say): `results_dir` could not
/// point it at the newest results and left it as it is.
pub fn last_link_blocked() -> bool {
    std::fs::symlink_metadata("concord-last").is_ok_and(|m| !m.file_type().is_symlink())
}

/// Write `bytes` to `path` through a temporary file and a rename, so a
/// reader (or a crash) never sees half a file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The test case of `f` as written to `testNNNNNN.json`.
pub fn testcase(program: &Path, opts: &SymexOptions, loop_bound: u32, f: &Finding) -> TestCase {
    TestCase {
        version: FORMAT_VERSION,
        program: program.display().to_string(),
        reduction: opts.reduction.to_string(),
        loop_bound,
        args: opts.args.clone(),
        finding: f.clone(),
    }
}

/// Write test case number `i` (1-based) of the results directory `d`.
pub fn write_testcase(d: &Path, i: usize, tc: &TestCase) -> Result<(), OutputError> {
    write_atomic(
        &d.join(format!("test{i:06}.json")),
        serde_json::to_string_pretty(tc)?.as_bytes(),
    )?;
    Ok(())
}

/// Write `info`, `stats.json` and every test case (final hit counts) into
/// the results directory `d`.
pub fn write_results(
    d: &Path,
    program: &Path,
    opts: &SymexOptions,
    res: &Exploration,
    started: std::time::SystemTime,
) -> Result<(), OutputError> {
    let cmdline: Vec<String> = std::env::args().collect();
    let since = started
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let s = &res.stats;
    let info = format!(
        "command: {}\nprogram: {}\nconcord: {}\nz3: {}\nreduction: {}\nloop bound: {} (tried {:?})\nstarted (unix): {}\nelapsed: {:.3}s\n\
         runs: {}\ncomplete runs: {}\nerror runs: {}\npartial runs (early terminations): {}\ncut runs (loop bound): {}\n\
         pruned branches: {}\npruned interleavings: {}\nsleep-set blocked: {}\nsolver queries: {}\nsolver time: {:.1}ms\n\
         peak memory: {} KiB\nfindings: {}\nincomplete: {}\nverdict: {}\n{}",
        cmdline.join(" "),
        program.display(),
        env!("CARGO_PKG_VERSION"),
        "crate 0.12.1 (system libz3)",
        opts.reduction,
        s.loop_bound,
        s.loop_bounds_tried,
        since,
        s.total_ms / 1000.0,
        s.runs(),
        s.complete_runs,
        s.error_runs,
        s.partial_runs,
        s.cut_runs,
        s.pruned_branches,
        s.pruned_interleavings,
        s.sleep_blocked,
        s.solver_queries,
        s.solver_ms,
        s.peak_memory_kb,
        res.findings.len(),
        s.incomplete,
        s.verdict,
        s.reasons
            .iter()
            .map(|r| format!("  because: {r}\n"))
            .collect::<String>()
    );
    write_atomic(&d.join("info"), info.as_bytes())?;
    let mut stats_v = serde_json::to_value(&res.stats)?;
    stats_v["version"] = FORMAT_VERSION.into();
    write_atomic(
        &d.join("stats.json"),
        serde_json::to_string_pretty(&stats_v)?.as_bytes(),
    )?;
    for (i, f) in res.findings.iter().enumerate() {
        write_testcase(d, i + 1, &testcase(program, opts, res.stats.loop_bound, f))?;
    }
    Ok(())
}

/// Read a `testNNNNNN.json`.
pub fn read_testcase(p: &Path) -> Result<TestCase, OutputError> {
    let tc: TestCase = serde_json::from_str(&std::fs::read_to_string(p)?)?;
    // an edited input would replay as some other value: refuse it
    for input in &tc.finding.inputs {
        let fits = input.bits >= 64 || input.value >> input.bits == 0;
        if input.bits == 0 || input.bits > 64 || !fits {
            return Err(OutputError::Invalid(format!(
                "input `{}` has width {} and value {}: a width is 1 to 64 bits and the value must fit in it",
                input.name, input.bits, input.value
            )));
        }
    }
    Ok(tc)
}

/// Outcome of a replay.
#[derive(Clone, Debug)]
pub struct Replay {
    pub confirmed: bool,
    pub got: Vec<(FindingKind, String)>,
    /// The steps of the replayed run up to the confirmed finding (or up to
    /// the first finding when not confirmed).
    pub trace: Option<Vec<super::TraceStep>>,
}

/// Re-execute the test case's schedule with its concrete inputs; refuses
/// (`SymexError::Mismatch`) a test case whose schedule names a thread that
/// cannot run or that lacks an input the program reads.
pub fn replay(m: &llvm_ir::Module, tc: &Finding, loop_bound: u32) -> Result<Replay, SymexError> {
    replay_with_args(m, tc, loop_bound, &SymexOptions::default().args)
}

/// The C names of `program`'s struct types, from its debug information
/// (empty without it), for traces to name fields by.
pub fn member_names(program: &Program) -> Arc<MemberNames> {
    let debug = DebugTypes::of(program);
    let structs = debug
        .structs()
        .map(|(ir_name, s)| (ir_name.clone(), (s.c_name.clone(), s.fields.clone())))
        .collect();
    Arc::new(MemberNames { structs })
}

/// Record each finding's run step by step by replaying it (its schedule
/// and inputs, the command line `opts.args`, fields named by
/// `opts.member_names`); the exploration itself keeps no traces, which
/// would cost time at every step.  A finding whose replay fails keeps no
/// trace.
pub fn attach_traces(m: &llvm_ir::Module, res: &mut Exploration, opts: &SymexOptions) {
    let bound = res.stats.loop_bound;
    for f in res.findings.iter_mut() {
        if let Ok(Replay {
            trace: Some(t),
            confirmed: true,
            ..
        }) = replay_named(m, f, bound, &opts.args, opts.member_names.clone())
        {
            f.trace = t;
        }
    }
}

/// [`replay`] with the program's command line (argv[0] first).
pub fn replay_with_args(
    m: &llvm_ir::Module,
    tc: &Finding,
    loop_bound: u32,
    args: &[String],
) -> Result<Replay, SymexError> {
    replay_named(m, tc, loop_bound, args, None)
}

/// [`replay_with_args`], the trace naming fields by `names`.
pub fn replay_named(
    m: &llvm_ir::Module,
    tc: &Finding,
    loop_bound: u32,
    args: &[String],
    names: Option<Arc<MemberNames>>,
) -> Result<Replay, SymexError> {
    let inputs: BTreeMap<String, u64> = tc
        .inputs
        .iter()
        .map(|i| (i.name.clone(), i.value))
        .collect();
    let opts = SymexOptions {
        schedule: Some(tc.schedule.clone()),
        inputs: Some(inputs),
        loop_bound,
        args: args.to_vec(),
        member_names: names,
        ..Default::default()
    };
    let r = explore(m, &opts)?;
    if let Some(why) = r.stats.replay_mismatch.clone() {
        return Err(SymexError::Mismatch(why));
    }
    let got: Vec<(FindingKind, String)> = r
        .findings
        .iter()
        .map(|f| (f.kind, f.location.clone()))
        .collect();
    let hit = r
        .findings
        .iter()
        .find(|f| f.kind == tc.kind && f.location == tc.location);
    let confirmed = hit.is_some();
    let trace = hit.or(r.findings.first()).map(|f| f.trace.clone());
    Ok(Replay {
        confirmed,
        got,
        trace,
    })
}
