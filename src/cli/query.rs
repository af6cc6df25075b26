//! `concord query` (any relation, statements as source locations) and
//! `concord rules` (the rules for other engines).

use super::{emit, load_version, InputArgs, QUERY_EXIT_CODES};
use crate::analysis::diff::DiffOptions;
use crate::analysis::{run as run_rules_on, DiffProgram, Engine, RuleProgram};
use crate::error::{exit, ConcordError, Result};
use crate::facts::schema::{self, ColumnKind};
use crate::facts::FactSet;
use clap::Args;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QueryFormat {
    Tsv,
    Json,
}

#[derive(Args, Debug)]
#[command(after_help = QUERY_EXIT_CODES)]
pub struct QueryArgs {
    /// The program (.c, .ll, .bc), a build directory, C files `a.c,b.c` or
    /// `@LIST`, or a fact directory.
    pub program: PathBuf,
    /// An extracted relation (see `concord schema`) or a derived one (hb_must, hb_may, rf_may, rf_no, rank2_may, lock_order, ...).
    pub relation: String,
    /// Keep rows whose column COL matches VALUE: a statement as an id, a line, or file:line; a location by name; a thread by id. Repeatable.
    #[arg(long = "where", value_name = "COL=VALUE")]
    pub filters: Vec<String>,
    #[arg(long, value_enum, default_value_t = QueryFormat::Tsv)]
    pub format: QueryFormat,
    /// Datalog engine for derived relations (crepe is the reference engine).
    #[arg(long, value_enum, default_value_t = DiffOptions::default().engine)]
    pub engine: Engine,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub budget: super::BudgetArgs,
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
                || value.parse::<u32>().is_ok_and(|v| v == id)
        }
        ColumnKind::Thread | ColumnKind::Number => value
            .trim_start_matches('t')
            .parse::<u32>()
            .is_ok_and(|v| v == id),
    }
}

fn cell_text(f: &FactSet, kind: ColumnKind, id: u32) -> String {
    match kind {
        ColumnKind::Stmt => f.statement(id).map_or(id.to_string(), |s| {
            let func = if s.function.is_empty() {
                "global"
            } else {
                &s.function
            };
            format!(
                "{}:{}:{} {} t{} #{}",
                s.file, s.line, s.col, func, s.thread, id
            )
        }),
        ColumnKind::Loc => f.location(id).map_or(id.to_string(), |l| l.name.clone()),
        ColumnKind::Thread => format!("t{id}"),
        ColumnKind::Number => id.to_string(),
    }
}

fn cell_json(f: &FactSet, kind: ColumnKind, id: u32) -> Value {
    match kind {
        ColumnKind::Stmt => crate::report::stmt_json(f, Some(id)),
        ColumnKind::Loc => json!({
            "id": id,
            "name": f.location(id).map(|l| l.name.clone()),
            "display": f.display_name(id),
        }),
        ColumnKind::Thread | ColumnKind::Number => json!(id),
    }
}

