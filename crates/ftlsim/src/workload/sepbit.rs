//! SepBIT's synthetic workload (Wang et al., FAST'22, its `synthetic.r`):
//! writes drawn i.i.d. from a Zipf law over a working set, whose hot fifth
//! is reshuffled every so many pages written.
//!
//! The law, as SepBIT's generator has it (written again here, not ported):
//!
//! * The working set has `n` slots (pages, or requests of `request_pages`).
//!   Rank `k` (1-based) is drawn with probability ∝ `k^-α`.
//! * Ranks `1..=h`, `h = ⌊n/5⌋`, are the hot set: rank `k` goes to slot
//!   `hot[k-1]`, a permutation of slots `0..h`, the identity at first.
//!   Colder ranks go to their own slot (`k - 1`), never moved.
//! * After every `hot_shift` pages drawn, `hot` becomes a fresh uniformly
//!   random permutation (SepBIT draws a new one; a Fisher–Yates shuffle of
//!   the current one is a uniformly random permutation too, so the law is
//!   the same). With α = 0 every rank is alike and SepBIT skips it; so do we.
//!
//! "Same" means the same law per interval: the slot stream is not SepBIT's
//! R stream byte for byte (R's `sample` and our xoshiro differ). The hot set
//! is always the same slots `0..h`; only which of them is hottest moves.

use rand::Rng;
use rand_distr::{Distribution, Zipf};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The share of the working set SepBIT's hot set takes (`n %/% 5`).
pub const HOT_DIVISOR: u64 = 5;

/// The Zipf ranks, the hot permutation and the count towards its next shift.
#[derive(Debug, Clone)]
pub struct SepbitZipf {
    zipf: Zipf<f64>,
    slots: u64,
    /// Slot of hot rank k (0-based): a permutation of `0..hot.len()`.
    hot: Vec<u64>,
    /// Pages between shuffles; `u64::MAX` when the hot set never moves.
    shift_pages: u64,
    /// Pages drawn since the last shuffle.
    drawn_pages: u64,
    /// Its own stream, so that a shuffle never moves the draws of ranks.
    shuffle: Xoshiro256PlusPlus,
}

impl SepbitZipf {
    /// `slots` ≥ 1 and `alpha` ≥ 0, finite (checked by the plan); a
    /// `shift_pages` of `None` never reshuffles.
    pub fn new(
        slots: u64,
        alpha: f64,
        shift_pages: Option<u64>,
        shuffle: Xoshiro256PlusPlus,
    ) -> Self {
        assert!(slots >= 1 && alpha >= 0.0 && alpha.is_finite());
        let hot_len = slots / HOT_DIVISOR;
        let moves = alpha > 0.0 && hot_len > 1;
        Self {
            zipf: Zipf::new(slots as f64, alpha).expect("checked: slots >= 1, alpha >= 0"),
            slots,
            hot: (0..hot_len).collect(),
            shift_pages: shift_pages.filter(|_| moves).unwrap_or(u64::MAX).max(1),
            drawn_pages: 0,
            shuffle,
        }
    }

    /// The slot of the next request.
    #[inline]
    pub fn slot<R: Rng>(&self, rng: &mut R) -> u64 {
        let rank = (self.zipf.sample(rng) as u64).clamp(1, self.slots) - 1;
        match self.hot.get(rank as usize) {
            Some(&slot) => slot,
            None => rank,
        }
    }

    /// Counts `pages` written; reshuffles the hot set when an interval is
    /// complete (before the next draw, as SepBIT permutes between intervals).
    #[inline]
    pub fn written(&mut self, pages: u64) {
        self.drawn_pages += pages;
        if self.drawn_pages >= self.shift_pages {
            self.drawn_pages -= self.shift_pages;
            self.reshuffle();
        }
    }

    #[inline(never)]
    fn reshuffle(&mut self) {
        // Fisher–Yates: bounded by the hot set's length.
        for i in (1..self.hot.len()).rev() {
            let j = self.shuffle.random_range(0..=i);
            self.hot.swap(i, j);
        }
    }

    /// The hot slot of each hot rank, hottest first (for tests and tools).
    pub fn hot_slots(&self) -> &[u64] {
        &self.hot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    /// The Zipf law's share of ranks `1..=top` among `1..=n`.
    fn law_share(n: u64, top: u64, alpha: f64) -> f64 {
        let w = |k: u64| (k as f64).powf(-alpha);
        (1..=top).map(w).sum::<f64>() / (1..=n).map(w).sum::<f64>()
    }

    /// The share of draws to the top decile of ranks matches the law
    /// (hot set fixed, so rank k is slot k - 1), for several α.
    #[test]
    fn top_decile_share_follows_the_zipf_law() {
        let n = 10_000u64;
        for alpha in [0.0, 0.5, 0.8, 1.0, 1.2] {
            let g = SepbitZipf::new(n, alpha, None, rng::stream(1, "hot-shift"));
            let mut r = rng::stream(7, "workload");
            let draws = 200_000;
            let top = (0..draws).filter(|_| g.slot(&mut r) < n / 10).count();
            let share = top as f64 / f64::from(draws);
            let want = law_share(n, n / 10, alpha);
            assert!(
                (share - want).abs() < 0.01,
                "alpha {alpha}: top decile took {share}, the law says {want}"
            );
        }
    }

    /// After `hot_shift` pages the hottest slot moves within the hot fifth,
    /// and cold slots keep their share.
    #[test]
    fn hot_set_moves_after_the_shift() {
        let n = 1000u64;
        let shift = 20_000u64;
        let mut g = SepbitZipf::new(n, 1.0, Some(shift), rng::stream(3, "hot-shift"));
        let mut r = rng::stream(3, "workload");
        let mut hottest = Vec::new();
        let mut cold_shares = Vec::new();
        for _ in 0..4 {
            let mut counts = vec![0u32; n as usize];
            for _ in 0..shift {
                let s = g.slot(&mut r);
                counts[s as usize] += 1;
                g.written(1);
            }
            let top = (0..n as usize).max_by_key(|&s| counts[s]).unwrap();
            hottest.push(top as u64);
            let cold: u32 = counts[(n / HOT_DIVISOR) as usize..].iter().sum();
            cold_shares.push(f64::from(cold) / shift as f64);
        }
        assert_eq!(
            hottest[0], 0,
            "the first interval's hot set is the identity"
        );
        assert!(
            hottest.iter().all(|&s| s < n / HOT_DIVISOR),
            "the hottest slot stays in the hot fifth: {hottest:?}"
        );
        assert!(
            hottest.windows(2).any(|w| w[0] != w[1]),
            "the hottest slot never moved: {hottest:?}"
        );
        let want = 1.0 - law_share(n, n / HOT_DIVISOR, 1.0);
        for c in cold_shares {
            assert!((c - want).abs() < 0.02, "cold share {c}, law {want}");
        }
    }

    /// No shift given, or α = 0: the hot set stays the identity.
    #[test]
    fn no_shift_keeps_the_identity() {
        for (alpha, shift) in [(1.0, None), (0.0, Some(10))] {
            let mut g = SepbitZipf::new(100, alpha, shift, rng::stream(5, "hot-shift"));
            for _ in 0..1000 {
                g.written(1);
            }
            assert!(g
                .hot_slots()
                .iter()
                .enumerate()
                .all(|(i, &s)| s == i as u64));
        }
    }
}
