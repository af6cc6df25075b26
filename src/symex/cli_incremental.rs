//! `concord symex OLD NEW`: load both versions, run the change-impact
//! analysis, explore OLD (its findings) and NEW with +CIA pruning, and
//! report NEW's findings plus OLD's unchanged ones.

use super::cli::{
    options, output_error, print_out, summary, symex_error, verdict_exit_code, SymexArgs,
};
use super::directed;
use super::incremental::{self, VersionInput};
use super::store::{self, Store};
use super::{explore_with, output};
use crate::error::{ConcordError, Result};
use crate::frontend::{load_module, Program};
use crate::report::symex::SymexFormat;
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct Loaded {
    program: Program,
    facts: crate::facts::FactSet,
    source: Option<String>,
}

fn load_version(path: &Path, a: &SymexArgs) -> Result<Loaded> {
    let program = load_module(path, &a.compile.compile_options())?;
    let facts = crate::facts::extract::extract(
        &program,
        &crate::facts::extract::ExtractOptions::default(),
    )?;
    let source = path
        .extension()
        .is_some_and(|e| e == "c")
        .then(|| std::fs::read_to_string(path).ok())
        .flatten();
    Ok(Loaded {
        program,
        facts,
        source,
    })
}

impl Loaded {
    fn input(&self) -> VersionInput<'_> {
        VersionInput {
            module: &self.program.module,
            facts: &self.facts,
            source: self.source.as_deref(),
            program_hash: &self.program.input_sha256,
        }
    }
}

/// The summary store of a run: `--store PATH` (an error when it cannot be
/// used: exit 3), else `.concord/summaries.db` beside `program` (a warning
/// when it cannot be used: the run goes on without it), none with
/// `--no-store`.
pub(super) fn open_store(a: &SymexArgs, program: &Path, quiet: bool) -> Result<Option<Store>> {
    if a.no_store {
        return Ok(None);
    }
    match &a.store {
        Some(p) => Store::open(p)
            .map(Some)
            .map_err(|e| ConcordError::InputUnreadable {
                path: p.clone(),
                reason: e.to_string(),
            }),
        None => {
            let p = store::default_path(program);
            match Store::open(&p) {
                Ok(s) => Ok(Some(s)),
                Err(e) => {
                    if !quiet {
                        eprintln!("concord: warning: no summary store: {e}");
                    }
                    Ok(None)
                }
            }
        }
    }
}

