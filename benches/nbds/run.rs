//! The "real programs" section of the diff benchmark: `concord diff` at
//! rank 3 on nbds harnesses, beside the previous implementation
//! (`concord diff --reference`), Soufflé's interpreter on the same facts and
//! the same rules (`concord rules --emit souffle --program diff2`, then
//! `diff3` on diff2's MayRf, as concord chains them), and
//! Z3's fixedpoint engine on the rank-2 program (`diff2`).
//!
//! Every measured run is a child process under `/usr/bin/time -f "%e %M"`
//! (wall seconds, peak resident KB), so each peak memory is its own.

use super::{bundle, Clone, Map};
use concord::analysis::DiffProgram;
use concord::facts::FactSet;
use concord::versions::{match_versions, Version};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub struct Settings {
    pub concord: PathBuf,
    pub repeats: usize,
    /// Limits for the previous implementation (it needs minutes and GBs).
    pub reference_timeout: u64,
    pub reference_memory_mb: u64,
    pub z3_timeout: u64,
}

/// (map, old commit, new commit, target seconds, target MB) — targets of issue 13.
const CASES: &[(Map, &str, &str, f64, f64)] = &[
    (Map::List, "7d658a0", "778b8c8", 2.0, 300.0),
    (Map::Skiplist, "2b10765", "2b10765", 5.0, 1024.0),
];

