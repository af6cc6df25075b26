//! The layer that runs the rule programs (compiled from `rules/*.dl` by
//! `crates/concord-programs/build.rs`) over extracted facts, with either
//! engine. It sits below both `facts` (extraction runs the points-to
//! program) and `analysis`, and knows relations only through the generated
//! programs' tables and the fact schema.
//!
//! Code that reads a program's results uses [`run_program!`]: the
//! program's typed `Output` (one field per output relation, rows as
//! tuples, sorted). [`run`] and [`run_with`] give the same results as rows
//! by relation name, for the generic uses: `concord query`, engine
//! comparisons in tests.

use crate::facts::FactSet;
use std::collections::{BTreeMap, BTreeSet};

/// The generated programs, compiled from `rules/*.dl`: per program its
/// ascent module, texts and columns (crates `concord-programs` and, for the
/// diffs, `concord-diff-programs`) and its crepe
/// module (`crepe`, crate `concord-reference`). `syncN`: happens-before,
/// read-from and rank-N read-from sets (sync1 also has the lock-order rules).
pub mod programs {
    macro_rules! both_engines {
        ($crate_name:ident: $($name:ident),*) => {$(
            pub mod $name {
                pub use $crate_name::$name::*;
                #[cfg(feature = "reference-engine")]
                pub use concord_reference::$name as crepe;
            }
        )*};
    }
    both_engines!(concord_programs: sync1, sync2, sync3, counts, hb, cia, pointsto);
    both_engines!(concord_diff_programs: diff1, diff2, diff3);
}

/// The two-version diff programs, one per rank (`rules/diff*.dl` over two
/// prefixed copies of the single-version rules; run by [`diff::sync_diff`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DiffProgram {
    Diff1,
    Diff2,
    Diff3,
}

