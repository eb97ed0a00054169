//! The report of a run's measured window, built from sections: each section
//! is a small struct with the function that fills it. Flattened, the report
//! reads as one JSON object (the keys `run --json` has always printed) or
//! one CSV row.

use serde::Serialize;

use crate::config::Config;
use crate::ftl::Ssd;
use crate::metrics::{
    Counters, LayerSeriesRow, LayerStats, LogHistogram, SeriesRow, StreamCounters,
};
use crate::timing::{ChannelRow, LatencyRow, LunRow, TimingSummary};

/// The result of a run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub seed: u64,
    #[serde(flatten)]
    pub window: Window,
    #[serde(flatten)]
    pub wear: Wear,
    #[serde(flatten)]
    pub survival: Survival,
    #[serde(flatten)]
    pub lifetime: Lifetime,
    #[serde(flatten)]
    pub device: Device,
    #[serde(flatten)]
    pub timing: Timing,
    #[serde(flatten)]
    pub sharing: Sharing,
    #[serde(flatten)]
    pub mapping_cache: MappingCache,
    /// The stack, top to bottom, the device last: pages in and out of each
    /// layer over the measured window.
    pub layers: Vec<LayerStats>,
    /// Total combined write amplification: the product of every layer's WA
    /// and the device's WAF; null when a layer received no writes.
    pub tcwa: Option<f64>,
    /// Per host stream (per FDP handle), over the measured window.
    pub streams: Vec<StreamReport>,
    /// NVMe FDP statistics and events over the measured window; absent
    /// when FDP is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fdp: Option<FdpReport>,
    /// The LSM engine's counters (YCSB runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lsm: Option<super::lsm::LsmReport>,
    /// Samples of WAF over time, every phase.
    #[serde(skip)]
    pub series: Vec<SeriesRow>,
    /// Each layer's WA per window of the WAF series (stacks only).
    #[serde(skip)]
    pub layer_series: Vec<LayerSeriesRow>,
    /// Latency over time (timing on): one row per `timing.series_window` requests.
    #[serde(skip)]
    pub latency_series: Vec<LatencyRow>,
    /// Busy fraction of every LUN (timing on).
    #[serde(skip)]
    pub lun_busy: Vec<LunRow>,
    /// Busy and waiting time of every channel (timing on).
    #[serde(skip)]
    pub channel_busy: Vec<ChannelRow>,
}

/// The measured window's counters.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    pub host_read_unmapped_pages: u64,
    pub host_trim_pages: u64,
    pub flushes: u64,
    pub nand_write_pages: u64,
    pub gc_copy_pages: u64,
    pub wl_copy_pages: u64,
    /// NAND page programs / host page writes of the device; null when the
    /// window holds no host write (`waf_null_reason` says why).
    pub waf: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waf_null_reason: Option<String>,
    pub gc_count: u64,
    /// Victims of `gc_count` reclaimed by background GC (timing model, idle time).
    pub background_gc_count: u64,
    pub erase_count: u64,
}

impl Window {
    pub fn of(m: &Counters, empty_reason: Option<String>) -> Self {
        let waf = (m.host_write_pages > 0).then(|| m.waf());
        Self {
            host_write_pages: m.host_write_pages,
            host_read_pages: m.host_read_pages,
            host_read_unmapped_pages: m.host_read_unmapped_pages,
            host_trim_pages: m.host_trim_pages,
            flushes: m.flushes,
            nand_write_pages: m.nand_write_pages,
            gc_copy_pages: m.gc_copy_pages,
            wl_copy_pages: m.wl_copy_pages,
            waf,
            waf_null_reason: waf.is_none().then(|| {
                empty_reason.unwrap_or_else(|| "the measured window wrote no host page".to_string())
            }),
            gc_count: m.gc_count,
            background_gc_count: m.background_gc_count,
            erase_count: m.erase_count,
        }
    }
}

/// Per-block erase counts at the end of the run (the device's wear state).
#[derive(Debug, Clone, Serialize)]
pub struct Wear {
    pub erase_max: u32,
    pub erase_min: u32,
    pub erase_mean: f64,
    pub erase_stddev: f64,
}

