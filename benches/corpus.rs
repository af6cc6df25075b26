//! Corpus benchmark: the `concord` binary on real programs and on
//! synthetic ones of growing size, driven as a user would drive it (build
//! with clang-14 and llvm-link-14, then `concord facts`, `concord diff`).
//! Prints measurements only; asserts nothing.
//!
//! 1. `corpus`: the bundles of `../shared/corpus` (or `$CONCORD_CORPUS`)
//!    cloned into a temporary directory; threadpool, pigz and nbds built at
//!    the commits of `corpus/programs.rs`; per version the `facts` time,
//!    peak memory, statements, threads and unresolved calls, and per pair of
//!    consecutive versions the `diff --max-rank 2` time and peak memory.
//! 2. `synth`: programs of 1 to 50 KLoC (`corpus/synth_kloc.rs`), the
//!    `facts` time per size and its ratio to the 1 KLoC time beside the
//!    size ratio.
//!
//! Run: `cargo bench --bench corpus [-- [corpus|synth|threadpool|pigz|nbds]...
//! [--quick] [--repeats R] [--timeout S] [--max-memory MB] [--sizes 1,2,5]
//! [--named-starts] [--keep] [--emit-synth KLOC [--patched]] [--baseline PATH]]`. Env:
//! `CONCORD_BENCH_SECTION`, `CONCORD_BENCH_QUICK=1`, `CONCORD_CORPUS`,
//! `CONCORD_BIN` (the binary to measure; default: the one cargo built with
//! this bench), `CONCORD_BASELINE_BIN` (as `--baseline`: another build,
//! e.g. the one before an issue, run on the same corpus inputs and printed
//! under each figure with the ratio new/baseline). See
//! docs/benchmarks.md. Exit code 0: everything measured; 1: some build or
//! run failed (each printed); 2: a section was skipped (printed).

#[path = "corpus/child.rs"]
mod child;
#[path = "corpus/compile.rs"]
mod compile;
#[path = "corpus/measure.rs"]
mod measure;
#[path = "corpus/programs.rs"]
mod programs;
#[path = "corpus/report.rs"]
mod report;
#[path = "corpus/souffle.rs"]
mod souffle;
#[path = "corpus/synth_kloc.rs"]
mod synth_kloc;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

pub struct Options {
    pub corpus: bool,
    pub synth: bool,
    /// Corpus programs to run (empty: all).
    pub programs: Vec<String>,
    pub quick: bool,
    pub repeats: usize,
    pub limits: child::Limits,
    pub sizes: Vec<u32>,
    pub starts: synth_kloc::Starts,
    pub keep: bool,
    /// A second binary measured on the same corpus inputs (`--baseline`).
    pub baseline: Option<PathBuf>,
}

