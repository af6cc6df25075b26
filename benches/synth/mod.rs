//! concord-synth: synthetic pthread programs of a chosen size, as C source
//! text, for measuring how extraction and the rules grow.
//!
//! A program of size (T, N, L) has T worker threads, each making N accesses
//! to shared globals, and L mutexes:
//!
//! - shared variables `x0 .. x{V-1}` with V = max(L, 1); variable `xk` is
//!   protected by mutex `mk` when L > 0;
//! - worker `w<t>` makes its accesses in pairs: access 2i reads
//!   `x<k>` (`s += xk;`), access 2i+1 writes it (`xk = s + i;`), with
//!   k = (t + i) mod V; each pair is one critical section of `mk` when
//!   L > 0 (an odd last access is a lone read, locked the same way);
//! - `main` creates the T workers (distinct functions, no create loop) and
//!   joins them all, then reads every variable once.
//!
//! Every worker runs straight-line code: the size of the fact base grows
//! with T·N, and the number of read-from candidates with the number of
//! accesses per variable, (T·N / V)².

use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// worker threads
    pub threads: u32,
    /// shared accesses per worker
    pub accesses: u32,
    /// mutexes (0: no locking at all)
    pub locks: u32,
}

impl Size {
    pub fn variables(self) -> u32 {
        self.locks.max(1)
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "T{}xN{}xL{}", self.threads, self.accesses, self.locks)
    }
}

/// The C source of a synthetic program of `size`.
pub fn generate(size: Size) -> String {
    let v = size.variables();
    let mut c = String::new();
    let _ = writeln!(c, "// concord-synth {size}: generated, do not edit");
    let _ = writeln!(c, "#include <pthread.h>\n");
    for k in 0..v {
        let _ = writeln!(c, "int x{k} = 0;");
    }
    for k in 0..size.locks {
        let _ = writeln!(c, "pthread_mutex_t m{k} = PTHREAD_MUTEX_INITIALIZER;");
    }
    for t in 0..size.threads {
        let _ = writeln!(c, "\nvoid *w{t}(void *arg) {{");
        let _ = writeln!(c, "  int s = 0;");
        let mut j = 0;
        let mut i = 0;
        while j < size.accesses {
            let k = (t + i) % v;
            if size.locks > 0 {
                let _ = writeln!(c, "  pthread_mutex_lock(&m{k});");
            }
            let _ = writeln!(c, "  s += x{k};");
            j += 1;
            if j < size.accesses {
                let _ = writeln!(c, "  x{k} = s + {i};");
                j += 1;
            }
            if size.locks > 0 {
                let _ = writeln!(c, "  pthread_mutex_unlock(&m{k});");
            }
            i += 1;
        }
        let _ = writeln!(c, "  return 0;\n}}");
    }
    let _ = writeln!(c, "\nint main(void) {{");
    for t in 0..size.threads {
        let _ = writeln!(c, "  pthread_t h{t};");
    }
    for t in 0..size.threads {
        let _ = writeln!(c, "  pthread_create(&h{t}, 0, w{t}, 0);");
    }
    for t in 0..size.threads {
        let _ = writeln!(c, "  pthread_join(h{t}, 0);");
    }
    let _ = writeln!(c, "  int sum = 0;");
    for k in 0..v {
        let _ = writeln!(c, "  sum += x{k};");
    }
    let _ = writeln!(c, "  return sum == 0;\n}}");
    c
}
