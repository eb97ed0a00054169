//! d-choices victim selection under uniform writes: Van Houdt's mean-field model, solved for the
//! GC rate with Brent's method over a top-down sweep of the valid-page tail fractions.

use super::inputs::{alpha_is_valid, block_size_is_valid};
use super::solvers::brent_root;

/// WA of d-choices victim selection (sample `d` blocks uniformly at random, clean the one with
/// the fewest valid pages) under uniform writes: the mean-field model of Van Houdt (SIGMETRICS
/// 2013), exact as N → ∞.
///
/// With `y_i` the fraction of blocks holding at least `i` valid pages and `ρ = 1 / alpha`:
/// `i (y_i − y_{i+1}) = b ρ r (1 − y_i^d)` for `i = 1..=b`, `y_{b+1} = 0`, and
/// `Σ_{i=1..=b} y_i = b ρ`; then `WA = r · b`. `d = 1` is random selection (`1 / Sf`) and
/// `d → ∞` tends to greedy ([`waf_greedy`](super::waf_greedy)).
///
/// Preconditions: `alpha > 1`, `pages_per_block ≥ 2`, `1 ≤ d ≤ i32::MAX` (otherwise debug panic /
/// release `NaN`). Cost is O(b · log d) per root-finder step, about 10–15 steps: about 0.1 ms
/// for b = 256.
#[must_use]
pub fn waf_d_choices(alpha: f64, pages_per_block: u32, d: u32) -> f64 {
    if !alpha_is_valid(alpha) || !block_size_is_valid(pages_per_block) {
        return f64::NAN;
    }
    debug_assert!(
        d >= 1 && i32::try_from(d).is_ok(),
        "number of choices d must be in 1..=i32::MAX, got {d}"
    );
    let Ok(d_exp) = i32::try_from(d) else {
        return f64::NAN;
    };
    if d_exp < 1 {
        return f64::NAN;
    }

    let b = f64::from(pages_per_block);
    // b ρ: the required Σ y_i. Σ y_i as a function of the rate r is strictly increasing (each
    // y_i increases with r and with y_{i+1}), is 0 at r = 0 and tends to b > b ρ as r → ∞, so a
    // bracketing root finder on r converges to the unique solution.
    let valid_pages_per_block = b / alpha;
    let mean_valid_excess = |rate: f64| {
        mean_valid_pages(valid_pages_per_block * rate, pages_per_block, d_exp)
            - valid_pages_per_block
    };
    // Any d ≥ 1 does at least as well as random selection (d = 1), so WA ≤ alpha / (alpha − 1)
    // brackets the root; widen anyway in case rounding puts the d = 1 root a hair above it.
    let mut rate_hi = alpha / ((alpha - 1.0) * b);
    let mut excess_hi = mean_valid_excess(rate_hi);
    for _ in 0..64 {
        if excess_hi >= 0.0 {
            break;
        }
        rate_hi *= 2.0;
        excess_hi = mean_valid_excess(rate_hi);
    }
    // Σ y_i is smooth in r, so Brent's method needs ~10 sweeps where bisection needs ~50.
    let rate = brent_root(
        mean_valid_excess,
        (0.0, -valid_pages_per_block),
        (rate_hi, excess_hi),
    );
    rate * b
}

/// Mean number of valid pages per block, `Σ_{i=1..=b} y_i`, of the d-choices mean field (see
/// [`waf_d_choices`]) for a given `gc_load = b ρ r`, solving for `y_b, …, y_1` top-down.
fn mean_valid_pages(gc_load: f64, pages_per_block: u32, d: i32) -> f64 {
    let d_f = f64::from(d);
    let mut y_above = 0.0; // y_{i+1}; y_{b+1} = 0
    let mut sum = 0.0;
    for i in (1..=pages_per_block).rev() {
        let i_f = f64::from(i);
        // y_i is the root of φ(y) = i y + c y^d − K with K = i y_{i+1} + c. φ is increasing and
        // convex on [0, 1], φ(y_{i+1}) ≤ 0 ≤ φ(1), so the root is unique, lies in [y_{i+1}, 1]
        // (y stays a valid, non-increasing tail fraction) and Newton started at any point with
        // φ ≥ 0 descends monotonically onto it without overshooting.
        let k = i_f * y_above + gc_load;
        // Each term of φ alone is ≤ K at the root, so both K / i and (K / c)^(1/d) bound y_i from
        // above; the smaller one is a close start whichever term dominates, which matters for
        // large d where Newton from y = 1 would crawl down the knee of y^d.
        let mut y = (k / i_f).min(1.0);
        if gc_load > 0.0 {
            y = y.min((k / gc_load).powf(1.0 / d_f));
        }
        for _ in 0..100 {
            let y_pow_d_minus_1 = y.powi(d - 1);
            let phi = i_f * y + gc_load * y_pow_d_minus_1 * y - k;
            if phi <= 0.0 {
                break; // at the root up to rounding
            }
            let slope = i_f + gc_load * d_f * y_pow_d_minus_1;
            let next = (y - phi / slope).max(y_above);
            if next >= y {
                break; // no further progress in f64
            }
            y = next;
        }
        sum += y;
        y_above = y;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::reference::{assert_close, TABLE_SPARE_FACTORS};
    use crate::analytic::{alpha_from_spare_factor, waf_greedy};

    #[test]
    fn d_choices_with_one_choice_is_random() {
        for b in [2, 16, 64, 256] {
            for sf in TABLE_SPARE_FACTORS {
                let wa = waf_d_choices(alpha_from_spare_factor(sf), b, 1);
                assert_close(wa, 1.0 / sf, 1e-10, &format!("d=1 b={b} at Sf {sf}"));
            }
        }
    }

    #[test]
    fn d_choices_decreases_in_d_towards_greedy() {
        let ds = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256, 1024];
        for b in [64, 256] {
            for sf in [0.05, 0.10, 0.20, 0.50] {
                let alpha = alpha_from_spare_factor(sf);
                let greedy = waf_greedy(alpha, b);
                let was: Vec<f64> = ds.iter().map(|&d| waf_d_choices(alpha, b, d)).collect();
                for (pair, d_pair) in was.windows(2).zip(ds.windows(2)) {
                    assert!(
                        pair[1] < pair[0],
                        "b={b} Sf {sf}: WA(d={}) = {} not below WA(d={}) = {}",
                        d_pair[1],
                        pair[1],
                        d_pair[0],
                        pair[0]
                    );
                }
                // Sampling d blocks can never beat looking at all of them.
                for (wa, d) in was.iter().zip(ds) {
                    assert!(
                        *wa >= greedy * (1.0 - 1e-9),
                        "b={b} Sf {sf} d={d}: {wa} < greedy {greedy}"
                    );
                }
                let wa_64 = was[ds.iter().position(|&d| d == 64).unwrap()];
                assert_close(
                    wa_64,
                    greedy,
                    1e-2,
                    &format!("d=64 vs greedy, b={b} Sf {sf}"),
                );
                let wa_1024 = *was.last().unwrap();
                assert_close(
                    wa_1024,
                    greedy,
                    1e-3,
                    &format!("d=1024 vs greedy, b={b} Sf {sf}"),
                );
            }
        }
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "number of choices d must be in 1..=i32::MAX")]
    fn zero_choices_panics_in_debug() {
        let _ = waf_d_choices(1.1, 64, 0);
    }
}
