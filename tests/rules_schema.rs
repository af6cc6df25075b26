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
        "{path} is stale: UPDATE_GOLDEN=1 cargo test --test rules_schema"
    );
}
