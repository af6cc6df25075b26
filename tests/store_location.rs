//! Where `concord symex` keeps its summary store when not told
//! (docs/symex.md, "Summary store"): in the cache directory, one store per
//! program directory, and never in the user's source tree.

use std::path::Path;
use std::process::Command;

/// Two threads add under a lock: verified, with a few runs (quick).
const PROGRAM: &str = "#include <pthread.h>
#include <assert.h>
int n;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
void *add(void *a) { pthread_mutex_lock(&m); n++; pthread_mutex_unlock(&m); return a; }
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, add, 0);
  add(0);
  pthread_join(t, 0);
  assert(n == 2);
  return 0;
}
";

/// `concord ARGS` with HOME and XDG_CACHE_HOME as given (None: unset),
/// run in `cwd`.
fn concord(args: &[&str], cwd: &Path, home: &Path, xdg: Option<&Path>) -> (Option<i32>, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_concord"));
    c.args(args).current_dir(cwd).env("HOME", home);
    match xdg {
        Some(x) => c.env("XDG_CACHE_HOME", x),
        None => c.env_remove("XDG_CACHE_HOME"),
    };
    let o = c.output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr),
    )
}

/// Every file under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().to_string());
            }
        }
    }
    out.sort();
    out
}

/// The `.db` files of the cache's store directory.
fn stores_in(cache: &Path) -> Vec<String> {
    files_under(&cache.join("concord/summaries"))
        .into_iter()
        .filter(|f| f.ends_with(".db"))
        .collect()
}

#[test]
fn the_default_store_is_in_the_cache_and_the_source_tree_stays_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let (home, xdg, work) = (
        tmp.path().join("home"),
        tmp.path().join("xdg"),
        tmp.path().join("work"),
    );
    let (src_a, src_b) = (tmp.path().join("a"), tmp.path().join("b"));
    for d in [&home, &xdg, &work, &src_a, &src_b] {
        std::fs::create_dir_all(d).unwrap();
    }
    let prog_a = src_a.join("prog.c");
    let prog_b = src_b.join("prog.c");
    std::fs::write(&prog_a, PROGRAM).unwrap();
    std::fs::write(&prog_b, PROGRAM).unwrap();
    let (pa, pb) = (prog_a.to_str().unwrap(), prog_b.to_str().unwrap());

    // With XDG_CACHE_HOME: the store is under it.
    let (code, out) = concord(&["-q", "symex", pa], &work, &home, Some(&xdg));
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        files_under(&src_a),
        ["prog.c"],
        "nothing beside the program"
    );
    let stores = stores_in(&xdg);
    assert_eq!(stores.len(), 1, "{stores:?}");
    assert!(
        stores[0].starts_with("a-"),
        "named after its directory: {stores:?}"
    );
    assert!(files_under(&home).is_empty(), "{:?}", files_under(&home));

    // The same program again: the same store, which now holds two runs.
    let (code, out) = concord(&["-q", "symex", pa], &work, &home, Some(&xdg));
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(stores_in(&xdg), stores);
    let (code, ls) = concord(&["store", "ls", "--json", pa], &work, &home, Some(&xdg));
    assert_eq!(code, Some(0), "{ls}");
    let runs: serde_json::Value = serde_json::from_str(&ls).unwrap();
    assert_eq!(runs.as_array().map(Vec::len), Some(2), "{ls}");

    // A program of the same name in another directory: its own store.
    let (code, out) = concord(&["-q", "symex", pb], &work, &home, Some(&xdg));
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(stores_in(&xdg).len(), 2, "{:?}", stores_in(&xdg));
    assert_eq!(files_under(&src_b), ["prog.c"]);

    // Without XDG_CACHE_HOME: ~/.cache/concord.
    let (code, out) = concord(&["-q", "symex", pa], &work, &home, None);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(stores_in(&home.join(".cache")).len(), 1);
    assert_eq!(files_under(&src_a), ["prog.c"]);

    // --store still chooses.
    let chosen = tmp.path().join("mine.db");
    let (code, out) = concord(
        &["-q", "symex", pa, "--store", chosen.to_str().unwrap()],
        &work,
        &home,
        Some(&xdg),
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(chosen.is_file());
    assert_eq!(stores_in(&xdg).len(), 2);
    assert_eq!(files_under(&src_a), ["prog.c"]);
}
