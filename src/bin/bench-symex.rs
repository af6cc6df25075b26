//! Table-2-style benchmark of `concord symex` over `symex-programs/`.
//!
//! `bench-symex [--baseline BIN] [--modes none,dpor,...] [--repeat N] [PROGRAM...]`
//! prints, per program and reduction mode, the runs, partial runs, solver
//! queries, time, runs/s and peak memory of this build.  With a baseline
//! (a `bench-symex` binary built from an older commit; default
//! `target/baseline/bench-symex` when it exists) each program is also run
//! by the baseline in the same session, right before this build, and its
//! runs/s and the speed-up are printed beside ours.  `--repeat N` explores
//! each program and mode N times and reports the median time (the
//! baseline is run N times too, and its median run per mode is shown).
//!
//! `bench-symex --needles [PROGRAM...]` runs `symex-programs/needle.c` and
//! `symex-programs/needles/*.c` (or the programs given) with the default
//! settings of `concord symex` and a 60 s budget, and prints the time to
//! the first violation (issue 29: found within 60 s).
//!
//! `bench-symex --diff-pairs` instead prints, for every pair of
//! `symex-programs/pairs/`, the runs of diff-directed `symex OLD NEW`
//! beside those of a full `symex NEW` (default `dpor+ag`, and `dpor`, the
//! directed run's strategy), with the verdicts and whether the guarantee
//! was claimed. OLD's runs are printed apart (its exploration for the
//! verdict, plus the exploration of its violating classes when a fix is
//! carried over); NEW's runs include the replays of OLD's test cases.
use concord::symex::{explore, testutil, Reduction, SymexOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One measurement of one mode.
#[derive(Clone, Debug)]
struct Row {
    runs: String,
    partial: u64,
    queries: u64,
    secs: f64,
    rate: f64,
    mem_mb: f64,
}

// The allocator of the `concord` binary, so the rates are what users get.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if args.iter().any(|a| a == "--diff-pairs") {
        diff_pairs(&root);
        return;
    }
    if args.first().is_some_and(|a| a == "--needles") {
        needles(&root, &args[1..]);
        return;
    }
    let mut baseline: Option<PathBuf> =
        Some(root.join("target/baseline/bench-symex")).filter(|p| p.exists());
    let mut modes = vec![
        Reduction::None,
        Reduction::Dpor,
        Reduction::DporAg,
        Reduction::Odpor,
        Reduction::OdporAg,
    ];
    let mut progs_args = Vec::new();
    // Runs of each program and mode; the median time is reported.
    let mut repeat: usize = 1;
    while !args.is_empty() {
        let a = args.remove(0);
        match a.as_str() {
            "--baseline" => baseline = Some(PathBuf::from(args.remove(0))),
            "--no-baseline" => baseline = None,
            "--repeat" => repeat = args.remove(0).parse().expect("--repeat N"),
            "--modes" => {
                modes = args
                    .remove(0)
                    .split(',')
                    .map(|m| m.parse().expect("mode"))
                    .collect()
            }
            _ => progs_args.push(a),
        }
    }
    let dir = root.join("symex-programs");
    let mut progs: Vec<PathBuf> = if progs_args.is_empty() {
        std::fs::read_dir(&dir)
            .expect("symex-programs")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map(|x| x == "c").unwrap_or(false))
            .collect()
    } else {
        progs_args
            .iter()
            .map(|a| {
                if a.ends_with(".c") {
                    PathBuf::from(a)
                } else {
                    dir.join(format!("{a}.c"))
                }
            })
            .collect()
    };
    progs.sort();
    match &baseline {
        Some(b) => println!("baseline: {} (run in this session)", b.display()),
        None => println!("baseline: none (build one into target/baseline/bench-symex)"),
    }
    println!(
        "{:<16} {:<8} | {:>7} {:>5} {:>7} {:>8} {:>9} {:>7} | {:>7} {:>9} {:>8}",
        "program",
        "mode",
        "runs",
        "part",
        "queries",
        "time(s)",
        "runs/s",
        "mem(MB)",
        "b.runs",
        "b.runs/s",
        "speed-up"
    );
    // Speed-ups per mode, split by whether the program is concrete (no
    // solver query in any mode).
    let mut ups: BTreeMap<(String, bool), Vec<f64>> = BTreeMap::new();
    for p in progs {
        let m = match testutil::load(&p) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{}: {e}", p.display());
                continue;
            }
        };
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let base = baseline
            .as_deref()
            .map(|b| run_baseline_median(b, &p, repeat));
        // Programs may ask for a smaller loop bound (`// bound: N`).
        let bound: u32 = std::fs::read_to_string(&p)
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    l.strip_prefix("// bound: ")
                        .and_then(|b| b.split_whitespace().next()?.parse().ok())
                })
            })
            .unwrap_or(3);
        let mut rows = Vec::new();
        for &r in &modes {
            let o = SymexOptions {
                reduction: r,
                loop_bound: bound,
                max_seconds: Some(60.0),
                ..Default::default()
            };
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..repeat.max(1) {
                match explore(&m, &o) {
                    Ok(x) => {
                        times.push(x.stats.total_ms / 1000.0);
                        last = Some(Ok(x));
                    }
                    Err(e) => {
                        last = Some(Err(e));
                        break;
                    }
                }
            }
            times.sort_by(f64::total_cmp);
            match last.expect("at least one run") {
                Ok(x) => {
                    let s = &x.stats;
                    let secs = times[times.len() / 2];
                    rows.push((
                        r,
                        Row {
                            runs: format!("{}{}", s.runs(), if s.incomplete { "+" } else { "" }),
                            partial: s.partial_runs,
                            queries: s.solver_queries,
                            secs,
                            rate: (s.runs() + s.partial_runs) as f64 / secs.max(1e-6),
                            mem_mb: s.peak_memory_kb as f64 / 1024.0,
                        },
                    ));
                }
                Err(e) => println!("{name:<16} {r:<8} | error: {e}"),
            }
        }
        let concrete = rows.iter().all(|(_, r)| r.queries == 0);
        for (r, row) in &rows {
            let b = base.as_ref().and_then(|b| b.get(&r.to_string()));
            let (bruns, brate, up) = match b {
                Some(b) => {
                    let up = row.rate / b.rate.max(1e-9);
                    ups.entry((r.to_string(), concrete)).or_default().push(up);
                    (
                        b.runs.clone(),
                        format!("{:.0}", b.rate),
                        format!("{up:.1}x"),
                    )
                }
                None => ("-".into(), "-".into(), "-".into()),
            };
            println!(
                "{:<16} {:<8} | {:>7} {:>5} {:>7} {:>8.3} {:>9.0} {:>7.1} | {:>7} {:>9} {:>8}",
                name,
                r.to_string(),
                row.runs,
                row.partial,
                row.queries,
                row.secs,
                row.rate,
                row.mem_mb,
                bruns,
                brate,
                up
            );
        }
        if let Some(paper) = paper_counts(&name) {
            println!("{name:<16} paper    | runs {paper}");
        }
    }
    if !ups.is_empty() {
        println!("\ngeometric mean speed-up of runs/s over the baseline:");
        for ((mode, concrete), v) in &ups {
            let g = (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
            let min = v.iter().cloned().fold(f64::INFINITY, f64::min);
            println!(
                "  {mode:<8} {} programs ({}): {g:.1}x (lowest {min:.1}x)",
                v.len(),
                if *concrete {
                    "concrete: no solver query"
                } else {
                    "symbolic"
                }
            );
        }
    }
    println!(
        "\nruns/s = (runs + partial runs) / time; `+` = stopped by the 60 s limit.  \
         paper rows: runs reported by the assertion-guided paper for the same figure \
         (none / dpor / dpor+ag); docs/symex.md explains each difference."
    );
}

