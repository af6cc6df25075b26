//! `concord query` (any relation, statements as source locations) and
//! `concord rules` (the rules for other engines).

use super::values::EngineArg;
use super::{emit, show_events, InputArgs, QUERY_EXIT_CODES};
use crate::analysis::diff::DiffOptions;
use crate::analysis::{DiffProgram, RuleProgram};
use crate::error::{exit, Result};
use crate::facts::schema::ColumnKind;
use crate::facts::FactSet;
use crate::pipeline::query::{self as pipeline, QueryRequest};
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
    #[arg(long, value_enum, default_value_t = EngineArg::from(DiffOptions::default().engine))]
    pub engine: EngineArg,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub budget: super::BudgetArgs,
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
        // as reports name memory (`names.tsv`: C fields, heap objects by
        // type and allocation site); `--where` takes either name
        ColumnKind::Loc => f.display_name(id).map_or(id.to_string(), str::to_string),
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

pub fn run(args: &QueryArgs, quiet: bool, budget: &crate::budget::Budget) -> Result<i32> {
    let req = QueryRequest {
        program: args.input.version(&args.program, None),
        extract: args.input.extract_options(),
        relation: args.relation.clone(),
        filters: args.filters.clone(),
        engine: args.engine.into(),
    };
    let outcome = pipeline::query(&req, budget, &mut show_events(quiet))?;
    let (f, columns, kept) = (&outcome.version.facts, &outcome.columns, &outcome.rows);
    let out = match args.format {
        QueryFormat::Tsv => {
            let mut s = columns
                .iter()
                .map(|(c, _)| c.as_str())
                .collect::<Vec<_>>()
                .join("\t")
                + "\n";
            for row in kept {
                let cells: Vec<String> = row
                    .iter()
                    .zip(columns.iter())
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
                            .zip(columns.iter())
                            .map(|(&id, (c, k))| (c.clone(), cell_json(f, *k, id)))
                            .collect(),
                    )
                })
                .collect();
            budget.end_phase();
            let phases = budget.phase_costs();
            let doc = json!({
                "version": crate::report::JSON_VERSION,
                "relation": args.relation,
                "rows": items,
                "timing_ms": phases.iter().map(|c| (c.name.clone(), json!(c.time.as_secs_f64() * 1e3))).collect::<serde_json::Map<String, Value>>(),
                "phase_peak_mb": crate::report::phase_memory_mb(&phases, |c| c.peak_rss),
                "phase_resident_mb": crate::report::phase_memory_mb(&phases, |c| c.end_rss),
            });
            serde_json::to_string_pretty(&doc).expect("json") + "\n"
        }
    };
    super::emit_committed(budget, &out)?;
    Ok(outcome.answer().exit_code())
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
    #[value(name = "sync1-core")]
    Sync1Core,
    Sync1,
    Sync2,
    Sync3,
    Hb,
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
    /// Which analysis: sync1-core (happens-before, read-from in two parts: the edges in one thread and the pairs in two threads it leaves out, lock order), sync1 (the same with read-from listed), sync2 (+ rank 2), sync3 (+ rank 3: every synchronisation rule), hb (happens-before with the mayHb set itself), cia (change impact), pointsto (points-to, call graph and threads over the ir_* facts), diff1..diff3 (the two-version diff of `concord diff` at that rank: inputs old_*, new_* and dmap).
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
        RulesProgram::Sync1Core => single(RuleProgram::Sync1Core),
        RulesProgram::Sync1 => single(RuleProgram::Sync1),
        RulesProgram::Sync2 => single(RuleProgram::Sync2),
        RulesProgram::Sync3 => single(RuleProgram::Sync3),
        RulesProgram::Hb => single(RuleProgram::Hb),
        RulesProgram::Cia => single(RuleProgram::Cia),
        RulesProgram::Pointsto => single(RuleProgram::Pointsto),
        RulesProgram::Diff1 => diff(DiffProgram::Diff1),
        RulesProgram::Diff2 => diff(DiffProgram::Diff2),
        RulesProgram::Diff3 => diff(DiffProgram::Diff3),
    })?;
    Ok(exit::OK)
}
