//! The FTL's victim indexes: one per reclaim group (one in all without
//! FDP reclaim groups), each a `segments::VictimIndex` over the block table.

use super::Ssd;
use crate::segments::VictimIndex;

impl Ssd {
    /// Puts a full block into its reclaim group's victim index.
    #[inline]
    pub(super) fn victim_insert(&mut self, block: u32) {
        victim_index(
            &mut self.victims,
            &mut self.group_victims,
            self.group_blocks,
            block,
        )
        .insert(block, &self.blocks);
    }

    /// GC's next victim in reclaim group `group` (0 without FDP).
    #[inline]
    pub(super) fn choose_victim(&mut self, group: u32) -> Option<u32> {
        let index = match group {
            0 => &mut self.victims,
            g => &mut self.group_victims[g as usize - 1],
        };
        index.choose(&self.blocks, &mut self.gc_rng, self.now_pages)
    }

    pub(super) fn group_victims_mut(&mut self, group: u32) -> &mut VictimIndex {
        match group {
            0 => &mut self.victims,
            g => &mut self.group_victims[g as usize - 1],
        }
    }

    /// Full blocks in every victim index.
    pub(super) fn victims_len(&self) -> u32 {
        self.victims.len() + self.group_victims.iter().map(VictimIndex::len).sum::<u32>()
    }

    /// The victim index holding `block` (its reclaim group's).
    #[inline(always)]
    pub(super) fn victim_index_of(&self, block: u32) -> &VictimIndex {
        if block < self.group_blocks {
            &self.victims
        } else {
            &self.group_victims[(block / self.group_blocks) as usize - 1]
        }
    }
}

/// The victim index of `block`'s reclaim group: `first` for group 0 (every
/// block without FDP reclaim groups, so one compare and no division),
/// `others[g - 1]` for group g. Fields, not `&mut self`, so that callers
/// can pass the block table beside it.
#[inline(always)]
pub(super) fn victim_index<'a>(
    first: &'a mut VictimIndex,
    others: &'a mut [VictimIndex],
    group_blocks: u32,
    block: u32,
) -> &'a mut VictimIndex {
    if block < group_blocks {
        first
    } else {
        &mut others[(block / group_blocks) as usize - 1]
    }
}