impl DiffProgram {
    pub fn name(self) -> &'static str {
        match self {
            DiffProgram::Diff1 => "diff1",
            DiffProgram::Diff2 => "diff2",
            DiffProgram::Diff3 => "diff3",
        }
    }

    /// The program in Soufflé syntax: inputs `old_<relation>`,
    /// `new_<relation>` and `dmap`.
    pub fn souffle(self) -> &'static str {
        match self {
            DiffProgram::Diff1 => programs::diff1::SOUFFLE,
            DiffProgram::Diff2 => programs::diff2::SOUFFLE,
            DiffProgram::Diff3 => programs::diff3::SOUFFLE,
        }
    }

    pub fn z3(self) -> &'static str {
        match self {
            DiffProgram::Diff1 => programs::diff1::Z3,
            DiffProgram::Diff2 => programs::diff2::Z3,
            DiffProgram::Diff3 => programs::diff3::Z3,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuleProgram {
    Sync1,
    Sync2,
    /// rank2_may and rank3_no of one version (`diff --counts`): sync3
    /// without the cubic rank3_may.
    Counts,
    Sync3,
    /// Happens-before with the mayHb set itself (rules/hb_may.dl): only
    /// `concord query hb_may` and tests build it (pigz: 58 million rows).
    Hb,
    /// Change-impact analysis: dependences and impacted sets (rules/cia.dl).
    Cia,
    /// Points-to, call graph, thread starts and sharing over the base IR
    /// facts (rules/pointsto.dl); extraction runs it first.
    Pointsto,
}

impl RuleProgram {
    pub const ALL: [RuleProgram; 7] = [
        RuleProgram::Sync1,
        RuleProgram::Sync2,
        RuleProgram::Counts,
        RuleProgram::Sync3,
        RuleProgram::Hb,
        RuleProgram::Cia,
        RuleProgram::Pointsto,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RuleProgram::Sync1 => "sync1",
            RuleProgram::Sync2 => "sync2",
            RuleProgram::Counts => "counts",
            RuleProgram::Sync3 => "sync3",
            RuleProgram::Hb => "hb",
            RuleProgram::Cia => "cia",
            RuleProgram::Pointsto => "pointsto",
        }
    }

    /// The program that computes read-from sets of this rank.
    pub fn for_rank(rank: u32) -> RuleProgram {
        match rank {
            0 | 1 => RuleProgram::Sync1,
            2 => RuleProgram::Sync2,
            _ => RuleProgram::Sync3,
        }
    }

    pub fn souffle(self) -> &'static str {
        match self {
            RuleProgram::Sync1 => programs::sync1::SOUFFLE,
            RuleProgram::Sync2 => programs::sync2::SOUFFLE,
            RuleProgram::Counts => programs::counts::SOUFFLE,
            RuleProgram::Sync3 => programs::sync3::SOUFFLE,
            RuleProgram::Hb => programs::hb::SOUFFLE,
            RuleProgram::Cia => programs::cia::SOUFFLE,
            RuleProgram::Pointsto => programs::pointsto::SOUFFLE,
        }
    }

    pub fn z3(self) -> &'static str {
        match self {
            RuleProgram::Sync1 => programs::sync1::Z3,
            RuleProgram::Sync2 => programs::sync2::Z3,
            RuleProgram::Counts => programs::counts::Z3,
            RuleProgram::Sync3 => programs::sync3::Z3,
            RuleProgram::Hb => programs::hb::Z3,
            RuleProgram::Cia => programs::cia::Z3,
            RuleProgram::Pointsto => programs::pointsto::Z3,
        }
    }

    /// `(name, column names)` of the relations the program derives and reports.
    pub fn outputs(self) -> &'static [(&'static str, &'static [&'static str])] {
        match self {
            RuleProgram::Sync1 => programs::sync1::OUTPUT_COLUMNS,
            RuleProgram::Sync2 => programs::sync2::OUTPUT_COLUMNS,
            RuleProgram::Counts => programs::counts::OUTPUT_COLUMNS,
            RuleProgram::Sync3 => programs::sync3::OUTPUT_COLUMNS,
            RuleProgram::Hb => programs::hb::OUTPUT_COLUMNS,
            RuleProgram::Cia => programs::cia::OUTPUT_COLUMNS,
            RuleProgram::Pointsto => programs::pointsto::OUTPUT_COLUMNS,
        }
    }

    /// The program a staged program builds on (build.rs `STAGED`): it
    /// reads the relations its base chain derived instead of deriving
    /// them again.
    pub fn base(self) -> Option<RuleProgram> {
        match self {
            RuleProgram::Sync2 | RuleProgram::Counts => Some(RuleProgram::Sync1),
            RuleProgram::Sync3 => Some(RuleProgram::Counts),
            RuleProgram::Sync1 | RuleProgram::Hb | RuleProgram::Cia | RuleProgram::Pointsto => None,
        }
    }

    /// The program named `name` (a module of [`programs`]), if it is a
    /// single-version one.
    pub fn from_name(name: &str) -> Option<RuleProgram> {
        RuleProgram::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The relations the compiled program reads: extracted facts and, for
    /// a staged program, what its base chain derived.
    pub fn input_relations(self) -> Vec<&'static str> {
        let table = match self {
            RuleProgram::Sync1 => programs::sync1::ascent::INPUT_RELATIONS,
            RuleProgram::Sync2 => programs::sync2::ascent::INPUT_RELATIONS,
            RuleProgram::Counts => programs::counts::ascent::INPUT_RELATIONS,
            RuleProgram::Sync3 => programs::sync3::ascent::INPUT_RELATIONS,
            RuleProgram::Hb => programs::hb::ascent::INPUT_RELATIONS,
            RuleProgram::Cia => programs::cia::ascent::INPUT_RELATIONS,
            RuleProgram::Pointsto => programs::pointsto::ascent::INPUT_RELATIONS,
        };
        table.iter().map(|(name, _)| *name).collect()
    }

    /// The first program (in rank order) that derives `relation`.
    pub fn deriving(relation: &str) -> Option<RuleProgram> {
        RuleProgram::ALL
            .into_iter()
            .find(|p| p.outputs().iter().any(|(n, _)| *n == relation))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// ascent, serial: the production engine.
    Ascent,
    /// crepe: the independent reference engine (feature
    /// `reference-engine`).
    #[cfg(feature = "reference-engine")]
    Crepe,
}

/// Derived relations by name, rows sorted.
pub type Relations = BTreeMap<String, BTreeSet<Vec<u32>>>;

macro_rules! run_generated {
    ($engine:path, $facts:expr, $extra:expr, $carried:expr, $keep:expr) => {{
        use $engine as e;
        let mut input = e::Input::default();
        for (name, _) in e::INPUT_RELATIONS {
            for row in $facts.rows(name) {
                input
                    .push_row(name, row)
                    .expect("the extractor and the rules share one schema");
            }
            for row in $carried.get(*name).into_iter().flatten() {
                input
                    .push_row(name, row)
                    .expect("a base program and its staged program share the columns");
            }
        }
        for (name, row) in $extra {
            input
                .push_row(name, row)
                .unwrap_or_else(|e| panic!("extra input {name}: {e}"));
        }
        let output = e::run(&input);
        // The input's copy of the facts is not needed for the conversion.
        drop(input);
        e::OUTPUT_RELATIONS
            .iter()
            .filter(|(name, _)| $keep(name))
            .map(|(name, _)| {
                let mut rows = output.rows(name).expect("declared output");
                rows.sort_unstable();
                rows.dedup();
                (name.to_string(), rows)
            })
            .collect::<BTreeMap<String, Vec<Vec<u32>>>>()
    }};
}

