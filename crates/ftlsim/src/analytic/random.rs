//! Random victim selection under uniform writes: `WA = 1 / Sf`, in both parameterisations.

use super::inputs::alpha_is_valid;

/// WA of random victim selection under uniform writes: `WA = 1 / Sf` (exact as N → ∞).
///
/// Precondition: `0 < sf < 1` (otherwise debug panic / release `NaN`).
#[must_use]
pub fn waf_random(sf: f64) -> f64 {
    debug_assert!(
        sf > 0.0 && sf < 1.0,
        "spare factor must be in (0, 1), got {sf}"
    );
    if !(sf > 0.0 && sf < 1.0) {
        return f64::NAN;
    }
    1.0 / sf
}

/// [`waf_random`] parameterised by `alpha` like the other models: `WA = alpha / (alpha − 1)`.
///
/// Precondition: `alpha > 1` (otherwise debug panic / release `NaN`).
#[must_use]
pub fn waf_random_from_alpha(alpha: f64) -> f64 {
    if !alpha_is_valid(alpha) {
        return f64::NAN;
    }
    alpha / (alpha - 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::reference::{
        assert_close, TABLE_REL_TOL, TABLE_SPARE_FACTORS, UNIFORM_TABLE,
    };

    #[test]
    fn uniform_table_random() {
        for (sf, row) in TABLE_SPARE_FACTORS.iter().zip(UNIFORM_TABLE) {
            assert_close(
                waf_random(*sf),
                row[4],
                TABLE_REL_TOL,
                &format!("random at Sf {sf}"),
            );
        }
    }
}