pub(super) fn symex_incremental(a: &SymexArgs, new_path: &Path, quiet: bool) -> Result<i32> {
    if a.max_interferences.is_some() {
        return Err(ConcordError::Usage(
            "--max-interferences explores one program; it does not combine with OLD NEW".into(),
        ));
    }
    let old = load_version(&a.program, a)?;
    let new = load_version(new_path, a)?;
    let plan = incremental::plan(&old.input(), &new.input());
    if !quiet {
        eprintln!(
            "[symex] {} changes, {} impacted statements ({} instructions of NEW)",
            plan.matching.changes.len(),
            plan.impacted_stmts.len(),
            plan.impacted.len()
        );
    }
    let started = std::time::SystemTime::now();
    let out_path = a.output_dir.clone().unwrap_or_else(|| PathBuf::from("."));
    let dir =
        output::results_dir(a.output_dir.as_deref()).map_err(|e| output_error(&out_path, e))?;
    // OLD's findings (the unimpacted part of the answer): from the store
    // when a complete run of OLD with these options is there.
    let store = open_store(a, &a.program, quiet)?;
    let mut old_opts = options(a, &a.program, true);
    // Directed mode needs OLD's paths: OLD is explored afresh, recording.
    let specs = a
        .directed
        .then(|| directed::specs(&plan, &old.input(), &new.input()));
    let (old_res, reused) = match &specs {
        Some((_, old_spec)) => {
            old_opts.directed = Some(Arc::new(old_spec.clone()));
            let x = super::explore(&old.program.module, &old_opts)
                .map_err(|e| symex_error(&a.program, e))?;
            (x, false)
        }
        None => incremental::old_exploration(
            &old.input(),
            &old_opts,
            store.as_ref(),
            &a.program.display().to_string(),
            &mut |_, _| {},
        )
        .map_err(|e| symex_error(&a.program, e))?,
    };
    if !quiet && reused {
        eprintln!("[symex] OLD: its complete run is in the store (no exploration)");
    }
    let mut new_opts = incremental::new_options(
        &plan,
        &new.input(),
        &options(a, new_path, quiet),
        store.as_ref(),
    );
    if let Some((new_spec, _)) = &specs {
        new_opts.directed = Some(Arc::new(new_spec.clone()));
    }
    let mut written = 0usize;
    let mut write_err = None;
    let new_res = explore_with(&new.program.module, &new_opts, &mut |f, bound| {
        written += 1;
        let tc = output::testcase(new_path, &new_opts, bound, f);
        if let Err(e) = output::write_testcase(&dir, written, &tc) {
            write_err.get_or_insert(output_error(&dir, e));
        }
    })
    .map_err(|e| symex_error(new_path, e))?;
    if let Some(e) = write_err {
        return Err(e);
    }
    let (res, carried, mut ist) =
        incremental::combine(&plan, &old.input(), &new.input(), &old_res, &new_res);
    ist.old_runs = if reused {
        0
    } else {
        incremental::old_runs(&old_res.stats)
    };
    ist.old_reused = reused;
    // OLD's witnesses are test cases of OLD (their schedule and inputs
    // replay there, not necessarily on NEW).
    for f in &carried {
        written += 1;
        let tc = output::testcase(&a.program, &old_opts, old_res.stats.loop_bound, f);
        output::write_testcase(&dir, written, &tc).map_err(|e| output_error(&dir, e))?;
    }
    output::write_results(&dir, new_path, &new_opts, &res, started)
        .map_err(|e| output_error(&dir, e))?;
    let json = serde_json::to_string_pretty(&ist).map_err(|e| output_error(&dir, e))?;
    output::write_atomic(&dir.join("incremental.json"), json.as_bytes())
        .map_err(|e| output_error(&dir, e))?;
    let report = specs.as_ref().map(|(n, o)| {
        directed::compare(
            &plan,
            &old.input(),
            &new.input(),
            (n, o),
            &old_res,
            &new_res,
        )
    });
    if let Some(r) = &report {
        let json = serde_json::to_string_pretty(r).map_err(|e| output_error(&dir, e))?;
        output::write_atomic(&dir.join("directed.json"), json.as_bytes())
            .map_err(|e| output_error(&dir, e))?;
    }
    if !quiet {
        let s = &new_res.stats;
        eprintln!(
            "[symex] OLD: {} runs; NEW (+CIA{}, {}): {} runs ({} complete, {} error), {} partial, {} cut, {} stored summaries reused, {:.2}s; {} findings unchanged from OLD",
            ist.old_runs,
            if new_opts.store.is_some() && new_opts.reduction == super::Reduction::DporAg { "+SCIA" } else { "" },
            new_opts.reduction,
            s.runs(),
            s.complete_runs,
            s.error_runs,
            s.partial_runs,
            s.cut_runs,
            s.summaries_reused,
            s.total_ms / 1000.0,
            ist.unchanged_from_old,
        );
    }
    print_out(&summary(a, new_path, &res))?;
    // the per-condition lines are text; JSON and SARIF readers find them
    // in directed.json
    if let Some(r) = report.as_ref().filter(|_| a.format == SymexFormat::Text) {
        print_out(&r.to_string())?;
    }
    if !quiet {
        eprintln!("[symex] results in {}", dir.display());
    }
    Ok(verdict_exit_code(res.stats.verdict))
}
