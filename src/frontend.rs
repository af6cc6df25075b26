//! Turning a user's input (`.c`, `.ll`, `.bc`) into an `llvm_ir::Module`.
//!
//! Every input goes through LLVM 14's own tools in a child process before
//! llvm-ir sees it: clang-14 compiles C with fixed flags, and opt-14 runs
//! `mem2reg` (which also validates `.ll`/`.bc`). llvm-ir aborts the whole
//! process on IR it cannot read, so this early check is what lets us turn a
//! newer LLVM's bitcode into a clear error. No shell is ever involved.

mod llvm_c;

pub use llvm_c::{Layout, LlvmView};

use crate::error::{ConcordError, Result};
use llvm_c::LlvmModule;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The flags concord always compiles C with. `-disable-O0-optnone` lets
/// mem2reg run afterwards; value names keep local variable names readable.
pub const BASE_CFLAGS: &[&str] = &[
    "-g",
    "-O0",
    "-Xclang",
    "-disable-O0-optnone",
    "-fno-discard-value-names",
    "-c",
    "-emit-llvm",
];

/// Extra compiler input from the command line (`--cflags`, `-I`, `-D`).
#[derive(Debug, Clone, Default)]
pub struct CompileOptions {
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// Free-form extra flags, already split into words.
    pub extra_flags: Vec<String>,
}

