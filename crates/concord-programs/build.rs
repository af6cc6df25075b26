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

/// Diff programs, one per rank: name, the single-version layers carried
/// in from each version's `sync1` run (every relation they derive becomes
/// an input `old_*` / `new_*`; their inline views stay views), the layers
/// the diff program computes itself for both versions (relations prefixed
/// `old_` / `new_`), and the rules that relate the two copies through Δmap.
/// Rank 1 runs the two `sync1` programs on separate cores; ranks 2 and 3
/// reuse what they derived instead of computing it again.
pub struct DiffProgram {
    name: &'static str,
    carried: &'static [&'static str],
    layers: &'static [&'static str],
    rules: &'static [&'static str],
}

pub const DIFF_PROGRAMS: &[DiffProgram] = &[
    DiffProgram {
        name: "diff1",
        carried: &["order.dl", "hb.dl", "rf.dl", "lockorder.dl"],
        layers: &[],
        rules: &["diff.dl", "diff1.dl"],
    },
    DiffProgram {
        name: "diff2",
        carried: &["order.dl", "hb.dl", "rf.dl"],
        layers: &["rank2.dl"],
        rules: &["diff.dl", "diff2.dl"],
    },
    DiffProgram {
        name: "diff3",
        carried: &["order.dl", "hb.dl", "rf.dl"],
        layers: &["rank2.dl"],
        rules: &["diff.dl", "diff3.dl"],
    },
];

/// The single-version program whose outputs the diff programs carry in.
const CARRIER: &str = "sync1";

fn read_rules(file: &str) -> (String, String) {
    let path = Path::new(RULES).join(file);
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path.display().to_string(), text)
}

/// The layers of one version, relations renamed with `prefix`: `carried`
/// as inputs (what they derive), `layers` as rules.
fn version_copy(
    inputs: &str,
    carried: &[&str],
    layers: &[&str],
    prefix: &str,
) -> concord_rulec::Program {
    let mut sources = vec![("input.dl".to_string(), inputs.to_string())];
    sources.extend(carried.iter().map(|f| read_rules(f)));
    let mut p = concord_rulec::parse_sources(&sources).unwrap_or_else(|e| panic!("{e}"));
    p.carry_derived();
    let own: Vec<(String, String)> = layers.iter().map(|f| read_rules(f)).collect();
    p.extend(concord_rulec::parse_sources(&own).unwrap_or_else(|e| panic!("{e}")));
    // the diff reads only the diff rules' outputs
    p.outputs.clear();
    p.rename_relations(|r| format!("{prefix}{r}"));
    p
}

/// A diff program: both versions' copies (`version_copy`) and the diff
/// rules, declaring only the inputs its rules read.
fn both_versions(
    inputs: &str,
    carried: &[&str],
    layers: &[&str],
    diff_sources: &[(String, String)],
) -> concord_rulec::Program {
    let mut p = version_copy(inputs, carried, layers, "old_");
    p.extend(version_copy(inputs, carried, layers, "new_"));
    p.extend(concord_rulec::parse_sources(diff_sources).unwrap_or_else(|e| panic!("{e}")));
    // The maps between versions stay: the diff fills them by field.
    p.drop_unused_inputs(&["dmap", "lmap"]);
    p
}

/// Writes a program: `program` as ascent and crepe code, `text` (the same
/// analysis, self-contained) as Soufflé and Z3 fixedpoint text.
fn write_program(
    out: &str,
    name: &str,
    program: &concord_rulec::CheckedProgram,
    text: &concord_rulec::CheckedProgram,
) {
    let ascent = concord_rulec::to_ascent(program, "Program");
    let crepe = concord_rulec::to_crepe(program, "engine");
    std::fs::write(Path::new(out).join(format!("{name}_ascent.rs")), ascent).unwrap();
    std::fs::write(Path::new(out).join(format!("{name}_crepe.rs")), crepe).unwrap();
    std::fs::write(
        Path::new(out).join(format!("{name}.dl")),
        concord_rulec::to_souffle(text),
    )
    .unwrap();
    std::fs::write(
        Path::new(out).join(format!("{name}.smt2")),
        concord_rulec::to_z3_fixedpoint(text),
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

/// The checked program; the build fails with the checker's errors (Cargo
/// shows them; each names the rule or cycle).
fn checked(name: &str, p: concord_rulec::Program) -> concord_rulec::CheckedProgram {
    concord_rulec::check(p).unwrap_or_else(|errors| {
        eprintln!("{errors}");
        panic!("rules for `{name}` do not compile:\n{errors}");
    })
}

fn main() {
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    println!("cargo:rerun-if-changed={RULES}");
    println!("cargo:rerun-if-changed=../../src/facts/schema.rs");
    let analysis_inputs = schema::souffle_input_decls();
    let ir_inputs = schema::souffle_ir_input_decls();
    std::fs::write(Path::new(&out).join("input.dl"), &analysis_inputs).expect("write input.dl");
    // The diff programs first: what they carry in must be outputs of the
    // carrier program.
    let extracted: Vec<String> = concord_rulec::parse_sources(&[("input.dl", &analysis_inputs)])
        .unwrap_or_else(|e| panic!("{e}"))
        .decls
        .into_iter()
        .map(|d| d.name)
        .collect();
    let mut carried_outputs: std::collections::BTreeSet<String> = Default::default();
    for DiffProgram {
        name,
        carried,
        layers,
        rules: diff_files,
    } in DIFF_PROGRAMS
    {
        let diff_sources: Vec<(String, String)> =
            diff_files.iter().map(|f| read_rules(f)).collect();
        let p = both_versions(&analysis_inputs, carried, layers, &diff_sources);
        carried_outputs.extend(
            p.inputs
                .iter()
                .filter_map(|i| i.rel.strip_prefix("old_"))
                .filter(|r| !extracted.iter().any(|e| e == r))
                .map(str::to_string),
        );
        let program = checked(name, p);
        // Soufflé and Z3 get the program whole (nothing carried in), so
        // it runs on two fact directories alone.
        let all_layers: Vec<&str> = carried.iter().chain(layers.iter()).copied().collect();
        let whole = both_versions(&analysis_inputs, &[], &all_layers, &diff_sources);
        write_program(&out, name, &program, &checked(name, whole));
    }
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
        if *name == CARRIER {
            for rel in &carried_outputs {
                if !parsed.outputs.iter().any(|o| o.rel == *rel) {
                    let span = parsed
                        .decls
                        .iter()
                        .find(|d| d.name == *rel)
                        .map(|d| d.span.clone());
                    let span = span.unwrap_or_else(|| panic!("{CARRIER} derives no `{rel}`"));
                    parsed.outputs.push(concord_rulec::IoDirective {
                        rel: rel.clone(),
                        span,
                    });
                }
            }
        }
        let program = checked(name, parsed);
        write_program(&out, name, &program, &program);
    }
}
