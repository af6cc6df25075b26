//! Just enough of CMake to read which files a target of a project's
//! `CMakeLists.txt` compiles on one system: `set(VAR ...)`,
//! `list(APPEND VAR ...)` and `add_executable(NAME ...)` with `${VAR}`
//! expanded, inside `if`/`elseif`/`else`/`endif` whose conditions are
//! evaluated for that system. An option (`option`, `cmake_dependent_option`)
//! takes its default, its dependencies taken as met (a root-project build
//! with testing on, as a user builds it); a condition it cannot read counts
//! as false (options such as `ASAN`, `QEMU` are off by default).

use std::collections::BTreeMap;

#[derive(Default)]
pub struct Evaluated {
    pub variables: BTreeMap<String, Vec<String>>,
    /// `add_executable` targets: name -> their words (sources, `${...}` expanded).
    pub executables: BTreeMap<String, Vec<String>>,
}

impl Evaluated {
    pub fn list(&self, name: &str) -> &[String] {
        self.variables.get(name).map_or(&[], |v| v.as_slice())
    }
}

/// One `if` level: is its taken branch active, and was a branch taken yet.
struct Branch {
    active: bool,
    taken: bool,
}

pub fn evaluate(text: &str, system: &str) -> Evaluated {
    let mut out = Evaluated::default();
    let mut stack: Vec<Branch> = Vec::new();
    for (command, args) in commands(text) {
        let enclosing = stack.iter().all(|b| b.active);
        match command.as_str() {
            "if" => {
                let holds = enclosing && condition(&out, &args, system);
                stack.push(Branch {
                    active: holds,
                    taken: holds,
                });
            }
            "elseif" | "else" => {
                let outer = stack.len().saturating_sub(1);
                let outer_active = stack[..outer].iter().all(|b| b.active);
                if let Some(b) = stack.last_mut() {
                    let holds = !b.taken
                        && outer_active
                        && (command == "else" || condition(&out, &args, system));
                    b.active = holds;
                    b.taken |= holds;
                }
            }
            "endif" => {
                stack.pop();
            }
            _ if !enclosing => {}
            "set" => {
                if let Some((name, values)) = args.split_first() {
                    let words = expand(&out, values);
                    out.variables.insert(name.clone(), words);
                }
            }
            // `option(NAME "doc" ON)`: the last word is the default;
            // `cmake_dependent_option(NAME "doc" ON "deps" OFF)`: the first
            // ON/OFF after the name (the doc's words come apart with the
            // quotes)
            "option" | "cmake_dependent_option" => {
                if let Some((name, rest)) = args.split_first() {
                    let on_off = |w: &&String| *w == "ON" || *w == "OFF";
                    let default = if command == "option" {
                        rest.last().filter(on_off)
                    } else {
                        rest.iter().find(on_off)
                    };
                    let value = default.map_or("OFF", String::as_str);
                    out.variables
                        .entry(name.clone())
                        .or_insert_with(|| vec![value.to_string()]);
                }
            }
            "list" if args.first().map(String::as_str) == Some("APPEND") => {
                if let Some(name) = args.get(1) {
                    let words = expand(&out, &args[2..]);
                    out.variables.entry(name.clone()).or_default().extend(words);
                }
            }
            "add_executable" => {
                if let Some((name, values)) = args.split_first() {
                    let words = expand(&out, values);
                    out.executables.insert(name.clone(), words);
                }
            }
            _ => {}
        }
    }
    out
}

fn expand(out: &Evaluated, words: &[String]) -> Vec<String> {
    let mut expanded = Vec::new();
    for w in words {
        match w.strip_prefix("${").and_then(|w| w.strip_suffix('}')) {
            Some(var) => expanded.extend(out.list(var).iter().cloned()),
            None => expanded.push(w.clone()),
        }
    }
    expanded
}

/// `A OR B`, `NOT X`, `CMAKE_SYSTEM_NAME STREQUAL "S"`,
/// `CMAKE_SYSTEM_NAME MATCHES "A|B"`, platform names (`WIN32`, `APPLE`,
/// `UNIX`); anything else is false.
fn condition(out: &Evaluated, args: &[String], system: &str) -> bool {
    let parts: Vec<&[String]> = args.split(|a| a == "OR").collect();
    parts.iter().any(|p| conjunction(out, p, system))
}

fn conjunction(out: &Evaluated, args: &[String], system: &str) -> bool {
    args.split(|a| a == "AND").all(|p| term(out, p, system))
}

fn term(out: &Evaluated, args: &[String], system: &str) -> bool {
    match args {
        [not, rest @ ..] if not == "NOT" => !term(out, rest, system),
        [var, op, value] if var == "CMAKE_SYSTEM_NAME" && op == "STREQUAL" => value == system,
        [var, op, pattern] if var == "CMAKE_SYSTEM_NAME" && op == "MATCHES" => {
            pattern.split('|').any(|alt| alt == system)
        }
        [name] if name == "UNIX" => system != "Windows",
        // an option or variable set to a true constant
        [name] => out
            .list(name)
            .first()
            .is_some_and(|v| matches!(v.as_str(), "ON" | "TRUE" | "YES" | "1")),
        _ => false,
    }
}

/// The commands of a CMake file with their arguments (quotes removed,
/// comments dropped), in order.
fn commands(text: &str) -> Vec<(String, Vec<String>)> {
    let text: String = text
        .lines()
        .map(|l| match l.find('#') {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find('(') {
        let name = rest[..open]
            .split_whitespace()
            .last()
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut depth = 0usize;
        let mut end = None;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { break };
        let args = rest[open + 1..end]
            .split_whitespace()
            .map(|w| w.trim_matches('"').to_string())
            .collect();
        out.push((name, args));
        rest = &rest[end + 1..];
    }
    out
}
