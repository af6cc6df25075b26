//! `CONCORD_EXTRACT_PROFILE=1`: each extraction step's wall time on stderr,
//! the extraction counterpart of the rule programs' `CONCORD_RULE_PROFILE`.
//!
//! Why: `--verbose` shows one "load" phase per command, and on a large
//! program that phase is the sum of a dozen steps of very different growth
//! (points-to grows faster than the rest on vtable-heavy code). Two
//! versions are extracted side by side, so each line names its input.

use std::path::Path;
use std::time::Instant;

pub struct StepClock {
    /// `None` when profiling is off: then `lap` costs one branch.
    on: Option<(String, Instant)>,
}

impl StepClock {
    pub fn start(input: &Path) -> StepClock {
        let on = std::env::var_os("CONCORD_EXTRACT_PROFILE")
            .filter(|v| !v.is_empty() && v != "0")
            .map(|_| (input.display().to_string(), Instant::now()));
        StepClock { on }
    }

    /// Ends step `name` (begun at the previous lap, or at the start).
    pub fn lap(&mut self, name: &str) {
        if let Some((input, last)) = &mut self.on {
            eprintln!(
                "[extract] {input}: {name}: {:.1} ms",
                last.elapsed().as_secs_f64() * 1e3
            );
            *last = Instant::now();
        }
    }
}
