//! Loading a program for the executor's tests and benchmark: the shared
//! frontend (clang-14, mem2reg, LLVM-version checks), errors as text.

use std::path::Path;

/// Compile (if C) and load a program; no `main` needed.
pub fn load(src: &Path) -> Result<llvm_ir::Module, String> {
    crate::frontend::load_module(src, &crate::frontend::CompileOptions::default())
        .map(|p| p.module)
        .map_err(|e| e.to_string())
}
