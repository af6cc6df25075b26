//! Errors that reach the user, each with its own documented exit code
//! (docs/cli.md lists them; keep the two in step).

use std::path::PathBuf;

/// Process exit codes. 0 and 1 carry a command's answer (for `diff`: no
/// difference / differences found); everything from 2 up is an error.
pub mod exit {
    pub const OK: i32 = 0;
    pub const FINDINGS: i32 = 1;
    /// Bad command line (clap's own code, kept for consistency).
    pub const USAGE: i32 = 2;
    pub const INPUT_MISSING: i32 = 3;
    pub const TOOLCHAIN_MISSING: i32 = 4;
    pub const COMPILE_FAILED: i32 = 5;
    pub const IR_UNREADABLE: i32 = 6;
    pub const UNSUPPORTED_PROGRAM: i32 = 7;
    pub const OUTPUT_FAILED: i32 = 8;
    /// `--timeout` or `--max-memory` exceeded; nothing was written.
    pub const BUDGET: i32 = 9;
    /// `symex`: no violation found, but the search was incomplete.
    pub const INCONCLUSIVE: i32 = 10;
    pub const INTERNAL: i32 = 70;
}

#[derive(Debug, thiserror::Error)]
pub enum ConcordError {
    #[error(
        "input file not found: {path}\n  hint: check the path; concord reads .c, .ll and .bc files"
    )]
    InputMissing { path: PathBuf },

    #[error("cannot read {path}: {reason}")]
    InputUnreadable { path: PathBuf, reason: String },

    #[error("unsupported input kind: {path}\n  hint: concord reads C sources (.c), LLVM IR (.ll) and bitcode (.bc)")]
    InputKind { path: PathBuf },

    #[error("{tool} not found (looked for {looked_for})\n  hint: install it with `apt-get install -y {package}` (or run `scripts/setup-machine`), or point {env_var} at the binary")]
    ToolMissing {
        tool: &'static str,
        looked_for: String,
        package: &'static str,
        env_var: &'static str,
    },

    #[error("{path} does not compile with {compiler}:\n{diagnostics}\n  hint: fix the errors above, or pass include paths and macros with -I / -D / --cflags")]
    CompileFailed {
        path: PathBuf,
        compiler: String,
        diagnostics: String,
    },

    #[error("clang-14 compiled {path} but wrote no LLVM bitcode; the extra flags `{flags}` change what it produces\n  hint: drop output-changing flags such as -E, -S, -fsyntax-only or -o from --cflags")]
    NoBitcode { path: PathBuf, flags: String },

    #[error("{path} was produced by a newer LLVM ({producer}); concord reads LLVM 14 IR\n  hint: recompile the source with clang-14, or give concord the .c file")]
    NewerLlvm { path: PathBuf, producer: String },

    #[error("{path} is not valid LLVM 14 IR/bitcode:\n{detail}\n  hint: if it came from a newer LLVM, recompile the source with clang-14")]
    IrUnreadable { path: PathBuf, detail: String },

    #[error("{path}: the module has no `main` function; concord analyses whole programs starting at main\n  hint: link the translation units into one module (llvm-link-14) or add a main that starts the threads")]
    NoMain { path: PathBuf },

    #[error("{path}: {what}")]
    Unsupported { path: PathBuf, what: String },

    #[error("cannot write {path}: {reason}")]
    Output { path: PathBuf, reason: String },

    /// The reader of standard output went away (a closed pipe).
    #[error("standard output was closed before the results were written")]
    StdoutClosed,

    #[error("malformed fact directory {path}: {reason}")]
    BadFacts { path: PathBuf, reason: String },

    #[error("{limit} exceeded during {phase}; nothing was written\n  hint: raise the limit, or lower --max-rank for `diff`")]
    Budget {
        limit: crate::budget::Limit,
        phase: String,
    },

    #[error("{0}")]
    Usage(String),

    #[error("internal error: {0}")]
    Internal(String),
}

impl ConcordError {
    pub fn exit_code(&self) -> i32 {
        use ConcordError::*;
        match self {
            InputMissing { .. } | InputUnreadable { .. } | InputKind { .. } => exit::INPUT_MISSING,
            ToolMissing { .. } => exit::TOOLCHAIN_MISSING,
            CompileFailed { .. } | NoBitcode { .. } => exit::COMPILE_FAILED,
            NewerLlvm { .. } | IrUnreadable { .. } | BadFacts { .. } => exit::IR_UNREADABLE,
            NoMain { .. } | Unsupported { .. } => exit::UNSUPPORTED_PROGRAM,
            Output { .. } | StdoutClosed => exit::OUTPUT_FAILED,
            Budget { .. } => exit::BUDGET,
            Usage(_) => exit::USAGE,
            Internal(_) => exit::INTERNAL,
        }
    }
}

pub type Result<T, E = ConcordError> = std::result::Result<T, E>;
