//! Each command's pipeline called as a library function (no command line,
//! no clap): typed requests in, data and an answer out. One test per
//! pipeline, on the bench pair `ecdiff-fig2-lock` (v2 adds lock `a` around
//! both threads' accesses to `x`; `bench-programs/ecdiff-fig2-lock/expected.toml`).

use crate::common;
use common::repo_root;
use concord::analysis::diff::{DiffOptions, Side};
use concord::analysis::impact::Direction;
use concord::analysis::Engine;
use concord::budget::Budget;
use concord::error::{exit, ConcordError};
use concord::facts::extract::ExtractOptions;
use concord::facts::io::FactFormat;
use concord::frontend::CompileOptions;
use concord::load::VersionSource;
use concord::pipeline::{self, Answer, Event, VersionPair};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn case(file: &str) -> PathBuf {
    repo_root()
        .join("bench-programs/ecdiff-fig2-lock")
        .join(file)
}

fn source(path: &Path) -> VersionSource {
    VersionSource {
        path: path.to_path_buf(),
        compile: CompileOptions::default(),
    }
}

fn pair(old: &Path, new: &Path) -> VersionPair {
    VersionPair {
        old: source(old),
        new: source(new),
        extract: ExtractOptions::default(),
    }
}

/// Events are data: a test collects them instead of reading stderr.
fn collect(events: &mut Vec<Event>) -> impl FnMut(Event) + '_ {
    |e| events.push(e)
}

#[test]
fn facts_pipeline_writes_the_directory_and_refuses_a_missing_program() {
    let dir = tempfile::tempdir().unwrap();
    let req = pipeline::facts::FactsRequest {
        program: case("v1.c"),
        output: dir.path().join("facts"),
        format: FactFormat::Csv,
        compile: CompileOptions::default(),
        extract: ExtractOptions::default(),
    };
    let mut events = Vec::new();
    let out = pipeline::facts::facts(&req, &Budget::unlimited(), &mut collect(&mut events))
        .expect("v1.c extracts");
    assert_eq!(out.answer(), Answer::Clean);
    assert_eq!(out.facts.threads.len(), 3, "main and two threads");
    assert!(out.fact_count() > 0);
    assert!(dir.path().join("facts/manifest.json").is_file());
    assert!(dir.path().join("facts/thread_create.csv").is_file());
    assert!(events.is_empty(), "nothing unresolved: {events:?}");

    let missing = pipeline::facts::FactsRequest {
        program: dir.path().join("missing.c"),
        ..req
    };
    let err = pipeline::facts::facts(&missing, &Budget::unlimited(), &mut |_| {})
        .err()
        .expect("a missing program is an error");
    assert!(matches!(err, ConcordError::InputMissing { .. }), "{err}");
    assert_eq!(err.exit_code(), exit::INPUT_MISSING);
}

#[test]
fn changes_pipeline_finds_the_patch_and_nothing_in_a_version_against_itself() {
    let run = |old: &str, new: &str| {
        let req = pipeline::changes::ChangesRequest {
            versions: pair(&case(old), &case(new)),
        };
        pipeline::changes::changes(&req, &Budget::unlimited(), &mut |_| {}).unwrap()
    };
    let patched = run("v1.c", "v2.c");
    assert_eq!(patched.answer(), Answer::Found);
    assert!(!patched.pair.matching.changes.is_empty());
    let same = run("v1.c", "v1.c");
    assert_eq!(same.answer(), Answer::Clean);
    assert_eq!(same.answer().exit_code(), 0);
}

#[test]
fn diff_pipeline_reports_the_rank1_edge_the_lock_removes() {
    let req = pipeline::diff::DiffRequest {
        versions: pair(&case("v1.c"), &case("v2.c")),
        options: DiffOptions::default(),
        reference: false,
    };
    let mut events = Vec::new();
    let out = pipeline::diff::diff(&req, &Budget::unlimited(), &mut collect(&mut events)).unwrap();
    assert_eq!(out.answer(), Answer::Found);
    assert_eq!(out.sync.first_rank, 1);
    // expected.toml: rank 1, only in old, x written at line 15, read at line 8.
    let old = &out.pair.old.facts;
    let edges: Vec<(u32, u32)> = out
        .sync
        .differences
        .iter()
        .filter(|d| d.rank == 1 && d.only_in == Side::Old)
        .flat_map(|d| d.edges.iter())
        .map(|&(write, read)| {
            let line = |id| old.statement(id).unwrap().line;
            (line(write), line(read))
        })
        .collect();
    assert!(edges.contains(&(15, 8)), "{edges:?}");
    assert!(
        matches!(&events[..], [Event::Comparing { .. }]),
        "{events:?}"
    );
    // The report renders from the outcome alone.
    let json = concord::report::diff::json(&out.report());
    assert!(json.contains("\"first_rank\": 1"), "{json}");
}

fn impact_request(changed: Vec<pipeline::impact::SourceLine>) -> pipeline::impact::ImpactRequest {
    pipeline::impact::ImpactRequest {
        old: Some(source(&case("v1.c"))),
        new: source(&case("v2.c")),
        extract: ExtractOptions::default(),
        changed,
        explain: None,
        directions: vec![Direction::Fwd, Direction::Bwd],
        engine: Engine::Ascent,
    }
}

