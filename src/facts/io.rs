//! Writing a [`FactSet`] as files and reading it back.
//!
//! Relations: `<name>.facts` (tab-separated, Soufflé's default) or
//! `<name>.csv`; no header; rows sorted. The id tables (`statements.tsv`,
//! `locations.tsv`, `threads.tsv`) have a header row and quote a field only
//! when it contains a tab, quote or newline.

use super::schema;
use super::{FactSet, LocationInfo, Manifest, StatementInfo, ThreadInfo};
use crate::error::{ConcordError, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
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

pub fn write_dir(facts: &FactSet, dir: &Path, format: FactFormat) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| out_err(dir, e))?;
    for rel in schema::all() {
        let path = dir.join(format!("{}.{}", rel.name, format.extension()));
        let mut text = String::new();
        let sep = format.delimiter() as char;
        for row in facts.rows(rel.name) {
            let cells: Vec<String> = row.iter().map(u32::to_string).collect();
            text.push_str(&cells.join(&sep.to_string()));
            text.push('\n');
        }
        std::fs::write(&path, text).map_err(|e| out_err(&path, e))?;
    }
    write_table(&dir.join("statements.tsv"), &facts.statements)?;
    write_table(&dir.join("locations.tsv"), &facts.locations)?;
    write_table(&dir.join("threads.tsv"), &facts.threads)?;
    let manifest_path = dir.join("manifest.json");
    let json =
        serde_json::to_string_pretty(&facts.manifest).map_err(|e| out_err(&manifest_path, e))?;
    std::fs::write(&manifest_path, json + "\n").map_err(|e| out_err(&manifest_path, e))?;
    Ok(())
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

/// Read a fact directory back (either format; `.facts` preferred).
pub fn read_dir(dir: &Path) -> Result<FactSet> {
    if !dir.is_dir() {
        return Err(ConcordError::InputMissing {
            path: dir.to_path_buf(),
        });
    }
    let manifest_path = dir.join("manifest.json");
    let manifest: Manifest = serde_json::from_str(
        &std::fs::read_to_string(&manifest_path).map_err(|e| in_err(&manifest_path, e))?,
    )
    .map_err(|e| in_err(&manifest_path, e))?;
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
        let rows = relations.get_mut(rel.name).expect("declared relation");
        for (lineno, line) in text.lines().enumerate() {
            if line.is_empty() {
                continue;
            }
            let row = parse_row(line, delim as char, rel.arity())
                .map_err(|e| in_err(&path, format!("line {}: {e}", lineno + 1)))?;
            rows.insert(row);
        }
    }
    Ok(FactSet {
        statements: read_table::<StatementInfo>(&dir.join("statements.tsv"))?,
        locations: read_table::<LocationInfo>(&dir.join("locations.tsv"))?,
        threads: read_table::<ThreadInfo>(&dir.join("threads.tsv"))?,
        relations,
        manifest,
    })
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
        "manifest.json",
    ] {
        names.insert(PathBuf::from(t));
    }
    names
}
