//! FIFO victim selection under uniform writes (Desnoyers; Hu et al.; Menon): the victim's valid
//! fraction as the root of a fixed-point equation.

use super::inputs::alpha_is_valid;
use super::solvers::bisect_decreasing;

/// WA of FIFO victim selection (oldest-written block first) under uniform random single-page
/// writes; exact as N → ∞ (Desnoyers, SYSTOR 2012 / ACM TOS 2014; Hu et al., SYSTOR 2009; Menon
/// 1995 for log-structured arrays).
///
/// The victim's valid fraction `x` is the non-trivial root in `[0, 1)` of
/// `x = exp(−alpha (1 − x))`, and `WA = 1 / (1 − x)`; equivalently
/// `WA = alpha / (alpha + W0(−alpha e^{−alpha}))` with `W0` the principal Lambert W branch.
///
/// Precondition: `alpha > 1` (otherwise debug panic / release `NaN`). As `alpha → 1⁺`, WA → ∞.
#[must_use]
pub fn waf_fifo(alpha: f64) -> f64 {
    if !alpha_is_valid(alpha) {
        return f64::NAN;
    }
    // Substitute u = alpha (1 − x) ∈ (0, alpha]: the equation becomes u = alpha (1 − e^{−u}) and
    // WA = alpha / u. This removes the trivial root x = 1 (it moves to u = 0, which we exclude by
    // dividing by u), and `expm1` keeps full relative precision when u is tiny (alpha → 1).
    // g(u) = alpha (1 − e^{−u}) / u − 1 is strictly decreasing from alpha − 1 > 0 at u → 0⁺ to
    // −e^{−alpha} < 0 at u = alpha, so bisection on (0, alpha] finds the unique root.
    let excess = |u: f64| alpha * (-(-u).exp_m1()) / u - 1.0;
    let u = bisect_decreasing(excess, 0.0, alpha);
    alpha / u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::alpha_from_spare_factor;
    use crate::analytic::reference::{
        assert_close, TABLE_REL_TOL, TABLE_SPARE_FACTORS, UNIFORM_TABLE,
    };

    #[test]
    fn uniform_table_fifo() {
        for (sf, row) in TABLE_SPARE_FACTORS.iter().zip(UNIFORM_TABLE) {
            let wa = waf_fifo(alpha_from_spare_factor(*sf));
            assert_close(wa, row[0], TABLE_REL_TOL, &format!("FIFO at Sf {sf}"));
        }
    }

    #[test]
    fn fifo_solves_its_fixed_point_equation() {
        // Check the defining equation x = exp(−alpha (1 − x)) directly, including near alpha = 1
        // (root near the trivial x = 1) and for lavish spare (root near x = 0).
        for alpha in [1.0 + 1e-9, 1.001, 1.05, 1.5, 2.0, 5.0, 50.0] {
            let wa = waf_fifo(alpha);
            let victim_valid_fraction = 1.0 - 1.0 / wa;
            assert!(
                (0.0..1.0).contains(&victim_valid_fraction),
                "alpha {alpha}: x = {victim_valid_fraction}"
            );
            let residual = victim_valid_fraction - (-alpha * (1.0 - victim_valid_fraction)).exp();
            assert!(residual.abs() < 1e-12, "alpha {alpha}: residual {residual}");
        }
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "alpha = T/U must be finite and > 1")]
    fn alpha_at_most_one_panics_in_debug() {
        let _ = waf_fifo(1.0);
    }
}
