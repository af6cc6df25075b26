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
    // happens-before, MayRf in two parts (rf.dl), lock order: what rank 1
    // of a diff reads
    (
        "sync1_core",
        &["order.dl", "hb.dl", "hb_out.dl", "rf.dl", "lockorder.dl"],
    ),
    // mayHb itself: only for `concord query hb_may` and the laws tests
    // (every other rule tests it with both ends bound)
    ("hb", &["order.dl", "hb.dl", "hb_out.dl", "hb_may.dl"]),
    ("cia", &["order.dl", "cia.dl"]),
];

/// Single-version programs built on another: each reads what its base
/// (and the base's bases) derived instead of deriving it again, so every
/// layer's rules are compiled once (the generated programs are most of a
/// release build's time). Name, base, own rule files; concord runs the
/// chain (`sync1`, then `sync2`, ...), handing each program the outputs of
/// those before it. Soufflé and Z3 get each program whole.
pub const STAGED: &[(&str, &str, &[&str])] = &[
    // MayRf listed (rf_may.dl): `query rf_may`, ranks 2 and 3
    ("sync1", "sync1_core", &["rf_may.dl"]),
    (
        "sync2",
        "sync1",
        &["rank2.dl", "rank2_store.dl", "rank2_may.dl"],
    ),
    // `diff --counts`: rank2_may and rank3_no of one version in one run
    // (rank3_may, cubic, is not needed: rank 3 is counted as rank-2
    // triangles minus rank3_no); on sync1, not sync2, so that its typed
    // output has both
    (
        "counts",
        "sync1",
        &["rank2.dl", "rank2_store.dl", "rank2_may.dl", "rank3.dl"],
    ),
    ("sync3", "counts", &["rank3_may.dl"]),
];

/// The rule files of a program, its bases' first.
fn files_of(name: &str) -> Vec<&'static str> {
    if let Some((_, files)) = PROGRAMS.iter().find(|(n, _)| *n == name) {
        return files.to_vec();
    }
    let (_, base, own) = STAGED
        .iter()
        .find(|(n, _, _)| *n == name)
        .unwrap_or_else(|| panic!("no program `{name}`"));
    let mut files = files_of(base);
    files.extend_from_slice(own);
    files
}

/// The relations a program's own rules derive (a staged program: those of
/// its own files), inline views left out.
fn derived_by(name: &str) -> std::collections::BTreeSet<String> {
    let files: Vec<&str> = match STAGED.iter().find(|(n, _, _)| *n == name) {
        Some((_, _, own)) => own.to_vec(),
        None => files_of(name),
    };
    let p = parse_files(&files);
    let inline: Vec<&str> = p
        .decls
        .iter()
        .filter(|d| d.inline)
        .map(|d| d.name.as_str())
        .collect();
    p.rules
        .iter()
        .map(|r| r.head.rel.clone())
        .filter(|r| !inline.contains(&r.as_str()))
        .collect()
}

/// The chain of programs a staged program builds on, root first.
fn chain_of(name: &str) -> Vec<&'static str> {
    match STAGED.iter().find(|(n, _, _)| *n == name) {
        Some((_, base, _)) => {
            let mut chain = chain_of(base);
            chain.push(base);
            chain
        }
        None => Vec::new(),
    }
}

/// Diff programs, one per rank: name, the single-version layers carried
/// in from each version's `sync1` run (every relation they derive becomes
/// an input `old_*` / `new_*`; their inline views stay views), the layers
/// the diff program computes itself for both versions (relations prefixed
/// `old_` / `new_`), and the rule file of one direction (rows only in
/// old). Rank 1 runs the two `sync1_core` programs on separate cores;
/// ranks 2 and 3 reuse what they derived (and the `rf_may` that `sync1`,
/// staged on it, lists) instead of computing it again.
///
/// The other direction (rows only in new) is the same rules with the
/// versions swapped ([`mirrored`]): the generated program holds one
/// direction (and what it reads of the other) and concord runs it twice,
/// the second time with the versions and maps swapped. That halves the
/// largest generated programs (build time) and lets the two directions run
/// on separate cores. Soufflé and Z3 get both directions in one program.
pub struct DiffProgram {
    name: &'static str,
    carried: &'static [&'static str],
    layers: &'static [&'static str],
    direction: &'static str,
}

