//! `[metrics]`: what the run records besides counters.

use serde::{Deserialize, Serialize};

use super::Amount;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// Host page writes per time-series sample. Default: 1/20 of the logical capacity.
    pub window: Option<Amount>,
    /// Record page survival times (a histogram update per invalidation).
    pub survival: bool,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self {
            window: None,
            survival: true,
        }
    }
}
