//! `SegmentView`: the per-segment facts a victim policy reads.

use crate::flash::{BlockState, BlockTable};

/// What a victim policy may know of segment `s`. Implemented by the block
/// table that both the FTL (blocks) and a log layer (segments) keep, so the
/// policies compile to direct array reads (static dispatch, no copy).
pub trait SegmentView {
    /// Pages of `s` that hold live data.
    fn valid_pages(&self, s: u32) -> u32;
    /// Logical time of the last page written into `s`.
    fn last_write_at(&self, s: u32) -> u64;
    /// The order in which `s` was opened; it changes when `s` is reopened.
    fn seq(&self, s: u32) -> u64;
    /// Whether `s` is full (sealed, and so a possible victim).
    fn is_full(&self, s: u32) -> bool;
}

impl SegmentView for BlockTable {
    #[inline(always)]
    fn valid_pages(&self, s: u32) -> u32 {
        self.valid[s as usize]
    }

    #[inline(always)]
    fn last_write_at(&self, s: u32) -> u64 {
        self.last_write_at[s as usize]
    }

    #[inline(always)]
    fn seq(&self, s: u32) -> u64 {
        self.seq[s as usize]
    }

    #[inline(always)]
    fn is_full(&self, s: u32) -> bool {
        self.state[s as usize] == BlockState::Full
    }
}
