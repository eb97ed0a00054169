//! Counters, distributions and time series that observe the device.

use serde::Serialize;

/// Event counters. Cumulative over the run; a measured window is the
/// difference of two snapshots (`Counters::since`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    /// Reads of LPNs that hold no data (never written or trimmed).
    pub host_read_unmapped_pages: u64,
    pub host_trim_pages: u64,
    pub flushes: u64,
    /// Every page programmed on flash: host data, GC copies, wear-leveling copies.
    pub nand_write_pages: u64,
    /// Pages read from flash by GC and wear leveling to migrate them.
    pub nand_read_pages: u64,
    pub gc_copy_pages: u64,
    /// Victim blocks reclaimed by GC.
    pub gc_count: u64,
    pub erase_count: u64,
    /// Blocks relocated by static wear leveling, and the pages that moved with them.
    pub wl_count: u64,
    pub wl_copy_pages: u64,
    /// Victims reclaimed by background GC (also counted in `gc_count`).
    pub background_gc_count: u64,
    /// Host page writes whose content was live already: mapped, not programmed.
    pub dedup_hit_pages: u64,
    /// Pages moved by `remap` and shared by `clone` requests.
    pub remap_pages: u64,
    pub clone_pages: u64,
    /// FDP events: writes whose placement id named no handle (they went to
    /// handle 0), and reclaim units closed before they were fully written.
    pub fdp_invalid_placement_ids: u64,
    pub fdp_ru_not_fully_written: u64,
    /// DFTL mapping cache (`ftl.mapping_cache_entries`): translation pages
    /// read from flash (misses and write-back merges) and programmed
    /// (dirty evictions and GC's mapping updates; also in `nand_write_pages`),
    /// and host page accesses that found their entry cached or not.
    pub translation_read_pages: u64,
    pub translation_write_pages: u64,
    pub mapping_cache_hits: u64,
    pub mapping_cache_misses: u64,
}

impl Counters {
    /// The events between `earlier` and `self`.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            host_write_pages: self.host_write_pages - earlier.host_write_pages,
            host_read_pages: self.host_read_pages - earlier.host_read_pages,
            host_read_unmapped_pages: self.host_read_unmapped_pages
                - earlier.host_read_unmapped_pages,
            host_trim_pages: self.host_trim_pages - earlier.host_trim_pages,
            flushes: self.flushes - earlier.flushes,
            nand_write_pages: self.nand_write_pages - earlier.nand_write_pages,
            nand_read_pages: self.nand_read_pages - earlier.nand_read_pages,
            gc_copy_pages: self.gc_copy_pages - earlier.gc_copy_pages,
            gc_count: self.gc_count - earlier.gc_count,
            erase_count: self.erase_count - earlier.erase_count,
            wl_count: self.wl_count - earlier.wl_count,
            wl_copy_pages: self.wl_copy_pages - earlier.wl_copy_pages,
            background_gc_count: self.background_gc_count - earlier.background_gc_count,
            dedup_hit_pages: self.dedup_hit_pages - earlier.dedup_hit_pages,
            remap_pages: self.remap_pages - earlier.remap_pages,
            clone_pages: self.clone_pages - earlier.clone_pages,
            fdp_invalid_placement_ids: self.fdp_invalid_placement_ids
                - earlier.fdp_invalid_placement_ids,
            fdp_ru_not_fully_written: self.fdp_ru_not_fully_written
                - earlier.fdp_ru_not_fully_written,
            translation_read_pages: self.translation_read_pages - earlier.translation_read_pages,
            translation_write_pages: self.translation_write_pages - earlier.translation_write_pages,
            mapping_cache_hits: self.mapping_cache_hits - earlier.mapping_cache_hits,
            mapping_cache_misses: self.mapping_cache_misses - earlier.mapping_cache_misses,
        }
    }

    /// NAND page programs per host page write; 0 when nothing was written.
    pub fn waf(&self) -> f64 {
        if self.host_write_pages == 0 {
            0.0
        } else {
            self.nand_write_pages as f64 / self.host_write_pages as f64
        }
    }
}

/// Sub-bucket bits: values are kept with a relative precision of 1/32.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
const BUCKETS: usize = ((64 - SUB_BITS + 1) * SUB as u32) as usize;

