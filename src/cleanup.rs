//! What a process leaves behind when it is ended early: the tools it
//! started (clang-14, opt-14, llvm-link-14) and its temporary directories.
//!
//! Normal returns clean up through destructors. An exit the program
//! decides from another thread (the budget's watchdog, exit 9) or a signal
//! (SIGTERM, SIGINT, SIGHUP) runs no destructor, so both go through
//! [`end_process`], which kills every registered child's process group
//! and removes every registered path first. The signal handler itself
//! only records the signal (async-signal-safe); the watchdog thread, which
//! polls every 20 ms, does the cleanup and exits with 128 + the signal.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Mutex;

static CHILDREN: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
static PATHS: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
static SIGNAL: AtomicI32 = AtomicI32::new(0);
static CATCHING: AtomicBool = AtomicBool::new(false);
/// Set once [`end_process`] has begun: a child that dies now was killed by
/// it, and its caller must not report that as the tool's own failure.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Run a tool to completion, its output captured, in a process group of
/// its own so that ending concord ends it (and what it started) too.
pub fn output(cmd: &mut Command) -> std::io::Result<Output> {
    use std::os::unix::process::CommandExt;
    let child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()?;
    let pid = child.id();
    lock(&CHILDREN).insert(pid);
    let out = child.wait_with_output();
    lock(&CHILDREN).remove(&pid);
    if ENDING.load(Ordering::SeqCst) {
        // `end_process` killed the child and is about to exit with its own
        // code; reporting the child's death (say, "does not compile", exit
        // 5) would race it. Wait for the exit instead.
        loop {
            std::thread::park();
        }
    }
    out
}

/// A path to remove if the process is ended early; returns a guard that
/// forgets it when dropped (the owner cleans up, or keeps it, itself).
pub fn remove_on_early_exit(path: &Path) -> PathGuard {
    lock(&PATHS).insert(path.to_path_buf());
    PathGuard(path.to_path_buf())
}

pub struct PathGuard(PathBuf);

impl Drop for PathGuard {
    fn drop(&mut self) {
        lock(&PATHS).remove(&self.0);
    }
}

/// Record SIGTERM, SIGINT and SIGHUP instead of dying at once, so that
/// [`pending_signal`]'s poller can clean up first.
pub fn catch_termination_signals() {
    extern "C" fn record(sig: libc::c_int) {
        SIGNAL.store(sig, Ordering::SeqCst);
    }
    CATCHING.store(true, Ordering::SeqCst);
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe).
        unsafe {
            libc::signal(
                sig,
                record as extern "C" fn(libc::c_int) as libc::sighandler_t,
            );
        }
    }
}

/// Are termination signals recorded (so someone must poll for them)?
pub fn catching_signals() -> bool {
    CATCHING.load(Ordering::SeqCst)
}

/// The termination signal received, if any.
pub fn pending_signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Kill the registered children, remove the registered paths, exit.
pub fn end_process(code: i32) -> ! {
    ENDING.store(true, Ordering::SeqCst);
    for &pid in lock(&CHILDREN).iter() {
        // SAFETY: kill(2) on the child's process group (its pid: it leads it).
        unsafe {
            libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
        }
    }
    for path in lock(&PATHS).iter() {
        let _ = std::fs::remove_dir_all(path);
    }
    std::process::exit(code)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
