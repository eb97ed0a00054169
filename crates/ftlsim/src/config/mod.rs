//! Run configuration: the TOML contract (`device.*`, `ftl.*`, `workload.*`,
//! `metrics.*`, `host.*`, `timing.*`), one file per section; a host layer's
//! keys live beside the layer (`host/`).
//!
//! Every section rejects unknown keys so that a typo is an error, not a silently
//! ignored setting. `Config::validate` checks the values serde cannot (ranges,
//! relations between keys) and names the key in its error.

mod amount;
pub mod bounds;
mod device;
mod ftl;
mod metrics;
pub(crate) mod table;
pub mod timing;
mod workload;
mod ycsb;

use serde::{Deserialize, Serialize};

pub use crate::host::registry::{HostConfig, LayerConfig, LowerSpace};
pub use amount::Amount;
pub use device::DeviceConfig;
pub use ftl::{FdpIsolation, FrontierMode, FtlConfig, GcPolicyName, PlacementName};
pub use metrics::MetricsConfig;
pub use timing::{TimingConfig, TimingMode};
pub use workload::{Precondition, TraceConfig, TraceTrims, WorkloadConfig, WorkloadType};

use crate::app::lsm::LsmConfig;
use crate::error::ConfigError;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    #[serde(deserialize_with = "table::table")]
    pub device: DeviceConfig,
    #[serde(deserialize_with = "table::table")]
    pub ftl: FtlConfig,
    #[serde(deserialize_with = "table::table")]
    pub workload: WorkloadConfig,
    #[serde(deserialize_with = "table::table")]
    pub metrics: MetricsConfig,
    /// Host layers over the device (`[[host.layers]]`, top to bottom).
    #[serde(deserialize_with = "table::table")]
    pub host: HostConfig,
    /// Present (a `[timing]` section) to turn the timing model on.
    #[serde(deserialize_with = "table::optional_table")]
    pub timing: Option<TimingConfig>,
    /// The LSM engine a `workload.type = "ycsb"` run drives.
    #[serde(deserialize_with = "table::table")]
    pub lsm: LsmConfig,
}

/// Default warm-up of synthetic workloads.
pub const DEFAULT_WARMUP: Amount = Amount::Capacity(2.0);

/// Default measured amount when neither `workload.writes` nor `workload.requests` is given.
pub const DEFAULT_WRITES: Amount = Amount::Capacity(4.0);

impl Config {
    pub fn physical_pages(&self) -> u64 {
        u64::from(self.device.blocks) * u64::from(self.device.pages_per_block)
    }

    /// The device's logical pages: U = floor(T · (1 − Sf)), or all of T on a
    /// zoned device.
    pub fn logical_pages(&self) -> u64 {
        if self.device.zoned {
            return self.physical_pages();
        }
        (self.physical_pages() as f64 * (1.0 - self.device.spare_factor)).floor() as u64
    }

    /// Logical pages at the top of the host stack: the space workloads
    /// address (the device's when there are no layers).
    pub fn host_pages(&self) -> u64 {
        self.host.top_pages(self.logical_pages())
    }

    /// What the bottom host layer sees of the device.
    pub fn device_space(&self) -> LowerSpace {
        let d = &self.device;
        LowerSpace {
            pages: self.logical_pages(),
            streams: self.ftl.placement_ids(),
            page_bytes: d.page_bytes,
            zone_pages: d
                .zoned
                .then(|| u64::from(d.zone_blocks) * u64::from(d.pages_per_block)),
            max_open_zones: d.max_open_zones,
            seed: self.workload.seed,
        }
    }

    /// Warm-up host page writes.
    pub fn warmup_pages(&self) -> u64 {
        let default = if matches!(self.workload.kind, WorkloadType::Trace | WorkloadType::Ycsb) {
            Amount::Pages(0)
        } else {
            DEFAULT_WARMUP
        };
        self.workload
            .warmup
            .unwrap_or(default)
            .to_pages(self.host_pages())
    }

    pub fn span_pages(&self) -> u64 {
        let logical = self.host_pages();
        self.workload.span.map_or(logical, |s| s.to_pages(logical))
    }