/// A log-linear histogram of u64 values (HDR-style): exact below 32, then 32
/// sub-buckets per power of two. Recording is a few integer operations, cheap
/// enough for every page invalidation. Mean is exact; percentiles are within 1/32.
#[derive(Debug, Clone)]
pub struct LogHistogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    max: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        Self {
            counts: vec![0; BUCKETS],
            total: 0,
            sum: 0,
            max: 0,
        }
    }
}

/// [`LogHistogram::batch`]: the same counts and totals as `record` would
/// leave, once dropped.
pub struct HistogramBatch<'a> {
    counts: &'a mut [u64],
    into: (&'a mut u64, &'a mut u128, &'a mut u64),
    total: u64,
    sum: u128,
    max: u64,
}

impl HistogramBatch<'_> {
    #[inline(always)]
    pub fn record(&mut self, value: u64) {
        self.counts[LogHistogram::index(value)] += 1;
        self.total += 1;
        self.sum += u128::from(value);
        self.max = self.max.max(value);
    }
}

impl Drop for HistogramBatch<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        let (total, sum, max) = &mut self.into;
        **total += self.total;
        **sum += self.sum;
        **max = (**max).max(self.max);
    }
}

impl LogHistogram {
    /// The bucket of `value`, without a branch (issue 30: the timed path
    /// records a latency per request). With `shift` the bits below the
    /// value's top `SUB_BITS + 1` (0 below `2 SUB`, where the top bit of
    /// `value | SUB` is `SUB`'s), `value >> shift` is `SUB + mantissa` from
    /// `SUB` up and `value` itself below it: the bucket is
    /// `shift * SUB + (value >> shift)` in both cases, the same as exact
    /// below `SUB` and `(exponent - SUB_BITS + 1) * SUB + mantissa` above.
    #[inline]
    fn index(value: u64) -> usize {
        let shift = 63 - SUB_BITS - (value | SUB).leading_zeros();
        ((u64::from(shift) << SUB_BITS) + (value >> shift)) as usize
    }

    /// Smallest value that falls in bucket `index`.
    fn lower_bound(index: usize) -> u64 {
        let i = index as u64;
        if i < SUB {
            i
        } else {
            let exponent = i / SUB + u64::from(SUB_BITS) - 1;
            let mantissa = i % SUB;
            (SUB + mantissa) << (exponent - u64::from(SUB_BITS))
        }
    }

    #[inline]
    pub fn record(&mut self, value: u64) {
        self.counts[Self::index(value)] += 1;
        self.total += 1;
        self.sum += u128::from(value);
        self.max = self.max.max(value);
    }

