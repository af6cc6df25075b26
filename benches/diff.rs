//! Rule-pipeline benchmark. Prints measurements only; asserts nothing
//! except that Z3's answers are compared (and the comparison printed).
//!
//! 1. Bench pairs: per program version, the time to compile (clang-14 +
//!    opt-14 + llvm-ir load), to extract facts, and to evaluate each rule
//!    program (sync1, sync2, sync3; ascent, the production engine), best of
//!    R runs, with the tuple counts; then totals.
//! 2. Z3 (only when a `z3` binary is on PATH): the same facts and rules as
//!    a fixedpoint script (`z3 file.smt2`), wall time of the process, whether
//!    its answers equal ascent's, and the ratio z3/ascent measured in this run.
//! 3. Synthetic programs (see `synth/mod.rs`): T threads × N accesses × L
//!    locks, each size analysed in a child process (so that its peak memory,
//!    VmHWM, is its own), with a time and memory cap.
//!
//! 4. Real programs (see `nbds/`): nbds harnesses at rank 3, `concord diff`
//!    from source and from fact directories (wall time, peak memory, time
//!    of each phase), beside the previous implementation (`--reference`),
//!    Soufflé's interpreter and Z3 on the same facts and rules.
//!
//! Run: `cargo bench --bench diff` (all parts), or after `--`:
//! `--only-real`, `--no-real`, `--reference-timeout S` (default 60),
//! `--repeats R` (default 3), `--no-z3`, `--no-synth`, `--only-synth`,
//! `--timeout S` (per synthetic size, default 20), `--z3-timeout S`
//! (per z3 run, default 20), `--emit T N L` (print a
//! synthetic program's C source and exit).

#[path = "nbds/mod.rs"]
mod nbds;
#[path = "synth/mod.rs"]
mod synth;

use concord::analysis::{run, Engine, Relations, RuleProgram};
use concord::facts::extract::{extract, ExtractOptions};
use concord::facts::FactSet;
use concord::frontend::{load_program, CompileOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use synth::Size;

/// The synchronisation programs, rank 1 to 3 (`RuleProgram::ALL` also has
/// the change-impact program, which this benchmark does not cover).
const SYNC: [RuleProgram; 3] = [RuleProgram::Sync1, RuleProgram::Sync2, RuleProgram::Sync3];

// (mustHb itself is stored only by the `hb` program; hb_post is the
// execution-guarantee layer sync1 stores)
const COUNTED: [&str; 5] = ["hb_post", "rf_no", "rf_may", "rank2_may", "rank3_may"];

struct Options {
    repeats: usize,
    z3: bool,
    pairs: bool,
    synth: bool,
    timeout: Duration,
    z3_timeout: u64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| -> u32 {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("expected a number after {}", args[i - 1]))
    };
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let size = Size {
            threads: num(i + 1),
            accesses: num(i + 2),
            locks: num(i + 3),
        };
        child(size, num(i + 4));
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--emit") {
        print!(
            "{}",
            synth::generate(Size {
                threads: num(i + 1),
                accesses: num(i + 2),
                locks: num(i + 3),
            })
        );
        return;
    }
    let has = |f: &str| args.iter().any(|a| a == f);
    let value = |f: &str| {
        args.iter()
            .position(|a| a == f)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    if has("--only-real") {
        bench_real(value("--repeats").unwrap_or(3), &value);
        return;
    }
    let opts = Options {
        repeats: value("--repeats").unwrap_or(3).max(1) as usize,
        z3: !has("--no-z3") && !has("--only-synth"),
        pairs: !has("--only-synth"),
        synth: !has("--no-synth"),
        timeout: Duration::from_secs(value("--timeout").unwrap_or(20)),
        z3_timeout: value("--z3-timeout").unwrap_or(20),
    };
    println!(
        "concord diff benchmark — {} — {} cores — {}",
        machine_date(),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        if cfg!(debug_assertions) {
            "debug build"
        } else {
            "optimised build"
        }
    );
    let mut pair_facts = Vec::new();
    if opts.pairs {
        pair_facts = bench_pairs(&opts);
    }
    if opts.z3 {
        bench_z3(&pair_facts, opts.z3_timeout);
    }
    if opts.synth {
        bench_synth(&opts);
    }
    if opts.pairs && !has("--no-real") {
        bench_real(opts.repeats as u64, &value);
    }
}

