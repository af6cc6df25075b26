//! # concord-rulec — the rule compiler of concord
//!
//! concord's Datalog rules live in `rules/*.dl`, written in a subset of
//! Soufflé. This crate parses and checks them and turns them into
//! Rust source for the [`ascent`](https://docs.rs/ascent/0.8) engine
//! (production) and the [`crepe`](https://docs.rs/crepe/0.1) engine (reference,
//! for differential tests), and prints them for Soufflé and for Z3's
//! fixedpoint engine. It has no dependencies, so it can be a build-dependency.
//!
//! ## The subset
//!
//! * comments `// ...` and `/* ... */`;
//! * `.decl name(col: unsigned, ...)` — column types `unsigned` and `number`
//!   (both become `u32`; `symbol` is rejected), at least one column;
//! * `.input name` / `.output name` (several names may be comma-separated;
//!   no IO parameters): inputs are read from tab-separated `name.facts`
//!   files by Soufflé, outputs written to `name.csv`;
//! * rules `h(X, Y) :- a(X, Z), !b(Z, Y), X != Y, X < 3.` with variables,
//!   `_`, unsigned constants, negated atoms and comparisons `= != < <= > >=`
//!   (one head, no disjunction, no arithmetic);
//! * facts `name(1, 2).`
//! * `.decl name(...) inline`: a view, expanded into each rule that uses
//!   it positively (one copy per defining rule; see `inline.rs`); negated
//!   uses and recursion are refused; an inline relation that is `.output`
//!   is computed as a table.
//!
//! Declarations may appear anywhere; several files are combined with
//! [`parse_sources`] / [`load_files`] (declare each relation once).
//!
//! ## Checks ([`check`])
//!
//! Duplicate declarations, undeclared relations, arity mismatches, unbound
//! variables (a head variable, a variable of a negated atom or of a
//! comparison that no positive atom binds), rules deriving an `.input`
//! relation, relations both `.input` and `.output`, and stratification: a
//! negation inside a recursive component is reported with the cycle, e.g.
//! `a -> !b -> a`. Every error carries `file:line:col` and, for rule-level
//! errors, the rule printed back:
//!
//! ```text
//! hb.dl:12:1: error: variable `Y` in the head is not bound by any positive body atom
//!     in rule: hb_must(X, Y) :- po(X, Z).
//! t.dl:4:1: error: negation of `b` inside a recursive cycle, the program is not stratifiable: a -> !b -> a
//!     in rule: a(X) :- c(X), !b(X).
//! ```
//!
//! ## Generated interface (same for both engines)
//!
//! [`to_ascent`]`(p, "Name")` returns items to `include!` inside a module of
//! their own; [`to_crepe`]`(p, "name")` returns `pub mod name { ... }` with the
//! same items. Both define:
//!
//! ```ignore
//! #[derive(Debug, Clone, Default, PartialEq, Eq)]
//! pub struct Input  { pub po: Vec<(u32, u32)>, pub stmt_thread: Vec<(u32, u32)>, /* one per .input */ }
//! #[derive(Debug, Clone, Default, PartialEq, Eq)]
//! pub struct Output { pub hb_must: Vec<(u32, u32)>, /* one per .output, sorted, deduplicated */ }
//! pub const INPUT_RELATIONS: &[(&str, usize)];   // (name, arity), declaration order
//! pub const OUTPUT_RELATIONS: &[(&str, usize)];
//! impl Input  { pub fn push_row(&mut self, relation: &str, row: &[u32]) -> Result<(), String>;
//!               pub fn rows(&self, relation: &str) -> Option<Vec<Vec<u32>>>; }
//! impl Output { pub fn rows(&self, relation: &str) -> Option<Vec<Vec<u32>>>; }
//! pub fn run(input: &Input) -> Output;
//! ```
//!
//! Field names are the relation names (snake_case; a Rust keyword or `run`
//! gets the suffix `_rel`); a relation of arity one uses 1-tuples `(u32,)`.
//! Input rows may contain duplicates; outputs are sorted and deduplicated,
//! so the outputs of the two engines compare with `==`. Facts written in
//! the rules for an `.input` relation are added to the caller's rows.
//! The generated code needs `ascent = "0.8"` or `crepe = "0.1"` in the
//! including crate.
//!
//! The ascent code is staged (see `stage.rs`): whole recursive components,
//! dependencies first, are packed into stages of about 260 body items, each
//! its own `ascent!` program, and `run` passes each stage what it reads.
//! One `ascent!` per program put every rule in one function, whose type
//! checking grew faster than its size (rank-2 diff, 490 rules: ~14 min).
//!
//! ## Other targets
//!
//! [`to_souffle`] prints a clean Soufflé program; [`to_z3_fixedpoint`] plus
//! [`z3_facts`] and [`z3_queries`] (or [`z3_script`]) produce an SMT-LIB
//! script for `z3` with `(set-option :fp.engine datalog)` (the fixedpoint
//! engine's option module is called `fp` since Z3 4.8; older releases spelled
//! it `fixedpoint.engine`).
//!
//! ## Lowering
//!
//! Before generating Rust or Z3 the rules are normalised (see `lower.rs`):
//! constants, wildcards and repeated variables in positive atoms become
//! fresh variables plus equality conditions; negated atoms containing `_`,
//! constants or a repeated variable are replaced by an auxiliary projection
//! relation `__negN_rel` one stratum lower; conditions and negations are
//! placed right after the positive atom that binds their last variable.

mod ast;
mod check;
mod emit;
mod error;
mod inline;
mod lower;
mod parser;
mod rust;
mod stage;

pub use ast::{Atom, CmpOp, ColType, Decl, Fact, IoDirective, Literal, Program, Rule, Span, Term};
pub use check::{check, CheckedProgram, RelKind, Relation};
pub use emit::{to_souffle, to_z3_fixedpoint, z3_facts, z3_queries, z3_script};
pub use error::{Error, ErrorKind, Errors};
pub use parser::parse;
pub use rust::{to_ascent, to_crepe};

/// Parses and merges several `(file name, source)` pairs, in order.
pub fn parse_sources<N: AsRef<str>, S: AsRef<str>>(sources: &[(N, S)]) -> Result<Program, Errors> {
    let mut p = Program::default();
    let mut errs = Vec::new();
    for (name, src) in sources {
        match parse(name.as_ref(), src.as_ref()) {
            Ok(q) => p.extend(q),
            Err(e) => errs.push(e),
        }
    }
    if errs.is_empty() {
        Ok(p)
    } else {
        Err(Errors(errs))
    }
}

/// Parses and checks several sources: the usual entry point.
pub fn compile_sources<N: AsRef<str>, S: AsRef<str>>(
    sources: &[(N, S)],
) -> Result<CheckedProgram, Errors> {
    check(parse_sources(sources)?)
}

/// Reads, parses and merges rule files, in order (diagnostics use the path
/// as given).
pub fn load_files<P: AsRef<std::path::Path>>(paths: &[P]) -> Result<Program, Errors> {
    let mut sources = Vec::new();
    for p in paths {
        let p = p.as_ref();
        let text = std::fs::read_to_string(p).map_err(|e| {
            Error::new(
                ErrorKind::File,
                None,
                format!("cannot read rule file {}: {e}", p.display()),
            )
        })?;
        sources.push((p.display().to_string(), text));
    }
    parse_sources(&sources)
}

/// Reads, parses and checks rule files, in order.
pub fn compile_files<P: AsRef<std::path::Path>>(paths: &[P]) -> Result<CheckedProgram, Errors> {
    check(load_files(paths)?)
}
