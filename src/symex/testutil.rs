//! Compiling C test programs to an `llvm_ir::Module` (private helper until
//! `concord::frontend` is merged): clang-14 with fixed flags, then mem2reg.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Flags used to compile C for the executor.
pub const CLANG_FLAGS: &[&str] = &[
    "-g",
    "-O0",
    "-Xclang",
    "-disable-O0-optnone",
    "-fno-discard-value-names",
    "-emit-llvm",
    "-c",
];

fn tool(name: &str) -> String {
    for cand in [format!("/usr/lib/llvm-14/bin/{name}"), format!("{name}-14")] {
        if Path::new(&cand).exists() || which(&cand) {
            return cand;
        }
    }
    name.to_string()
}

fn which(p: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join(p).exists()))
        .unwrap_or(false)
}

/// Compile `src` (C, `.ll` or `.bc`) into bitcode in `dir`; returns the `.bc` path.
pub fn compile_to_bc(src: &Path, dir: &Path) -> Result<PathBuf, String> {
    let ext = src.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext == "bc" {
        return Ok(src.to_path_buf());
    }
    let stem = src.file_stem().and_then(|s| s.to_str()).unwrap_or("prog");
    let raw = dir.join(format!("{stem}.raw.bc"));
    let out = dir.join(format!("{stem}.bc"));
    if ext == "ll" {
        run(Command::new(tool("llvm-as")).arg(src).arg("-o").arg(&raw))?;
    } else {
        let inc = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
        run(Command::new(tool("clang"))
            .args(CLANG_FLAGS)
            .arg("-I")
            .arg(inc)
            .arg(src)
            .arg("-o")
            .arg(&raw))?;
    }
    run(Command::new(tool("opt"))
        .arg("-passes=mem2reg")
        .arg(&raw)
        .arg("-o")
        .arg(&out))?;
    Ok(out)
}

fn run(c: &mut Command) -> Result<(), String> {
    let o = c
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", c.get_program()))?;
    if !o.status.success() {
        return Err(format!(
            "{:?} failed:\n{}",
            c.get_program(),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(())
}

/// Compile and load a program.
pub fn load(src: &Path) -> Result<llvm_ir::Module, String> {
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("concord-symex-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let bc = compile_to_bc(src, &dir);
    let m = bc.and_then(|bc| llvm_ir::Module::from_bc_path(&bc));
    let _ = std::fs::remove_dir_all(&dir);
    m
}
