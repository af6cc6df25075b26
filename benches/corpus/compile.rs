//! Building a program as a user would before handing it to concord: a
//! checkout of one commit from a corpus bundle, each C file compiled to
//! bitcode by clang-14 with the flags concord itself uses for `.c` input,
//! and the files linked into one module by llvm-link-14. concord then runs
//! `opt-14 -passes=mem2reg` on the `.bc` itself (src/frontend.rs does that
//! for every input), so no opt step here.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// concord's own flags for C input (`frontend::BASE_CFLAGS`), repeated here
/// because the benchmark drives the binary and not the library.
const CFLAGS: &[&str] = &[
    "-g",
    "-O0",
    "-Xclang",
    "-disable-O0-optnone",
    "-fno-discard-value-names",
    "-c",
    "-emit-llvm",
];

pub struct Tools {
    pub clang: PathBuf,
    pub llvm_link: PathBuf,
}

impl Tools {
    /// `CONCORD_CLANG` / `CONCORD_LLVM_LINK`, else the versioned names on
    /// PATH, else LLVM 14's bin directory.
    pub fn find() -> Result<Tools, String> {
        Ok(Tools {
            clang: find_tool("CONCORD_CLANG", "clang-14", "clang")?,
            llvm_link: find_tool("CONCORD_LLVM_LINK", "llvm-link-14", "llvm-link")?,
        })
    }
}

fn find_tool(env_var: &str, versioned: &str, plain: &str) -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(env_var) {
        return Ok(PathBuf::from(p));
    }
    let on_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|d| d.join(versioned));
    on_path
        .chain(std::iter::once(
            Path::new("/usr/lib/llvm-14/bin").join(plain),
        ))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!("{versioned} not found (PATH, /usr/lib/llvm-14/bin; or set {env_var})")
        })
}

/// A failed build step: what ran and what it said.
pub struct BuildError {
    pub step: String,
    pub detail: String,
}

impl BuildError {
    fn new(step: impl Into<String>, detail: impl Into<String>) -> Self {
        BuildError {
            step: step.into(),
            detail: detail.into(),
        }
    }
}

/// Run a build command in `dir`; its stderr on failure.
fn step(cmd: &mut Command, what: &str) -> Result<(), BuildError> {
    let out = cmd
        .output()
        .map_err(|e| BuildError::new(what, format!("could not start: {e}")))?;
    if out.status.success() {
        return Ok(());
    }
    Err(BuildError::new(
        format!("{what} ({})", out.status),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .args(["-c", "advice.detachedHead=false"]);
    c
}

/// `git clone --no-checkout` of a bundle (its HEAD may name no branch).
pub fn clone_bundle(bundle: &Path, dest: &Path) -> Result<(), BuildError> {
    step(
        Command::new("git")
            .args(["clone", "-q", "--no-checkout"])
            .arg(bundle)
            .arg(dest),
        &format!("git clone {}", bundle.display()),
    )
}

/// A worktree of `commit` at `dest`, so every version keeps its own
/// sources on disk (concord reads them to match lines across versions).
pub fn checkout(clone: &Path, commit: &str, dest: &Path) -> Result<(), BuildError> {
    step(
        git(clone)
            .args(["worktree", "add", "-q", "--detach"])
            .arg(dest)
            .arg(commit),
        &format!("git worktree add {commit}"),
    )
}

/// `<short hash> <date> <subject>` of a commit, for the report.
pub fn describe(clone: &Path, commit: &str) -> String {
    git(clone)
        .args(["log", "-1", "--date=short", "--format=%h %ad %s"])
        .arg(commit)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| commit.to_string())
}

/// Compile `sources` (relative to `dir`, compiled from `dir` like `make`
/// would) with `flags`, and link them into `out`. Returns the build time.
pub fn compile_and_link(
    tools: &Tools,
    dir: &Path,
    sources: &[String],
    flags: &[String],
    out: &Path,
) -> Result<Duration, BuildError> {
    let t0 = Instant::now();
    let objects = dir.join(".concord-bench-bc");
    std::fs::create_dir_all(&objects)
        .map_err(|e| BuildError::new("mkdir", format!("{}: {e}", objects.display())))?;
    let mut bitcode = Vec::new();
    for (i, src) in sources.iter().enumerate() {
        let stem = Path::new(src)
            .file_stem()
            .map_or_else(|| format!("f{i}"), |s| s.to_string_lossy().into_owned());
        let bc = objects.join(format!("{i:02}-{stem}.bc"));
        step(
            Command::new(&tools.clang)
                .current_dir(dir)
                .args(CFLAGS)
                .args(flags)
                .arg(src)
                .arg("-o")
                .arg(&bc),
            &format!("clang-14 {src}"),
        )?;
        bitcode.push(bc);
    }
    if let [only] = bitcode.as_slice() {
        std::fs::copy(only, out)
            .map_err(|e| BuildError::new("copy", format!("{}: {e}", out.display())))?;
    } else {
        step(
            Command::new(&tools.llvm_link)
                .args(&bitcode)
                .arg("-o")
                .arg(out),
            "llvm-link-14",
        )?;
    }
    Ok(t0.elapsed())
}

/// Compile one C file to bitcode (the synthetic programs).
pub fn compile_one(tools: &Tools, src: &Path, out: &Path) -> Result<Duration, BuildError> {
    let t0 = Instant::now();
    step(
        Command::new(&tools.clang)
            .args(CFLAGS)
            .arg(src)
            .arg("-o")
            .arg(out),
        &format!("clang-14 {}", src.display()),
    )?;
    Ok(t0.elapsed())
}