/// Run the baseline `repeat` times on one program; per mode, the run with
/// the median time (as this build's rows: one run of a program that takes
/// a millisecond is mostly noise).
fn run_baseline_median(bin: &Path, prog: &Path, repeat: usize) -> BTreeMap<String, Row> {
    let mut samples: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for _ in 0..repeat.max(1) {
        for (mode, row) in run_baseline(bin, prog) {
            samples.entry(mode).or_default().push(row);
        }
    }
    samples
        .into_iter()
        .map(|(mode, mut rows)| {
            rows.sort_by(|a, b| a.secs.total_cmp(&b.secs));
            let mid = rows.len() / 2;
            (mode, rows.swap_remove(mid))
        })
        .collect()
}

/// Run the baseline `bench-symex` on one program and read its table, in
/// any of the formats it had: one line per program and mode (`program
/// mode | runs part queries time runs/s mem | ...`), or one line per
/// program with a group per mode (none, dpor, dpor+ag) of `runs part
/// queries time runs/s mem`, or, before runs/s was printed, `runs part
/// queries time mem` (runs/s is then computed from the runs and time).
fn run_baseline(bin: &Path, prog: &Path) -> BTreeMap<String, Row> {
    let mut out = BTreeMap::new();
    let res = std::process::Command::new(bin).arg(prog).output();
    let Ok(res) = res else {
        return out;
    };
    let stem = prog.file_stem().unwrap().to_string_lossy().to_string();
    let text = String::from_utf8_lossy(&res.stdout);
    let num = |s: &str| s.trim_end_matches(['+', 'x']).parse::<f64>().unwrap_or(0.0);
    let row = |f: &[&str]| -> Option<Row> {
        let (runs, partial, queries, secs) = (f[0], num(f[1]), num(f[2]), num(f[3]));
        match f.len() {
            5 => Some(Row {
                runs: runs.to_string(),
                partial: partial as u64,
                queries: queries as u64,
                secs,
                rate: (num(runs) + partial) / secs.max(1e-3),
                mem_mb: num(f[4]),
            }),
            n if n >= 6 => Some(Row {
                runs: runs.to_string(),
                partial: partial as u64,
                queries: queries as u64,
                secs,
                rate: num(f[4]),
                mem_mb: num(f[5]),
            }),
            _ => None,
        }
    };
    for line in text.lines() {
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        let head: Vec<&str> = cols
            .first()
            .map(|c| c.split_whitespace().collect())
            .unwrap_or_default();
        if head.first() != Some(&stem.as_str()) || cols.len() < 2 {
            continue;
        }
        if head.len() == 2 {
            let f: Vec<&str> = cols[1].split_whitespace().collect();
            if let Some(r) = row(&f) {
                out.insert(head[1].to_string(), r);
            }
            continue;
        }
        for (k, mode) in ["none", "dpor", "dpor+ag"].iter().enumerate() {
            let Some(c) = cols.get(k + 1) else { break };
            let f: Vec<&str> = c.split_whitespace().collect();
            if let Some(r) = row(&f) {
                out.insert(mode.to_string(), r);
            }
        }
    }
    out
}

