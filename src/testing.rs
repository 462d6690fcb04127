//! Helpers for the crate's unit tests.

use std::time::{Duration, Instant};

/// How many rounds of (small, large) runs [`assert_subquadratic`] times.
const ROUNDS: usize = 5;

/// Asserts that `work` grows no faster than about n log n: on an input 4× larger it takes
/// less than 10× as long (4× when linear, 16× when quadratic). The small and the large run
/// alternate, [`ROUNDS`] times, and each size keeps its best time: other tests running
/// beside this one load both sizes alike, where timing all small runs first and all large
/// runs after let a burst of load land on one side only (a ×10.0 seen once under a loaded
/// CI run of a ×4.1 code path).
pub fn assert_subquadratic(what: &str, n: usize, mut work: impl FnMut(usize)) {
    work(n); // warm up
    let mut timed = |n: usize| {
        let started = Instant::now();
        work(n);
        started.elapsed()
    };
    let (mut small, mut large) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        small = small.min(timed(n));
        large = large.min(timed(4 * n));
    }
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    eprintln!("{what}: {n} → {small:?}, {} → {large:?}: ×{ratio:.1}", 4 * n);
    assert!(ratio < 10.0, "{what}: {n} → {small:?}, {} → {large:?}: ×{ratio:.1} for 4× the input", 4 * n);
}
