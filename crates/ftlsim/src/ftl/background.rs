//! Background GC: what the timing model asks of GC while the device is idle.

use super::gc::Reclaim;
use super::Ssd;
use crate::error::SimError;

impl Ssd {
    /// Valid pages of the next GC victim, when the policy can tell without
    /// choosing (greedy); otherwise a full block, the worst case.
    pub fn next_victim_valid_pages(&mut self) -> u32 {
        let group = self.pool.neediest_group();
        self.group_victims_mut(group)
            .peek_min_valid()
            .unwrap_or(self.geo.pages_per_block)
    }

    /// Background GC: reclaims one victim if the free pool holds fewer than
    /// `target_free` blocks and a victim would gain space. Returns whether it
    /// reclaimed one. The timing model calls this while the device is idle.
    pub fn collect_in_background(&mut self, target_free: u32) -> Result<bool, SimError> {
        // Under FDP reclaim groups: the group with the fewest free units,
        // against its share of the target.
        let group = self.pool.neediest_group();
        if self.pool.len_in(group) * self.pool.groups() >= target_free {
            return Ok(false);
        }
        // No victim that GC can reclaim safely: not now either.
        let Ok(Some(victim)) = self.choose_victim_durably(group) else {
            return Ok(false);
        };
        if self.blocks.valid[victim as usize] == self.geo.pages_per_block {
            // Nothing to gain now; leave it for later.
            self.victim_insert(victim);
            return Ok(false);
        }
        self.reclaim(victim, Reclaim::Gc)?;
        self.counters.background_gc_count += 1;
        self.maybe_level_wear()?;
        if self.cmt.is_some() {
            self.flush_translation_updates()?;
        }
        Ok(true)
    }
}