fn bench_real(repeats: u64, value: &dyn Fn(&str) -> Option<u64>) {
    nbds::run::bench_real(&nbds::run::Settings {
        concord: PathBuf::from(env!("CARGO_BIN_EXE_concord")),
        repeats: repeats.max(1) as usize,
        reference_timeout: value("--reference-timeout").unwrap_or(60),
        reference_memory_mb: value("--reference-memory").unwrap_or(6000),
        z3_timeout: value("--z3-timeout").unwrap_or(20),
    });
}

fn machine_date() -> String {
    Command::new("date")
        .arg("-u")
        .arg("+%Y-%m-%d %H:%M UTC")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn best<T>(repeats: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..repeats {
        let t0 = Instant::now();
        let v = f();
        best = best.min(t0.elapsed());
        last = Some(v);
    }
    (best, last.unwrap())
}

// ------------------------------------------------------------------ 1. bench pairs

/// One analysed version: its label, facts, and per program the best ascent
/// time and the relations.
struct Measured {
    label: String,
    facts: FactSet,
    rules: Vec<(RuleProgram, Duration, Relations)>,
}

fn bench_pairs(opts: &Options) -> Vec<Measured> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cases: Vec<String> = std::fs::read_dir(root.join("bench-programs"))
        .expect("bench-programs/")
        .flatten()
        .filter(|e| e.path().join("v1.c").is_file())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    cases.sort();
    println!(
        "\n## Bench pairs: best of {} runs; rules on ascent; times in ms",
        opts.repeats
    );
    println!(
        "{:<36} {:>3} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>8} {:>9}",
        "program",
        "ver",
        "compile",
        "extract",
        "sync1",
        "sync2",
        "sync3",
        "hb_post",
        "rf_no",
        "rf_may",
        "rank2may",
        "rank3may"
    );
    let mut out = Vec::new();
    let mut total = [Duration::ZERO; 5];
    let mut total_counts = [0usize; 5];
    for case in &cases {
        for version in ["v1", "v2"] {
            let src = root
                .join("bench-programs")
                .join(case)
                .join(format!("{version}.c"));
            let (compile, program) = best(opts.repeats, || {
                load_program(&src, &CompileOptions::default()).expect("bench program compiles")
            });
            let (extract_t, facts) = best(opts.repeats, || {
                extract(&program, &ExtractOptions::default()).expect("bench program extracts")
            });
            let mut rules = Vec::new();
            for p in SYNC {
                let (t, r) = best(opts.repeats, || run(p, Engine::Ascent, &facts));
                rules.push((p, t, r));
            }
            let counts = counts(&rules);
            let times = [compile, extract_t, rules[0].1, rules[1].1, rules[2].1];
            for i in 0..5 {
                total[i] += times[i];
                total_counts[i] += counts[i];
            }
            println!(
                "{:<36} {:>3} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7} {:>7} {:>7} {:>8} {:>9}",
                case,
                version,
                ms(times[0]),
                ms(times[1]),
                ms(times[2]),
                ms(times[3]),
                ms(times[4]),
                counts[0],
                counts[1],
                counts[2],
                counts[3],
                counts[4]
            );
            out.push(Measured {
                label: format!("{case}/{version}"),
                facts,
                rules,
            });
        }
    }
    println!(
        "{:<36} {:>3} {:>8.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>7} {:>7} {:>7} {:>8} {:>9}",
        format!("total ({} programs)", out.len()),
        "",
        ms(total[0]),
        ms(total[1]),
        ms(total[2]),
        ms(total[3]),
        ms(total[4]),
        total_counts[0],
        total_counts[1],
        total_counts[2],
        total_counts[3],
        total_counts[4]
    );
    out
}

/// hb_post, rf_no, rf_may from sync1; rank2_may from sync2; rank3_may from sync3.
fn counts(rules: &[(RuleProgram, Duration, Relations)]) -> [usize; 5] {
    let get = |i: usize, name: &str| rules[i].2.get(name).map_or(0, |r| r.len());
    [
        get(0, COUNTED[0]),
        get(0, COUNTED[1]),
        get(0, COUNTED[2]),
        get(1, COUNTED[3]),
        get(2, COUNTED[4]),
    ]
}

// ------------------------------------------------------------------ 2. z3

