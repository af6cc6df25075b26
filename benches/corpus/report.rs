//! The two sections of the corpus benchmark: what runs in which order and
//! how each measurement is printed. A failure (build or run) is printed
//! with its exit status and the head of its stderr, counted, and the
//! section goes on with the next version or program.

use crate::child::{End, Outcome};
use crate::compile::{self, Tools};
use crate::measure::{phases, read_counts, Concord, FactCounts};
use crate::programs::{Subject, SUBJECTS};
use crate::souffle;
use crate::synth_kloc;
use crate::{Options, Tally};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The targets on this machine, printed beside each figure.
const FACTS_TARGET_S: f64 = 2.0;
const FACTS_TARGET_MB: f64 = 500.0;
const DIFF_TARGET_S: f64 = 60.0;
const RANK1_TARGET_S: f64 = 10.0;
/// 4 GiB for every command on a version pair.
const PAIR_TARGET_MB: f64 = 4096.0;
/// A size ratio r may cost at most 1.2 r in time (10x bigger, 12x time).
const LINEAR_SLACK: f64 = 1.2;

const STDERR_LINES: usize = 8;

/// Best wall and CPU times over the runs, the largest peak memory, and
/// the last outcome (all runs of one input behave alike; the first failure
/// stops).
struct Runs {
    best: Duration,
    best_cpu: Duration,
    peak_mb: f64,
    last: Outcome,
}