pub fn run(args: &QueryArgs, budget: &crate::budget::Budget) -> Result<i32> {
    let (columns, program) = columns_of(&args.relation).ok_or_else(|| {
        let mut known: Vec<&str> = schema::all().map(|r| r.name).collect();
        known.extend(RuleProgram::Sync3.outputs().iter().map(|(n, _)| *n));
        ConcordError::Usage(format!(
            "unknown relation `{}`; known: {}",
            args.relation,
            known.join(", ")
        ))
    })?;
    let mut filters = Vec::new();
    for f in &args.filters {
        let (col, value) = f
            .split_once('=')
            .ok_or_else(|| ConcordError::Usage(format!("--where takes COL=VALUE, got `{f}`")))?;
        let index = columns.iter().position(|(c, _)| c == col).ok_or_else(|| {
            let names: Vec<&str> = columns.iter().map(|(c, _)| c.as_str()).collect();
            ConcordError::Usage(format!(
                "`{}` has no column `{col}` (columns: {})",
                args.relation,
                names.join(", ")
            ))
        })?;
        filters.push((index, value.to_string()));
    }
    budget.phase("load")?;
    let version = load_version(&args.program, &args.input)?;
    budget.phase("rules")?;
    let f = &version.facts;
    let rows: Vec<Vec<u32>> = match program {
        None => f.rows(&args.relation).cloned().collect(),
        Some(p) => run_rules_on(p, args.engine, f)
            .remove(&args.relation)
            .unwrap_or_default()
            .into_iter()
            .collect(),
    };
    let kept: Vec<&Vec<u32>> = rows
        .iter()
        .filter(|row| {
            filters
                .iter()
                .all(|(i, v)| matches(f, columns[*i].1, row[*i], v))
        })
        .collect();
    let out = match args.format {
        QueryFormat::Tsv => {
            let mut s = columns
                .iter()
                .map(|(c, _)| c.as_str())
                .collect::<Vec<_>>()
                .join("\t")
                + "\n";
            for row in &kept {
                let cells: Vec<String> = row
                    .iter()
                    .zip(&columns)
                    .map(|(&id, (_, k))| cell_text(f, *k, id))
                    .collect();
                s.push_str(&cells.join("\t"));
                s.push('\n');
            }
            s
        }
        QueryFormat::Json => {
            let items: Vec<Value> = kept
                .iter()
                .map(|row| {
                    Value::Object(
                        row.iter()
                            .zip(&columns)
                            .map(|(&id, (c, k))| (c.clone(), cell_json(f, *k, id)))
                            .collect(),
                    )
                })
                .collect();
            let doc = json!({"version": crate::report::JSON_VERSION, "relation": args.relation, "rows": items});
            serde_json::to_string_pretty(&doc).expect("json") + "\n"
        }
    };
    super::emit_committed(budget, &out)?;
    Ok(exit::OK)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RulesTarget {
    /// Soufflé `.dl` (input declarations included; facts from `concord facts`).
    Souffle,
    /// SMT-LIB for Z3's fixedpoint engine (append facts and queries).
    Z3,
}

/// Every rule program `concord rules` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RulesProgram {
    Sync1,
    Sync2,
    Sync3,
    Cia,
    Pointsto,
    Diff1,
    Diff2,
    Diff3,
}

#[derive(Args, Debug)]
pub struct RulesArgs {
    /// Target engine.
    #[arg(long, value_enum)]
    pub emit: RulesTarget,
    /// Which analysis: sync1 (happens-before, read-from, lock order), sync2 (+ rank 2), sync3 (+ rank 3: every synchronisation rule), cia (change impact), pointsto (points-to, call graph and threads over the ir_* facts), diff1..diff3 (the two-version diff of `concord diff` at that rank: inputs old_*, new_* and dmap).
    #[arg(long, value_enum, default_value_t = RulesProgram::Sync3)]
    pub program: RulesProgram,
}

pub fn run_rules(args: &RulesArgs) -> Result<i32> {
    let single = |p: RuleProgram| match args.emit {
        RulesTarget::Souffle => p.souffle(),
        RulesTarget::Z3 => p.z3(),
    };
    let diff = |p: DiffProgram| match args.emit {
        RulesTarget::Souffle => p.souffle(),
        RulesTarget::Z3 => p.z3(),
    };
    emit(match args.program {
        RulesProgram::Sync1 => single(RuleProgram::Sync1),
        RulesProgram::Sync2 => single(RuleProgram::Sync2),
        RulesProgram::Sync3 => single(RuleProgram::Sync3),
        RulesProgram::Cia => single(RuleProgram::Cia),
        RulesProgram::Pointsto => single(RuleProgram::Pointsto),
        RulesProgram::Diff1 => diff(DiffProgram::Diff1),
        RulesProgram::Diff2 => diff(DiffProgram::Diff2),
        RulesProgram::Diff3 => diff(DiffProgram::Diff3),
    })?;
    Ok(exit::OK)
}
