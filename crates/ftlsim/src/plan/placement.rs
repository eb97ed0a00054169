//! The placement plan: which scheme places GC copies (the typed form of
//! `ftl.frontiers`, `ftl.internal_streams`, `ftl.placement` with
//! `ftl.coldmap_threshold`, and FDP's isolation), over how many streams, and
//! so how many frontiers the device keeps open. The one place the frontier
//! count is derived; `ftl/placement.rs` builds its `Placement` (the
//! dispatch over the schemes of `ftl/schemes/`) from this.

use crate::config::placement::FK_SPAN_CAPACITIES;
use crate::config::{
    Config, FdpIsolation, FkLifespanClasses, FrontierMode, FtlConfig, PlacementName,
    PlacementSchemeConfig, Regime,
};
use crate::error::ConfigError;

/// How GC copies are placed: the scheme of `ftl.frontiers` / `ftl.placement`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scheme {
    /// A GC copy returns to the host frontier of the stream its block was
    /// opened for (with one stream: host writes and GC copies share a block).
    Shared,
    /// Every GC copy goes to one GC frontier.
    Separate,
    /// PCStream's internal streams: a GC frontier per host stream; a copy
    /// goes to the internal stream of the stream its block was opened for.
    Internal,
    /// GC frontier plus a cold zone: GC copies with at least `threshold`
    /// references, or (`age_aware`) older than the mean single-mapped
    /// survival, go cold.
    Coldmap { threshold: u32, age_aware: bool },
    /// A placement scheme (`[ftl.placement_scheme]`): every write, user or
    /// GC, goes to the class the scheme returns, each class a frontier.
    Classified(PlacementSchemeConfig),
}

/// The placement a config asks for: a scheme over `groups` groups of
/// `group_streams` streams (FDP reclaim groups of handles; one group
/// otherwise).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacementPlan {
    pub scheme: Scheme,
    pub group_streams: u16,
    pub groups: u16,
}

impl PlacementPlan {
    pub fn of(ftl: &FtlConfig) -> Self {
        if ftl.fdp {
            // Handles are the streams; the isolation type is the GC scheme:
            // initially isolated copies share one GC reclaim unit, persistently
            // isolated copies go to their handle's own GC reclaim unit.
            let scheme = match ftl.fdp_isolation {
                FdpIsolation::Initially => Scheme::Separate,
                FdpIsolation::Persistently => Scheme::Internal,
            };
            // Validated: at least one of each, groups × handles in 16 bits.
            let groups = u16::try_from(ftl.fdp_reclaim_groups.max(1)).unwrap_or(u16::MAX);
            return Self {
                scheme,
                group_streams: ftl.fdp_handles.max(1),
                groups,
            };
        }
        if let Some(classes) = ftl.placement_scheme {
            return Self {
                scheme: Scheme::Classified(in_regime(classes, ftl.regime)),
                group_streams: 1,
                groups: 1,
            };
        }
        let scheme = match (ftl.placement, ftl.frontiers) {
            (PlacementName::Coldmap, _) => Scheme::Coldmap {
                threshold: ftl.coldmap_threshold,
                age_aware: false,
            },
            (PlacementName::ColdmapAge, _) => Scheme::Coldmap {
                threshold: ftl.coldmap_threshold,
                age_aware: true,
            },
            (PlacementName::Normal, _) if ftl.internal_streams => Scheme::Internal,
            (PlacementName::Normal, FrontierMode::Shared) => Scheme::Shared,
            (PlacementName::Normal, FrontierMode::Separate) => Scheme::Separate,
        };
        Self {
            scheme,
            group_streams: ftl.streams.max(1),
            groups: 1,
        }
    }

    /// Frontiers that can hold an open block at once, and so blocks GC may
    /// need: a host frontier per stream, and the GC frontiers of the scheme
    /// (one per group when separate, one per stream when internal, a GC
    /// frontier and a cold zone for Coldmap).
    pub fn frontier_count(&self) -> u32 {
        let streams = u32::from(self.group_streams) * u32::from(self.groups);
        match self.scheme {
            Scheme::Shared => streams,
            Scheme::Separate => streams + u32::from(self.groups),
            Scheme::Internal => 2 * streams,
            Scheme::Coldmap { .. } => streams + 2,
            Scheme::Classified(classes) => u32::from(classes.classes()),
        }
    }
}

