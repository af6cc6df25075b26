//! Loading one version of a program — a source or IR file, a build (a
//! directory with `compile_commands.json`), a list of C files (`a.c,b.c`,
//! `@FILE`, see [`crate::filelist`]) or a fact directory — with the
//! source text its statements point at and the warnings of its model, and
//! matching two loaded versions. Every command loads through here; what to
//! show of the warnings is the caller's choice (`-q`).

use crate::error::Result;
use crate::facts::coverage::CoverageAccount;
use crate::facts::{self, extract::ExtractOptions, FactSet};
use crate::frontend::{self, CompileOptions, Program};
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
    /// What the model of this version could not resolve (see [`unresolved`]).
    pub warnings: Vec<LoadWarning>,
    /// What the model of this version left out (counts and first places).
    pub coverage: CoverageAccount,
    /// Where each line of the texts above starts, built on the first
    /// [`LoadedVersion::line_text`] (which scanned the file from its start
    /// on every call: 34 of `impact`'s 54 s at 50 KLoC, quoting each
    /// impacted line). The texts are not changed after loading.
    line_starts: std::sync::OnceLock<LineStarts>,
}

/// Where the lines of `text` start.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Byte offsets of the starts of lines, per text of a [`LoadedVersion`].
#[derive(Debug, Clone, Default)]
struct LineStarts {
    source: Vec<usize>,
    files: BTreeMap<String, Vec<usize>>,
    headers: BTreeMap<String, Vec<usize>>,
}

/// Line `n` (from 0) of `text` whose lines start at `starts`, as
/// `text.lines().nth(n)` gives it.
fn nth_line<'a>(text: &'a str, starts: &[usize], n: usize) -> Option<&'a str> {
    let start = *starts.get(n)?;
    if start >= text.len() {
        // past the last line (a text ending in a newline has no line after it)
        return None;
    }
    match starts.get(n + 1) {
        // ended by "\n" or "\r\n"
        Some(&next) => {
            let line = &text[start..next - 1];
            Some(line.strip_suffix('\r').unwrap_or(line))
        }
        None => Some(&text[start..]),
    }
}

impl LineStarts {
    fn of(v: &LoadedVersion) -> LineStarts {
        let each = |texts: &BTreeMap<String, String>| {
            (texts.iter())
                .map(|(name, text)| (name.clone(), line_starts(text)))
                .collect()
        };
        LineStarts {
            source: v.source.as_deref().map(line_starts).unwrap_or_default(),
            files: each(&v.files),
            headers: each(&v.headers),
        }
    }
}

/// A part of a program the model could not resolve (an indirect call with
/// no known target, a thread with no known start routine): the answer does
/// not cover it. Its text is the message a user sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWarning(pub String);

impl std::fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The warnings of a version's facts, in a stable order.
pub fn unresolved(facts: &FactSet) -> Vec<LoadWarning> {
    facts::extract::unresolved_warnings(facts)
        .into_iter()
        .map(LoadWarning)
        .collect()
}

impl LoadedVersion {
    /// The text (trimmed) of line `line` of `file`, where the source is
    /// known: a build's or list's file by name, a single file's own text.
    pub fn line_text(&self, file: &str, line: u32) -> Option<&str> {
        let index = self.line_starts.get_or_init(|| LineStarts::of(self));
        let (text, starts) = if !self.files.is_empty() {
            (self.files.get(file)?, index.files.get(file)?)
        } else if self.source_name.as_deref().map_or(true, |n| n == file) {
            (self.source.as_ref()?, &index.source)
        } else {
            // A header's line is never the source file's line of that number.
            (self.headers.get(file)?, index.headers.get(file)?)
        };
        nth_line(text, starts, (line as usize).checked_sub(1)?).map(str::trim)
    }

    /// The source line of statement `id`, where known.
    pub fn statement_line_text(&self, id: u32) -> Option<&str> {
        let s = self.facts.statement(id)?;
        self.line_text(&s.file, s.line)
    }
}

/// Whether a single file must define `main` (builds and lists always must).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Main,
    /// `symex --entry` names its own entry function.
    Any,
}

