//! The registry's code side: the one place that builds a host layer from
//! its `[[host.layers]]` entry (the keys: `config/host/`). A new layer is a
//! file beside this one plus its arm in `build`.

use super::layer::HostLayer;
use super::oracle::Lifetimes;
use super::{autostream, context_streams, lba_streams, log, oracle, pcstream};
use crate::config::{LayerConfig, LowerSpace};

impl LayerConfig {
    /// Builds the layer over the space `below` (config already validated);
    /// `future`: the oracle pre-pass's lifetimes, for the oracle.
    pub fn build(&self, below: &LowerSpace, future: Option<&Lifetimes>) -> Box<dyn HostLayer> {
        match self {
            LayerConfig::LbaStreams(c) => Box::new(lba_streams::LbaStreams::new(c)),
            LayerConfig::Log(c) => Box::new(log::LogLayer::new(c, below)),
            LayerConfig::Manual(c) => Box::new(context_streams::ContextStreams::manual(c)),
            LayerConfig::WriteHint(_) => {
                Box::new(context_streams::ContextStreams::write_hint(below.streams))
            }
            LayerConfig::Autostream(c) => Box::new(autostream::AutoStream::new(c, below)),
            LayerConfig::Pcstream(c) => Box::new(pcstream::PcStream::new(c, below)),
            LayerConfig::Oracle(c) => Box::new(oracle::Oracle::new(c, below, future)),
        }
    }
}
