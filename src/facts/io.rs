//! Writing a [`FactSet`] as files and reading it back.
//!
//! Relations: `<name>.facts` (tab-separated, Soufflé's default) or
//! `<name>.csv`; no header; rows sorted. The id tables (`statements.tsv`,
//! `locations.tsv`, `threads.tsv`, `names.tsv`) have a header row and quote a field only
//! when it contains a tab, quote or newline.

use super::schema;
use super::{
    FactSet, LocationInfo, Manifest, NameInfo, RowSet, StatementInfo, ThreadInfo, UnreachedFunction,
};
use crate::error::{ConcordError, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactFormat {
    /// `<relation>.facts`, tab-separated (Soufflé's input format).
    Tsv,
    /// `<relation>.csv`, comma-separated.
    Csv,
}

impl FactFormat {
    fn extension(self) -> &'static str {
        match self {
            FactFormat::Tsv => "facts",
            FactFormat::Csv => "csv",
        }
    }
    fn delimiter(self) -> u8 {
        match self {
            FactFormat::Tsv => b'\t',
            FactFormat::Csv => b',',
        }
    }
}

fn out_err(path: &Path, e: impl std::fmt::Display) -> ConcordError {
    ConcordError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

fn in_err(path: &Path, e: impl std::fmt::Display) -> ConcordError {
    ConcordError::BadFacts {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// The layout version of a fact directory, written into `manifest.json`
/// as `format_version`. Readers accept exactly this version; bump it when
/// a file's columns or meaning change.
pub const FORMAT_VERSION: u32 = 1;

/// `manifest.json` as written: the format version first, then the manifest.
#[derive(serde::Serialize)]
struct ManifestOut<'a> {
    format_version: u32,
    #[serde(flatten)]
    manifest: &'a Manifest,
}

#[derive(serde::Deserialize)]
struct ManifestIn {
    format_version: Option<u32>,
    #[serde(flatten)]
    manifest: Manifest,
}

/// Write a fact directory atomically: every file goes into a fresh
/// directory beside `dir`, which then takes `dir`'s place by renames. A
/// reader (or a run killed half-way) sees the old directory or the new
/// one, never a mixture. An existing `dir` must be a fact directory or
/// empty: anything else is refused rather than mixed with or deleted.
pub fn write_dir(facts: &FactSet, dir: &Path, format: FactFormat) -> Result<()> {
    // a directory is read back as the whole program: relations a command
    // left out would read as empty
    assert!(
        facts.omitted.is_empty(),
        "facts extracted without {:?} written as a fact directory",
        facts.omitted
    );
    if dir.exists() {
        let empty = std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none());
        if !dir.is_dir() || !(empty || is_fact_dir(dir)) {
            return Err(out_err(
                dir,
                "it exists and is not a fact directory; refusing to overwrite or mix with it\n  hint: choose a new output directory, or remove this one",
            ));
        }
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| out_err(&parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".concord-facts-")
        .tempdir_in(&parent)
        .map_err(|e| out_err(&parent, e))?;
    let _staging_removed_on_exit = crate::cleanup::remove_on_early_exit(staging.path());
    write_files(facts, staging.path(), format)?;
    set_mode(staging.path(), 0o755).map_err(|e| out_err(staging.path(), e))?;
    if dir.exists() {
        // Move the old directory aside (onto an empty placeholder), put the
        // new one in place, then delete the old one.
        let aside = tempfile::Builder::new()
            .prefix(".concord-facts-old-")
            .tempdir_in(&parent)
            .map_err(|e| out_err(&parent, e))?;
        std::fs::rename(dir, aside.path()).map_err(|e| out_err(dir, e))?;
        if let Err(e) = std::fs::rename(staging.path(), dir) {
            let _ = std::fs::rename(aside.path(), dir);
            return Err(out_err(dir, e));
        }
        drop(aside); // removes the old directory
    } else {
        std::fs::rename(staging.path(), dir).map_err(|e| out_err(dir, e))?;
    }
    // The staging path is gone (renamed): nothing left to clean up.
    let _ = staging.keep();
    Ok(())
}

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

/// Every file of a fact directory, the manifest last.
fn write_files(facts: &FactSet, dir: &Path, format: FactFormat) -> Result<()> {
    // One buffer, reused: relations reach millions of rows, and formatting
    // each cell into its own String cost more than the rest of the write.
    let mut text: Vec<u8> = Vec::new();
    for rel in schema::all() {
        let path = dir.join(format!("{}.{}", rel.name, format.extension()));
        text.clear();
        for row in facts.rows(rel.name) {
            for (i, &cell) in row.iter().enumerate() {
                if i > 0 {
                    text.push(format.delimiter());
                }
                push_decimal(&mut text, cell);
            }
            text.push(b'\n');
        }
        std::fs::write(&path, &text).map_err(|e| out_err(&path, e))?;
    }
    write_table(&dir.join("statements.tsv"), &facts.statements)?;
    write_table(&dir.join("locations.tsv"), &facts.locations)?;
    write_table(&dir.join("threads.tsv"), &facts.threads)?;
    write_table(&dir.join("names.tsv"), &facts.names)?;
    write_table(&dir.join("unreached.tsv"), &facts.unreached)?;
    // The coverage account, for a person (derived from the files above;
    // not read back).
    let coverage_path = dir.join("coverage.json");
    let coverage = serde_json::to_string_pretty(&super::coverage::CoverageAccount::of(facts))
        .map_err(|e| out_err(&coverage_path, e))?;
    std::fs::write(&coverage_path, coverage + "\n").map_err(|e| out_err(&coverage_path, e))?;
    let manifest_path = dir.join("manifest.json");
    let json = serde_json::to_string_pretty(&ManifestOut {
        format_version: FORMAT_VERSION,
        manifest: &facts.manifest,
    })
    .map_err(|e| out_err(&manifest_path, e))?;
    std::fs::write(&manifest_path, json + "\n").map_err(|e| out_err(&manifest_path, e))?;
    Ok(())
}

/// Append `n` in decimal, as `u32::to_string` spells it.
fn push_decimal(out: &mut Vec<u8>, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

fn write_table<T: serde::Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let mut w = csv::WriterBuilder::new()
        .delimiter(b'\t')
        .quote_style(csv::QuoteStyle::Necessary)
        .from_path(path)
        .map_err(|e| out_err(path, e))?;
    for row in rows {
        w.serialize(row).map_err(|e| out_err(path, e))?;
    }
    w.flush().map_err(|e| out_err(path, e))
}

fn read_table<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    if !path.is_file() {
        return Err(in_err(path, "missing, or not a regular file"));
    }
    let mut r = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .from_path(path)
        .map_err(|e| in_err(path, e))?;
    r.deserialize()
        .map(|row| row.map_err(|e| in_err(path, e)))
        .collect()
}

/// Does `dir` look like a fact directory written by `write_dir`?
pub fn is_fact_dir(dir: &Path) -> bool {
    dir.is_dir() && dir.join("manifest.json").is_file()
}

/// Why a directory without `manifest.json` cannot be read: a fact
/// directory that lost its manifest (6), or some other directory (3).
pub fn not_a_fact_dir(dir: &Path) -> ConcordError {
    if dir.join("statements.tsv").exists() {
        in_err(
            dir,
            "manifest.json is missing\n  hint: re-run `concord facts`",
        )
    } else {
        ConcordError::InputUnreadable {
            path: dir.to_path_buf(),
            reason: "a directory, but not a fact directory (no manifest.json)".into(),
        }
    }
}

/// Read a fact directory back (either format; `.facts` preferred).
pub fn read_dir(dir: &Path) -> Result<FactSet> {
    if !dir.is_dir() {
        return Err(ConcordError::InputMissing {
            path: dir.to_path_buf(),
        });
    }
    let manifest_path = dir.join("manifest.json");
    let read: ManifestIn = serde_json::from_str(
        &std::fs::read_to_string(&manifest_path).map_err(|e| in_err(&manifest_path, e))?,
    )
    .map_err(|e| in_err(&manifest_path, e))?;
    match read.format_version {
        Some(FORMAT_VERSION) => {}
        Some(v) => {
            return Err(in_err(
                &manifest_path,
                format!("format_version {v}, but this concord reads version {FORMAT_VERSION}\n  hint: re-run `concord facts` with this concord"),
            ))
        }
        None => {
            return Err(in_err(
                &manifest_path,
                "no format_version: written by an older concord\n  hint: re-run `concord facts` with this concord",
            ))
        }
    }
    let manifest = read.manifest;
    let mut relations = FactSet::empty_relations();
    for rel in schema::all() {
        let (path, delim) = [FactFormat::Tsv, FactFormat::Csv]
            .iter()
            .map(|f| {
                (
                    dir.join(format!("{}.{}", rel.name, f.extension())),
                    f.delimiter(),
                )
            })
            .find(|(p, _)| p.is_file())
            .ok_or_else(|| in_err(dir, format!("missing {}.facts", rel.name)))?;
        let text = std::fs::read_to_string(&path).map_err(|e| in_err(&path, e))?;
        let mut flat = Vec::new();
        for (lineno, line) in text.lines().enumerate() {
            if line.is_empty() {
                continue;
            }
            let row = parse_row(line, delim as char, rel.arity())
                .map_err(|e| in_err(&path, format!("line {}: {e}", lineno + 1)))?;
            flat.extend_from_slice(&row);
        }
        relations.insert(rel.name, RowSet::from_flat(rel.arity(), flat));
    }
    let facts = FactSet {
        statements: read_table::<StatementInfo>(&dir.join("statements.tsv"))?,
        locations: read_table::<LocationInfo>(&dir.join("locations.tsv"))?,
        threads: read_table::<ThreadInfo>(&dir.join("threads.tsv"))?,
        // Display names only: a directory from before they existed still
        // reads, and reports fall back to the locations' names.
        names: if dir.join("names.tsv").exists() {
            read_table::<NameInfo>(&dir.join("names.tsv"))?
        } else {
            Vec::new()
        },
        // Likewise for the table of unreached functions.
        unreached: if dir.join("unreached.tsv").exists() {
            read_table::<UnreachedFunction>(&dir.join("unreached.tsv"))?
        } else {
            Vec::new()
        },
        relations,
        manifest,
        struct_layouts: Default::default(),
        omitted: &[],
    };
    super::check::check(&facts).map_err(|e| in_err(dir, e))?;
    Ok(facts)
}

fn parse_row(line: &str, delim: char, arity: usize) -> std::result::Result<Vec<u32>, String> {
    let row: Vec<u32> = line
        .split(delim)
        .map(|cell| {
            cell.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{cell}` is not an unsigned id"))
        })
        .collect::<std::result::Result<_, _>>()?;
    if row.len() != arity {
        return Err(format!("expected {arity} columns, found {}", row.len()));
    }
    Ok(row)
}

/// Files `write_dir` produces, relative to the directory (for golden tests).
pub fn file_names(format: FactFormat) -> BTreeSet<PathBuf> {
    let mut names: BTreeSet<PathBuf> = schema::all()
        .map(|r| PathBuf::from(format!("{}.{}", r.name, format.extension())))
        .collect();
    for t in [
        "statements.tsv",
        "locations.tsv",
        "threads.tsv",
        "names.tsv",
        "unreached.tsv",
        "coverage.json",
        "manifest.json",
    ] {
        names.insert(PathBuf::from(t));
    }
    names
}

#[cfg(test)]
mod tests {
    use super::push_decimal;

    #[test]
    fn decimal_matches_to_string() {
        let mut out = Vec::new();
        let mut expected = String::new();
        for n in [
            0,
            7,
            9,
            10,
            99,
            100,
            4_095,
            1_000_000,
            u32::MAX - 1,
            u32::MAX,
        ] {
            push_decimal(&mut out, n);
            out.push(b' ');
            expected.push_str(&n.to_string());
            expected.push(' ');
        }
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