impl Wear {
    pub fn of(ssd: &Ssd) -> Self {
        let w = ssd.wear();
        Self {
            erase_max: w.max,
            erase_min: w.min,
            erase_mean: w.mean,
            erase_stddev: w.stddev,
        }
    }
}

/// Page survival time, write to invalidation, in host page writes; pages
/// invalidated in the measured window. Null when survival is off.
#[derive(Debug, Clone, Serialize)]
pub struct Survival {
    pub survival_count: Option<u64>,
    pub survival_mean: Option<f64>,
    pub survival_p50: Option<u64>,
    pub survival_p90: Option<u64>,
    pub survival_p99: Option<u64>,
    pub survival_p999: Option<u64>,
}

impl Survival {
    pub fn of(ssd: &Ssd) -> Self {
        let s = ssd.survival().map(LogHistogram::summary);
        Self {
            survival_count: s.map(|s| s.count),
            survival_mean: s.map(|s| s.mean),
            survival_p50: s.map(|s| s.p50),
            survival_p90: s.map(|s| s.p90),
            survival_p99: s.map(|s| s.p99),
            survival_p999: s.map(|s| s.p999),
        }
    }
}

/// How long the device lasts at the measured erase rate.
#[derive(Debug, Clone, Serialize)]
pub struct Lifetime {
    /// Host bytes the device absorbs over its whole P/E budget at the measured
    /// erase rate, assuming even wear; null without a P/E limit or without erases.
    pub lifetime_host_write_bytes: Option<f64>,
    /// The same in full logical-capacity writes.
    pub lifetime_drive_writes: Option<f64>,
    /// Lifetime without even wear: full drive writes until the most-worn
    /// block reaches the P/E limit, if wear keeps the spread it has now
    /// (the even-wear lifetime × mean / max erase count). Placement that
    /// spreads or concentrates wear shows here; null without a P/E limit or erases.
    pub lifetime_worst_block_drive_writes: Option<f64>,
    pub end_of_life: bool,
    pub retired_blocks: u32,
    pub free_blocks: u32,
}

impl Lifetime {
    pub fn of(cfg: &Config, ssd: &Ssd, m: &Counters, wear: &Wear, end_of_life: bool) -> Self {
        let logical = u64::from(ssd.logical_pages());
        let pe_budget = u64::from(cfg.device.pe_cycle_limit) * u64::from(cfg.device.blocks);
        let lifetime_pages = (pe_budget > 0 && m.erase_count > 0)
            .then(|| m.host_write_pages as f64 * pe_budget as f64 / m.erase_count as f64);
        Self {
            lifetime_host_write_bytes: lifetime_pages.map(|p| p * f64::from(cfg.device.page_bytes)),
            lifetime_drive_writes: lifetime_pages.map(|p| p / logical as f64),
            lifetime_worst_block_drive_writes: lifetime_pages
                .filter(|_| wear.erase_max > 0)
                .map(|p| p / logical as f64 * wear.erase_mean / f64::from(wear.erase_max)),
            end_of_life,
            retired_blocks: ssd.retired_blocks(),
            free_blocks: ssd.free_blocks(),
        }
    }
}

/// The device and the run's phases.
#[derive(Debug, Clone, Serialize)]
pub struct Device {
    pub logical_pages: u64,
    pub physical_pages: u64,
    pub spare_factor: f64,
    /// Planned host page writes of the precondition and warm-up phases.
    pub precondition_pages: u64,
    pub warmup_pages: u64,
    /// Host page writes that ran, every phase (less than planned after end of life).
    pub total_host_write_pages: u64,
    pub state_bytes_per_physical_page: f64,
}

