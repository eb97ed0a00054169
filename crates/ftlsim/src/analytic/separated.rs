//! Hot and cold data perfectly separated into two pools (Desnoyers): the WA of a given split of
//! the spare space, and the best split, the lower bound ideal separation should approach.

use super::inputs::{alpha_is_valid, hot_cold_is_valid};

/// WA with hot and cold data perfectly separated into two pools (ideal stream separation), the
/// hot pool holding a share `hot_spare_share` (p) of the spare space `T − U` (Desnoyers, ACM TOS
/// 2014):
///
/// `alpha_h = (p (alpha − 1) + f) / f`, `alpha_c = ((1 − p)(alpha − 1) + (1 − f)) / (1 − f)`,
/// `A(p) = r · A_pool(alpha_h) + (1 − r) · A_pool(alpha_c)`
///
/// where `pool` is the uniform-write model of the pools' GC policy as a function of alpha (e.g.
/// [`waf_fifo`](super::waf_fifo) or `|a| waf_greedy(a, b)`). `p = f` gives back the uniform WA
/// `pool(alpha)`.
///
/// Preconditions: `alpha > 1`, `0 < r < 1`, `0 < f < 1`, `0 < p < 1` (otherwise debug panic /
/// release `NaN`); `pool` must accept any alpha > 1.
#[must_use]
pub fn waf_separated(
    alpha: f64,
    hot_write_fraction: f64,
    hot_space_fraction: f64,
    hot_spare_share: f64,
    pool: impl Fn(f64) -> f64,
) -> f64 {
    if !alpha_is_valid(alpha) || !hot_cold_is_valid(hot_write_fraction, hot_space_fraction) {
        return f64::NAN;
    }
    let p = hot_spare_share;
    debug_assert!(
        p > 0.0 && p < 1.0,
        "hot spare share p must be in (0, 1), got {p}"
    );
    if !(p > 0.0 && p < 1.0) {
        return f64::NAN;
    }
    let (r, f) = (hot_write_fraction, hot_space_fraction);
    let spare = alpha - 1.0; // (T − U) / U
    let alpha_hot = (p * spare + f) / f;
    let alpha_cold = ((1.0 - p) * spare + (1.0 - f)) / (1.0 - f);
    r * pool(alpha_hot) + (1.0 - r) * pool(alpha_cold)
}

