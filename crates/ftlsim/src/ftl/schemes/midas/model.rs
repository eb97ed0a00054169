//! MiDAS's model, simplified (docs/placement.md says how and why): from the
//! update intervals of sampled LPNs (the UID), the WA a chain of groups of
//! given sizes would have, and the group count and sizes that minimise it
//! (MiDAS's first search phase).
//!
//! A page enters group 0 at its user write and leaves each FIFO group one
//! residence time later: the group's pages over the rate pages enter it.
//! It is still valid when it leaves if its update interval is longer than
//! its age then, so the rate into group `i + 1` is the UID's survival `S`
//! at the summed residence times, and each such page is one copy. The last
//! group keeps its own copies: modelled as a FIFO whose pages, entering at
//! age `A` at rate `r`, are copied once per pass of `T` they survive; `T`
//! fills the group (`room = r·T + r·∫_{A+T/2}^∞ S / S(A)`, the passes'
//! sum as its midpoint integral) and its copies are `r·∫_{A+T/2}^∞ S /
//! (T·S(A))`. A group smaller than `r` times its pages' mean remaining
//! life cannot hold them: no solution. WA is one plus the copies per user
//! write.
//!
//! An interval still open when the epoch ends is censored at its age:
//! `S` is Kaplan and Meier's estimate over the histogram's buckets, and
//! continues past the histogram as an exponential whose mean makes the mean
//! interval the pages holding data (Little's law: a host write per unit of
//! time, each page's data living one interval).

/// The sampled update intervals, in buckets of a block's worth of host
/// writes (MiDAS's interval unit, one segment).
#[derive(Debug, Clone)]
pub(super) struct Uid {
    /// Intervals seen end (a rewrite), by bucket.
    pub counts: Vec<u64>,
    /// Intervals still open at the epoch's end, by the bucket of their age
    /// then (censored: longer than that).
    pub open: Vec<u64>,
    /// Intervals longer than the histogram, ended or not.
    pub beyond: u64,
}

/// The UID's survival function (the share of writes whose interval is
/// longer than an age) and its integral.
#[derive(Debug, Clone)]
pub(super) struct Survival {
    /// `S` at ages of `k` buckets, `k = 0..=buckets`.
    at_bucket: Vec<f64>,
    /// `∫_{k buckets}^∞ S`, in host writes.
    rest: Vec<f64>,
    bucket_pages: f64,
    /// The histogram's end, in host writes.
    horizon: f64,
    /// The exponential tail's mean past the horizon.
    tail_mean: f64,
}

impl Uid {
    pub(super) fn new(buckets: usize) -> Self {
        Self {
            counts: vec![0; buckets],
            open: vec![0; buckets],
            beyond: 0,
        }
    }

    pub(super) fn samples(&self) -> u64 {
        self.counts.iter().sum::<u64>() + self.open.iter().sum::<u64>() + self.beyond
    }

    pub(super) fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = 0);
        self.open.iter_mut().for_each(|c| *c = 0);
        self.beyond = 0;
    }

    /// `None` without a sample. The survival is Kaplan and Meier's over
    /// the buckets (an open interval counts as at risk up to its age)
    /// while one in `MIN_AT_RISK_SHARE` of the samples is at risk; past
    /// that an exponential whose mean makes the mean
    /// interval `live_pages`, the pages holding data.
    pub(super) fn survival(&self, bucket_pages: u64, live_pages: u64) -> Option<Survival> {
        let n = self.samples();
        if n == 0 {
            return None;
        }
        let bp = bucket_pages as f64;
        let least_at_risk = (n / MIN_AT_RISK_SHARE).max(1);
        let mut at_risk = n;
        let mut at_bucket = Vec::with_capacity(self.counts.len() + 1);
        at_bucket.push(1.0);
        let mut surv = 1.0;
        for (k, &died) in self.counts.iter().enumerate() {
            if at_risk < least_at_risk {
                break;
            }
            surv *= 1.0 - died as f64 / at_risk as f64;
            at_bucket.push(surv);
            at_risk -= died + self.open[k];
        }
        // The estimate ends where too few intervals were still at risk:
        // the histogram's horizon, as far as the model is concerned.
        let buckets = at_bucket.len() - 1;
        let horizon = buckets as f64 * bp;
        let mut rest = vec![0.0; buckets + 1];
        for k in (0..buckets).rev() {
            rest[k] = rest[k + 1] + bp * (at_bucket[k] + at_bucket[k + 1]) / 2.0;
        }
        let left = at_bucket[buckets];
        let tail_mean = if left > 0.0 {
            ((live_pages as f64 - rest[0]) / left).max(bp)
        } else {
            bp
        };
        rest.iter_mut().for_each(|r| *r += left * tail_mean);
        Some(Survival {
            at_bucket,
            rest,
            bucket_pages: bp,
            horizon,
            tail_mean,
        })
    }
}

