//! What a host layer is: a block device over the layer below it.

use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Hint, Request};

/// A host layer: takes requests from above and issues requests to `below`.
pub trait HostLayer: Send {
    /// The layer's name in reports (its `type`).
    fn name(&self) -> &'static str;

    fn submit(
        &mut self,
        req: &Request,
        below: &mut dyn BlockDevice,
    ) -> Result<Completion, SimError>;

    /// The layer's counters since the run began.
    fn stats(&self) -> LayerStats;

    /// Information from above: act on it, and pass it down by default.
    fn hint(&mut self, hint: Hint, below: &mut dyn BlockDevice) {
        below.hint(hint);
    }

    /// `lpn` will be written soon: start fetching its mapping entry.
    fn prefetch(&self, _lpn: u64) {}

    /// Later, once the entry has arrived: start fetching what the write
    /// will touch through it (the page it kills).
    fn prefetch_mapped(&self, _lpn: u64) {}

    /// The page below that holds `lpn` (layers that keep addresses: `lpn`).
    fn translate(&self, lpn: u64) -> Option<u64> {
        Some(lpn)
    }

    /// Checks the layer's own invariants (`--check`).
    fn check(&self) -> Result<(), SimError> {
        Ok(())
    }
}
