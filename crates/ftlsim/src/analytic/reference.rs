//! The reference tables of `analytical-waf.md` (shared reference material) that the models'
//! unit tests reproduce, and the tolerance check they use.

/// The reference tables give 4–5 significant digits; 1e-4 relative is tighter than a
/// last-digit error for every entry (the smallest, 1.2389, rounds to within 4e-5).
pub(super) const TABLE_REL_TOL: f64 = 1e-4;

/// Spare factors of the uniform table in `analytical-waf.md`.
pub(super) const TABLE_SPARE_FACTORS: [f64; 10] =
    [0.05, 0.07, 0.10, 0.15, 0.20, 0.25, 0.28, 0.30, 0.40, 0.50];

/// Uniform-write table, one row per spare factor: FIFO, greedy b = 64, 128, 256, random.
pub(super) const UNIFORM_TABLE: [[f64; 5]; 10] = [
    [10.1724, 8.8501, 9.4605, 9.7979, 20.0000],
    [7.3177, 6.6155, 6.9450, 7.1240, 14.2857],
    [5.1787, 4.8213, 4.9922, 5.0832, 10.0000],
    [3.5187, 3.3536, 3.4344, 3.4759, 6.6667],
    [2.6927, 2.5993, 2.6449, 2.6684, 5.0000],
    [2.2007, 2.1396, 2.1696, 2.1851, 4.0000],
    [1.9916, 1.9425, 1.9667, 1.9791, 3.5714],
    [1.8762, 1.8333, 1.8544, 1.8652, 3.3333],
    [1.4798, 1.4550, 1.4674, 1.4736, 2.5000],
    [1.2550, 1.2389, 1.2469, 1.2509, 2.0000],
];

/// Hot/cold mixed table, b = 64: (r, f, Sf, FIFO mixed, greedy mixed by formula).
pub(super) const HOT_COLD_TABLE: [(f64, f64, f64, f64, f64); 6] = [
    (0.90, 0.10, 0.07, 8.3582, 7.6198),
    (0.90, 0.10, 0.10, 6.1676, 5.7858),
    (0.90, 0.10, 0.20, 3.5329, 3.4234),
    (0.80, 0.20, 0.07, 7.6817, 6.9601),
    (0.80, 0.20, 0.10, 5.5378, 5.1710),
    (0.80, 0.20, 0.20, 3.0345, 2.9361),
];

fn rel_err(actual: f64, expected: f64) -> f64 {
    ((actual - expected) / expected).abs()
}

#[track_caller]
pub(super) fn assert_close(actual: f64, expected: f64, rel_tol: f64, what: &str) {
    let err = rel_err(actual, expected);
    assert!(
        err <= rel_tol,
        "{what}: got {actual}, expected {expected} (relative error {err:.2e} > {rel_tol:.0e})"
    );
}