/// How the bench ended, as its exit code.
#[derive(Default)]
pub struct Tally {
    pub failed: usize,
    pub skipped: usize,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| -> Option<&String> {
        args.iter()
            .position(|a| a == flag)
            .map(|i| args.get(i + 1).unwrap_or_else(|| usage(flag)))
    };
    let number = |flag: &str| -> Option<u64> {
        value(flag).map(|v| v.parse().unwrap_or_else(|_| usage(flag)))
    };
    let starts = if args.iter().any(|a| a == "--named-starts") {
        synth_kloc::Starts::Named
    } else {
        synth_kloc::Starts::Pointers
    };
    if let Some(kloc) = number("--emit-synth") {
        // `--patched`: the pair's second version (module 0's lock removed)
        let patch = if args.iter().any(|a| a == "--patched") {
            synth_kloc::Patch::LockRemoved
        } else {
            synth_kloc::Patch::None
        };
        print!(
            "{}",
            synth_kloc::generate_kloc_version(kloc as u32, starts, patch).source
        );
        return;
    }
    let with_value = [
        "--repeats",
        "--timeout",
        "--max-memory",
        "--sizes",
        "--baseline",
    ];
    let mut words: Vec<String> = Vec::new();
    let mut skip_next = false;
    for a in &args {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if with_value.contains(&a.as_str()) {
            skip_next = true;
        } else if !a.starts_with('-') {
            words.push(a.clone());
        }
    }
    if let Ok(section) = std::env::var("CONCORD_BENCH_SECTION") {
        words.push(section);
    }
    let known: Vec<&str> = programs::SUBJECTS.iter().map(|s| s.name).collect();
    if let Some(bad) = words
        .iter()
        .find(|w| !["corpus", "synth"].contains(&w.as_str()) && !known.contains(&w.as_str()))
    {
        eprintln!("unknown section or program `{bad}`: expected corpus, synth or one of {known:?}");
        std::process::exit(2);
    }
    let programs: Vec<String> = words
        .iter()
        .filter(|w| known.contains(&w.as_str()))
        .cloned()
        .collect();
    let any_corpus = words.iter().any(|w| w == "corpus") || !programs.is_empty();
    let any_synth = words.iter().any(|w| w == "synth");
    let quick = args.iter().any(|a| a == "--quick")
        || std::env::var("CONCORD_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let default_sizes: &[u32] = if quick {
        &[1, 2]
    } else {
        &[1, 2, 5, 10, 20, 50]
    };
    let sizes = value("--sizes").map_or_else(
        || default_sizes.to_vec(),
        |s| {
            s.split(',')
                .map(|n| n.trim().parse().unwrap_or_else(|_| usage("--sizes")))
                .collect()
        },
    );
    let opts = Options {
        corpus: any_corpus || !any_synth,
        synth: any_synth || !any_corpus,
        programs,
        quick,
        repeats: number("--repeats").unwrap_or(1).max(1) as usize,
        limits: child::Limits {
            time: Duration::from_secs(number("--timeout").unwrap_or(if quick { 60 } else { 300 })),
            memory_mb: number("--max-memory").unwrap_or(4096),
        },
        sizes,
        starts,
        keep: args.iter().any(|a| a == "--keep"),
        baseline: value("--baseline")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("CONCORD_BASELINE_BIN").map(PathBuf::from)),
    };
    let tally = run(&opts);
    std::process::exit(if tally.failed > 0 {
        1
    } else if tally.skipped > 0 {
        2
    } else {
        0
    });
}

fn usage(flag: &str) -> ! {
    eprintln!("{flag}: expected a value (see the header of benches/corpus.rs)");
    std::process::exit(2);
}

fn run(opts: &Options) -> Tally {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (bin, bin_origin) = match std::env::var_os("CONCORD_BIN") {
        Some(b) => (PathBuf::from(b), "CONCORD_BIN".to_string()),
        None => (
            PathBuf::from(env!("CARGO_BIN_EXE_concord")),
            format!("built from {}", source_commit(&root)),
        ),
    };
    println!("concord corpus benchmark — {}", utc_now());
    println!(
        "binary: {} ({bin_origin}); {} cores; caps per run: {} s, {} MB; best of {} run(s){}",
        bin.display(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        opts.limits.time.as_secs(),
        opts.limits.memory_mb,
        opts.repeats,
        if opts.quick { "; quick mode" } else { "" }
    );
    if let Some(b) = &opts.baseline {
        println!(
            "baseline: {} (each corpus figure is followed by a `before:` line with this binary's, and the ratio this/baseline)",
            b.display()
        );
    }
    let mut tally = Tally::default();
    let tools = match compile::Tools::find() {
        Ok(t) => t,
        Err(e) => {
            println!("\nSKIPPED every section: {e}");
            tally.skipped += 1;
            return tally;
        }
    };
    let scratch = match tempfile::Builder::new().prefix("concord-corpus-").tempdir() {
        Ok(d) => d,
        Err(e) => {
            println!("\nFAILED: no temporary directory: {e}");
            tally.failed += 1;
            return tally;
        }
    };
    let concord = measure::Concord {
        bin,
        limits: opts.limits,
    };
    if opts.corpus {
        let corpus = std::env::var_os("CONCORD_CORPUS")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("../shared/corpus"));
        // Shown resolved, so the report says which corpus it read.
        let corpus = corpus.canonicalize().unwrap_or(corpus);
        report::corpus_section(opts, &tools, &concord, &corpus, scratch.path(), &mut tally);
    }
    if opts.synth {
        report::synth_section(opts, &tools, &concord, scratch.path(), &mut tally);
    }
    if opts.keep {
        let kept = scratch.keep();
        println!("\nkept the builds and facts in {}", kept.display());
    }
    println!(
        "\n{} failure(s), {} skipped section(s)",
        tally.failed, tally.skipped
    );
    tally
}

fn utc_now() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// `<short hash>` of the tree the default binary is built from, with
/// `+changes` when it has uncommitted edits.
fn source_commit(root: &std::path::Path) -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "?".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    format!("{head}{}", if dirty { "+changes" } else { "" })
}