impl Survival {
    /// The share of writes whose interval exceeds `age` host writes.
    pub(super) fn at(&self, age: f64) -> f64 {
        let last = self.at_bucket.len() - 1;
        if age >= self.horizon {
            return self.at_bucket[last] * (-(age - self.horizon) / self.tail_mean).exp();
        }
        let x = age / self.bucket_pages;
        let k = x as usize;
        let f = x - k as f64;
        self.at_bucket[k] * (1.0 - f) + self.at_bucket[k + 1] * f
    }

    /// `∫_age^∞ S`, in host writes.
    pub(super) fn rest(&self, age: f64) -> f64 {
        if age >= self.horizon {
            return self.at(age) * self.tail_mean;
        }
        let k = (age / self.bucket_pages) as usize;
        let end = (k + 1) as f64 * self.bucket_pages;
        self.rest[k + 1] + (end - age) * (self.at(age) + self.at_bucket[k + 1]) / 2.0
    }
}

/// The survival is estimated while at least this share (one in so many)
/// of the sampled intervals is still at risk; past that the estimate rests
/// on a handful of intervals (near the epoch's end, only those that began
/// at its start can be that long) and may fall to nothing by chance, so the
/// exponential tail takes over there.
const MIN_AT_RISK_SHARE: u64 = 100;

/// Rates below this are no traffic at all.
const NO_TRAFFIC: f64 = 1e-12;

