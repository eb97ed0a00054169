//! NVMe Flexible Data Placement (TP4146, NVMe 2.0): reclaim units, reclaim
//! unit handles and their isolation, on the page-mapped FTL.
//!
//! The mapping onto the FTL (docs/fdp.md):
//! * A reclaim unit (RU) of `ftl.fdp_ru_blocks` consecutive flash blocks is
//!   written and erased as one: the `Ssd` is built with RUs as its blocks
//!   (`Ssd::new`), so victim choice, the free pool and wear count RUs.
//! * A reclaim unit handle is a host frontier: the placement id of a write
//!   (`Request::stream`) picks it; an id that names no handle falls back to
//!   handle 0 and is counted (`Ssd::resolve_stream`).
//! * Reclaim groups split the RUs into ranges, each with its own free pool,
//!   victim index and GC (`FreePool` groups, `Ssd::group_victims`); the
//!   placement id is group × handles + handle.
//! * The handle type is the GC scheme (`PlacementPlan::of`): initially
//!   isolated handles share one GC RU, persistently isolated handles each
//!   have their own, and a copy never leaves its handle's RUs.
//!
//! Everything here sits behind `Ssd::fdp.is_some()`; with FDP off the FTL
//! runs as before.

use super::Ssd;
use crate::config::FdpIsolation;
use crate::error::SimError;
use crate::flash::{Ppn, NO_BLOCK};
use crate::plan::DeviceMode;

/// What the device knows of its FDP configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Fdp {
    pub handles: u16,
    pub ru_blocks: u32,
    pub isolation: FdpIsolation,
}

impl Fdp {
    /// FDP's state under `mode`, or `None` when the device is not FDP.
    pub fn of(mode: DeviceMode) -> Option<Self> {
        match mode {
            DeviceMode::Fdp {
                handles,
                ru_blocks,
                isolation,
                ..
            } => Some(Self {
                handles,
                ru_blocks,
                isolation,
            }),
            DeviceMode::Conventional | DeviceMode::Zoned { .. } => None,
        }
    }
}

impl Ssd {
    /// The FDP configuration, when FDP is on.
    pub fn fdp(&self) -> Option<&Fdp> {
        self.fdp.as_ref()
    }

    /// Whether the block (the reclaim unit under FDP) holding `ppn` was
    /// opened by GC (a GC reclaim unit) rather than by a host handle.
    pub fn block_is_gc(&self, ppn: Ppn) -> bool {
        self.blocks.internal[self.geo.block_of(ppn) as usize]
    }

    /// Reclaim Unit Handle Update (I/O Management Send): the handle of
    /// `placement_id` moves to a fresh reclaim unit at its next write. A
    /// reclaim unit it leaves partly written is closed as it is (its unwritten
    /// pages stay unused until it is reclaimed) and counted as the event
    /// "reclaim unit not fully written". An invalid id is refused, as the
    /// command is.
    pub fn fdp_update_handle(&mut self, placement_id: u16) -> Result<(), SimError> {
        if self.fdp.is_none() {
            return Err(SimError::BadRequest(
                "reclaim unit handle update needs ftl.fdp = true".to_string(),
            ));
        }
        self.check_stream(placement_id)?;
        let frontier = self.placement.host_frontier(placement_id);
        let block = self.frontiers[frontier].block;
        if block == NO_BLOCK {
            return Ok(());
        }
        let b = block as usize;
        if self.blocks.write_ptr[b] == 0 {
            // Nothing written yet: the handle keeps its fresh unit.
            return Ok(());
        }
        self.counters.fdp_ru_not_fully_written += 1;
        self.blocks.write_ptr[b] = self.geo.pages_per_block;
        self.close_block(block);
        Ok(())
    }
}
