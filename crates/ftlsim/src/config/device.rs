//! `[device]`: the flash geometry, spare space and wear limit.

use serde::{Deserialize, Serialize};

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
