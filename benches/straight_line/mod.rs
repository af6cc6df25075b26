//! Straight-line threads (issue 30): T worker threads, each a run of N
//! statements with no branch and no loop, every statement one access to a
//! few shared globals, now and then a short critical section.
//!
//! - globals `g0 .. g{V-1}`, one mutex `m`;
//! - statement i of worker t accesses `g<k>`, k = (i + t) mod V: it writes
//!   (`g<k> = s + i;`) when i is even and reads (`s += g<k>;`) when odd;
//! - every `lock_every`-th pair of statements (i, i+1 with i even) runs
//!   under `m` (0: no locking);
//! - `main` creates the workers (distinct functions), joins them and reads
//!   every global once.
//!
//! The answer (`rf_may`, `rf_no`) grows with the square of the accesses
//! per global, (T·N / V)²: the rules should cost about that, and the
//! number of statements between two accesses to one global should not
//! multiply it.

use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// worker threads
    pub threads: u32,
    /// statements (shared accesses) per worker
    pub statements: u32,
    /// shared globals
    pub globals: u32,
    /// one pair in this many runs under the mutex (0: never)
    pub lock_every: u32,
}

impl Shape {
    /// Two workers of `n` statements on three globals, a lock every
    /// tenth pair: the family the benchmark sweeps.
    pub fn two_threads(n: u32) -> Shape {
        Shape {
            threads: 2,
            statements: n,
            globals: 3,
            lock_every: 10,
        }
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "T{}xN{}xV{}xL{}",
            self.threads, self.statements, self.globals, self.lock_every
        )
    }
}

/// The C source of a program of `shape`.
pub fn generate(shape: Shape) -> String {
    let v = shape.globals.max(1);
    let mut c = String::new();
    let _ = writeln!(
        c,
        "// straight-line threads {shape}: generated, do not edit"
    );
    let _ = writeln!(c, "#include <pthread.h>\n");
    for k in 0..v {
        let _ = writeln!(c, "int g{k} = 0;");
    }
    let _ = writeln!(c, "pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;");
    for t in 0..shape.threads {
        let _ = writeln!(c, "\nvoid *w{t}(void *arg) {{");
        let _ = writeln!(c, "  int s = 0;");
        let mut i = 0;
        while i < shape.statements {
            let locked = shape.lock_every > 0 && (i / 2) % shape.lock_every == 0;
            if locked && i % 2 == 0 {
                let _ = writeln!(c, "  pthread_mutex_lock(&m);");
            }
            let k = (i + t) % v;
            if i % 2 == 0 {
                let _ = writeln!(c, "  g{k} = s + {i};");
            } else {
                let _ = writeln!(c, "  s += g{k};");
            }
            let closes = i % 2 == 1 || i + 1 == shape.statements;
            if locked && closes {
                let _ = writeln!(c, "  pthread_mutex_unlock(&m);");
            }
            i += 1;
        }
        let _ = writeln!(c, "  return 0;\n}}");
    }
    let _ = writeln!(c, "\nint main(void) {{");
    for t in 0..shape.threads {
        let _ = writeln!(c, "  pthread_t h{t};");
    }
    for t in 0..shape.threads {
        let _ = writeln!(c, "  pthread_create(&h{t}, 0, w{t}, 0);");
    }
    for t in 0..shape.threads {
        let _ = writeln!(c, "  pthread_join(h{t}, 0);");
    }
    let _ = writeln!(c, "  int sum = 0;");
    for k in 0..v {
        let _ = writeln!(c, "  sum += g{k};");
    }
    let _ = writeln!(c, "  return sum == 0;\n}}");
    c
}