/// Timing model results, null without a `[timing]` section.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timing {
    /// Requests of every kind and host bytes moved per simulated second, and
    /// simulated time from the window's start to its last completion.
    pub iops: Option<f64>,
    pub bandwidth_bytes_per_sec: Option<f64>,
    pub sim_time_ns: Option<u64>,
    /// Request latency in µs: completion − issue (closed loop) or − arrival
    /// (open loop); null when no request of the kind ran.
    pub read_latency_us_mean: Option<f64>,
    pub read_latency_us_p50: Option<f64>,
    pub read_latency_us_p99: Option<f64>,
    pub read_latency_us_p999: Option<f64>,
    pub read_latency_us_max: Option<f64>,
    pub write_latency_us_mean: Option<f64>,
    pub write_latency_us_p50: Option<f64>,
    pub write_latency_us_p99: Option<f64>,
    pub write_latency_us_p999: Option<f64>,
    pub write_latency_us_max: Option<f64>,
    /// LUN time on GC work (copies, erases, wear leveling) / all LUN busy time.
    pub gc_time_share: Option<f64>,
    /// Busy time / simulated time: mean and max over LUNs, mean over channels.
    pub lun_busy_mean: Option<f64>,
    pub lun_busy_max: Option<f64>,
    pub channel_busy_mean: Option<f64>,
    pub channel_busy_max: Option<f64>,
    /// Time a transfer waited for its channel after its data was ready (µs):
    /// mean over transfers, and the longest.
    pub channel_wait_us_mean: Option<f64>,
    pub channel_wait_us_max: Option<f64>,
    /// Time a transfer was pushed back on its channel, after its request's
    /// completion was reported, by one ready earlier but issued later (µs,
    /// mean per transfer): how much the reported latencies may be short
    /// (docs/timing.md, "Channel scheduling").
    pub channel_late_shift_us_mean: Option<f64>,
    /// Operations a LUN operation found queued at its LUN on arrival (waiting
    /// or in service), all LUNs: median, 99th percentile, most (luns.csv has
    /// each LUN's).
    pub lun_queue_length_p50: Option<u32>,
    pub lun_queue_length_p99: Option<u32>,
    pub lun_queue_length_max: Option<u32>,
    /// Program/erase suspend (`timing.suspend`): programs and erases a host
    /// read suspended, and the mean time a suspension added to the
    /// suspended operation (not in its write's reported latency).
    pub suspensions: Option<u64>,
    pub suspend_delay_us_mean: Option<f64>,
    /// Write buffer (`timing.write_buffer_pages`; null when off): host read
    /// pages served from the buffer, writes that found it full, and their
    /// mean wait for room (µs).
    pub write_buffer_read_hit_pages: Option<u64>,
    pub write_buffer_full_waits: Option<u64>,
    pub write_buffer_wait_us_mean: Option<f64>,
}

impl Timing {
    pub fn of(t: Option<&TimingSummary>) -> Self {
        let read = t.and_then(TimingSummary::read_us);
        let write = t.and_then(TimingSummary::write_us);
        let buffered = t.filter(|t| t.write_buffer_pages > 0);
        Self {
            iops: t.map(|t| t.iops),
            bandwidth_bytes_per_sec: t.map(|t| t.bandwidth_bytes_per_sec),
            sim_time_ns: t.map(|t| t.sim_time_ns),
            read_latency_us_mean: read.map(|l| l.mean),
            read_latency_us_p50: read.map(|l| l.p50),
            read_latency_us_p99: read.map(|l| l.p99),
            read_latency_us_p999: read.map(|l| l.p999),
            read_latency_us_max: read.map(|l| l.max),
            write_latency_us_mean: write.map(|l| l.mean),
            write_latency_us_p50: write.map(|l| l.p50),
            write_latency_us_p99: write.map(|l| l.p99),
            write_latency_us_p999: write.map(|l| l.p999),
            write_latency_us_max: write.map(|l| l.max),
            gc_time_share: t.map(|t| t.gc_time_share),
            lun_busy_mean: t.map(|t| t.lun_busy_mean),
            lun_busy_max: t.map(|t| t.lun_busy_max),
            channel_busy_mean: t.map(|t| t.channel_busy_mean),
            channel_busy_max: t.map(|t| t.channel_busy_max),
            channel_wait_us_mean: t.map(|t| t.channel_wait_us_mean),
            channel_wait_us_max: t.map(|t| t.channel_wait_us_max),
            channel_late_shift_us_mean: t.map(|t| t.channel_late_shift_us_mean),
            lun_queue_length_p50: t.map(|t| t.lun_queue_length_p50),
            lun_queue_length_p99: t.map(|t| t.lun_queue_length_p99),
            lun_queue_length_max: t.map(|t| t.lun_queue_length_max),
            suspensions: t.map(|t| t.suspensions),
            suspend_delay_us_mean: t.map(|t| t.suspend_delay_us_mean),
            write_buffer_read_hit_pages: buffered.map(|t| t.write_buffer_read_hit_pages),
            write_buffer_full_waits: buffered.map(|t| t.write_buffer_full_waits),
            write_buffer_wait_us_mean: buffered.map(|t| t.write_buffer_wait_us_mean),
        }
    }
}

