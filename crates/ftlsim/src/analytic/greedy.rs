//! Greedy victim selection under uniform writes: the exact mean field (Bux & Iliadis; Van Houdt)
//! and Desnoyers' closed-form approximation, whose rescaling factor the hot/cold model shares.

use super::fifo::waf_fifo;
use super::inputs::{alpha_is_valid, block_size_is_valid};

/// WA of greedy victim selection (fewest valid pages) under uniform writes: the exact mean-field
/// solution (Bux & Iliadis, Performance Evaluation 2010; Van Houdt, SIGMETRICS 2013), exact as
/// N → ∞.
///
/// With `H_n` the harmonic numbers, find the integer `j ∈ 1..=b−1` and the rate
/// `r ∈ [1/(b−j+1), 1/(b−j)]` with `alpha / b = r (H_b − H_j) + f_j / j`,
/// `f_j = 1 − r (b − j)`; then `WA = r · b` (the victim holds `j` or `j − 1` valid pages).
///
/// For `alpha ≥ H_b` the victim is always empty and the model gives `WA = 1`; as `alpha → 1⁺` it
/// tends to `b` (the mean-field limit, not ∞).
///
/// Preconditions: `alpha > 1`, `pages_per_block ≥ 2` (otherwise debug panic / release `NaN`).
/// Cost is O(b).
#[must_use]
pub fn waf_greedy(alpha: f64, pages_per_block: u32) -> f64 {
    if !alpha_is_valid(alpha) || !block_size_is_valid(pages_per_block) {
        return f64::NAN;
    }
    let b = f64::from(pages_per_block);
    let target = alpha / b;
    let h_b = harmonic(pages_per_block);
    // The right-hand side F(r) is continuous across segments (the right end of segment j equals
    // the left end of segment j + 1, both (H_b − H_j) / (b − j)), linear within each segment and
    // strictly decreasing in r (its slope H_b − H_j − (b − j)/j < 0 because ln x < x − 1). It runs
    // from H_b / b at r = 1/b (j = 1) down to 1/b at r = 1 (j = b − 1), so walk the segments in
    // order of increasing r until the target lies in one.
    if target >= h_b / b {
        return 1.0;
    }
    let mut h_j = 0.0; // H_j, updated incrementally
    for j in 1..pages_per_block {
        let jf = f64::from(j);
        h_j += 1.0 / jf;
        let empties = b - jf;
        let f_at_right_end = (h_b - h_j) / empties; // F(1 / (b − j)), where f_j = 0
        if target >= f_at_right_end || j == pages_per_block - 1 {
            // Solve the linear equation target = r (H_b − H_j) + (1 − r (b − j)) / j for r.
            let slope = (h_b - h_j) - empties / jf;
            let rate = (target - 1.0 / jf) / slope;
            // Clamp into the segment: only rounding can push it out.
            let rate = rate.clamp(1.0 / (empties + 1.0), 1.0 / empties);
            return rate * b;
        }
    }
    unreachable!("pages_per_block >= 2 guarantees the loop returns")
}

/// Desnoyers' closed-form approximation of greedy WA (Desnoyers, SYSTOR 2012 / ACM TOS 2014):
/// `WA_greedy(alpha) ≈ WA_fifo(k alpha) / k` with `k = 1 + 1/(2b)`; within about 0.4 % of the
/// exact mean-field [`waf_greedy`] for b ≥ 64 and the spare factors of practical interest.
///
/// Being a rescaled FIFO curve, it dips below the physical floor WA = 1 (to as low as `1/k`) when
/// spare is lavish or blocks are tiny (e.g. b = 2, alpha = 2 gives 0.90); it is returned
/// unclamped so that it stays the published formula. Use [`waf_greedy`] there.
///
/// Preconditions: `alpha > 1`, `pages_per_block ≥ 2` (otherwise debug panic / release `NaN`).
#[must_use]
pub fn waf_greedy_desnoyers(alpha: f64, pages_per_block: u32) -> f64 {
    if !alpha_is_valid(alpha) || !block_size_is_valid(pages_per_block) {
        return f64::NAN;
    }
    let k = desnoyers_k(pages_per_block);
    waf_fifo(k * alpha) / k
}

/// Desnoyers' greedy correction factor `k = 1 + 1/(2b)`.
pub(super) fn desnoyers_k(pages_per_block: u32) -> f64 {
    1.0 + 1.0 / (2.0 * f64::from(pages_per_block))
}

/// Harmonic number `H_n = Σ_{i=1..=n} 1/i`.
fn harmonic(n: u32) -> f64 {
    (1..=n).map(|i| 1.0 / f64::from(i)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::reference::{
        assert_close, TABLE_REL_TOL, TABLE_SPARE_FACTORS, UNIFORM_TABLE,
    };
    use crate::analytic::{alpha_from_spare_factor, waf_random};

    #[test]
    fn uniform_table_greedy() {
        for (sf, row) in TABLE_SPARE_FACTORS.iter().zip(UNIFORM_TABLE) {
            let alpha = alpha_from_spare_factor(*sf);
            for (b, expected) in [(64, row[1]), (128, row[2]), (256, row[3])] {
                let wa = waf_greedy(alpha, b);
                assert_close(
                    wa,
                    expected,
                    TABLE_REL_TOL,
                    &format!("greedy b={b} at Sf {sf}"),
                );
            }
        }
    }

    #[test]
    fn desnoyers_greedy_is_within_its_stated_accuracy() {
        for sf in TABLE_SPARE_FACTORS {
            let alpha = alpha_from_spare_factor(sf);
            for b in [64, 128, 256] {
                let exact = waf_greedy(alpha, b);
                let approx = waf_greedy_desnoyers(alpha, b);
                assert_close(approx, exact, 4e-3, &format!("Desnoyers b={b} at Sf {sf}"));
            }
        }
    }

    #[test]
    fn greedy_limits() {
        // Lavish spare: the victim is always empty (alpha ≥ H_b), WA = 1 exactly.
        assert_eq!(waf_greedy(10.0, 64), 1.0);
        // No spare: the mean field tends to b (victim holds b − 1 valid pages).
        assert_close(
            waf_greedy(1.0 + 1e-12, 64),
            64.0,
            1e-6,
            "greedy at alpha → 1",
        );
        // Greedy beats FIFO beats random.
        for sf in TABLE_SPARE_FACTORS {
            let alpha = alpha_from_spare_factor(sf);
            assert!(waf_greedy(alpha, 64) < waf_fifo(alpha));
            assert!(waf_fifo(alpha) < waf_random(sf));
        }
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "pages_per_block must be >= 2")]
    fn one_page_blocks_panic_in_debug() {
        let _ = waf_greedy(1.1, 1);
    }
}
