//! The registry of host layer types: the `[host]` config section and the
//! one place that maps a layer's `type` to its config and its code. A new
//! layer is a file beside this one plus a line in `LayerConfig` and in each
//! of its three matches.

use serde::{Deserialize, Serialize};

use super::layer::HostLayer;
use super::lba_streams;
use crate::error::ConfigError;

/// The `[host]` section: layers over the device, top to bottom.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    pub layers: Vec<LayerConfig>,
}

/// One `[[host.layers]]` entry; `type` picks the layer, the other keys are its own.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum LayerConfig {
    /// Manual streams by address: a stream per LPN range.
    LbaStreams(lba_streams::LbaStreamsConfig),
}

impl LayerConfig {
    /// Checks the layer's keys against the space below it; `key` is the
    /// layer's config path (`host.layers[i]`) for error messages.
    pub fn validate(&self, key: &str, below_pages: u64, streams: u16) -> Result<(), ConfigError> {
        match self {
            LayerConfig::LbaStreams(c) => c.validate(key, below_pages, streams),
        }
    }

    /// Pages of the logical space the layer offers above a space of `below_pages`.
    pub fn logical_pages(&self, below_pages: u64) -> u64 {
        match self {
            // Streams keep addresses as they are.
            LayerConfig::LbaStreams(_) => below_pages,
        }
    }

    /// Builds the layer over a device of `below_pages` logical pages.
    pub fn build(&self, _below_pages: u64) -> Box<dyn HostLayer> {
        match self {
            LayerConfig::LbaStreams(c) => Box::new(lba_streams::LbaStreams::new(c)),
        }
    }
}

impl HostConfig {
    /// Checks every layer, bottom up (each sees the logical space below it).
    pub fn validate(&self, device_pages: u64, streams: u16) -> Result<(), ConfigError> {
        let mut below = device_pages;
        for (i, layer) in self.layers.iter().enumerate().rev() {
            layer.validate(&format!("host.layers[{i}]"), below, streams)?;
            below = layer.logical_pages(below);
        }
        Ok(())
    }
}