/// `concord facts` `repeats` times, each into a fresh directory; the
/// directory of the last run is `out`.
fn facts_runs(
    concord: &Concord,
    input: &Path,
    out: &Path,
    repeats: usize,
    phases: bool,
) -> Result<Runs, String> {
    let mut best = Duration::MAX;
    let mut best_cpu = Duration::MAX;
    let mut peak_mb: f64 = 0.0;
    let mut last = None;
    for i in 0..repeats {
        let dir = if i + 1 == repeats {
            out.to_path_buf()
        } else {
            out.with_extension(format!("run{i}"))
        };
        let o = concord
            .facts(input, &dir, phases)
            .map_err(|e| format!("could not run concord: {e}"))?;
        let ok = o.exited_with(&[0]);
        best = best.min(o.wall);
        best_cpu = best_cpu.min(o.cpu);
        peak_mb = peak_mb.max(o.peak_mb());
        last = Some(o);
        if !ok {
            break;
        }
        if dir != out {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    Ok(Runs {
        best,
        best_cpu,
        peak_mb,
        last: last.expect("at least one run"),
    })
}

fn unresolved(c: &FactCounts) -> String {
    c.unresolved
        .map_or_else(|| "n/a".to_string(), |n| n.to_string())
}

/// The coverage account in one line: `kind count, ...`, `complete`, or
/// `n/a` for a concord that writes no account.
fn coverage_line(c: &FactCounts) -> String {
    match &c.coverage {
        None => "n/a (this concord writes no coverage account)".to_string(),
        Some(gaps) if gaps.is_empty() => "complete (nothing left out)".to_string(),
        Some(gaps) => gaps
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

fn print_failure(what: &str, o: &Outcome) {
    println!(
        "    FAILED {what}: {} after {:.2} s, peak {:.0} MB; stderr:",
        o.end,
        o.wall.as_secs_f64(),
        o.peak_mb()
    );
    print!("{}", o.stderr_head(STDERR_LINES));
}

// ------------------------------------------------------------------ corpus

pub fn corpus_section(
    opts: &Options,
    tools: &Tools,
    concord: &Concord,
    corpus: &Path,
    scratch: &Path,
    tally: &mut Tally,
) {
    println!("\n## Corpus programs ({})", corpus.display());
    if !corpus.is_dir() {
        println!(
            "SKIPPED: no corpus directory at {} (set CONCORD_CORPUS to the directory holding the .bundle files)",
            corpus.display()
        );
        tally.skipped += 1;
        return;
    }
    println!(
        "targets: facts < {FACTS_TARGET_S} s and < {FACTS_TARGET_MB} MB; diff rank 1 < {RANK1_TARGET_S} s, ranks 2-3 and impact < {DIFF_TARGET_S} s, each < {PAIR_TARGET_MB} MB"
    );
    for subject in SUBJECTS {
        if !opts.programs.is_empty() && !opts.programs.iter().any(|p| p == subject.name) {
            continue;
        }
        subject_rows(opts, tools, concord, corpus, scratch, subject, tally);
    }
}

fn subject_rows(
    opts: &Options,
    tools: &Tools,
    concord: &Concord,
    corpus: &Path,
    scratch: &Path,
    subject: &Subject,
    tally: &mut Tally,
) {
    println!("\n### {}: {}", subject.name, subject.what);
    let base = scratch.join(subject.name);
    let clone = base.join("repo");
    let bundle = corpus.join(subject.bundle);
    if !bundle.is_file() {
        println!("    SKIPPED: {} is missing", bundle.display());
        tally.skipped += 1;
        return;
    }
    if let Err(e) = compile::clone_bundle(&bundle, &clone) {
        println!("    FAILED {}:\n{}", e.step, indent(&e.detail));
        tally.failed += 1;
        return;
    }
    let commits = if opts.quick {
        &subject.commits[..2.min(subject.commits.len())]
    } else {
        subject.commits
    };
    println!(
        "{:<9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>10}  {:<7}  commit",
        "version",
        "build s",
        "facts s",
        "cpu s",
        "peak MB",
        "stmts",
        "threads",
        "unresolved",
        "target"
    );
    let mut built: Vec<(String, Option<PathBuf>)> = Vec::new();
    for commit in commits {
        let bc = version_row(opts, tools, concord, &clone, &base, subject, commit, tally);
        built.push((commit.to_string(), bc));
    }
    if built.len() < 2 {
        return;
    }
    println!(
        "{:<19} {:<12} {:>8} {:>8}  {:<7}  result",
        "pair", "command", "time s", "peak MB", "target"
    );
    for pair in built.windows(2) {
        let (old, new) = (&pair[0], &pair[1]);
        let label = format!("{}..{}", old.0, new.0);
        let (Some(old_bc), Some(new_bc)) = (&old.1, &new.1) else {
            println!("{label:<19} not run: a version did not build");
            continue;
        };
        for rank in 1..=3 {
            let command = format!("diff rank {rank}");
            let target = if rank == 1 {
                RANK1_TARGET_S
            } else {
                DIFF_TARGET_S
            };
            let this = concord.diff(old_bc, new_bc, rank, true);
            pair_row(&label, &command, target, &this, tally);
            if let Some(base) = baseline(opts, concord) {
                before_row(&base.diff(old_bc, new_bc, rank, false), &this);
            }
        }
        let this = concord.impact(old_bc, new_bc, true);
        pair_row(&label, "impact", DIFF_TARGET_S, &this, tally);
        if let Some(base) = baseline(opts, concord) {
            before_row(&base.impact(old_bc, new_bc, false), &this);
        }
    }
}

/// One command on a version pair: time, peak memory, target, its answer,
/// and the phases `--verbose` printed.
fn pair_row(
    label: &str,
    command: &str,
    target_s: f64,
    run: &std::io::Result<Outcome>,
    tally: &mut Tally,
) {
    match run {
        Err(e) => {
            println!("{label:<19} {command:<12} FAILED: could not run concord: {e}");
            tally.failed += 1;
        }
        // 0 no difference, 1 differences, 10 inconclusive: answers
        Ok(o) if o.exited_with(&[0, 1, 10]) => {
            let secs = o.wall.as_secs_f64();
            let result = format!("exit {}: {}", exit_code(o), answer_summary(&o.stdout));
            println!(
                "{label:<19} {command:<12} {secs:>8.2} {:>8.0}  {:<7}  {result}",
                o.peak_mb(),
                verdict(secs < target_s && o.peak_mb() < PAIR_TARGET_MB)
            );
            print_phases(&o.stderr);
        }
        Ok(o) => {
            println!(
                "{label:<19} {command:<12} {:>8.2} {:>8.0}  {:<7}  {}",
                o.wall.as_secs_f64(),
                o.peak_mb(),
                verdict(false),
                o.end
            );
            print_failure(&format!("{command} {label}"), o);
            tally.failed += 1;
        }
    }
}

/// The baseline's figures for the same command, with the ratios
/// this/baseline.
fn before_row(base: &std::io::Result<Outcome>, this: &std::io::Result<Outcome>) {
    match (base, this) {
        (Ok(b), Ok(this)) => println!(
            "{:<19} {:<12} {:>8.2} {:>8.0}  {:<7}  exit {}: {} (time {}, memory {})",
            "",
            "  before:",
            b.wall.as_secs_f64(),
            b.peak_mb(),
            "",
            exit_code(b),
            answer_summary(&b.stdout),
            ratio(this.wall.as_secs_f64(), b.wall.as_secs_f64()),
            ratio(this.peak_mb(), b.peak_mb())
        ),
        (Err(e), _) => println!("  before: could not run the baseline: {e}"),
        (_, Err(_)) => {}
    }
}

/// `--verbose`'s phases on one indented line: `name s/MB; ...`, the
/// costliest first.
fn print_phases(stderr: &str) {
    let mut phases = phases(stderr);
    if phases.is_empty() {
        return;
    }
    phases.sort_by(|a, b| b.1.total_cmp(&a.1));
    let text: Vec<String> = phases
        .iter()
        .map(|(name, s, mb)| format!("{name} {s:.2} s/{mb:.0} MB"))
        .collect();
    println!("{:<19}   phases: {}", "", text.join("; "));
}

/// The baseline binary, with the same caps, when `--baseline` was given.
fn baseline(opts: &Options, concord: &Concord) -> Option<Concord> {
    opts.baseline.as_ref().map(|bin| Concord {
        bin: bin.clone(),
        limits: concord.limits,
    })
}

/// `x` this run over the baseline's, as `1.23x`.
fn ratio(this: f64, base: f64) -> String {
    if base > 0.0 {
        format!("{:.2}x", this / base)
    } else {
        "-".to_string()
    }
}

/// The exit code of a child that exited, or its end (`signal 9`, ...).
fn exit_code(o: &Outcome) -> String {
    match o.end {
        End::Exited(c) => c.to_string(),
        _ => o.end.to_string(),
    }
}

/// Facts of the same bitcode with the baseline binary: a `before:` line
/// with its figures and the ratios this/baseline, and its coverage account.
fn baseline_facts_row(opts: &Options, concord: &Concord, bc: &Path, out: &Path, this: &Runs) {
    let Some(base) = baseline(opts, concord) else {
        return;
    };
    let runs = match facts_runs(&base, bc, out, opts.repeats, false) {
        Ok(r) => r,
        Err(e) => {
            println!("{:<9} before: {e}", "");
            return;
        }
    };
    let (secs, cpu) = (runs.best.as_secs_f64(), runs.best_cpu.as_secs_f64());
    let counts = if runs.last.exited_with(&[0]) {
        read_counts(out).ok()
    } else {
        None
    };
    println!(
        "{:<9} before: facts {secs:.2} s ({}), cpu {cpu:.2} s ({}), peak {:.0} MB ({}), {} stmts, {} threads, unresolved {}, exit {}",
        "",
        ratio(this.best.as_secs_f64(), secs),
        ratio(this.best_cpu.as_secs_f64(), cpu),
        runs.peak_mb,
        ratio(this.peak_mb, runs.peak_mb),
        counts.as_ref().map_or("-".to_string(), |c| c.statements.to_string()),
        counts.as_ref().map_or("-".to_string(), |c| c.threads.to_string()),
        counts.as_ref().map_or("-".to_string(), unresolved),
        exit_code(&runs.last)
    );
    if let Some(c) = counts {
        println!("{:<9} before: coverage: {}", "", coverage_line(&c));
    }
}

/// Build one version and extract its facts; the bitcode when it built.
#[allow(clippy::too_many_arguments)]
fn version_row(
    opts: &Options,
    tools: &Tools,
    concord: &Concord,
    clone: &Path,
    base: &Path,
    subject: &Subject,
    commit: &str,
    tally: &mut Tally,
) -> Option<PathBuf> {
    let dir = base.join(commit);
    let described = compile::describe(clone, commit);
    let built = compile::checkout(clone, commit, &dir)
        .map_err(|e| format!("{}:\n{}", e.step, indent(&e.detail)))
        .and_then(|()| (subject.recipe)(&dir))
        .and_then(|recipe| {
            let bc = dir.join(format!("{}-{commit}.bc", subject.name));
            compile::compile_and_link(tools, &dir, &recipe.sources, &recipe.flags, &bc)
                .map(|t| (bc, t))
                .map_err(|e| format!("{}:\n{}", e.step, indent(&head(&e.detail))))
        });
    let (bc, build_time) = match built {
        Ok(b) => b,
        Err(e) => {
            println!("{commit:<9} BUILD FAILED ({described}): {e}");
            tally.failed += 1;
            return None;
        }
    };
    let out = base.join(format!("facts-{commit}"));
    let runs = match facts_runs(concord, &bc, &out, opts.repeats, true) {
        Ok(r) => r,
        Err(e) => {
            println!("{commit:<9} FAILED: {e}");
            tally.failed += 1;
            return Some(bc);
        }
    };
    let secs = runs.best.as_secs_f64();
    let cpu = runs.best_cpu.as_secs_f64();
    if !runs.last.exited_with(&[0]) {
        println!(
            "{commit:<9} {:>8.2} {secs:>8.2} {cpu:>8.2} {:>8.0} {:>7} {:>7} {:>10}  {:<7}  {described}",
            build_time.as_secs_f64(),
            runs.peak_mb,
            "-",
            "-",
            "-",
            verdict(false)
        );
        print_failure(&format!("facts {commit}"), &runs.last);
        tally.failed += 1;
        return Some(bc);
    }
    match read_counts(&out) {
        Ok(c) => {
            println!(
                "{commit:<9} {:>8.2} {secs:>8.2} {cpu:>8.2} {:>8.0} {:>7} {:>7} {:>10}  {:<7}  {described}",
                build_time.as_secs_f64(),
                runs.peak_mb,
                c.statements,
                c.threads,
                unresolved(&c),
                verdict(secs < FACTS_TARGET_S && runs.peak_mb < FACTS_TARGET_MB)
            );
            println!("{:<9} coverage: {}", "", coverage_line(&c));
            print_phases(&runs.last.stderr);
            baseline_facts_row(
                opts,
                concord,
                &bc,
                &base.join(format!("facts-{commit}-baseline")),
                &runs,
            );
            print_inside_threads(&c);
            query_rows(opts, concord, &out, base, commit);
        }
        Err(e) => {
            println!("{commit:<9} FAILED: facts written but unreadable: {e}");
            tally.failed += 1;
        }
    }
    Some(bc)
}

/// `rf_may` of one version: concord's `query` (this binary and the
/// baseline) beside Soufflé's interpreter on the same facts and rules.
fn query_rows(opts: &Options, concord: &Concord, facts: &Path, base: &Path, commit: &str) {
    let label = format!("{commit} query rf_may");
    let show =
        |who: &str, a: &std::io::Result<souffle::Answer>, reference: Option<&Outcome>| match a {
            Err(e) => println!("{:<9} {who}: could not run: {e}", ""),
            Ok(a) => println!(
                "{:<9} {who:<28} {:>8.2} s {:>8.0} MB  {}{}",
                "",
                a.run.wall.as_secs_f64(),
                a.run.peak_mb(),
                a.rows.map_or_else(
                    || format!("no answer ({})", a.run.end),
                    |n| format!("{n} rows")
                ),
                reference.map_or(String::new(), |r| format!(
                    " (concord/this: time {}, memory {})",
                    ratio(r.wall.as_secs_f64(), a.run.wall.as_secs_f64()),
                    ratio(r.peak_mb(), a.run.peak_mb())
                ))
            ),
        };
    println!("{:<9} {label}", "");
    let this = souffle::concord_query(&concord.bin, facts, concord.limits);
    show("concord", &this, None);
    let this_run = this.as_ref().ok().map(|a| &a.run);
    if let Some(b) = baseline(opts, concord) {
        show(
            "  before (baseline)",
            &souffle::concord_query(&b.bin, facts, b.limits),
            this_run,
        );
    }
    let Some(souffle_bin) = souffle::find() else {
        println!(
            "{:<9} soufflé: not found (../shared/tools/souffle or CONCORD_SOUFFLE)",
            ""
        );
        return;
    };
    let program = base.join("sync1.dl");
    if let Err(e) = souffle::emit_rules(&concord.bin, "sync1", &program) {
        println!("{:<9} soufflé: {e}", "");
        return;
    }
    let out = base.join(format!("souffle-{commit}"));
    let interpreted = souffle::interpreter(&souffle_bin, &program, facts, &out, concord.limits);
    show("soufflé interpreter -j 1", &interpreted, this_run);
    if let (Ok(a), Ok(b)) = (&this, &interpreted) {
        if let (Some(x), Some(y)) = (a.rows, b.rows) {
            if x != y {
                println!("{:<9} DISAGREE: concord {x} rows, soufflé {y} rows", "");
            }
        }
    }
    println!("{:<9} soufflé compiled: not available (its C++ headers are not shipped in ../shared/tools)", "");
}

/// Which functions start threads and which files run inside them: what
/// the issue's "pigz shows its compressor and writer threads" and "nbds
/// shows the list, skiplist and hashtable code inside the threads" ask.
fn print_inside_threads(c: &FactCounts) {
    let starts: Vec<String> = c
        .thread_functions
        .iter()
        .map(|(f, n)| format!("{f}×{n}"))
        .collect();
    println!("          thread functions: {}", starts.join(", "));
    for site in &c.sites {
        let own: Vec<String> = site
            .own_functions
            .iter()
            .map(|(f, n)| format!("{f} {n}"))
            .collect();
        println!(
            "          {}×{}: runs only here: {}; shares with other threads: {}",
            site.function,
            site.instances,
            if own.is_empty() {
                "-".to_string()
            } else {
                own.join(", ")
            },
            if site.shared_with_others.is_empty() {
                "-".to_string()
            } else {
                site.shared_with_others.join(", ")
            }
        );
    }
    if c.files_in_threads.is_empty() {
        println!("          statements in threads other than main: none");
    } else {
        let files: Vec<String> = c
            .files_in_threads
            .iter()
            .map(|(f, n)| {
                let f = if f.is_empty() { "(no file)" } else { f };
                format!("{f} {n}")
            })
            .collect();
        println!(
            "          statements in threads other than main, per file: {}",
            files.join(", ")
        );
    }
}

/// The line under the header of `concord diff`'s text report: its verdict
/// ("no synchronisation difference up to rank 2", or the first difference).
/// `impact --format json`'s totals, or the first line of a diff report.
fn answer_summary(stdout: &str) -> String {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(stdout) else {
        return diff_summary(stdout);
    };
    let count = |dir: &str| json["summary"][dir]["statements"].as_u64().unwrap_or(0);
    format!(
        "{} changes; impacted statements: {} forward, {} backward",
        json["changes"].as_array().map_or(0, |c| c.len()),
        count("forward"),
        count("backward")
    )
}

fn diff_summary(stdout: &str) -> String {
    let line = stdout
        .lines()
        .skip(1)
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("(no report on stdout)");
    let mut s: String = line.chars().take(100).collect();
    if s.len() < line.len() {
        s.push_str("...");
    }
    s
}

fn head(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut s = lines
        .iter()
        .take(STDERR_LINES)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > STDERR_LINES {
        s.push_str(&format!(
            "\n... ({} more lines)",
            lines.len() - STDERR_LINES
        ));
    }
    s
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("      | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

// ------------------------------------------------------------------ synthetic

/// One measured size.
struct SynthRow {
    kloc: u32,
    lines: usize,
    facts_s: Option<f64>,
    cpu_s: Option<f64>,
    /// Per command on the version pair (`diff rank k`, `impact`, and
    /// `facts`): wall seconds and peak MB of a run that answered.
    pair: Vec<(String, f64, f64)>,
    /// The answer's size: the old version's MayRf edges, from the rank-1
    /// diff's counts.
    may_rf: Option<f64>,
}

pub fn synth_section(
    opts: &Options,
    tools: &Tools,
    concord: &Concord,
    scratch: &Path,
    tally: &mut Tally,
) {
    println!(
        "\n## Synthetic programs (benches/corpus/synth_kloc.rs, 8 threads started {}): facts per size, then diff ranks 1-3 and impact against the patched version (module 0's total unlocked)",
        match opts.starts {
            synth_kloc::Starts::Pointers => "through a wrapper and function pointers",
            synth_kloc::Starts::Named => "by pthread_create naming the routine (--named-starts)",
        }
    );
    let dir = scratch.join("synth");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        println!("FAILED: {}: {e}", dir.display());
        tally.failed += 1;
        return;
    }
    println!(
        "{:>5} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>10}",
        "KLoC",
        "lines",
        "modules",
        "clang s",
        "facts s",
        "cpu s",
        "peak MB",
        "stmts",
        "threads",
        "unresolved"
    );
    let mut rows = Vec::new();
    let mut capped_at = None;
    for &kloc in &opts.sizes {
        if let Some((smaller, end)) = capped_at {
            println!("{kloc:>5} not run: {smaller} KLoC already {end}");
            rows.push(SynthRow {
                kloc,
                lines: 0,
                facts_s: None,
                cpu_s: None,
                pair: Vec::new(),
                may_rf: None,
            });
            continue;
        }
        let program = synth_kloc::generate_kloc(kloc, opts.starts);
        let row = synth_row(
            opts,
            tools,
            concord,
            &dir,
            kloc,
            &program,
            tally,
            &mut capped_at,
        );
        rows.push(row);
    }
    ratio_table(&rows);
    exponent_table(&rows);
}

/// The patched version of the same size (module 0's `total` unlocked):
/// `diff --max-rank 1..3` and `impact` on the pair, each printed and
/// recorded in `row` when it answered.
#[allow(clippy::too_many_arguments)]
fn synth_pair(
    opts: &Options,
    tools: &Tools,
    concord: &Concord,
    dir: &Path,
    kloc: u32,
    old_bc: &Path,
    row: &mut SynthRow,
    tally: &mut Tally,
) {
    let patched =
        synth_kloc::generate_kloc_version(kloc, opts.starts, synth_kloc::Patch::LockRemoved);
    let src = dir.join(format!("synth-{kloc}k-v2.c"));
    let new_bc = src.with_extension("bc");
    let built = std::fs::write(&src, &patched.source)
        .map_err(|e| format!("writing {}: {e}", src.display()))
        .and_then(|()| {
            compile::compile_one(tools, &src, &new_bc)
                .map_err(|e| format!("{}:\n{}", e.step, indent(&head(&e.detail))))
        });
    if let Err(e) = built {
        println!("{:>5} patched version: BUILD FAILED {e}", "");
        tally.failed += 1;
        return;
    }
    let label = format!("{kloc}k..{kloc}k-v2");
    let mut runs: Vec<(String, f64, std::io::Result<Outcome>)> = Vec::new();
    for rank in 1..=3 {
        let target = if rank == 1 {
            RANK1_TARGET_S
        } else {
            DIFF_TARGET_S
        };
        runs.push((
            format!("diff rank {rank}"),
            target,
            concord.diff(old_bc, &new_bc, rank, true),
        ));
    }
    runs.push((
        "impact".to_string(),
        DIFF_TARGET_S,
        concord.impact(old_bc, &new_bc, true),
    ));
    for (command, target, run) in runs {
        pair_row(&label, &command, target, &run, tally);
        if let Ok(o) = &run {
            if o.exited_with(&[0, 1, 10]) {
                if command == "diff rank 1" {
                    row.may_rf = old_may_rf(&o.stdout);
                }
                row.pair.push((command, o.wall.as_secs_f64(), o.peak_mb()));
            }
        }
    }
}

/// The old version's MayRf count in a text diff report (`MayRf  old  new`).
fn old_may_rf(stdout: &str) -> Option<f64> {
    let line = stdout.lines().find(|l| l.starts_with("MayRf "))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Growth as a power law: per command, the exponent b of time ~ lines^b
/// (and of peak memory), fitted by least squares on the logarithms over
/// every size that answered. Linear is b = 1; linear-times-log over 1 to
/// 50 KLoC fits at most about 1.1. Beside it, b of time ~ MayRf^b: on a
/// program whose answer grows faster than its lines, work linear in the
/// answer shows there.
fn exponent_table(rows: &[SynthRow]) {
    let mut commands: Vec<&str> = Vec::new();
    for r in rows {
        for (c, _, _) in &r.pair {
            if !commands.contains(&c.as_str()) {
                commands.push(c);
            }
        }
    }
    if commands.is_empty() {
        return;
    }
    println!(
        "
Fitted growth exponents (time ~ lines^b, memory ~ lines^b; least squares on logs)"
    );
    let answers: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.lines as f64, r.may_rf?.max(1.0))))
        .collect();
    if answers.len() >= 2 {
        let b = slope(answers.iter().map(|&(l, a)| (l.ln(), a.ln())));
        println!("the answer (old MayRf edges) ~ lines^{b:.2}");
    }
    println!(
        "{:<12} {:>6} {:>10} {:>10} {:>14}  verdict (on lines)",
        "command", "sizes", "time b", "memory b", "time b (MayRf)"
    );
    for command in commands {
        let points: Vec<(f64, f64, f64)> = rows
            .iter()
            .filter_map(|r| {
                r.pair
                    .iter()
                    .find(|(c, _, _)| c == command)
                    .map(|&(_, s, mb)| (r.lines as f64, s.max(1e-3), mb.max(1.0)))
            })
            .collect();
        if points.len() < 2 {
            println!(
                "{command:<12} {:>6} {:>10} {:>10}  n/a: fewer than two sizes answered",
                points.len(),
                "",
                ""
            );
            continue;
        }
        let time_b = slope(points.iter().map(|p| (p.0.ln(), p.1.ln())));
        let memory_b = slope(points.iter().map(|p| (p.0.ln(), p.2.ln())));
        let by_answer: Vec<(f64, f64)> = rows
            .iter()
            .filter_map(|r| {
                let (_, s, _) = r.pair.iter().find(|(c, _, _)| c == command)?;
                Some((r.may_rf?.max(1.0).ln(), s.max(1e-3).ln()))
            })
            .collect();
        let answer_b = if by_answer.len() >= 2 {
            format!("{:.2}", slope(by_answer.into_iter()))
        } else {
            "n/a".to_string()
        };
        let v = if time_b <= 1.1 && memory_b <= 1.1 {
            "at most linear-times-log"
        } else {
            "SUPERLINEAR"
        };
        println!(
            "{command:<12} {:>6} {time_b:>10.2} {memory_b:>10.2} {answer_b:>14}  {v}",
            points.len()
        );
    }
}

/// Least-squares slope of y on x.
fn slope(points: impl Iterator<Item = (f64, f64)> + Clone) -> f64 {
    let n = points.clone().count() as f64;
    let (sx, sy) = points
        .clone()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (num, den) = points.fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

#[allow(clippy::too_many_arguments)]
fn synth_row(
    opts: &Options,
    tools: &Tools,
    concord: &Concord,
    dir: &Path,
    kloc: u32,
    program: &synth_kloc::SynthProgram,
    tally: &mut Tally,
    capped_at: &mut Option<(u32, End)>,
) -> SynthRow {
    let mut row = SynthRow {
        kloc,
        lines: program.lines,
        facts_s: None,
        cpu_s: None,
        pair: Vec::new(),
        may_rf: None,
    };
    let src = dir.join(format!("synth-{kloc}k.c"));
    let bc = src.with_extension("bc");
    if let Err(e) = std::fs::write(&src, &program.source) {
        println!("{kloc:>5} FAILED writing {}: {e}", src.display());
        tally.failed += 1;
        return row;
    }
    let clang = match compile::compile_one(tools, &src, &bc) {
        Ok(t) => t,
        Err(e) => {
            println!(
                "{kloc:>5} BUILD FAILED {}:\n{}",
                e.step,
                indent(&head(&e.detail))
            );
            tally.failed += 1;
            return row;
        }
    };
    let lead = format!(
        "{kloc:>5} {:>7} {:>7} {:>8.2}",
        program.lines,
        program.modules,
        clang.as_secs_f64()
    );
    let out = dir.join(format!("facts-{kloc}k"));
    let runs = match facts_runs(concord, &bc, &out, opts.repeats, true) {
        Ok(r) => r,
        Err(e) => {
            println!("{lead} FAILED: {e}");
            tally.failed += 1;
            return row;
        }
    };
    let secs = runs.best.as_secs_f64();
    let cpu = runs.best_cpu.as_secs_f64();
    if !runs.last.exited_with(&[0]) {
        println!(
            "{lead} {secs:>8.2} {cpu:>8.2} {:>8.0} {}",
            runs.peak_mb, runs.last.end
        );
        print_failure(&format!("facts {kloc} KLoC"), &runs.last);
        tally.failed += 1;
        // A larger program will not fit under the same cap.
        if matches!(runs.last.end, End::TimedOut | End::OverMemory) {
            *capped_at = Some((kloc, runs.last.end));
        }
        return row;
    }
    match read_counts(&out) {
        Ok(c) => {
            println!(
                "{lead} {secs:>8.2} {cpu:>8.2} {:>8.0} {:>7} {:>7} {:>10}",
                runs.peak_mb,
                c.statements,
                c.threads,
                unresolved(&c)
            );
            row.facts_s = Some(secs);
            row.cpu_s = Some(cpu);
            row.pair.push(("facts".to_string(), secs, runs.peak_mb));
            print_phases(&runs.last.stderr);
            synth_pair(opts, tools, concord, dir, kloc, &bc, &mut row, tally);
        }
        Err(e) => {
            println!("{lead} FAILED: facts written but unreadable: {e}");
            tally.failed += 1;
        }
    }
    row
}

/// time(n) / time(base) beside lines(n) / lines(base), base = the first
/// (smallest) size; growth is at most linear when the (wall) time ratio is
/// at most 1.2 times the size ratio. The CPU-time ratio is printed beside
/// it: on a loaded machine it is the steadier of the two.
fn ratio_table(rows: &[SynthRow]) {
    let Some(base) = rows.first() else {
        return;
    };
    println!(
        "\nGrowth against {} KLoC (linear: time ratio ≤ {LINEAR_SLACK} × size ratio)",
        base.kloc
    );
    println!(
        "{:>5} {:>10} {:>10} {:>12} {:>10} {:>12}  verdict (wall time)",
        "KLoC", "size ratio", "time ratio", "time / size", "cpu ratio", "cpu / size"
    );
    let (Some(base_s), Some(base_cpu)) = (base.facts_s, base.cpu_s) else {
        println!(
            "n/a: the {} KLoC run did not succeed, so no ratio can be formed",
            base.kloc
        );
        return;
    };
    for r in rows {
        let size_ratio = r.lines as f64 / base.lines as f64;
        match (r.facts_s, r.cpu_s) {
            (Some(s), Some(c)) => {
                let time_ratio = s / base_s;
                let cpu_ratio = c / base_cpu.max(1e-6);
                let per = time_ratio / size_ratio;
                let v = if per <= LINEAR_SLACK {
                    "at most linear"
                } else {
                    "SUPERLINEAR"
                };
                println!(
                    "{:>5} {size_ratio:>10.2} {time_ratio:>10.2} {per:>12.2} {cpu_ratio:>10.2} {:>12.2}  {v}",
                    r.kloc,
                    cpu_ratio / size_ratio
                );
            }
            _ => println!(
                "{:>5} {:>10} {:>10} {:>12} {:>10} {:>12}  n/a: no successful run",
                r.kloc, "", "", "", "", ""
            ),
        }
    }
}
