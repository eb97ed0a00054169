//! A device that takes every request and keeps nothing: the engine under
//! it makes the same choices as over a real device (it needs nothing back
//! from a request, values being length and checksum), so its counters are
//! the engine's own, at the cost of the engine alone. `ftlsim lsm-compare`
//! runs the engine on it beside a real LevelDB.

use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Request};

/// Logical pages of a [`Sink`]: 16 TiB of 4 KiB pages, far more than any
/// load the engine is run on here needs.
pub const SINK_LOGICAL_PAGES: u64 = 1 << 32;

#[derive(Debug, Default)]
pub struct Sink;

impl BlockDevice for Sink {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        // Every page the engine reads it wrote before: found.
        Ok(Completion {
            mapped_pages: req.pages,
            unmapped_pages: 0,
        })
    }

    fn logical_pages(&self) -> u64 {
        SINK_LOGICAL_PAGES
    }

    fn layer_stats(&self, _out: &mut Vec<LayerStats>) {}
}