/// A scheme as `regime` runs it: fk's `lifespan_classes = "auto"` becomes
/// `segments` in the log regime (SepBIT's FK, which SepBIT's simulator
/// runs there) and `geometric` on the SSD (where a block's worth of writes
/// is small against the space, docs/placement.md), and its class count is
/// made explicit. Every other scheme is as configured.
pub fn in_regime(scheme: PlacementSchemeConfig, regime: Regime) -> PlacementSchemeConfig {
    let PlacementSchemeConfig::Fk {
        classes,
        lifespan_classes,
        span_capacities,
    } = scheme
    else {
        return scheme;
    };
    let lifespan_classes = match (lifespan_classes, regime) {
        (FkLifespanClasses::Auto, Regime::Log) => FkLifespanClasses::Segments,
        (FkLifespanClasses::Auto, Regime::Ssd) => FkLifespanClasses::Geometric,
        (other, _) => other,
    };
    let resolved = PlacementSchemeConfig::Fk {
        classes,
        lifespan_classes,
        span_capacities,
    };
    PlacementSchemeConfig::Fk {
        classes: Some(resolved.classes()),
        lifespan_classes,
        span_capacities: Some(span_capacities.unwrap_or(FK_SPAN_CAPACITIES)),
    }
}

impl Config {
    /// Frontiers that can hold an open block at once (the placement plan's).
    pub fn frontier_count(&self) -> u32 {
        PlacementPlan::of(&self.ftl).frontier_count()
    }
}

/// Room to collect garbage: spare erase units for every open frontier plus
/// one per GC group, and free-pool watermarks that fit in them; the keys
/// each scheme needs and those that exclude each other.
pub(super) fn check_spare(cfg: &Config, placement: &PlacementPlan) -> Result<(), ConfigError> {
    let d = &cfg.device;
    let spare_pages = cfg.physical_pages() - cfg.logical_pages();
    // One unit beyond the open ones for GC to reclaim into (in each
    // FDP reclaim group).
    let gc_groups = if cfg.ftl.fdp {
        cfg.ftl.fdp_reclaim_groups.max(1)
    } else {
        1
    };
    let needed_blocks = u64::from(placement.frontier_count()) + u64::from(gc_groups);
    // GC reclaims whole erase units: reclaim units under FDP, else blocks.
    let unit_pages = u64::from(d.pages_per_block) * u64::from(cfg.ftl.erase_unit_blocks());
    let unit = if cfg.ftl.fdp {
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
                if cfg.ftl.fdp { "reclaim unit" } else { "block" },
                needed_blocks
            ),
        ));
    }
    let f = &cfg.ftl;
    if let Some(classes) = &f.placement_scheme {
        check_classified(cfg, classes)?;
    }
    f.gc_policy.check_choices(f.gc_choices, "ftl.gc_choices")?;
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
            format!(
                "{} free {unit} cannot be kept: the device has only {spare_blocks} spare {unit}",
                f.gc_high_watermark
            ),
        ));
    }
    if f.placement != PlacementName::Normal && !cfg.sharing() {
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
    Ok(())
}

/// A placement scheme's keys, and what it does not combine with yet: it
/// owns every frontier, so the keys that place by stream, internal stream,
/// reference count or reclaim unit handle are refused beside it, as are the
/// features whose write paths do not ask it (sharing, power-loss tracking,
/// the DFTL cache, zones).
fn check_classified(cfg: &Config, classes: &PlacementSchemeConfig) -> Result<(), ConfigError> {
    classes.check_keys()?;
    let f = &cfg.ftl;
    let name = classes.name();
    let conflicts = [
        ("ftl.streams", f.streams > 1),
        ("ftl.frontiers", f.frontiers != FrontierMode::Shared),
        ("ftl.internal_streams", f.internal_streams),
        ("ftl.placement", f.placement != PlacementName::Normal),
        ("ftl.fdp", f.fdp),
        ("ftl.dedup", f.dedup),
        ("ftl.remap", f.remap),
        ("ftl.mapping_cache_entries", f.mapping_cache_entries > 0),
        ("ftl.write_buffer_pages", f.write_buffer_pages > 0),
        (
            "ftl.checkpoint_interval_pages",
            f.checkpoint_interval_pages > 0,
        ),
        ("device.zoned", cfg.device.zoned),
    ];
    if classes.foresees() && !cfg.host.layers.is_empty() {
        return Err(ConfigError::new(
            "host.layers",
            format!("ftl.placement_scheme ({name}) foresees the device's own writes from a pre-pass; host layers above it would change them: leave the layers out"),
        ));
    }
    for (key, set) in conflicts {
        if set {
            return Err(ConfigError::new(
                key,
                format!("ftl.placement_scheme ({name}) places every write itself; it cannot be combined with {key} yet: leave one out"),
            ));
        }
    }
    Ok(())
}

/// Coldmap's threshold: a page mapped once is never cold by reference count.
pub(super) fn check_coldmap_threshold(cfg: &Config) -> Result<(), ConfigError> {
    let f = &cfg.ftl;
    if f.coldmap_threshold < 2 {
        return Err(ConfigError::new(
            "ftl.coldmap_threshold",
            format!("{} must be at least 2", f.coldmap_threshold),
        ));
    }
    Ok(())
}
