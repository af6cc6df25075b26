//! The invariants of `ARCHITECTURE.md`, checked against the import graph of
//! `src/`. Each invariant is a [`Rule`]: the modules it binds and the paths
//! they must not name. The graph is read from the source text: every `use`
//! tree (braces expanded, `self`/`super` resolved) and every `crate::…` or
//! external-crate path written in code; comments, doc comments and each
//! file's trailing `#[cfg(test)]` module are left out (a test may reach
//! anywhere). `violating_graphs_are_caught` feeds hand-written import lists
//! that break each rule, so a rule that can no longer fail is noticed.

use std::path::{Path, PathBuf};

/// One path a module names: `to` is crate-relative for this crate's items
/// (`facts::schema::RELATIONS`) and starts with the crate's name for an
/// external crate (`clap::Parser`). A glob import ends in `*`.
#[derive(Debug, Clone)]
struct Import {
    /// The importing module (`symex::engine::dpor`; `main` / `bin::x` for binaries).
    from: String,
    to: String,
    /// `file:line`, for the failure message.
    at: String,
}

/// An invariant: modules under any of `modules` must not name a path under
/// any of `forbidden`, unless the importing module is under one of `allowed_in`.
struct Rule {
    name: &'static str,
    modules: &'static [&'static str],
    forbidden: &'static [&'static str],
    allowed_in: &'static [&'static str],
}

/// `a::b` is under `a` and under `a::b`, not under `a::bc`. `""` covers everything.
fn under(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix
        || (path.starts_with(prefix) && path[prefix.len()..].starts_with("::"))
}

/// The library's layers, lowest first; each may import only layers below it
/// (and the shared utilities `error`, `budget`, `parallel`, `ir`, `calls`).
const RULES: &[Rule] = &[
    Rule {
        name: "the call table and the IR helpers are leaves: they import no other part of concord",
        modules: &["calls", "ir"],
        forbidden: &[
            "frontend", "compdb", "filelist", "facts", "datalog", "versions", "analysis", "load",
            "report", "symex", "pipeline", "cli", "budget", "error",
        ],
        allowed_in: &[],
    },
    Rule {
        name: "the front end knows nothing of facts, analyses, reports or symex",
        modules: &["frontend", "compdb", "filelist"],
        forbidden: &[
            "facts", "datalog", "analysis", "versions", "load", "report", "symex", "cli",
        ],
        allowed_in: &[],
    },
    Rule {
        name: "facts do not import the analyses, reports, symex or the command line",
        modules: &["facts"],
        forbidden: &["analysis", "versions", "load", "report", "symex", "cli"],
        allowed_in: &[],
    },
    Rule {
        name: "the datalog layer runs programs over facts; it is below the analyses",
        modules: &["datalog"],
        forbidden: &["analysis", "versions", "load", "report", "symex", "pipeline", "cli"],
        allowed_in: &[],
    },
    Rule {
        name: "version matching works on facts only",
        modules: &["versions"],
        forbidden: &["analysis", "load", "report", "symex", "cli"],
        allowed_in: &[],
    },
    Rule {
        name: "the analyses do not import reports, symex or the command line",
        modules: &["analysis", "datalog"],
        forbidden: &["report", "symex", "cli", "load"],
        allowed_in: &[],
    },
    Rule {
        name: "loading produces versions; it runs no analysis and renders nothing",
        modules: &["load"],
        forbidden: &["analysis", "report", "symex", "pipeline", "cli"],
        allowed_in: &[],
    },
    Rule {
        name: "pipelines are the top of the library: nothing below calls them",
        modules: &[
            "frontend", "compdb", "filelist", "facts", "datalog", "versions", "analysis", "load",
            "report", "symex",
        ],
        forbidden: &["pipeline"],
        allowed_in: &[],
    },
    Rule {
        name: "reports render results; they do not run symex or parse arguments",
        modules: &["report"],
        forbidden: &["cli", "symex::engine"],
        allowed_in: &[],
    },
    Rule {
        name: "the symex engine imports nothing from the analyses, versions, loading, reports, the command line or the symex layers above it",
        modules: &["symex::engine"],
        forbidden: &[
            "analysis",
            "versions",
            "load",
            "report",
            "cli",
            "pipeline",
            "symex::directed",
            "symex::incremental",
            "symex::store",
            "symex::output",
            "rusqlite",
            "clap",
        ],
        allowed_in: &[],
    },
    Rule {
        name: "the library does not import its command line",
        modules: &[""],
        forbidden: &["cli"],
        allowed_in: &["cli", "main", "bin"],
    },
    Rule {
        name: "only src/cli knows clap",
        modules: &[""],
        forbidden: &["clap"],
        allowed_in: &["cli", "main", "bin"],
    },
    Rule {
        name: "the scheduler names no concrete strategy: the engine reaches them through their traits",
        modules: &["symex::engine"],
        forbidden: &[
            "symex::engine::strategy::full",
            "symex::engine::strategy::dpor",
            "symex::engine::strategy::odpor",
            "symex::engine::strategy::assertion_guided",
        ],
        allowed_in: &["symex::engine::strategy"],
    },
    Rule {
        name: "no glob imports of modules in the symex engine",
        modules: &["symex::engine"],
        forbidden: &["*"],
        allowed_in: &[],
    },
];

