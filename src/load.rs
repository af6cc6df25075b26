//! Loading one version of a program — a source or IR file, a build (a
//! directory with `compile_commands.json`), a list of C files (`a.c,b.c`,
//! `@FILE`, see [`crate::filelist`]) or a fact directory — with the
//! source text its statements point at, and matching two loaded versions.

use crate::error::Result;
use crate::facts::{self, extract::ExtractOptions, FactSet};
use crate::frontend::{self, CompileOptions};
use crate::versions::{self, Version, VersionMatch};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One version as the analyses see it: facts plus its source text, if found.
pub struct LoadedVersion {
    pub facts: FactSet,
    /// The text of a single-file version's source.
    pub source: Option<String>,
    /// The name a single file's statements carry for `source` (`None`:
    /// unknown, every name is taken for it). Statements of included
    /// headers carry other names.
    pub source_name: Option<String>,
    /// A single file's headers that its statements name, read where they
    /// are found (from the current directory, as clang named them).
    pub headers: BTreeMap<String, String>,
    /// A build's sources, by the name its statements carry (relative to the
    /// build's root). Empty for a single file.
    pub files: BTreeMap<String, String>,
    pub label: String,
}

impl LoadedVersion {
    /// The text (trimmed) of line `line` of `file`, where the source is
    /// known: a build's or list's file by name, a single file's own text.
    pub fn line_text(&self, file: &str, line: u32) -> Option<&str> {
        let text = if !self.files.is_empty() {
            self.files.get(file).map(String::as_str)
        } else if self.source_name.as_deref().map_or(true, |n| n == file) {
            self.source.as_deref()
        } else {
            // A header's line is never the source file's line of that number.
            self.headers.get(file).map(String::as_str)
        };
        let n = (line as usize).checked_sub(1)?;
        text?.lines().nth(n).map(str::trim)
    }

    /// The source line of statement `id`, where known.
    pub fn statement_line_text(&self, id: u32) -> Option<&str> {
        let s = self.facts.statement(id)?;
        self.line_text(&s.file, s.line)
    }
}

/// Compile (if needed), load and extract one program, build or list of C files.
pub fn extract_program(
    path: &Path,
    compile: &CompileOptions,
    extract: &ExtractOptions,
) -> Result<FactSet> {
    let program = if crate::filelist::is_list(path) {
        let list = crate::filelist::parse(path)?;
        frontend::load_units(&list.root, list.units, path, compile)?
    } else if path.is_dir() {
        frontend::load_build(path, compile)?
    } else {
        frontend::load_program(path, compile)?
    };
    let mut facts = facts::extract::extract(&program, extract)?;
    facts.manifest.cflags.extend(compile.extra_flags.clone());
    Ok(facts)
}

/// Load a version from a program, a build, a list of C files or a fact directory.
pub fn load_version(
    path: &Path,
    compile: &CompileOptions,
    extract: &ExtractOptions,
) -> Result<LoadedVersion> {
    // Where a build's or a list's sources are named from.
    let root = if crate::filelist::is_list(path) {
        Some(crate::filelist::parse(path)?.root)
    } else if path.is_dir() && crate::compdb::find(path).is_some() {
        Some(path.to_path_buf())
    } else {
        None
    };
    let is_build = root.is_some();
    let facts = if facts::io::is_fact_dir(path) {
        facts::io::read_dir(path)?
    } else if path.is_dir() && !is_build {
        return Err(facts::io::not_a_fact_dir(path));
    } else {
        extract_program(path, compile, extract)?
    };
    let mut files = BTreeMap::new();
    let mut source_name = None;
    let mut headers = BTreeMap::new();
    let source = if is_build {
        // Every source a statement names that lies inside the build.
        for s in &facts.statements {
            if s.file.is_empty() || files.contains_key(&s.file) || Path::new(&s.file).is_absolute()
            {
                continue;
            }
            if let Some(text) = root
                .as_ref()
                .and_then(|r| std::fs::read_to_string(r.join(&s.file)).ok())
            {
                files.insert(s.file.clone(), text);
            }
        }
        None
    } else {
        // The source named in the manifest (a fact directory may have moved away from it).
        let compiled_here = path.extension().is_some_and(|e| e == "c");
        let source_path = if compiled_here {
            Some(path.to_path_buf())
        } else {
            let named = PathBuf::from(&facts.manifest.input);
            named.extension().is_some_and(|e| e == "c").then_some(named)
        };
        let names: BTreeSet<&str> = facts
            .statements
            .iter()
            .map(|s| s.file.as_str())
            .filter(|f| !f.is_empty())
            .collect();
        if let Some(p) = &source_path {
            source_name = name_of_source(p, &names);
        }
        if compiled_here && source_name.is_some() {
            // clang named the headers from the current directory.
            for &n in &names {
                if Some(n) != source_name.as_deref() {
                    if let Ok(text) = std::fs::read_to_string(n) {
                        headers.insert(n.to_string(), text);
                    }
                }
            }
        }
        source_path.and_then(|p| std::fs::read_to_string(p).ok())
    };
    Ok(LoadedVersion {
        facts,
        source,
        source_name,
        headers,
        files,
        label: path.display().to_string(),
    })
}

/// Which of the file names statements carry is the source file `path`:
/// the same file on disk, else the one name with the same file name
/// (a fact directory read from elsewhere). `None` when it cannot be told.
fn name_of_source(path: &Path, names: &BTreeSet<&str>) -> Option<String> {
    let canonical = std::fs::canonicalize(path).ok();
    if let Some(c) = &canonical {
        if let Some(n) = names
            .iter()
            .find(|n| std::fs::canonicalize(n).ok().as_ref() == Some(c))
        {
            return Some(n.to_string());
        }
    }
    let base = path.file_name()?;
    let mut same = names
        .iter()
        .filter(|n| Path::new(n).file_name() == Some(base));
    match (same.next(), same.next()) {
        (Some(n), None) => Some(n.to_string()),
        _ => None,
    }
}

/// Δdiff and Δmap between two loaded versions: by source file and line for
/// builds, by line for single files, by IR alone without source text.
pub fn match_loaded(old: &LoadedVersion, new: &LoadedVersion) -> VersionMatch {
    if old.files.is_empty() && new.files.is_empty() {
        versions::match_versions(&v(old), &v(new))
    } else {
        versions::match_builds(&v(old), &files_of(old), &v(new), &files_of(new))
    }
}

fn v(l: &LoadedVersion) -> Version<'_> {
    Version {
        facts: &l.facts,
        source: l.source.as_deref(),
    }
}

/// A version's sources by name; a single file counts as a build of one.
fn files_of(l: &LoadedVersion) -> BTreeMap<String, String> {
    if !l.files.is_empty() {
        return l.files.clone();
    }
    let mut m = BTreeMap::new();
    let name = l.source_name.clone().or_else(|| {
        l.facts
            .statements
            .iter()
            .find(|s| s.line != 0)
            .map(|s| s.file.clone())
    });
    if let (Some(text), Some(name)) = (&l.source, name) {
        m.insert(name, text.clone());
    }
    m
}
