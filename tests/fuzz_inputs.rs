//! Fuzz-style robustness: deterministic, seeded mutations of a real fact
//! directory (truncated lines, ids that point nowhere, swapped columns,
//! dropped files) and of real IR (.ll text and .bc bitcode, truncated or
//! with flipped bytes) are fed to the binary. Every run must end with a
//! documented exit code (docs/cli.md) and never panic (101) or die from a
//! signal. The seeds are fixed, so a failure reproduces.

use crate::common;
use common::{copy_dir, Rng};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PROGRAM: &str = "bench-programs/ecdiff-fig2-lock/v2.c";

fn concord(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_concord"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap()
}

/// A documented ending: `allowed` codes only, no panic, no signal.
fn check(what: &str, o: &Output, allowed: &[i32]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{what}: panic\n{err}");
    match o.status.code() {
        Some(c) => assert!(allowed.contains(&c), "{what}: exit {c}\n{err}"),
        None => panic!("{what}: killed by a signal\n{err}"),
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// One mutation of one non-empty file of a fact directory (most relations
/// of a small program are empty, and emptying an empty file mutates
/// nothing); returns its description.
fn mutate_fact_dir(dir: &Path, rng: &mut Rng) -> String {
    let all: Vec<PathBuf> = files(dir)
        .into_iter()
        .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() > 0))
        .collect();
    let f = &all[rng.below(all.len())];
    let name = f.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(f).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let kind = rng.below(6);
    let pick = |rng: &mut Rng, lines: &[String]| rng.below(lines.len());
    match kind {
        0 => {
            std::fs::remove_file(f).unwrap();
            return format!("dropped {name}");
        }
        1 => {
            // Truncate the file inside a line.
            let cut = rng.below(text.len());
            let mut b = text.into_bytes();
            b.truncate(cut);
            std::fs::write(f, b).unwrap();
            return format!("truncated {name} at byte {cut}");
        }
        2 if !lines.is_empty() => {
            // An id that points nowhere.
            let i = pick(rng, &lines);
            let mut cols: Vec<String> = lines[i].split('\t').map(String::from).collect();
            let c = rng.below(cols.len());
            cols[c] = ["4000000000", "99999", "-1", "x"][rng.below(4)].to_string();
            lines[i] = cols.join("\t");
        }
        3 if !lines.is_empty() => {
            // Two columns swapped.
            let i = pick(rng, &lines);
            let mut cols: Vec<String> = lines[i].split('\t').map(String::from).collect();
            if cols.len() > 1 {
                let a = rng.below(cols.len());
                let b = (a + 1) % cols.len();
                cols.swap(a, b);
            }
            lines[i] = cols.join("\t");
        }
        4 if !lines.is_empty() => {
            // A duplicated row (duplicate statement ids in statements.tsv).
            let i = pick(rng, &lines);
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        _ => {
            // A row lost in the middle, or the file emptied.
            if lines.is_empty() {
                return format!("{name} left empty");
            }
            let i = pick(rng, &lines);
            lines.remove(i);
        }
    }
    std::fs::write(f, lines.join("\n") + "\n").unwrap();
    format!("mutation {kind} of {name}")
}

#[test]
fn mutated_fact_directories_end_with_documented_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let good = tmp.path().join("good");
    let o = concord(&[
        "-q".as_ref(),
        "facts".as_ref(),
        "-o".as_ref(),
        good.as_os_str(),
        PROGRAM.as_ref(),
    ]);
    check("facts", &o, &[0]);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut rejected = 0;
    for case in 0..40 {
        let dir = tmp.path().join(format!("m{case}"));
        copy_dir(&good, &dir);
        let what = mutate_fact_dir(&dir, &mut rng);
        // query: 0 (printed) or 6 (malformed fact directory); diff or
        // changes against the intact directory: 0/1 or 6.
        let q = concord(&[
            "-q".as_ref(),
            "query".as_ref(),
            dir.as_os_str(),
            "shared_write".as_ref(),
        ]);
        check(&format!("query after {what}"), &q, &[0, 6]);
        let cmd = if case % 2 == 0 { "diff" } else { "changes" };
        let d = concord(&[
            "-q".as_ref(),
            cmd.as_ref(),
            good.as_os_str(),
            dir.as_os_str(),
        ]);
        check(&format!("{cmd} after {what}"), &d, &[0, 1, 6]);
        rejected += usize::from(q.status.code() == Some(6));
    }
    // The mutations are not all harmless: most are caught as malformed.
    assert!(rejected >= 20, "only {rejected} of 40 rejected");
}

#[test]
fn mutated_ir_ends_with_documented_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let ll = tmp.path().join("p.ll");
    let bc = tmp.path().join("p.bc");
    for (out, flag) in [(&ll, "-S"), (&bc, "-c")] {
        let st = Command::new("clang-14")
            .args(["-g", "-O0", "-emit-llvm", flag, "-o"])
            .arg(out)
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(PROGRAM))
            .status()
            .unwrap();
        assert!(st.success());
    }
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut accepted = 0;
    for case in 0..24 {
        let src = if case % 2 == 0 { &ll } else { &bc };
        let mut bytes = std::fs::read(src).unwrap();
        let what = if rng.below(2) == 0 {
            let cut = rng.below(bytes.len());
            bytes.truncate(cut);
            format!("truncated at {cut}")
        } else {
            let n = 1 + rng.below(8);
            for _ in 0..n {
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
            }
            format!("{n} flipped bits")
        };
        let ext = src.extension().unwrap().to_string_lossy().to_string();
        let p = tmp.path().join(format!("m{case}.{ext}"));
        std::fs::write(&p, &bytes).unwrap();
        let out = tmp.path().join(format!("f{case}"));
        let o = concord(&[
            "-q".as_ref(),
            "facts".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
            p.as_os_str(),
        ]);
        // 0: still a program; 6: unreadable IR; 7: outside the model.
        check(&format!("facts on {ext} {what}"), &o, &[0, 6, 7]);
        // The symbolic executor reads the same IR: a verdict (0, 1, 10)
        // or the same refusals, never a panic nor an internal error.
        let o = concord(&[
            "-q".as_ref(),
            "symex".as_ref(),
            "--no-store".as_ref(),
            "--max-time".as_ref(),
            "20".as_ref(),
            "--output-dir".as_ref(),
            tmp.path().join(format!("s{case}")).as_os_str(),
            p.as_os_str(),
        ]);
        check(&format!("symex on {ext} {what}"), &o, &[0, 1, 10, 6, 7]);
        accepted += usize::from(o.status.code().is_some_and(|c| [0, 1, 10].contains(&c)));
    }
    // Some mutations leave a program the executor explores.
    assert!(accepted > 0, "no mutated program was explored");
}