/// Evaluate one rule program over one version's facts.
pub fn run(program: RuleProgram, engine: Engine, facts: &FactSet) -> Relations {
    run_with(program, engine, facts, &[])
}

/// Evaluate a rule program over facts plus rows of the program's own
/// input relations (`extra`: relation name and row), such as impact seeds.
pub fn run_with(
    program: RuleProgram,
    engine: Engine,
    facts: &FactSet,
    extra: &[(&str, Vec<u32>)],
) -> Relations {
    run_keeping(program, engine, facts, extra, &|_| true)
}

/// The rows of one output relation of a rule program (empty if the
/// program has no such output), sorted, without duplicates. Only that
/// relation is converted to rows: `concord query rf_may` does not pay for
/// the program's other outputs, nor for a tree of its rows.
pub fn run_relation(
    program: RuleProgram,
    engine: Engine,
    facts: &FactSet,
    relation: &str,
) -> Vec<Vec<u32>> {
    run_sorted(program, engine, facts, &[], &|name| name == relation)
        .remove(relation)
        .unwrap_or_default()
}

/// Evaluate a rule program; convert the outputs `keep` accepts to rows.
fn run_keeping(
    program: RuleProgram,
    engine: Engine,
    facts: &FactSet,
    extra: &[(&str, Vec<u32>)],
    keep: &dyn Fn(&str) -> bool,
) -> Relations {
    run_sorted(program, engine, facts, extra, keep)
        .into_iter()
        .map(|(name, rows)| (name, rows.into_iter().collect()))
        .collect()
}

/// Rows by relation name.
type RowsByName = BTreeMap<String, Vec<Vec<u32>>>;

/// Evaluate a rule program; the outputs `keep` accepts as sorted rows
/// without duplicates. A staged program's base chain runs first (each
/// program handing on what the ones after it read), and the chain's
/// outputs count as the program's own.
fn run_sorted(
    program: RuleProgram,
    engine: Engine,
    facts: &FactSet,
    extra: &[(&str, Vec<u32>)],
    keep: &dyn Fn(&str) -> bool,
) -> RowsByName {
    let reported = |name: &str| keep(name) && program.outputs().iter().any(|(n, _)| *n == name);
    let mut wanted: BTreeSet<&str> = program.input_relations().into_iter().collect();
    wanted.extend(
        program
            .outputs()
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| reported(n)),
    );
    let carried = chain_rows(program, engine, facts, &wanted);
    let mut rows = run_one(program, engine, facts, extra, &carried, &reported);
    for (name, r) in carried {
        if reported(&name) {
            rows.entry(name).or_insert(r);
        }
    }
    rows
}

/// The rows of `wanted` that `program`'s base chain derives: the base
/// runs over the facts and its own base chain's rows (asked for what it
/// reads as well), and hands on only the relations wanted. Empty for a
/// program without base.
pub(crate) fn chain_rows(
    program: RuleProgram,
    engine: Engine,
    facts: &FactSet,
    wanted: &BTreeSet<&str>,
) -> RowsByName {
    let Some(base) = program.base() else {
        return RowsByName::new();
    };
    let mut base_wanted = wanted.clone();
    base_wanted.extend(base.input_relations());
    let carried = chain_rows(base, engine, facts, &base_wanted);
    let mut rows = run_one(base, engine, facts, &[], &carried, &|n| wanted.contains(n));
    for (name, r) in carried {
        if wanted.contains(name.as_str()) {
            rows.entry(name).or_insert(r);
        }
    }
    rows
}

