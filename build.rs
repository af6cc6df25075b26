//! Compiles `rules/*.dl` into Rust at build time: one ascent program (the
//! production engine) and one crepe program (the reference engine used in
//! tests) per analysis. The input declarations are generated from the one
//! relation table in `src/facts/schema.rs`, so rules and extractor cannot
//! disagree about a relation's name or arity.

#[allow(dead_code)]
#[path = "src/facts/schema.rs"]
mod schema;

use std::path::Path;

/// Analysis programs: name and the rule files they are built from, in
/// layer order (happens-before, read-from, ranks, ...).
/// The points-to program reads the base IR facts; the others read the
/// analysis facts extraction derives with its results.
pub const PROGRAMS: &[(&str, &[&str])] = &[
    ("pointsto", &["pointsto.dl"]),
    ("sync1", &["hb.dl", "rf.dl", "lockorder.dl"]),
    ("sync2", &["hb.dl", "rf.dl", "lockorder.dl", "rank2.dl"]),
    (
        "sync3",
        &["hb.dl", "rf.dl", "lockorder.dl", "rank2.dl", "rank3.dl"],
    ),
    ("cia", &["cia.dl"]),
];

fn main() {
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=src/facts/schema.rs");
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
        for f in *files {
            let path = Path::new("rules").join(f);
            println!("cargo:rerun-if-changed={}", path.display());
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            sources.push((path.display().to_string(), text));
        }
        let program = match concord_rulec::compile_sources(&sources) {
            Ok(p) => p,
            Err(errors) => {
                // Cargo shows this text; each error names the rule or cycle.
                eprintln!("{errors}");
                panic!("rules for `{name}` do not compile:\n{errors}");
            }
        };
        let ascent = concord_rulec::to_ascent(&program, "Program");
        let crepe = concord_rulec::to_crepe(&program, "engine");
        std::fs::write(Path::new(&out).join(format!("{name}_ascent.rs")), ascent).unwrap();
        std::fs::write(Path::new(&out).join(format!("{name}_crepe.rs")), crepe).unwrap();
        std::fs::write(
            Path::new(&out).join(format!("{name}.dl")),
            concord_rulec::to_souffle(&program),
        )
        .unwrap();
        std::fs::write(
            Path::new(&out).join(format!("{name}.smt2")),
            concord_rulec::to_z3_fixedpoint(&program),
        )
        .unwrap();
        // Column names of the outputs, so reports can show statement columns as source lines.
        let mut columns = String::from("pub const OUTPUT_COLUMNS: &[(&str, &[&str])] = &[\n");
        for rel in program.outputs() {
            let cols: Vec<String> = rel.columns.iter().map(|(c, _)| format!("{c:?}")).collect();
            columns.push_str(&format!("    ({:?}, &[{}]),\n", rel.name, cols.join(", ")));
        }
        columns.push_str("];\n");
        std::fs::write(Path::new(&out).join(format!("{name}_columns.rs")), columns).unwrap();
    }
}