/// Many-to-one mapping (null when off).
#[derive(Debug, Clone, Serialize)]
pub struct Sharing {
    /// Host page writes that were duplicates of live content and programmed
    /// nothing; pages moved by remap and shared by clone requests.
    pub dedup_hit_pages: Option<u64>,
    pub dedup_ratio: Option<f64>,
    pub remap_pages: Option<u64>,
    pub clone_pages: Option<u64>,
    /// Survival of physical pages (program to last reference dropped), by
    /// mapping class: pages never shared, and pages mapped by two or more
    /// LPNs at some point of their life. In host page writes.
    pub survival_single_count: Option<u64>,
    pub survival_single_mean: Option<f64>,
    pub survival_multi_count: Option<u64>,
    pub survival_multi_mean: Option<f64>,
    /// Reverse-map entries beyond the OOB LPN, fingerprint index entries,
    /// and the bytes of all sharing state at the end of the run.
    pub reverse_map_entries: Option<u64>,
    /// Fingerprint matches whose bytes differed (`ftl.verify_content`).
    pub fingerprint_collisions: Option<u64>,
    pub dedup_index_entries: Option<u64>,
    pub sharing_state_bytes: Option<u64>,
}

impl Sharing {
    pub fn of(ssd: &Ssd, m: &Counters) -> Self {
        let sharing = ssd.sharing();
        Self {
            dedup_hit_pages: sharing.map(|_| m.dedup_hit_pages),
            dedup_ratio: sharing
                .map(|_| m.dedup_hit_pages as f64 / (m.host_write_pages.max(1)) as f64),
            remap_pages: sharing.map(|_| m.remap_pages),
            clone_pages: sharing.map(|_| m.clone_pages),
            survival_single_count: sharing.map(|s| s.survival_single.count()),
            survival_single_mean: sharing.map(|s| s.survival_single.mean()),
            survival_multi_count: sharing.map(|s| s.survival_multi.count()),
            survival_multi_mean: sharing.map(|s| s.survival_multi.mean()),
            reverse_map_entries: sharing.map(|s| s.reverse_map_entries() as u64),
            fingerprint_collisions: sharing.map(|s| s.fingerprint_collisions),
            dedup_index_entries: sharing.map(|s| s.index_entries() as u64),
            sharing_state_bytes: sharing.map(|s| s.state_bytes() as u64),
        }
    }
}

/// One host stream over the measured window.
#[derive(Debug, Clone, Serialize)]
pub struct StreamReport {
    pub stream: u16,
    pub host_write_pages: u64,
    pub gc_copy_pages: u64,
    pub blocks_opened: u64,
    /// Survival (host page writes from write to death) of the pages that
    /// died in blocks the stream's host frontier opened, quartiles over the
    /// whole run; null with one stream and no internal streams.
    pub lifetime_p25: Option<u64>,
    pub lifetime_p50: Option<u64>,
    pub lifetime_p75: Option<u64>,
    /// The same for blocks its GC frontier opened (its internal stream,
    /// or the shared GC frontier for stream 0).
    pub internal_lifetime_p25: Option<u64>,
    pub internal_lifetime_p50: Option<u64>,
    pub internal_lifetime_p75: Option<u64>,
}

impl StreamReport {
    pub fn of(stream: u16, c: &StreamCounters) -> Self {
        Self {
            stream,
            host_write_pages: c.host_write_pages,
            gc_copy_pages: c.gc_copy_pages,
            blocks_opened: c.blocks_opened,
            lifetime_p25: None,
            lifetime_p50: None,
            lifetime_p75: None,
            internal_lifetime_p25: None,
            internal_lifetime_p50: None,
            internal_lifetime_p75: None,
        }
    }

