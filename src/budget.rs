//! Budgets a user sets (`--timeout SECONDS`, `--max-memory MB`) and the
//! progress shown on stderr while an analysis runs.
//!
//! A [`Budget`] is checked cooperatively: between phases ([`Budget::phase`])
//! and every so often inside long loops ([`Budget::check`]), which return
//! [`ConcordError::Budget`] (exit code 9) so the command unwinds and writes
//! nothing. Some phases cannot be interrupted from inside (one evaluation of
//! a rule program by the Datalog engine, LLVM parsing a module), so a
//! watchdog thread enforces the limits too: when a limit has been exceeded
//! for longer than a short grace period without the command noticing, it
//! reports the same error and ends the process with the same code. Outputs
//! are written inside [`Budget::commit`], which the watchdog waits for, so a
//! file is either complete or not written at all.
//!
//! Memory is the resident set size (`VmRSS` in `/proc/self/status`, the
//! counter `/proc/self/statm` shows in pages), polled every [`POLL`]. Unlike a counting allocator it sees memory that Rust's
//! allocator never hands out (LLVM's C++ heap while a module is parsed,
//! Z3), costs nothing on the hot path, and is the figure the operating
//! system's out-of-memory killer looks at; the price is that a spike shorter
//! than the poll interval can overshoot the limit briefly.

use crate::error::{ConcordError, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the watchdog samples memory and time.
pub const POLL: Duration = Duration::from_millis(20);
/// How long the watchdog lets the command notice an exceeded limit itself.
pub const GRACE: Duration = Duration::from_millis(250);
/// Phases shorter than this show no progress.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// Which limit was exceeded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Limit {
    /// `--timeout`, in seconds.
    Time(f64),
    /// `--max-memory`, in MB.
    Memory(u64),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::Time(s) => write!(f, "time limit of {s} s (--timeout)"),
            Limit::Memory(mb) => write!(f, "memory limit of {mb} MB (--max-memory)"),
        }
    }
}

/// The limits of one command.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    pub timeout: Option<Duration>,
    /// Resident set size, bytes.
    pub max_rss: Option<u64>,
}

const OK: u8 = 0;
const OVER_TIME: u8 = 1;
const OVER_MEMORY: u8 = 2;

struct Inner {
    start: Instant,
    limits: Limits,
    /// Set by the watchdog (or a check) once a limit is exceeded.
    state: AtomicU8,
    /// The current phase and when it started; finished phases with their time.
    phases: Mutex<Phases>,
    /// Held while output is written: the watchdog never ends the process
    /// in the middle of a write.
    commit: Mutex<()>,
    spinner: Mutex<Option<ProgressBar>>,
    progress: bool,
    grace: Duration,
    /// Highest resident size the watchdog sampled in the current phase.
    phase_max_rss: AtomicU64,
    /// `VmHWM` when the current phase started.
    phase_start_hwm: AtomicU64,
}

#[derive(Default)]
struct Phases {
    current: Option<(String, Instant)>,
    done: Vec<PhaseCost>,
}

/// What one finished phase cost: wall time and memory.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseCost {
    pub name: String,
    pub time: Duration,
    /// Peak resident set size of the process during the phase, bytes
    /// (`VmHWM`, reset when the phase starts; Linux only).
    pub peak_rss: Option<u64>,
    /// Resident set size when the phase ended, bytes (`VmRSS`).
    pub end_rss: Option<u64>,
}

/// Time and memory limits, phase timing and progress for one command.
#[derive(Clone)]
pub struct Budget {
    inner: Arc<Inner>,
}

impl Budget {
    /// A budget with the given limits; `progress`: show a spinner on stderr
    /// for phases longer than a second (only when stderr is a terminal).
    pub fn start(limits: Limits, progress: bool) -> Budget {
        Budget::start_with_grace(limits, progress, GRACE)
    }

    /// [`Budget::start`] with the watchdog's grace period given (tests use
    /// a long one so the watchdog never ends the test process).
    pub fn start_with_grace(limits: Limits, progress: bool, grace: Duration) -> Budget {
        let progress = progress && std::io::stderr().is_terminal();
        let inner = Arc::new(Inner {
            start: Instant::now(),
            limits,
            state: AtomicU8::new(OK),
            phases: Mutex::new(Phases::default()),
            commit: Mutex::new(()),
            spinner: Mutex::new(None),
            progress,
            grace,
            phase_max_rss: AtomicU64::new(0),
            phase_start_hwm: AtomicU64::new(0),
        });
        // The watchdog also samples memory for each phase's peak, so it
        // runs without limits too (it ends with the budget).
        let weak = Arc::downgrade(&inner);
        std::thread::Builder::new()
            .name("concord-budget".into())
            .spawn(move || watchdog(weak))
            .expect("spawn the budget watchdog");
        Budget { inner }
    }

