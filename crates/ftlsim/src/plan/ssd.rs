//! The SSD's part of the plan: everything `Ssd::from_plan` builds the
//! device from, derived once from a config that passed every check. The
//! FTL reads no config: its geometry, mode, placement, GC thresholds and
//! the optional features (sharing, the DFTL mapping cache, power-loss
//! tracking) arrive here typed, each `None` when off.

use super::device::DeviceMode;
use super::placement::PlacementPlan;
use super::regime::LogPlan;
use crate::config::{Config, DeviceConfig};
use crate::error::ConfigError;
use crate::segments::GcPolicy;

/// What the SSD is built from.
#[derive(Debug, Clone, PartialEq)]
pub struct SsdPlan {
    /// The flash geometry as configured (flash blocks, not reclaim units).
    pub device: DeviceConfig,
    /// Conventional, zoned or FDP.
    pub mode: DeviceMode,
    pub placement: PlacementPlan,
    /// Pages the host addresses: U = floor(T · (1 − Sf)), or all of T zoned.
    pub logical_pages: u32,
    /// Host streams, or under FDP the valid placement ids.
    pub streams: u16,
    pub gc: GcPlan,
    /// SepBIT's log-structured volume (`ftl.regime = "log"`): GC by the
    /// garbage proportion instead of the free-pool watermarks.
    pub log: Option<LogPlan>,
    /// The erase-count spread that triggers wear leveling
    /// (`ftl.wear_leveling_threshold`, 0 = off).
    pub wear_leveling_threshold: u32,
    /// Pages share physical copies (dedup or remap), with their keys.
    pub sharing: Option<SharingPlan>,
    /// The DFTL cached mapping table (`ftl.mapping_cache_entries`).
    pub mapping_cache: Option<MappingCachePlan>,
    /// Power-loss tracking (`ftl.write_buffer_pages` or checkpoints).
    pub durability: Option<DurabilityPlan>,
    /// The run's seed: GC's random choices draw from a stream of it.
    pub seed: u64,
}

/// When GC runs, and how it picks victims.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GcPlan {
    pub policy: GcPolicy,
    /// Free blocks at which foreground GC starts, at least `floor`.
    pub low_watermark: u32,
    /// Free blocks background GC restores, at least `low_watermark`.
    pub high_watermark: u32,
    /// Free blocks GC never gives away: one in reserve with wear-out on, so
    /// a victim that retires at its erase leaves its valid pages a home.
    pub floor: u32,
}

/// Dedup (pages keyed by content) and/or remap (host-issued copies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharingPlan {
    pub dedup: bool,
    /// Check that pages sharing a copy have equal content (`ftl.verify_content`).
    pub verify_content: bool,
}

/// DFTL's cached mapping table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappingCachePlan {
    /// Mapping entries the cache holds.
    pub entries: u32,
    /// Mapping entries per translation page (4 bytes each, as DFTL's).
    pub entries_per_page: u32,
}

/// Power-loss tracking: the write buffer, the journal, checkpoints, and
/// the cost model of recovery (docs/power-loss.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DurabilityPlan {
    pub buffer_pages: u32,
    /// The buffer survives a power cut (capacitors).
    pub protected: bool,
    /// Mapping updates per journal page.
    pub journal_batch: u32,
    /// Host page writes between checkpoints (0 = none).
    pub checkpoint_interval_pages: u64,
    /// Flash pages one checkpoint occupies.
    pub checkpoint_pages_each: u64,
    pub read_ns: u64,
    pub transfer_ns: u64,
    pub luns: u64,
    pub channels: u64,
}

impl SsdPlan {
    /// Dedup keys pages by content, so it keeps fingerprints whether or
    /// not the run asks for content.
    pub fn keeps_content(&self) -> bool {
        self.sharing.is_some_and(|s| s.dedup)
    }

