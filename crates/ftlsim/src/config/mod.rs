//! Run configuration: the TOML contract (`device.*`, `ftl.*`, `workload.*`,
//! `metrics.*`, `host.*`, `timing.*`), one file per section; a host layer's
//! keys live beside the layer (`host/`).
//!
//! Every section rejects unknown keys so that a typo is an error, not a silently
//! ignored setting. This module is data: it imports nothing from the code that
//! carries a config out. The checks that relate sections, and the typed parts
//! components are built from, are the plan's (`plan/`, `Plan::from_config`,
//! which `Config::validate` runs); a check of one section's keys alone sits
//! beside them here.

mod amount;
pub mod bounds;
mod device;
mod ftl;
pub mod host;
pub mod lsm;
mod metrics;
pub mod placement;
pub(crate) mod table;
pub mod timing;
mod workload;

use serde::{Deserialize, Serialize};

pub use amount::Amount;
pub use device::DeviceConfig;
pub use ftl::{
    FdpIsolation, FrontierMode, FtlConfig, GcPolicyName, PlacementName, Regime,
    DEFAULT_LOG_GC_GARBAGE_THRESHOLD,
};
pub use host::{HostConfig, LayerConfig, LowerSpace};
pub use metrics::MetricsConfig;
pub use placement::{FkLifespanClasses, PlacementSchemeConfig, TworrVictim};
pub use timing::{TimingConfig, TimingMode};
pub use workload::{
    Precondition, TraceConfig, TraceTrims, WorkloadConfig, WorkloadType, YcsbDistribution,
    YcsbWorkload, MIN_REGION_PAGES,
};

pub use lsm::{LsmConfig, RemapMode};

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

    /// Pages the workload addresses from LPN 0: `workload.span`, or for
    /// sepbit-synthetic its working set (whole pages; the plan refuses a
    /// working set that is not).
    pub fn span_pages(&self) -> u64 {
        let logical = self.host_pages();
        if self.workload.kind == WorkloadType::SepbitSynthetic {
            if let Some(bytes) = self.workload.working_set_bytes {
                return bytes / u64::from(self.device.page_bytes.max(1));
            }
        }
        self.workload.span.map_or(logical, |s| s.to_pages(logical))
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
    /// Whether a run needs a pre-pass over its workload: the oracle layer
    /// or the `fk` placement scheme reads each page write's future.
    pub fn foresees(&self) -> bool {
        self.host.has_oracle() || self.ftl.placement_scheme.is_some_and(|s| s.foresees())
    }

    pub fn sharing(&self) -> bool {
        self.ftl.dedup || self.ftl.remap
    }

    /// Translation pages of the DFTL mapping cache: L2P entries per page
    /// (4 bytes each, as DFTL's), and pages for the whole logical space.
    pub fn translation_entries_per_page(&self) -> u64 {
        u64::from(self.device.page_bytes / 4).max(1)
    }

    pub fn translation_pages(&self) -> u64 {
        self.logical_pages()
            .div_ceil(self.translation_entries_per_page())
    }
}
