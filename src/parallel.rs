//! Independent pieces of work on the machine's cores: the per-thread
//! passes of extraction (thread graphs, locksets, covered accesses, event
//! order), the two versions of a diff (loading, counting). Each worker
//! takes the next item as it finishes one, and the results come back in
//! item order, so outputs do not depend on scheduling.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Stack of each worker: the work recurses (SCCs, dominators, the LLVM
/// parser) as deep as it would on the main thread.
const WORKER_STACK: usize = 64 << 20;

/// At most this many workers (`--jobs`); 0: one per core.
static JOBS: AtomicUsize = AtomicUsize::new(0);

/// Limit every later `map` to `n` workers (at least one).
pub fn set_jobs(n: usize) {
    JOBS.store(n.max(1), Ordering::Relaxed);
}

/// The cores there are, or fewer under `--jobs`.
fn workers() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match JOBS.load(Ordering::Relaxed) {
        0 => cores,
        n => n.min(cores),
    }
}

/// `items.iter().map(f).collect()`, on up to `available_parallelism`
/// threads (fewer under `--jobs`). Falls back to one thread when workers
/// cannot be spawned.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = workers().min(items.len());
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(item);
        results.lock().expect("no worker panics holding the lock")[i] = Some(r);
    };
    std::thread::scope(|scope| {
        let spawned: Vec<_> = (1..workers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        work();
        for h in spawned {
            if let Err(panic) = h.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    results
        .into_inner()
        .expect("no worker panics holding the lock")
        .into_iter()
        .map(|r| r.expect("every item mapped"))
        .collect()
}

/// `(a(), b())`, with `a` on a worker of its own while `b` runs on the
/// calling thread (both on the calling thread under `--jobs 1`, on one
/// core, or when no worker can be spawned): two unlike pieces of work, such
/// as matching two versions while each version's rules run.
pub(crate) fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    if workers() <= 1 {
        return (a(), b());
    }
    let a = Mutex::new(Some(a));
    let take = || a.lock().expect("not poisoned").take();
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(WORKER_STACK)
            .spawn_scoped(scope, || take().map(|a| a()));
        let b = b();
        let a = match spawned {
            Ok(h) => match h.join() {
                Ok(a) => a,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => None,
        };
        // the worker never started: run `a` here
        let a = a.or_else(|| take().map(|a| a())).expect("a ran once");
        (a, b)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_back_in_item_order() {
        let items: Vec<u64> = (0..1000).collect();
        let out = super::map(&items, |&x| x * x);
        assert_eq!(out, items.iter().map(|x| x * x).collect::<Vec<_>>());
        assert!(super::map(&Vec::<u64>::new(), |&x| x).is_empty());
    }

    #[test]
    fn join_returns_both_results_in_order() {
        let items: Vec<u64> = (0..1000).collect();
        let (a, b) = super::join(
            || items.iter().sum::<u64>(),
            || items.iter().map(|x| x.to_string().len()).sum::<usize>(),
        );
        // 10 + 90*2 + 900*3 digits
        assert_eq!((a, b), (499_500, 2890));
    }
}