/// Rules both directions share (Δmap and its projections): written for
/// both sides, so not mirrored.
const SHARED_DIFF: &str = "diff.dl";

/// Relations relating the two versions' ids, `rel(old, new)`: their
/// arguments swap when the versions do.
const VERSION_MAPS: &[&str] = &["dmap", "lmap"];

pub const DIFF_PROGRAMS: &[DiffProgram] = &[
    DiffProgram {
        name: "diff1",
        carried: &["order.dl", "hb.dl", "rf.dl", "lockorder.dl"],
        layers: &[],
        direction: "diff1.dl",
    },
    DiffProgram {
        name: "diff2",
        carried: &["order.dl", "hb.dl", "rf.dl", "rf_may.dl"],
        layers: &["rank2.dl"],
        direction: "diff2.dl",
    },
    DiffProgram {
        name: "diff3",
        carried: &["order.dl", "hb.dl", "rf.dl", "rf_may.dl"],
        layers: &["rank2.dl"],
        direction: "diff3.dl",
    },
];

/// The single-version program whose outputs (and its base chain's) the
/// diff programs carry in: rank 1 runs its base `sync1_core`, ranks 2 and
/// 3 read `sync1`'s `rf_may` too.
const CARRIER: &str = "sync1";

/// `files` parsed as one program (no input declarations).
fn parse_files(files: &[&str]) -> concord_rulec::Program {
    let sources: Vec<(String, String)> = files.iter().map(|f| read_rules(f)).collect();
    concord_rulec::parse_sources(&sources).unwrap_or_else(|e| panic!("{e}"))
}

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
    p.extend(parse_files(layers));
    // the diff reads only the diff rules' outputs
    p.outputs.clear();
    p.rename_relations(|r| format!("{prefix}{r}"));
    p
}

/// A relation's name with the versions swapped: `old_x` <-> `new_x`
/// (the version copies), `x_old` <-> `x_new` (the diff rules' sides).
fn mirror_name(rel: &str) -> String {
    let rel = if let Some(base) = rel.strip_prefix("old_") {
        format!("new_{base}")
    } else if let Some(base) = rel.strip_prefix("new_") {
        format!("old_{base}")
    } else {
        rel.to_string()
    };
    if let Some(base) = rel.strip_suffix("_old") {
        format!("{base}_new")
    } else if let Some(base) = rel.strip_suffix("_new") {
        format!("{base}_old")
    } else {
        rel
    }
}

/// The rules of one direction with the versions swapped: the other
/// direction.
fn mirrored(direction: &concord_rulec::Program) -> concord_rulec::Program {
    let mut m = direction.clone();
    m.rename_relations(mirror_name);
    m.swap_arguments(VERSION_MAPS);
    m
}

