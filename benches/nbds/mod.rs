//! Real programs for the diff benchmark: harnesses around the lock-free
//! maps of nbds (`../shared/corpus/nbds.bundle`), written by the benchmark.
//!
//! A harness is one translation unit: small stubs for the nbds runtime the
//! map calls (allocation, RCU, tracing, a random number generator), the
//! map's source file with the project's own headers inlined (system
//! headers stay `#include <...>`), and a two-thread driver that calls the
//! map's functions directly (insert, look up, remove a key per thread).
//! The driver does not go through the `map_impl_t` vtable or the runtime's
//! thread trampoline: concord's extraction does not yet resolve calls
//! through function pointers (issue 8), so a driver written that way would
//! analyse no map code at all. Nothing from the corpus is copied into the
//! repository: the bundle is cloned into a temporary directory.

pub mod run;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The nbds maps the benchmark knows how to drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Map {
    List,
    Skiplist,
    /// Driven by the incremental benchmark only (the diff benchmark
    /// builds the other two).
    #[allow(dead_code)]
    Hashtable,
}

impl Map {
    pub fn name(self) -> &'static str {
        match self {
            Map::List => "list",
            Map::Skiplist => "skiplist",
            Map::Hashtable => "hashtable",
        }
    }
    fn source(self) -> &'static str {
        match self {
            Map::List => "map/list.c",
            Map::Skiplist => "map/skiplist.c",
            Map::Hashtable => "map/hashtable.c",
        }
    }
    /// Function prefix, handle type and look-up function of the map's API
    /// (the hashtable's look-up is `ht_get`).
    fn api(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Map::List => ("ll", "list_t", "ll_lookup"),
            Map::Skiplist => ("sl", "skiplist_t", "sl_lookup"),
            Map::Hashtable => ("ht", "hashtable_t", "ht_get"),
        }
    }
}

/// The corpus bundle, if this checkout sits beside `shared/`.
pub fn bundle() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nbds.bundle");
    p.is_file().then_some(p)
}

/// A clone of the bundle in `dir`.
pub struct Clone {
    root: PathBuf,
}

impl Clone {
    pub fn new(bundle: &Path, dir: &Path) -> Result<Clone, String> {
        let root = dir.join("nbds");
        git(dir, &["clone", "-q", &bundle.display().to_string(), "nbds"])?;
        Ok(Clone { root })
    }

    /// The harness of `map` at `commit`, as C source text.
    pub fn harness(&self, map: Map, commit: &str) -> Result<String, String> {
        git(&self.root, &["checkout", "-q", "--force", commit])?;
        let mut seen = BTreeSet::new();
        let body = self.inline(&self.root.join(map.source()), &mut seen)?;
        let (prefix, handle, lookup) = map.api();
        Ok(format!(
            "/* nbds {name} at {commit}: stubs, {src} with the nbds headers inlined, driver (written by benches/nbds) */\n{STUBS}\n{body}\n{driver}",
            name = map.name(),
            src = map.source(),
            driver = driver(prefix, handle, lookup)
        ))
    }

    /// The file with every `#include "x.h"` of the project replaced by the
    /// header's text (each header once, recursively).
    fn inline(&self, path: &Path, seen: &mut BTreeSet<String>) -> Result<String, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut out = String::new();
        for line in text.lines() {
            let t = line.trim_start();
            let quoted = t
                .strip_prefix("#include")
                .map(str::trim)
                .and_then(|r| r.strip_prefix('"'))
                .and_then(|r| r.split('"').next());
            match quoted {
                Some(name) => {
                    if seen.insert(name.to_string()) {
                        let header = self.root.join("include").join(name);
                        out.push_str(&self.inline(&header, seen)?);
                    }
                }
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        Ok(out)
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<(), String> {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// What the maps need from the nbds runtime, reduced to plain C: memory
/// from malloc (freeing deferred forever, as if no grace period ended),
/// no tracing, a linear congruential generator for skiplist levels.
const STUBS: &str = r#"
#include <stdlib.h>
#include <pthread.h>
void *nbd_malloc(size_t n) { return malloc(n); }
void nbd_free(void *x) { free(x); }
void rcu_update(void) {}
void rcu_defer_free(void *x) { (void)x; }
void lwt_halt(void) {}
char flag_state_[256];
void lwt_trace_i(unsigned long long f, size_t a, size_t b) { (void)f; (void)a; (void)b; }
static unsigned harness_seed = 1;
int nbd_rand(void) { harness_seed = harness_seed * 1103515245u + 12345u; return (int)(harness_seed >> 1); }
__thread int tid_;
"#;

/// Two threads, each inserting, finding and removing its own key in one
/// shared map created by main.
fn driver(prefix: &str, handle: &str, lookup: &str) -> String {
    format!(
        r#"
static {handle} *harness_map;
static void *harness_worker(void *arg) {{
    map_key_t k = (map_key_t)(size_t)arg;
    {prefix}_cas(harness_map, k, CAS_EXPECT_WHATEVER, k + 1);
    {lookup}(harness_map, k);
    {prefix}_remove(harness_map, k);
    return NULL;
}}
int main(void) {{
    pthread_t a, b;
    harness_map = {prefix}_alloc(NULL);
    pthread_create(&a, NULL, harness_worker, (void *)1);
    pthread_create(&b, NULL, harness_worker, (void *)2);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}}
"#
    )
}
