//! Table-2-style benchmark of `concord symex` over `symex-programs/`.
use concord::symex::{explore, testutil, Reduction, SymexOptions};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("symex-programs");
    let mut progs: Vec<PathBuf> = if args.is_empty() {
        std::fs::read_dir(&dir)
            .expect("symex-programs")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().map(|x| x == "c").unwrap_or(false))
            .collect()
    } else {
        args.iter()
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
    println!("{:<22} | {:>6} {:>5} {:>7} {:>8} {:>8} {:>7} | {:>6} {:>5} {:>7} {:>8} {:>8} {:>7} | {:>6} {:>5} {:>7} {:>8} {:>8} {:>7}", "program", "runs", "part", "queries", "time(s)", "runs/s", "mem(MB)", "runs", "part", "queries", "time(s)", "runs/s", "mem(MB)", "runs", "part", "queries", "time(s)", "runs/s", "mem(MB)");
    println!(
        "{:<22} | {:^47} | {:^47} | {:^47}",
        "", "none", "dpor", "dpor+ag"
    );
    for p in progs {
        let m = match testutil::load(&p) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{}: {e}", p.display());
                continue;
            }
        };
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let mut row = format!("{name:<22}");
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
        for r in [Reduction::None, Reduction::Dpor, Reduction::DporAg] {
            let o = SymexOptions {
                reduction: r,
                loop_bound: bound,
                max_seconds: Some(60.0),
                ..Default::default()
            };
            match explore(&m, &o) {
                Ok(x) => {
                    let s = &x.stats;
                    row += &format!(
                        " | {:>6}{} {:>5} {:>7} {:>8.2} {:>8.0} {:>7.1}",
                        s.runs(),
                        if s.incomplete { "+" } else { " " },
                        s.partial_runs,
                        s.solver_queries,
                        s.total_ms / 1000.0,
                        (s.runs() + s.partial_runs) as f64 / (s.total_ms / 1000.0).max(1e-6),
                        s.peak_memory_kb as f64 / 1024.0
                    );
                }
                Err(e) => row += &format!(" | error: {e}"),
            }
        }
        if let Some(paper) = paper_counts(&name) {
            row += &format!(" | paper: {paper}");
        }
        println!("{row}");
    }
    println!(
        "\npaper column: runs reported by the assertion-guided paper for the same figure (none / dpor / dpor+ag); \
         docs/symex.md explains each difference (Fig. 3: the paper counts distinct traces, 2^k, which dpor explores; \
         none enumerates every interleaving)."
    );
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
