//! The pool of erased blocks, ordered by erase count so that allocation can be
//! wear-aware: least-erased first for ordinary data, most-erased first for data
//! expected to stay put (a cold zone).
//!
//! Blocks fall in groups of consecutive numbers (FDP reclaim groups), each
//! allocated from on its own; without FDP there is one group.

use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WearPreference {
    LeastErased,
    MostErased,
}

#[derive(Debug, Clone)]
pub struct FreePool {
    /// Per group, (erase count, block): the set order is the allocation
    /// order; the block number breaks ties deterministically.
    by_wear: Vec<BTreeSet<(u32, u32)>>,
    /// Blocks per group: block b is in group b / group_blocks.
    group_blocks: u32,
    /// Free blocks in all groups, kept so that `len` and `is_empty` (asked
    /// for every GC copy) read one field.
    free: u32,
}

impl Default for FreePool {
    /// One group holding every block.
    fn default() -> Self {
        Self::new(1, u32::MAX)
    }
}

impl FreePool {
    pub fn new(groups: u32, group_blocks: u32) -> Self {
        Self {
            by_wear: vec![BTreeSet::new(); groups.max(1) as usize],
            group_blocks: group_blocks.max(1),
            free: 0,
        }
    }

    #[inline]
    fn group(&self, block: u32) -> usize {
        (block / self.group_blocks) as usize
    }

    /// Free blocks in every group.
    #[inline]
    pub fn len(&self) -> u32 {
        self.free
    }

    /// Free blocks in `group`.
    #[inline]
    pub fn len_in(&self, group: u32) -> u32 {
        self.by_wear[group as usize].len() as u32
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.free == 0
    }

    /// Groups, 1 without FDP reclaim groups.
    pub fn groups(&self) -> u32 {
        self.by_wear.len() as u32
    }

    /// The group with the fewest free blocks (the lowest on a tie).
    pub fn neediest_group(&self) -> u32 {
        if self.by_wear.len() == 1 {
            return 0;
        }
        (0..self.groups())
            .min_by_key(|&g| self.len_in(g))
            .unwrap_or(0)
    }

    pub fn insert(&mut self, block: u32, erase_count: u32) {
        let g = self.group(block);
        let inserted = self.by_wear[g].insert((erase_count, block));
        debug_assert!(inserted, "block {block} inserted twice into the free pool");
        self.free += u32::from(inserted);
    }

    /// Takes a block of `group`.
    pub fn take(&mut self, group: u32, preference: WearPreference) -> Option<u32> {
        let set = &mut self.by_wear[group as usize];
        let entry = match preference {
            WearPreference::LeastErased => set.pop_first(),
            WearPreference::MostErased => set.pop_last(),
        };
        self.free -= u32::from(entry.is_some());
        entry.map(|(_, block)| block)
    }

    /// Takes a given block out (a zoned device writes its blocks in place).
    pub fn remove(&mut self, block: u32, erase_count: u32) -> bool {
        let g = self.group(block);
        let removed = self.by_wear[g].remove(&(erase_count, block));
        self.free -= u32::from(removed);
        removed
    }

    pub fn contains(&self, block: u32, erase_count: u32) -> bool {
        self.by_wear[self.group(block)].contains(&(erase_count, block))
    }

    /// Empties every group, keeping the grouping.
    pub fn clear(&mut self) {
        self.by_wear.iter_mut().for_each(BTreeSet::clear);
        self.free = 0;
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.by_wear.iter().flatten().map(|&(_, b)| b)
    }
}