/// The WA of groups of `sizes` blocks (the last keeps its copies), or
/// `None` when the last group cannot hold what enters it.
pub(super) fn predict(sizes: &[u32], block_pages: u32, s: &Survival) -> Option<f64> {
    let ppb = f64::from(block_pages);
    let (last, fifo) = sizes.split_last()?;
    let mut rate = 1.0;
    let mut age = 0.0;
    let mut copies = 0.0;
    for &size in fifo {
        if rate <= NO_TRAFFIC {
            return Some(1.0 + copies);
        }
        age += f64::from(size) * ppb / rate;
        // MiDAS's bound (`two_valid_ratio_predictor`): the FIFO groups
        // hold a page no longer than the UID saw; past it, their valid
        // ratios would rest on the extrapolated tail alone.
        if age >= s.horizon {
            return None;
        }
        rate = s.at(age);
        copies += rate;
    }
    if rate <= NO_TRAFFIC {
        return Some(1.0 + copies);
    }
    let room = f64::from(*last) * ppb;
    // Pages held per unit of rate in a pass of `t`, and their copies.
    let held = |t: f64| t + s.rest(age + t / 2.0) / rate;
    if held(0.0) * rate >= room {
        return None;
    }
    // `held` grows with `t` (by at least half of it): bisect for `room`.
    let (mut lo, mut hi) = (0.0, room / rate);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if held(mid) * rate < room {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = (lo + hi) / 2.0;
    Some(1.0 + copies + s.rest(age + t / 2.0) / t)
}
/// The best chain of 1 to `max_groups` groups over `total` blocks, as
/// MiDAS's first phase searches it: for `n` groups, the best of `n - 1`
/// with its last group split in two at every point (each at least a
/// block). `None` if no chain is feasible.
pub(super) fn search(
    total: u32,
    max_groups: u16,
    block_pages: u32,
    s: &Survival,
) -> Option<(Vec<u32>, f64)> {
    let mut best: Option<(Vec<u32>, f64)> = None;
    let mut base = vec![total];
    if let Some(w) = predict(&base, block_pages, s) {
        best = Some((base.clone(), w));
    }
    let mut config = Vec::with_capacity(usize::from(max_groups));
    for _ in 2..=max_groups {
        let last = *base.last().expect("a group");
        let mut found: Option<(Vec<u32>, f64)> = None;
        for first in 1..last {
            config.clear();
            config.extend_from_slice(&base[..base.len() - 1]);
            config.push(first);
            config.push(last - first);
            if let Some(w) = predict(&config, block_pages, s) {
                if found.as_ref().is_none_or(|(_, fw)| w < *fw) {
                    found = Some((config.clone(), w));
                }
            }
        }
        let Some((sizes, w)) = found else { break };
        if best.as_ref().is_none_or(|(_, bw)| w < *bw) {
            best = Some((sizes.clone(), w));
        }
        base = sizes;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::{predict, search, Uid};

    /// Half the writes die within a block's worth of writes (10), the rest
    /// at 50 blocks' worth.
    fn bimodal() -> Uid {
        let mut uid = Uid::new(100);
        uid.counts[0] = 500;
        uid.counts[50] = 500;
        uid
    }

    #[test]
    fn survival_is_the_share_still_alive() {
        let s = bimodal().survival(10, 0).expect("samples");
        assert_eq!(s.at(0.0), 1.0);
        assert!((s.at(5.0) - 0.75).abs() < 1e-12);
        assert_eq!(s.at(10.0), 0.5);
        assert_eq!(s.at(600.0), 0.0);
        // The mean interval: 5 and 505, halves.
        assert!((s.rest(0.0) - 255.0).abs() < 1e-9, "{}", s.rest(0.0));
        assert!(Uid::new(4).survival(10, 0).is_none());
    }

    /// Where fewer than one sample in a hundred is still at risk the
    /// estimate stops, and the tail takes over.
    #[test]
    fn the_estimate_stops_where_few_intervals_are_at_risk() {
        let mut uid = Uid::new(10);
        // 1,000 samples: 995 end in bucket 0, one in each of buckets 1 to
        // 5. After bucket 0 five are at risk, under ten (one in 100).
        uid.counts[0] = 995;
        for k in 1..=5 {
            uid.counts[k] = 1;
        }
        let s = uid.survival(10, 0).expect("samples");
        assert_eq!(s.horizon, 10.0);
        assert!((s.at(10.0) - 0.005).abs() < 1e-12);
        // Without the stop the estimate would reach 0 at bucket 5.
        assert!(s.at(55.0) > 0.0);
    }

    #[test]
    fn an_open_interval_is_alive_up_to_its_age() {
        // Four samples: one ends in bucket 0, one is open at bucket 1's
        // age, two end in bucket 2: after bucket 0, 3 of 4 live; the open
        // one leaves the risk set, and bucket 2 kills both others.
        let mut uid = Uid::new(4);
        uid.counts[0] = 1;
        uid.open[1] = 1;
        uid.counts[2] = 2;
        let s = uid.survival(10, 0).expect("samples");
        assert_eq!(s.at(10.0), 0.75);
        assert_eq!(s.at(20.0), 0.75);
        assert_eq!(s.at(30.0), 0.0);
    }

    #[test]
    fn the_censored_tail_has_the_mean_of_the_live_pages() {
        let mut uid = Uid::new(10);
        uid.counts[0] = 1;
        uid.beyond = 1;
        // 1,000 live pages: the mean interval is 1,000, so the beyond half
        // has a mean of about 2,000 (100 to the horizon, the rest beyond).
        let s = uid.survival(10, 1000).expect("samples");
        assert!((s.rest(0.0) - 1000.0).abs() < 1.0, "{}", s.rest(0.0));
        assert!(s.at(1e9) < 1e-9);
    }

    #[test]
    fn a_hot_group_as_long_as_the_hot_lifetimes_cuts_wa() {
        let s = bimodal().survival(10, 0).expect("samples");
        // One group of 40 blocks: the long-lived half is copied on every
        // pass its lifetime spans.
        let one = predict(&[40], 10, &s).expect("feasible");
        assert!(one > 1.0);
        // A first group of two blocks holds the short-lived half until it
        // dies; the last sees only the long-lived pages.
        let two = predict(&[2, 38], 10, &s).expect("feasible");
        assert!(two < one, "two groups {two} against one {one}");
        let (sizes, w) = search(40, 4, 10, &s).expect("a chain");
        assert!(w <= two + 1e-12, "{sizes:?}: {w} against {two}");
        assert_eq!(sizes.iter().sum::<u32>(), 40);
    }

    /// MiDAS's bound: the FIFO groups may not hold a page longer than the
    /// UID's horizon, where only the extrapolated tail would say how many
    /// of them are still valid. Here every interval has ended by bucket
    /// 50, so the estimate stops at bucket 51: 510 writes.
    #[test]
    fn fifo_groups_end_within_the_horizon() {
        let s = bimodal().survival(10, 0).expect("samples");
        // A first group of 50 blocks holds a page 500 writes: within.
        assert!(predict(&[50, 60], 10, &s).is_some());
        // Of 51, 510 writes: the horizon itself, refused; and a chain
        // whose groups add up past it as well (the rate into the second
        // group is a half: 30 blocks hold a page 600 writes more).
        assert!(predict(&[51, 60], 10, &s).is_none());
        assert!(predict(&[2, 30, 60], 10, &s).is_none());
        // The last group is not bounded: one group of any size is modelled.
        assert!(predict(&[400], 10, &s).is_some());
    }

    #[test]
    fn a_group_too_small_for_its_live_pages_is_infeasible() {
        let s = bimodal().survival(10, 0).expect("samples");
        // 255 pages live on average: 20 blocks of 10 cannot hold them.
        assert!(predict(&[20], 10, &s).is_none());
        assert!(predict(&[26], 10, &s).is_some());
        assert!(search(20, 4, 10, &s).is_none_or(|(sizes, _)| sizes.len() > 1));
    }
}
