//! The summary store: one SQLite file (rusqlite, bundled SQLite) holding,
//! per explored program, its runs (options, findings, result) and the
//! weakest-precondition summaries of its global control states.
//!
//! Why SQLite: a single file with transactions whose commits survive a
//! killed process (write-ahead log), a format every machine can inspect
//! (`sqlite3 summaries.db`), and a library maintained for decades; the
//! bundled build needs no system library.  redb would avoid the C build
//! but its file format is younger and it has no external tooling.
//!
//! Keys: a run is keyed by the program hash (SHA-256 of the source and
//! the compile flags) and its exploration options; a summary by its
//! *portable state key* (the global control state in statement identity —
//! function name, block and instruction index per frame — together with
//! the fingerprints of all code reachable from it and of the globals, see
//! `engine/persist.rs`) and the loop bound.  A summary is only ever read
//! at a state with the same key, i.e. the same code ahead: summaries of
//! another version are reused exactly where the code they summarise did
//! not change.

// The engine defines the summaries it reads and writes (and the trait it
// calls); this file keeps them in SQLite.
use super::engine::SummaryStore;
pub use super::engine::{StoredAccess, StoredRes, StoredSummary};
use super::{Exploration, Finding, Reduction, SymexOptions};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use sha2::Digest;
use std::path::{Path, PathBuf};

/// Version of the tables below; a store with another version is refused.
pub const SCHEMA_VERSION: i64 = 1;
const FORMAT: &str = "concord-summaries";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: not a concord summary store ({why})")]
    NotAStore { path: PathBuf, why: String },
    #[error("{path}: summary store schema version {found}, this concord reads version {SCHEMA_VERSION}; remove it (concord store rm --all --store {path}) or choose another with --store")]
    Schema { path: PathBuf, found: i64 },
    #[error("{path}: {source}")]
    Sql {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl StoreError {
    /// The store exists but is not one this concord reads (a wrong file or
    /// schema), as opposed to one that cannot be written (I/O or SQLite
    /// failing to create, open or write it).
    pub fn is_not_a_store(&self) -> bool {
        matches!(
            self,
            StoreError::NotAStore { .. } | StoreError::Schema { .. }
        )
    }
}

/// Where the store is and what this exploration does with it.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    pub path: std::path::PathBuf,
    /// Program hash of the explored module (rows are tagged with it).
    pub program_hash: String,
    /// Use stored summaries (of this or any version) at matching states.
    pub import: bool,
    /// Write this exploration's summaries.
    pub export: bool,
}

/// The engine's summary store in an SQLite file: summaries are tagged
/// with the explored program's hash and read whatever program wrote them
/// (a summary is only used at a state with the same portable key).
pub struct SqliteSummaries {
    store: Store,
    opts: StoreOptions,
}

impl SqliteSummaries {
    /// The store an exploration with `opts` reads and writes summaries
    /// in: only assertion-guided pruning has summaries, and a replay
    /// (`schedule`) uses none.
    pub fn for_exploration(opts: &SymexOptions) -> Result<Option<SqliteSummaries>, StoreError> {
        let ag = matches!(opts.reduction, Reduction::DporAg | Reduction::OdporAg);
        match &opts.store {
            Some(so) if ag && opts.schedule.is_none() => Ok(Some(SqliteSummaries {
                store: Store::open(&so.path)?,
                opts: so.clone(),
            })),
            _ => Ok(None),
        }
    }
}

impl SummaryStore for SqliteSummaries {
    fn load(&mut self, loop_bound: u32) -> Result<Vec<StoredSummary>, String> {
        if !self.opts.import {
            return Ok(Vec::new());
        }
        self.store.summaries(loop_bound).map_err(|e| e.to_string())
    }
    fn saves(&self) -> bool {
        self.opts.export
    }
    fn save(&mut self, items: &[StoredSummary]) -> Result<(), String> {
        self.store
            .put_summaries(&self.opts.program_hash, items)
            .map_err(|e| e.to_string())
    }
}

/// A run as listed by `concord store ls`.
#[derive(Debug, Clone, Serialize)]
pub struct RunRow {
    pub id: i64,
    pub program: String,
    pub program_hash: String,
    pub options: String,
    pub complete: bool,
    pub findings: u64,
    pub summaries: u64,
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// The directory default summary stores live in: `$XDG_CACHE_HOME/concord`,
/// else `$HOME/.cache/concord`, else `concord-cache` in the temporary
/// directory. Never the user's source tree.
pub fn cache_dir() -> PathBuf {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(xdg) = absolute("XDG_CACHE_HOME") {
        xdg.join("concord")
    } else if let Some(home) = absolute("HOME") {
        home.join(".cache").join("concord")
    } else {
        std::env::temp_dir().join("concord-cache")
    }
}

/// The default store of a program: one per source directory (OLD and NEW
/// beside it share it, so `symex OLD NEW` finds OLD's runs), kept in
/// [`cache_dir`] as `summaries/<dir>-<hash>.db`, the hash that of the
/// directory's absolute path, so two directories never share one.
pub fn default_path(program: &Path) -> PathBuf {
    let dir = program
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|cwd| cwd.join(dir))
            .unwrap_or_else(|_| dir.to_path_buf())
    });
    let digest = sha2::Sha256::digest(dir.as_os_str().as_encoded_bytes());
    let hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    // the directory's own name keeps the file recognisable in `ls`
    let label: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    cache_dir()
        .join("summaries")
        .join(format!("{label}-{hash}.db"))
}

