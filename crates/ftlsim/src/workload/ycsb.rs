//! YCSB's core workloads as key-value operations for the LSM engine
//! (`workload.type = "ycsb"`): the load (inserts of `records` records) and
//! workloads A–F, with YCSB's key names, operation mixes and request
//! distributions (zipfian with constant 0.99 scrambled over YCSB's 10^10
//! item space, latest, uniform).

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

pub use crate::config::{YcsbDistribution, YcsbWorkload};
use crate::rng;

/// One key-value operation, on record number `record` (see [`key_of`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvOp {
    Insert(u64),
    Read(u64),
    Update(u64),
    /// A scan of `len` records from the record's key.
    Scan(u64, usize),
    ReadModifyWrite(u64),
}

/// YCSB's zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// The item space YCSB's scrambled zipfian draws from before hashing.
pub const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;
/// zeta(10^10, 0.99), precomputed by YCSB (`ScrambledZipfianGenerator.ZETAN`).
pub const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;
/// Longest scan of workload E (uniform from 1).
pub const MAX_SCAN_RECORDS: usize = 100;

/// YCSB's 64-bit FNV-1a hash of a number (`Utils.fnvhash64`): the bytes
/// of the value, low first.
pub fn fnvhash64(val: u64) -> u64 {
    const OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
    const PRIME: u64 = 1_099_511_628_211;
    let mut hash = OFFSET;
    let mut v = val;
    for _ in 0..8 {
        let octet = v & 0xff;
        v >>= 8;
        hash ^= octet;
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

/// The key of record `record`, `key_bytes` long: YCSB's `"user"` followed
/// by the hashed record number (unordered inserts), zero-padded, cut to
/// the last `key_bytes − 4` digits when shorter than the number.
pub fn key_of(record: u64, key_bytes: u32, out: &mut Vec<u8>) {
    use std::io::Write;
    out.clear();
    out.extend_from_slice(b"user");
    let digits = key_bytes.saturating_sub(4) as usize;
    let mut n = fnvhash64(record);
    if digits < 20 {
        n %= 10u64.pow(digits as u32);
    }
    write!(out, "{n:0digits$}").expect("write to a Vec");
}

/// YCSB's `ZipfianGenerator` (Gray et al.'s method) over `0..items`.
#[derive(Debug, Clone)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    zeta2: f64,
    eta: f64,
}

fn zeta(from: u64, to: u64, theta: f64, initial: f64) -> f64 {
    (from..to).fold(initial, |sum, i| sum + 1.0 / ((i + 1) as f64).powf(theta))
}

impl Zipfian {
    pub fn new(items: u64, theta: f64) -> Self {
        Self::with_zetan(items, theta, zeta(0, items, theta, 0.0))
    }

    fn with_zetan(items: u64, theta: f64, zetan: f64) -> Self {
        let zeta2 = zeta(0, 2, theta, 0.0);
        let mut z = Self {
            items,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            zeta2,
            eta: 0.0,
        };
        z.eta = z.eta_of();
        z
    }

    fn eta_of(&self) -> f64 {
        (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan)
    }

    /// Grows the item space to `items` (YCSB updates zeta incrementally).
    pub fn grow(&mut self, items: u64) {
        if items > self.items {
            self.zetan = zeta(self.items, items, self.theta, self.zetan);
            self.items = items;
            self.eta = self.eta_of();
        }
    }

    /// A number in `0..items`; 0 is the most popular.
    pub fn next(&self, rng: &mut Xoshiro256PlusPlus) -> u64 {
        let u: f64 = rng.random();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1;
        }
        let v = (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        v.min(self.items - 1)
    }
}

/// The operations of one YCSB run, drawn from a seeded stream.
#[derive(Debug)]
pub struct Ycsb {
    workload: YcsbWorkload,
    distribution: YcsbDistribution,
    rng: Xoshiro256PlusPlus,
    /// Records inserted so far (the load's, then workload D's and E's).
    records: u64,
    scrambled: Zipfian,
    /// Over the records inserted so far (latest).
    latest: Option<Zipfian>,
}

impl Ycsb {
    /// A run over `records` loaded records.
    pub fn new(
        workload: YcsbWorkload,
        distribution: YcsbDistribution,
        records: u64,
        seed: u64,
    ) -> Self {
        let latest = (distribution == YcsbDistribution::Latest)
            .then(|| Zipfian::new(records.max(1), ZIPFIAN_CONSTANT));
        Self {
            workload,
            distribution,
            rng: rng::stream(seed, "ycsb"),
            records,
            scrambled: Zipfian::with_zetan(SCRAMBLED_ITEM_COUNT, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN),
            latest,
        }
    }

    /// A record chosen by the request distribution among those inserted.
    fn pick(&mut self) -> u64 {
        let n = self.records;
        match self.distribution {
            YcsbDistribution::Uniform => self.rng.random_range(0..n),
            // Scrambled: a zipfian rank over 10^10 items, hashed onto the
            // records, so that popular records are spread over the key space.
            YcsbDistribution::Zipfian => fnvhash64(self.scrambled.next(&mut self.rng)) % n,
            // Skewed latest: the most recent insert is the most popular.
            YcsbDistribution::Latest => {
                let z = self.latest.as_mut().expect("latest has its zipfian");
                z.grow(n);
                n - 1 - z.next(&mut self.rng)
            }
        }
    }

    /// An update of a record chosen by the request distribution (a load
    /// of updates alone, which no YCSB workload is: `ftlsim lsm-compare`).
    pub fn next_update(&mut self) -> KvOp {
        KvOp::Update(self.pick())
    }

    /// The next operation of the run phase (the load's are `Insert(0..records)`).
    pub fn next_op(&mut self) -> KvOp {
        let p: f64 = self.rng.random();
        match self.workload {
            YcsbWorkload::Load => {
                let r = self.records;
                self.records += 1;
                KvOp::Insert(r)
            }
            YcsbWorkload::A if p < 0.5 => KvOp::Read(self.pick()),
            YcsbWorkload::A => KvOp::Update(self.pick()),
            YcsbWorkload::B if p < 0.95 => KvOp::Read(self.pick()),
            YcsbWorkload::B => KvOp::Update(self.pick()),
            YcsbWorkload::C => KvOp::Read(self.pick()),
            YcsbWorkload::D | YcsbWorkload::E if p >= 0.95 => {
                let r = self.records;
                self.records += 1;
                KvOp::Insert(r)
            }
            YcsbWorkload::D => KvOp::Read(self.pick()),
            YcsbWorkload::E => {
                let start = self.pick();
                KvOp::Scan(start, self.rng.random_range(1..=MAX_SCAN_RECORDS))
            }
            YcsbWorkload::F if p < 0.5 => KvOp::Read(self.pick()),
            YcsbWorkload::F => KvOp::ReadModifyWrite(self.pick()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnvhash64_matches_ycsb() {
        // YCSB's Utils.fnvhash64(0) and (1): the offset basis run over 8 bytes.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for octet in [1u64, 0, 0, 0, 0, 0, 0, 0] {
            h ^= octet;
            h = h.wrapping_mul(1_099_511_628_211);
        }
        assert_eq!(fnvhash64(1), h);
        assert_ne!(fnvhash64(1), fnvhash64(2));
    }

    #[test]
    fn keys_have_the_asked_length() {
        let mut k = Vec::new();
        key_of(7, 16, &mut k);
        assert_eq!(k.len(), 16);
        assert!(k.starts_with(b"user"));
        key_of(7, 30, &mut k);
        assert_eq!(k.len(), 30);
    }

    #[test]
    fn zipfian_favours_low_ranks_and_scrambled_spreads_them() {
        let z = Zipfian::new(1000, ZIPFIAN_CONSTANT);
        let mut rng = rng::stream(1, "t");
        let draws: Vec<u64> = (0..100_000).map(|_| z.next(&mut rng)).collect();
        assert!(draws.iter().all(|&d| d < 1000));
        let zero = draws.iter().filter(|&&d| d == 0).count();
        let mid = draws.iter().filter(|&&d| d == 500).count();
        // P(0) = 1/zeta(1000) ≈ 0.13 at theta 0.99.
        assert!(zero > 10_000 && zero < 16_000, "{zero}");
        assert!(mid < 100, "{mid}");
        // The scrambled form over 10^10 items: P(rank 0) = 1/26.47.
        let mut y = Ycsb::new(YcsbWorkload::C, YcsbDistribution::Zipfian, 10_000, 3);
        let mut counts = vec![0u32; 10_000];
        for _ in 0..100_000 {
            match y.next_op() {
                KvOp::Read(r) => counts[r as usize] += 1,
                op => panic!("C reads only: {op:?}"),
            }
        }
        let top = *counts.iter().max().unwrap();
        assert!((3000..4600).contains(&top), "{top}");
        assert!(counts.iter().filter(|&&c| c > 0).count() > 3000);
    }

    #[test]
    fn mixes_follow_the_workloads() {
        let count = |w: YcsbWorkload| {
            let mut y = Ycsb::new(w, w.default_distribution(), 1000, 9);
            let mut c = [0u32; 5];
            for _ in 0..10_000 {
                let i = match y.next_op() {
                    KvOp::Insert(r) => {
                        assert!(r >= 1000);
                        0
                    }
                    KvOp::Read(r) | KvOp::Update(r) | KvOp::ReadModifyWrite(r) => {
                        assert!(r < y.records);
                        if matches!(y.workload, YcsbWorkload::A) {
                            1
                        } else {
                            2
                        }
                    }
                    KvOp::Scan(_, len) => {
                        assert!((1..=MAX_SCAN_RECORDS).contains(&len));
                        3
                    }
                };
                c[i] += 1;
            }
            c
        };
        assert_eq!(count(YcsbWorkload::C)[0], 0);
        let e = count(YcsbWorkload::E);
        assert!(e[3] > 9000 && e[0] > 300, "{e:?}");
        let d = count(YcsbWorkload::D);
        assert!(d[0] > 300 && d[0] < 700, "{d:?}");
    }

    #[test]
    fn latest_favours_recent_records() {
        let mut y = Ycsb::new(YcsbWorkload::D, YcsbDistribution::Latest, 10_000, 5);
        let mut recent = 0;
        for _ in 0..10_000 {
            if let KvOp::Read(r) = y.next_op() {
                if r + 100 >= y.records {
                    recent += 1;
                }
            }
        }
        assert!(recent > 5000, "{recent}");
    }
}
