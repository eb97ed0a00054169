//! Synthetic workload generators: where the next request goes and what it does.
//!
//! A generator yields requests of `request_pages` consecutive pages. Random
//! patterns pick request-aligned start pages, so requests never straddle the
//! end of the addressed span.

use rand::Rng;
use rand_distr::{Distribution, Zipf};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::{Config, WorkloadType};
use crate::error::ConfigError;
use crate::plan::{Plan, WorkloadPlan};
use crate::rng;

use crate::request::Op;

pub mod sepbit;
pub mod ycsb;

use sepbit::SepbitZipf;

/// One request from a generator, in pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkItem {
    pub op: Op,
    pub lpn: u64,
    pub pages: u32,
}

#[derive(Debug, Clone)]
enum Pattern {
    /// Uniform over `slots` request-sized slots.
    Uniform { slots: u64 },
    /// With probability `hot_write_fraction`, uniform over the hot slots
    /// `[0, hot_slots)`; otherwise over the cold ones `[hot_slots, slots)`.
    HotCold {
        hot_slots: u64,
        slots: u64,
        hot_write_fraction: f64,
    },
    /// Zipf-ranked slots; rank k maps to slot (k · multiplier) mod slots, a
    /// bijection that scatters hot slots over the space like a real key space.
    Zipf {
        zipf: Zipf<f64>,
        slots: u64,
        multiplier: u64,
    },
    /// Consecutive requests from 0, wrapping at the end of the span.
    Sequential { next_slot: u64, slots: u64 },
    /// sysbench's table layout: `tables` runs of `rows` slots; a table is
    /// chosen uniformly and a row by sysbench's `rand_pareto`:
    /// `floor(rows · u^power)`, `power = ln h / ln(1 − h)`, so low rows are hot.
    Tables { tables: u64, rows: u64, power: f64 },
    /// SepBIT's generator: Zipf ranks, the hot fifth reshuffled every so
    /// many pages written (`sepbit.rs`).
    Sepbit(SepbitZipf),
}

/// Page contents as fingerprints: unique pages get fresh ids; a share
/// `dedup_fraction` of pages repeats one of the `working_set` most recent
/// unique ids (fio's dedupe_percentage with a working set).
#[derive(Debug, Clone)]
struct ContentSource {
    dedup_fraction: f64,
    working_set: u64,
    unique: u64,
    rng: Xoshiro256PlusPlus,
}

/// A fingerprint that looks like a content hash (ids are sequential).
#[inline]
pub fn fingerprint_of(id: u64) -> u64 {
    crate::hash::splitmix64(id)
}

impl ContentSource {
    #[inline]
    fn unique(&mut self) -> u64 {
        self.unique += 1;
        fingerprint_of(self.unique)
    }

    #[inline(never)]
    fn next(&mut self) -> u64 {
        if self.unique > 0 && self.dedup_fraction > 0.0 && self.rng.random_bool(self.dedup_fraction)
        {
            let back = self.rng.random_range(0..self.unique.min(self.working_set));
            fingerprint_of(self.unique - back)
        } else {
            self.unique()
        }
    }
}

#[derive(Debug, Clone)]
pub struct Generator {
    pattern: Pattern,
    /// Present when pages carry content (dedup runs).
    content: Option<ContentSource>,
    request_pages: u32,
    /// Mixed sizes: the largest request and the stream sizes are drawn from.
    request_pages_max: u32,
    span_pages: u64,
    sizes: Xoshiro256PlusPlus,
    read_fraction: f64,
    trim_fraction: f64,
    rng: Xoshiro256PlusPlus,
}

/// [`Generator::take_uniform`]: the same starts `next_write` draws (one
/// page per write, so a slot is a start, and no content is drawn).
#[derive(Debug, Clone)]
pub struct UniformDraw {
    rng: Xoshiro256PlusPlus,
    slots: u64,
}

impl UniformDraw {
    #[inline(always)]
    pub fn next_write(&mut self) -> u64 {
        self.rng.random_range(0..self.slots)
    }