/// Evaluate one compiled program over the facts, `carried` rows of the
/// relations it reads from its base chain and `extra` rows; the outputs
/// `keep` accepts, sorted, without duplicates.
fn run_one(
    program: RuleProgram,
    engine: Engine,
    facts: &FactSet,
    extra: &[(&str, Vec<u32>)],
    carried: &RowsByName,
    keep: &dyn Fn(&str) -> bool,
) -> RowsByName {
    use programs::*;
    match (program, engine) {
        (RuleProgram::Sync1, Engine::Ascent) => {
            run_generated!(sync1::ascent, facts, extra, carried, keep)
        }
        #[cfg(feature = "reference-engine")]
        (RuleProgram::Sync1, Engine::Crepe) => {
            run_generated!(sync1::crepe::engine, facts, extra, carried, keep)
        }
        (RuleProgram::Sync2, Engine::Ascent) => {
            run_generated!(sync2::ascent, facts, extra, carried, keep)
        }
        #[cfg(feature = "reference-engine")]
        (RuleProgram::Sync2, Engine::Crepe) => {
            run_generated!(sync2::crepe::engine, facts, extra, carried, keep)
        }
        (RuleProgram::Counts, Engine::Ascent) => {
            run_generated!(counts::ascent, facts, extra, carried, keep)
        }
        #[cfg(feature = "reference-engine")]
        (RuleProgram::Counts, Engine::Crepe) => {
            run_generated!(counts::crepe::engine, facts, extra, carried, keep)
        }
        (RuleProgram::Sync3, Engine::Ascent) => {
            run_generated!(sync3::ascent, facts, extra, carried, keep)
        }
        #[cfg(feature = "reference-engine")]
        (RuleProgram::Sync3, Engine::Crepe) => {
            run_generated!(sync3::crepe::engine, facts, extra, carried, keep)
        }
        (RuleProgram::Hb, Engine::Ascent) => {
            run_generated!(hb::ascent, facts, extra, carried, keep)
        }
        #[cfg(feature = "reference-engine")]
        (RuleProgram::Hb, Engine::Crepe) => {
            run_generated!(hb::crepe::engine, facts, extra, carried, keep)
        }
        (RuleProgram::Cia, Engine::Ascent) => {
            run_generated!(cia::ascent, facts, extra, carried, keep)
        }
        #[cfg(feature = "reference-engine")]
        (RuleProgram::Cia, Engine::Crepe) => {
            run_generated!(cia::crepe::engine, facts, extra, carried, keep)
        }
        (RuleProgram::Pointsto, Engine::Ascent) => {
            run_generated!(pointsto::ascent, facts, extra, carried, keep)
        }
        #[cfg(feature = "reference-engine")]
        (RuleProgram::Pointsto, Engine::Crepe) => {
            run_generated!(pointsto::crepe::engine, facts, extra, carried, keep)
        }
    }
}

/// Fill a generated program's `Input`: every input relation the program
/// declares, by its schema name (the generated table lists them), from
/// the facts, or from any source of rows by name
/// (`fill_input!(e, |name| rows_of(name))`, the points-to program's IR
/// rows); inputs the source does not hold stay empty.
macro_rules! fill_input {
    ($e:ident, |$name:ident| $rows:expr) => {{
        let mut input = $e::Input::default();
        for ($name, _) in $e::INPUT_RELATIONS {
            for row in $rows {
                input
                    .push_row($name, row)
                    .expect("the extractor and the rules share one schema");
            }
        }
        input
    }};
    ($e:ident, $facts:expr) => {
        $crate::datalog::fill_input!($e, |name| $facts.rows(name))
    };
    // a program by name: a staged one also gets its base chain's rows
    ($e:ident, $facts:expr, $program:expr, $engine:expr) => {{
        let carried = match $crate::datalog::RuleProgram::from_name($program) {
            Some(p) => $crate::datalog::chain_rows(
                p,
                $engine,
                $facts,
                &$e::INPUT_RELATIONS.iter().map(|(n, _)| *n).collect(),
            ),
            None => Default::default(),
        };
        let mut input = $crate::datalog::fill_input!($e, $facts);
        for (name, rows) in &carried {
            for row in rows {
                input
                    .push_row(name, row)
                    .expect("a base program and its staged program share the columns");
            }
        }
        input
    }};
}

/// Evaluate the rule program `$prog` (a module of [`programs`]) with
/// `$engine` over `$facts`, and compute `$read` from its typed output
/// `$out` (the generated `Output`: one field per output relation, sorted
/// tuples; the ascent and crepe outputs have the same fields).
/// `$prepare` may first add rows to input fields the facts do not hold
/// (`|input| input.cia_phi.push(..)`).
macro_rules! run_program {
    ($prog:ident, $engine:expr, $facts:expr, |$inp:ident| $prepare:expr, |$out:ident| $read:expr) => {{
        match $engine {
            $crate::datalog::Engine::Ascent => {
                use $crate::datalog::programs::$prog::ascent as e;
                #[allow(unused_mut)]
                let mut $inp = $crate::datalog::fill_input!(e, $facts, stringify!($prog), $engine);
                $prepare;
                let $out = e::run(&$inp);
                $read
            }
            #[cfg(feature = "reference-engine")]
            $crate::datalog::Engine::Crepe => {
                use $crate::datalog::programs::$prog::crepe::engine as e;
                #[allow(unused_mut)]
                let mut $inp = $crate::datalog::fill_input!(e, $facts, stringify!($prog), $engine);
                $prepare;
                let $out = e::run(&$inp);
                $read
            }
        }
    }};
    ($prog:ident, $engine:expr, $facts:expr, |$out:ident| $read:expr) => {
        $crate::datalog::run_program!($prog, $engine, $facts, |_input| (), |$out| $read)
    };
}
pub(crate) use {fill_input, run_program};