impl CompileOptions {
    fn clang_args(&self) -> Vec<String> {
        let mut args: Vec<String> = Vec::new();
        for dir in &self.include_dirs {
            args.push(format!("-I{}", dir.display()));
        }
        for def in &self.defines {
            args.push(format!("-D{def}"));
        }
        args.extend(self.extra_flags.iter().cloned());
        args
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    C,
    LlvmText,
    Bitcode,
    /// A directory with `compile_commands.json`: its C units, linked.
    Build,
}

impl InputKind {
    pub fn of(path: &Path) -> Option<InputKind> {
        match path.extension()?.to_str()? {
            "c" | "i" => Some(InputKind::C),
            "ll" => Some(InputKind::LlvmText),
            "bc" => Some(InputKind::Bitcode),
            _ => None,
        }
    }
}

/// A loaded program: the module plus what we need to report about it.
pub struct Program {
    pub module: llvm_ir::Module,
    pub input: PathBuf,
    pub kind: InputKind,
    /// SHA-256 of the input bytes and the compile flags: identifies the version.
    pub input_sha256: String,
    /// For a build: its C sources as named in the debug information
    /// (relative to the build's root), in link order.
    pub units: Vec<PathBuf>,
    /// The normalised bitcode `module` was read from, kept while the
    /// program lives: extraction reads its debug information (struct
    /// member names, `facts::extract::names`), which llvm-ir does not model.
    pub bitcode: PathBuf,
    /// That debug information and the struct layouts, when they were read
    /// as the module was normalised (C sources and builds, which concord
    /// compiles itself); otherwise read from `bitcode` when needed.
    pub llvm_view: Option<LlvmView>,
    _work: tempfile::TempDir,
}

/// Load a program and require a `main` (concord analyses whole programs).
pub fn load_program(path: &Path, opts: &CompileOptions) -> Result<Program> {
    let program = load_module(path, opts)?;
    if program.module.get_func_by_name("main").is_none() {
        return Err(ConcordError::NoMain {
            path: path.to_path_buf(),
        });
    }
    Ok(program)
}

/// Load any module (no `main` required).
pub fn load_module(path: &Path, opts: &CompileOptions) -> Result<Program> {
    if !path.exists() {
        return Err(ConcordError::InputMissing {
            path: path.to_path_buf(),
        });
    }
    check_readable_file(path)?;
    let kind = InputKind::of(path).ok_or_else(|| ConcordError::InputKind {
        path: path.to_path_buf(),
    })?;
    let bytes = std::fs::read(path).map_err(|e| ConcordError::InputUnreadable {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    // opt reads an empty file as an empty module: say what it is instead
    // of "no main"
    if bytes.is_empty() && matches!(kind, InputKind::LlvmText | InputKind::Bitcode) {
        return Err(ConcordError::IrUnreadable {
            path: path.to_path_buf(),
            detail: "    the file is empty".into(),
        });
    }
    let mut hasher = Sha256::new();
    hasher.update(&bytes);
    for arg in opts.clang_args() {
        hasher.update(arg.as_bytes());
        hasher.update([0u8]);
    }
    let input_sha256 = format!("{:x}", hasher.finalize());

    let work = tempfile::tempdir().map_err(|e| ConcordError::Internal(e.to_string()))?;
    let _work_removed_on_exit = crate::cleanup::remove_on_early_exit(work.path());
    let ir_input = match kind {
        InputKind::C => {
            let out = work.path().join("compiled.bc");
            compile_c(path, opts, &out)?;
            out
        }
        InputKind::LlvmText | InputKind::Bitcode | InputKind::Build => path.to_path_buf(),
    };
    let normalized = work.path().join("normalized.bc");
    let (module, llvm_view) = if kind == InputKind::C {
        normalize_own(path, &ir_input, &normalized)?
    } else {
        // a user's `.ll`/`.bc` goes through opt-14, whose errors tell a
        // newer LLVM's output apart from garbage; not through LLVM in this
        // process, whose bitcode reader aborts it on some corrupt input
        // (`LLVM ERROR: Invalid abbrev number`, tests/fuzz_inputs.rs)
        run_mem2reg(path, &ir_input, &normalized, true)?;
        (read_bitcode(path, &normalized)?, None)
    };
    Ok(Program {
        module,
        input: path.to_path_buf(),
        kind,
        input_sha256,
        units: Vec::new(),
        bitcode: normalized,
        llvm_view,
        _work: work,
    })
}

/// Load a build: a directory whose `compile_commands.json` lists the C
/// translation units. Each unit is compiled from the directory with its own
/// flags (plus the command line's), the bitcode linked with llvm-link-14,
/// and the result read like any module; `main` is required.
pub fn load_build(root: &Path, opts: &CompileOptions) -> Result<Program> {
    if root.to_str().is_none() {
        return Err(ConcordError::InputUnreadable {
            path: root.to_path_buf(),
            reason: "the directory name is not valid UTF-8".into(),
        });
    }
    let db = crate::compdb::find(root).ok_or_else(|| ConcordError::InputUnreadable {
        path: root.to_path_buf(),
        reason: "a directory, but neither a fact directory (manifest.json) nor a build (compile_commands.json)".into(),
    })?;
    let units = crate::compdb::units(root, &db)?;
    load_units(root, units, root, opts)
}

/// Compile each unit from `root` with its own flags (plus the command
/// line's), link the bitcode with llvm-link-14 and read the result like any
/// module; `main` is required. `input` is what the user named (a build's
/// directory, a list of files) and what errors and the manifest mention.
pub fn load_units(
    root: &Path,
    units: Vec<crate::compdb::Unit>,
    input: &Path,
    opts: &CompileOptions,
) -> Result<Program> {
    let work = tempfile::tempdir().map_err(|e| ConcordError::Internal(e.to_string()))?;
    // clang runs from `root`: the command line's -I meant the user's directory.
    let cwd = std::env::current_dir().unwrap_or_default();
    let opts = &CompileOptions {
        include_dirs: opts.include_dirs.iter().map(|d| cwd.join(d)).collect(),
        ..opts.clone()
    };
    let mut hasher = Sha256::new();
    let mut bitcode = Vec::new();
    for (k, unit) in units.iter().enumerate() {
        let src = root.join(&unit.file);
        check_readable_file(&src)?;
        let bytes = std::fs::read(&src).map_err(|e| ConcordError::InputUnreadable {
            path: src.clone(),
            reason: e.to_string(),
        })?;
        hasher.update(unit.file.as_os_str().as_encoded_bytes());
        hasher.update([0u8]);
        hasher.update(&bytes);
        for f in unit.flags.iter().chain(&opts.clang_args()) {
            hasher.update(f.as_bytes());
            hasher.update([0u8]);
        }
        let out = work.path().join(format!("unit{k}.bc"));
        compile_unit(root, &unit.file, &unit.flags, opts, &out)?;
        bitcode.push(out);
    }
    let linked = work.path().join("linked.bc");
    link(input, &bitcode, &linked)?;
    let normalized = work.path().join("normalized.bc");
    let (module, llvm_view) = normalize_own(input, &linked, &normalized)?;
    if module.get_func_by_name("main").is_none() {
        return Err(ConcordError::NoMain {
            path: input.to_path_buf(),
        });
    }
    Ok(Program {
        module,
        input: input.to_path_buf(),
        kind: InputKind::Build,
        input_sha256: format!("{:x}", hasher.finalize()),
        units: units.into_iter().map(|u| u.file).collect(),
        bitcode: normalized,
        llvm_view,
        _work: work,
    })
}

/// Normalise bitcode concord's own clang-14 produced (it cannot come from a
/// newer LLVM): promote it to SSA in this process, write it to `out`, read
/// it with llvm-ir, and keep LLVM's view of it (struct layouts, debug
/// information) from the same parse. Bitcode LLVM cannot parse here goes
/// through opt-14 instead, whose message says what is wrong.
fn normalize_own(
    user_path: &Path,
    input: &Path,
    out: &Path,
) -> Result<(llvm_ir::Module, Option<LlvmView>)> {
    let Some(mut llvm) = LlvmModule::parse(input) else {
        run_mem2reg(user_path, input, out, false)?;
        return Ok((read_bitcode(user_path, out)?, None));
    };
    llvm.promote_to_ssa();
    if !llvm.write(out) {
        return Err(ConcordError::Internal(format!(
            "cannot write the normalised bitcode {}",
            out.display()
        )));
    }
    let module = read_bitcode(user_path, out)?;
    let view = llvm.view(&struct_names(&module));
    Ok((module, Some(view)))
}

/// LLVM's view of a program (struct layouts, debug information): the one
/// read as it was normalised, or read again from its bitcode; `None` when
/// LLVM cannot read that.
pub fn llvm_view(program: &Program) -> Option<std::borrow::Cow<'_, LlvmView>> {
    if let Some(view) = &program.llvm_view {
        return Some(std::borrow::Cow::Borrowed(view));
    }
    let llvm = LlvmModule::parse(&program.bitcode)?;
    Some(std::borrow::Cow::Owned(
        llvm.view(&struct_names(&program.module)),
    ))
}

/// The named struct types llvm-ir saw, whose layouts LLVM is asked for.
fn struct_names(module: &llvm_ir::Module) -> Vec<String> {
    module.types.all_struct_names().cloned().collect()
}

pub fn llvm_link_path() -> Result<PathBuf> {
    find_tool(
        "CONCORD_LLVM_LINK",
        &["llvm-link-14"],
        "llvm-link-14",
        "llvm-14",
    )
}

fn link(root: &Path, inputs: &[PathBuf], out: &Path) -> Result<()> {
    let tool = llvm_link_path()?;
    let output = crate::cleanup::output(Command::new(&tool).args(inputs).arg("-o").arg(out))
        .map_err(|e| cannot_run("llvm-link-14", "llvm-14", "CONCORD_LLVM_LINK", &tool, e))?;
    if !output.status.success() {
        return Err(ConcordError::CompileFailed {
            path: root.to_path_buf(),
            compiler: tool.display().to_string(),
            diagnostics: indent(&String::from_utf8_lossy(&output.stderr)),
        });
    }
    Ok(())
}

thread_local! {
    /// Set while llvm-ir converts a module: its panics are caught there.
    static READING_IR: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Read normalised bitcode with llvm-ir. llvm-ir panics on some valid IR
/// (a string that is not UTF-8 anywhere in the module, say); that panic is
/// caught and reported as unreadable IR instead of crashing the process.
fn read_bitcode(user_path: &Path, bitcode: &Path) -> Result<llvm_ir::Module> {
    READING_IR.with(|r| r.set(true));
    let read = std::panic::catch_unwind(|| llvm_ir::Module::from_bc_path(bitcode));
    READING_IR.with(|r| r.set(false));
    let detail = match read {
        Ok(Ok(module)) => return Ok(module),
        Ok(Err(detail)) => detail,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            format!("    the IR reader (llvm-ir) gave up: {msg}")
        }
    };
    Err(ConcordError::IrUnreadable {
        path: user_path.to_path_buf(),
        detail,
    })
}

/// Keep the panic hook quiet for the panics [`read_bitcode`] turns into
/// errors; every other panic is printed as before. Call once, early.
pub fn quiet_ir_reader_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !READING_IR.with(|r| r.get()) {
            default(info);
        }
    }));
}

