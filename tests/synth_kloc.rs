//! The corpus benchmark's synthetic programs (benches/corpus/synth_kloc.rs)
//! are real C: at 1 and 2 KLoC they compile with clang-14 under -Wall
//! -Wextra -Werror, have the size asked for, and, built and run, do what
//! their structure says. The benchmark itself does not run in CI; this is
//! its cheap guard.

#[path = "../benches/corpus/synth_kloc.rs"]
mod generator;

use generator::Starts;
use std::process::Command;

fn clang() -> std::path::PathBuf {
    concord::frontend::clang_path().expect("clang-14 (scripts/setup-machine installs it)")
}

#[test]
fn sizes_are_close_to_the_requested_kloc_and_grow_with_modules() {
    let one = generator::generate_kloc(1, Starts::Pointers);
    let two = generator::generate_kloc(2, Starts::Pointers);
    for (kloc, p) in [(1, &one), (2, &two)] {
        let target = kloc as f64 * 1000.0;
        let off = (p.lines as f64 - target).abs() / target;
        assert!(
            off <= 0.10,
            "{kloc} KLoC asked, {} lines generated ({:.0}% off)",
            p.lines,
            off * 100.0
        );
        assert_eq!(p.lines, p.source.lines().count());
    }
    assert!(
        two.modules > one.modules,
        "2 KLoC must have more modules than 1 KLoC ({} vs {})",
        two.modules,
        one.modules
    );
}

#[test]
fn one_and_two_kloc_compile_cleanly_and_run() {
    let dir = tempfile::tempdir().unwrap();
    for (kloc, starts) in [
        (1, Starts::Pointers),
        (2, Starts::Pointers),
        (1, Starts::Named),
        (2, Starts::Named),
    ] {
        let p = generator::generate_kloc(kloc, starts);
        let src = dir.path().join(format!("synth-{kloc}k-{starts:?}.c"));
        std::fs::write(&src, &p.source).unwrap();
        // concord's own flags for C input, plus strict warnings.
        let bc = src.with_extension("bc");
        let out = Command::new(clang())
            .args(["-g", "-O0", "-Xclang", "-disable-O0-optnone"])
            .args(["-std=gnu11", "-Wall", "-Wextra", "-Werror"])
            .args(["-c", "-emit-llvm"])
            .arg(&src)
            .arg("-o")
            .arg(&bc)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{kloc} KLoC ({starts:?}) does not compile:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );

        // Every module's init registers its table once before the threads
        // start, so the program ends by printing `<reports> reports,
        // <modules> maps`; no total goes negative (sums only grow by the
        // non-negative values put and shrink by values removed), so
        // reports is 0.
        let exe = src.with_extension("exe");
        let link = Command::new(clang())
            .arg(&src)
            .args(["-O1", "-pthread", "-o"])
            .arg(&exe)
            .output()
            .unwrap();
        assert!(
            link.status.success(),
            "{kloc} KLoC ({starts:?}) does not link:\n{}",
            String::from_utf8_lossy(&link.stderr)
        );
        let run = Command::new(&exe).output().unwrap();
        assert!(
            run.status.success(),
            "{kloc} KLoC ({starts:?}) program failed: {run:?}"
        );
        let stdout = String::from_utf8_lossy(&run.stdout);
        let last = stdout.lines().last().unwrap_or_default();
        assert_eq!(last, format!("0 reports, {} maps", p.modules), "{stdout}");
    }
}

/// The patched second version (module 0's `total` without its lock) has
/// the same modules and lines, differs from the first only in those two
/// lines, and still compiles cleanly: the benchmark diffs the pair at
/// every size.
#[test]
fn the_patched_version_changes_only_module_zeros_total() {
    use generator::Patch;
    let v1 = generator::generate_kloc_version(1, Starts::Pointers, Patch::None);
    let v2 = generator::generate_kloc_version(1, Starts::Pointers, Patch::LockRemoved);
    assert_eq!((v1.modules, v1.lines), (v2.modules, v2.lines));
    let changed: Vec<(&str, &str)> = v1
        .source
        .lines()
        .zip(v2.source.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(
        changed,
        [
            ("  lock_acquire(t->lock);", "  /* unlocked */"),
            ("  lock_release(t->lock);", "  /* unlocked */")
        ]
    );
    let in_total0 = v2.source.split("static long tab0_total").nth(1).unwrap();
    assert!(in_total0.starts_with("(void *self) {\n  struct tab0 *t = self;\n  /* unlocked */"));
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("v2.c");
    std::fs::write(&src, &v2.source).unwrap();
    let out = Command::new(clang())
        .args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"])
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
