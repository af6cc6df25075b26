//! The rule compiler's own tests use a snapshot of the input declarations
//! (it cannot depend on this crate). Keep that snapshot equal to what
//! crates/concord-programs/build.rs generates from the schema.

#[test]
fn rules_schema_snapshot() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/concord-rulec/tests/data/concord_input.dl"
    );
    let want = format!(
        "// Snapshot of the input declarations concord generates from src/facts/schema.rs\n\
         // (crates/concord-programs/build.rs). The main crate's test rules_schema_snapshot keeps it in step.\n{}",
        concord::facts::schema::souffle_input_decls()
    );
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "{path} is stale: UPDATE_GOLDEN=1 cargo test --all-features --test suite rules_schema"
    );
}

/// A program declares, and its caller fills, only the extracted relations
/// its rules read: version matching's `stmt_caller` (one row per cloned
/// statement) is read by no rule, and rank 1's diff takes MayRf from the
/// per-version runs instead of the extracted accesses.
#[test]
fn programs_declare_only_the_inputs_their_rules_read() {
    use concord::datalog::programs;
    let inputs = |list: &[(&'static str, usize)]| list.iter().map(|(n, _)| *n).collect::<Vec<_>>();
    let sync1 = inputs(programs::sync1::ascent::INPUT_RELATIONS);
    assert!(sync1.contains(&"shared_read"), "{sync1:?}");
    assert!(!sync1.contains(&"stmt_caller"), "{sync1:?}");
    // rank 1 compares MayRf in two parts and never reads it listed
    let diff1 = inputs(programs::diff1::ascent::INPUT_RELATIONS);
    assert!(
        diff1.contains(&"old_rf_may_local")
            && diff1.contains(&"new_rf_cross_out")
            && diff1.contains(&"dmap"),
        "{diff1:?}"
    );
    assert!(!diff1.iter().any(|r| r.ends_with("_rf_may")), "{diff1:?}");
    assert!(!diff1.contains(&"old_hb_from_hub"), "{diff1:?}");
    let core = inputs(programs::sync1_core::ascent::OUTPUT_RELATIONS);
    assert!(!core.contains(&"rf_may"), "{core:?}");
    let pointsto = inputs(programs::pointsto::ascent::INPUT_RELATIONS);
    assert!(pointsto.contains(&"ir_gep"), "{pointsto:?}");
}

/// A diff extracts without the relations in `NOT_READ_BY_DIFF`: no program
/// it may run (every single-version program but change impact's, and the
/// two-version diffs) may read one, or it would see them empty.
#[test]
fn diff_programs_read_no_relation_a_diff_omits() {
    use concord::datalog::{programs, RuleProgram};
    use concord::facts::extract::NOT_READ_BY_DIFF;
    let omitted = |name: &str| {
        let base = name
            .strip_prefix("old_")
            .or_else(|| name.strip_prefix("new_"))
            .unwrap_or(name);
        NOT_READ_BY_DIFF.contains(&base)
    };
    for program in RuleProgram::ALL {
        let reads = program.input_relations();
        if program == RuleProgram::Cia {
            // the list is not vacuous: change impact reads these
            assert!(reads.contains(&"control_dep") && reads.contains(&"def_use"));
            continue;
        }
        let bad: Vec<_> = reads.into_iter().filter(|r| omitted(r)).collect();
        assert!(bad.is_empty(), "{program:?} reads {bad:?}");
    }
    for list in [
        programs::diff1::ascent::INPUT_RELATIONS,
        programs::diff2::ascent::INPUT_RELATIONS,
        programs::diff3::ascent::INPUT_RELATIONS,
    ] {
        let bad: Vec<_> = list.iter().filter(|(r, _)| omitted(r)).collect();
        assert!(bad.is_empty(), "a diff program reads {bad:?}");
    }
}