    /// Gives the draw's state back to the generator it came from.
    pub fn put_back(self, generator: &mut Generator) {
        debug_assert!(
            matches!(generator.pattern, Pattern::Uniform { slots } if slots == self.slots)
        );
        generator.rng = self.rng;
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// An odd multiplier near slots · 0.618 that is coprime with `slots`.
fn scatter_multiplier(slots: u64) -> u64 {
    if slots <= 2 {
        return 1;
    }
    let mut m = ((slots as f64 * 0.618_033_988_75) as u64) | 1;
    while gcd(m, slots) != 1 {
        m += 2;
    }
    m % slots
}

impl Generator {
    /// Builds the generator of a config that plans (`Plan::from_config`).
    pub fn new(cfg: &Config) -> Result<Self, ConfigError> {
        Ok(Self::from_plan(&Plan::from_config(cfg)?.workload))
    }

    /// Builds the generator from its part of the plan.
    pub fn from_plan(plan: &WorkloadPlan) -> Self {
        let w = &plan.section;
        let slots = plan.span_pages / u64::from(w.request_pages);
        let pattern = match w.kind {
            // A trace, an application model or a YCSB run draws addresses
            // from its own source; the generator only supplies content, so
            // any pattern will do here.
            WorkloadType::Uniform
            | WorkloadType::Trace
            | WorkloadType::Rocksdb
            | WorkloadType::Sqlite
            | WorkloadType::Gcc
            | WorkloadType::Cassandra
            | WorkloadType::Mix
            | WorkloadType::Ycsb => Pattern::Uniform { slots },
            WorkloadType::HotCold => {
                let hot_slots =
                    ((w.hot_space_fraction * slots as f64).round() as u64).clamp(1, slots - 1);
                Pattern::HotCold {
                    hot_slots,
                    slots,
                    hot_write_fraction: w.hot_write_fraction,
                }
            }
            WorkloadType::Zipf => Pattern::Zipf {
                zipf: Zipf::new(slots as f64, w.zipf_theta)
                    .expect("validated: theta > 0, slots >= 1"),
                slots,
                multiplier: scatter_multiplier(slots),
            },
            WorkloadType::Sequential => Pattern::Sequential {
                next_slot: 0,
                slots,
            },
            WorkloadType::Tables => Pattern::Tables {
                tables: u64::from(w.tables),
                rows: slots / u64::from(w.tables),
                power: w.pareto_h.ln() / (1.0 - w.pareto_h).ln(),
            },
            WorkloadType::SepbitSynthetic => {
                let page_bytes = u64::from(plan.page_bytes);
                Pattern::Sepbit(SepbitZipf::new(
                    slots,
                    w.zipf_alpha.unwrap_or(0.0),
                    w.hot_shift_bytes.map(|b| b / page_bytes),
                    rng::stream(w.seed, "hot-shift"),
                ))
            }
        };
        let content = plan.content.then(|| ContentSource {
            dedup_fraction: w.dedup_fraction,
            working_set: w
                .dedup_working_set
                .map_or(plan.span_pages / 100, |a| a.to_pages(plan.host_pages))
                .max(1),
            unique: 0,
            rng: rng::stream(w.seed, "content"),
        });
        Self {
            pattern,
            content,
            request_pages: w.request_pages,
            request_pages_max: w.request_pages_max.unwrap_or(w.request_pages),
            span_pages: plan.span_pages,
            sizes: rng::stream(w.seed, "sizes"),
            read_fraction: w.read_fraction,
            trim_fraction: w.trim_fraction,
            rng: rng::stream(w.seed, "workload"),
        }
    }

    /// Whether pages carry content (dedup runs): writes then need fingerprints.
    pub fn has_content(&self) -> bool {
        self.content.is_some()
    }

    pub fn request_pages(&self) -> u32 {
        self.request_pages
    }

    /// The uniform pattern's draw, taken out of the generator for a run of
    /// single-page writes (`None` for any other pattern or size, or with
    /// content). Its state is the caller's until [`UniformDraw::put_back`]:
    /// held in a local, it stays in registers, where the generator's, behind
    /// a pointer, was loaded and stored at every draw.
    pub fn take_uniform(&self) -> Option<UniformDraw> {
        match self.pattern {
            Pattern::Uniform { slots } if self.single_page_writes() => Some(UniformDraw {
                rng: self.rng.clone(),
                slots,
            }),
            _ => None,
        }
    }

    /// Whether every write is one page with no content: the run may then
    /// write them a block at a time (`Ssd::write_plain_chunk`).
    pub fn single_page_writes(&self) -> bool {
        self.request_pages == 1 && self.request_pages_max == 1 && !self.has_content()
    }

    /// The uniform draw inlines into the write loop (out of line, the call
    /// cost about 12 instructions per write); the other patterns stay a
    /// call.
    #[inline(always)]
    fn next_slot(&mut self) -> u64 {
        if let Pattern::Uniform { slots } = self.pattern {
            return self.rng.random_range(0..slots);
        }
        self.next_slot_patterned()
    }

    #[inline(never)]
    fn next_slot_patterned(&mut self) -> u64 {
        match &mut self.pattern {
            Pattern::Uniform { slots } => self.rng.random_range(0..*slots),
            Pattern::HotCold {
                hot_slots,
                slots,
                hot_write_fraction,
            } => {
                if self.rng.random_bool(*hot_write_fraction) {
                    self.rng.random_range(0..*hot_slots)
                } else {
                    self.rng.random_range(*hot_slots..*slots)
                }
            }
            Pattern::Zipf {
                zipf,
                slots,
                multiplier,
            } => {
                let rank = (zipf.sample(&mut self.rng) as u64).clamp(1, *slots) - 1;
                ((u128::from(rank) * u128::from(*multiplier)) % u128::from(*slots)) as u64
            }
            Pattern::Sequential { next_slot, slots } => {
                let s = *next_slot;
                *next_slot = if s + 1 == *slots { 0 } else { s + 1 };
                s
            }
            Pattern::Tables {
                tables,
                rows,
                power,
            } => {
                let table = self.rng.random_range(0..*tables);
                let u: f64 = self.rng.random();
                let row = ((*rows as f64 * u.powf(*power)) as u64).min(*rows - 1);
                table * *rows + row
            }
            Pattern::Sepbit(z) => z.slot(&mut self.rng),
        }
    }

    /// Counts a written request towards the generator's own clock (only
    /// SepBIT's hot shift keeps one).
    #[inline(always)]
    fn count_written(&mut self) {
        if let Pattern::Sepbit(z) = &mut self.pattern {
            z.written(u64::from(self.request_pages));
        }
    }

    /// Content of the next written page (0 when the run tracks no content).
    /// The test inlines into the write loop (`map_or` stayed a call per
    /// request); the draw itself, dedup runs only, stays out of line.
    #[inline(always)]
    pub fn next_content(&mut self) -> u64 {
        match &mut self.content {
            Some(content) => content.next(),
            None => 0,
        }
    }

    /// A content never written before (for preconditioning without duplicates).
    #[inline]
    pub fn unique_content(&mut self) -> u64 {
        self.content.as_mut().map_or(0, ContentSource::unique)
    }

    /// Pages of a request starting at `start`: `request_pages`, or a size
    /// drawn uniformly up to `request_pages_max`, cut at the span's end.
    #[inline]
    pub fn request_size(&mut self, start: u64) -> u32 {
        let size = if self.request_pages_max > self.request_pages {
            self.sizes
                .random_range(self.request_pages..=self.request_pages_max)
        } else {
            self.request_pages
        };
        u64::from(size)
            .min(self.span_pages.saturating_sub(start))
            .max(1) as u32
    }

    /// The first page of the next write request. Inlined into the write
    /// lookahead (`feed::Synthetic`): as a call its prologue, epilogue and
    /// the pattern's reload cost about 10 instructions per write.
    #[inline(always)]
    pub fn next_write(&mut self) -> u64 {
        let start = self.next_slot() * u64::from(self.request_pages);
        self.count_written();
        start
    }

    /// The next request of the read/write/trim mix.
    #[inline]
    pub fn next_request(&mut self) -> WorkItem {
        let op = if self.read_fraction == 0.0 && self.trim_fraction == 0.0 {
            Op::Write
        } else {
            let x: f64 = self.rng.random();
            if x < self.read_fraction {
                Op::Read
            } else if x < self.read_fraction + self.trim_fraction {
                Op::Trim
            } else {
                Op::Write
            }
        };
        let lpn = self.next_slot() * u64::from(self.request_pages);
        if op == Op::Write {
            self.count_written();
        }
        WorkItem {
            op,
            lpn,
            pages: self.request_size(lpn),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Amount;

    fn cfg(kind: WorkloadType) -> Config {
        let mut c = Config::default();
        c.device.blocks = 64;
        c.device.pages_per_block = 64;
        c.device.spare_factor = 0.25;
        c.workload.kind = kind;
        c
    }

    #[test]
    fn hot_cold_sends_r_of_writes_to_f_of_space() {
        let mut c = cfg(WorkloadType::HotCold);
        c.workload.hot_write_fraction = 0.8;
        c.workload.hot_space_fraction = 0.2;
        let span = c.span_pages();
        let mut g = Generator::new(&c).unwrap();
        let n = 200_000;
        let hot = (0..n)
            .filter(|_| g.next_write() < (span as f64 * 0.2).round() as u64)
            .count();
        let share = hot as f64 / n as f64;
        assert!((share - 0.8).abs() < 0.01, "hot share {share}");
    }

    #[test]
    fn zipf_is_skewed_and_in_range() {
        let mut c = cfg(WorkloadType::Zipf);
        c.workload.zipf_theta = 1.2;
        let span = c.span_pages();
        let mut g = Generator::new(&c).unwrap();
        let mut counts = vec![0u32; span as usize];
        for _ in 0..100_000 {
            let lpn = g.next_write();
            assert!(lpn < span);
            counts[lpn as usize] += 1;
        }
        counts.sort_unstable_by(|a, b| b.cmp(a));
        let top1: u32 = counts[..(span as usize / 100).max(1)].iter().sum();
        assert!(
            top1 > 30_000,
            "top 1% of pages got only {top1} of 100000 writes"
        );
    }

    #[test]
    fn sequential_wraps_and_requests_stay_aligned() {
        let mut c = cfg(WorkloadType::Sequential);
        c.workload.request_pages = 8;
        c.workload.span = Some(Amount::Pages(64));
        let mut g = Generator::new(&c).unwrap();
        let starts: Vec<u64> = (0..10).map(|_| g.next_write()).collect();
        assert_eq!(starts, vec![0, 8, 16, 24, 32, 40, 48, 56, 0, 8]);
    }

    #[test]
    fn mix_fractions_are_respected() {
        let mut c = cfg(WorkloadType::Uniform);
        c.workload.read_fraction = 0.5;
        c.workload.trim_fraction = 0.1;
        let mut g = Generator::new(&c).unwrap();
        let n = 100_000;
        let (mut r, mut t) = (0, 0);
        for _ in 0..n {
            match g.next_request().op {
                Op::Read => r += 1,
                Op::Trim => t += 1,
                _ => {}
            }
        }
        assert!((r as f64 / n as f64 - 0.5).abs() < 0.01);
        assert!((t as f64 / n as f64 - 0.1).abs() < 0.01);
    }

    #[test]
    fn tables_follow_sysbench_pareto() {
        let mut c = cfg(WorkloadType::Tables);
        c.workload.tables = 6;
        c.workload.pareto_h = 0.2;
        let span = c.span_pages();
        let rows = span / 6;
        let mut g = Generator::new(&c).unwrap();
        let n = 200_000;
        let mut per_table = [0u32; 6];
        let mut head = 0u32;
        for _ in 0..n {
            let lpn = g.next_write();
            assert!(lpn < rows * 6, "{lpn} beyond the tables");
            per_table[(lpn / rows) as usize] += 1;
            // sysbench's 80/20 rule: the first 20 % of rows get 80 % of accesses.
            if lpn % rows < rows / 5 {
                head += 1;
            }
        }
        for t in per_table {
            let share = f64::from(t) / f64::from(n);
            assert!((share - 1.0 / 6.0).abs() < 0.01, "table share {share}");
        }
        let head_share = f64::from(head) / f64::from(n);
        assert!((head_share - 0.8).abs() < 0.01, "head share {head_share}");
    }

    #[test]
    fn scatter_multiplier_is_a_bijection() {
        for slots in [1u64, 2, 3, 10, 64, 1000, 4096] {
            let m = scatter_multiplier(slots);
            let mut seen = vec![false; slots as usize];
            for k in 0..slots {
                let s = ((k * m) % slots) as usize;
                assert!(!seen[s], "slots {slots}: collision");
                seen[s] = true;
            }
        }
    }
}
