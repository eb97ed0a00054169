//! Static wear leveling: moves the data of the least-worn full block when
//! the erase-count gap passes the threshold, so young blocks holding cold
//! data return to circulation.

use super::gc::Reclaim;
use super::victims::victim_index;
use super::Ssd;
use crate::error::SimError;
use crate::flash::{BlockState, NO_BLOCK};

impl Ssd {
    /// Static wear leveling: every so often, when the erase-count gap exceeds
    /// the threshold, relocate the data of the least-worn full block (cold
    /// data pinning a young block) so that the block returns to circulation.
    pub(super) fn maybe_level_wear(&mut self) -> Result<(), SimError> {
        // Checking scans every block, so do it about once per sixteenth of the device's erases.
        if self.wl_threshold == 0 || self.erases_since_wl_check < (self.geo.blocks / 16).max(1) {
            return Ok(());
        }
        self.erases_since_wl_check = 0;
        let mut coldest = NO_BLOCK;
        let mut coldest_erases = u32::MAX;
        let mut max_erases = 0;
        for b in 0..self.geo.blocks as usize {
            let e = self.blocks.erase_count[b];
            if self.blocks.state[b] != BlockState::Retired {
                max_erases = max_erases.max(e);
            }
            if self.blocks.state[b] == BlockState::Full && e < coldest_erases {
                coldest = b as u32;
                coldest_erases = e;
            }
        }
        if coldest == NO_BLOCK || max_erases - coldest_erases <= self.wl_threshold {
            return Ok(());
        }
        if self.durability.is_some() && !self.copy_fits(coldest) {
            // Not now: it could only be erased before its data is copied.
            return Ok(());
        }
        victim_index(
            &mut self.victims,
            &mut self.group_victims,
            self.group_blocks,
            coldest,
        )
        .remove(coldest, &self.blocks);
        self.reclaim(coldest, Reclaim::WearLeveling)
    }
}
