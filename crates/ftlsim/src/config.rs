//! Run configuration: the TOML contract (`device.*`, `ftl.*`, `workload.*`, `metrics.*`).
//!
//! Every section rejects unknown keys so that a typo is an error, not a silently
//! ignored setting. `Config::validate` checks the values serde cannot (ranges,
//! relations between keys) and names the key in its error.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub device: DeviceConfig,
    pub ftl: FtlConfig,
    pub workload: WorkloadConfig,
    pub metrics: MetricsConfig,
    /// Host layers over the device (`[[host.layers]]`, top to bottom).
    pub host: crate::host::HostConfig,
    /// Present (a `[timing]` section) to turn the timing model on.
    pub timing: Option<crate::timing::TimingConfig>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DeviceConfig {
    pub page_bytes: u32,
    pub pages_per_block: u32,
    pub blocks: u32,
    /// Sf = (physical − logical) / physical pages.
    pub spare_factor: f64,
    /// Erases a block survives; a block reaching it is retired. 0 = unlimited.
    pub pe_cycle_limit: u32,
    pub channels: u32,
    pub luns_per_channel: u32,
    pub planes_per_lun: u32,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        Self {
            page_bytes: 4096,
            pages_per_block: 256,
            blocks: 4096,
            spare_factor: 0.07,
            pe_cycle_limit: 3000,
            channels: 8,
            luns_per_channel: 4,
            planes_per_lun: 1,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicyName {
    Greedy,
    CostBenefit,
    Fifo,
    Random,
    DChoices,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FrontierMode {
    /// One open block receives host writes and GC copies (the analytical models' setup).
    Shared,
    /// Host writes and GC copies go to different open blocks.
    Separate,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PlacementName {
    /// Host writes and GC copies as `ftl.frontiers` says.
    Normal,
    /// Coldmap: GC copies of pages mapped by at least `ftl.coldmap_threshold`
    /// LPNs go to a cold zone opened from the most-erased free blocks.
    Coldmap,
    /// Coldmap plus survival history: single-mapped pages older than the mean
    /// survival of single-mapped pages seen so far also go to the cold zone.
    ColdmapAge,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlConfig {
    pub gc_policy: GcPolicyName,
    /// Host streams the device offers (stream 0 is the default stream). Each
    /// has its own open block; a request naming stream >= streams is refused.
    pub streams: u16,
    /// d of d-choices: blocks sampled per victim choice.
    pub gc_choices: u32,
    pub frontiers: FrontierMode,
    /// GC starts when a host frontier needs a block and the free pool holds at
    /// most this many blocks.
    pub gc_low_watermark: u32,
    /// GC reclaims until the free pool holds more than this many blocks.
    pub gc_high_watermark: u32,
    /// Static wear leveling: relocate the least-worn block's data when the
    /// erase-count gap exceeds this. 0 = off.
    pub wear_leveling_threshold: u32,
    /// Remap-based deduplication: many LPNs share one physical page by content.
    pub dedup: bool,
    /// Many-to-one mapping (reference counts, reverse map) without content
    /// deduplication, for hosts that use `remap`/`clone`. Implied by `dedup`.
    pub remap: bool,
    pub placement: PlacementName,
    /// Reference count from which GC sends a page to the cold zone.
    pub coldmap_threshold: u32,
    /// Keep page bytes written with data (`Ssd::write_page_data`) and
    /// confirm every fingerprint match byte for byte. Needs `dedup`; costs a
    /// page of memory per live page, so it is for small devices and tests.
    pub verify_content: bool,
}

impl Default for FtlConfig {
    fn default() -> Self {
        Self {
            gc_policy: GcPolicyName::Greedy,
            streams: 1,
            gc_choices: 8,
            frontiers: FrontierMode::Shared,
            gc_low_watermark: 0,
            gc_high_watermark: 0,
            wear_leveling_threshold: 0,
            dedup: false,
            remap: false,
            placement: PlacementName::Normal,
            coldmap_threshold: 2,
            verify_content: false,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadType {
    Uniform,
    HotCold,
    Zipf,
    Sequential,
    /// sysbench-like: `tables` equal regions of the span, a table chosen
    /// uniformly, a row within it from sysbench's Pareto (`pareto_h`).
    Tables,
    /// Replay of a block trace (`workload.trace.*`).
    Trace,
}

/// Where and how to read a trace for `workload.type = "trace"`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TraceConfig {
    pub path: String,
    /// Format name (msr, fiu, blkparse, disksim, spc, alibaba, tencent, fio,
    /// libcachesim, native, vscsi); detected from the content when absent.
    pub format: Option<String>,
    /// Replay only this device or volume (a number, `maj,min`, or a name).
    pub device: Option<String>,
    /// Renumber touched pages densely so a large volume fits the device.
    pub compact: bool,
    /// Passes over the trace.
    pub repeat: u32,
    /// Time unit of formats that need one (s, ms, us, ns).
    pub time_unit: Option<String>,
    /// blkparse event to replay (D by default).
    pub blkparse_action: Option<String>,
    /// Skip unparsable lines (and report how many) instead of stopping.
    pub skip_bad_lines: bool,
}

impl Default for TraceConfig {
    fn default() -> Self {
        Self {
            path: String::new(),
            format: None,
            device: None,
            compact: false,
            repeat: 1,
            time_unit: None,
            blkparse_action: None,
            skip_bad_lines: false,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Precondition {
    None,
    SequentialFill,
}

/// An amount of pages: a plain count, or a multiple of the logical capacity
/// written as a string such as `"12x"` or `"0.5x"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Amount {
    Pages(u64),
    Capacity(f64),
}

impl Amount {
    pub fn to_pages(self, logical_pages: u64) -> u64 {
        match self {
            Amount::Pages(p) => p,
            Amount::Capacity(x) => (x * logical_pages as f64).round() as u64,
        }
    }
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Amount::Pages(p) => write!(f, "{p}"),
            Amount::Capacity(x) => write!(f, "{x}x"),
        }
    }
}

impl std::str::FromStr for Amount {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let bad =
            || format!("`{s}` is not a page count or a multiple of logical capacity like \"12x\"");
        if let Some(mult) = t.strip_suffix(['x', 'X']) {
            let x: f64 = mult.trim().parse().map_err(|_| bad())?;
            if !x.is_finite() || x < 0.0 {
                return Err(bad());
            }
            Ok(Amount::Capacity(x))
        } else {
            t.parse::<u64>().map(Amount::Pages).map_err(|_| bad())
        }
    }
}

impl Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Amount::Pages(p) => s.serialize_u64(*p),
            Amount::Capacity(_) => s.serialize_str(&self.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Amount;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a page count or a multiple of logical capacity like \"12x\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Amount, E> {
                Ok(Amount::Pages(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Amount, E> {
                u64::try_from(v)
                    .map(Amount::Pages)
                    .map_err(|_| E::custom(format!("{v} is negative; expected a page count")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Amount, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadConfig {
    #[serde(rename = "type")]
    pub kind: WorkloadType,
    /// Host page writes in the measured window. Exclusive with `requests`.
    pub writes: Option<Amount>,
    /// Requests of every kind in the measured window (for read/write/trim mixes).
    pub requests: Option<u64>,
    /// Host page writes run after preconditioning and excluded from the
    /// measurement. Default: 2x for synthetic workloads, none for traces.
    pub warmup: Option<Amount>,
    pub seed: u64,
    /// r: fraction of writes that go to the hot region.
    pub hot_write_fraction: f64,
    /// f: fraction of the addressed space that is hot.
    pub hot_space_fraction: f64,
    pub zipf_theta: f64,
    pub read_fraction: f64,
    pub trim_fraction: f64,
    pub precondition: Precondition,
    /// Pages per request (aligned to this size for random workloads).
    pub request_pages: u32,
    /// Mixed request sizes: when set, each request's size is drawn
    /// uniformly from [request_pages, request_pages_max] pages (requests
    /// start on request_pages boundaries and are cut at the span's end).
    pub request_pages_max: Option<u32>,
    /// Logical pages the workload addresses, from LPN 0. Default: all of them.
    pub span: Option<Amount>,
    /// Share of written pages whose content repeats an earlier write's
    /// (fio's dedupe_percentage / 100). 0 = every page unique.
    pub dedup_fraction: f64,
    /// Duplicates repeat one of this many most recent unique contents
    /// (fio's dedupe working set). Default: 1/100 of the addressed span.
    pub dedup_working_set: Option<Amount>,
    /// Tables pattern: number of equal regions ("tables") of the span.
    pub tables: u32,
    /// Tables pattern: sysbench's `rand-pareto-h`: a share 1 − h of the
    /// accesses goes to a share h of each table's rows (0.2: 80/20).
    pub pareto_h: f64,
    pub trace: TraceConfig,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        Self {
            kind: WorkloadType::Uniform,
            writes: None,
            requests: None,
            warmup: None,
            seed: 42,
            hot_write_fraction: 0.9,
            hot_space_fraction: 0.1,
            zipf_theta: 0.99,
            read_fraction: 0.0,
            trim_fraction: 0.0,
            precondition: Precondition::SequentialFill,
            request_pages: 1,
            request_pages_max: None,
            span: None,
            dedup_fraction: 0.0,
            dedup_working_set: None,
            trace: TraceConfig::default(),
            tables: 1,
            pareto_h: 0.2,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Host page writes per time-series sample. Default: 1/20 of the logical capacity.
    pub window: Option<Amount>,
    /// Record page survival times (a histogram update per invalidation).
    pub survival: bool,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self {
            window: None,
            survival: true,
        }
    }
}

/// Default warm-up of synthetic workloads.
pub const DEFAULT_WARMUP: Amount = Amount::Capacity(2.0);

/// Default measured amount when neither `workload.writes` nor `workload.requests` is given.
pub const DEFAULT_WRITES: Amount = Amount::Capacity(4.0);

impl Config {
    pub fn physical_pages(&self) -> u64 {
        u64::from(self.device.blocks) * u64::from(self.device.pages_per_block)
    }

    /// U = floor(T · (1 − Sf)).
    pub fn logical_pages(&self) -> u64 {
        (self.physical_pages() as f64 * (1.0 - self.device.spare_factor)).floor() as u64
    }

    /// Warm-up host page writes.
    pub fn warmup_pages(&self) -> u64 {
        let default = if self.workload.kind == WorkloadType::Trace {
            Amount::Pages(0)
        } else {
            DEFAULT_WARMUP
        };
        self.workload
            .warmup
            .unwrap_or(default)
            .to_pages(self.logical_pages())
    }

    pub fn span_pages(&self) -> u64 {
        let logical = self.logical_pages();
        self.workload.span.map_or(logical, |s| s.to_pages(logical))
    }

    /// Frontiers that can hold an open block at once, and so blocks GC may need.
    pub fn frontier_count(&self) -> u32 {
        let streams = u32::from(self.ftl.streams.max(1));
        match (self.ftl.placement, self.ftl.frontiers) {
            (PlacementName::Coldmap | PlacementName::ColdmapAge, _) => streams + 2,
            (PlacementName::Normal, FrontierMode::Shared) => streams,
            (PlacementName::Normal, FrontierMode::Separate) => streams + 1,
        }
    }

    /// Simulator state the device will allocate, in bytes (mapping, OOB,
    /// valid bits, block table; content and sharing state when on), so a
    /// front end can refuse a device that cannot fit in memory.
    pub fn estimated_state_bytes(&self) -> u64 {
        let (physical, logical) = (self.physical_pages(), self.logical_pages());
        let mut bytes =
            logical * 8 + physical * 4 + physical / 8 + u64::from(self.device.blocks) * 48;
        if self.ftl.dedup {
            bytes += physical * 8; // content fingerprints
        }
        if self.sharing() {
            bytes += physical * 16 + logical * 8; // sharing records, reverse-map links
        }
        if self.ftl.dedup {
            bytes += (physical * 2).next_power_of_two() * 16; // fingerprint index
        }
        bytes
    }

    /// Many-to-one mapping is on (reference counts, reverse map).
    pub fn sharing(&self) -> bool {
        self.ftl.dedup || self.ftl.remap
    }

    /// Checks what serde cannot: ranges and relations between keys.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let d = &self.device;
        let positive = [
            ("device.page_bytes", d.page_bytes),
            ("device.pages_per_block", d.pages_per_block),
            ("device.blocks", d.blocks),
            ("device.channels", d.channels),
            ("device.luns_per_channel", d.luns_per_channel),
            ("device.planes_per_lun", d.planes_per_lun),
        ];
        for (key, v) in positive {
            if v == 0 {
                return Err(ConfigError::new(
                    key,
                    "must be at least 1 (zero-sized geometry)",
                ));
            }
        }
        if d.pages_per_block < 2 {
            return Err(ConfigError::new(
                "device.pages_per_block",
                "must be at least 2",
            ));
        }
        if d.pages_per_block > 65_536 {
            return Err(ConfigError::new(
                "device.pages_per_block",
                "must be at most 65536",
            ));
        }
        if self.physical_pages() >= u64::from(u32::MAX) {
            return Err(ConfigError::new(
                "device.blocks",
                format!(
                    "{} blocks x {} pages exceeds the 2^32-1 physical pages a 32-bit page number can address",
                    d.blocks, d.pages_per_block
                ),
            ));
        }
        if !(d.spare_factor > 0.0 && d.spare_factor < 1.0) {
            return Err(ConfigError::new(
                "device.spare_factor",
                format!("{} is outside (0, 1)", d.spare_factor),
            ));
        }
        if self.ftl.streams == 0 {
            return Err(ConfigError::new(
                "ftl.streams",
                "0 is not a stream count: it must be at least 1 (stream 0 is the default stream)",
            ));
        }
        let spare_pages = self.physical_pages() - self.logical_pages();
        let needed_blocks = u64::from(self.frontier_count()) + 1;
        if spare_pages < needed_blocks * u64::from(d.pages_per_block) {
            return Err(ConfigError::new(
                "device.spare_factor",
                format!(
                    "{} leaves {} spare pages ({} blocks); a device with no reclaimable block cannot collect garbage: it needs at least {} spare blocks (one per open frontier plus one)",
                    d.spare_factor,
                    spare_pages,
                    spare_pages / u64::from(d.pages_per_block),
                    needed_blocks
                ),
            ));
        }
        let f = &self.ftl;
        if f.gc_policy == GcPolicyName::DChoices && f.gc_choices == 0 {
            return Err(ConfigError::new("ftl.gc_choices", "must be at least 1"));
        }
        if f.gc_high_watermark < f.gc_low_watermark {
            return Err(ConfigError::new(
                "ftl.gc_high_watermark",
                format!(
                    "{} is below ftl.gc_low_watermark = {}",
                    f.gc_high_watermark, f.gc_low_watermark
                ),
            ));
        }
        let spare_blocks = spare_pages / u64::from(d.pages_per_block);
        if u64::from(f.gc_high_watermark) + needed_blocks > spare_blocks {
            return Err(ConfigError::new(
                "ftl.gc_high_watermark",
                format!("{} free blocks cannot be kept: the device has only {spare_blocks} spare blocks", f.gc_high_watermark),
            ));
        }
        if f.placement != PlacementName::Normal && !self.sharing() {
            return Err(ConfigError::new(
                "ftl.placement",
                "coldmap placement sorts pages by reference count: it needs ftl.dedup = true (or ftl.remap = true)",
            ));
        }
        if f.verify_content && !f.dedup {
            return Err(ConfigError::new(
                "ftl.verify_content",
                "verifies dedup matches: it needs ftl.dedup = true",
            ));
        }
        if f.coldmap_threshold < 2 {
            return Err(ConfigError::new(
                "ftl.coldmap_threshold",
                format!("{} must be at least 2", f.coldmap_threshold),
            ));
        }
        let w = &self.workload;
        let fraction = |key: &str, v: f64, open: bool| -> Result<(), ConfigError> {
            let ok = if open {
                v > 0.0 && v < 1.0
            } else {
                (0.0..=1.0).contains(&v)
            };
            if ok {
                Ok(())
            } else {
                let range = if open { "(0, 1)" } else { "[0, 1]" };
                Err(ConfigError::new(key, format!("{v} is outside {range}")))
            }
        };
        if w.kind == WorkloadType::HotCold {
            fraction("workload.hot_write_fraction", w.hot_write_fraction, true)?;
            fraction("workload.hot_space_fraction", w.hot_space_fraction, true)?;
        }
        fraction("workload.read_fraction", w.read_fraction, false)?;
        fraction("workload.dedup_fraction", w.dedup_fraction, false)?;
        fraction("workload.trim_fraction", w.trim_fraction, false)?;
        if w.read_fraction + w.trim_fraction > 1.0 {
            return Err(ConfigError::new(
                "workload.trim_fraction",
                "workload.read_fraction + workload.trim_fraction exceeds 1",
            ));
        }
        if w.kind == WorkloadType::Zipf && !(w.zipf_theta > 0.0 && w.zipf_theta.is_finite()) {
            return Err(ConfigError::new(
                "workload.zipf_theta",
                format!("{} must be positive", w.zipf_theta),
            ));
        }
        if w.writes.is_some() && w.requests.is_some() {
            return Err(ConfigError::new(
                "workload.requests",
                "give either workload.writes or workload.requests, not both",
            ));
        }
        if (w.read_fraction > 0.0 || w.trim_fraction > 0.0) && w.writes.is_some() {
            return Err(ConfigError::new(
                "workload.writes",
                "a read/trim mix counts requests: use workload.requests instead of workload.writes",
            ));
        }
        if w.kind == WorkloadType::Trace {
            if w.trace.path.is_empty() {
                return Err(ConfigError::new(
                    "workload.trace.path",
                    "workload.type = \"trace\" needs the path of a trace file",
                ));
            }
            if w.trace.repeat == 0 {
                return Err(ConfigError::new(
                    "workload.trace.repeat",
                    "must be at least 1",
                ));
            }
        }
        if w.kind == WorkloadType::Tables {
            fraction("workload.pareto_h", w.pareto_h, true)?;
            let slots = self.span_pages() / u64::from(w.request_pages.max(1));
            if w.tables == 0 || u64::from(w.tables) > slots {
                return Err(ConfigError::new(
                    "workload.tables",
                    format!(
                        "{} tables: must be at least 1 and at most the {slots} requests the span holds",
                        w.tables
                    ),
                ));
            }
        }
        if let Some(max) = w.request_pages_max {
            if max < w.request_pages {
                return Err(ConfigError::new(
                    "workload.request_pages_max",
                    format!(
                        "{max} is below workload.request_pages = {}",
                        w.request_pages
                    ),
                ));
            }
            if u64::from(max) > self.span_pages() {
                return Err(ConfigError::new(
                    "workload.request_pages_max",
                    format!(
                        "{max} pages exceed the {} pages the workload addresses",
                        self.span_pages()
                    ),
                ));
            }
        }
        if w.request_pages == 0 {
            return Err(ConfigError::new(
                "workload.request_pages",
                "must be at least 1",
            ));
        }
        let logical = self.logical_pages();
        let span = self.span_pages();
        if span > logical {
            return Err(ConfigError::new(
                "workload.span",
                format!("the workload addresses {span} pages, more than the device's logical space of {logical} pages"),
            ));
        }
        if span < u64::from(w.request_pages) || span == 0 {
            return Err(ConfigError::new(
                "workload.span",
                format!(
                    "{span} pages cannot hold one request of workload.request_pages = {}",
                    w.request_pages
                ),
            ));
        }
        if w.kind == WorkloadType::HotCold {
            let hot = (w.hot_space_fraction * span as f64) as u64;
            if hot < u64::from(w.request_pages) || span - hot < u64::from(w.request_pages) {
                return Err(ConfigError::new(
                    "workload.hot_space_fraction",
                    format!(
                        "{} of {span} pages leaves a region smaller than one request",
                        w.hot_space_fraction
                    ),
                ));
            }
        }
        if w.dedup_fraction > 0.0 && !self.ftl.dedup {
            // Duplicate content without a dedup FTL is allowed: it is the baseline.
        }
        if let Some(Amount::Pages(0)) = self.workload.dedup_working_set {
            return Err(ConfigError::new(
                "workload.dedup_working_set",
                "must be at least 1 page",
            ));
        }
        if let Some(Amount::Pages(0)) = self.metrics.window {
            return Err(ConfigError::new(
                "metrics.window",
                "must be at least 1 page",
            ));
        }
        if let Some(t) = &self.timing {
            t.validate(&self.device)?;
        }
        self.host.validate(self.logical_pages(), self.ftl.streams)?;
        Ok(())
    }
}
