//! Straight-line threads (issue 30): `concord query rf_may` and `concord
//! diff A A --max-rank K` on two threads of N straight-line statements
//! each (`benches/straight_line/mod.rs`), with this tree's binary and, when
//! given, a baseline binary side by side, with the ratios.
//!
//! ```sh
//! cargo bench --bench straight -- --baseline /path/to/old/concord
//! cargo bench --bench straight -- --sizes 250,500 --ranks 1,2 --timeout 180
//! cargo bench --bench straight -- --emit 250     # print the program
//! ```
//!
//! Each run is a child process (wall time, CPU and peak resident memory
//! from `wait4`), killed after `--timeout` seconds (default 180) or above
//! `--max-memory` MB (default 6000). Both binaries run on the same C file,
//! alternately, in one session. Figures are printed, never asserted.

#[allow(dead_code)] // the corpus bench reads every field; this one does not
#[path = "corpus/child.rs"]
mod child;
mod straight_line;

use child::{Limits, Outcome};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use straight_line::Shape;

struct Options {
    current: PathBuf,
    baseline: Option<PathBuf>,
    sizes: Vec<u32>,
    ranks: Vec<u32>,
    query: bool,
    limits: Limits,
}

fn list(s: &str) -> Vec<u32> {
    s.split(',')
        .map(|x| x.trim().parse().expect("a number"))
        .collect()
}

fn options() -> Options {
    let mut o = Options {
        current: PathBuf::from(env!("CARGO_BIN_EXE_concord")),
        baseline: None,
        sizes: vec![250, 500, 1000],
        ranks: vec![1, 2],
        query: true,
        limits: Limits {
            time: Duration::from_secs(180),
            memory_mb: 6000,
        },
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--emit" => {
                let n: u32 = value().parse().expect("N");
                print!("{}", straight_line::generate(Shape::two_threads(n)));
                std::process::exit(0);
            }
            "--baseline" => o.baseline = Some(PathBuf::from(value())),
            "--current" => o.current = PathBuf::from(value()),
            "--sizes" => o.sizes = list(&value()),
            "--ranks" => o.ranks = list(&value()),
            "--no-query" => o.query = false,
            "--timeout" => o.limits.time = Duration::from_secs(value().parse().expect("seconds")),
            "--max-memory" => o.limits.memory_mb = value().parse().expect("MB"),
            "--bench" => {}
            other => panic!("unknown option {other}"),
        }
    }
    o
}

/// One cell: `12.3 s 456 MB`, or why the run gave no figure.
fn cell(r: &Outcome) -> String {
    if r.exited_with(&[0, 1]) {
        format!("{:.2} s {:.0} MB", r.wall.as_secs_f64(), r.peak_mb())
    } else {
        format!("{} ({:.0} s)", r.end, r.wall.as_secs_f64())
    }
}

fn ratio(base: &Outcome, cur: &Outcome) -> String {
    if base.exited_with(&[0, 1]) && cur.exited_with(&[0, 1]) {
        format!(
            "{:.1}x time, {:.1}x memory",
            base.wall.as_secs_f64() / cur.wall.as_secs_f64().max(1e-3),
            base.peak_mb() / cur.peak_mb().max(1.0)
        )
    } else if cur.exited_with(&[0, 1]) {
        format!(
            "> {:.1}x time",
            base.wall.as_secs_f64() / cur.wall.as_secs_f64().max(1e-3)
        )
    } else {
        "-".into()
    }
}

fn run(bin: &Path, args: &[&str], limits: Limits) -> Outcome {
    child::run(Command::new(bin).args(args).arg("-q"), limits)
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()))
}

fn main() {
    let o = options();
    let dir = tempfile::tempdir().expect("temporary directory");
    println!(
        "straight-line threads: two workers of N statements, three globals, a locked pair in ten"
    );
    println!("current:  {}", o.current.display());
    if let Some(b) = &o.baseline {
        println!("baseline: {}", b.display());
    }
    println!(
        "{:<6} {:<22} {:>22} {:>22}  ratio (baseline / current)",
        "N", "command", "baseline", "current"
    );
    for &n in &o.sizes {
        let c = dir.path().join(format!("straight{n}.c"));
        std::fs::write(&c, straight_line::generate(Shape::two_threads(n))).expect("write C");
        let c = c.to_str().expect("utf-8 path").to_string();
        let mut commands: Vec<(String, Vec<String>)> = Vec::new();
        if o.query {
            commands.push((
                "query rf_may".into(),
                vec!["query".into(), c.clone(), "rf_may".into()],
            ));
        }
        for &k in &o.ranks {
            commands.push((
                format!("diff --max-rank {k}"),
                vec![
                    "diff".into(),
                    c.clone(),
                    c.clone(),
                    "--max-rank".into(),
                    k.to_string(),
                ],
            ));
        }
        for (name, args) in commands {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let base = o.baseline.as_ref().map(|b| run(b, &args, o.limits));
            let cur = run(&o.current, &args, o.limits);
            println!(
                "{:<6} {:<22} {:>22} {:>22}  {}",
                n,
                name,
                base.as_ref().map_or("-".into(), cell),
                cell(&cur),
                base.as_ref().map_or("-".into(), |b| ratio(b, &cur)),
            );
            if let (Some(b), true) = (&base, cur.exited_with(&[0, 1])) {
                if b.exited_with(&[0, 1]) && b.stdout != cur.stdout && name.starts_with("query") {
                    println!("       ! {name}: the two binaries printed different rows");
                }
            }
        }
    }
}