    /// A run of records in one loop (a plain chunk's survival times): the
    /// totals stay in the batch, in registers, and reach the histogram
    /// when it drops, where `record` loaded and stored all three each time.
    #[inline(always)]
    pub fn batch(&mut self) -> HistogramBatch<'_> {
        HistogramBatch {
            counts: &mut self.counts,
            into: (&mut self.total, &mut self.sum, &mut self.max),
            total: 0,
            sum: 0,
            max: 0,
        }
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    pub fn mean(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sum as f64 / self.total as f64
        }
    }

    /// The value at quantile `q` in [0, 1] (bucket midpoint, clamped to the max seen).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let lo = Self::lower_bound(i);
                let hi = Self::lower_bound(i + 1).saturating_sub(1).max(lo);
                return (lo + (hi - lo) / 2).min(self.max);
            }
        }
        self.max
    }

    pub fn merge(&mut self, other: &LogHistogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }

    pub fn summary(&self) -> DistributionSummary {
        DistributionSummary {
            count: self.total,
            mean: self.mean(),
            p50: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            p999: self.quantile(0.999),
            max: self.max,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct DistributionSummary {
    pub count: u64,
    pub mean: f64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
}

/// Mean, max and standard deviation of per-block erase counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct WearSummary {
    pub max: u32,
    pub min: u32,
    pub mean: f64,
    pub stddev: f64,
}

impl WearSummary {
    pub fn of(erase_counts: &[u32]) -> Self {
        if erase_counts.is_empty() {
            return Self::default();
        }
        let n = erase_counts.len() as f64;
        let mean = erase_counts.iter().map(|&e| f64::from(e)).sum::<f64>() / n;
        let var = erase_counts
            .iter()
            .map(|&e| (f64::from(e) - mean).powi(2))
            .sum::<f64>()
            / n;
        Self {
            max: *erase_counts.iter().max().unwrap_or(&0),
            min: *erase_counts.iter().min().unwrap_or(&0),
            mean,
            stddev: var.sqrt(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Precondition,
    Warmup,
    Measure,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Precondition => "precondition",
            Phase::Warmup => "warmup",
            Phase::Measure => "measure",
        }
    }
}

/// One layer's share of a sample of the time series (stacks only): its WA
/// over the window that ends at the sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerSeriesRow {
    pub phase: Phase,
    /// The device's host page writes since the start of the run (the x of
    /// the WAF series).
    pub host_write_pages: u64,
    /// Position in the stack, 0 = top; the device is last.
    pub layer: usize,
    pub name: String,
    pub window_write_pages_in: u64,
    pub window_write_pages_out: u64,
    /// Pages out / pages in over the window; empty when nothing came in.
    pub window_wa: Option<f64>,
}

/// One sample of the WAF-over-time series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SeriesRow {
    pub phase: Phase,
    /// Host page writes since the start of the run (logical time).
    pub host_write_pages: u64,
    pub nand_write_pages: u64,
    pub gc_copy_pages: u64,
    pub erase_count: u64,
    /// WAF of the window that ends at this sample.
    pub window_waf: f64,
    /// WAF since the start of the measured window (0 before it).
    pub measured_waf: f64,
    pub free_blocks: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_branch_free_bucket_matches_the_two_case_formula() {
        // The formula before issue 30: exact below SUB, then exponent and
        // mantissa.
        let two_case = |value: u64| -> usize {
            if value < SUB {
                value as usize
            } else {
                let exponent = 63 - value.leading_zeros();
                let mantissa = (value >> (exponent - SUB_BITS)) & (SUB - 1);
                ((exponent - SUB_BITS + 1) as u64 * SUB + mantissa) as usize
            }
        };
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let edges = (0..64).flat_map(|b| {
            let p = 1u64 << b;
            [p - 1, p, p + 1]
        });
        for v in (0..5000).chain(edges).chain([u64::MAX, u64::MAX - 1]) {
            assert_eq!(LogHistogram::index(v), two_case(v), "{v}");
        }
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x >> (x % 64);
            assert_eq!(LogHistogram::index(v), two_case(v), "{v}");
            assert!(LogHistogram::index(v) < BUCKETS);
        }
    }

    #[test]
    fn histogram_buckets_are_monotone_and_tight() {
        let mut last = 0;
        for v in (0..100_000u64).chain([1 << 40, u64::MAX / 3, u64::MAX]) {
            let i = LogHistogram::index(v);
            assert!(i >= last || v > 100_000, "index not monotone at {v}");
            last = i;
            let lo = LogHistogram::lower_bound(i);
            assert!(lo <= v, "lower bound {lo} above value {v}");
            if i + 1 < BUCKETS {
                assert!(
                    LogHistogram::lower_bound(i + 1) > v,
                    "value {v} beyond its bucket"
                );
            }
        }
    }

    #[test]
    fn quantiles_are_within_precision() {
        let mut h = LogHistogram::default();
        for v in 1..=10_000u64 {
            h.record(v);
        }
        assert_eq!(h.count(), 10_000);
        assert!((h.mean() - 5000.5).abs() < 1e-9);
        for (q, want) in [(0.5, 5000.0), (0.9, 9000.0), (0.99, 9900.0)] {
            let got = h.quantile(q) as f64;
            assert!(
                (got - want).abs() / want < 1.0 / 32.0,
                "q{q}: {got} vs {want}"
            );
        }
        assert_eq!(h.quantile(1.0), 10_000);
    }

    #[test]
    fn wear_summary_of_known_values() {
        let w = WearSummary::of(&[1, 3, 5, 7]);
        assert_eq!((w.min, w.max), (1, 7));
        assert!((w.mean - 4.0).abs() < 1e-12);
        assert!((w.stddev - 5f64.sqrt()).abs() < 1e-12);
    }
}

