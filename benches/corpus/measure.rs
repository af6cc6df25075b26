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
    /// With `phases`, `--verbose` too.
    pub fn facts(&self, input: &Path, out: &Path, phases: bool) -> std::io::Result<Outcome> {
        let mut cmd = Command::new(&self.bin);
        cmd.arg("facts").arg(input).arg("-o").arg(out);
        if phases {
            cmd.arg("--verbose");
        }
        child::run(&mut cmd, self.limits)
    }

    /// `concord diff <old> <new> --max-rank <rank> --all-ranks`: exit 0
    /// (no difference), 1 (differences) and 10 (inconclusive) are answers.
    /// `--all-ranks`, so every rank up to `rank` runs even when a lower one
    /// already differs (the default stops there, and would measure rank 1
    /// only on most real patches).
    /// With `phases`, `--verbose` too (per-phase time and memory on
    /// stderr; binaries before it reject the flag).
    pub fn diff(
        &self,
        old: &Path,
        new: &Path,
        rank: u32,
        phases: bool,
    ) -> std::io::Result<Outcome> {
        let mut cmd = Command::new(&self.bin);
        cmd.arg("diff")
            .arg(old)
            .arg(new)
            .args(["--max-rank", &rank.to_string(), "--all-ranks"]);
        if phases {
            cmd.arg("--verbose");
        }
        child::run(&mut cmd, self.limits)
    }

    /// `concord impact <old> <new> --format json` (both directions).
    pub fn impact(&self, old: &Path, new: &Path, phases: bool) -> std::io::Result<Outcome> {
        let mut cmd = Command::new(&self.bin);
        cmd.arg("impact")
            .arg(old)
            .arg(new)
            .args(["--format", "json"]);
        if phases {
            cmd.arg("--verbose");
        }
        child::run(&mut cmd, self.limits)
    }
}

/// `concord: phase <name>: <ms> ms, peak <MB> MB, ...` lines of
/// `--verbose`, as (name, seconds, peak MB).
pub fn phases(stderr: &str) -> Vec<(String, f64, f64)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("concord: phase ")?;
            let (name, figures) = rest.rsplit_once(": ")?;
            let ms: f64 = figures.split(" ms").next()?.trim().parse().ok()?;
            let peak: f64 = figures
                .split("peak ")
                .nth(1)?
                .split(" MB")
                .next()?
                .trim()
                .parse()
                .ok()?;
            Some((name.to_string(), ms / 1000.0, peak))
        })
        .collect()
}

/// What a facts directory holds, in counts.
pub struct FactCounts {
    pub statements: usize,
    pub threads: usize,
    /// Rows of `unresolved_call`; `None` when this concord writes no such
    /// relation (older binaries).
    pub unresolved: Option<usize>,
    /// The coverage account (`coverage.json`): gap kind -> count; `None`
    /// when this concord writes no account (older binaries).
    pub coverage: Option<BTreeMap<String, u64>>,
    /// Thread start functions with their number of abstract threads (main
    /// included).
    pub thread_functions: BTreeMap<String, usize>,
    /// Statements in threads other than main, per source file.
    pub files_in_threads: BTreeMap<String, usize>,
    /// Per create site (threads of one `pthread_create` call and context),
    /// what tells its threads apart: see [`SiteSummary`].
    pub sites: Vec<SiteSummary>,
}

/// The threads of one create site: their start function, the functions
/// only they run (so a trampoline's real routine shows, e.g. pigz's
/// `ignition` running `compress_thread`), and the shared locations they
/// access that threads of other sites (or main) access too.
pub struct SiteSummary {
    pub function: String,
    pub instances: usize,
    /// Up to 4 (function, statements), most statements first.
    pub own_functions: Vec<(String, usize)>,
    /// Up to 4 location names, most accesses first.
    pub shared_with_others: Vec<String>,
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
    let sites = site_summaries(dir, &statements, &threads)?;
    let coverage = read_coverage(&dir.join("coverage.json"))?;
    Ok(FactCounts {
        statements: statements.rows.len(),
        threads: threads.rows.len(),
        unresolved,
        coverage,
        thread_functions,
        files_in_threads,
        sites,
    })
}