    /// No limits, no progress: library callers and tests.
    pub fn unlimited() -> Budget {
        Budget::start(Limits::default(), false)
    }

    pub fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// Ends the current phase (recording its time), checks the limits and
    /// starts phase `name`.
    pub fn phase(&self, name: &str) -> Result<()> {
        self.end_phase();
        self.check()?;
        let i = &self.inner;
        i.phase_max_rss
            .store(current_rss().unwrap_or(0), Ordering::SeqCst);
        i.phase_start_hwm
            .store(peak_rss().unwrap_or(0), Ordering::SeqCst);
        self.inner.phases.lock().expect("phases").current =
            Some((name.to_string(), Instant::now()));
        Ok(())
    }

    /// Ends the current phase, if any, recording its time and memory.
    pub fn end_phase(&self) {
        let mut p = self.inner.phases.lock().expect("phases");
        if let Some((name, t)) = p.current.take() {
            let end_rss = current_rss();
            p.done.push(PhaseCost {
                name,
                time: t.elapsed(),
                peak_rss: self.phase_peak(end_rss),
                end_rss,
            });
        }
        drop(p);
        if let Some(s) = self.inner.spinner.lock().expect("spinner").take() {
            s.finish_and_clear();
        }
    }

    /// The current phase's peak: the process's high-water mark when the
    /// phase raised it (exact), else the highest sample or the end.
    fn phase_peak(&self, end_rss: Option<u64>) -> Option<u64> {
        let i = &self.inner;
        let hwm = peak_rss()?;
        if hwm > i.phase_start_hwm.load(Ordering::SeqCst) {
            return Some(hwm);
        }
        let sampled = i.phase_max_rss.load(Ordering::SeqCst);
        Some(sampled.max(end_rss.unwrap_or(0)))
    }

    /// Finished phases with their wall time, in order.
    pub fn phase_times(&self) -> Vec<(String, Duration)> {
        self.phase_costs()
            .into_iter()
            .map(|c| (c.name, c.time))
            .collect()
    }

    /// Finished phases with their time and memory, in order.
    pub fn phase_costs(&self) -> Vec<PhaseCost> {
        self.inner.phases.lock().expect("phases").done.clone()
    }

    /// Cheap (an atomic load and a clock read): call it inside long loops.
    pub fn check(&self) -> Result<()> {
        if let Some(limit) = self.exceeded() {
            return Err(self.error(limit));
        }
        Ok(())
    }

    fn exceeded(&self) -> Option<Limit> {
        let i = &self.inner;
        if let Some(t) = i.limits.timeout {
            if i.start.elapsed() > t {
                i.state
                    .compare_exchange(OK, OVER_TIME, Ordering::SeqCst, Ordering::SeqCst)
                    .ok();
            }
        }
        match i.state.load(Ordering::SeqCst) {
            OVER_TIME => Some(Limit::Time(
                i.limits.timeout.unwrap_or_default().as_secs_f64(),
            )),
            OVER_MEMORY => Some(Limit::Memory(i.limits.max_rss.unwrap_or(0) >> 20)),
            _ => None,
        }
    }

    fn error(&self, limit: Limit) -> ConcordError {
        let phase = self
            .inner
            .phases
            .lock()
            .map(|p| p.current.as_ref().map(|(n, _)| n.clone()))
            .unwrap_or_default();
        ConcordError::Budget {
            limit,
            phase: phase.unwrap_or_else(|| "start-up".into()),
        }
    }

    /// Runs `write` with the watchdog held off, so output is never cut
    /// half-way; checks the limits first (nothing is written past them).
    pub fn commit<T>(&self, write: impl FnOnce() -> Result<T>) -> Result<T> {
        self.end_phase();
        let _guard = self.inner.commit.lock().unwrap_or_else(|e| e.into_inner());
        self.check()?;
        write()
    }
}

