//! The same single-version question, `rf_may` (may-read-from), answered by
//! concord (`concord query rf_may <facts>`) and by Soufflé's interpreter on
//! the same fact directory and the same rules (`concord rules --emit
//! souffle --program sync1`, the program `query rf_may` runs). Soufflé
//! writes every output relation of the program, concord prints one; both
//! row counts of `rf_may` are printed, and must agree.
//!
//! Compiled Soufflé (`souffle -o`) needs Soufflé's C++ headers, which the
//! tools directory does not ship (its README): that column is printed as
//! not available rather than left out silently.

use crate::child::{self, Limits, Outcome};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `$CONCORD_SOUFFLE`, else `../shared/tools/souffle/souffle`.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CONCORD_SOUFFLE") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/souffle/souffle");
    p.is_file().then_some(p)
}

/// What one side answered: wall seconds, peak MB, `rf_may` rows.
pub struct Answer {
    pub run: Outcome,
    pub rows: Option<usize>,
}

/// `concord query <facts> rf_may`; rows are stdout's lines after the
/// header (`w\tr`).
pub fn concord_query(bin: &Path, facts: &Path, limits: Limits) -> std::io::Result<Answer> {
    let run = child::run(
        Command::new(bin)
            .args(["query", "-q"])
            .arg(facts)
            .arg("rf_may"),
        limits,
    )?;
    let rows = run.exited_with(&[0]).then(|| {
        run.stdout
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .count()
    });
    Ok(Answer { run, rows })
}

/// Soufflé's interpreter (`-j 1`) on `program` (a `.dl` file) over
/// `facts`, writing into `out`.
pub fn interpreter(
    souffle: &Path,
    program: &Path,
    facts: &Path,
    out: &Path,
    limits: Limits,
) -> std::io::Result<Answer> {
    std::fs::create_dir_all(out)?;
    let run = child::run(
        Command::new(souffle)
            .args(["-j", "1", "-F"])
            .arg(facts)
            .arg("-D")
            .arg(out)
            .arg(program),
        limits,
    )?;
    let rows = run
        .exited_with(&[0])
        .then(|| std::fs::read_to_string(out.join("rf_may.csv")).ok())
        .flatten()
        .map(|t| t.lines().count());
    Ok(Answer { run, rows })
}

/// `concord rules --emit souffle --program <program>` into `out`.
pub fn emit_rules(bin: &Path, program: &str, out: &Path) -> Result<(), String> {
    let o = Command::new(bin)
        .args(["rules", "--emit", "souffle", "--program", program])
        .output()
        .map_err(|e| format!("concord rules: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "concord rules --program {program}: {}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    std::fs::write(out, &o.stdout).map_err(|e| format!("{}: {e}", out.display()))
}
