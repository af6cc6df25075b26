//! Facts: the program as a database. `extract` builds a [`FactSet`] from an
//! LLVM module in one pass; `io` writes and reads it as Soufflé-style files.

pub mod check;
pub mod extract;
pub mod io;
pub mod schema;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

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
}

impl StatementInfo {
    /// `file:line:col` as shown to users (line 0 means "no debug location").
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.file, self.line, self.col)
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

/// Everything extracted from one program version.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FactSet {
    pub statements: Vec<StatementInfo>,
    pub locations: Vec<LocationInfo>,
    pub threads: Vec<ThreadInfo>,
    /// Relation name -> rows, sorted and without duplicates.
    pub relations: BTreeMap<&'static str, BTreeSet<Row>>,
    pub manifest: Manifest,
}

impl FactSet {
    pub fn empty_relations() -> BTreeMap<&'static str, BTreeSet<Row>> {
        schema::all().map(|r| (r.name, BTreeSet::new())).collect()
    }

    pub fn rows(&self, relation: &str) -> impl Iterator<Item = &Row> {
        self.relations.get(relation).into_iter().flatten()
    }

    pub fn count(&self, relation: &str) -> usize {
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