fn z3_available() -> bool {
    Command::new("z3")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The script: the program's declarations and rules, every fact of a
/// relation the program declares, one query per output relation.
fn z3_script(program: RuleProgram, facts: &FactSet) -> String {
    let mut s = program.z3().to_string();
    for (name, rows) in &facts.relations {
        if s.contains(&format!("(declare-rel {name} ")) {
            let rows: Vec<Vec<u32>> = rows.iter().map(<[u32]>::to_vec).collect();
            s.push_str(&concord_rulec::z3_facts(name, &rows));
        }
    }
    for (name, _) in program.outputs() {
        s.push_str(&format!("(query {name} :print-answer true)\n"));
    }
    s
}

/// Rows of each answer (`sat` followed by a formula, or `unsat`), in query order.
fn z3_answers(stdout: &str, outputs: &[(&str, &[&str])]) -> Option<Relations> {
    let mut answers: Vec<String> = Vec::new();
    for line in stdout.lines() {
        let line = line.trim_end();
        if line == "sat" || line == "unsat" {
            answers.push(String::new());
        }
        if line != "sat" {
            answers.last_mut()?.push_str(line);
        }
    }
    if answers.len() != outputs.len() {
        return None;
    }
    let mut rel = Relations::new();
    for ((name, columns), ans) in outputs.iter().zip(&answers) {
        let arity = columns.len();
        let rows: BTreeSet<Vec<u32>> = if ans.starts_with("unsat") {
            BTreeSet::new()
        } else {
            let vals: Vec<u32> = ans
                .split("#x")
                .skip(1)
                .map(|t| u32::from_str_radix(t.get(..8)?, 16).ok())
                .collect::<Option<_>>()?;
            vals.chunks(arity).map(|c| c.to_vec()).collect()
        };
        rel.insert(name.to_string(), rows);
    }
    Some(rel)
}

/// Wall time, stdout, and whether z3 finished in time with success.
fn run_z3(script: &str, dir: &Path, name: &str, timeout_s: u64) -> (Duration, String, Z3Status) {
    let path = dir.join(format!("{name}.smt2"));
    std::fs::write(&path, script).expect("write z3 script");
    let t0 = Instant::now();
    let out = Command::new("z3")
        .arg(format!("-T:{timeout_s}"))
        .arg(&path)
        .output()
        .expect("run z3");
    let t = t0.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let status = if stdout.lines().any(|l| l.trim() == "timeout") || t.as_secs() >= timeout_s {
        Z3Status::Timeout
    } else if out.status.success() && !stdout.contains("(error") {
        Z3Status::Done
    } else {
        Z3Status::Error
    };
    (t, stdout, status)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Z3Status {
    Done,
    Timeout,
    Error,
}

fn bench_z3(measured: &[Measured], timeout_s: u64) {
    println!("\n## Z3 fixedpoint engine (`z3 file.smt2`, wall time of the process, ms)");
    if !z3_available() {
        println!("z3 not on PATH: skipped (apt-get install -y z3 to include it)");
        return;
    }
    let version = Command::new("z3")
        .arg("-version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let dir = tempfile::tempdir().expect("temp dir");
    // start-up: best of 3 runs of an empty script (the first run is often cold)
    let startup = (0..3)
        .map(|_| run_z3("(check-sat)\n", dir.path(), "empty", timeout_s).0)
        .min()
        .unwrap();
    println!(
        "{version}; process start-up (empty script, best of 3): {:.1} ms, included in every z3 time; \
         z3 time limit {timeout_s} s per run (-T), runs over it are left out of the totals",
        ms(startup)
    );
    println!(
        "{:<36} {:>3} {:>6} {:>9} {:>9} {:>8} {:>7}",
        "program", "ver", "rules", "z3", "ascent", "z3/asc", "agree"
    );
    // per program: z3 time, ascent time, runs finished, agreeing, timeouts
    let mut totals: BTreeMap<RuleProgram, (Duration, Duration, usize, usize, usize)> =
        BTreeMap::new();
    for m in measured {
        for (p, t_ascent, rel) in &m.rules {
            let script = z3_script(*p, &m.facts);
            let (t_z3, stdout, status) = run_z3(&script, dir.path(), "run", timeout_s);
            let answer = if status == Z3Status::Done {
                z3_answers(&stdout, p.outputs())
            } else {
                None
            };
            let agree = answer.as_ref() == Some(rel);
            let e = totals.entry(*p).or_default();
            if status == Z3Status::Timeout {
                e.4 += 1;
            } else {
                e.0 += t_z3;
                e.1 += *t_ascent;
                e.2 += 1;
                e.3 += agree as usize;
            }
            let (case, ver) = m.label.split_once('/').unwrap();
            println!(
                "{:<36} {:>3} {:>6} {:>9.1} {:>9.3} {:>8.0} {:>7}",
                case,
                ver,
                p.name(),
                ms(t_z3),
                ms(*t_ascent),
                t_z3.as_secs_f64() / t_ascent.as_secs_f64(),
                match (status, agree) {
                    (Z3Status::Done, true) => "yes",
                    (Z3Status::Done, false) => "NO",
                    (Z3Status::Timeout, _) => "timeout",
                    (Z3Status::Error, _) => "error",
                }
            );
        }
    }
    for (p, (z, a, n, agree, timeouts)) in totals {
        println!(
            "total {}: {n} programs finished in z3 ({timeouts} over the limit), z3 {:.1} ms, \
             ascent {:.2} ms on the same {n}, ratio z3/ascent {:.0}; z3 agrees with ascent on {agree}/{n}",
            p.name(),
            ms(z),
            ms(a),
            z.as_secs_f64() / a.as_secs_f64()
        );
    }
}

// ------------------------------------------------------------------ 3. synthetic programs

fn vm_hwm_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn vm_rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// Child process: analyse one synthetic size up to `max_rank`, printing one
/// `phase key=value...` line per finished phase.
fn child(size: Size, max_rank: u32) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path: PathBuf = dir.path().join(format!("synth-{size}.c"));
    std::fs::write(&path, synth::generate(size)).expect("write source");
    let t0 = Instant::now();
    let program = load_program(&path, &CompileOptions::default()).expect("synthetic compiles");
    println!("compile ms={:.3} hwm={}", ms(t0.elapsed()), vm_hwm_kb());
    let t0 = Instant::now();
    let facts = extract(&program, &ExtractOptions::default()).expect("synthetic extracts");
    let events: BTreeSet<u32> = ["shared_read", "shared_write"]
        .iter()
        .flat_map(|r| facts.rows(r).map(|row| row[0]))
        .collect();
    println!(
        "extract ms={:.3} hwm={} stmts={} events={}",
        ms(t0.elapsed()),
        vm_hwm_kb(),
        facts.statements.len(),
        events.len()
    );
    drop(program);
    for p in SYNC.into_iter().take(max_rank as usize) {
        let t0 = Instant::now();
        let r = run(p, Engine::Ascent, &facts);
        let t = t0.elapsed();
        let mut line = format!("{} ms={:.3} hwm={}", p.name(), ms(t), vm_hwm_kb());
        for name in COUNTED {
            if let Some(rows) = r.get(name) {
                line.push_str(&format!(" {name}={}", rows.len()));
            }
        }
        println!("{line}");
    }
}

#[derive(Default, Debug)]
struct SynthResult {
    phases: BTreeMap<String, BTreeMap<String, f64>>,
    /// why the child stopped early, if it did
    stopped: Option<String>,
}

impl SynthResult {
    fn get(&self, phase: &str, key: &str) -> Option<f64> {
        self.phases.get(phase)?.get(key).copied()
    }
    fn ms(&self, phase: &str) -> Option<f64> {
        self.get(phase, "ms")
    }
    fn hwm_mb(&self) -> f64 {
        self.phases
            .values()
            .filter_map(|p| p.get("hwm"))
            .fold(0.0, |a: f64, b| a.max(*b))
            / 1024.0
    }
}

const MEMORY_CAP_KB: u64 = 3 * 1024 * 1024;

fn run_child(size: Size, max_rank: u32, timeout: Duration) -> SynthResult {
    let exe = std::env::current_exe().expect("current exe");
    let mut child = Command::new(exe)
        .arg("--child")
        .args([size.threads, size.accesses, size.locks, max_rank].map(|n| n.to_string()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn child");
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let t0 = Instant::now();
    let mut stopped = None;
    loop {
        if let Some(status) = child.try_wait().expect("wait child") {
            if !status.success() {
                stopped = Some(format!("child failed: {status}"));
            }
            break;
        }
        if t0.elapsed() > timeout {
            stopped = Some(format!("timeout {} s", timeout.as_secs()));
        } else if vm_rss_kb(child.id()) > MEMORY_CAP_KB {
            stopped = Some(format!("memory cap {} GB", MEMORY_CAP_KB >> 20));
        }
        if stopped.is_some() {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let lines = reader.join().unwrap_or_default();
    let mut res = SynthResult {
        stopped,
        ..Default::default()
    };
    for line in lines {
        let mut words = line.split_whitespace();
        let Some(phase) = words.next() else { continue };
        let kv = words
            .filter_map(|w| w.split_once('='))
            .filter_map(|(k, v)| Some((k.to_string(), v.parse::<f64>().ok()?)))
            .collect();
        res.phases.insert(phase.to_string(), kv);
    }
    res
}

fn bench_synth(opts: &Options) {
    let sz = |threads, accesses, locks| Size {
        threads,
        accesses,
        locks,
    };
    let sweeps: Vec<(&str, Vec<Size>)> = vec![
        ("threads", [2, 4, 8, 16, 32].map(|t| sz(t, 16, 2)).to_vec()),
        (
            "accesses",
            [8, 16, 32, 64, 128, 256].map(|n| sz(2, n, 2)).to_vec(),
        ),
        ("locks", [0, 1, 2, 4, 8, 16].map(|l| sz(4, 32, l)).to_vec()),
        (
            "all",
            vec![
                sz(2, 8, 1),
                sz(4, 16, 2),
                sz(8, 32, 4),
                sz(16, 64, 8),
                sz(32, 128, 16),
            ],
        ),
    ];
    println!(
        "\n## Synthetic programs: T threads x N accesses x L locks, one child process per size \
         (cap {} s, {} GB); times in ms; rules on ascent; peak = VmHWM of the child",
        opts.timeout.as_secs(),
        MEMORY_CAP_KB >> 20
    );
    println!(
        "{:<8} {:<14} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9} {:>7} {:>8} {:>9} {:>7}  note",
        "sweep",
        "size",
        "stmts",
        "events",
        "compile",
        "extract",
        "sync1",
        "sync2",
        "sync3",
        "rf_may",
        "rank2may",
        "rank3may",
        "peakMB"
    );
    // per rank k: the largest T*N whose extraction + syncK (the program that
    // derives everything up to rank k) finished under 1 s; and the same with
    // the clang-14/opt-14 front end included
    let mut under_1s: [Option<(u32, Size, f64)>; 3] = [None; 3];
    let mut under_1s_e2e: [Option<(u32, Size, f64)>; 3] = [None; 3];
    for (sweep, sizes) in sweeps {
        let mut max_rank = 3;
        for size in sizes {
            if max_rank == 0 {
                println!(
                    "{:<8} {:<14} skipped: a smaller size of this sweep did not finish rank 1 within the cap",
                    sweep,
                    size.to_string()
                );
                continue;
            }
            let r = run_child(size, max_rank, opts.timeout);
            let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
            let c = |phase: &str, key: &str| {
                r.get(phase, key)
                    .map_or("-".to_string(), |v| format!("{v:.0}"))
            };
            let mut note = r.stopped.clone().unwrap_or_default();
            if max_rank < 3 && note.is_empty() {
                note = format!(
                    "rank {} and up not run: a smaller size of this sweep did not finish it within the cap",
                    max_rank + 1
                );
            }
            println!(
                "{:<8} {:<14} {:>6} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9} {:>7} {:>8} {:>9} {:>7.0}  {}",
                sweep,
                size.to_string(),
                c("extract", "stmts"),
                c("extract", "events"),
                f(r.ms("compile")),
                f(r.ms("extract")),
                f(r.ms("sync1")),
                f(r.ms("sync2")),
                f(r.ms("sync3")),
                c("sync1", "rf_may"),
                c("sync2", "rank2_may"),
                c("sync3", "rank3_may"),
                r.hwm_mb(),
                note
            );
            let work = size.threads * size.accesses;
            for (k, phase) in ["sync1", "sync2", "sync3"].into_iter().enumerate() {
                let (Some(e), Some(rules), Some(front)) =
                    (r.ms("extract"), r.ms(phase), r.ms("compile"))
                else {
                    continue;
                };
                let t = e + rules;
                if t < 1000.0 && !matches!(under_1s[k], Some((w, _, _)) if w >= work) {
                    under_1s[k] = Some((work, size, t));
                }
                if t + front < 1000.0 && !matches!(under_1s_e2e[k], Some((w, _, _)) if w >= work) {
                    under_1s_e2e[k] = Some((work, size, t + front));
                }
            }
            // a rank that did not finish is skipped for the larger sizes of this sweep
            for (rank, phase) in [(1, "sync1"), (2, "sync2"), (3, "sync3")] {
                if max_rank >= rank && r.ms(phase).is_none() {
                    max_rank = rank - 1;
                }
            }
        }
    }
    for k in 0..3 {
        let show = |x: Option<(u32, Size, f64)>| match x {
            Some((work, size, t)) => format!("{size} = {work} accesses ({t:.0} ms)"),
            None => "none".to_string(),
        };
        println!(
            "largest size analysed under 1 s up to rank {}: extraction + sync{}: {}; with the front end: {}",
            k + 1,
            k + 1,
            show(under_1s[k]),
            show(under_1s_e2e[k])
        );
    }
}
