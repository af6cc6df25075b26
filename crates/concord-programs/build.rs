//! Compiles `rules/*.dl` into Rust at build time: one ascent program (the
//! production engine) and one crepe program (the reference engine used in
//! tests) per analysis. The input declarations are generated from the one
//! relation table in `src/facts/schema.rs`, so rules and extractor cannot
//! disagree about a relation's name or arity.

#[allow(dead_code)]
#[path = "../../src/facts/schema.rs"]
mod schema;

use std::path::Path;

/// The rule files, at the workspace root.
const RULES: &str = "../../rules";

/// Analysis programs: name and the rule files they are built from, in
/// layer order (happens-before, read-from, ranks, ...).
/// The points-to program reads the base IR facts; the others read the
/// analysis facts extraction derives with its results.
pub const PROGRAMS: &[(&str, &[&str])] = &[
    ("pointsto", &["pointsto.dl"]),
    (
        "sync1",
        &["order.dl", "hb.dl", "hb_out.dl", "rf.dl", "lockorder.dl"],
    ),
    (
        "sync2",
        &[
            "order.dl",
            "hb.dl",
            "hb_out.dl",
            "rf.dl",
            "lockorder.dl",
            "rank2.dl",
            "rank2_store.dl",
            "rank2_may.dl",
        ],
    ),
    (
        "sync3",
        &[
            "order.dl",
            "hb.dl",
            "hb_out.dl",
            "rf.dl",
            "lockorder.dl",
            "rank2.dl",
            "rank2_store.dl",
            "rank2_may.dl",
            "rank3.dl",
            "rank3_may.dl",
        ],
    ),
    // `diff --counts`: rank2_may and rank3_no of one version in one run
    // (rank3_may, cubic, is not needed: rank 3 is counted as rank-2
    // triangles minus rank3_no)
    (
        "counts",
        &[
            "order.dl",
            "hb.dl",
            "hb_out.dl",
            "rf.dl",
            "lockorder.dl",
            "rank2.dl",
            "rank2_store.dl",
            "rank2_may.dl",
            "rank3.dl",
        ],
    ),
    // mayHb itself: only for `concord query hb_may` and the laws tests
    // (every other rule tests it with both ends bound)
    ("hb", &["order.dl", "hb.dl", "hb_out.dl", "hb_may.dl"]),
    ("cia", &["order.dl", "cia.dl"]),
];

/// Diff programs, one per rank: the single-version layers loaded twice
/// (every relation prefixed `old_` / `new_`) plus the rules that relate the
/// two copies through Δmap. Name, layer files, relations carried in from
/// the previous rank's program (declared as inputs instead of recomputed),
/// diff rule files.
pub const DIFF_PROGRAMS: &[(&str, &[&str], &str, &[&str])] = &[
    // Rank 1 carries both versions' MayRf in: each comes from a `sync1`
    // run, the two on separate cores.
    (
        "diff1",
        &[],
        ".decl rf_may(w: unsigned, r: unsigned)\n.input rf_may\n",
        &["diff.dl", "diff1.dl"],
    ),
    (
        "diff2",
        &["order.dl", "hb.dl", "rf.dl", "rank2.dl"],
        "",
        &["diff.dl", "diff2.dl"],
    ),
    (
        "diff3",
        &["order.dl", "hb.dl", "rank2.dl"],
        ".decl rf_may(w: unsigned, r: unsigned)\n.input rf_may\n",
        &["diff.dl", "diff3.dl"],
    ),
];

/// Relations of the per-version copies that the diff reads back (counts,
/// lock order); every other copied relation stays internal to the engine.
const DIFF_COPY_OUTPUTS: &[&str] = &["hb_from_hub", "hb_to_hub", "hb_may", "rf_may", "lock_order"];

fn read_rules(file: &str) -> (String, String) {
    let path = Path::new(RULES).join(file);
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path.display().to_string(), text)
}