/// A glob import of a module's items (`super::*`, `dpor::*`): the reader
/// cannot tell where a name comes from. A glob of an enum's variants
/// (`Op::*`, by the capital) names one type and is allowed.
fn is_module_glob(path: &str) -> bool {
    let Some(head) = path.strip_suffix("*") else {
        return false;
    };
    let last = head
        .trim_end_matches("::")
        .rsplit("::")
        .next()
        .unwrap_or("");
    !last.chars().next().is_some_and(|c| c.is_ascii_uppercase())
}

/// The violations of `rules` in `imports`, one line each.
fn violations(imports: &[Import], rules: &[Rule]) -> Vec<String> {
    let mut out = Vec::new();
    for rule in rules {
        for i in imports {
            let bound = rule.modules.iter().any(|m| under(&i.from, m));
            let exempt = rule.allowed_in.iter().any(|m| under(&i.from, m));
            let glob = is_module_glob(&i.to);
            let hit = rule
                .forbidden
                .iter()
                .any(|f| if *f == "*" { glob } else { under(&i.to, f) });
            if bound && !exempt && hit {
                out.push(format!(
                    "{}: `{}` names `{}` ({})",
                    i.at, i.from, i.to, rule.name
                ));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Reading the import graph from the source.

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module a file under `src/` defines: `symex/engine/mod.rs` →
/// `symex::engine`, `facts/io.rs` → `facts::io`, `lib.rs` → `""`.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts.join("::")
}

/// Source text without comments and without the trailing test module.
fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut in_block_comment = false;
    let all: Vec<&str> = text.lines().collect();
    for (n, line) in all.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]")
            && all
                .get(n + 1)
                .is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            break;
        }
        let mut code = String::new();
        let mut rest = *line;
        loop {
            if in_block_comment {
                match rest.find("*/") {
                    Some(e) => {
                        rest = &rest[e + 2..];
                        in_block_comment = false;
                    }
                    None => break,
                }
            } else {
                let line_c = rest.find("//");
                let block_c = rest.find("/*");
                match (line_c, block_c) {
                    (Some(l), Some(b)) if b < l => {
                        code.push_str(&rest[..b]);
                        rest = &rest[b + 2..];
                        in_block_comment = true;
                    }
                    (None, Some(b)) => {
                        code.push_str(&rest[..b]);
                        rest = &rest[b + 2..];
                        in_block_comment = true;
                    }
                    (Some(l), _) => {
                        code.push_str(&rest[..l]);
                        break;
                    }
                    (None, None) => {
                        code.push_str(rest);
                        break;
                    }
                }
            }
        }
        lines.push((n + 1, code));
    }
    lines
}

/// Expand a `use` tree (`a::{b, c::{d, e}}`) into full paths.
fn expand_use_tree(tree: &str) -> Vec<String> {
    // `x as y` keeps `x`: mark the rename before whitespace goes.
    let tree: String = tree
        .replace(" as ", "@")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    fn go(prefix: &str, t: &str, out: &mut Vec<String>) {
        // Split `t` at top-level commas.
        let mut depth = 0;
        let mut start = 0;
        let mut items = Vec::new();
        for (i, c) in t.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&t[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&t[start..]);
        for item in items.into_iter().filter(|s| !s.is_empty()) {
            let join = |p: &str, s: &str| {
                if p.is_empty() {
                    s.to_string()
                } else if s == "self" {
                    p.to_string()
                } else {
                    format!("{p}::{s}")
                }
            };
            if let Some(open) = item.find('{') {
                let head = item[..open].trim_end_matches("::");
                let inner = &item[open + 1..item.len() - 1];
                go(&join(prefix, head), inner, out);
            } else {
                let item = item.split('@').next().unwrap_or(item);
                out.push(join(prefix, item.trim_end_matches("::")));
            }
        }
    }
    let mut out = Vec::new();
    go("", &tree, &mut out);
    out
}