/// A `kB` field of `/proc/self/status`, in bytes (Linux; None elsewhere).
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line[field.len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Resident set size of this process in bytes.
pub fn current_rss() -> Option<u64> {
    status_kb("VmRSS:")
}

/// Peak resident set size of this process in bytes. (Never reset: a
/// reset through `/proc/self/clear_refs` would also lower the `ru_maxrss`
/// the parent reads, and the benchmarks read that.)
pub fn peak_rss() -> Option<u64> {
    status_kb("VmHWM:")
}

fn watchdog(inner: std::sync::Weak<Inner>) {
    let mut over_since: Option<Instant> = None;
    loop {
        std::thread::sleep(POLL);
        let Some(i) = inner.upgrade() else { return };
        let b = Budget { inner: i };
        let i = &b.inner;
        if let Some(sig) = crate::cleanup::pending_signal() {
            // wait for any write in progress: it completes or never starts
            let _guard = i.commit.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(s) = i.spinner.lock().expect("spinner").take() {
                s.finish_and_clear();
            }
            eprintln!("concord: interrupted by signal {sig}; nothing more is written");
            crate::cleanup::end_process(128 + sig);
        }
        let rss = current_rss();
        if let Some(rss) = rss {
            i.phase_max_rss.fetch_max(rss, Ordering::SeqCst);
        }
        if let (Some(max), Some(rss)) = (i.limits.max_rss, rss) {
            if rss > max {
                i.state
                    .compare_exchange(OK, OVER_MEMORY, Ordering::SeqCst, Ordering::SeqCst)
                    .ok();
            }
        }
        if let Some(limit) = b.exceeded() {
            let since = *over_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= i.grace {
                // The command did not stop by itself: wait for any write in
                // progress, then end the process as the error path would.
                let _guard = i.commit.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(s) = i.spinner.lock().expect("spinner").take() {
                    s.finish_and_clear();
                }
                let e = b.error(limit);
                eprintln!("concord: error: {e}");
                crate::cleanup::end_process(e.exit_code());
            }
        }
        if i.progress {
            show_progress(i);
        }
    }
}

fn show_progress(i: &Inner) {
    let current = i.phases.lock().expect("phases").current.clone();
    let Some((name, since)) = current else { return };
    if since.elapsed() < QUIET_FOR {
        return;
    }
    let mut spinner = i.spinner.lock().expect("spinner");
    let bar = spinner.get_or_insert_with(|| {
        let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template(if crate::report::style::stderr_enabled() {
                "concord: {spinner:.cyan} {msg}"
            } else {
                "concord: {spinner} {msg}"
            })
            .expect("template")
            .tick_chars("|/-\\ "),
        );
        b
    });
    let mut msg = format!("{name} ({:.0} s", since.elapsed().as_secs_f64());
    if let Some(rss) = current_rss() {
        msg.push_str(&format!(", {} MB", rss >> 20));
    }
    msg.push(')');
    bar.set_message(msg);
    bar.tick();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_is_reported_by_check_and_names_the_phase() {
        let b = Budget::start_with_grace(
            Limits {
                timeout: Some(Duration::from_millis(30)),
                max_rss: None,
            },
            false,
            Duration::from_secs(3600),
        );
        b.phase("first").unwrap();
        assert!(b.check().is_ok());
        std::thread::sleep(Duration::from_millis(60));
        let e = b.check().unwrap_err();
        assert_eq!(e.exit_code(), crate::error::exit::BUDGET);
        assert!(e.to_string().contains("first"), "{e}");
        // no new phase starts past the limit
        assert!(b.phase("second").is_err());
    }

    #[test]
    fn memory_limit_below_current_use_is_seen_by_the_watchdog() {
        let rss = current_rss().expect("/proc/self/statm");
        assert!(rss > 0);
        let b = Budget::start_with_grace(
            Limits {
                timeout: None,
                max_rss: Some(1),
            },
            false,
            Duration::from_secs(3600),
        );
        // The watchdog samples every POLL and flags the excess before its
        // grace period ends; the cooperative check sees the flag.
        let t = Instant::now();
        while b.check().is_ok() {
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "watchdog did not flag the memory limit"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(matches!(
            b.check(),
            Err(ConcordError::Budget {
                limit: Limit::Memory(_),
                ..
            })
        ));
    }

    #[test]
    fn phases_record_their_memory() {
        let b = Budget::unlimited();
        b.phase("big").unwrap();
        let block = vec![1u8; 64 << 20];
        std::hint::black_box(&block);
        b.phase("small").unwrap();
        drop(block);
        b.end_phase();
        let costs = b.phase_costs();
        assert_eq!(costs.len(), 2);
        // the block was resident when the first phase ended
        let big = costs[0].peak_rss.expect("VmHWM");
        let end = costs[0].end_rss.expect("VmRSS");
        assert!(end >= 64 << 20 && big >= end, "peak {big}, end {end}");
        assert!(costs[1].peak_rss.is_some());
    }

    #[test]
    fn phases_are_timed_in_order() {
        let b = Budget::unlimited();
        b.phase("a").unwrap();
        b.phase("b").unwrap();
        b.end_phase();
        let names: Vec<String> = b.phase_times().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "b"]);
    }
}