/// The assertion-guided paper's run counts for its figures (none / dpor / dpor+ag).
fn paper_counts(program: &str) -> Option<String> {
    match program {
        "fig2" => Some("6 / - / 1 + 4 partial".into()),
        "fig4" => Some("54 / 34 / 13".into()),
        p => {
            let k: u32 = p.strip_prefix("fig3_k")?.parse().ok()?;
            Some(format!("{} / - / {} (k+1)", 1u64 << k, k + 1))
        }
    }
}

/// `--diff-pairs`: directed `OLD NEW` against full `NEW`, per pair.
fn diff_pairs(root: &Path) {
    use concord::pipeline::symex::{self as pipeline, StoreChoice, SymexRequest};
    let run = |old: &Path, new: Option<&Path>, reduction: Reduction, diff: bool| {
        let dir = tempfile::tempdir().expect("temporary directory");
        let req = SymexRequest {
            program: old.to_path_buf(),
            new: new.map(Path::to_path_buf),
            compile: Default::default(),
            options: SymexOptions {
                reduction,
                loop_bound: 2,
                max_loop_bound: None,
                ..Default::default()
            },
            program_args: vec![],
            output_dir: Some(dir.path().join("out")),
            store: StoreChoice::None,
            max_interferences: None,
            directed: false,
            diff_directed: diff,
            diff_rank: concord::symex::diff_directed::DEFAULT_RANK,
        };
        let t = std::time::Instant::now();
        let o = pipeline::symex(&req, &mut |_| {}).expect("symex");
        (o, t.elapsed().as_secs_f64())
    };
    let runs = |s: &concord::symex::Stats| s.runs() + s.partial_runs;
    let mut names: Vec<PathBuf> = std::fs::read_dir(root.join("symex-programs/pairs"))
        .expect("symex-programs/pairs")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("old.c").is_file())
        .collect();
    names.sort();
    // OLD runs: its exploration for the verdict + (carry-over of a fix)
    // the exploration of its violating classes; NEW runs of the directed
    // answer include the replays of OLD's test cases on NEW.
    println!(
        "{:<24} | {:>9} | {:>12} {:>7} {:>8} {:>7} {:>8} | {:>10} {:>8} | {:>9} | {:>7} {:>6}",
        "pair",
        "OLD runs",
        "NEW runs",
        "replays",
        "targets",
        "claimed",
        "time(s)",
        "full ag",
        "time(s)",
        "full dpor",
        "verdict",
        "same"
    );
    for p in names {
        let (old, new) = (p.join("old.c"), p.join("new.c"));
        let (d, dt) = run(&old, Some(&new), Reduction::DporAg, true);
        let (f, ft) = run(&new, None, Reduction::DporAg, false);
        let (fd, _) = run(&new, None, Reduction::Dpor, false);
        let inc = d.incremental.as_ref().expect("OLD NEW");
        let (claimed, targets, new_runs, replays) = match &inc.diff {
            Some(o) => (
                o.claimed,
                o.target_runs,
                if o.claimed {
                    o.all_new_runs()
                } else {
                    runs(&inc.new_stats) + o.new_replays
                },
                o.new_replays,
            ),
            None => (false, 0, runs(&inc.new_stats), 0),
        };
        let old_runs = match &inc.diff {
            Some(o) => match &o.carry_over {
                Some(c) => format!("{}+{}", o.old_runs, c.old_class_runs),
                None => o.old_runs.to_string(),
            },
            None => inc.stats.old_runs.to_string(),
        };
        println!(
            "{:<24} | {:>9} | {:>12} {:>7} {:>8} {:>7} {:>8.2} | {:>10} {:>8.2} | {:>9} | {:>7} {:>6}",
            p.file_name().unwrap().to_string_lossy(),
            old_runs,
            new_runs,
            replays,
            targets,
            claimed,
            dt,
            runs(&f.exploration.stats),
            ft,
            runs(&fd.exploration.stats),
            d.exploration.stats.verdict.to_string(),
            d.exploration.stats.verdict == f.exploration.stats.verdict
        );
    }
}