fn read_program(path: &Path, compile: &CompileOptions, entry: Entry) -> Result<Program> {
    let mut clock = facts::extract::StepClock::start(path);
    let program = if crate::filelist::is_list(path) {
        let list = crate::filelist::parse(path)?;
        frontend::load_units(&list.root, list.units, path, compile)
    } else if path.is_dir() && (entry == Entry::Main || crate::compdb::find(path).is_some()) {
        frontend::load_build(path, compile)
    } else if entry == Entry::Main {
        frontend::load_program(path, compile)
    } else {
        // A directory that is no build is refused here, as any non-file.
        frontend::load_module(path, compile)
    };
    clock.lap("front end (compile, link, parse)");
    program
}

/// Compile (if needed) and load the module of one program, build or list
/// of C files, for the symbolic executor: a single file need not define
/// `main`.
pub fn load_module(path: &Path, compile: &CompileOptions) -> Result<Program> {
    read_program(path, compile, Entry::Any)
}

fn extract_from(
    program: &Program,
    compile: &CompileOptions,
    extract: &ExtractOptions,
) -> Result<FactSet> {
    let mut facts = facts::extract::extract(program, extract)?;
    facts.manifest.cflags.extend(compile.extra_flags.clone());
    Ok(facts)
}

/// Compile (if needed), load and extract one program, build or list of C files.
pub fn extract_program(
    path: &Path,
    compile: &CompileOptions,
    extract: &ExtractOptions,
) -> Result<FactSet> {
    let program = read_program(path, compile, Entry::Main)?;
    extract_from(&program, compile, extract)
}

/// Load a version with its module, for the symbolic executor (`symex OLD
/// NEW`): a program, a build or a list of C files, never a fact directory
/// (there is nothing to execute in one).
pub fn load_version_with_module(
    path: &Path,
    compile: &CompileOptions,
    extract: &ExtractOptions,
) -> Result<(LoadedVersion, Program)> {
    let program = load_module(path, compile)?;
    let facts = extract_from(&program, compile, extract)?;
    Ok((with_sources(path, facts)?, program))
}

/// Load a version from a program, a build, a list of C files or a fact directory.
pub fn load_version(
    path: &Path,
    compile: &CompileOptions,
    extract: &ExtractOptions,
) -> Result<LoadedVersion> {
    if facts::io::is_fact_dir(path) {
        return with_sources(path, facts::io::read_dir(path)?);
    }
    let is_build = crate::filelist::is_list(path) || crate::compdb::find(path).is_some();
    if path.is_dir() && !is_build {
        return Err(facts::io::not_a_fact_dir(path));
    }
    with_sources(path, extract_program(path, compile, extract)?)
}

/// `facts` of the version at `path` with the source text its statements
/// point at and its warnings.
fn with_sources(path: &Path, facts: FactSet) -> Result<LoadedVersion> {
    // Where a build's or a list's sources are named from.
    let root = if crate::filelist::is_list(path) {
        Some(crate::filelist::parse(path)?.root)
    } else if path.is_dir() && crate::compdb::find(path).is_some() {
        Some(path.to_path_buf())
    } else {
        None
    };
    let is_build = root.is_some();
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
        source,
        source_name,
        headers,
        files,
        label: path.display().to_string(),
        warnings: unresolved(&facts),
        coverage: CoverageAccount::of(&facts),
        facts,
        line_starts: Default::default(),
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

/// Where one version comes from and how to compile it (a version of a pair
/// may have flags of its own: `--old-cflags`, `--new-cflags`).
#[derive(Debug, Clone)]
pub struct VersionSource {
    pub path: PathBuf,
    pub compile: CompileOptions,
}

/// Load two versions side by side (compiling, parsing and extracting are
/// independent: one core each); old's error, if both fail, is the one
/// reported.
pub fn load_both(
    old: &VersionSource,
    new: &VersionSource,
    extract: &ExtractOptions,
) -> Result<(LoadedVersion, LoadedVersion)> {
    let mut both =
        crate::parallel::map(&[old, new], |v| load_version(&v.path, &v.compile, extract))
            .into_iter();
    let (o, n) = (both.next().expect("old"), both.next().expect("new"));
    Ok((o?, n?))
}

#[cfg(test)]
mod tests {
    use super::{line_starts, nth_line};

    #[test]
    fn indexed_lines_are_the_lines_of_the_text() {
        for text in [
            "",
            "\n",
            "one",
            "one\n",
            "one\ntwo",
            "one\r\ntwo\r\n\n  four \n",
            "a\rb\nc\r",
        ] {
            let starts = line_starts(text);
            for n in 0..6 {
                assert_eq!(
                    nth_line(text, &starts, n),
                    text.lines().nth(n),
                    "{text:?} line {n}"
                );
            }
        }
    }
}
