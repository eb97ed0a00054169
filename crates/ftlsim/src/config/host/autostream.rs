//! `[[host.layers]] type = "autostream"`: the algorithm, its rules, chunk
//! size and decay (the layer: `host/autostream.rs`).

use serde::{Deserialize, Serialize};

use super::LowerSpace;
use crate::error::ConfigError;

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    #[default]
    Sfr,
    Mq,
}

/// Whose rules SFR follows (see the module doc).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Rules {
    /// The SYSTOR'17 paper's prose: continuous decay, ⌊log2 count⌋.
    #[default]
    Paper,
    /// `taejin1999/bdbm_drv_mltstrm_page`: whole-period halving of an
    /// integer count, ⌊log10 count⌋, the stream as of the previous write.
    Bdbm,
}

impl Rules {
    fn is_paper(&self) -> bool {
        *self == Rules::Paper
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AutoStreamConfig {
    pub algorithm: Algorithm,
    /// Whose SFR rules (absent from a written config when the paper's, so
    /// configs written before the key existed read back the same).
    #[serde(skip_serializing_if = "Rules::is_paper")]
    pub rules: Rules,
    /// Bytes per chunk (the unit counts are kept for).
    pub chunk_bytes: u64,
    /// Seconds per halving of a count (SFR) or per expiry (MQ); absent: one
    /// pass over the logical space in logical time.
    pub decay_s: Option<f64>,
}

impl Default for AutoStreamConfig {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::Sfr,
            rules: Rules::Paper,
            chunk_bytes: 1 << 20,
            decay_s: None,
        }
    }
}

impl AutoStreamConfig {
    pub fn validate(&self, key: &str, below: &LowerSpace) -> Result<(), ConfigError> {
        if self.rules == Rules::Bdbm && self.algorithm != Algorithm::Sfr {
            return Err(ConfigError::new(
                format!("{key}.rules"),
                "\"bdbm\" is defined for algorithm = \"sfr\" only (the re-implementation's MQ keeps one device-wide lifetime, not modelled)".to_string(),
            ));
        }
        super::check_whole_pages(&format!("{key}.chunk_bytes"), self.chunk_bytes, below)?;
        if let Some(d) = self.decay_s {
            if !(d.is_finite() && d > 0.0) {
                return Err(ConfigError::new(
                    format!("{key}.decay_s"),
                    format!("{d} is not a positive number of seconds"),
                ));
            }
        }
        Ok(())
    }
}

impl super::LayerKeys for AutoStreamConfig {
    fn check_keys(&self, key: &str, below: &super::LowerSpace) -> Result<(), ConfigError> {
        self.validate(key, below)
    }
}
