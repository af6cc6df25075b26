//! The rule programs `build.rs` compiles from `rules/*.dl` (through
//! concord-rulec): per program an ascent module (the production engine),
//! the output columns and the program's text for Soufflé and for Z3's
//! fixedpoint engine. The crepe programs (the reference engine) are the
//! crate `concord-reference`, built by the same script.
//!
//! `sync1_core`: happens-before, read-from in two parts (the edges in one
//! thread, the pairs in two threads it leaves out) and the lock-order
//! rules; `syncN`: the same with read-from listed and rank-N read-from
//! sets; `hb`: happens-before with the mayHb set
//! itself (for `concord query hb_may`); `counts`: rank2_may and rank3_no of
//! one version (for `diff --counts`); `cia`: change impact; `pointsto`: points-to,
//! call graph and thread starts. The two-version diffs `diffN` are the
//! crate `concord-diff-programs`, built by the same script: two crates
//! compile side by side, where one rustc compiled all programs mostly on
//! one core (docs/results/2026-11-28.md).
//! concord's `analysis` module runs them over extracted facts. `sync2`,
//! `counts` and `sync3` are compiled from their own layer only and read
//! their base chain's outputs (`sync1` on `sync1_core`, `sync2` and
//! `counts` on `sync1`, `sync3` on `counts`; concord's `datalog::chain_rows` runs the chain).
//! `OUTPUT_COLUMNS` and the Soufflé and Z3 texts are of the whole program.

#![allow(clippy::all, unused, non_snake_case, non_camel_case_types)]

include!("rule_program.rs");

rule_program!(sync1_core);
rule_program!(sync1);
rule_program!(sync2);
rule_program!(sync3);
rule_program!(counts);
rule_program!(hb);
rule_program!(cia);
rule_program!(pointsto);
