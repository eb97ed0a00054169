//! `[ftl]`: garbage collection, streams and frontiers, placement, sharing.

use serde::{Deserialize, Serialize};

use super::placement::PlacementSchemeConfig;
use crate::error::ConfigError;

/// `gc_policy` (`[ftl]`, and a log layer's): a victim policy by name. Each
/// variant is the identifier of a line in `segments`' `victim_policies!`
/// list, through which the plan maps it to the policy (`plan/victims.rs`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicyName {
    Greedy,
    CostBenefit,
    Fifo,
    Random,
    DChoices,
}

impl GcPolicyName {
    /// Checks d-choices' d (`choices`) against zero, naming `choices_key`
    /// (`ftl.gc_choices`, or a log layer's `host.layers[i].gc_choices`);
    /// the other policies ignore `choices`. A relation between two keys,
    /// so it is data's to check: the FTL's plan and a log layer's keys
    /// both call it.
    pub fn check_choices(self, choices: u32, choices_key: &str) -> Result<(), ConfigError> {
        // Zero candidates would choose nothing while victims exist.
        if self == GcPolicyName::DChoices && choices == 0 {
            return Err(ConfigError::new(choices_key, "must be at least 1"));
        }
        Ok(())
    }
}

/// `ftl.regime`: how the device collects garbage (docs/placement.md).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Regime {
    /// ftlsim's SSD: fixed over-provisioning, GC when a host frontier needs
    /// a block and the free pool is at the low watermark.
    #[default]
    Ssd,
    /// SepBIT's log-structured volume: the log holds what was written until
    /// GC reclaims it, and after each host request one segment (block) is
    /// collected when the garbage proportion of the whole log exceeds
    /// `ftl.log_gc_garbage_threshold`.
    Log,
}

impl Regime {
    /// The default, left out of a serialized config so that reports of
    /// configs that do not name a regime stay as they were.
    pub fn is_ssd(&self) -> bool {
        *self == Regime::Ssd
    }
}

/// `ftl.log_gc_garbage_threshold` when left out: SepBIT's 15 %.
pub const DEFAULT_LOG_GC_GARBAGE_THRESHOLD: f64 = 0.15;

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

/// NVMe FDP reclaim unit handle type (`ftl.fdp_isolation`): where GC may
/// put the valid data of a reclaim unit written through a handle.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FdpIsolation {
    /// Initially isolated: host writes of different handles never share a
    /// reclaim unit, but GC may gather their copies into one shared GC
    /// reclaim unit.
    Initially,
    /// Persistently isolated: copies stay in reclaim units of the handle
    /// that wrote the data (a GC reclaim unit per handle).
    Persistently,
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
    /// PCStream's internal streams: every host stream gets a GC-only frontier
    /// of its own, and copies out of a block of stream s go to internal
    /// stream s (not back among the host's fresh writes). Replaces the
    /// choice of `frontiers`; not with Coldmap placement.
    pub internal_streams: bool,
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
    /// Power loss (docs/power-loss.md): host page writes between mapping
    /// checkpoints written to flash. 0 = no checkpoints (recovery scans the
    /// whole device). Any non-zero value turns power-loss tracking on.
    pub checkpoint_interval_pages: u64,
    /// Journal records (trim, remap, clone, dedup map) per journal page:
    /// a record is durable once its page is written (a full batch, a flush,
    /// a checkpoint or an erase). Used only when power-loss tracking is on.
    pub journal_batch: u32,
    /// Host pages acknowledged before they are durable: the stamps of the
    /// last writes wait in the controller until this many are buffered or a
    /// flush. 0 = write-through. Non-zero turns power-loss tracking on.
    pub write_buffer_pages: u32,
    /// Capacitor-backed controller: at a power cut the write buffer and the
    /// pending journal records still reach flash.
    pub power_loss_protection: bool,
    /// NVMe Flexible Data Placement (docs/fdp.md): the placement id of a
    /// write (`Request::stream`) picks a reclaim unit handle; reclaim units
    /// of `fdp_ru_blocks` blocks are written and erased as one.
    pub fdp: bool,
    /// Reclaim groups (FDP): the device's reclaim units split into this
    /// many groups of consecutive units, each with its own free pool and GC.
    pub fdp_reclaim_groups: u32,
    /// Reclaim unit handles (FDP), in every reclaim group: placement id
    /// `group * fdp_handles + handle`; any id beyond falls back to
    /// handle 0 of group 0 and is counted.
    pub fdp_handles: u16,
    /// Blocks per reclaim unit (FDP): the unit GC reclaims and erases.
    pub fdp_ru_blocks: u32,
    /// Handle type (FDP): `initially` or `persistently` isolated.
    pub fdp_isolation: FdpIsolation,
    /// DFTL cached mapping table (docs/dftl.md): L2P entries held in
    /// controller DRAM, least recently used evicted; the rest of the table
    /// lives in translation pages on flash. 0 = the whole table in DRAM.
    pub mapping_cache_entries: u64,
    /// A placement scheme (`[ftl.placement_scheme]`, docs/placement.md):
    /// the class of each user write and GC write. Absent, placement is by
    /// `frontiers`, `streams`, `internal_streams` and `placement`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement_scheme: Option<PlacementSchemeConfig>,
    /// `"ssd"` (the default) or `"log"`, SepBIT's log-structured volume.
    #[serde(skip_serializing_if = "Regime::is_ssd")]
    pub regime: Regime,
    /// The log regime's GC trigger: GC runs when invalid pages in sealed
    /// (full) blocks exceed this share of every page the log holds, and
    /// collects only blocks at least this share invalid. Absent: 0.15.
    /// Only with `regime = "log"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_gc_garbage_threshold: Option<f64>,
}

impl FtlConfig {
    /// Whether the config alone asks for power-loss tracking (the crash test
    /// turns it on for any config).
    pub fn power_loss_tracking(&self) -> bool {
        self.checkpoint_interval_pages > 0 || self.write_buffer_pages > 0
    }

    /// Blocks in the unit GC reclaims: a reclaim unit under FDP, else one.
    pub fn erase_unit_blocks(&self) -> u32 {
        if self.fdp {
            self.fdp_ru_blocks.max(1)
        } else {
            1
        }
    }

    /// Host streams, or under FDP the valid placement ids: a handle in
    /// each reclaim group, id = group × fdp_handles + handle (checked to
    /// fit in 16 bits by `Config::validate`).
    pub fn placement_ids(&self) -> u16 {
        if self.fdp {
            let ids = u32::from(self.fdp_handles.max(1)) * self.fdp_reclaim_groups.max(1);
            u16::try_from(ids).unwrap_or(u16::MAX)
        } else {
            self.streams.max(1)
        }
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        Self {
            gc_policy: GcPolicyName::Greedy,
            streams: 1,
            gc_choices: 8,
            frontiers: FrontierMode::Shared,
            internal_streams: false,
            gc_low_watermark: 0,
            gc_high_watermark: 0,
            wear_leveling_threshold: 0,
            dedup: false,
            remap: false,
            placement: PlacementName::Normal,
            coldmap_threshold: 2,
            verify_content: false,
            checkpoint_interval_pages: 0,
            journal_batch: 64,
            write_buffer_pages: 0,
            power_loss_protection: false,
            fdp: false,
            fdp_reclaim_groups: 1,
            fdp_handles: 1,
            fdp_ru_blocks: 1,
            fdp_isolation: FdpIsolation::Initially,
            mapping_cache_entries: 0,
            placement_scheme: None,
            regime: Regime::Ssd,
            log_gc_garbage_threshold: None,
        }
    }
}
