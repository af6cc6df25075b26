//! Facts: the program as a database. `extract` builds a [`FactSet`] from an
//! LLVM module in one pass; `io` writes and reads it as Soufflé-style files.

pub mod check;
pub mod coverage;
pub mod extract;
pub mod io;
pub mod relations;
pub mod rowset;
pub mod schema;
pub mod text;

use relations::TypedRelation;
pub use rowset::RowSet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub type Row = Vec<u32>;

/// One statement: an instruction in one thread instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatementInfo {
    pub id: u32,
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub function: String,
    pub thread: u32,
    pub kind: String,
    pub text: String,
    /// The instruction this statement is, in the module it was extracted
    /// from. In memory only (not a column of `statements.tsv`): `None`
    /// for facts read from a fact directory and for globals' initial
    /// values.
    #[serde(skip)]
    pub instr: Option<crate::ir::InstrLoc>,
}

impl StatementInfo {
    /// `file:line:col` as shown to users (line 0 means "no debug location").
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.col)
    }

    /// The global an `init` statement (a global's initial value) writes:
    /// extraction (`statement_table`) writes its text as `@name = value`,
    /// and a fact directory keeps only the text.
    pub fn initialised_global(&self) -> Option<&str> {
        if self.kind != "init" {
            return None;
        }
        self.text.strip_prefix('@')?.split(" = ").next()
    }
}

/// An abstract memory location (object plus field path).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocationInfo {
    pub id: u32,
    pub name: String,
    pub object: String,
    pub shared: bool,
}

/// How reports name a location (`names.tsv`, see `extract::names`): C
/// member names for fields, type and allocation site for heap objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameInfo {
    /// The location's id (as in `locations.tsv`).
    pub id: u32,
    /// The whole name: `pool.head`, `(struct pool @ pigz.c:1402).head`.
    pub name: String,
    /// The object alone: `pool`, `main::s`, `struct pool @ pigz.c:1402`.
    pub object: String,
    /// `global`, `stack`, `heap` or `function`.
    pub kind: String,
    /// The object's type: structs and unions by C name, pointers and arrays
    /// in C's spelling, scalars in LLVM's (`struct node *[2]`, `i32[4]`).
    #[serde(rename = "type")]
    pub ty: String,
    /// `file:line` of the allocation (heap) or declaration (stack), if known.
    pub site: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadInfo {
    pub id: u32,
    pub parent: Option<u32>,
    pub create_stmt: Option<u32>,
    pub function: String,
    /// Which unrolled repetition of its create site this instance is (0 based).
    pub instance: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Manifest {
    pub tool: String,
    pub tool_version: String,
    pub input: String,
    pub input_sha256: String,
    pub cflags: Vec<String>,
    pub counts: BTreeMap<String, usize>,
}

/// A function defined in the program that no thread reaches
/// (`unreached.tsv`): its statements are not in the facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnreachedFunction {
    pub function: String,
    /// The file its debug information names (as statements name files).
    pub file: String,
    /// The source lines of its code.
    pub lines: LineRanges,
    /// A hash of its instructions' text (string-constant numbers left
    /// out): two versions' bodies differ when their fingerprints do.
    pub fingerprint: String,
}

/// A set of source lines, written as ranges: `12-19,22`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct LineRanges(pub Vec<(u32, u32)>);

impl LineRanges {
    pub fn from_lines(lines: impl IntoIterator<Item = u32>) -> LineRanges {
        let mut sorted: Vec<u32> = lines.into_iter().collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut out: Vec<(u32, u32)> = Vec::new();
        for l in sorted {
            match out.last_mut() {
                Some((_, hi)) if *hi + 1 == l => *hi = l,
                _ => out.push((l, l)),
            }
        }
        LineRanges(out)
    }

    pub fn contains(&self, line: u32) -> bool {
        self.0.iter().any(|&(lo, hi)| lo <= line && line <= hi)
    }

    pub fn lines(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().flat_map(|&(lo, hi)| lo..=hi)
    }

    pub fn first(&self) -> Option<u32> {
        self.0.first().map(|r| r.0)
    }
}

