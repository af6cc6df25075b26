//! `concord store ls|rm`: inspect and prune the summary store of
//! `concord symex` (docs/symex.md, "Summary store").

use crate::error::{exit, ConcordError, Result};
use crate::symex::store::{default_path, Store};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct StoreArgs {
    #[command(subcommand)]
    pub command: StoreCommand,
}

/// Which store: `--store PATH`, else PROGRAM's default store, else the
/// current directory's (both in the cache directory, docs/symex.md).
#[derive(Args, Debug)]
pub struct Which {
    /// A program: its default store (its directory's, in the cache directory).
    pub program: Option<PathBuf>,
    /// The store file.
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum StoreCommand {
    /// List the runs in the store with their findings and summaries.
    Ls {
        #[command(flatten)]
        which: Which,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove the runs and summaries of programs (by hash prefix) or all.
    Rm {
        #[command(flatten)]
        which: Which,
        /// Program hash (or a prefix of it) as `store ls` prints it.
        #[arg(long, value_name = "PREFIX", required_unless_present = "all")]
        hash: Option<String>,
        /// Remove everything.
        #[arg(long, conflicts_with = "hash")]
        all: bool,
    },
}

fn path_of(w: &Which) -> PathBuf {
    match (&w.store, &w.program) {
        (Some(s), _) => s.clone(),
        (None, Some(p)) => default_path(p),
        (None, None) => default_path(Path::new("./x")),
    }
}

fn open(path: &Path) -> Result<Store> {
    if !path.exists() {
        // Not `InputMissing`: its hint is about programs (.c, .ll, .bc).
        return Err(ConcordError::InputUnreadable {
            path: path.to_path_buf(),
            reason: "no summary store here\n  hint: `concord symex` creates one (one per program directory, in ~/.cache/concord/summaries/ or $XDG_CACHE_HOME/concord/summaries/); name another with --store".into(),
        });
    }
    Store::open(path).map_err(|e| ConcordError::InputUnreadable {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

pub fn run(args: &StoreArgs) -> Result<i32> {
    match &args.command {
        StoreCommand::Ls { which, json } => {
            let path = path_of(which);
            let st = open(&path)?;
            let rows = st.list().map_err(|e| ConcordError::InputUnreadable {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            if *json {
                super::emit(&(serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n"))?;
            } else {
                let mut out = format!("{}: {} runs\n", path.display(), rows.len());
                for r in &rows {
                    out += &format!(
                        "run {} {} hash {} {} findings {} summaries {} options {}\n",
                        r.id,
                        r.program,
                        &r.program_hash[..r.program_hash.len().min(16)],
                        if r.complete { "complete" } else { "incomplete" },
                        r.findings,
                        r.summaries,
                        r.options
                    );
                }
                super::emit(&out)?;
            }
            Ok(exit::OK)
        }
        StoreCommand::Rm { which, hash, all } => {
            let path = path_of(which);
            let mut st = open(&path)?;
            let prefix = if *all { None } else { hash.as_deref() };
            let (runs, sums) = st.remove(prefix).map_err(|e| ConcordError::Output {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            super::emit(&format!(
                "removed {runs} runs and {sums} summaries from {}\n",
                path.display()
            ))?;
            Ok(exit::OK)
        }
    }
}
