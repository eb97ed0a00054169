//! Analytical (closed-form and mean-field) write-amplification models for page-mapped flash with
//! garbage collection.
//!
//! These are the large-device (number of blocks N → ∞) ground truth the simulator is validated
//! against; see `analytical-waf.md` in the shared reference material for the tables reproduced by
//! the unit tests below.
//!
//! # Conventions
//!
//! Papers disagree on notation, so every function here uses the same one:
//!
//! * `T` = physical pages, `U` = logical (user) pages, `b` = pages per block.
//! * Spare factor `Sf = (T − U) / T`; over-provisioning ratio `alpha = T / U = 1 / (1 − Sf)`, so
//!   valid inputs have `alpha > 1` (`ρ = U / T = 1 / alpha` is the utilisation). Industry "OP" is
//!   `(T − U) / U = alpha − 1`.
//! * WA = all NAND page programs / host page writes, so WA ≥ 1 (never the "WA − 1" some papers
//!   call WAF).
//! * Hot/cold: `hot_write_fraction` (r) is the fraction of *writes* going to hot data,
//!   `hot_space_fraction` (f) the fraction of *logical space* that is hot ("90/10" is r = 0.9,
//!   f = 0.1). Writes are uniform within each region.
//! * Single-page writes, steady state, one write frontier shared by host writes and GC copies,
//!   and no hidden reserve (every physical block counts in `T`).
//!
//! # Invalid inputs
//!
//! Each function documents its preconditions. Violating one panics in debug builds (via
//! `debug_assert!`, with a message naming the parameter) and returns `NaN` in release builds;
//! valid inputs never panic.

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

/// WA of d-choices victim selection (sample `d` blocks uniformly at random, clean the one with
/// the fewest valid pages) under uniform writes: the mean-field model of Van Houdt (SIGMETRICS
/// 2013), exact as N → ∞.
///
/// With `y_i` the fraction of blocks holding at least `i` valid pages and `ρ = 1 / alpha`:
/// `i (y_i − y_{i+1}) = b ρ r (1 − y_i^d)` for `i = 1..=b`, `y_{b+1} = 0`, and
/// `Σ_{i=1..=b} y_i = b ρ`; then `WA = r · b`. `d = 1` is random selection (`1 / Sf`) and
/// `d → ∞` tends to greedy ([`waf_greedy`]).
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
    let valid_pages_per_block = b / alpha; // b ρ: the required Σ y_i
                                           // Σ y_i as a function of the rate r is strictly increasing (each y_i increases with r and
                                           // with y_{i+1}), is 0 at r = 0 and tends to b > b ρ as r → ∞, so a bracketing root finder
                                           // on r converges to the unique solution.
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

/// WA of FIFO victim selection with hot and cold data mixed in one write frontier (Desnoyers,
/// SYSTOR 2012 / ACM TOS 2014); exact as N → ∞. Solves for `A`:
///
/// `A = 1 + r / (exp((r/f) alpha / A) − 1) + (1 − r) / (exp(((1 − r)/(1 − f)) alpha / A) − 1)`
///
/// with `r = hot_write_fraction`, `f = hot_space_fraction`. `r = f` reduces to [`waf_fifo`].
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
/// `k = 1 + 1/(2b)`, with `A_fifo_hc` = [`waf_hot_cold_fifo`]. Like [`waf_greedy_desnoyers`] it
/// is returned unclamped and can dip below 1 (to `1/k`) for lavish spare or tiny blocks.
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

/// WA with hot and cold data perfectly separated into two pools (ideal stream separation), the
/// hot pool holding a share `hot_spare_share` (p) of the spare space `T − U` (Desnoyers, ACM TOS
/// 2014):
///
/// `alpha_h = (p (alpha − 1) + f) / f`, `alpha_c = ((1 − p)(alpha − 1) + (1 − f)) / (1 − f)`,
/// `A(p) = r · A_pool(alpha_h) + (1 − r) · A_pool(alpha_c)`
///
/// where `pool` is the uniform-write model of the pools' GC policy as a function of alpha (e.g.
/// [`waf_fifo`] or `|a| waf_greedy(a, b)`). `p = f` gives back the uniform WA `pool(alpha)`.
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

/// Precondition check shared by all alpha-parameterised models.
fn alpha_is_valid(alpha: f64) -> bool {
    debug_assert!(
        alpha > 1.0 && alpha.is_finite(),
        "alpha = T/U must be finite and > 1, got {alpha}"
    );
    alpha > 1.0 && alpha.is_finite()
}

