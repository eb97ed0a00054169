//! `[[host.layers]] type = "manual"` and `type = "write-hint"`: streams by
//! program context (the layer: `host/context_streams.rs`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ManualConfig {
    /// `[context, stream]` pairs; a context may appear once.
    pub map: Vec<[u64; 2]>,
    /// The stream of contexts not in `map`.
    #[serde(default)]
    pub default_stream: u16,
}

impl ManualConfig {
    pub fn validate(&self, key: &str, streams: u16) -> Result<(), ConfigError> {
        if self.default_stream >= streams {
            return Err(ConfigError::new(
                format!("{key}.default_stream"),
                format!(
                    "stream {} is not below ftl.streams = {streams}",
                    self.default_stream
                ),
            ));
        }
        let mut seen = HashMap::new();
        for (i, &[context, stream]) in self.map.iter().enumerate() {
            if stream >= u64::from(streams) {
                return Err(ConfigError::new(
                    format!("{key}.map[{i}]"),
                    format!("stream {stream} is not below ftl.streams = {streams}"),
                ));
            }
            if let Some(j) = seen.insert(context, i) {
                return Err(ConfigError::new(
                    format!("{key}.map[{i}]"),
                    format!("context {context} is mapped already by {key}.map[{j}]"),
                ));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WriteHintConfig {}

impl super::LayerKeys for ManualConfig {
    fn check_keys(&self, key: &str, below: &super::LowerSpace) -> Result<(), ConfigError> {
        self.validate(key, below.streams)
    }
}

impl super::LayerKeys for WriteHintConfig {
    fn check_keys(&self, _key: &str, _below: &super::LowerSpace) -> Result<(), ConfigError> {
        Ok(())
    }
}