/// One layer of the stack as the report lists it (top to bottom, the device
/// last). Pages "in" came from above; pages "out" went below (for the
/// device: pages programmed on flash).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LayerStats {
    pub name: String,
    pub write_pages_in: u64,
    pub write_pages_out: u64,
    pub read_pages_in: u64,
    pub read_pages_out: u64,
    pub trim_pages_in: u64,
    pub trim_pages_out: u64,
    /// Pages the layer's own cleaning moved.
    pub gc_copy_pages: u64,
    /// Cleaning passes: victims (segments, blocks) the layer reclaimed.
    pub gc_count: u64,
    /// Pages of the layer's own metadata written below (summaries,
    /// checkpoints, mapping pages); part of `write_pages_out`.
    pub metadata_pages: u64,
    /// `write_pages_out / write_pages_in`; null when nothing was written in.
    pub wa: Option<f64>,
    /// What a learned stream assigner (autostream, pcstream, oracle) did;
    /// absent for every other layer, so their reports are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assigner: Option<AssignerStats>,
}

/// A learned stream assigner's counters (over the measured window in the
/// report; the sizes as at its end).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct AssignerStats {
    /// Host pages the layer put on stream 0 (unknown or coldest class).
    pub stream0_write_pages: u64,
    /// PCStream: k-means runs, and PCs whose stream changed in one.
    pub reclusterings: u64,
    pub pcs_moved: u64,
    /// PCStream: PCs in the attribute table now, and lookups of a PC the
    /// table did not hold (new, evicted, or cleared at a process's end).
    pub pc_table_entries: u64,
    pub pc_table_misses: u64,
    /// The layer's state in bytes (tables it keeps), and per logical page.
    pub state_bytes: u64,
    pub state_bytes_per_logical_page: f64,
}

impl AssignerStats {
    /// Zero counts for an assigner keeping `state_bytes` of tables over
    /// `logical_pages` pages.
    pub fn with_state(state_bytes: u64, logical_pages: u64) -> Self {
        Self {
            state_bytes,
            state_bytes_per_logical_page: state_bytes as f64 / logical_pages.max(1) as f64,
            ..Self::default()
        }
    }

    /// The counts between `earlier` and `self`; sizes (table entries,
    /// state) are as they are now.
    pub fn since(&self, earlier: &AssignerStats) -> AssignerStats {
        AssignerStats {
            stream0_write_pages: self.stream0_write_pages - earlier.stream0_write_pages,
            reclusterings: self.reclusterings - earlier.reclusterings,
            pcs_moved: self.pcs_moved - earlier.pcs_moved,
            pc_table_misses: self.pc_table_misses - earlier.pc_table_misses,
            ..*self
        }
    }
}

impl LayerStats {
    /// Fills `wa` from the page counts.
    pub fn with_wa(mut self) -> Self {
        self.wa = (self.write_pages_in > 0)
            .then(|| self.write_pages_out as f64 / self.write_pages_in as f64);
        self
    }

    /// The counts between `earlier` (a snapshot of the same layer) and `self`.
    pub fn since(&self, earlier: &LayerStats) -> LayerStats {
        LayerStats {
            name: self.name.clone(),
            write_pages_in: self.write_pages_in - earlier.write_pages_in,
            write_pages_out: self.write_pages_out - earlier.write_pages_out,
            read_pages_in: self.read_pages_in - earlier.read_pages_in,
            read_pages_out: self.read_pages_out - earlier.read_pages_out,
            trim_pages_in: self.trim_pages_in - earlier.trim_pages_in,
            trim_pages_out: self.trim_pages_out - earlier.trim_pages_out,
            gc_copy_pages: self.gc_copy_pages - earlier.gc_copy_pages,
            gc_count: self.gc_count - earlier.gc_count,
            metadata_pages: self.metadata_pages - earlier.metadata_pages,
            wa: None,
            assigner: match (self.assigner, earlier.assigner) {
                (Some(now), Some(then)) => Some(now.since(&then)),
                (now, _) => now,
            },
        }
        .with_wa()
    }
}

/// What one host stream did: host pages written on it, GC copies out of
/// blocks opened for it, and blocks opened for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StreamCounters {
    pub host_write_pages: u64,
    pub gc_copy_pages: u64,
    pub blocks_opened: u64,
}

impl StreamCounters {
    pub fn since(&self, earlier: &StreamCounters) -> StreamCounters {
        StreamCounters {
            host_write_pages: self.host_write_pages - earlier.host_write_pages,
            gc_copy_pages: self.gc_copy_pages - earlier.gc_copy_pages,
            blocks_opened: self.blocks_opened - earlier.blocks_opened,
        }
    }
}
