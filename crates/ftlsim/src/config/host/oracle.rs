//! `[[host.layers]] type = "oracle"`: the ratio between lifetime classes
//! (the layer: `host/oracle.rs`).

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct OracleConfig {
    /// Ratio between the lifetimes that bound neighbouring classes.
    pub class_ratio: f64,
}

impl Default for OracleConfig {
    fn default() -> Self {
        Self { class_ratio: 4.0 }
    }
}

impl OracleConfig {
    pub fn validate(&self, key: &str) -> Result<(), ConfigError> {
        if !(self.class_ratio.is_finite() && self.class_ratio > 1.0) {
            return Err(ConfigError::new(
                format!("{key}.class_ratio"),
                format!("{} is not a ratio above 1", self.class_ratio),
            ));
        }
        Ok(())
    }
}

impl super::LayerKeys for OracleConfig {
    fn check_keys(&self, key: &str, _below: &super::LowerSpace) -> Result<(), ConfigError> {
        self.validate(key)
    }
}