fn site_summaries(dir: &Path, statements: &Tsv, threads: &Tsv) -> Result<Vec<SiteSummary>, String> {
    let (id_col, fn_col, th_col) = (
        statements.column("id")?,
        statements.column("function")?,
        statements.column("thread")?,
    );
    let (tid_col, site_col, tfn_col) = (
        threads.column("id")?,
        threads.column("create_stmt")?,
        threads.column("function")?,
    );
    // thread -> site key ("" for main); site -> (start function, instances)
    let mut site_of: BTreeMap<String, String> = BTreeMap::new();
    let mut sites: BTreeMap<String, (String, usize)> = BTreeMap::new();
    for row in &threads.rows {
        let site = row.get(site_col).cloned().unwrap_or_default();
        site_of.insert(row.get(tid_col).cloned().unwrap_or_default(), site.clone());
        let e = sites
            .entry(site)
            .or_insert_with(|| (row.get(tfn_col).cloned().unwrap_or_default(), 0));
        e.1 += 1;
    }
    let cell = |row: &Vec<String>, c: usize| row.get(c).cloned().unwrap_or_default();
    // statement -> site; per function, the sites running it and its statements per site
    let mut stmt_site: BTreeMap<String, String> = BTreeMap::new();
    let mut fn_sites: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for row in &statements.rows {
        let Some(site) = site_of.get(&cell(row, th_col)) else {
            continue;
        };
        stmt_site.insert(cell(row, id_col), site.clone());
        *fn_sites
            .entry(cell(row, fn_col))
            .or_default()
            .entry(site.clone())
            .or_insert(0) += 1;
    }
    // location -> accesses per site
    let names =
        read_tsv(&dir.join("names.tsv")).or_else(|_| read_tsv(&dir.join("locations.tsv")))?;
    let (nid, nname) = (names.column("id")?, names.column("name")?);
    let name_of: BTreeMap<String, String> = names
        .rows
        .iter()
        .map(|r| (cell(r, nid), cell(r, nname)))
        .collect();
    let mut loc_sites: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for rel in ["shared_read.facts", "shared_write.facts"] {
        let Ok(text) = std::fs::read_to_string(dir.join(rel)) else {
            continue;
        };
        for line in text.lines() {
            let mut it = line.split('\t');
            let (Some(s), Some(l)) = (it.next(), it.next()) else {
                continue;
            };
            if let Some(site) = stmt_site.get(s) {
                *loc_sites
                    .entry(l.to_string())
                    .or_default()
                    .entry(site.clone())
                    .or_insert(0) += 1;
            }
        }
    }
    let top = |mut v: Vec<(String, usize)>| -> Vec<(String, usize)> {
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.truncate(4);
        v
    };
    Ok(sites
        .into_iter()
        .filter(|(site, _)| !site.is_empty())
        .map(|(site, (function, instances))| {
            let own = fn_sites
                .iter()
                .filter(|(_, by_site)| by_site.len() == 1)
                .filter_map(|(f, by_site)| Some((f.clone(), *by_site.get(&site)?)))
                .collect();
            let shared = loc_sites
                .iter()
                .filter(|(_, by_site)| by_site.len() > 1)
                .filter_map(|(l, by_site)| {
                    let name = name_of.get(l).cloned().unwrap_or_else(|| format!("#{l}"));
                    Some((name, *by_site.get(&site)?))
                })
                .collect();
            SiteSummary {
                function,
                instances,
                own_functions: top(own),
                shared_with_others: top(shared).into_iter().map(|(n, _)| n).collect(),
            }
        })
        .collect())
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

/// Gap kind -> count from a fact directory's `coverage.json`, if any.
fn read_coverage(path: &Path) -> Result<Option<BTreeMap<String, u64>>, String> {
    if !path.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let gaps = doc["gaps"]
        .as_array()
        .ok_or_else(|| format!("{}: no `gaps` list", path.display()))?;
    Ok(Some(
        gaps.iter()
            .filter_map(|g| Some((g["kind"].as_str()?.to_string(), g["count"].as_u64()?)))
            .collect(),
    ))
}
