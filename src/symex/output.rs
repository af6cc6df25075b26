//! KLEE-style results directory and replay.
//!
//! `concord-out-N/` holds `info` (command line, versions, times, stats),
//! `testNNNNNN.json` (one per finding) and `stats.json`; `concord-last`
//! links to the newest directory.

use super::{explore, Exploration, Finding, FindingKind, SymexError, SymexOptions};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why results could not be written or a test case not read.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

/// One test case file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestCase {
    pub program: String,
    pub reduction: String,
    #[serde(flatten)]
    pub finding: Finding,
}

impl std::ops::Deref for TestCase {
    type Target = Finding;
    fn deref(&self) -> &Finding {
        &self.finding
    }
}

fn fresh_dir(base: &Path) -> std::io::Result<PathBuf> {
    for n in 0.. {
        let d = base.join(format!("concord-out-{n}"));
        if !d.exists() {
            std::fs::create_dir_all(&d)?;
            return Ok(d);
        }
    }
    unreachable!()
}

/// Write the results directory; returns its path.
pub fn write_results(
    dir: Option<&Path>,
    program: &Path,
    opts: &SymexOptions,
    res: &Exploration,
    started: std::time::SystemTime,
) -> Result<PathBuf, OutputError> {
    let d = match dir {
        Some(d) => {
            std::fs::create_dir_all(d)?;
            d.to_path_buf()
        }
        None => {
            let d = fresh_dir(Path::new("."))?;
            let link = Path::new("concord-last");
            let _ = std::fs::remove_file(link);
            #[cfg(unix)]
            let _ = std::os::unix::fs::symlink(d.file_name().unwrap(), link);
            d
        }
    };
    let cmdline: Vec<String> = std::env::args().collect();
    let since = started
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let s = &res.stats;
    let info = format!(
        "command: {}\nprogram: {}\nconcord: {}\nz3: {}\nreduction: {}\nloop bound: {}\nstarted (unix): {}\nelapsed: {:.3}s\n\
         runs: {}\ncomplete runs: {}\nerror runs: {}\npartial runs (early terminations): {}\ncut runs (loop bound): {}\n\
         pruned branches: {}\npruned interleavings: {}\nsleep-set blocked: {}\nsolver queries: {}\nsolver time: {:.1}ms\n\
         peak memory: {} KiB\nfindings: {}\nincomplete: {}\n",
        cmdline.join(" "),
        program.display(),
        env!("CARGO_PKG_VERSION"),
        "crate 0.12.1 (system libz3)",
        opts.reduction,
        opts.loop_bound,
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
        s.incomplete
    );
    std::fs::write(d.join("info"), info)?;
    std::fs::write(
        d.join("stats.json"),
        serde_json::to_string_pretty(&res.stats)?,
    )?;
    for (i, f) in res.findings.iter().enumerate() {
        let tc = TestCase {
            program: program.display().to_string(),
            reduction: opts.reduction.to_string(),
            finding: f.clone(),
        };
        std::fs::write(
            d.join(format!("test{:06}.json", i + 1)),
            serde_json::to_string_pretty(&tc)?,
        )?;
    }
    Ok(d)
}

/// Read a `testNNNNNN.json`.
pub fn read_testcase(p: &Path) -> Result<TestCase, OutputError> {
    Ok(serde_json::from_str(&std::fs::read_to_string(p)?)?)
}

/// Outcome of a replay.
#[derive(Clone, Debug)]
pub struct Replay {
    pub confirmed: bool,
    pub got: Vec<(FindingKind, String)>,
}

/// Re-execute the test case's schedule with its concrete inputs.
pub fn replay(m: &llvm_ir::Module, tc: &Finding, loop_bound: u32) -> Result<Replay, SymexError> {
    let inputs: BTreeMap<String, u64> = tc
        .inputs
        .iter()
        .map(|i| (i.name.clone(), i.value))
        .collect();
    let opts = SymexOptions {
        schedule: Some(tc.schedule.clone()),
        inputs: Some(inputs),
        loop_bound,
        ..Default::default()
    };
    let r = explore(m, &opts)?;
    let got: Vec<(FindingKind, String)> = r
        .findings
        .iter()
        .map(|f| (f.kind, f.location.clone()))
        .collect();
    let confirmed = r
        .findings
        .iter()
        .any(|f| f.kind == tc.kind && f.location == tc.location);
    Ok(Replay { confirmed, got })
}
