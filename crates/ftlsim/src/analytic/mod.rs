//! Analytical (closed-form and mean-field) write-amplification models for page-mapped flash with
//! garbage collection.
//!
//! These are the large-device (number of blocks N → ∞) ground truth the simulator is validated
//! against; see `analytical-waf.md` in the shared reference material for the tables reproduced by
//! the unit tests (`reference.rs`).
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
//!
//! # Files
//!
//! One file per model family: `fifo.rs`, `random.rs`, `greedy.rs` (exact mean field and
//! Desnoyers' approximation), `d_choices.rs`, `hot_cold.rs` (one mixed frontier),
//! `separated.rs` (two pools); `inputs.rs` holds the conversions and precondition checks,
//! `solvers.rs` the root finders, `reference.rs` (tests only) the published tables.

mod d_choices;
mod fifo;
mod greedy;
mod hot_cold;
mod inputs;
mod random;
#[cfg(test)]
mod reference;
mod separated;
mod solvers;

pub use d_choices::waf_d_choices;
pub use fifo::waf_fifo;
pub use greedy::{waf_greedy, waf_greedy_desnoyers};
pub use hot_cold::{waf_hot_cold_fifo, waf_hot_cold_greedy};
pub use inputs::{alpha_from_spare_factor, spare_factor_from_alpha};
pub use random::{waf_random, waf_random_from_alpha};
pub use separated::{waf_separated, waf_separated_best};

#[cfg(test)]
mod tests {
    use super::greedy::desnoyers_k;
    use super::*;

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
