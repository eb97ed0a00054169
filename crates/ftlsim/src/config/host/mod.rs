//! The `[host]` section: the host layers over the device, top to bottom.
//! `LayerConfig` is the one place that maps a layer's `type` to its keys
//! (a file here per layer type, implementing [`LayerKeys`]); the code that
//! builds a layer from them is `host/registry.rs`. A new layer is a file
//! here and one in `host/`, plus its line in the `layer_types!` list below
//! and its build line there.

pub mod autostream;
pub mod context_streams;
pub mod lba_streams;
pub mod log;
pub mod oracle;
pub mod pcstream;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// The `[host]` section: layers over the device, top to bottom.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    #[serde(deserialize_with = "super::table::tables")]
    pub layers: Vec<LayerConfig>,
}

/// What every layer type's keys answer, so that nothing here matches on
/// the type but the one list in `layer_types!`.
pub trait LayerKeys {
    /// Checks the keys against the space below the layer; `key` is the
    /// layer's config path (`host.layers[i]`) for error messages.
    fn check_keys(&self, key: &str, below: &LowerSpace) -> Result<(), ConfigError>;

    /// Pages of the logical space the layer offers above a space of
    /// `below_pages`: a stream assigner keeps addresses as they are.
    fn pages_above(&self, below_pages: u64) -> u64 {
        below_pages
    }
}

/// Declares `LayerConfig` from one line per layer type (the variant, whose
/// kebab-case name is the `type` key, and its keys) and the one match that
/// reaches a layer's keys whatever its type.
macro_rules! layer_types {
    ($( $(#[$doc:meta])* $variant:ident($keys:ty), )*) => {
        /// One `[[host.layers]]` entry; `type` picks the layer, the other keys are its own.
        #[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
        #[serde(tag = "type", rename_all = "kebab-case")]
        pub enum LayerConfig {
            $( $(#[$doc])* $variant($keys), )*
        }

        impl LayerConfig {
            /// The layer's keys, whatever its type.
            pub fn keys(&self) -> &dyn LayerKeys {
                match self {
                    $( LayerConfig::$variant(keys) => keys, )*
                }
            }
        }
    };
}

layer_types! {
    /// Manual streams by address: a stream per LPN range.
    LbaStreams(lba_streams::LbaStreamsConfig),
    /// A log-structured remapping layer with its own segments and cleaning.
    Log(log::LogConfig),
    /// Manual streams by program context: a static context → stream map.
    Manual(context_streams::ManualConfig),
    /// Linux write-lifetime hints (in the context tag) to streams 1–4.
    WriteHint(context_streams::WriteHintConfig),
    /// AutoStream: streams by each chunk's recency-weighted write count.
    Autostream(autostream::AutoStreamConfig),
    /// PCStream: streams by program context, learned lifetimes, k-means.
    Pcstream(pcstream::PcStreamConfig),
    /// Streams by each page's true remaining lifetime (a pre-pass).
    Oracle(oracle::OracleConfig),
}

/// What a layer sees of the space below it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LowerSpace {
    /// Logical pages the layer below offers.
    pub pages: u64,
    /// Host streams the device offers (`ftl.streams`).
    pub streams: u16,
    pub page_bytes: u32,
    /// Pages per zone when the layer sits directly on a zoned device.
    pub zone_pages: Option<u64>,
    /// Open zones the zoned device allows (with `zone_pages`).
    pub max_open_zones: u32,
    /// The run's seed, for layers that draw random numbers.
    pub seed: u64,
}

/// `bytes` (the key `key` names) as a positive whole number of the pages
/// below: what a stream assigner's tracking unit must be.
fn check_whole_pages(key: &str, bytes: u64, below: &LowerSpace) -> Result<(), ConfigError> {
    let page = u64::from(below.page_bytes);
    if bytes == 0 || !bytes.is_multiple_of(page) {
        return Err(ConfigError::new(
            key,
            format!("{bytes} is not a positive multiple of the page size ({page} bytes)"),
        ));
    }
    Ok(())
}

impl LowerSpace {
    /// What the layer above `layer` sees: `layer`'s logical pages, and no
    /// zones (only the bottom layer sits on the device).
    pub fn above(&self, layer: &LayerConfig) -> LowerSpace {
        LowerSpace {
            pages: layer.logical_pages(self.pages),
            zone_pages: None,
            ..*self
        }
    }
}

impl LayerConfig {
    /// Checks the layer's keys against the space below it; `key` is the
    /// layer's config path (`host.layers[i]`) for error messages.
    pub fn validate(&self, key: &str, below: &LowerSpace) -> Result<(), ConfigError> {
        self.keys().check_keys(key, below)
    }

    /// Pages of the logical space the layer offers above a space of `below_pages`.
    pub fn logical_pages(&self, below_pages: u64) -> u64 {
        self.keys().pages_above(below_pages)
    }
}

impl HostConfig {
    /// Checks every layer, bottom up (each sees the logical space below it).
    pub fn validate(&self, device: &LowerSpace) -> Result<(), ConfigError> {
        let mut below = *device;
        for (i, layer) in self.layers.iter().enumerate().rev() {
            layer.validate(&format!("host.layers[{i}]"), &below)?;
            if i > 0 && matches!(layer, LayerConfig::Oracle(_)) {
                return Err(ConfigError::new(
                    format!("host.layers[{i}].type"),
                    "the oracle must be the top layer (its pre-pass counts the workload's own page writes)",
                ));
            }
            below = below.above(layer);
        }
        Ok(())
    }

    /// Whether the stack has an oracle (the run then makes a pre-pass).
    pub fn has_oracle(&self) -> bool {
        self.layers
            .iter()
            .any(|l| matches!(l, LayerConfig::Oracle(_)))
    }

    /// Logical pages at the top of the stack over a device of `device_pages`.
    pub fn top_pages(&self, device_pages: u64) -> u64 {
        self.layers
            .iter()
            .rev()
            .fold(device_pages, |below, layer| layer.logical_pages(below))
    }
}
