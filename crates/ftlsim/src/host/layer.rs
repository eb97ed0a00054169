//! What a host layer is: a block device over the layer below it.

use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Hint, Op, Request};

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

    /// Whether every request leaves this layer at the address it came in
    /// with (stream assigners): the stack then sends the device's
    /// read-ahead straight to the SSD, as a run without layers does.
    fn keeps_addresses(&self) -> bool {
        false
    }

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

/// Passes a request down unchanged but for writes, which go on `stream`:
/// the work of every layer that only assigns streams. Counts pages in and out.
pub(super) fn pass_down(
    stats: &mut LayerStats,
    scratch: &mut Request,
    req: &Request,
    stream: u16,
    below: &mut dyn BlockDevice,
) -> Result<Completion, SimError> {
    let pages = u64::from(req.pages);
    match req.op {
        Op::Write => {
            scratch.copy_part_from(req, 0, req.pages);
            scratch.stream = stream;
            let done = below.submit(scratch)?;
            stats.write_pages_in += pages;
            stats.write_pages_out += pages;
            Ok(done)
        }
        Op::Read => {
            stats.read_pages_in += pages;
            let done = below.submit(req)?;
            stats.read_pages_out += pages;
            Ok(done)
        }
        Op::Trim => {
            stats.trim_pages_in += pages;
            let done = below.submit(req)?;
            stats.trim_pages_out += pages;
            Ok(done)
        }
        Op::Flush | Op::Remap | Op::Clone => below.submit(req),
    }
}
