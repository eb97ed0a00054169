//! Host layers: what sits between a request source and the SSD. Each layer
//! is a [`BlockDevice`] over the layer below it; a [`Stack`] is the list of
//! layers (top to bottom) over the device.
//!
//! A layer is one file: a config struct (its keys, with serde), a type that
//! implements [`HostLayer`], and one line in each of [`LayerConfig`] and
//! [`LayerConfig::build`] below (the registry).

pub mod lba_streams;

use serde::{Deserialize, Serialize};

use crate::error::{ConfigError, SimError};
use crate::ftl::Ssd;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Hint, Request};

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
    fn validate(&self, key: &str, below_pages: u64, streams: u16) -> Result<(), ConfigError> {
        match self {
            LayerConfig::LbaStreams(c) => c.validate(key, below_pages, streams),
        }
    }

    /// Builds the layer over a device of `below_pages` logical pages.
    fn build(&self, below_pages: u64) -> Box<dyn HostLayer> {
        match self {
            LayerConfig::LbaStreams(c) => Box::new(lba_streams::LbaStreams::new(c, below_pages)),
        }
    }
}

impl HostConfig {
    /// Checks every layer, bottom up (each sees the logical space below it).
    pub fn validate(&self, device_pages: u64, streams: u16) -> Result<(), ConfigError> {
        let mut below = device_pages;
        for (i, layer) in self.layers.iter().enumerate().rev() {
            layer.validate(&format!("host.layers[{i}]"), below, streams)?;
            below = layer.build(below).logical_pages(below);
        }
        Ok(())
    }
}

/// A host layer: takes requests from above and issues requests to `below`.
pub trait HostLayer {
    /// The layer's name in reports (its `type`).
    fn name(&self) -> &'static str;

    fn submit(
        &mut self,
        req: &Request,
        below: &mut dyn BlockDevice,
    ) -> Result<Completion, SimError>;

    /// Pages of the logical space the layer offers above, over `below_pages`.
    fn logical_pages(&self, below_pages: u64) -> u64;

    /// The layer's counters since the run began.
    fn stats(&self) -> LayerStats;

    /// Information from above: act on it, and pass it down by default.
    fn hint(&mut self, hint: Hint, below: &mut dyn BlockDevice) {
        below.hint(hint);
    }

    /// Checks the layer's own invariants (`--check`).
    fn check(&self) -> Result<(), SimError> {
        Ok(())
    }
}

/// Host layers over an SSD. The SSD stays reachable for the driver
/// (sampling, timing, the report); requests enter at the top layer.
pub struct Stack {
    layers: Vec<Box<dyn HostLayer>>,
    /// Logical pages above each layer, top to bottom.
    logical_pages: Vec<u64>,
    ssd: Ssd,
}

impl Stack {
    /// Builds the configured layers over `ssd` (configs already validated).
    pub fn new(config: &HostConfig, ssd: Ssd) -> Self {
        let mut below = u64::from(ssd.logical_pages());
        let mut layers = Vec::with_capacity(config.layers.len());
        let mut logical_pages = Vec::with_capacity(config.layers.len());
        for layer in config.layers.iter().rev() {
            let built = layer.build(below);
            below = built.logical_pages(below);
            logical_pages.push(below);
            layers.push(built);
        }
        layers.reverse();
        logical_pages.reverse();
        Self {
            layers,
            logical_pages,
            ssd,
        }
    }

    pub fn ssd(&self) -> &Ssd {
        &self.ssd
    }

    pub fn ssd_mut(&mut self) -> &mut Ssd {
        &mut self.ssd
    }

    pub fn into_ssd(self) -> Ssd {
        self.ssd
    }

    /// Checks every layer's invariants and the device's.
    pub fn check_invariants(&self) -> Result<(), SimError> {
        for layer in &self.layers {
            layer.check()?;
        }
        self.ssd.check_invariants()
    }
}

/// The part of a stack below some layer, as a device.
struct Below<'a> {
    layers: &'a mut [Box<dyn HostLayer>],
    /// Logical pages above each of `layers`.
    logical_pages: &'a [u64],
    ssd: &'a mut Ssd,
}

impl BlockDevice for Below<'_> {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        match self.layers.split_first_mut() {
            None => self.ssd.submit(req),
            Some((top, rest)) => top.submit(
                req,
                &mut Below {
                    layers: rest,
                    logical_pages: &self.logical_pages[1..],
                    ssd: self.ssd,
                },
            ),
        }
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages
            .first()
            .copied()
            .unwrap_or_else(|| u64::from(self.ssd.logical_pages()))
    }

    fn layer_stats(&self, out: &mut Vec<LayerStats>) {
        out.extend(self.layers.iter().map(|l| l.stats()));
        self.ssd.layer_stats(out);
    }

    fn hint(&mut self, hint: Hint) {
        match self.layers.split_first_mut() {
            None => self.ssd.hint(hint),
            Some((top, rest)) => top.hint(
                hint,
                &mut Below {
                    layers: rest,
                    logical_pages: &self.logical_pages[1..],
                    ssd: self.ssd,
                },
            ),
        }
    }
}

impl BlockDevice for Stack {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        Below {
            layers: &mut self.layers,
            logical_pages: &self.logical_pages,
            ssd: &mut self.ssd,
        }
        .submit(req)
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages
            .first()
            .copied()
            .unwrap_or_else(|| u64::from(self.ssd.logical_pages()))
    }

    fn layer_stats(&self, out: &mut Vec<LayerStats>) {
        out.extend(self.layers.iter().map(|l| l.stats()));
        self.ssd.layer_stats(out);
    }

    fn hint(&mut self, hint: Hint) {
        Below {
            layers: &mut self.layers,
            logical_pages: &self.logical_pages,
            ssd: &mut self.ssd,
        }
        .hint(hint);
    }

    fn prefetch(&self, lpn: u64) {
        // Only a stack whose top layers keep addresses could pass this down;
        // without knowing, prefetching the device's entry could be wasted.
        if self.layers.is_empty() {
            self.ssd.prefetch(lpn);
        }
    }
}
