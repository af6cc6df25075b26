//! The two-version diff programs `build.rs` (concord-programs' script)
//! compiles from `rules/diff*.dl` over two prefixed copies of the
//! single-version layers: `diffN` finds the rank-N read-from sets allowed
//! by one version and not the other. Each module holds one direction of
//! the comparison, run twice by concord with the versions and maps
//! swapped; `OUTPUT_COLUMNS` and the Soufflé and Z3 texts are of the whole
//! program (both directions). Module layout as in concord-programs.

#![allow(clippy::all, unused, non_snake_case, non_camel_case_types)]

include!("../../concord-programs/src/rule_program.rs");

rule_program!(diff1);
rule_program!(diff2);
rule_program!(diff3);