/// Time to the first violation of each needle under the default settings
/// (`dpor+ag`, deepening to 24) within 60 s.
fn needles(root: &Path, given: &[String]) {
    let mut progs: Vec<PathBuf> = given.iter().map(PathBuf::from).collect();
    if progs.is_empty() {
        progs.push(root.join("symex-programs/needle.c"));
        let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("symex-programs/needles"))
            .expect("symex-programs/needles")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        more.sort();
        progs.extend(more);
    }
    println!(
        "{:<28} {:>16} {:>10} {:>12} {:>10}",
        "program", "first violation", "runs", "time(s)", "verdict"
    );
    for p in progs {
        let m = testutil::load(&p).expect("program");
        let o = SymexOptions {
            max_loop_bound: Some(24),
            max_seconds: Some(60.0),
            ..Default::default()
        };
        let t = std::time::Instant::now();
        let mut first: Option<f64> = None;
        let x = concord::symex::explore_with(&m, &o, &mut |f, _| {
            if f.kind.is_violation() && first.is_none() {
                first = Some(t.elapsed().as_secs_f64());
            }
        })
        .expect("symex");
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        println!(
            "{:<28} {:>16} {:>10} {:>12.2} {:>10}",
            name,
            first.map_or("not found".to_string(), |s| format!("{s:.2} s")),
            x.stats.runs() + x.stats.partial_runs,
            t.elapsed().as_secs_f64(),
            x.stats.verdict.to_string(),
        );
    }
    println!("\nDefault settings, 60 s budget; the exploration goes on after the first violation until it ends or the budget runs out.");
}
