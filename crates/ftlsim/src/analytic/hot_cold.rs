//! Hot and cold data mixed in one write frontier (Desnoyers): FIFO solved exactly, greedy by
//! Desnoyers' rescaling of it.

use super::greedy::desnoyers_k;
use super::inputs::{alpha_is_valid, block_size_is_valid, hot_cold_is_valid};
use super::solvers::brent_root;

/// WA of FIFO victim selection with hot and cold data mixed in one write frontier (Desnoyers,
/// SYSTOR 2012 / ACM TOS 2014); exact as N → ∞. Solves for `A`:
///
/// `A = 1 + r / (exp((r/f) alpha / A) − 1) + (1 − r) / (exp(((1 − r)/(1 − f)) alpha / A) − 1)`
///
/// with `r = hot_write_fraction`, `f = hot_space_fraction`. `r = f` reduces to
/// [`waf_fifo`](super::waf_fifo).
///
/// Preconditions: `alpha > 1`, `0 < r < 1`, `0 < f < 1` (otherwise debug panic / release `NaN`).
#[must_use]
pub fn waf_hot_cold_fifo(alpha: f64, hot_write_fraction: f64, hot_space_fraction: f64) -> f64 {
    if !alpha_is_valid(alpha) || !hot_cold_is_valid(hot_write_fraction, hot_space_fraction) {
        return f64::NAN;
    }
    let (r, f) = (hot_write_fraction, hot_space_fraction);
    // Per-region overwrite intensity relative to uniform: (r/f) alpha and ((1−r)/(1−f)) alpha.
    let hot_intensity = r / f * alpha;
    let cold_intensity = (1.0 - r) / (1.0 - f) * alpha;
    // G(A) = RHS − A. Each term q / (exp(c/A) − 1) has derivative (q/c) · (t / (2 sinh(t/2)))²
    // with t = c/A, which is at most q/c, so G′(A) ≤ f/alpha + (1−f)/alpha − 1 = 1/alpha − 1 < 0:
    // G is strictly decreasing and has exactly one root (the x = 1 trivial root of the uniform
    // equation sits at A = ∞ here). G(1) > 0, and the slope bound puts the root at or below
    // 1 + G(1) / (1 − 1/alpha).
    let excess = |wa: f64| {
        1.0 + r / (hot_intensity / wa).exp_m1() + (1.0 - r) / (cold_intensity / wa).exp_m1() - wa
    };
    let excess_at_one = excess(1.0);
    let mut wa_hi = 1.0 + excess_at_one / (1.0 - 1.0 / alpha);
    let mut excess_hi = excess(wa_hi);
    // Rounding can leave G(wa_hi) a hair above zero (when the bound is tight or alpha → 1):
    // widen until the bracket really holds a sign change.
    for _ in 0..64 {
        if excess_hi <= 0.0 {
            break;
        }
        wa_hi = 1.0 + 2.0 * (wa_hi - 1.0) + f64::EPSILON;
        excess_hi = excess(wa_hi);
    }
    brent_root(excess, (1.0, excess_at_one), (wa_hi, excess_hi))
}

/// Greedy victim selection with hot and cold data mixed in one frontier, by Desnoyers'
/// approximation (within about 2 % of simulation): `A_greedy = A_fifo_hc(k alpha) / k`,
/// `k = 1 + 1/(2b)`, with `A_fifo_hc` = [`waf_hot_cold_fifo`]. Like
/// [`waf_greedy_desnoyers`](super::waf_greedy_desnoyers) it is returned unclamped and can dip
/// below 1 (to `1/k`) for lavish spare or tiny blocks.
///
/// Preconditions: `alpha > 1`, `0 < r < 1`, `0 < f < 1`, `pages_per_block ≥ 2` (otherwise debug
/// panic / release `NaN`).
#[must_use]
pub fn waf_hot_cold_greedy(
    alpha: f64,
    hot_write_fraction: f64,
    hot_space_fraction: f64,
    pages_per_block: u32,
) -> f64 {
    if !alpha_is_valid(alpha)
        || !hot_cold_is_valid(hot_write_fraction, hot_space_fraction)
        || !block_size_is_valid(pages_per_block)
    {
        return f64::NAN;
    }
    let k = desnoyers_k(pages_per_block);
    waf_hot_cold_fifo(k * alpha, hot_write_fraction, hot_space_fraction) / k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::reference::{
        assert_close, HOT_COLD_TABLE, TABLE_REL_TOL, TABLE_SPARE_FACTORS,
    };
    use crate::analytic::{alpha_from_spare_factor, waf_fifo, waf_greedy_desnoyers};

    #[test]
    fn hot_cold_table_fifo_and_greedy_formula() {
        for (r, f, sf, fifo_expected, greedy_expected) in HOT_COLD_TABLE {
            let alpha = alpha_from_spare_factor(sf);
            let what = format!("{r}/{f} at Sf {sf}");
            let fifo = waf_hot_cold_fifo(alpha, r, f);
            assert_close(
                fifo,
                fifo_expected,
                TABLE_REL_TOL,
                &format!("FIFO mixed {what}"),
            );
            let greedy = waf_hot_cold_greedy(alpha, r, f, 64);
            assert_close(
                greedy,
                greedy_expected,
                TABLE_REL_TOL,
                &format!("greedy mixed {what}"),
            );
        }
    }

    #[test]
    fn hot_cold_without_skew_is_uniform() {
        for sf in TABLE_SPARE_FACTORS {
            let alpha = alpha_from_spare_factor(sf);
            for f in [0.1, 0.5, 0.8] {
                assert_close(
                    waf_hot_cold_fifo(alpha, f, f),
                    waf_fifo(alpha),
                    1e-12,
                    "FIFO r = f",
                );
                assert_close(
                    waf_hot_cold_greedy(alpha, f, f, 64),
                    waf_greedy_desnoyers(alpha, 64),
                    1e-12,
                    "greedy r = f",
                );
            }
        }
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "hot write fraction r must be in (0, 1)")]
    fn hot_write_fraction_out_of_range_panics_in_debug() {
        let _ = waf_hot_cold_fifo(1.1, 1.0, 0.5);
    }
}