/// Resolve a path written in `module` to a crate-relative (or external) path.
fn resolve(module: &str, path: &str) -> String {
    let path = path.trim_start_matches("::");
    if let Some(rest) = path.strip_prefix("crate::") {
        return rest.to_string();
    }
    if path == "crate" {
        return String::new();
    }
    let mut base: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut rest = path;
    let mut relative = false;
    loop {
        if let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
            relative = true;
        } else if let Some(r) = rest.strip_prefix("self::") {
            rest = r;
            relative = true;
        } else if rest == "super" {
            base.pop();
            rest = "";
            relative = true;
            break;
        } else {
            break;
        }
    }
    if !relative {
        // A crate name (`clap::…`, `concord::…`) or a module in scope;
        // either way it is recorded as written.
        return rest.to_string();
    }
    let mut parts: Vec<&str> = base;
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts.join("::")
}

/// Every path `module` names in `code`: its `use` trees and the
/// `crate::`/`super::` paths and `clap::`/`rusqlite::` paths in expressions.
fn imports_of(module: &str, file: &str, code: &[(usize, String)]) -> Vec<Import> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (n, line) in code {
        let t = line.trim();
        if let Some((start, mut acc)) = pending.take() {
            acc.push_str(t);
            if acc.contains(';') {
                push_use(module, file, start, &acc, &mut out);
            } else {
                pending = Some((start, acc));
            }
            continue;
        }
        let body = t
            .strip_prefix("pub(crate) use ")
            .or_else(|| t.strip_prefix("pub(super) use "))
            .or_else(|| t.strip_prefix("pub use "))
            .or_else(|| t.strip_prefix("use "));
        if let Some(body) = body {
            if body.contains(';') {
                push_use(module, file, *n, body, &mut out);
            } else {
                pending = Some((*n, body.to_string()));
            }
            continue;
        }
        for root in ["crate::", "super::", "clap::", "rusqlite::"] {
            let mut from = 0;
            while let Some(i) = t[from..].find(root) {
                let at = from + i;
                let preceded_by_ident = t[..at]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
                let end = t[at..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .map_or(t.len(), |e| at + e);
                if !preceded_by_ident {
                    let path = t[at..end].trim_end_matches(':');
                    out.push(Import {
                        from: module.to_string(),
                        to: resolve(module, path),
                        at: format!("{file}:{n}"),
                    });
                }
                from = end.max(at + root.len());
            }
        }
        if t.contains("derive(") && t.contains("clap") {
            out.push(Import {
                from: module.to_string(),
                to: "clap".into(),
                at: format!("{file}:{n}"),
            });
        }
    }
    out
}

fn push_use(module: &str, file: &str, line: usize, body: &str, out: &mut Vec<Import>) {
    let tree = body.split(';').next().unwrap_or("");
    for path in expand_use_tree(tree) {
        out.push(Import {
            from: module.to_string(),
            to: resolve(module, &path),
            at: format!("{file}:{line}"),
        });
    }
}

/// The import graph of the library and binaries under `src/`.
fn source_imports() -> Vec<Import> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut all = Vec::new();
    for p in files {
        let rel = p.strip_prefix(&src).unwrap();
        let module = module_of(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        let code = code_of(&text);
        all.extend(imports_of(&module, &rel.display().to_string(), &code));
    }
    all
}

#[test]
fn the_source_keeps_every_stated_invariant() {
    let imports = source_imports();
    // The reader found the graph: known edges are present.
    let has = |from: &str, to: &str| {
        imports
            .iter()
            .any(|i| under(&i.from, from) && under(&i.to, to))
    };
    assert!(has("report", "analysis"), "report → analysis edge read");
    assert!(has("cli", "clap"), "cli → clap edge read");
    assert!(has("symex::engine", "z3"), "engine → z3 edge read");
    let v = violations(&imports, RULES);
    assert!(v.is_empty(), "{}", v.join("\n"));
}

/// `src/symex/` holds no command-line code: the symex command line lives
/// in `src/cli/` (the clap rule above catches its imports; this catches a
/// command-line file that happens to import nothing of clap).
#[test]
fn symex_holds_no_command_line_files() {
    let symex = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/symex");
    let mut files = Vec::new();
    rust_files(&symex, &mut files);
    let cli: Vec<_> = files
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("cli"))
        })
        .collect();
    assert!(
        cli.is_empty(),
        "command-line files under src/symex: {cli:?}"
    );
}