/// Precondition check for the hot/cold split.
fn hot_cold_is_valid(hot_write_fraction: f64, hot_space_fraction: f64) -> bool {
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
fn block_size_is_valid(pages_per_block: u32) -> bool {
    debug_assert!(
        pages_per_block >= 2,
        "pages_per_block must be >= 2, got {pages_per_block}"
    );
    pages_per_block >= 2
}

/// Desnoyers' greedy correction factor `k = 1 + 1/(2b)`.
fn desnoyers_k(pages_per_block: u32) -> f64 {
    1.0 + 1.0 / (2.0 * f64::from(pages_per_block))
}

/// Harmonic number `H_n = Σ_{i=1..=n} 1/i`.
fn harmonic(n: u32) -> f64 {
    (1..=n).map(|i| 1.0 / f64::from(i)).sum()
}

/// Root of a continuous function in the bracket `[a, b]` by Brent's method (inverse quadratic
/// interpolation and secant steps, falling back to bisection), given the endpoint values, whose
/// signs must differ (or one be zero). Converges to a relative tolerance of a few ulps. Returns
/// `NaN` rather than panicking if the bracket holds no sign change, so that a numerical corner
/// case shows up as a visibly bad WA instead of aborting a validation run.
fn brent_root(g: impl Fn(f64) -> f64, (a, g_a): (f64, f64), (b, g_b): (f64, f64)) -> f64 {
    // Brent (1973), "Algorithms for Minimization without Derivatives", ch. 4 (zeroin). `b` is the
    // best estimate, `c` the other end of the bracket, `a` the previous `b`.
    let (mut a, mut fa, mut b, mut fb) = (a, g_a, b, g_b);
    if fa == 0.0 {
        return a;
    }
    if fb == 0.0 {
        return b;
    }
    if (fa > 0.0) == (fb > 0.0) || fa.is_nan() || fb.is_nan() {
        return f64::NAN;
    }
    let (mut c, mut fc) = (b, fb);
    let mut step = b - a;
    let mut prev_step = step;
    for _ in 0..200 {
        if (fb > 0.0) == (fc > 0.0) {
            // The root is between a and b: make a the other end of the bracket.
            (c, fc) = (a, fa);
            step = b - a;
            prev_step = step;
        }
        if fc.abs() < fb.abs() {
            (a, fa) = (b, fb);
            (b, fb) = (c, fc);
            (c, fc) = (a, fa);
        }
        let tol = 2.0 * f64::EPSILON * b.abs() + 0.5 * f64::MIN_POSITIVE;
        let half_width = 0.5 * (c - b);
        if half_width.abs() <= tol || fb == 0.0 {
            return b;
        }
        if prev_step.abs() >= tol && fa.abs() > fb.abs() {
            // Try interpolation: secant if only two distinct points, else inverse quadratic.
            let s = fb / fa;
            let (mut p, mut q);
            // Exact comparison on purpose: `c` is a copy of `a` when only two points are known.
            if a == c {
                p = 2.0 * half_width * s;
                q = 1.0 - s;
            } else {
                let q_ac = fa / fc;
                let r_bc = fb / fc;
                p = s * (2.0 * half_width * q_ac * (q_ac - r_bc) - (b - a) * (r_bc - 1.0));
                q = (q_ac - 1.0) * (r_bc - 1.0) * (s - 1.0);
            }
            if p > 0.0 {
                q = -q;
            } else {
                p = -p;
            }
            // Accept the interpolation only if it stays well inside the bracket and shrinks
            // faster than the step before last; otherwise bisect.
            if 2.0 * p < (3.0 * half_width * q - (tol * q).abs()).min((prev_step * q).abs()) {
                prev_step = step;
                step = p / q;
            } else {
                step = half_width;
                prev_step = step;
            }
        } else {
            step = half_width;
            prev_step = step;
        }
        (a, fa) = (b, fb);
        b += if step.abs() > tol {
            step
        } else {
            tol.copysign(half_width)
        };
        fb = g(b);
    }
    b
}

/// Root of a strictly decreasing function with `g(lo) > 0 > g(hi)` by bisection. The endpoints
/// themselves are never evaluated, so `g` may be undefined there (as `waf_fifo`'s is at 0).
/// Stops at a relative bracket width of a few ulps, which takes about 55 steps from a bracket
/// whose lower end is 0 and at most about 110 even when the root is tiny.
fn bisect_decreasing(g: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..2200 {
        let mid = 0.5 * (lo + hi);
        // Relative precision is all a WA needs; also stop if the bracket cannot be split.
        if mid <= lo || mid >= hi || hi - lo <= 4.0 * f64::EPSILON * hi.abs() {
            break;
        }
        if g(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference tables give 4–5 significant digits; 1e-4 relative is tighter than a
    /// last-digit error for every entry (the smallest, 1.2389, rounds to within 4e-5).
    const TABLE_REL_TOL: f64 = 1e-4;

    /// Spare factors of the uniform table in `analytical-waf.md`.
    const TABLE_SPARE_FACTORS: [f64; 10] =
        [0.05, 0.07, 0.10, 0.15, 0.20, 0.25, 0.28, 0.30, 0.40, 0.50];

    /// Uniform-write table, one row per spare factor: FIFO, greedy b = 64, 128, 256, random.
    const UNIFORM_TABLE: [[f64; 5]; 10] = [
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
    const HOT_COLD_TABLE: [(f64, f64, f64, f64, f64); 6] = [
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
    fn assert_close(actual: f64, expected: f64, rel_tol: f64, what: &str) {
        let err = rel_err(actual, expected);
        assert!(
            err <= rel_tol,
            "{what}: got {actual}, expected {expected} (relative error {err:.2e} > {rel_tol:.0e})"
        );
    }

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

    #[test]
    fn uniform_table_fifo() {
        for (sf, row) in TABLE_SPARE_FACTORS.iter().zip(UNIFORM_TABLE) {
            let wa = waf_fifo(alpha_from_spare_factor(*sf));
            assert_close(wa, row[0], TABLE_REL_TOL, &format!("FIFO at Sf {sf}"));
        }
    }

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

    #[test]
    fn valid_extreme_inputs_give_finite_results() {
        let alphas = [1.0 + 1e-12, 1.0 + 1e-6, 1.01, 2.0, 10.0, 1e3, 1e6];
        for alpha in alphas {
            let check = |wa: f64, what: &str| {
                assert!(
                    wa.is_finite() && wa >= 1.0 - 1e-9,
                    "alpha {alpha} {what}: {wa}"
                );
            };
            check(waf_fifo(alpha), "fifo");
            check(waf_random_from_alpha(alpha), "random");
            for b in [2, 3, 64, 4096] {
                check(waf_greedy(alpha, b), "greedy");
                // Desnoyers' rescaling is only floored at 1/k (documented), not at 1.
                let k = desnoyers_k(b);
                check(k * waf_greedy_desnoyers(alpha, b), "k * desnoyers");
                for d in [1, 2, 64, 100_000, i32::MAX as u32] {
                    check(waf_d_choices(alpha, b.min(512), d), "d-choices");
                }
                for (r, f) in [
                    (0.9, 0.1),
                    (0.1, 0.9),
                    (1.0 - 1e-9, 1e-9),
                    (1e-9, 1.0 - 1e-9),
                ] {
                    check(waf_hot_cold_fifo(alpha, r, f), "hot/cold fifo");
                    check(
                        k * waf_hot_cold_greedy(alpha, r, f, b),
                        "k * hot/cold greedy",
                    );
                }
            }
            let (p_best, wa_best) = waf_separated_best(alpha, 0.9, 0.1, waf_fifo);
            assert!(
                p_best > 0.0 && p_best < 1.0,
                "alpha {alpha}: p_best {p_best}"
            );
            check(wa_best, "separated best");
        }
    }

    #[test]
    fn models_are_fast_enough_for_validate() {
        // `ftlsim validate` calls these a few dozen times; keep each well under a few ms even in
        // an unoptimised build (generous bound so a loaded CI box does not flake).
        let start = std::time::Instant::now();
        let _ = waf_d_choices(alpha_from_spare_factor(0.05), 256, 64);
        let _ = waf_greedy(alpha_from_spare_factor(0.05), 256);
        let _ = waf_hot_cold_fifo(alpha_from_spare_factor(0.05), 0.9, 0.1);
        let _ = waf_separated_best(alpha_from_spare_factor(0.05), 0.9, 0.1, waf_fifo);
        assert!(
            start.elapsed() < std::time::Duration::from_millis(500),
            "{:?}",
            start.elapsed()
        );
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "alpha = T/U must be finite and > 1")]
    fn alpha_at_most_one_panics_in_debug() {
        let _ = waf_fifo(1.0);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "pages_per_block must be >= 2")]
    fn one_page_blocks_panic_in_debug() {
        let _ = waf_greedy(1.1, 1);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "hot write fraction r must be in (0, 1)")]
    fn hot_write_fraction_out_of_range_panics_in_debug() {
        let _ = waf_hot_cold_fifo(1.1, 1.0, 0.5);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "number of choices d must be in 1..=i32::MAX")]
    fn zero_choices_panics_in_debug() {
        let _ = waf_d_choices(1.1, 64, 0);
    }

    #[cfg(not(debug_assertions))]
    #[test]
    fn invalid_inputs_give_nan_in_release() {
        assert!(waf_fifo(1.0).is_nan());
        assert!(waf_fifo(f64::NAN).is_nan());
        assert!(waf_greedy(1.1, 1).is_nan());
        assert!(waf_d_choices(1.1, 64, 0).is_nan());
        assert!(waf_hot_cold_fifo(1.1, 1.0, 0.5).is_nan());
        assert!(waf_separated(1.1, 0.9, 0.1, 0.0, waf_fifo).is_nan());
        assert!(waf_random(0.0).is_nan());
        assert!(waf_separated_best(0.5, 0.9, 0.1, waf_fifo).0.is_nan());
    }
}
