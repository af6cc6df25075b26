//! A version given as a list of C files rather than one path: `a.c,b.c` on
//! the command line, or `@FILE` naming a file that lists them, one a line.
//! Like a build's `compile_commands.json` (see [`crate::compdb`]), each
//! file is a translation unit, compiled on its own and linked; units are
//! named relative to the deepest directory holding them all, so two
//! checkouts (`old/src/a.c`, `new/src/a.c`) name their files alike and are
//! matched file by file.

use crate::compdb::Unit;
use crate::error::{ConcordError, Result};
use std::path::{Path, PathBuf};

/// The translation units of a list, and the directory they are named from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileList {
    /// The deepest directory holding every file (absolute).
    pub root: PathBuf,
    /// The files relative to `root`, in the order given.
    pub units: Vec<Unit>,
}

/// Does `arg` name a list (`a.c,b.c` or `@FILE`)? A path that exists is
/// always itself, never a list, so a file whose name holds a comma or
/// starts with `@` still reads as a file.
pub fn is_list(arg: &Path) -> bool {
    // On bytes: a list whose names are not UTF-8 is still a list (refused
    // by `parse` for its names, not "not found" as one file).
    let bytes = arg.as_os_str().as_encoded_bytes();
    !arg.exists() && (bytes.starts_with(b"@") || bytes.contains(&b','))
}

/// Parse a list argument into its units. Relative names in `a.c,b.c` are
/// taken from the current directory, those of an `@FILE` from the
/// directory holding FILE (as `compile_commands.json` names files from its
/// entries' directories). Every file must exist and be a `.c` file.
pub fn parse(arg: &Path) -> Result<FileList> {
    let text = arg.to_str().ok_or_else(|| ConcordError::InputUnreadable {
        path: arg.to_path_buf(),
        reason: "a file name in the list is not valid UTF-8\n  hint: rename the file (or its directory); concord reports file names as text".into(),
    })?;
    let (names, base): (Vec<String>, PathBuf) = if let Some(list) = text.strip_prefix('@') {
        let list = Path::new(list);
        if !list.exists() {
            return Err(ConcordError::InputMissing {
                path: list.to_path_buf(),
            });
        }
        crate::frontend::check_readable_file(list)?;
        let body = std::fs::read_to_string(list).map_err(|e| ConcordError::InputUnreadable {
            path: list.to_path_buf(),
            reason: e.to_string(),
        })?;
        let names = body
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(String::from)
            .collect();
        (names, list.parent().unwrap_or(Path::new("")).to_path_buf())
    } else {
        if text.split(',').any(|n| n.trim().is_empty()) {
            return Err(ConcordError::Usage(format!(
                "`{text}`: an empty name in a list of C files\n  hint: separate the files with single commas: old/a.c,old/b.c"
            )));
        }
        let names = text.split(',').map(|n| n.trim().to_string()).collect();
        (names, PathBuf::new())
    };
    if names.is_empty() {
        return Err(ConcordError::InputUnreadable {
            path: arg.to_path_buf(),
            reason: "the list names no C file".into(),
        });
    }
    let mut files = Vec::new();
    for name in &names {
        let path = base.join(name);
        if !path.exists() {
            return Err(ConcordError::InputMissing { path });
        }
        crate::frontend::check_readable_file(&path)?;
        if !path.extension().is_some_and(|e| e == "c") {
            return Err(ConcordError::InputUnreadable {
                path,
                reason: "not a .c file: a list names C translation units, each compiled and then linked\n  hint: give .ll or .bc input on its own, or link it first (llvm-link-14)".into(),
            });
        }
        let abs = std::fs::canonicalize(&path).map_err(|e| ConcordError::InputUnreadable {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        if files.contains(&abs) {
            return Err(ConcordError::Usage(format!(
                "{} is listed twice in `{text}`",
                path.display()
            )));
        }
        files.push(abs);
    }
    let root = common_dir(&files);
    let units = files
        .iter()
        .map(|f| Unit {
            file: f.strip_prefix(&root).unwrap_or(f).to_path_buf(),
            flags: Vec::new(),
        })
        .collect();
    Ok(FileList { root, units })
}

/// The deepest directory that holds every one of `files` (absolute paths).
fn common_dir(files: &[PathBuf]) -> PathBuf {
    let mut root = files[0].parent().unwrap_or(Path::new("/")).to_path_buf();
    for f in &files[1..] {
        while !f.starts_with(&root) {
            if !root.pop() {
                break;
            }
        }
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_deepest_common_directory() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(common_dir(&[p("/a/b/x.c"), p("/a/b/y.c")]), p("/a/b"));
        assert_eq!(common_dir(&[p("/a/b/x.c"), p("/a/c/y.c")]), p("/a"));
        assert_eq!(common_dir(&[p("/a/b/x.c"), p("/a/b/c/y.c")]), p("/a/b"));
        // A sibling whose name extends the root's is not inside it.
        assert_eq!(common_dir(&[p("/a/b/x.c"), p("/a/bc/y.c")]), p("/a"));
    }

    #[test]
    fn lists_name_units_from_their_root_and_refuse_what_is_not_c() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("v/src")).unwrap();
        for f in ["v/src/a.c", "v/b.c", "v/x.ll"] {
            std::fs::write(d.join(f), "").unwrap();
        }
        let comma = format!("{0}/v/src/a.c,{0}/v/b.c", d.display());
        assert!(is_list(Path::new(&comma)));
        let l = parse(Path::new(&comma)).unwrap();
        assert_eq!(l.root, std::fs::canonicalize(d.join("v")).unwrap());
        let names: Vec<_> = l.units.iter().map(|u| u.file.clone()).collect();
        assert_eq!(names, vec![PathBuf::from("src/a.c"), PathBuf::from("b.c")]);

        // @FILE: names relative to the list's directory, comments skipped.
        std::fs::write(d.join("v/units.txt"), "# the program\nsrc/a.c\n\n  b.c\n").unwrap();
        let at = format!("@{}/v/units.txt", d.display());
        assert_eq!(parse(Path::new(&at)).unwrap(), l);

        let missing = format!("{0}/v/src/a.c,{0}/v/nope.c", d.display());
        assert!(matches!(
            parse(Path::new(&missing)),
            Err(ConcordError::InputMissing { path }) if path.ends_with("nope.c")
        ));
        let ir = format!("{0}/v/src/a.c,{0}/v/x.ll", d.display());
        assert!(matches!(
            parse(Path::new(&ir)),
            Err(ConcordError::InputUnreadable { .. })
        ));
        let twice = format!("{0}/v/b.c,{0}/v/src/../b.c", d.display());
        assert!(matches!(
            parse(Path::new(&twice)),
            Err(ConcordError::Usage(_))
        ));
        assert!(matches!(
            parse(Path::new(&format!("{},", d.join("v/b.c").display()))),
            Err(ConcordError::Usage(_))
        ));
        // An existing file is itself, even with a comma in its name.
        std::fs::write(d.join("v/odd,name.c"), "").unwrap();
        assert!(!is_list(&d.join("v/odd,name.c")));
    }
}