    /// The SSD's part of a checked config (`Plan::from_config` ran).
    pub(super) fn of(
        cfg: &Config,
        mode: DeviceMode,
        placement: PlacementPlan,
        log: Option<LogPlan>,
    ) -> Result<Self, ConfigError> {
        let f = &cfg.ftl;
        let logical_pages =
            u32::try_from(cfg.logical_pages()).expect("checked: page numbers fit in 32 bits");
        let floor = u32::from(cfg.device.pe_cycle_limit > 0);
        let low_watermark = f.gc_low_watermark.max(floor);
        let mapping_cache = (f.mapping_cache_entries > 0).then(|| MappingCachePlan {
            entries: u32::try_from(f.mapping_cache_entries)
                .expect("checked: at most the logical pages"),
            entries_per_page: u32::try_from(cfg.translation_entries_per_page())
                .expect("page bytes fit in u32"),
        });
        Ok(Self {
            device: cfg.device.clone(),
            mode,
            placement,
            logical_pages,
            streams: f.placement_ids(),
            gc: GcPlan {
                policy: super::gc_policy(f.gc_policy, f.gc_choices, "ftl.gc_choices")?,
                low_watermark,
                high_watermark: f.gc_high_watermark.max(low_watermark),
                floor,
            },
            log,
            wear_leveling_threshold: f.wear_leveling_threshold,
            sharing: cfg.sharing().then_some(SharingPlan {
                dedup: f.dedup,
                verify_content: f.verify_content,
            }),
            mapping_cache,
            durability: f.power_loss_tracking().then(|| DurabilityPlan::of(cfg)),
            seed: cfg.workload.seed,
        })
    }
}

impl DurabilityPlan {
    /// Power-loss tracking's keys as `cfg` gives them, whether or not it
    /// asks for tracking (the crash test turns it on for any config).
    pub fn of(cfg: &Config) -> Self {
        let timing = cfg.timing.clone().unwrap_or_default().params(&cfg.device);
        // A checkpoint holds 8 bytes per logical page (the mapping entry),
        // plus a 4-byte reference count per physical page with sharing.
        let mut checkpoint_bytes = cfg.logical_pages() * 8;
        if cfg.sharing() {
            checkpoint_bytes += cfg.physical_pages() * 4;
        }
        let f = &cfg.ftl;
        Self {
            buffer_pages: f.write_buffer_pages,
            protected: f.power_loss_protection,
            journal_batch: f.journal_batch.max(1),
            checkpoint_interval_pages: f.checkpoint_interval_pages,
            checkpoint_pages_each: checkpoint_bytes
                .div_ceil(u64::from(cfg.device.page_bytes))
                .max(1),
            read_ns: timing.read_ns,
            transfer_ns: timing.transfer_ns,
            luns: u64::from(timing.luns()).max(1),
            channels: u64::from(timing.channels).max(1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;

    fn plan(edit: impl FnOnce(&mut Config)) -> SsdPlan {
        let mut c = Config::default();
        c.device.blocks = 256;
        c.device.pages_per_block = 64;
        edit(&mut c);
        Plan::from_config(&c).unwrap().ssd
    }

    #[test]
    fn optional_features_are_none_when_off() {
        let p = plan(|c| c.device.pe_cycle_limit = 0);
        assert_eq!(p.mode, DeviceMode::Conventional);
        assert!(p.sharing.is_none() && p.mapping_cache.is_none() && p.durability.is_none());
        assert!(!p.keeps_content());
        assert_eq!(p.gc.floor, 0);
    }

    #[test]
    fn each_feature_carries_its_keys() {
        let p = plan(|c| c.ftl.dedup = true);
        let sharing = SharingPlan {
            dedup: true,
            verify_content: false,
        };
        assert_eq!(p.sharing, Some(sharing));
        assert!(p.keeps_content());
        let cache = plan(|c| c.ftl.mapping_cache_entries = 100).mapping_cache;
        let per_page = 4096 / 4;
        assert_eq!(
            cache.map(|c| (c.entries, c.entries_per_page)),
            Some((100, per_page))
        );
        let p = plan(|c| {
            c.ftl.write_buffer_pages = 8;
            c.ftl.journal_batch = 16;
            c.ftl.gc_low_watermark = 0;
            c.ftl.gc_high_watermark = 0;
            c.device.pe_cycle_limit = 1000;
        });
        let d = p.durability.unwrap();
        assert_eq!((d.buffer_pages, d.journal_batch), (8, 16));
        // Wear-out keeps one free block in reserve; the watermarks rise to it.
        let gc = (p.gc.floor, p.gc.low_watermark, p.gc.high_watermark);
        assert_eq!(gc, (1, 1, 1));
    }
}
