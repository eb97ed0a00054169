//! The device's plan: its geometry, and its mode — a conventional
//! page-mapped device, a zoned one or an FDP one — with the keys each mode
//! brings. The checks of `[device]` and of the mode live here, once.

use crate::config::{Config, FdpIsolation, FrontierMode, LayerConfig, PlacementName};
use crate::error::ConfigError;

/// How the device exposes its flash, with the keys of that mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceMode {
    /// Page-mapped: any logical page anywhere, GC by the FTL.
    Conventional,
    /// Zoned (`device.zoned`): zones of `zone_blocks` blocks written
    /// sequentially, at most `max_open_zones` open at once.
    Zoned {
        zone_blocks: u32,
        max_open_zones: u32,
    },
    /// NVMe FDP (`ftl.fdp`): reclaim units of `ru_blocks` blocks in
    /// `reclaim_groups` groups, `handles` handles in each.
    Fdp {
        reclaim_groups: u32,
        handles: u16,
        ru_blocks: u32,
        isolation: FdpIsolation,
    },
}

impl DeviceMode {
    /// The mode a (validated) config asks for.
    pub fn of(cfg: &Config) -> Self {
        let (d, f) = (&cfg.device, &cfg.ftl);
        if f.fdp {
            DeviceMode::Fdp {
                reclaim_groups: f.fdp_reclaim_groups,
                handles: f.fdp_handles,
                ru_blocks: f.fdp_ru_blocks,
                isolation: f.fdp_isolation,
            }
        } else if d.zoned {
            DeviceMode::Zoned {
                zone_blocks: d.zone_blocks,
                max_open_zones: d.max_open_zones,
            }
        } else {
            DeviceMode::Conventional
        }
    }
}

/// Sizes that are at least 1, whole sectors, and page numbers that fit in
/// 32 bits; a spare factor in (0, 1).
pub(super) fn check_geometry(cfg: &Config) -> Result<(), ConfigError> {
    let d = &cfg.device;
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
    if cfg.physical_pages() >= u64::from(u32::MAX) {
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
    Ok(())
}

/// The stream count, then the mode's own keys: FDP before zoned mode's
/// checks, so that FDP on a zoned device names the conflict rather than
/// what zoned mode misses.
pub(super) fn check_mode(cfg: &Config) -> Result<(), ConfigError> {
    if cfg.ftl.streams == 0 {
        return Err(ConfigError::new(
            "ftl.streams",
            "0 is not a stream count: it must be at least 1 (stream 0 is the default stream)",
        ));
    }
    if cfg.ftl.fdp {
        check_fdp(cfg)?;
    }
    if cfg.device.zoned {
        check_zoned(cfg)?;
    }
    Ok(())
}

/// A zoned device: whole zones, an open-zone limit, and a log on top.
fn check_zoned(cfg: &Config) -> Result<(), ConfigError> {
    let d = &cfg.device;
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
    if cfg.sharing() {
        return Err(ConfigError::new(
            "device.zoned",
            "a zoned device has no mapping of its own: it cannot deduplicate or remap (ftl.dedup, ftl.remap)",
        ));
    }
    if cfg.ftl.power_loss_tracking() {
        return Err(ConfigError::new(
            "device.zoned",
            "power-loss tracking (checkpoints, journal, write buffer) models a page-mapped FTL, not zones",
        ));
    }
    if !matches!(cfg.host.layers.last(), Some(LayerConfig::Log(_))) {
        return Err(ConfigError::new(
            "device.zoned",
            "a zoned device is written sequentially per zone: it needs a [[host.layers]] type = \"log\" directly above it (the last layer)",
        ));
    }
    Ok(())
}

/// FDP (docs/fdp.md): whole reclaim units, handles instead of streams,
/// and none of the modes that place data their own way.
fn check_fdp(cfg: &Config) -> Result<(), ConfigError> {
    let (d, f) = (&cfg.device, &cfg.ftl);
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
