//! The root finders the models share: Brent's method for smooth equations with a bracket, and
//! bisection for a decreasing function undefined at its bracket's ends.

/// Root of a continuous function in the bracket `[a, b]` by Brent's method (inverse quadratic
/// interpolation and secant steps, falling back to bisection), given the endpoint values, whose
/// signs must differ (or one be zero). Converges to a relative tolerance of a few ulps. Returns
/// `NaN` rather than panicking if the bracket holds no sign change, so that a numerical corner
/// case shows up as a visibly bad WA instead of aborting a validation run.
pub(super) fn brent_root(
    g: impl Fn(f64) -> f64,
    (a, g_a): (f64, f64),
    (b, g_b): (f64, f64),
) -> f64 {
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
pub(super) fn bisect_decreasing(g: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
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
