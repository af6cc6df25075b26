//! Keeps the checked-in generated code in `tests/generated/` in sync with the
//! compiler. Run with `UPDATE_GOLDEN=1` to rewrite the files.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// (rule files relative to the crate, output stem, ascent struct, crepe module)
pub const CASES: &[(&[&str], &str, &str, &str)] = &[
    (&["tests/data/tc.dl"], "tc", "TcProgram", "tc_crepe"),
    (
        &[
            "tests/data/concord_input.dl",
            "../../rules/order.dl",
            "../../rules/hb.dl",
            "../../rules/hb_out.dl",
            "../../rules/hb_may.dl",
            "../../rules/rf.dl",
            "../../rules/rf_may.dl",
            "../../rules/rank2.dl",
            "../../rules/rank2_store.dl",
            "../../rules/rank2_may.dl",
            "../../rules/rank3.dl",
            "../../rules/rank3_may.dl",
        ],
        "concord",
        "ConcordProgram",
        "concord_crepe",
    ),
];

#[test]
fn generated_code_is_up_to_date() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut stale = Vec::new();
    for (files, stem, strukt, module) in CASES {
        let paths: Vec<PathBuf> = files.iter().map(|f| root().join(f)).collect();
        let p = concord_rulec::compile_files(&paths).unwrap_or_else(|e| panic!("{e}"));
        for (suffix, text) in [
            ("ascent", concord_rulec::to_ascent(&p, strukt)),
            ("crepe", concord_rulec::to_crepe(&p, module)),
        ] {
            let out = root()
                .join("tests/generated")
                .join(format!("{stem}_{suffix}.rs"));
            let old = std::fs::read_to_string(&out).unwrap_or_default();
            if old != text {
                if update || old.is_empty() {
                    std::fs::write(&out, &text).unwrap();
                } else {
                    stale.push(out.display().to_string());
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "generated code is stale, rerun with UPDATE_GOLDEN=1: {stale:?}"
    );
}
