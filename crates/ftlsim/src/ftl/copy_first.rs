//! The durability rule every GC victim obeys when power-loss tracking is
//! on: a victim is erased only after its valid pages have been programmed
//! somewhere else, so at no point is the only copy of acknowledged data on
//! a block that has been erased.
//!
//! The rule is the engine's, not a policy's. A victim policy says which
//! block it would like reclaimed; the engine reclaims it only if its valid
//! pages fit in the room GC has without it (open GC frontiers plus free
//! blocks). When they do not, it takes the emptiest full block instead (the
//! best any policy could do), and when even that does not fit, it reclaims
//! nothing.
//!
//! Why a policy's choice can fail the rule: a power cut inside GC leaves the
//! pool a block short (the block the interrupted reclaim opened holds copies,
//! its victim still holds the rest). Greedy then picks a nearly empty block
//! that fits; FIFO picks the oldest and random a random one, either of which
//! may hold more valid pages than there is room for. Before this rule the
//! engine erased such a victim first and copied after: a cut in that window
//! lost acknowledged pages (docs/power-loss.md, "GC and the durability rule").

use super::Ssd;
use crate::error::SimError;
use crate::flash::{BlockState, NO_BLOCK};

impl Ssd {
    /// Whether `victim`'s valid pages fit in the room GC has without it, so
    /// that it can copy before it erases.
    pub(super) fn copy_fits(&mut self, victim: u32) -> bool {
        self.gc_room_pages_for(victim) >= u64::from(self.blocks.valid[victim as usize])
    }

    /// GC's next victim in `group`, taken out of its victim index: the
    /// policy's choice, and with power-loss tracking one whose pages can be
    /// copied before it is erased (see the module comment). `Ok(None)` when
    /// there is no full block; an error when none can be reclaimed safely.
    #[inline(always)]
    pub(super) fn choose_victim_durably(&mut self, group: u32) -> Result<Option<u32>, SimError> {
        let Some(victim) = self.choose_victim(group) else {
            return Ok(None);
        };
        if self.durability.is_none() || self.copy_fits(victim) {
            return Ok(Some(victim));
        }
        self.emptiest_instead_of(victim, group)
    }

    /// The policy's `victim` does not fit: put it back and take the
    /// emptiest full block of `group` if that fits. Out of line: it runs
    /// only after a power cut, and GC's loop stays as it was without it.
    #[cold]
    #[inline(never)]
    fn emptiest_instead_of(&mut self, victim: u32, group: u32) -> Result<Option<u32>, SimError> {
        super::victims::victim_index(
            &mut self.victims,
            &mut self.group_victims,
            self.group_blocks,
            victim,
        )
        .put_back(victim, &self.blocks);
        let emptiest = self
            .emptiest_full_block(group)
            .expect("the policy's choice is full");
        if !self.copy_fits(emptiest) {
            return Err(SimError::NoSafeVictim {
                fewest_valid_pages: self.blocks.valid[emptiest as usize],
                room_pages: self.gc_room_pages_for(emptiest),
            });
        }
        self.take_victim(emptiest);
        Ok(Some(emptiest))
    }

    /// The full block of `group` with the fewest valid pages (the lowest
    /// number among equals). A scan of the group's blocks: it runs only when
    /// the pool is short, after a power cut.
    pub(super) fn emptiest_full_block(&self, group: u32) -> Option<u32> {
        let first = group * self.group_blocks;
        let end = (first + self.group_blocks).min(self.geo.blocks);
        let mut best = NO_BLOCK;
        let mut best_valid = u32::MAX;
        for block in first..end {
            let b = block as usize;
            if self.blocks.state[b] == BlockState::Full && self.blocks.valid[b] < best_valid {
                best = block;
                best_valid = self.blocks.valid[b];
            }
        }
        (best != NO_BLOCK).then_some(best)
    }

    /// Takes a full block out of its victim index: the engine reclaims it.
    pub(super) fn take_victim(&mut self, block: u32) {
        let blocks = &self.blocks;
        super::victims::victim_index(
            &mut self.victims,
            &mut self.group_victims,
            self.group_blocks,
            block,
        )
        .remove(block, blocks);
    }
}
