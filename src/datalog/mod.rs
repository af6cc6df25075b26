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
    both_engines!(concord_programs: sync1_core, sync1, sync2, sync3, counts, hb, cia, pointsto);
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
    /// Happens-before, MayRf in two parts (the edges in one thread, the
    /// pairs in two threads it leaves out) and lock order: rank 1 of a
    /// diff. `Sync1` is staged on it and lists MayRf.
    Sync1Core,
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

/// `$e` with `$m` standing for the program's module of [`programs`].
macro_rules! with_module {
    ($program:expr, $m:ident => $e:expr) => {
        match $program {
            RuleProgram::Sync1Core => {
                use programs::sync1_core as $m;
                $e
            }
            RuleProgram::Sync1 => {
                use programs::sync1 as $m;
                $e
            }
            RuleProgram::Sync2 => {
                use programs::sync2 as $m;
                $e
            }
            RuleProgram::Counts => {
                use programs::counts as $m;
                $e
            }
            RuleProgram::Sync3 => {
                use programs::sync3 as $m;
                $e
            }
            RuleProgram::Hb => {
                use programs::hb as $m;
                $e
            }
            RuleProgram::Cia => {
                use programs::cia as $m;
                $e
            }
            RuleProgram::Pointsto => {
                use programs::pointsto as $m;
                $e
            }
        }
    };
}

impl RuleProgram {
    pub const ALL: [RuleProgram; 8] = [
        RuleProgram::Sync1Core,
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
            RuleProgram::Sync1Core => "sync1_core",
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
        with_module!(self, m => m::SOUFFLE)
    }

    pub fn z3(self) -> &'static str {
        with_module!(self, m => m::Z3)
    }

    /// `(name, column names)` of the relations the program derives and reports.
    pub fn outputs(self) -> &'static [(&'static str, &'static [&'static str])] {
        with_module!(self, m => m::OUTPUT_COLUMNS)
    }

    /// The program a staged program builds on (build.rs `STAGED`): it
    /// reads the relations its base chain derived instead of deriving
    /// them again.
    pub fn base(self) -> Option<RuleProgram> {
        with_module!(self, m => m::BASE)
            .map(|name| RuleProgram::from_name(name).expect("a base is a single-version program"))
    }

    /// The program named `name` (a module of [`programs`]), if it is a
    /// single-version one.
    pub fn from_name(name: &str) -> Option<RuleProgram> {
        RuleProgram::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The relations the compiled program reads: extracted facts and, for
    /// a staged program, what its base chain derived.
    pub fn input_relations(self) -> Vec<&'static str> {
        let table = with_module!(self, m => m::ascent::INPUT_RELATIONS);
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
        let mut input = $crate::datalog::fill_input!(e, $facts, carried $carried);
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
pub(crate) type RowsByName = BTreeMap<String, Vec<Vec<u32>>>;

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
    run_with_chain(program, engine, facts, extra, &reported, &wanted)
}

/// `program` run after its base chain (asked for `chain_wanted`): the
/// relations `keep` accepts, of the program's outputs and the chain's.
fn run_with_chain(
    program: RuleProgram,
    engine: Engine,
    facts: &FactSet,
    extra: &[(&str, Vec<u32>)],
    keep: &dyn Fn(&str) -> bool,
    chain_wanted: &BTreeSet<&str>,
) -> RowsByName {
    let carried = chain_rows(program, engine, facts, chain_wanted);
    let mut rows = run_one(program, engine, facts, extra, &carried, keep);
    for (name, r) in carried {
        if keep(&name) {
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
    run_with_chain(
        base,
        engine,
        facts,
        &[],
        &|n| wanted.contains(n),
        &base_wanted,
    )
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
    with_module!(program, m => match engine {
        Engine::Ascent => run_generated!(m::ascent, facts, extra, carried, keep),
        #[cfg(feature = "reference-engine")]
        Engine::Crepe => run_generated!(m::crepe::engine, facts, extra, carried, keep),
    })
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
    // the facts, then `carried` rows of the inputs (a staged program's
    // base chain)
    ($e:ident, $facts:expr, carried $carried:expr) => {{
        let carried: &$crate::datalog::RowsByName = $carried;
        let mut input = $crate::datalog::fill_input!($e, $facts);
        for (name, _) in $e::INPUT_RELATIONS {
            for row in carried.get(*name).into_iter().flatten() {
                input
                    .push_row(name, row)
                    .expect("a base program and its staged program share the columns");
            }
        }
        input
    }};
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
        $crate::datalog::fill_input!($e, $facts, carried & carried)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A staged program reads what its base chain derived: every input is
    /// an extracted relation or an output of a program of its chain
    /// (otherwise `chain_rows` would hand it nothing, and it would run on
    /// an empty relation without a word). Programs without a base may
    /// read rows their callers add (`cia`'s seeds).
    #[test]
    fn every_input_is_extracted_or_derived_by_the_base_chain() {
        let mut staged = 0;
        for program in RuleProgram::ALL {
            let mut chain = Vec::new();
            let mut base = program.base();
            while let Some(b) = base {
                assert!(!chain.contains(&b), "{}: cyclic chain", program.name());
                chain.push(b);
                base = b.base();
            }
            if chain.is_empty() {
                continue;
            }
            staged += 1;
            for input in program.input_relations() {
                let extracted = crate::facts::schema::relation(input).is_some();
                let derived = chain
                    .iter()
                    .any(|b| b.outputs().iter().any(|(n, _)| *n == input));
                assert!(
                    extracted || derived,
                    "{}: input `{input}` is neither extracted nor derived by {chain:?}",
                    program.name()
                );
            }
        }
        assert!(staged > 0, "some program is staged");
    }
}