    /// Frontiers that can hold an open block at once, and so blocks GC may need.
    pub fn frontier_count(&self) -> u32 {
        let streams = u32::from(self.ftl.placement_ids());
        if self.ftl.fdp {
            // A host reclaim unit per handle, and GC reclaim units: one per
            // reclaim group (initially isolated) or one per handle
            // (persistently). `streams` counts the handles of every group.
            return match self.ftl.fdp_isolation {
                FdpIsolation::Initially => streams + self.ftl.fdp_reclaim_groups.max(1),
                FdpIsolation::Persistently => 2 * streams,
            };
        }
        if self.ftl.internal_streams {
            return 2 * streams;
        }
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
        if self.ftl.power_loss_tracking() {
            // flash image per page and block, one checkpoint (docs/power-loss.md)
            bytes += self.flash_image_bytes();
            if self.ftl.checkpoint_interval_pages > 0 {
                bytes += logical * 12;
            }
        }
        bytes
    }

    /// The flash image power-loss tracking keeps (docs/power-loss.md): 28
    /// bytes per physical page, 22 per block.
    pub fn flash_image_bytes(&self) -> u64 {
        self.physical_pages()
            .saturating_mul(28)
            .saturating_add(u64::from(self.device.blocks) * 22)
    }

    /// Many-to-one mapping is on (reference counts, reverse map).
    pub fn sharing(&self) -> bool {
        self.ftl.dedup || self.ftl.remap
    }

    /// A zoned device: whole zones, an open-zone limit, and a log on top.
    fn validate_zoned(&self) -> Result<(), ConfigError> {
        let d = &self.device;
        if d.zone_blocks == 0 || !d.blocks.is_multiple_of(d.zone_blocks) {
            return Err(ConfigError::new(
                "device.zone_blocks",
                format!(
                    "{} does not divide device.blocks = {} into whole zones",
                    d.zone_blocks, d.blocks
                ),
            ));
        }
        if d.max_open_zones == 0 {
            return Err(ConfigError::new(
                "device.max_open_zones",
                "must be at least 1: a zoned device with no open zone cannot be written",
            ));
        }
        if self.sharing() {
            return Err(ConfigError::new(
                "device.zoned",
                "a zoned device has no mapping of its own: it cannot deduplicate or remap (ftl.dedup, ftl.remap)",
            ));
        }
        if self.ftl.power_loss_tracking() {
            return Err(ConfigError::new(
                "device.zoned",
                "power-loss tracking (checkpoints, journal, write buffer) models a page-mapped FTL, not zones",
            ));
        }
        if !matches!(self.host.layers.last(), Some(LayerConfig::Log(_))) {
            return Err(ConfigError::new(
                "device.zoned",
                "a zoned device is written sequentially per zone: it needs a [[host.layers]] type = \"log\" directly above it (the last layer)",
            ));
        }
        Ok(())
    }