fn edge(from: &str, to: &str) -> Import {
    Import {
        from: from.into(),
        to: to.into(),
        at: "given".into(),
    }
}

/// Every rule fires on an import list that breaks it, and stays quiet on
/// the same list with the offending edge moved into an allowed module.
#[test]
fn violating_graphs_are_caught() {
    let cases = [
        (edge("frontend", "facts::FactSet"), "front end"),
        (edge("calls", "facts::extract"), "are leaves"),
        (edge("ir", "symex::engine::Engine"), "are leaves"),
        (
            edge("facts::extract::pointsto", "analysis::run"),
            "facts do not",
        ),
        (edge("versions", "analysis::impact"), "version matching"),
        (
            edge("datalog", "analysis::diff::Side"),
            "below the analyses",
        ),
        (
            edge("analysis::diff", "report::text"),
            "the analyses do not",
        ),
        (
            edge("report::symex", "symex::engine::Engine"),
            "reports render",
        ),
        (
            edge("symex::engine::explore", "symex::directed::PathEnd"),
            "symex engine imports",
        ),
        (
            edge("symex::engine::persist", "rusqlite::Connection"),
            "symex engine imports",
        ),
        (
            edge("symex::engine", "analysis::impact"),
            "symex engine imports",
        ),
        (
            edge("load", "cli::InputArgs"),
            "does not import its command line",
        ),
        (
            edge("analysis", "clap::ValueEnum"),
            "only src/cli knows clap",
        ),
        (
            edge("symex::engine::dpor", "symex::engine::*"),
            "no glob imports",
        ),
        (
            edge(
                "symex::engine::explore",
                "symex::engine::strategy::dpor::Dpor",
            ),
            "names no concrete strategy",
        ),
        (
            edge(
                "symex::engine::transitions",
                "symex::engine::strategy::assertion_guided::NoPruning",
            ),
            "names no concrete strategy",
        ),
    ];
    for (import, rule) in &cases {
        let v = violations(std::slice::from_ref(import), RULES);
        assert!(
            v.iter().any(|line| line.contains(rule)),
            "{import:?} should break `{rule}`, got {v:?}"
        );
    }
    let fine = [
        edge("cli::diff", "clap::Parser"),
        edge("cli::diff", "pipeline::diff"),
        edge("pipeline::diff", "report::diff"),
        edge("cli", "analysis::diff"),
        edge("report::diff", "analysis::diff::SyncDiff"),
        edge("symex::incremental", "analysis::impact"),
        edge("symex::engine::dpor", "symex::engine::state::Thread"),
        edge("symex::engine::term", "Op::*"),
        edge(
            "symex::engine::explore",
            "symex::engine::strategy::NodeView",
        ),
        edge(
            "symex::engine::strategy",
            "symex::engine::strategy::odpor::Odpor",
        ),
        edge(
            "symex::engine::strategy::odpor",
            "symex::engine::transitions::DNode",
        ),
        edge("analysis::diffx", "facts::FactSet"),
        edge("facts_extra", "analysis"),
    ];
    let v = violations(&fine, RULES);
    assert!(v.is_empty(), "allowed edges flagged: {v:?}");
}

/// The reader itself: use trees, relative paths and comments.
#[test]
fn the_reader_expands_use_trees_and_resolves_relative_paths() {
    assert_eq!(
        expand_use_tree("crate::{facts::{self, FactSet}, analysis::run as r}"),
        vec![
            "crate::facts",
            "crate::facts::FactSet",
            "crate::analysis::run"
        ]
    );
    assert_eq!(
        resolve("symex::engine::dpor", "super::state::X"),
        "symex::engine::state::X"
    );
    assert_eq!(
        resolve("symex::engine", "super::directed::PathEnd"),
        "symex::directed::PathEnd"
    );
    assert_eq!(
        resolve("symex::engine::dpor", "super::*"),
        "symex::engine::*"
    );
    assert_eq!(resolve("facts", "crate::analysis"), "analysis");
    let code = code_of(
        "use crate::a; // crate::cli\n/* crate::cli */ fn f() { crate::b::c(); }\n#[cfg(test)]\nmod tests { use crate::cli; }\n",
    );
    let found: Vec<String> = imports_of("m", "m.rs", &code)
        .into_iter()
        .map(|i| i.to)
        .collect();
    assert_eq!(found, vec!["a", "b::c"]);
    assert_eq!(module_of(Path::new("symex/engine/mod.rs")), "symex::engine");
    assert_eq!(module_of(Path::new("facts/io.rs")), "facts::io");
    assert_eq!(module_of(Path::new("lib.rs")), "");
}
