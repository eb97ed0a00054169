//! A fio-like synthetic workload with content fingerprints, for dedup
//! experiments without a real trace.
//!
//! [`FioDedupeWriter`] issues random writes of `block_pages` aligned pages
//! over `logical_pages`, like fio `rw=randwrite`. `dedupe_percentage`
//! follows fio's meaning: that share of written pages (each page decided
//! independently) repeats the content of an earlier written page, chosen
//! uniformly among the distinct contents generated so far; the others get
//! fresh content. The first page is always fresh. Everything is determined
//! by `seed` (xoshiro256++).

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::error::TraceError;
use crate::pages::PageRequest;
use crate::record::TraceOp;

/// Parameters of [`FioDedupeWriter`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FioDedupeOptions {
    /// Logical pages of the target (random offsets fall in `0..logical_pages`).
    pub logical_pages: u64,
    /// Pages per write (fio `bs` / page size), default 1.
    pub block_pages: u32,
    /// Number of write requests to issue.
    pub requests: u64,
    /// Share of written pages, in percent (0..=100), that repeat earlier content.
    pub dedupe_percentage: u8,
    /// PRNG seed.
    pub seed: u64,
    /// Time between requests, ns (default 1,000).
    pub interarrival_ns: u64,
}

impl Default for FioDedupeOptions {
    fn default() -> Self {
        FioDedupeOptions {
            logical_pages: 1 << 18,
            block_pages: 1,
            requests: 1 << 20,
            dedupe_percentage: 0,
            seed: 0,
            interarrival_ns: 1_000,
        }
    }
}

/// Deterministic random writer; see the module docs.
pub struct FioDedupeWriter {
    opts: FioDedupeOptions,
    rng: Xoshiro256PlusPlus,
    blocks: u64,
    issued: u64,
    /// Distinct contents generated so far; content ids are `0..unique`.
    unique: u64,
}

impl FioDedupeWriter {
    /// Validates the options.
    pub fn new(opts: FioDedupeOptions) -> Result<Self, TraceError> {
        if opts.block_pages == 0 {
            return Err(TraceError::Option("block_pages must be at least 1".into()));
        }
        if opts.dedupe_percentage > 100 {
            return Err(TraceError::Option(format!(
                "dedupe_percentage is {} but must be 0..=100",
                opts.dedupe_percentage
            )));
        }
        let blocks = opts.logical_pages / u64::from(opts.block_pages);
        if blocks == 0 {
            return Err(TraceError::Option(format!(
                "{} logical pages cannot hold one {}-page block",
                opts.logical_pages, opts.block_pages
            )));
        }
        Ok(FioDedupeWriter {
            rng: Xoshiro256PlusPlus::seed_from_u64(opts.seed),
            opts,
            blocks,
            issued: 0,
            unique: 0,
        })
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; n > 0).
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.rng.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Fingerprint of content `id`: a 128-bit mix of the seed and the id
    /// (distinct ids give distinct fingerprints with overwhelming probability).
    fn fingerprint(&self, id: u64) -> u128 {
        let lo = splitmix(id ^ self.opts.seed.rotate_left(17));
        let hi = splitmix(lo ^ id.wrapping_add(0x632b_e59b_d9b4_e019));
        (u128::from(hi) << 64) | u128::from(lo)
    }

    /// The next write; `false` after `requests` writes.
    pub fn next_request(&mut self, out: &mut PageRequest) -> bool {
        if self.issued >= self.opts.requests {
            return false;
        }
        let block = self.below(self.blocks);
        out.time_ns = self.issued.saturating_mul(self.opts.interarrival_ns);
        out.op = TraceOp::Write;
        out.lpn = block * u64::from(self.opts.block_pages);
        out.pages = self.opts.block_pages;
        out.device = None;
        out.stream = None;
        out.context = None;
        out.fingerprints.clear();
        for _ in 0..self.opts.block_pages {
            let dup = self.unique > 0 && self.below(100) < u64::from(self.opts.dedupe_percentage);
            let id = if dup {
                self.below(self.unique)
            } else {
                self.unique += 1;
                self.unique - 1
            };
            let fp = self.fingerprint(id);
            out.fingerprints.push(fp);
        }
        self.issued += 1;
        true
    }

    /// Distinct contents generated so far.
    pub fn distinct_contents(&self) -> u64 {
        self.unique
    }
}

impl Iterator for FioDedupeWriter {
    type Item = PageRequest;

    fn next(&mut self) -> Option<PageRequest> {
        let mut req = PageRequest::default();
        self.next_request(&mut req).then_some(req)
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn run(pct: u8, seed: u64) -> Vec<PageRequest> {
        FioDedupeWriter::new(FioDedupeOptions {
            logical_pages: 1000,
            block_pages: 4,
            requests: 5000,
            dedupe_percentage: pct,
            seed,
            interarrival_ns: 10,
        })
        .unwrap()
        .collect()
    }

    #[test]
    fn deterministic_and_in_range() {
        let a = run(30, 7);
        assert_eq!(a, run(30, 7));
        assert_ne!(a, run(30, 8));
        assert_eq!(a.len(), 5000);
        for r in &a {
            assert_eq!(r.lpn % 4, 0);
            assert!(r.lpn + 4 <= 1000);
            assert_eq!(r.fingerprints.len(), 4);
        }
        assert_eq!(a[3].time_ns, 30);
    }

    #[test]
    fn dedupe_percentage_is_respected() {
        for pct in [0u8, 25, 50, 90, 100] {
            let reqs = run(pct, 1);
            let mut seen = HashSet::new();
            let mut dups = 0u64;
            let mut total = 0u64;
            for fp in reqs.iter().flat_map(|r| r.fingerprints.iter()) {
                total += 1;
                if !seen.insert(*fp) {
                    dups += 1;
                }
            }
            let ratio = dups as f64 / total as f64;
            let want = f64::from(pct) / 100.0;
            assert!((ratio - want).abs() < 0.02, "pct {pct}: ratio {ratio}");
        }
    }

    #[test]
    fn bad_options() {
        let bad = |o: FioDedupeOptions| FioDedupeWriter::new(o).is_err();
        assert!(bad(FioDedupeOptions {
            dedupe_percentage: 101,
            ..FioDedupeOptions::default()
        }));
        assert!(bad(FioDedupeOptions {
            block_pages: 0,
            ..FioDedupeOptions::default()
        }));
        assert!(bad(FioDedupeOptions {
            logical_pages: 3,
            block_pages: 4,
            ..FioDedupeOptions::default()
        }));
    }
}