    /// Adds the quartiles of the host and internal survival histograms
    /// (left null where a histogram is absent or empty).
    pub fn with_lifetimes(
        mut self,
        host: Option<&LogHistogram>,
        internal: Option<&LogHistogram>,
    ) -> Self {
        let q =
            |h: Option<&LogHistogram>, q: f64| h.filter(|h| h.count() > 0).map(|h| h.quantile(q));
        self.lifetime_p25 = q(host, 0.25);
        self.lifetime_p50 = q(host, 0.5);
        self.lifetime_p75 = q(host, 0.75);
        self.internal_lifetime_p25 = q(internal, 0.25);
        self.internal_lifetime_p50 = q(internal, 0.5);
        self.internal_lifetime_p75 = q(internal, 0.75);
        self
    }
}

/// The DFTL mapping cache over the measured window; null when it is off
/// (`ftl.mapping_cache_entries` = 0). Translation page programs are in
/// `nand_write_pages` and so in `waf`.
#[derive(Debug, Clone, Serialize)]
pub struct MappingCache {
    pub translation_write_pages: Option<u64>,
    pub translation_read_pages: Option<u64>,
    /// Host page accesses (reads, writes, trims) that found their entry
    /// cached / all host page accesses.
    pub mapping_cache_hit_ratio: Option<f64>,
}

impl MappingCache {
    pub fn of(cfg: &Config, m: &Counters) -> Self {
        let on = cfg.ftl.mapping_cache_entries > 0;
        let accesses = m.mapping_cache_hits + m.mapping_cache_misses;
        Self {
            translation_write_pages: on.then_some(m.translation_write_pages),
            translation_read_pages: on.then_some(m.translation_read_pages),
            mapping_cache_hit_ratio: (on && accesses > 0)
                .then(|| m.mapping_cache_hits as f64 / accesses as f64),
        }
    }
}

/// NVMe FDP: the configuration, the statistics of the FDP Statistics log
/// page and the event counts, over the measured window.
#[derive(Debug, Clone, Serialize)]
pub struct FdpReport {
    pub reclaim_groups: u32,
    pub handles: u16,
    pub ru_blocks: u32,
    pub ru_bytes: u64,
    /// `initially` or `persistently` (isolated).
    pub isolation: crate::config::FdpIsolation,
    /// Host Bytes with Metadata Written (HBMW): bytes of host writes that
    /// reached the media (no metadata is modelled: host pages × page bytes).
    pub hbmw_bytes: u64,
    /// Media Bytes with Metadata Written (MBMW): every page programmed, GC
    /// copies included. MBMW / HBMW is the WAF.
    pub mbmw_bytes: u64,
    /// Media Bytes Erased (MBE): flash blocks erased × block bytes.
    pub mbe_bytes: u64,
    pub events: FdpEvents,
}

/// FDP event counts.
#[derive(Debug, Clone, Serialize)]
pub struct FdpEvents {
    /// Reclaim units closed before they were fully written (a reclaim unit
    /// handle update on a partly written unit).
    pub ru_not_fully_written: u64,
    /// Writes whose placement id named no handle; they went to handle 0.
    pub invalid_placement_id: u64,
}

impl FdpReport {
    pub fn of(cfg: &Config, m: &Counters) -> Option<Self> {
        let f = &cfg.ftl;
        if !f.fdp {
            return None;
        }
        let page_bytes = u64::from(cfg.device.page_bytes);
        let block_bytes = page_bytes * u64::from(cfg.device.pages_per_block);
        Some(Self {
            reclaim_groups: f.fdp_reclaim_groups,
            handles: f.fdp_handles,
            ru_blocks: f.fdp_ru_blocks,
            ru_bytes: block_bytes * u64::from(f.fdp_ru_blocks),
            isolation: f.fdp_isolation,
            hbmw_bytes: m.host_write_pages * page_bytes,
            mbmw_bytes: m.nand_write_pages * page_bytes,
            mbe_bytes: m.erase_count * block_bytes,
            events: FdpEvents {
                ru_not_fully_written: m.fdp_ru_not_fully_written,
                invalid_placement_id: m.fdp_invalid_placement_ids,
            },
        })
    }
}

/// The product of the layers' WA (the device's is its WAF).
pub fn tcwa(layers: &[LayerStats]) -> Option<f64> {
    layers.iter().map(|l| l.wa).product()
}
