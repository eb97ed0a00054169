//! The plan: a config checked once and turned into the typed parts that
//! components are built from. `config/` is the TOML as data (serde sections
//! that import nothing from the implementations); the plan relates the
//! sections, knows the derived quantities the checks need (the frontier
//! count, the space each layer offers) and states each policy as a tagged
//! enum carrying its own keys. It is a module of its own rather than
//! `config/plan.rs` so that the dependency runs one way: config ← plan ←
//! components (`ftl`, `host`, `run`); a check that needs an implementation's
//! format (the LSM engine's entry size) may read it from here, never from
//! `config/`.
//!
//! Each check lives once, beside what it checks: `device.rs` (geometry, and
//! the device mode: conventional, zoned, FDP), `placement.rs` (the placement
//! scheme, the frontier count, room for GC), `regime.rs` (`ftl.regime`:
//! SepBIT's log-structured volume), `durability.rs` (power loss,
//! the DFTL mapping cache), `workload.rs`, `ycsb.rs`, `victims.rs` (the
//! victim policies' keys, and a policy's name turned into the policy); a host
//! layer's keys are checked by the layer's section (`config/host/`, which
//! calls `victims.rs` for a log layer's policy keys in their place), the
//! bounds on planned work by `config/bounds.rs` (d-choices' d by
//! `victims.rs`, just before them), the timing model's keys by
//! `config/timing.rs`.
//! `Plan::from_config` runs them in one fixed order, so that a config with
//! several faults always names the same key.

mod device;
mod durability;
mod placement;
mod regime;
mod ssd;
mod victims;
mod workload;
mod ycsb;

pub use device::DeviceMode;
pub use placement::{in_regime, PlacementPlan, Scheme};
pub use regime::{LogPlan, LogSelection};
pub use ssd::{DurabilityPlan, GcPlan, MappingCachePlan, SharingPlan, SsdPlan};
pub use victims::gc_policy;
pub use workload::WorkloadPlan;

use crate::config::{Config, HostConfig, LowerSpace};
use crate::error::ConfigError;

/// A config that passed every check, in typed parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// What the SSD is built from: the device mode (conventional, zoned,
    /// FDP), the placement and the frontier count among it.
    pub ssd: SsdPlan,
    /// What the host stack is built from.
    pub host: HostPlan,
    /// What the request generator is built from.
    pub workload: WorkloadPlan,
}

/// The host layers (top first; each layer's section is its typed keys)
/// over the space the device offers the bottom one.
#[derive(Debug, Clone, PartialEq)]
pub struct HostPlan {
    pub layers: HostConfig,
    pub device_space: LowerSpace,
}

impl Plan {
    /// Checks what serde cannot (ranges and relations between keys; the
    /// error names the key) and derives the typed parts.
    pub fn from_config(cfg: &Config) -> Result<Self, ConfigError> {
        device::check_geometry(cfg)?;
        device::check_mode(cfg)?;
        let placement = PlacementPlan::of(&cfg.ftl);
        placement::check_spare(cfg, &placement)?;
        let log = regime::check(cfg)?;
        durability::check(cfg)?;
        placement::check_coldmap_threshold(cfg)?;
        // The layers before the workload: it addresses the top layer's space.
        cfg.host.validate(&cfg.device_space())?;
        workload::check_kind(cfg)?;
        workload::check_span(cfg)?;
        check_metrics_and_timing(cfg)?;
        if cfg.workload.kind == crate::config::WorkloadType::Ycsb {
            ycsb::check(cfg)?;
        }
        victims::check_bounds(cfg)?;
        cfg.validate_bounds()?;
        Ok(Self {
            ssd: SsdPlan::of(cfg, DeviceMode::of(cfg), placement, log)?,
            host: HostPlan {
                layers: cfg.host.clone(),
                device_space: cfg.device_space(),
            },
            workload: WorkloadPlan::of(cfg),
        })
    }
}

impl Config {
    /// Checks the config (`Plan::from_config`), keeping nothing of the plan.
    pub fn validate(&self) -> Result<(), ConfigError> {
        Plan::from_config(self).map(|_| ())
    }
}

/// The sampling window, and the planes and timing keys against the device.
fn check_metrics_and_timing(cfg: &Config) -> Result<(), ConfigError> {
    let d = &cfg.device;
    if let Some(window) = cfg.metrics.window {
        if window.to_pages(cfg.host_pages()) == 0 {
            return Err(ConfigError::new(
                "metrics.window",
                format!("{window} is less than one page: give at least 1 page or a positive multiple of the capacity like \"0.05x\""),
            ));
        }
    }
    // Planes stripe blocks whether or not the run is timed; the timing
    // section checks them against its own LUN count.
    if cfg.timing.is_none() {
        d.check_planes(u64::from(d.channels) * u64::from(d.luns_per_channel))?;
    }
    if let Some(t) = &cfg.timing {
        t.validate(&cfg.device)?;
        // One controller, one buffer: the power-loss model's and the
        // timing model's must be the same size when both are given.
        let power_loss = cfg.ftl.write_buffer_pages;
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
    Ok(())
}