impl From<LineRanges> for String {
    fn from(r: LineRanges) -> String {
        r.0.iter()
            .map(|&(lo, hi)| {
                if lo == hi {
                    lo.to_string()
                } else {
                    format!("{lo}-{hi}")
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl TryFrom<String> for LineRanges {
    type Error = String;
    fn try_from(text: String) -> Result<LineRanges, String> {
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| format!("`{t}` is not a line number"))
        };
        let mut out = Vec::new();
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (lo, hi) = match part.split_once('-') {
                Some((a, b)) => (num(a)?, num(b)?),
                None => (num(part)?, num(part)?),
            };
            if lo > hi {
                return Err(format!("`{part}`: a range must not go backwards"));
            }
            out.push((lo, hi));
        }
        Ok(LineRanges(out))
    }
}

/// Everything extracted from one program version.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FactSet {
    pub statements: Vec<StatementInfo>,
    pub locations: Vec<LocationInfo>,
    pub threads: Vec<ThreadInfo>,
    /// Display names of the locations, one per location when present
    /// (empty for a fact directory written before `names.tsv` existed).
    pub names: Vec<NameInfo>,
    /// Functions no thread reaches (empty for a fact directory written
    /// before `unreached.tsv` existed).
    pub unreached: Vec<UnreachedFunction>,
    /// Relation name -> rows, sorted and without duplicates (flat).
    pub relations: BTreeMap<&'static str, RowSet>,
    pub manifest: Manifest,
    /// The module's struct types by IR name (`struct.pool`), so `changes`
    /// compares field accesses by member and sizes by type. In memory
    /// only: empty for facts read from a fact directory.
    pub struct_layouts: BTreeMap<String, StructLayout>,
    /// Relations left out at extraction because the command reads none of
    /// them (`ExtractOptions::omit`): empty here, not absent from the
    /// program. In memory only.
    pub omitted: &'static [&'static str],
}

/// One IR struct type as version matching sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StructLayout {
    /// Per IR field: its C member name (`None` for padding or without
    /// debug information) and its IR type.
    pub fields: Vec<(Option<String>, String)>,
    /// ABI size in bytes (what `sizeof` gives).
    pub size: u64,
}

impl FactSet {
    pub fn empty_relations() -> BTreeMap<&'static str, RowSet> {
        schema::all()
            .map(|r| (r.name, RowSet::new(r.arity())))
            .collect()
    }

    /// The rows of one relation, typed (`facts.iter::<MutexLock>()`), sorted.
    pub fn iter<R: TypedRelation>(&self) -> impl Iterator<Item = R> + '_ {
        self.rows(R::NAME).map(|r| R::from_row(r))
    }

    /// Typed rows whose first column is `first` (a range of the sorted set).
    pub fn iter_starting<R: TypedRelation>(&self, first: u32) -> impl Iterator<Item = R> + '_ {
        self.rows_starting(R::NAME, first).map(|r| R::from_row(r))
    }

    /// Adds one row; false if it was there.
    pub fn insert<R: TypedRelation>(&mut self, row: R) -> bool {
        let row = row.to_row();
        self.relations
            .entry(R::NAME)
            .or_insert_with(|| RowSet::new(row.len()))
            .insert(&row)
    }

    /// How many rows the relation has.
    pub fn len_of<R: TypedRelation>(&self) -> usize {
        self.count(R::NAME)
    }

    /// An omitted relation is empty because it was not extracted: a reader
    /// would answer about a program it did not see (a bug, not an input).
    fn check_extracted(&self, relation: &str) {
        assert!(
            !self.omitted.contains(&relation),
            "relation {relation} was not extracted for this command (ExtractOptions::omit)"
        );
    }

    /// Rows of a relation named at run time (a user's query, a file, a
    /// rule engine's input list): the schema's untyped rows.
    pub fn rows(&self, relation: &str) -> impl Iterator<Item = &[u32]> {
        self.check_extracted(relation);
        self.relations.get(relation).into_iter().flatten()
    }

    /// Rows of `relation` whose first column is `first` (a range of the
    /// sorted set, not a scan: reports look up one statement at a time).
    pub fn rows_starting(&self, relation: &str, first: u32) -> impl Iterator<Item = &[u32]> {
        self.check_extracted(relation);
        self.relations
            .get(relation)
            .into_iter()
            .flat_map(move |rows| rows.starting(first))
    }

    pub fn count(&self, relation: &str) -> usize {
        self.check_extracted(relation);
        self.relations.get(relation).map_or(0, |r| r.len())
    }

    /// Rows of a binary relation as pairs (for handing to rule engines).
    pub fn pairs(&self, relation: &str) -> Vec<(u32, u32)> {
        self.rows(relation).map(|r| (r[0], r[1])).collect()
    }

    pub fn triples(&self, relation: &str) -> Vec<(u32, u32, u32)> {
        self.rows(relation).map(|r| (r[0], r[1], r[2])).collect()
    }

    pub fn statement(&self, id: u32) -> Option<&StatementInfo> {
        self.statements.get(id as usize).filter(|s| s.id == id)
    }

    pub fn location(&self, id: u32) -> Option<&LocationInfo> {
        self.locations.get(id as usize).filter(|l| l.id == id)
    }

    /// The name reports show for a location: its `names.tsv` name, else
    /// its `locations.tsv` name.
    pub fn display_name(&self, id: u32) -> Option<&str> {
        match self.names.get(id as usize).filter(|n| n.id == id) {
            Some(n) => Some(n.name.as_str()),
            None => self.location(id).map(|l| l.name.as_str()),
        }
    }

    /// The display name of the location `locations.tsv` calls `name`
    /// (analyses such as lock order speak in those names).
    pub fn display_of(&self, name: &str) -> String {
        self.locations
            .iter()
            .find(|l| l.name == name)
            .and_then(|l| self.display_name(l.id))
            .unwrap_or(name)
            .to_string()
    }

    /// Fill `manifest.counts` from the relations.
    pub fn recount(&mut self) {
        self.manifest.counts = self
            .relations
            .iter()
            .map(|(k, v)| (k.to_string(), v.len()))
            .collect();
        self.manifest
            .counts
            .insert("statements".into(), self.statements.len());
        self.manifest
            .counts
            .insert("locations".into(), self.locations.len());
        self.manifest
            .counts
            .insert("threads".into(), self.threads.len());
    }
}