/// One child process: wall time, peak memory, exit code, stdout.
struct Run {
    wall: Duration,
    peak_mb: f64,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn measure(program: &Path, args: &[&str], cwd: &Path) -> Run {
    let stats = cwd.join("time.out");
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%e %M")
        .arg("-o")
        .arg(&stats)
        .arg(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run /usr/bin/time");
    let text = std::fs::read_to_string(&stats).unwrap_or_default();
    // the last line holds the figures (a killed child adds a line before)
    let last = text.lines().last().unwrap_or("");
    let mut f = last
        .split_whitespace()
        .map(|v| v.parse::<f64>().unwrap_or(f64::NAN));
    let wall = f.next().unwrap_or(f64::NAN);
    let kb = f.next().unwrap_or(f64::NAN);
    Run {
        wall: Duration::from_secs_f64(if wall.is_finite() { wall } else { 0.0 }),
        peak_mb: kb / 1024.0,
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Best (by wall time) of `repeats` runs.
fn best_of(repeats: usize, mut run: impl FnMut() -> Run) -> Run {
    let mut best: Option<Run> = None;
    for _ in 0..repeats.max(1) {
        let r = run();
        if best.as_ref().map_or(true, |b| r.wall < b.wall) {
            best = Some(r);
        }
    }
    best.expect("one run")
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn phases(json: &Value) -> String {
    let Some(t) = json["timing_ms"].as_object() else {
        return String::new();
    };
    t.iter()
        .map(|(k, v)| format!("{k} {:.0}", v.as_f64().unwrap_or(0.0)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn summary(json: &Value) -> String {
    let diffs = json["differences"].as_array().map_or(0, |a| a.len());
    format!(
        "first rank {}, ranks checked {}, {diffs} differences",
        json["first_rank"], json["ranks_checked"]
    )
}

/// A fact directory for the two-version programs: `old_<relation>.facts`,
/// `new_<relation>.facts`, `dmap.facts` and `lmap.facts`.
fn combined_facts(
    old: &Path,
    new: &Path,
    dmap: &BTreeMap<u32, u32>,
    lmap: &[(u32, u32)],
    out: &Path,
) {
    std::fs::create_dir_all(out).unwrap();
    for (dir, prefix) in [(old, "old_"), (new, "new_")] {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            if name.ends_with(".facts") {
                std::fs::copy(e.path(), out.join(format!("{prefix}{name}"))).unwrap();
            }
        }
    }
    let rows: String = dmap.iter().map(|(o, n)| format!("{o}\t{n}\n")).collect();
    std::fs::write(out.join("dmap.facts"), rows).unwrap();
    let rows: String = lmap.iter().map(|(o, n)| format!("{o}\t{n}\n")).collect();
    std::fs::write(out.join("lmap.facts"), rows).unwrap();
}

/// The rank-2 diff program (both versions' hb, rf and rank-2 layers) with
/// every fact; Z3 is too slow to chain into the rank-3 program as well.
fn z3_script(old: &FactSet, new: &FactSet, dmap: &BTreeMap<u32, u32>) -> String {
    let mut s = DiffProgram::Diff2.z3().to_string();
    for (facts, prefix) in [(old, "old_"), (new, "new_")] {
        for (name, rows) in &facts.relations {
            let rel = format!("{prefix}{name}");
            if s.contains(&format!("(declare-rel {rel} ")) {
                let rows: Vec<Vec<u32>> = rows.iter().map(<[u32]>::to_vec).collect();
                s.push_str(&concord_rulec::z3_facts(&rel, &rows));
            }
        }
    }
    let rows: Vec<Vec<u32>> = dmap.iter().map(|(&o, &n)| vec![o, n]).collect();
    s.push_str(&concord_rulec::z3_facts("dmap", &rows));
    let rows: Vec<Vec<u32>> = concord::analysis::diff::location_map(old, new)
        .into_iter()
        .map(|(o, n)| vec![o, n])
        .collect();
    s.push_str(&concord_rulec::z3_facts("lmap", &rows));
    s.push_str("(query diff2_old :print-answer true)\n(query diff2_new :print-answer true)\n");
    s
}

fn z3_on_path() -> bool {
    Command::new("z3")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn souffle() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/souffle/souffle");
    p.is_file().then_some(p)
}

fn lines(path: &Path) -> Option<usize> {
    std::fs::read_to_string(path)
        .ok()
        .map(|t| t.lines().count())
}

pub fn bench_real(s: &Settings) {
    println!(
        "\n## Real programs: nbds harnesses (benches/nbds), `concord diff` at rank 3; \
         wall s / peak MB of each child process (/usr/bin/time), best of {} for concord",
        s.repeats
    );
    let Some(bundle) = bundle() else {
        println!("../shared/corpus/nbds.bundle not found: skipped");
        return;
    };
    let temp = tempfile::tempdir().expect("temp dir");
    // CONCORD_BENCH_KEEP=1 keeps the harnesses and fact directories for a
    // closer look (profiling one phase, counting relations).
    let (dir, _cleanup) = if std::env::var_os("CONCORD_BENCH_KEEP").is_some() {
        let kept = temp.keep();
        println!("keeping {}", kept.display());
        (kept, None)
    } else {
        (temp.path().to_path_buf(), Some(temp))
    };
    let clone = match Clone::new(&bundle, &dir) {
        Ok(c) => c,
        Err(e) => {
            println!("cannot clone the bundle: {e}");
            return;
        }
    };
    for &(map, old_c, new_c, target_s, target_mb) in CASES {
        let name = format!("{} {old_c} -> {new_c}", map.name());
        println!("\n### {name}");
        let work = dir.join(format!("{}-{old_c}-{new_c}", map.name()));
        std::fs::create_dir_all(&work).unwrap();
        let (old_src, new_src) = match (clone.harness(map, old_c), clone.harness(map, new_c)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                println!("harness: {e}");
                continue;
            }
        };
        std::fs::write(work.join("old.c"), &old_src).unwrap();
        std::fs::write(work.join("new.c"), &new_src).unwrap();
        let c = &s.concord;
        // facts, once per version (also the input of the other engines)
        let mut fact_runs = Vec::new();
        for v in ["old", "new"] {
            let r = measure(c, &["-q", "facts", &format!("{v}.c"), "-o", v], &work);
            if r.code != Some(0) {
                println!(
                    "concord facts {v}.c failed ({:?}): {}",
                    r.code,
                    r.stderr.trim()
                );
            }
            fact_runs.push(r);
        }
        if fact_runs.iter().any(|r| r.code != Some(0)) {
            continue;
        }
        let old_facts = concord::facts::io::read_dir(&work.join("old")).expect("old facts");
        let new_facts = concord::facts::io::read_dir(&work.join("new")).expect("new facts");
        println!(
            "harness: {} / {} lines; {} / {} statements, {} / {} threads; facts {:.2} s / {:.2} s",
            old_src.lines().count(),
            new_src.lines().count(),
            old_facts.statements.len(),
            new_facts.statements.len(),
            old_facts.threads.len(),
            new_facts.threads.len(),
            secs(fact_runs[0].wall),
            secs(fact_runs[1].wall)
        );
        let m = match_versions(
            &Version {
                facts: &old_facts,
                source: Some(&old_src),
            },
            &Version {
                facts: &new_facts,
                source: Some(&new_src),
            },
        );
        let diff_args = |from: &str, extra: &[&str]| -> Vec<String> {
            let (a, b) = if from == "source" {
                ("old.c", "new.c")
            } else {
                ("old", "new")
            };
            let mut v: Vec<String> = ["-q", "diff", "--format", "json", a, b]
                .iter()
                .map(|x| x.to_string())
                .collect();
            v.extend(extra.iter().map(|x| x.to_string()));
            v
        };
        let run_concord = |args: Vec<String>, repeats: usize| {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            best_of(repeats, || measure(c, &refs, &work))
        };
        let row = |label: &str, r: &Run, note: &str| {
            println!(
                "{:<34} {:>8.2} {:>8.0}  {}",
                label,
                secs(r.wall),
                r.peak_mb,
                note
            );
        };
        println!("{:<34} {:>8} {:>8}  note", "engine", "wall s", "peak MB");
        let src = run_concord(diff_args("source", &[]), s.repeats);
        let src_json: Value = serde_json::from_str(&src.stdout).unwrap_or(Value::Null);
        row(
            "concord diff, from source",
            &src,
            &format!("exit {:?}; {}", src.code, summary(&src_json)),
        );
        println!("  phases (ms): {}", phases(&src_json));
        let met = secs(src.wall) < target_s && src.peak_mb < target_mb;
        println!(
            "  target < {target_s} s and < {target_mb} MB from source: {}",
            if met { "met" } else { "NOT met" }
        );
        let facts = run_concord(diff_args("facts", &[]), s.repeats);
        let facts_json: Value = serde_json::from_str(&facts.stdout).unwrap_or(Value::Null);
        row(
            "concord diff, from fact dirs",
            &facts,
            &format!("exit {:?}; {}", facts.code, summary(&facts_json)),
        );
        println!("  phases (ms): {}", phases(&facts_json));
        let counts = run_concord(diff_args("facts", &["--counts"]), 1);
        let counts_json: Value = serde_json::from_str(&counts.stdout).unwrap_or(Value::Null);
        row(
            "concord diff --counts, fact dirs",
            &counts,
            &format!(
                "rank-3 tuples old/new: {} / {}",
                counts_json["counts"]["old"]["may_rf_rank"]["3"],
                counts_json["counts"]["new"]["may_rf_rank"]["3"]
            ),
        );
        let t = s.reference_timeout.to_string();
        let mb = s.reference_memory_mb.to_string();
        let reference = run_concord(
            diff_args(
                "facts",
                &["--reference", "--timeout", &t, "--max-memory", &mb],
            ),
            1,
        );
        let ref_json: Value = serde_json::from_str(&reference.stdout).unwrap_or(Value::Null);
        let same = ref_json["differences"] == facts_json["differences"]
            && ref_json["first_rank"] == facts_json["first_rank"];
        row(
            "previous implementation (--reference)",
            &reference,
            &match reference.code {
                Some(9) => format!(
                    "stopped by its budget ({t} s, {mb} MB): {}",
                    reference.stderr.trim()
                ),
                _ => format!(
                    "exit {:?}; {}; same differences as concord: {same}; ratio {:.0}x",
                    reference.code,
                    summary(&ref_json),
                    secs(reference.wall) / secs(facts.wall).max(1e-9)
                ),
            },
        );
        // Soufflé and Z3 on the same facts and rules
        let combined = work.join("combined");
        let lmap = concord::analysis::diff::location_map(&old_facts, &new_facts);
        combined_facts(
            &work.join("old"),
            &work.join("new"),
            &m.map,
            &lmap,
            &combined,
        );
        for program in ["diff2", "diff3"] {
            let rules = Command::new(c)
                .args(["rules", "--emit", "souffle", "--program", program])
                .output()
                .expect("concord rules");
            std::fs::write(work.join(format!("{program}.dl")), &rules.stdout).unwrap();
        }
        let concord_rank3 = facts_json["differences"]
            .as_array()
            .map_or(0, |a| a.iter().filter(|d| d["rank"] == 3).count());
        match souffle() {
            None => println!("souffle not found in ../shared/tools: skipped"),
            Some(souffle) => {
                for jobs in ["1", "2"] {
                    // rank 2, then rank 3 on rank 2's MayRf (as concord does)
                    let out2 = work.join(format!("souffle-out2-{jobs}"));
                    let out3 = work.join(format!("souffle-out3-{jobs}"));
                    std::fs::create_dir_all(&out2).unwrap();
                    std::fs::create_dir_all(&out3).unwrap();
                    let r2 = measure(
                        &souffle,
                        &[
                            "-j",
                            jobs,
                            "-F",
                            "combined",
                            "-D",
                            &out2.display().to_string(),
                            "diff2.dl",
                        ],
                        &work,
                    );
                    for rel in ["old_rf_may", "new_rf_may"] {
                        let _ = std::fs::copy(
                            out2.join(format!("{rel}.csv")),
                            combined.join(format!("{rel}.facts")),
                        );
                    }
                    let r3 = measure(
                        &souffle,
                        &[
                            "-j",
                            jobs,
                            "-F",
                            "combined",
                            "-D",
                            &out3.display().to_string(),
                            "diff3.dl",
                        ],
                        &work,
                    );
                    let found = lines(&out3.join("diff3_old.csv")).unwrap_or(0)
                        + lines(&out3.join("diff3_new.csv")).unwrap_or(0);
                    let both = Run {
                        wall: r2.wall + r3.wall,
                        peak_mb: r2.peak_mb.max(r3.peak_mb),
                        code: r3.code,
                        stdout: String::new(),
                        stderr: String::new(),
                    };
                    row(
                        &format!("souffle interpreter -j {jobs} (diff2+diff3)"),
                        &both,
                        &format!(
                            "exit {:?}/{:?}; rank 2 {:.2} s + rank 3 {:.2} s; {found} rank-3 differences (concord: {concord_rank3}); concord/souffle {:.2}",
                            r2.code,
                            r3.code,
                            secs(r2.wall),
                            secs(r3.wall),
                            secs(facts.wall) / secs(both.wall).max(1e-9)
                        ),
                    );
                }
            }
        }
        if z3_on_path() {
            let script = work.join("diff2.smt2");
            std::fs::write(&script, z3_script(&old_facts, &new_facts, &m.map)).unwrap();
            let limit = format!("-T:{}", s.z3_timeout);
            let r = measure(Path::new("z3"), &[&limit, "diff2.smt2"], &work);
            let timeout = r.stdout.lines().any(|l| l.trim() == "timeout")
                || secs(r.wall) >= s.z3_timeout as f64;
            row(
                "z3 fixedpoint (diff2 only)",
                &r,
                &if timeout {
                    format!("over its {} s limit", s.z3_timeout)
                } else {
                    format!(
                        "exit {:?}; concord/z3 {:.3}",
                        r.code,
                        secs(facts.wall) / secs(r.wall).max(1e-9)
                    )
                },
            );
        } else {
            println!("z3 not on PATH: skipped (apt-get install -y z3 to include it)");
        }
    }
}
