//! The integration tests, linked into one binary: each file under `tests/`
//! is a module here. One binary links the (large) library once instead of
//! once per file: 54 separate test binaries took 13 GB of disk and filled
//! CI's disk; filter as `cargo test --test suite cli::`.

mod common;
/// The synthetic program generator the benchmarks use.
#[path = "../benches/synth/mod.rs"]
mod synth;

mod architecture;
mod blind_spots;
mod budget_cli;
mod builds;
mod cli;
mod corpus_coverage;
mod corpus_locks;
mod corpus_threadpool;
mod coverage;
mod diff_collapse;
mod diff_engine;
mod diff_expected;
mod dot_limits;
mod extract_pointers;
mod extract_semantics;
mod file_lists;
mod frontend_ssa;
mod fuzz_inputs;
mod golden_facts;
mod help;
mod impact;
mod last_link;
mod names;
mod noise;
mod order_rules;
mod pipelines;
mod quiet_and_color;
mod quiet_changes;
mod relation_names;
mod reliability;
mod rf_witnesses;
mod rules_engines;
mod rules_joins;
mod rules_laws;
mod rules_precision;
mod rules_schema;
mod snapshots;
mod source_text;
mod store_location;
mod symex_argv_names;
mod symex_bench;
mod symex_calls;
mod symex_cli;
mod symex_core;
mod symex_diff_directed;
mod symex_incremental;
mod symex_libc;
mod symex_needles;
mod symex_paper;
mod symex_programs;
mod symex_store_cli;
mod symex_strategy_counts;
mod symex_verdicts;
mod synth_kloc;
mod versions_and_reports;
