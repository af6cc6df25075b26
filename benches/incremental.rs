//! Incremental symbolic execution in the shape of Conc-iSE Table 3: runs
//! and time of NEW for baseline (`none`), +DPOR, +CIA (`symex OLD NEW`
//! with DPOR) and +SCIA (`symex OLD NEW` in dpor+ag with OLD's summaries
//! in a store), measured side by side in one run.
//!
//! Partial: the version chains v1…v5 of the paper's programs are not
//! written yet; this runs the bench pairs modelled on the Conc-iSE and
//! DiSE figures and the symex program pairs.  +SCIA's time includes
//! neither OLD's exploration (done once, stored) nor the impact analysis;
//! +CIA's time is NEW's exploration only (the paper includes its static
//! analysis time).  `cargo bench --bench incremental`.

use concord::frontend::{load_module, CompileOptions, Program};
use concord::symex::incremental::{
    explore_incremental, new_options, old_exploration, plan, VersionInput,
};
use concord::symex::store::Store;
use concord::symex::{explore, Reduction, SymexOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

struct Version {
    program: Program,
    facts: concord::facts::FactSet,
    source: Option<String>,
}

fn load(p: &Path) -> Version {
    let program = load_module(p, &CompileOptions::default()).unwrap();
    let facts = concord::facts::extract::extract(&program, &Default::default()).unwrap();
    Version {
        program,
        facts,
        source: std::fs::read_to_string(p).ok(),
    }
}

impl Version {
    fn input(&self) -> VersionInput<'_> {
        VersionInput {
            module: &self.program.module,
            facts: &self.facts,
            source: self.source.as_deref(),
            program_hash: &self.program.input_sha256,
        }
    }
}

fn opts(r: Reduction) -> SymexOptions {
    SymexOptions {
        reduction: r,
        loop_bound: 2,
        max_seconds: Some(120.0),
        ..Default::default()
    }
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let b = root.join("bench-programs");
    let s = root.join("symex-programs");
    let pairs: Vec<(String, PathBuf, PathBuf)> = [
        "conc-ise-fig2",
        "conc-ise-fig5",
        "conc-ise-fig6",
        "conc-ise-fig7",
        "dise-wbs",
        "ag-fig2",
        "stats-counter-out-of-cs",
        "double-checked-init",
    ]
    .iter()
    .map(|n| {
        (
            n.to_string(),
            b.join(n).join("v1.c"),
            b.join(n).join("v2.c"),
        )
    })
    .chain(
        [
            ("account_ok", "account_bad"),
            ("fig2", "fig2_bug"),
            ("lazy_init_ok", "lazy_init_bad"),
        ]
        .iter()
        .map(|(a, c)| {
            (
                format!("{a}->{c}"),
                s.join(format!("{a}.c")),
                s.join(format!("{c}.c")),
            )
        }),
    )
    .collect();
    println!(
        "{:<28} {:>9} {:>8} {:>9} {:>8} {:>9} {:>8} {:>9} {:>8} {:>8}",
        "pair",
        "base runs",
        "time s",
        "dpor runs",
        "time s",
        "+CIA runs",
        "time s",
        "+SCIA run",
        "time s",
        "reused"
    );
    let (mut tot_dpor, mut tot_scia) = (0u64, 0u64);
    for (name, old, new) in pairs {
        let (o, n) = (load(&old), load(&new));
        let t = Instant::now();
        let base = explore(&n.program.module, &opts(Reduction::None)).unwrap();
        let tb = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let dpor = explore(&n.program.module, &opts(Reduction::Dpor)).unwrap();
        let td = t.elapsed().as_secs_f64();
        let (cia, _) = {
            let p = plan(&o.input(), &n.input());
            let t = Instant::now();
            let x = explore(
                &n.program.module,
                &new_options(&p, &n.input(), &opts(Reduction::Dpor), None),
            )
            .unwrap();
            (x, t.elapsed().as_secs_f64())
        };
        let tc = cia.stats.total_ms / 1000.0;
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::open(&tmp.path().join("s.db")).unwrap();
        old_exploration(
            &o.input(),
            &opts(Reduction::DporAg),
            Some(&store),
            "OLD",
            &mut |_, _| {},
        )
        .unwrap();
        let t = Instant::now();
        let (scia, _) = explore_incremental(
            &o.input(),
            &n.input(),
            &opts(Reduction::DporAg),
            Some(&store),
        )
        .unwrap();
        let ts = t.elapsed().as_secs_f64();
        let runs = |x: &concord::symex::Exploration| x.stats.runs() + x.stats.partial_runs;
        tot_dpor += runs(&dpor);
        tot_scia += runs(&scia);
        println!(
            "{:<28} {:>9} {:>8.2} {:>9} {:>8.2} {:>9} {:>8.2} {:>9} {:>8.2} {:>8}",
            name,
            runs(&base),
            tb,
            runs(&dpor),
            td,
            runs(&cia),
            tc,
            runs(&scia),
            ts,
            scia.stats.summaries_reused
        );
    }
    println!(
        "total runs: +DPOR {tot_dpor}, +SCIA {tot_scia} (ratio {:.2}; the paper's Table 3 target: +SCIA at most 1/4 of +DPOR)",
        tot_scia as f64 / tot_dpor.max(1) as f64
    );
}