/// The layers of one version, relations renamed with `prefix`.
fn version_copy(inputs: &str, layers: &[&str], prefix: &str) -> concord_rulec::Program {
    let mut sources = vec![("input.dl".to_string(), inputs.to_string())];
    sources.extend(layers.iter().map(|f| read_rules(f)));
    let mut p = concord_rulec::parse_sources(&sources).unwrap_or_else(|e| panic!("{e}"));
    p.outputs
        .retain(|o| DIFF_COPY_OUTPUTS.contains(&o.rel.as_str()));
    p.rename_relations(|r| format!("{prefix}{r}"));
    p
}

fn write_program(out: &str, name: &str, program: &concord_rulec::CheckedProgram) {
    let ascent = concord_rulec::to_ascent(program, "Program");
    let crepe = concord_rulec::to_crepe(program, "engine");
    std::fs::write(Path::new(out).join(format!("{name}_ascent.rs")), ascent).unwrap();
    std::fs::write(Path::new(out).join(format!("{name}_crepe.rs")), crepe).unwrap();
    std::fs::write(
        Path::new(out).join(format!("{name}.dl")),
        concord_rulec::to_souffle(program),
    )
    .unwrap();
    std::fs::write(
        Path::new(out).join(format!("{name}.smt2")),
        concord_rulec::to_z3_fixedpoint(program),
    )
    .unwrap();
    // Column names of the outputs, so reports can show statement columns as source lines.
    let mut columns = String::from("pub const OUTPUT_COLUMNS: &[(&str, &[&str])] = &[\n");
    for rel in program.outputs() {
        let cols: Vec<String> = rel.columns.iter().map(|(c, _)| format!("{c:?}")).collect();
        columns.push_str(&format!("    ({:?}, &[{}]),\n", rel.name, cols.join(", ")));
    }
    columns.push_str("];\n");
    std::fs::write(Path::new(out).join(format!("{name}_columns.rs")), columns).unwrap();
}

fn main() {
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    println!("cargo:rerun-if-changed={RULES}");
    println!("cargo:rerun-if-changed=../../src/facts/schema.rs");
    let analysis_inputs = schema::souffle_input_decls();
    let ir_inputs = schema::souffle_ir_input_decls();
    std::fs::write(Path::new(&out).join("input.dl"), &analysis_inputs).expect("write input.dl");
    for (name, files) in PROGRAMS {
        let inputs = if *name == "pointsto" {
            ir_inputs.clone()
        } else {
            analysis_inputs.clone()
        };
        let mut sources: Vec<(String, String)> = vec![(
            "input.dl (generated from src/facts/schema.rs)".into(),
            inputs.clone(),
        )];
        sources.extend(files.iter().map(|f| read_rules(f)));
        let mut parsed = concord_rulec::parse_sources(&sources).unwrap_or_else(|e| panic!("{e}"));
        // Every extracted relation is declared; the program keeps (and its
        // caller fills) only those its rules read.
        parsed.drop_unused_inputs(&[]);
        let program = match concord_rulec::check(parsed) {
            Ok(p) => p,
            Err(errors) => {
                // Cargo shows this text; each error names the rule or cycle.
                eprintln!("{errors}");
                panic!("rules for `{name}` do not compile:\n{errors}");
            }
        };
        write_program(&out, name, &program);
    }
    for (name, layers, carried, diff_files) in DIFF_PROGRAMS {
        let inputs = format!("{analysis_inputs}{carried}");
        let mut p = version_copy(&inputs, layers, "old_");
        p.extend(version_copy(&inputs, layers, "new_"));
        let diff_sources: Vec<(String, String)> =
            diff_files.iter().map(|f| read_rules(f)).collect();
        p.extend(concord_rulec::parse_sources(&diff_sources).unwrap_or_else(|e| panic!("{e}")));
        // The maps between versions stay: the diff fills them by field.
        p.drop_unused_inputs(&["dmap", "lmap"]);
        let program = match concord_rulec::check(p) {
            Ok(p) => p,
            Err(errors) => {
                eprintln!("{errors}");
                panic!("rules for `{name}` do not compile:\n{errors}");
            }
        };
        write_program(&out, name, &program);
    }
}