/// Refuse what would hang, panic or be misread before any tool sees it: a
/// FIFO or device named `x.c` (reading it blocks), a directory, and a file
/// name that is not UTF-8 (the LLVM reader aborts on it, and reports name
/// files as text).
pub fn check_readable_file(path: &Path) -> Result<()> {
    let unreadable = |reason: &str| ConcordError::InputUnreadable {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    if path.to_str().is_none() {
        return Err(unreadable(
            "the file name is not valid UTF-8\n  hint: rename the file (or its directory); concord reports file names as text",
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| unreadable(&e.to_string()))?;
    if !meta.is_file() {
        return Err(unreadable(
            "not a regular file (a directory, FIFO or device)\n  hint: give concord a .c, .ll or .bc file",
        ));
    }
    Ok(())
}

/// A path as a command operand: a relative name starting with `-` would be
/// read as an option, so it gets a `./` in front.
pub fn operand(path: &Path) -> PathBuf {
    if path.is_relative() && path.as_os_str().as_encoded_bytes().first() == Some(&b'-') {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    }
}

/// Is `p` a file this process may execute?
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Find a tool: an explicit environment override, then the versioned name,
/// then LLVM 14's own bin directory.
fn find_tool(
    env_var: &'static str,
    names: &[&str],
    tool: &'static str,
    package: &'static str,
) -> Result<PathBuf> {
    if let Some(explicit) = std::env::var_os(env_var) {
        let p = PathBuf::from(explicit);
        if is_executable(&p) {
            return Ok(p);
        }
        let why = if p.is_file() { " (not executable)" } else { "" };
        return Err(ConcordError::ToolMissing {
            tool,
            looked_for: format!("{}={}{why}", env_var, p.display()),
            package,
            env_var,
        });
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(path_var) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path_var) {
            for name in names {
                candidates.push(dir.join(name));
            }
        }
    }
    for name in names {
        candidates.push(Path::new("/usr/lib/llvm-14/bin").join(name.trim_end_matches("-14")));
    }
    candidates
        .into_iter()
        .find(|p| is_executable(p))
        .ok_or_else(|| ConcordError::ToolMissing {
            tool,
            looked_for: format!("{} on PATH and /usr/lib/llvm-14/bin", names.join(", ")),
            package,
            env_var,
        })
}

pub fn clang_path() -> Result<PathBuf> {
    find_tool("CONCORD_CLANG", &["clang-14"], "clang-14", "clang-14")
}

pub fn opt_path() -> Result<PathBuf> {
    find_tool("CONCORD_OPT", &["opt-14"], "opt-14", "llvm-14")
}

/// `include/concord.h` (the symbolic-input marker), available to every C
/// input as `#include <concord.h>` wherever concord is installed.
const CONCORD_HEADER: &str = include_str!("../include/concord.h");

fn compile_c(src: &Path, opts: &CompileOptions, out: &Path) -> Result<()> {
    compile_unit(Path::new("."), src, &[], opts, out)
}

/// Compile one C file, run from `cwd`, with a unit's own flags before the
/// command line's.
fn compile_unit(
    cwd: &Path,
    src: &Path,
    unit_flags: &[String],
    opts: &CompileOptions,
    out: &Path,
) -> Result<()> {
    let clang = clang_path()?;
    let include = out.with_file_name("include");
    std::fs::create_dir_all(&include)
        .and_then(|_| std::fs::write(include.join("concord.h"), CONCORD_HEADER))
        .map_err(|e| ConcordError::Internal(format!("writing concord.h: {e}")))?;
    let output = crate::cleanup::output(
        Command::new(&clang)
            .current_dir(cwd)
            .args(BASE_CFLAGS)
            .args(unit_flags)
            .args(opts.clang_args())
            // After the user's -I, so a project's own concord.h wins.
            .arg("-idirafter")
            .arg(&include)
            .arg(operand(src))
            .arg("-o")
            .arg(out),
    )
    .map_err(|e| cannot_run("clang-14", "clang-14", "CONCORD_CLANG", &clang, e))?;
    if !output.status.success() {
        return Err(ConcordError::CompileFailed {
            path: if cwd == Path::new(".") {
                src.to_path_buf()
            } else {
                cwd.join(src)
            },
            compiler: clang.display().to_string(),
            diagnostics: indent(&String::from_utf8_lossy(&output.stderr)),
        });
    }
    // Flags like -E, -S or -fsyntax-only make clang succeed without bitcode.
    let bytes = std::fs::read(out).unwrap_or_default();
    if !bytes.starts_with(b"BC\xC0\xDE") {
        return Err(ConcordError::NoBitcode {
            path: src.to_path_buf(),
            flags: opts.extra_flags.join(" "),
        });
    }
    Ok(())
}

/// A tool that was found but cannot be started is as good as missing.
fn cannot_run(
    tool: &'static str,
    package: &'static str,
    env_var: &'static str,
    path: &Path,
    e: std::io::Error,
) -> ConcordError {
    ConcordError::ToolMissing {
        tool,
        looked_for: format!("{} ({e})", path.display()),
        package,
        env_var,
    }
}

/// Run `opt-14 -passes=mem2reg`; on failure, tell a newer LLVM's output
/// apart from plain garbage.
fn run_mem2reg(user_path: &Path, input: &Path, out: &Path, users_ir: bool) -> Result<()> {
    let opt = opt_path()?;
    let output = crate::cleanup::output(
        Command::new(&opt)
            .arg("-passes=mem2reg")
            .arg(operand(input))
            .arg("-o")
            .arg(out),
    )
    .map_err(|e| cannot_run("opt-14", "llvm-14", "CONCORD_OPT", &opt, e))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let ident = || {
        std::fs::read(input)
            .ok()
            .and_then(|b| newer_clang_ident(&b))
    };
    let newer = users_ir
        .then(|| newer_llvm_producer(&stderr).or_else(ident))
        .flatten();
    if let Some(producer) = newer {
        return Err(ConcordError::NewerLlvm {
            path: user_path.to_path_buf(),
            producer,
        });
    }
    Err(ConcordError::IrUnreadable {
        path: user_path.to_path_buf(),
        detail: indent(&stderr),
    })
}

/// LLVM's bitcode reader names the producer in its errors, e.g.
/// `(Producer: 'LLVM17.0.6' Reader: 'LLVM 14.0.6')`. Returns the producer
/// when it is a newer LLVM than 14.
pub fn newer_llvm_producer(stderr: &str) -> Option<String> {
    let start = stderr.find("Producer: '")? + "Producer: '".len();
    let rest = &stderr[start..];
    let producer = &rest[..rest.find('\'')?];
    let digits: String = producer
        .trim_start_matches("LLVM")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    match digits.parse::<u32>() {
        Ok(major) if major > 14 => Some(producer.to_string()),
        _ => None,
    }
}

/// clang records itself in `!llvm.ident` ("clang version 17.0.6"); the
/// string sits as plain bytes in both `.ll` and `.bc` files. Returns it
/// when it names a clang newer than 14.
pub fn newer_clang_ident(bytes: &[u8]) -> Option<String> {
    let needle = b"clang version ";
    let mut at = 0;
    while let Some(pos) = bytes[at..].windows(needle.len()).position(|w| w == needle) {
        let start = at + pos;
        let rest = &bytes[start + needle.len()..];
        let digits: String = rest
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .map(|&b| b as char)
            .collect();
        if let Ok(major) = digits.parse::<u32>() {
            if major > 14 {
                let end = rest
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || *b == b'.'))
                    .unwrap_or(rest.len());
                return Some(format!(
                    "clang version {}",
                    String::from_utf8_lossy(&rest[..end])
                ));
            }
        }
        at = start + needle.len();
    }
    None
}