    /// FDP (docs/fdp.md): whole reclaim units, handles instead of streams,
    /// and none of the modes that place data their own way.
    fn validate_fdp(&self) -> Result<(), ConfigError> {
        let (d, f) = (&self.device, &self.ftl);
        if f.fdp_reclaim_groups == 0 {
            return Err(ConfigError::new(
                "ftl.fdp_reclaim_groups",
                "0 reclaim groups: FDP needs at least 1",
            ));
        }
        if f.fdp_handles == 0 {
            return Err(ConfigError::new(
                "ftl.fdp_handles",
                "0 reclaim unit handles: FDP needs at least 1 (handle 0 is the default)",
            ));
        }
        if u32::from(f.fdp_handles) * f.fdp_reclaim_groups > u32::from(u16::MAX) {
            return Err(ConfigError::new(
                "ftl.fdp_handles",
                format!(
                    "{} handles in {} reclaim groups exceed the 65535 placement ids of 16 bits",
                    f.fdp_handles, f.fdp_reclaim_groups
                ),
            ));
        }
        if f.fdp_ru_blocks == 0 || !d.blocks.is_multiple_of(f.fdp_ru_blocks) {
            return Err(ConfigError::new(
                "ftl.fdp_ru_blocks",
                format!(
                    "{} does not divide device.blocks = {} into whole reclaim units",
                    f.fdp_ru_blocks, d.blocks
                ),
            ));
        }
        let units = d.blocks / f.fdp_ru_blocks;
        if !units.is_multiple_of(f.fdp_reclaim_groups) {
            return Err(ConfigError::new(
                "ftl.fdp_reclaim_groups",
                format!(
                    "{} does not divide the {units} reclaim units (device.blocks / ftl.fdp_ru_blocks) into equal groups",
                    f.fdp_reclaim_groups
                ),
            ));
        }
        if d.zoned {
            return Err(ConfigError::new(
                "ftl.fdp",
                "FDP places data by reclaim unit handle; a zoned device places it by zone: use one or the other",
            ));
        }
        if f.placement != PlacementName::Normal {
            return Err(ConfigError::new(
                "ftl.fdp",
                "FDP routes GC copies by handle and isolation; Coldmap placement routes them by reference count: use one or the other",
            ));
        }
        if f.streams > 1 {
            return Err(ConfigError::new(
                "ftl.streams",
                "FDP replaces streams: give the placement ids as ftl.fdp_handles and leave ftl.streams at 1",
            ));
        }
        if f.internal_streams || f.frontiers != FrontierMode::Shared {
            return Err(ConfigError::new(
                if f.internal_streams {
                    "ftl.internal_streams"
                } else {
                    "ftl.frontiers"
                },
                "under FDP, ftl.fdp_isolation decides where GC copies go (initially: a shared GC reclaim unit; persistently: one per handle)",
            ));
        }
        if f.power_loss_tracking() {
            return Err(ConfigError::new(
                "ftl.fdp",
                "power-loss tracking is not modelled with reclaim units yet (ftl.checkpoint_interval_pages, ftl.write_buffer_pages)",
            ));
        }
        Ok(())
    }

    /// What power-loss tracking needs beyond a valid config: two free blocks
    /// kept so that GC copies before it erases, and no page bytes (they are
    /// not kept on the flash image).
    pub fn validate_power_loss(&self) -> Result<(), ConfigError> {
        if self.ftl.fdp {
            // The crash test turns tracking on without the keys that
            // `validate` refuses under FDP: refuse it here too.
            return Err(ConfigError::new(
                "ftl.fdp",
                "power-loss tracking (the crash test) is not modelled with reclaim units yet",
            ));
        }
        if self.ftl.verify_content {
            return Err(ConfigError::new(
                "ftl.verify_content",
                "power-loss tracking keeps fingerprints, not page bytes: it cannot be combined with verify_content",
            ));
        }
        let ppb = u64::from(self.device.pages_per_block);
        let spare_blocks = (self.physical_pages() - self.logical_pages()) / ppb;
        let needed = u64::from(self.frontier_count()) + 1 + 2;
        if spare_blocks < needed {
            return Err(ConfigError::new(
                "device.spare_factor",
                format!("power-loss tracking keeps 2 free blocks for GC: the device needs at least {needed} spare blocks, it has {spare_blocks}"),
            ));
        }
        Ok(())
    }

    /// Checks what serde cannot: ranges and relations between keys.
    /// Translation pages of the DFTL mapping cache: L2P entries per page
    /// (4 bytes each, as DFTL's), and pages for the whole logical space.
    pub fn translation_entries_per_page(&self) -> u64 {
        u64::from(self.device.page_bytes / 4).max(1)
    }

    pub fn translation_pages(&self) -> u64 {
        self.logical_pages()
            .div_ceil(self.translation_entries_per_page())
    }

