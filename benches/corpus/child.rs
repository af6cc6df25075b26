//! Running one command the way `/usr/bin/time -v` does: wall time, exit
//! status and peak resident memory of the child. The peak is the child's
//! own high-water mark (`VmHWM` of `/proc/<pid>/status`, read as it runs):
//! the `ru_maxrss` that `wait4` returns starts from this benchmark's own
//! peak when the child is spawned without copying it (posix_spawn), so
//! every child looked at least as large as the benchmark (836 MB on
//! libuv). `ru_maxrss` is the figure only for a child too short-lived to
//! be read. A child over its time or memory cap is killed and reported as
//! such.
//!
//! Linux only (the `rusage` layout and `/proc` are Linux's).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::raw::{c_int, c_long};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `struct rusage` of Linux (all fields `long`; `struct timeval` is two
/// `long`s on glibc and musl for the targets this project builds on).
#[repr(C)]
#[derive(Default)]
struct Rusage {
    utime: [c_long; 2],
    stime: [c_long; 2],
    maxrss: c_long,
    rest: [c_long; 13],
}

extern "C" {
    fn wait4(pid: c_int, status: *mut c_int, options: c_int, rusage: *mut Rusage) -> c_int;
}

const WNOHANG: c_int = 1;

/// Caps for one child.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub time: Duration,
    /// Resident memory in MB above which the child is killed.
    pub memory_mb: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Exited(i32),
    Signalled(i32),
    TimedOut,
    OverMemory,
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Exited(c) => write!(f, "exit {c}"),
            End::Signalled(s) => write!(f, "killed by signal {s}"),
            End::TimedOut => write!(f, "timed out"),
            End::OverMemory => write!(f, "over the memory cap"),
        }
    }
}

/// What one run of a child gave.
pub struct Outcome {
    pub end: End,
    pub wall: Duration,
    /// User + system CPU time of the child (and its waited-for children):
    /// steadier than wall time on a machine shared with other work.
    pub cpu: Duration,
    /// Peak resident set size in KB (`VmHWM`, else `ru_maxrss`).
    pub peak_kb: u64,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    pub fn exited_with(&self, codes: &[i32]) -> bool {
        matches!(self.end, End::Exited(c) if codes.contains(&c))
    }

    pub fn peak_mb(&self) -> f64 {
        self.peak_kb as f64 / 1024.0
    }

    /// The first `n` lines of stderr, indented, for a failure report.
    pub fn stderr_head(&self, n: usize) -> String {
        let lines: Vec<&str> = self.stderr.lines().collect();
        let mut out: String = lines
            .iter()
            .take(n)
            .map(|l| format!("      | {l}\n"))
            .collect();
        if lines.len() > n {
            out.push_str(&format!("      | ... ({} more lines)\n", lines.len() - n));
        }
        if lines.is_empty() {
            out.push_str("      | (stderr empty)\n");
        }
        out
    }
}

/// Run `cmd` to completion (or to a cap). stdout and stderr go to
/// anonymous files, so a chatty child never blocks on a full pipe.
pub fn run(cmd: &mut Command, limits: Limits) -> std::io::Result<Outcome> {
    let mut out = tempfile::tempfile()?;
    let mut err = tempfile::tempfile()?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(out.try_clone()?))
        .stderr(Stdio::from(err.try_clone()?));
    let t0 = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = child.id() as c_int;
    let mut status: c_int = 0;
    let mut usage = Rusage::default();
    let mut killed = None;
    let mut last_mem_check = Instant::now();
    let mut hwm_kb: Option<u64> = None;
    let wall = loop {
        // SAFETY: `status` and `usage` are valid for writes; `pid` is our
        // own unreaped child, so wait4 cannot reap anything else.
        let r = unsafe { wait4(pid, &mut status, WNOHANG, &mut usage) };
        if r == pid {
            break t0.elapsed();
        }
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if killed.is_none() {
            if t0.elapsed() > limits.time {
                killed = Some(End::TimedOut);
            } else if last_mem_check.elapsed() > Duration::from_millis(10) {
                last_mem_check = Instant::now();
                let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok();
                let kb = |field: &str| status.as_deref().and_then(|s| status_kb(s, field));
                if let Some(h) = kb("VmHWM:") {
                    hwm_kb = Some(hwm_kb.map_or(h, |m| m.max(h)));
                }
                if kb("VmRSS:").is_some_and(|rss| rss / 1024 > limits.memory_mb) {
                    killed = Some(End::OverMemory);
                }
            }
            if killed.is_some() {
                // Not reaped yet, so the pid is still ours.
                let _ = child.kill();
            }
        }
        // A 1 ms poll bounds the timing error at 1 ms.
        std::thread::sleep(Duration::from_millis(1));
    };
    let exited = if status & 0x7f == 0 {
        End::Exited((status >> 8) & 0xff)
    } else {
        End::Signalled(status & 0x7f)
    };
    let end = killed.unwrap_or(exited);
    Ok(Outcome {
        end,
        wall,
        cpu: timeval(usage.utime) + timeval(usage.stime),
        peak_kb: hwm_kb.unwrap_or(usage.maxrss.max(0) as u64),
        stdout: read_all(&mut out),
        stderr: read_all(&mut err),
    })
}

fn timeval(tv: [c_long; 2]) -> Duration {
    Duration::from_secs(tv[0].max(0) as u64) + Duration::from_micros(tv[1].max(0) as u64)
}

fn read_all(f: &mut File) -> String {
    let mut s = String::new();
    if f.seek(SeekFrom::Start(0)).is_ok() {
        let mut bytes = Vec::new();
        let _ = f.read_to_end(&mut bytes);
        s = String::from_utf8_lossy(&bytes).into_owned();
    }
    s
}

/// Current resident memory of a live process, from `/proc/PID/status`.
/// A `kB` field (`VmRSS:`, `VmHWM:`) of a `/proc/<pid>/status` text.
fn status_kb(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
