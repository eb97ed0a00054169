//! The models' inputs: the spare factor and `alpha = T / U` converted into each other, and the
//! precondition checks every model runs first (debug panic naming the parameter, release `NaN`).

/// Converts a spare factor `Sf = (T − U) / T` into `alpha = T / U = 1 / (1 − Sf)`.
///
/// Precondition: `0 < sf < 1` (otherwise debug panic / release `NaN`).
#[must_use]
pub fn alpha_from_spare_factor(sf: f64) -> f64 {
    debug_assert!(
        sf > 0.0 && sf < 1.0,
        "spare factor must be in (0, 1), got {sf}"
    );
    if !(sf > 0.0 && sf < 1.0) {
        return f64::NAN;
    }
    1.0 / (1.0 - sf)
}

/// Converts `alpha = T / U` back into the spare factor `Sf = 1 − 1 / alpha`.
///
/// Precondition: `alpha > 1` (otherwise debug panic / release `NaN`).
#[must_use]
pub fn spare_factor_from_alpha(alpha: f64) -> f64 {
    if !alpha_is_valid(alpha) {
        return f64::NAN;
    }
    1.0 - 1.0 / alpha
}

/// Precondition check shared by all alpha-parameterised models.
pub(super) fn alpha_is_valid(alpha: f64) -> bool {
    debug_assert!(
        alpha > 1.0 && alpha.is_finite(),
        "alpha = T/U must be finite and > 1, got {alpha}"
    );
    alpha > 1.0 && alpha.is_finite()
}

/// Precondition check for the hot/cold split.
pub(super) fn hot_cold_is_valid(hot_write_fraction: f64, hot_space_fraction: f64) -> bool {
    let (r, f) = (hot_write_fraction, hot_space_fraction);
    debug_assert!(
        r > 0.0 && r < 1.0,
        "hot write fraction r must be in (0, 1), got {r}"
    );
    debug_assert!(
        f > 0.0 && f < 1.0,
        "hot space fraction f must be in (0, 1), got {f}"
    );
    r > 0.0 && r < 1.0 && f > 0.0 && f < 1.0
}

/// Precondition check for the block size.
pub(super) fn block_size_is_valid(pages_per_block: u32) -> bool {
    debug_assert!(
        pages_per_block >= 2,
        "pages_per_block must be >= 2, got {pages_per_block}"
    );
    pages_per_block >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::reference::{assert_close, TABLE_SPARE_FACTORS};
    use crate::analytic::{waf_random, waf_random_from_alpha};

    #[test]
    fn alpha_and_spare_factor_round_trip() {
        assert_close(alpha_from_spare_factor(0.2), 1.25, 1e-15, "alpha(0.2)");
        // Industry "7 % OP" is Sf = 6.54 %.
        assert_close(
            spare_factor_from_alpha(1.07),
            0.0654,
            1e-3,
            "Sf(alpha = 1.07)",
        );
        for sf in TABLE_SPARE_FACTORS {
            let alpha = alpha_from_spare_factor(sf);
            assert_close(spare_factor_from_alpha(alpha), sf, 1e-14, "round trip");
            assert_close(
                waf_random_from_alpha(alpha),
                waf_random(sf),
                1e-14,
                "random(alpha)",
            );
        }
    }
}
