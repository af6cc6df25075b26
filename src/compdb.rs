//! A build's `compile_commands.json` (what CMake, Bear and meson write):
//! which C translation units make the program and the flags that change
//! what each one means or how the units link (include paths, macros,
//! language standard, `-fcommon`, the signedness of `char`, ...). Every
//! other flag (optimisation, warnings, output) is dropped: concord compiles
//! with its own.

use crate::error::{ConcordError, Result};
use std::path::{Path, PathBuf};

/// One C translation unit of a build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The source as clang is given it: relative to the version's root
    /// when it lies inside, so both versions name a file alike.
    pub file: PathBuf,
    /// The flags kept from its compile command, paths made absolute.
    pub flags: Vec<String>,
}

#[derive(serde::Deserialize)]
struct Entry {
    directory: PathBuf,
    file: PathBuf,
    arguments: Option<Vec<String>>,
    command: Option<String>,
}

/// Where a version directory keeps its compilation database, if anywhere.
pub fn find(root: &Path) -> Option<PathBuf> {
    ["compile_commands.json", "build/compile_commands.json"]
        .iter()
        .map(|n| root.join(n))
        .find(|p| p.is_file())
}

/// The C units of the database at `db`, named relative to `root`.
pub fn units(root: &Path, db: &Path) -> Result<Vec<Unit>> {
    let bad = |reason: String| ConcordError::InputUnreadable {
        path: db.to_path_buf(),
        reason,
    };
    let text = std::fs::read_to_string(db).map_err(|e| bad(e.to_string()))?;
    let entries: Vec<Entry> =
        serde_json::from_str(&text).map_err(|e| bad(format!("not a compilation database: {e}")))?;
    let root_abs = std::fs::canonicalize(root).map_err(|e| bad(e.to_string()))?;
    let mut units: Vec<Unit> = Vec::new();
    for e in entries {
        if !e.file.extension().is_some_and(|x| x == "c") {
            continue;
        }
        let args = match (e.arguments, e.command) {
            (Some(a), _) => a,
            (None, Some(c)) => split_command(&c),
            (None, None) => {
                return Err(bad(format!(
                    "{}: no arguments or command",
                    e.file.display()
                )))
            }
        };
        let dir = if e.directory.is_absolute() {
            e.directory.clone()
        } else {
            root_abs.join(&e.directory)
        };
        let abs = dir.join(&e.file);
        let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
        let file = abs
            .strip_prefix(&root_abs)
            .map(Path::to_path_buf)
            .unwrap_or(abs.clone());
        let flags = kept_flags(&args, &dir);
        if !units.iter().any(|u| u.file == file) {
            units.push(Unit { file, flags });
        }
    }
    if units.is_empty() {
        return Err(bad(
            "no C translation unit (.c) in the compilation database".into(),
        ));
    }
    units.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(units)
}

/// Flags that take a value, and whether that value is a path.
const WITH_VALUE: &[(&str, bool)] = &[
    ("-I", true),
    ("-isystem", true),
    ("-iquote", true),
    ("-idirafter", true),
    ("-include", true),
    ("-imacros", true),
    ("-D", false),
    ("-U", false),
];

/// Keep the flags that change the meaning of the source; make relative
/// paths absolute (clang runs from the version's root, not `dir`).
pub fn kept_flags(args: &[String], dir: &Path) -> Vec<String> {
    let abs = |p: &str| {
        let path = Path::new(p);
        if path.is_absolute() {
            p.to_string()
        } else {
            dir.join(path).display().to_string()
        }
    };
    let mut out = Vec::new();
    let mut i = 1; // args[0] is the compiler
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if let Some(&(flag, is_path)) = WITH_VALUE.iter().find(|(f, _)| a == f) {
            if let Some(v) = args.get(i) {
                i += 1;
                out.push(flag.to_string());
                out.push(if is_path { abs(v) } else { v.clone() });
            }
            continue;
        }
        if let Some(&(flag, is_path)) = WITH_VALUE
            .iter()
            .filter(|(f, _)| f.len() == 2)
            .find(|(f, _)| a.starts_with(f))
        {
            let v = &a[flag.len()..];
            out.push(format!(
                "{flag}{}",
                if is_path { abs(v) } else { v.to_string() }
            ));
            continue;
        }
        if a.starts_with("-std=") || a == "-pthread" || a == "-ansi" || changes_meaning(a) {
            out.push(a.clone());
        }
    }
    out
}

/// `-f` flags that change what the program means or how its units link:
/// `-fcommon` makes tentative definitions of one global in two files one
/// object (dropping it makes the link fail: "multiply defined"), the
/// signedness of `char`, enum and `wchar_t` sizes, struct packing, signed
/// overflow, inline semantics and builtins.
const MEANINGFUL_F_FLAGS: &[&str] = &[
    "common",
    "signed-char",
    "unsigned-char",
    "short-enums",
    "short-wchar",
    "pack-struct",
    "wrapv",
    "trapv",
    "gnu89-inline",
    "signed-bitfields",
    "unsigned-bitfields",
    "builtin",
    "ms-extensions",
    "dollars-in-identifiers",
    "asm",
    "gnu-keywords",
];

fn changes_meaning(flag: &str) -> bool {
    let Some(rest) = flag.strip_prefix("-f") else {
        return false;
    };
    let rest = rest.strip_prefix("no-").unwrap_or(rest);
    MEANINGFUL_F_FLAGS.iter().any(|f| {
        rest == *f
            || rest
                .strip_prefix(f)
                .is_some_and(|tail| tail.starts_with('=') || tail.starts_with('-'))
    })
}

/// Split a shell command line into words: white space separates, single
/// quotes are literal, double quotes and backslashes escape.
pub fn split_command(cmd: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    word.push(d);
                }
            }
            '"' => {
                in_word = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                word.push(e);
                            }
                        }
                        _ => word.push(d),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(e) = chars.next() {
                    word.push(e);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_command(r#"cc -DNAME="a b" -I'x y' -c  f.c"#),
            vec!["cc", "-DNAME=a b", "-Ix y", "-c", "f.c"]
        );
        assert_eq!(split_command(r"cc a\ b.c"), vec!["cc", "a b.c"]);
    }

    #[test]
    fn flags_that_change_linkage_or_meaning_survive() {
        let args: Vec<String> = [
            "cc",
            "-fcommon",
            "-fno-common",
            "-funsigned-char",
            "-fno-signed-char",
            "-fpack-struct=4",
            "-fno-builtin-malloc",
            "-fPIC",
            "-fstack-protector",
            "-c",
            "a.c",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            kept_flags(&args, Path::new("/p")),
            vec![
                "-fcommon",
                "-fno-common",
                "-funsigned-char",
                "-fno-signed-char",
                "-fpack-struct=4",
                "-fno-builtin-malloc"
            ]
        );
    }

    #[test]
    fn only_meaningful_flags_survive_with_absolute_paths() {
        let args: Vec<String> = [
            "gcc", "-O2", "-Wall", "-Iinc", "-I", "/abs", "-DX=1", "-D", "Y", "-std=c11",
            "-include", "cfg.h", "-c", "a.c", "-o", "a.o",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            kept_flags(&args, Path::new("/p/build")),
            vec![
                "-I/p/build/inc",
                "-I",
                "/abs",
                "-DX=1",
                "-D",
                "Y",
                "-std=c11",
                "-include",
                "/p/build/cfg.h"
            ]
        );
    }
}