    /// The DFTL mapping cache (`ftl.mapping_cache_entries` > 0): at most the
    /// logical space, room on flash for the translation pages and their
    /// frontier, and none of the features that keep their own view of the
    /// mapping (power-loss image, many-to-one mapping, zones, FDP).
    fn validate_mapping_cache(&self) -> Result<(), ConfigError> {
        const KEY: &str = "ftl.mapping_cache_entries";
        let f = &self.ftl;
        let logical = self.logical_pages();
        if f.mapping_cache_entries > logical {
            return Err(ConfigError::new(
                KEY,
                format!(
                    "{} entries is more than the device's {logical} logical pages (0 keeps the whole table in DRAM)",
                    f.mapping_cache_entries
                ),
            ));
        }
        let conflict = if f.power_loss_tracking() {
            Some("power-loss tracking (ftl.checkpoint_interval_pages, ftl.write_buffer_pages): its flash image and recovery do not know translation pages")
        } else if self.sharing() {
            Some("many-to-one mapping (ftl.dedup, ftl.remap)")
        } else if self.device.zoned {
            Some("a zoned device (its mapping is the identity)")
        } else if f.fdp {
            Some("FDP (ftl.fdp)")
        } else {
            None
        };
        if let Some(what) = conflict {
            return Err(ConfigError::new(
                KEY,
                format!("the DFTL mapping cache cannot be combined with {what}"),
            ));
        }
        if self.device.page_bytes < 4 {
            return Err(ConfigError::new(
                KEY,
                "a translation page holds 4-byte entries: device.page_bytes must be at least 4",
            ));
        }
        let ppb = u64::from(self.device.pages_per_block);
        let spare_pages = self.physical_pages() - logical;
        // The frontiers, one block for GC, the translation frontier, and the
        // translation pages themselves.
        let needed = (u64::from(self.frontier_count()) + 2) * ppb + self.translation_pages();
        if spare_pages < needed {
            return Err(ConfigError::new(
                KEY,
                format!(
                    "the {} translation pages and their open block do not fit in the device's {spare_pages} spare pages (raise device.spare_factor)",
                    self.translation_pages()
                ),
            ));
        }
        Ok(())
    }

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
        // Every trace format and the live device address 512-byte sectors.
        if !d.page_bytes.is_multiple_of(512) {
            return Err(ConfigError::new(
                "device.page_bytes",
                format!("{} is not a whole number of 512-byte sectors", d.page_bytes),
            ));
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
        // Before zoned mode's own checks, so that FDP on a zoned device
        // names the conflict rather than what zoned mode misses.
        if self.ftl.fdp {
            self.validate_fdp()?;
        }
        if d.zoned {
            self.validate_zoned()?;
        }
        let spare_pages = self.physical_pages() - self.logical_pages();
        // One unit beyond the open ones for GC to reclaim into (in each
        // FDP reclaim group).
        let gc_groups = if self.ftl.fdp {
            self.ftl.fdp_reclaim_groups.max(1)
        } else {
            1
        };
        let needed_blocks = u64::from(self.frontier_count()) + u64::from(gc_groups);
        // GC reclaims whole erase units: reclaim units under FDP, else blocks.
        let unit_pages = u64::from(d.pages_per_block) * u64::from(self.ftl.erase_unit_blocks());
        let unit = if self.ftl.fdp {
            "reclaim units"
        } else {
            "blocks"
        };
        if !d.zoned && spare_pages < needed_blocks * unit_pages {
            return Err(ConfigError::new(
                "device.spare_factor",
                format!(
                    "{} leaves {} spare pages ({} {unit}); a device with no reclaimable {} cannot collect garbage: it needs at least {} spare {unit} (one per open frontier plus one)",
                    d.spare_factor,
                    spare_pages,
                    spare_pages / unit_pages,
                    if self.ftl.fdp { "reclaim unit" } else { "block" },
                    needed_blocks
                ),
            ));
        }
        let f = &self.ftl;
        f.gc_policy.policy(f.gc_choices, "ftl.gc_choices")?;
        if f.gc_high_watermark < f.gc_low_watermark {
            return Err(ConfigError::new(
                "ftl.gc_high_watermark",
                format!(
                    "{} is below ftl.gc_low_watermark = {}",
                    f.gc_high_watermark, f.gc_low_watermark
                ),
            ));
        }
        let spare_blocks = spare_pages / unit_pages;
        if !d.zoned && u64::from(f.gc_high_watermark) + needed_blocks > spare_blocks {
            return Err(ConfigError::new(
                "ftl.gc_high_watermark",
                format!("{} free {unit} cannot be kept: the device has only {spare_blocks} spare {unit}", f.gc_high_watermark),
            ));
        }
        if f.placement != PlacementName::Normal && !self.sharing() {
            return Err(ConfigError::new(
                "ftl.placement",
                "coldmap placement sorts pages by reference count: it needs ftl.dedup = true (or ftl.remap = true)",
            ));
        }
        if f.internal_streams && f.placement != PlacementName::Normal {
            return Err(ConfigError::new(
                "ftl.internal_streams",
                "internal streams route GC copies by stream; Coldmap placement routes them by reference count: use one or the other",
            ));
        }
        if f.verify_content && !f.dedup {
            return Err(ConfigError::new(
                "ftl.verify_content",
                "verifies dedup matches: it needs ftl.dedup = true",
            ));
        }
        if f.journal_batch == 0 {
            return Err(ConfigError::new(
                "ftl.journal_batch",
                "0 records per journal page: it must be at least 1",
            ));
        }
        if f.checkpoint_interval_pages > self.logical_pages() {
            return Err(ConfigError::new(
                "ftl.checkpoint_interval_pages",
                format!(
                    "{} is larger than the device's {} logical pages (0 turns checkpoints off)",
                    f.checkpoint_interval_pages,
                    self.logical_pages()
                ),
            ));
        }
        if f.power_loss_tracking() {
            self.validate_power_loss()?;
        }
        if f.mapping_cache_entries > 0 {
            self.validate_mapping_cache()?;
        }
        if f.coldmap_threshold < 2 {
            return Err(ConfigError::new(
                "ftl.coldmap_threshold",
                format!("{} must be at least 2", f.coldmap_threshold),
            ));
        }
        // The layers before the workload: it addresses the top layer's space.
        self.host.validate(&self.device_space())?;
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
        if w.kind == WorkloadType::Mix {
            if w.mix.len() < 2 || w.mix.iter().any(|k| !k.is_app() || *k == WorkloadType::Mix) {
                return Err(ConfigError::new(
                    "workload.mix",
                    "type = \"mix\" needs two or more of rocksdb, sqlite, gcc, cassandra",
                ));
            }
        } else if !w.mix.is_empty() {
            return Err(ConfigError::new(
                "workload.mix",
                "only for workload.type = \"mix\"",
            ));
        }
        if w.kind.is_app() {
            let models = w.mix.len().max(1) as u64;
            if self.span_pages() / models < crate::app::pcapps::MIN_REGION_PAGES {
                return Err(ConfigError::new(
                    "workload.span",
                    format!(
                        "an application model needs {} pages of the span ({} for {models})",
                        crate::app::pcapps::MIN_REGION_PAGES,
                        crate::app::pcapps::MIN_REGION_PAGES * models
                    ),
                ));
            }
            if w.read_fraction > 0.0 || w.trim_fraction > 0.0 || w.requests.is_some() {
                return Err(ConfigError::new(
                    "workload.type",
                    "an application model writes and trims as it does: workload.read_fraction, trim_fraction and requests do not apply",
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
        let logical = self.host_pages();
        let span = self.span_pages();
        if span > logical {
            return Err(ConfigError::new(
                "workload.span",
                format!("the workload addresses {span} pages, more than the logical space of {logical} pages"),
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
        if let Some(window) = self.metrics.window {
            if window.to_pages(self.host_pages()) == 0 {
                return Err(ConfigError::new(
                    "metrics.window",
                    format!("{window} is less than one page: give at least 1 page or a positive multiple of the capacity like \"0.05x\""),
                ));
            }
        }
        // Planes stripe blocks whether or not the run is timed; the timing
        // section checks them against its own LUN count.
        if self.timing.is_none() {
            d.check_planes(u64::from(d.channels) * u64::from(d.luns_per_channel))?;
        }
        if let Some(t) = &self.timing {
            t.validate(&self.device)?;
            // One controller, one buffer: the power-loss model's and the
            // timing model's must be the same size when both are given.
            let power_loss = self.ftl.write_buffer_pages;
            if t.write_buffer_pages > 0 && power_loss > 0 && t.write_buffer_pages != power_loss {
                return Err(ConfigError::new(
                    "timing.write_buffer_pages",
                    format!(
                        "{} differs from ftl.write_buffer_pages ({power_loss}): they describe the same buffer",
                        t.write_buffer_pages
                    ),
                ));
            }
        }
        if w.kind == WorkloadType::Ycsb {
            self.validate_ycsb()?;
        }
        self.validate_bounds()
    }
}
