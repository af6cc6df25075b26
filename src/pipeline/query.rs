//! `concord query`: the rows of any extracted or derived relation of one
//! program, filtered by column.

use super::{warn_unresolved, Answer, Events};
use crate::analysis::{run_relation, Engine, RuleProgram};
use crate::budget::Budget;
use crate::error::{ConcordError, Result};
use crate::facts::extract::ExtractOptions;
use crate::facts::schema::{self, ColumnKind};
use crate::facts::FactSet;
use crate::load::{LoadedVersion, VersionSource};

/// Which relation of which program, and which rows.
#[derive(Debug, Clone)]
pub struct QueryRequest {
    pub program: VersionSource,
    pub extract: ExtractOptions,
    /// An extracted relation (see `concord schema`) or a derived one.
    pub relation: String,
    /// `COL=VALUE` each: keep rows whose column COL matches VALUE (a
    /// statement by id, line or `file:line`; a location by name; a thread
    /// by id). Checked against the relation's columns before loading.
    pub filters: Vec<String>,
    /// Engine of derived relations.
    pub engine: Engine,
}

/// The relation's columns and its kept rows, over the loaded version.
pub struct QueryOutcome {
    pub version: LoadedVersion,
    pub relation: String,
    pub columns: Vec<(String, ColumnKind)>,
    pub rows: Vec<Vec<u32>>,
}

impl QueryOutcome {
    /// Rows printed, possibly none.
    pub fn answer(&self) -> Answer {
        Answer::Clean
    }
}

/// Derived relations name their columns by convention: `t…` threads;
/// `m…`, `c…`, `v…` locations; `k…` plain numbers (components, kinds);
/// everything else statements.
fn derived_kind(column: &str) -> ColumnKind {
    match column.chars().next() {
        Some('t') => ColumnKind::Thread,
        Some('k') => ColumnKind::Number,
        Some('m' | 'c' | 'v') => ColumnKind::Loc,
        _ => ColumnKind::Stmt,
    }
}

/// Column names and kinds of a relation, and the program deriving it (None: extracted).
type RelationShape = (Vec<(String, ColumnKind)>, Option<RuleProgram>);

fn columns_of(relation: &str) -> Option<RelationShape> {
    if let Some(r) = schema::relation(relation) {
        return Some((
            r.columns
                .iter()
                .map(|c| (c.name.to_string(), c.kind))
                .collect(),
            None,
        ));
    }
    let program = RuleProgram::deriving(relation)?;
    let (_, cols) = program.outputs().iter().find(|(n, _)| *n == relation)?;
    // Points-to columns are IR ids (contexts, values, objects, paths).
    let kind = |c: &str| match program {
        RuleProgram::Pointsto => ColumnKind::Number,
        _ => derived_kind(c),
    };
    Some((
        cols.iter().map(|c| (c.to_string(), kind(c))).collect(),
        Some(program),
    ))
}

fn matches(f: &FactSet, kind: ColumnKind, id: u32, value: &str) -> bool {
    match kind {
        ColumnKind::Stmt => {
            let Some(s) = f.statement(id) else {
                return false;
            };
            if let Some((file, line)) = value.rsplit_once(':') {
                line.parse::<u32>().is_ok_and(|l| l == s.line)
                    && (s.file == file || s.file.ends_with(&format!("/{file}")))
            } else {
                value.parse::<u32>().is_ok_and(|v| v == s.line || v == id)
            }
        }
        ColumnKind::Loc => {
            f.location(id).is_some_and(|l| l.name == value)
                || f.display_name(id) == Some(value)
                || value.parse::<u32>().is_ok_and(|v| v == id)
        }
        ColumnKind::Thread | ColumnKind::Number => value
            .trim_start_matches('t')
            .parse::<u32>()
            .is_ok_and(|v| v == id),
    }
}

/// Check the relation and filters, load the program, and list the rows
/// that pass every filter. An unknown relation or column, or a filter
/// without `=`, is a usage error (exit 2) before anything is loaded.
pub fn query(req: &QueryRequest, budget: &Budget, events: Events<'_>) -> Result<QueryOutcome> {
    let (columns, program) = columns_of(&req.relation).ok_or_else(|| {
        let mut known: Vec<&str> = schema::all().map(|r| r.name).collect();
        known.extend(RuleProgram::Sync3.outputs().iter().map(|(n, _)| *n));
        ConcordError::Usage(format!(
            "unknown relation `{}`; known: {}",
            req.relation,
            known.join(", ")
        ))
    })?;
    let mut filters = Vec::new();
    for f in &req.filters {
        let (col, value) = f
            .split_once('=')
            .ok_or_else(|| ConcordError::Usage(format!("--where takes COL=VALUE, got `{f}`")))?;
        let index = columns.iter().position(|(c, _)| c == col).ok_or_else(|| {
            let names: Vec<&str> = columns.iter().map(|(c, _)| c.as_str()).collect();
            ConcordError::Usage(format!(
                "`{}` has no column `{col}` (columns: {})",
                req.relation,
                names.join(", ")
            ))
        })?;
        filters.push((index, value.to_string()));
    }
    budget.phase("load")?;
    let version = crate::load::load_version(&req.program.path, &req.program.compile, &req.extract)?;
    warn_unresolved(&version.warnings, events);
    budget.phase("rules")?;
    let f = &version.facts;
    let rows: Vec<Vec<u32>> = match program {
        None => f.rows(&req.relation).map(<[u32]>::to_vec).collect(),
        Some(p) => run_relation(p, req.engine, f, &req.relation),
    };
    let mut rows = rows;
    rows.retain(|row| {
        filters
            .iter()
            .all(|(i, v)| matches(f, columns[*i].1, row[*i], v))
    });
    Ok(QueryOutcome {
        version,
        relation: req.relation.clone(),
        columns,
        rows,
    })
}