/// A diff program: both versions' copies (`version_copy`), the shared
/// diff rules and both directions, declaring only the inputs its rules
/// read; with `one_direction`, only what the first direction's outputs
/// need.
fn both_versions(
    inputs: &str,
    carried: &[&str],
    layers: &[&str],
    direction_file: &str,
    one_direction: bool,
) -> concord_rulec::Program {
    let forward = parse_files(&[direction_file]);
    let forward_outputs: Vec<String> = forward.outputs.iter().map(|o| o.rel.clone()).collect();
    let mut p = version_copy(inputs, carried, layers, "old_");
    p.extend(version_copy(inputs, carried, layers, "new_"));
    p.extend(parse_files(&[SHARED_DIFF]));
    let backward = mirrored(&forward);
    p.extend(forward);
    p.extend(backward);
    if one_direction {
        let keep: Vec<&str> = forward_outputs.iter().map(String::as_str).collect();
        // the maps stay: the diff fills them by field
        p.retain_needed_by(&keep, VERSION_MAPS);
    }
    p.drop_unused_inputs(VERSION_MAPS);
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
    // Column names of the outputs, so reports can show statement columns
    // as source lines: those of the whole program (a staged program reports
    // its chain's outputs; a diff program both directions).
    let mut columns = String::from("pub const OUTPUT_COLUMNS: &[(&str, &[&str])] = &[\n");
    for rel in text.outputs() {
        let cols: Vec<String> = rel.columns.iter().map(|(c, _)| format!("{c:?}")).collect();
        columns.push_str(&format!("    ({:?}, &[{}]),\n", rel.name, cols.join(", ")));
    }
    columns.push_str("];\n");
    // The base a staged program reads from (concord runs the chain).
    let base = STAGED
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, b, _)| *b);
    columns.push_str(&format!(
        "/// The program this one is staged on (build.rs `STAGED`), if any.\n\
         pub const BASE: Option<&str> = {base:?};\n"
    ));
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
        direction,
    } in DIFF_PROGRAMS
    {
        let p = both_versions(&analysis_inputs, carried, layers, direction, true);
        carried_outputs.extend(
            p.inputs
                .iter()
                .filter_map(|i| i.rel.strip_prefix("old_").or(i.rel.strip_prefix("new_")))
                .filter(|r| !extracted.iter().any(|e| e == r))
                .map(str::to_string),
        );
        let program = checked(name, p);
        // Soufflé and Z3 get the program whole (nothing carried in, both
        // directions), so it runs on two fact directories alone.
        let all_layers: Vec<&str> = carried.iter().chain(layers.iter()).copied().collect();
        let whole = both_versions(&analysis_inputs, &[], &all_layers, direction, false);
        write_program(&out, name, &program, &checked(name, whole));
    }
    // What each program must output for the programs that carry its
    // relations in: sync1 for the diffs, each base for its staged programs.
    let mut extra_outputs: std::collections::BTreeMap<&str, std::collections::BTreeSet<String>> =
        Default::default();
    let mut carriers = chain_of(CARRIER);
    carriers.push(CARRIER);
    for rel in carried_outputs {
        let from = carriers
            .iter()
            .find(|c| derived_by(c).contains(&rel))
            .unwrap_or_else(|| panic!("a diff program reads `{rel}`, which no carrier derives"));
        extra_outputs.entry(*from).or_default().insert(rel);
    }
    let parse_with_inputs = |name: &str, files: &[&str]| {
        let inputs = if name == "pointsto" {
            ir_inputs.clone()
        } else {
            analysis_inputs.clone()
        };
        let mut sources: Vec<(String, String)> = vec![(
            "input.dl (generated from src/facts/schema.rs)".into(),
            inputs,
        )];
        sources.extend(files.iter().map(|f| read_rules(f)));
        concord_rulec::parse_sources(&sources).unwrap_or_else(|e| panic!("{e}"))
    };
    let mut staged: Vec<(&str, concord_rulec::Program)> = Vec::new();
    for (name, base, own) in STAGED {
        let mut p = parse_with_inputs(name, &files_of(base));
        p.carry_derived();
        p.extend(parse_files(own));
        p.drop_unused_inputs(&[]);
        // each carried relation comes from the program of the chain that derives it
        let chain = chain_of(name);
        for input in &p.inputs {
            if extracted.contains(&input.rel) {
                continue;
            }
            let from = chain
                .iter()
                .find(|c| derived_by(c).contains(&input.rel))
                .unwrap_or_else(|| panic!("`{name}` reads `{}`, which no base derives", input.rel));
            extra_outputs
                .entry(from)
                .or_default()
                .insert(input.rel.clone());
        }
        staged.push((name, p));
    }
    let add_outputs = |name: &str, p: &mut concord_rulec::Program| {
        for rel in extra_outputs.get(name).into_iter().flatten() {
            if !p.outputs.iter().any(|o| o.rel == *rel) {
                let span = p
                    .decls
                    .iter()
                    .find(|d| d.name == *rel)
                    .map(|d| d.span.clone());
                let span = span.unwrap_or_else(|| panic!("{name} derives no `{rel}`"));
                p.outputs.push(concord_rulec::IoDirective {
                    rel: rel.clone(),
                    span,
                });
            }
        }
    };
    for (name, files) in PROGRAMS {
        let mut parsed = parse_with_inputs(name, files);
        // Every extracted relation is declared; the program keeps (and its
        // caller fills) only those its rules read.
        parsed.drop_unused_inputs(&[]);
        add_outputs(name, &mut parsed);
        let program = checked(name, parsed);
        write_program(&out, name, &program, &program);
    }
    for (name, mut p) in staged {
        add_outputs(name, &mut p);
        let mut whole = parse_with_inputs(name, &files_of(name));
        whole.drop_unused_inputs(&[]);
        write_program(&out, name, &checked(name, p), &checked(name, whole));
    }
}
