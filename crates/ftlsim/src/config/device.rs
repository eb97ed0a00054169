//! `[device]`: the flash geometry, spare space and wear limit.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

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
    /// A zoned device (ZNS-like): zones of `zone_blocks` blocks written
    /// sequentially and reset whole, no device GC; the whole raw capacity is
    /// addressable (`spare_factor` is ignored). A `log` layer must sit on it.
    pub zoned: bool,
    pub zone_blocks: u32,
    /// Zones that may be open (written but not full) at once.
    pub max_open_zones: u32,
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
            zoned: false,
            zone_blocks: 1,
            max_open_zones: 14,
        }
    }
}

impl DeviceConfig {
    /// Multi-plane striping: each LUN's slice of a block (pages_per_block /
    /// LUNs pages) is split over the planes, so LUNs x planes must divide a
    /// block. `luns` is the device's LUN count (the timing section may
    /// override the device's channels and LUNs per channel).
    pub(crate) fn check_planes(&self, luns: u64) -> Result<(), ConfigError> {
        let planes = self.planes_per_lun;
        let stripe = luns * u64::from(planes);
        if planes > 1 && !u64::from(self.pages_per_block).is_multiple_of(stripe) {
            return Err(ConfigError::new(
                "device.planes_per_lun",
                format!(
                    "{planes} planes do not divide the block layout: device.pages_per_block ({}) must be a multiple of LUNs x planes ({stripe})",
                    self.pages_per_block
                ),
            ));
        }
        Ok(())
    }
}