/// Best split of the spare space for [`waf_separated`]: returns `(p_best, wa_best)` minimising
/// `A(p)` over `p ∈ (0, 1)`. This is the lower bound ideal hot/cold separation should approach.
///
/// Method: a coarse grid (plus the uniform split `p = f`) locates the basin, then golden-section
/// search refines `p` to about 1e-9 (A(p) is flat at its minimum, so WA is then exact to ~1e-15
/// relative). About 80 evaluations of `pool`, each called twice.
///
/// Preconditions as for [`waf_separated`] (otherwise debug panic / release `(NaN, NaN)`).
#[must_use]
pub fn waf_separated_best(
    alpha: f64,
    hot_write_fraction: f64,
    hot_space_fraction: f64,
    pool: impl Fn(f64) -> f64,
) -> (f64, f64) {
    /// Coarse-scan resolution: fine enough that the grid minimum's neighbours bracket the true
    /// minimum, coarse enough to keep the pool-model evaluations few.
    const GRID_STEPS: u32 = 32;
    if !alpha_is_valid(alpha) || !hot_cold_is_valid(hot_write_fraction, hot_space_fraction) {
        return (f64::NAN, f64::NAN);
    }
    let wa_at = |p: f64| waf_separated(alpha, hot_write_fraction, hot_space_fraction, p, &pool);

    // Coarse scan. A(p) blows up at both ends (one pool runs out of spare), and for convex pool
    // models it is convex in p, so the best grid point's neighbours bracket the minimum.
    let grid_p = |i: u32| f64::from(i) / f64::from(GRID_STEPS);
    let mut best_i = 1;
    let mut best = (grid_p(1), wa_at(grid_p(1)));
    for i in 2..GRID_STEPS {
        let wa = wa_at(grid_p(i));
        if wa < best.1 {
            best = (grid_p(i), wa);
            best_i = i;
        }
    }
    let mut lo = grid_p(best_i - 1);
    let mut hi = grid_p(best_i + 1);

    // Golden-section search inside the bracket (endpoints, possibly 0 or 1, are never evaluated).
    let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
    let mut p1 = hi - inv_phi * (hi - lo);
    let mut p2 = lo + inv_phi * (hi - lo);
    let mut wa1 = wa_at(p1);
    let mut wa2 = wa_at(p2);
    while hi - lo > 1e-9 {
        if wa1 <= wa2 {
            hi = p2;
            (p2, wa2) = (p1, wa1);
            p1 = hi - inv_phi * (hi - lo);
            wa1 = wa_at(p1);
        } else {
            lo = p1;
            (p1, wa1) = (p2, wa2);
            p2 = lo + inv_phi * (hi - lo);
            wa2 = wa_at(p2);
        }
    }
    // Keep the best point actually evaluated, including the uniform split p = f, so the result
    // is never worse than no separation even for a non-unimodal pool model.
    let uniform = (hot_space_fraction, wa_at(hot_space_fraction));
    for candidate in [(p1, wa1), (p2, wa2), uniform] {
        if candidate.1 < best.1 {
            best = candidate;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytic::reference::{assert_close, TABLE_SPARE_FACTORS};
    use crate::analytic::{alpha_from_spare_factor, waf_d_choices, waf_fifo, waf_greedy};

    #[test]
    fn separated_with_proportional_spare_is_uniform() {
        for sf in TABLE_SPARE_FACTORS {
            let alpha = alpha_from_spare_factor(sf);
            for (r, f) in [(0.9, 0.1), (0.8, 0.2), (0.5, 0.5)] {
                let fifo = waf_separated(alpha, r, f, f, waf_fifo);
                assert_close(fifo, waf_fifo(alpha), 1e-12, "separated FIFO p = f");
                let greedy = waf_separated(alpha, r, f, f, |a| waf_greedy(a, 64));
                assert_close(
                    greedy,
                    waf_greedy(alpha, 64),
                    1e-12,
                    "separated greedy p = f",
                );
            }
        }
    }

    #[test]
    fn best_separation_beats_uniform_and_is_a_local_minimum() {
        type Pool = fn(f64) -> f64;
        let pools: [(&str, Pool); 3] = [
            ("fifo", waf_fifo),
            ("greedy64", |a| waf_greedy(a, 64)),
            ("d8", |a| waf_d_choices(a, 64, 8)),
        ];
        for (name, pool) in pools {
            for sf in [0.07, 0.10, 0.20] {
                let alpha = alpha_from_spare_factor(sf);
                for (r, f) in [(0.9, 0.1), (0.8, 0.2)] {
                    let what = format!("{name} {r}/{f} Sf {sf}");
                    let (p_best, wa_best) = waf_separated_best(alpha, r, f, pool);
                    assert!(p_best > 0.0 && p_best < 1.0, "{what}: p_best {p_best}");
                    // Skewed writes: separation must strictly help.
                    let uniform = pool(alpha);
                    assert!(
                        wa_best < uniform,
                        "{what}: best {wa_best} >= uniform {uniform}"
                    );
                    for dp in [1e-3, 1e-2] {
                        for p in [p_best - dp, p_best + dp] {
                            let wa = waf_separated(alpha, r, f, p, pool);
                            assert!(
                                wa >= wa_best,
                                "{what}: A({p}) = {wa} < A(p_best) = {wa_best}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn best_separation_without_skew_keeps_proportional_spare() {
        // With r = f both pools see the same write intensity; by convexity of the pool model the
        // optimum gives each pool spare in proportion to its size, p = f.
        let alpha = alpha_from_spare_factor(0.1);
        for f in [0.2, 0.5, 0.7] {
            let (p_best, wa_best) = waf_separated_best(alpha, f, f, waf_fifo);
            assert!((p_best - f).abs() < 1e-6, "r = f = {f}: p_best {p_best}");
            assert_close(wa_best, waf_fifo(alpha), 1e-12, "r = f best WA");
        }
    }
}
