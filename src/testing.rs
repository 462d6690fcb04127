//! Helpers for the crate's unit tests.

use std::time::{Duration, Instant};

/// The best of five runs of `work(n)` (the machine may be busy with other work).
fn best_of_five(n: usize, work: &mut impl FnMut(usize)) -> Duration {
    (0..5)
        .map(|_| {
            let started = Instant::now();
            work(n);
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Asserts that `work` grows no faster than about n log n: on an input 4× larger it takes
/// less than 10× as long, best of five runs each (4× when linear, 16× when quadratic).
pub fn assert_subquadratic(what: &str, n: usize, mut work: impl FnMut(usize)) {
    work(n); // warm up
    let small = best_of_five(n, &mut work);
    let large = best_of_five(4 * n, &mut work);
    let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-6);
    eprintln!("{what}: {n} → {small:?}, {} → {large:?}: ×{ratio:.1}", 4 * n);
    assert!(ratio < 10.0, "{what}: {n} → {small:?}, {} → {large:?}: ×{ratio:.1} for 4× the input", 4 * n);
}
