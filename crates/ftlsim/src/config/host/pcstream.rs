//! `[[host.layers]] type = "pcstream"`: table sizes, k and reclustering
//! (the layer: `host/pcstream.rs`).

use serde::{Deserialize, Serialize};

use super::LowerSpace;
use crate::error::ConfigError;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PcStreamConfig {
    /// Granularity of the live-LBA table.
    pub lba_granularity_bytes: u64,
    /// Capacity of the PC attribute table (12 bytes per entry; 0 = none).
    pub pc_table_bytes: u64,
    /// Keep the table across the runs of a short-lived process.
    pub persistent: bool,
    /// k-means groups; default `ftl.streams − 1` (stream 0 is for unknown PCs).
    pub k: Option<u16>,
    /// Re-cluster once this share of the table's entries changed.
    pub recluster_fraction: f64,
}

impl Default for PcStreamConfig {
    fn default() -> Self {
        Self {
            lba_granularity_bytes: 1 << 20,
            pc_table_bytes: 360 << 10,
            persistent: true,
            k: None,
            recluster_fraction: 0.10,
        }
    }
}

impl PcStreamConfig {
    pub fn validate(&self, key: &str, below: &LowerSpace) -> Result<(), ConfigError> {
        super::check_whole_pages(
            &format!("{key}.lba_granularity_bytes"),
            self.lba_granularity_bytes,
            below,
        )?;
        if let Some(k) = self.k {
            if k == 0 || k >= below.streams {
                return Err(ConfigError::new(
                    format!("{key}.k"),
                    format!(
                        "k = {k} groups need k + 1 streams (stream 0 for unknown PCs), but ftl.streams = {}: k must be 1..={}",
                        below.streams,
                        below.streams.saturating_sub(1)
                    ),
                ));
            }
        } else if below.streams < 2 {
            return Err(ConfigError::new(
                "ftl.streams",
                "pcstream needs at least 2 streams (stream 0 for unknown PCs, one group or more)",
            ));
        }
        if !(self.recluster_fraction > 0.0 && self.recluster_fraction <= 1.0) {
            return Err(ConfigError::new(
                format!("{key}.recluster_fraction"),
                format!("{} is not in (0, 1]", self.recluster_fraction),
            ));
        }
        Ok(())
    }
}

impl super::LayerKeys for PcStreamConfig {
    fn check_keys(&self, key: &str, below: &super::LowerSpace) -> Result<(), ConfigError> {
        self.validate(key, below)
    }
}
