//! The corpus programs: which bundle, which commits (oldest first, so each
//! diff is a real patch between consecutive measured versions), which files
//! make the program and with which flags — each read off the project's own
//! build files, as a user would.

#[path = "cmake.rs"]
mod cmake;

use std::collections::BTreeMap;
use std::path::Path;

pub struct Subject {
    pub name: &'static str,
    /// File name under the corpus directory.
    pub bundle: &'static str,
    /// Commits in history order; the quick mode takes the first two.
    pub commits: &'static [&'static str],
    /// How the program is made: its sources and flags in a checkout.
    pub recipe: fn(&Path) -> Result<Recipe, String>,
    /// What the build stands for, printed in the report.
    pub what: &'static str,
}

pub struct Recipe {
    pub sources: Vec<String>,
    pub flags: Vec<String>,
}

pub const SUBJECTS: &[Subject] = &[
    Subject {
        name: "threadpool",
        bundle: "threadpool.bundle",
        // graceful shutdown; no unlock of a mutex not held; thread count
        // incremented as threads start (the corpus README's list).
        commits: &["9f1cc98", "dacea3a", "67e2d5f"],
        recipe: threadpool,
        what: "src/threadpool.c + tests/thrdtest.c (Makefile: -D_REENTRANT -Isrc)",
    },
    Subject {
        name: "pigz",
        bundle: "pigz-2007-2018.bundle",
        // thread synchronisation when tracing; race in free_pool();
        // destruct() removed from yarn.
        commits: &["3367727", "9ef658b", "43752cc"],
        recipe: pigz,
        what: "pigz.c + yarn.c (+ try.c where the Makefile links it; zopfli left out)",
    },
    Subject {
        name: "nbds",
        bundle: "nbds.bundle",
        // ht_iter_next() bug fix; refactoring of all three maps. Later
        // commits no longer build test/map_test1.c.
        commits: &["5aa9223", "778b8c8"],
        recipe: nbds,
        what: "makefile's map_test1_SRCS: runtime/*, datatype/nstring.c, map/{map,list,skiplist,hashtable}.c, test/map_test1.c (-std=gnu99 -Iinclude)",
    },
    Subject {
        name: "libuv",
        bundle: "libuv.bundle",
        // "unix: improve handling of uv_async_send mistakes" (src/unix/async.c).
        commits: &["88d6d362", "10902ab6"],
        recipe: libuv,
        what: "CMakeLists.txt's uv_run_benchmarks_a on Linux: uv_sources (common, unix, linux) + uv_test_sources + the benchmarks (-Iinclude -Isrc + uv_defines)",
    },
];

fn threadpool(dir: &Path) -> Result<Recipe, String> {
    let sources = ["src/threadpool.c", "tests/thrdtest.c"];
    require(dir, &sources)?;
    Ok(Recipe {
        sources: sources.iter().map(|s| s.to_string()).collect(),
        flags: vec!["-D_REENTRANT".into(), "-Isrc".into()],
    })
}

fn pigz(dir: &Path) -> Result<Recipe, String> {
    let mut sources = vec!["pigz.c".to_string(), "yarn.c".to_string()];
    // From 2.4 on, pigz's Makefile links try.o (its exception handling);
    // zopfli (the optional -11 compressor, single-threaded) stays external.
    if dir.join("try.c").is_file() {
        sources.push("try.c".into());
    }
    require(dir, &sources)?;
    Ok(Recipe {
        sources,
        flags: Vec::new(),
    })
}

fn nbds(dir: &Path) -> Result<Recipe, String> {
    let text =
        std::fs::read_to_string(dir.join("makefile")).map_err(|e| format!("nbds makefile: {e}"))?;
    let vars = make_variables(&text);
    let sources = expand(&vars, "map_test1_SRCS")?;
    require(dir, &sources)?;
    Ok(Recipe {
        sources,
        flags: vec!["-std=gnu99".into(), "-Iinclude".into()],
    })
}

/// libuv's benchmark runner as its CMakeLists.txt builds it on Linux: the
/// library's sources (common, unix, the Linux branches), the test runner
/// skeleton and the benchmark files of `add_executable(uv_run_benchmarks_a
/// ...)`, with the Linux defines.
fn libuv(dir: &Path) -> Result<Recipe, String> {
    let text = std::fs::read_to_string(dir.join("CMakeLists.txt"))
        .map_err(|e| format!("libuv CMakeLists.txt: {e}"))?;
    let cmake = cmake::evaluate(&text, "Linux");
    let target = cmake
        .executables
        .get("uv_run_benchmarks_a")
        .ok_or("CMakeLists.txt has no uv_run_benchmarks_a")?;
    let mut sources: Vec<String> = cmake.list("uv_sources").to_vec();
    sources.extend(target.iter().cloned());
    sources.retain(|s| s.ends_with(".c"));
    let mut seen = std::collections::HashSet::new();
    sources.retain(|s| seen.insert(s.clone()));
    require(dir, &sources)?;
    let mut flags = vec!["-Iinclude".to_string(), "-Isrc".to_string()];
    flags.extend(cmake.list("uv_defines").iter().map(|d| format!("-D{d}")));
    Ok(Recipe { sources, flags })
}

fn require<S: AsRef<str>>(dir: &Path, sources: &[S]) -> Result<(), String> {
    match sources.iter().find(|s| !dir.join(s.as_ref()).is_file()) {
        Some(missing) => Err(format!("{} is not in this commit", missing.as_ref())),
        None => Ok(()),
    }
}

/// `NAME := value` and `NAME = value` assignments of a makefile, with
/// backslash continuations joined and `#` comments dropped.
fn make_variables(text: &str) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    let mut logical = String::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        if let Some(head) = line.trim_end().strip_suffix('\\') {
            logical.push_str(head);
            logical.push(' ');
            continue;
        }
        logical.push_str(line);
        let whole = std::mem::take(&mut logical);
        let split = whole.split_once(":=").or_else(|| whole.split_once('='));
        if let Some((name, value)) = split {
            let name = name.trim();
            if !name.is_empty() && !name.contains(char::is_whitespace) {
                vars.insert(name.to_string(), value.trim().to_string());
            }
        }
    }
    vars
}

/// The words of `$(name)`, with `$(OTHER)` references expanded.
fn expand(vars: &BTreeMap<String, String>, name: &str) -> Result<Vec<String>, String> {
    let value = vars
        .get(name)
        .ok_or_else(|| format!("makefile has no {name}"))?;
    let mut words = Vec::new();
    for word in value.split_whitespace() {
        match word.strip_prefix("$(").and_then(|w| w.strip_suffix(')')) {
            Some(inner) => words.extend(expand(vars, inner)?),
            None => words.push(word.to_string()),
        }
    }
    Ok(words)
}
