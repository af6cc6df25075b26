//! Driving the `concord` binary (`facts`, `diff --max-rank 2`) and reading
//! what a facts directory says about the program: statements, threads and
//! unresolved calls, plus which functions the threads run and which source
//! files have statements inside threads other than main.

use crate::child::{self, Limits, Outcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Concord {
    pub bin: PathBuf,
    pub limits: Limits,
}

impl Concord {
    /// `concord facts <input> -o <out>`; `out` must not exist yet.
    pub fn facts(&self, input: &Path, out: &Path) -> std::io::Result<Outcome> {
        child::run(
            Command::new(&self.bin)
                .arg("facts")
                .arg(input)
                .arg("-o")
                .arg(out),
            self.limits,
        )
    }

    /// `concord diff <old> <new> --max-rank 2`: exit 0 (no difference) and
    /// 1 (differences) are both successes.
    pub fn diff(&self, old: &Path, new: &Path) -> std::io::Result<Outcome> {
        child::run(
            Command::new(&self.bin)
                .arg("diff")
                .arg(old)
                .arg(new)
                .args(["--max-rank", "2"]),
            self.limits,
        )
    }
}

/// What a facts directory holds, in counts.
pub struct FactCounts {
    pub statements: usize,
    pub threads: usize,
    /// Rows of `unresolved_call`; `None` when this concord writes no such
    /// relation (older binaries).
    pub unresolved: Option<usize>,
    /// Thread start functions with their number of abstract threads (main
    /// included).
    pub thread_functions: BTreeMap<String, usize>,
    /// Statements in threads other than main, per source file.
    pub files_in_threads: BTreeMap<String, usize>,
}

pub fn read_counts(dir: &Path) -> Result<FactCounts, String> {
    let statements = read_tsv(&dir.join("statements.tsv"))?;
    let threads = read_tsv(&dir.join("threads.tsv"))?;
    let mut files_in_threads = BTreeMap::new();
    let (file_col, thread_col) = (statements.column("file")?, statements.column("thread")?);
    for row in &statements.rows {
        let thread = row.get(thread_col).map_or("", String::as_str);
        if thread != "0" && !thread.is_empty() {
            let file = row.get(file_col).cloned().unwrap_or_default();
            *files_in_threads.entry(file).or_insert(0) += 1;
        }
    }
    let mut thread_functions = BTreeMap::new();
    let function_col = threads.column("function")?;
    for row in &threads.rows {
        let f = row.get(function_col).cloned().unwrap_or_default();
        *thread_functions.entry(f).or_insert(0) += 1;
    }
    let unresolved = ["unresolved_call.facts", "unresolved_call.csv"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
        .map(|p| {
            std::fs::read_to_string(&p)
                .map(|s| s.lines().filter(|l| !l.trim().is_empty()).count())
                .map_err(|e| format!("{}: {e}", p.display()))
        })
        .transpose()?;
    Ok(FactCounts {
        statements: statements.rows.len(),
        threads: threads.rows.len(),
        unresolved,
        thread_functions,
        files_in_threads,
    })
}

struct Tsv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Tsv {
    fn column(&self, name: &str) -> Result<usize, String> {
        self.header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("no `{name}` column in {:?}", self.header))
    }
}

/// A tab-separated file whose first line names its columns.
fn read_tsv(path: &Path) -> Result<Tsv, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let header = lines
        .next()
        .ok_or_else(|| format!("{}: empty", path.display()))?
        .split('\t')
        .map(str::to_string)
        .collect();
    let rows = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    Ok(Tsv { header, rows })
}