impl Store {
    fn sql(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        |source| StoreError::Sql {
            path: self.path.clone(),
            source,
        }
    }

    /// Open (creating when missing) the store at `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        }
        if path.is_dir() {
            return Err(StoreError::NotAStore {
                path: path.to_path_buf(),
                why: "a directory".into(),
            });
        }
        let not_a_store = |why: String| StoreError::NotAStore {
            path: path.to_path_buf(),
            why,
        };
        // SQLite opens any existing file; failing here means the file
        // cannot be created or opened (a read-only or full file system),
        // not that it is no store: an I/O failure, not a format one.
        let conn = Connection::open(path).map_err(|source| StoreError::Sql {
            path: path.to_path_buf(),
            source,
        })?;
        let st = Store {
            conn,
            path: path.to_path_buf(),
        };
        st.conn
            .busy_timeout(std::time::Duration::from_secs(30))
            .map_err(st.sql())?;
        // Any read fails here on a file that is not SQLite.
        let tables: Vec<String> = st
            .conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .and_then(|mut s| {
                s.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<Result<_, _>>()
            })
            .map_err(|e| not_a_store(e.to_string()))?;
        if tables.is_empty() {
            st.create()?;
        } else if !tables.iter().any(|t| t == "meta") {
            return Err(not_a_store(
                "an SQLite database without concord's tables".into(),
            ));
        } else {
            let get = |k: &str| -> Result<Option<String>, StoreError> {
                st.conn
                    .query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get(0))
                    .optional()
                    .map_err(st.sql())
            };
            if get("format")?.as_deref() != Some(FORMAT) {
                return Err(not_a_store("its meta table is not concord's".into()));
            }
            let v: i64 = get("schema_version")?
                .and_then(|v| v.parse().ok())
                .unwrap_or(-1);
            if v != SCHEMA_VERSION {
                return Err(StoreError::Schema {
                    path: path.to_path_buf(),
                    found: v,
                });
            }
        }
        // Commits survive a killed process (the log is replayed on open).
        st.conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(st.sql())?;
        st.conn
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(st.sql())?;
        Ok(st)
    }

    fn create(&self) -> Result<(), StoreError> {
        self.conn
            .execute_batch(&format!(
                "BEGIN;
                 CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 INSERT INTO meta VALUES ('format', '{FORMAT}'), ('schema_version', '{SCHEMA_VERSION}');
                 CREATE TABLE runs(
                   id INTEGER PRIMARY KEY,
                   program TEXT NOT NULL,
                   program_hash TEXT NOT NULL,
                   options TEXT NOT NULL,
                   complete INTEGER NOT NULL DEFAULT 0,
                   result TEXT);
                 CREATE INDEX runs_key ON runs(program_hash, options);
                 CREATE TABLE findings(
                   run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                   loop_bound INTEGER NOT NULL,
                   finding TEXT NOT NULL);
                 CREATE TABLE summaries(
                   program_hash TEXT NOT NULL,
                   state_key INTEGER NOT NULL,
                   loop_bound INTEGER NOT NULL,
                   formula TEXT NOT NULL,
                   asleep TEXT NOT NULL,
                   accesses TEXT NOT NULL,
                   PRIMARY KEY(state_key, loop_bound, program_hash));
                 COMMIT;"
            ))
            .map_err(self.sql())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A completed run of this program with these options.
    pub fn completed_run(
        &self,
        program_hash: &str,
        options: &str,
    ) -> Result<Option<Exploration>, StoreError> {
        let r: Option<String> = self
            .conn
            .query_row(
                "SELECT result FROM runs WHERE program_hash = ?1 AND options = ?2 AND complete = 1
                 ORDER BY id DESC LIMIT 1",
                params![program_hash, options],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.sql())?;
        Ok(r.and_then(|t| serde_json::from_str(&t).ok()))
    }

    /// Start recording a run; returns its id.
    pub fn begin_run(
        &self,
        program: &str,
        program_hash: &str,
        options: &str,
    ) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO runs(program, program_hash, options) VALUES (?1, ?2, ?3)",
                params![program, program_hash, options],
            )
            .map_err(self.sql())?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Record a finding as soon as it is found (its own transaction).
    pub fn add_finding(&self, run: i64, loop_bound: u32, f: &Finding) -> Result<(), StoreError> {
        let text = serde_json::to_string(f).unwrap_or_default();
        self.conn
            .execute(
                "INSERT INTO findings(run, loop_bound, finding) VALUES (?1, ?2, ?3)",
                params![run, loop_bound, text],
            )
            .map_err(self.sql())?;
        Ok(())
    }

    /// Mark the run complete with its result.
    pub fn finish_run(&self, run: i64, res: &Exploration) -> Result<(), StoreError> {
        let text = serde_json::to_string(res).unwrap_or_default();
        self.conn
            .execute(
                "UPDATE runs SET complete = 1, result = ?2 WHERE id = ?1",
                params![run, text],
            )
            .map_err(self.sql())?;
        Ok(())
    }

    /// Write summaries in one transaction.
    pub fn put_summaries(
        &mut self,
        program_hash: &str,
        items: &[StoredSummary],
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sql = |source| StoreError::Sql {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sql)?;
        {
            let mut ins = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO summaries
                     (program_hash, state_key, loop_bound, formula, asleep, accesses)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(sql)?;
            for s in items {
                ins.execute(params![
                    program_hash,
                    s.state_key as i64,
                    s.loop_bound,
                    s.formula,
                    serde_json::to_string(&s.asleep).unwrap_or_default(),
                    serde_json::to_string(&s.accesses).unwrap_or_default(),
                ])
                .map_err(sql)?;
            }
        }
        tx.commit().map_err(sql)
    }

    /// Every summary for this loop bound (of any program: a summary is only
    /// used at a state with the same portable key).
    pub fn summaries(&self, loop_bound: u32) -> Result<Vec<StoredSummary>, StoreError> {
        let mut s = self
            .conn
            .prepare(
                "SELECT state_key, formula, asleep, accesses FROM summaries WHERE loop_bound = ?1",
            )
            .map_err(self.sql())?;
        let rows = s
            .query_map([loop_bound], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .map_err(self.sql())?;
        let mut out = Vec::new();
        for row in rows {
            let (k, formula, asleep, acc) = row.map_err(self.sql())?;
            // A row that does not parse is skipped, never guessed at.
            let (Ok(asleep), Ok(accesses)) =
                (serde_json::from_str(&asleep), serde_json::from_str(&acc))
            else {
                continue;
            };
            out.push(StoredSummary {
                state_key: k as u64,
                loop_bound,
                formula,
                asleep,
                accesses,
            });
        }
        Ok(out)
    }

    /// Runs, with their finding and summary counts.
    pub fn list(&self) -> Result<Vec<RunRow>, StoreError> {
        let mut s = self
            .conn
            .prepare(
                "SELECT r.id, r.program, r.program_hash, r.options, r.complete,
                        (SELECT COUNT(*) FROM findings f WHERE f.run = r.id),
                        (SELECT COUNT(*) FROM summaries s WHERE s.program_hash = r.program_hash)
                 FROM runs r ORDER BY r.id",
            )
            .map_err(self.sql())?;
        let rows = s
            .query_map([], |r| {
                Ok(RunRow {
                    id: r.get(0)?,
                    program: r.get(1)?,
                    program_hash: r.get(2)?,
                    options: r.get(3)?,
                    complete: r.get::<_, i64>(4)? != 0,
                    findings: r.get::<_, i64>(5)? as u64,
                    summaries: r.get::<_, i64>(6)? as u64,
                })
            })
            .map_err(self.sql())?;
        rows.collect::<Result<_, _>>().map_err(self.sql())
    }

    /// Remove the runs and summaries of programs whose hash starts with
    /// `prefix` (every program when `None`); returns (runs, summaries).
    pub fn remove(&mut self, prefix: Option<&str>) -> Result<(usize, usize), StoreError> {
        let path = self.path.clone();
        let sql = |source| StoreError::Sql {
            path: path.clone(),
            source,
        };
        let pat = format!("{}%", prefix.unwrap_or(""));
        let tx = self.conn.transaction().map_err(sql)?;
        let runs = tx
            .execute("DELETE FROM runs WHERE program_hash LIKE ?1", [&pat])
            .map_err(sql)?;
        let sums = tx
            .execute("DELETE FROM summaries WHERE program_hash LIKE ?1", [&pat])
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok((runs, sums))
    }

    /// Is the database intact (`PRAGMA integrity_check`)?
    pub fn integrity_ok(&self) -> Result<bool, StoreError> {
        let r: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(self.sql())?;
        Ok(r == "ok")
    }
}