#[test]
fn impact_pipeline_gives_the_expected_forward_set_and_refuses_an_empty_line() {
    let out = pipeline::impact::impact(&impact_request(vec![]), &Budget::unlimited(), &mut |_| {})
        .unwrap();
    assert_eq!(out.answer(), Answer::Found);
    let lines: BTreeSet<u32> = out
        .result
        .fwd
        .keys()
        .map(|&id| out.new.facts.statement(id).unwrap().line)
        .collect();
    for line in [5, 8, 12, 18, 20] {
        assert!(lines.contains(&line), "line {line} not in {lines:?}");
    }
    assert!(out.old_view().is_some(), "versions were compared");

    // Line 2 of v2.c (an #include) holds no statement: exit 2.
    let req = impact_request(vec![pipeline::impact::SourceLine {
        file: None,
        line: 2,
    }]);
    let err = pipeline::impact::impact(&req, &Budget::unlimited(), &mut |_| {})
        .err()
        .expect("no statement on line 2");
    assert_eq!(err.exit_code(), exit::USAGE);
    assert!(err.to_string().contains("no statement"), "{err}");
}

#[test]
fn query_pipeline_filters_rows_and_checks_the_relation_before_loading() {
    let req = pipeline::query::QueryRequest {
        program: source(&case("v1.c")),
        extract: ExtractOptions::default(),
        relation: "thread_create".into(),
        filters: vec![],
        engine: Engine::Ascent,
    };
    let all = pipeline::query::query(&req, &Budget::unlimited(), &mut |_| {}).unwrap();
    assert_eq!(all.answer(), Answer::Clean);
    assert_eq!(all.rows.len(), 2, "two pthread_create calls");
    // v1.c line 22 creates thread1.
    let filtered = pipeline::query::QueryRequest {
        filters: vec![format!("{}=22", all.columns[0].0)],
        ..req.clone()
    };
    let one = pipeline::query::query(&filtered, &Budget::unlimited(), &mut |_| {}).unwrap();
    assert_eq!(one.rows.len(), 1, "{:?}", one.rows);

    // An unknown relation is refused before the (missing) program is read.
    let unknown = pipeline::query::QueryRequest {
        program: source(Path::new("/nonexistent/p.c")),
        relation: "no_such_relation".into(),
        ..req
    };
    let err = pipeline::query::query(&unknown, &Budget::unlimited(), &mut |_| {})
        .err()
        .unwrap();
    assert_eq!(err.exit_code(), exit::USAGE, "{err}");
}

fn symex_request(program: &Path, new: Option<&Path>, out: &Path) -> pipeline::symex::SymexRequest {
    pipeline::symex::SymexRequest {
        program: program.to_path_buf(),
        new: new.map(Path::to_path_buf),
        compile: CompileOptions::default(),
        options: concord::symex::SymexOptions::default(),
        program_args: vec![],
        output_dir: Some(out.to_path_buf()),
        store: pipeline::symex::StoreChoice::None,
        max_interferences: None,
        directed: false,
        diff_directed: true,
        diff_rank: concord::symex::diff_directed::DEFAULT_RANK,
    }
}

#[test]
fn symex_pipeline_finds_the_old_violation_and_verifies_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("old");
    let old =
        pipeline::symex::symex(&symex_request(&case("v1.c"), None, &out), &mut |_| {}).unwrap();
    assert_eq!(old.answer(), Answer::Found);
    assert!(old
        .exploration
        .findings
        .iter()
        .any(|f| f.location.contains(":9:")));
    assert!(out.join("test000001.json").is_file());
    assert!(out.join("stats.json").is_file());
    assert!(old.incremental.is_none());

    // Incrementally, NEW (the fix) has no violation; OLD's is at an
    // impacted statement, so it is not carried over.
    let out = dir.path().join("inc");
    let inc = pipeline::symex::symex(
        &symex_request(&case("v1.c"), Some(&case("v2.c")), &out),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(
        inc.answer(),
        Answer::Clean,
        "{:?}",
        inc.exploration.findings
    );
    assert!(inc.incremental.as_ref().unwrap().stats.changes > 0);
    assert!(out.join("incremental.json").is_file());

    // A non-empty results directory is refused before anything runs.
    let err = pipeline::symex::symex(&symex_request(&case("v1.c"), None, &out), &mut |_| {})
        .err()
        .unwrap();
    assert_eq!(err.exit_code(), exit::OUTPUT_FAILED, "{err}");
}

fn concord(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// `symex OLD NEW` loads through `load.rs` like every command: it takes
/// lists of C files (`@FILE`, it refused them before: exit 3) and warns
/// about what the model cannot resolve.
#[test]
fn symex_old_new_takes_file_lists_and_warns_like_every_command() {
    let dir = tempfile::tempdir().unwrap();
    for v in ["v1.c", "v2.c"] {
        std::fs::copy(case(v), dir.path().join(v)).unwrap();
    }
    std::fs::write(dir.path().join("old.txt"), "v1.c\n").unwrap();
    std::fs::write(dir.path().join("new.txt"), "# the fix\nv2.c\n").unwrap();
    let o = concord(
        dir.path(),
        &[
            "-q",
            "symex",
            "--no-store",
            "--output-dir",
            "out",
            "@old.txt",
            "@new.txt",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(dir.path().join("out/incremental.json").is_file());

    // A thread started through a pointer from outside the program.
    std::fs::write(
        dir.path().join("fp.c"),
        "#include <pthread.h>\n#include <stdlib.h>\n\
int main(void) { pthread_t h;\n\
void *(*g)(void *) = (void *(*)(void *))getenv(\"X\"); pthread_create(&h, 0, g, 0);\n\
pthread_join(h, 0); return 0; }\n",
    )
    .unwrap();
    let o = concord(
        dir.path(),
        &[
            "symex",
            "--no-store",
            "--max-time",
            "20",
            "--output-dir",
            "out2",
            "fp.c",
            "fp.c",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("concord: warning: ") && err.contains("start routine"),
        "{err}"
    );
}