#[cfg(test)]
mod tests {
    use super::relations::{ControlDep, DefUse, SharedWrite, StmtThread, TypedRelation};
    use super::*;

    /// The global of an `init` statement is read back from the text
    /// extraction writes for it; other statements name none.
    #[test]
    fn an_init_statement_names_its_global() {
        let stmt = |kind: &str, text: &str| StatementInfo {
            id: 0,
            file: String::new(),
            line: 0,
            col: 0,
            function: String::new(),
            thread: 0,
            kind: kind.into(),
            text: text.into(),
            instr: None,
        };
        let init = stmt("init", "@ready = i32 0");
        assert_eq!(init.initialised_global(), Some("ready"));
        let store = stmt("store", "store i32 1, i32* @ready, align 4");
        assert_eq!(store.initialised_global(), None);
    }

    /// A relation left out at extraction cannot be read as if it were
    /// empty; the others read as usual.
    #[test]
    fn an_omitted_relation_refuses_its_readers() {
        let f = FactSet {
            relations: FactSet::empty_relations(),
            omitted: &[ControlDep::NAME],
            ..FactSet::default()
        };
        assert_eq!(f.iter::<DefUse>().count(), 0);
        let read = std::panic::catch_unwind(|| f.iter::<ControlDep>().count());
        assert!(read.is_err());
        let counted = std::panic::catch_unwind(|| f.count(ControlDep::NAME));
        assert!(counted.is_err());
    }

    /// `rows_starting` gives exactly the rows a scan filtered on the first
    /// column gives, at the ends of the id range and for a missing relation.
    #[test]
    fn rows_starting_equals_a_filtered_scan() {
        let mut f = FactSet::default();
        let rows = RowSet::from_rows(
            2,
            [
                vec![0, 5],
                vec![3, 1],
                vec![3, 2],
                vec![4, 0],
                vec![u32::MAX - 1, 7],
                vec![u32::MAX, 1],
                vec![u32::MAX, u32::MAX],
            ],
        );
        f.relations.insert(StmtThread::NAME, rows);
        for first in [0, 1, 3, 4, u32::MAX - 1, u32::MAX] {
            let scanned: Vec<&[u32]> = f.rows(StmtThread::NAME).filter(|r| r[0] == first).collect();
            let ranged: Vec<&[u32]> = f.rows_starting(StmtThread::NAME, first).collect();
            assert_eq!(ranged, scanned, "first column {first}");
        }
        assert_eq!(f.rows_starting(StmtThread::NAME, 3).count(), 2);
        assert_eq!(f.rows_starting(SharedWrite::NAME, 3).count(), 0);
    }
}
