//! Timing model (issue 5): parallel units, latencies, GC interference, replay modes.
//! Placeholder configuration only; the model itself is being built.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TimingMode {
    /// A fixed number of requests outstanding (fio's iodepth).
    Closed,
    /// Requests arrive at their trace times (scaled by a speed-up factor).
    Open,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TimingConfig {
    pub channels: u32,
    pub luns_per_channel: u32,
    pub read_latency_us: f64,
    pub program_latency_us: f64,
    pub erase_latency_us: f64,
    pub transfer_us_per_page: f64,
    pub queue_depth: u32,
    pub mode: TimingMode,
}

impl Default for TimingConfig {
    fn default() -> Self {
        Self {
            channels: 8,
            luns_per_channel: 4,
            read_latency_us: 40.0,
            program_latency_us: 200.0,
            erase_latency_us: 2000.0,
            transfer_us_per_page: 10.0,
            queue_depth: 32,
            mode: TimingMode::Closed,
        }
    }
}