fn indent(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn producer_detection_reads_llvm_error_text() {
        let msg = "opt-14: x.bc: error: Unknown attribute kind (86) (Producer: 'LLVM17.0.6' Reader: 'LLVM 14.0.6')";
        assert_eq!(newer_llvm_producer(msg).as_deref(), Some("LLVM17.0.6"));
        let same = "error: Invalid record (Producer: 'LLVM14.0.6' Reader: 'LLVM 14.0.6')";
        assert_eq!(newer_llvm_producer(same), None);
        assert_eq!(newer_llvm_producer("error: expected type"), None);
    }

    #[test]
    fn ident_detection_finds_newer_clang_only() {
        let text = b"!0 = !{!\"clang version 17.0.6 (https://x)\"}";
        assert_eq!(
            newer_clang_ident(text).as_deref(),
            Some("clang version 17.0.6")
        );
        assert_eq!(
            newer_clang_ident(b"!0 = !{!\"Debian clang version 14.0.6\"}"),
            None
        );
        assert_eq!(newer_clang_ident(b"no ident here"), None);
    }

    #[test]
    fn input_kind_by_extension() {
        assert_eq!(InputKind::of(Path::new("a.c")), Some(InputKind::C));
        assert_eq!(InputKind::of(Path::new("a.ll")), Some(InputKind::LlvmText));
        assert_eq!(InputKind::of(Path::new("a.bc")), Some(InputKind::Bitcode));
        assert_eq!(InputKind::of(Path::new("a.txt")), None);
    }
}
