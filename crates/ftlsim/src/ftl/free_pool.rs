//! The pool of erased blocks, ordered by erase count so that allocation can be
//! wear-aware: least-erased first for ordinary data, most-erased first for data
//! expected to stay put (a cold zone).

use std::collections::BTreeSet;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WearPreference {
    LeastErased,
    MostErased,
}

#[derive(Debug, Clone, Default)]
pub struct FreePool {
    /// (erase count, block): the set order is the allocation order; the block
    /// number breaks ties deterministically.
    by_wear: BTreeSet<(u32, u32)>,
}

impl FreePool {
    pub fn len(&self) -> u32 {
        self.by_wear.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.by_wear.is_empty()
    }

    pub fn insert(&mut self, block: u32, erase_count: u32) {
        let inserted = self.by_wear.insert((erase_count, block));
        debug_assert!(inserted, "block {block} inserted twice into the free pool");
    }

    pub fn take(&mut self, preference: WearPreference) -> Option<u32> {
        let entry = match preference {
            WearPreference::LeastErased => self.by_wear.pop_first(),
            WearPreference::MostErased => self.by_wear.pop_last(),
        };
        entry.map(|(_, block)| block)
    }

    /// Takes a given block out (a zoned device writes its blocks in place).
    pub fn remove(&mut self, block: u32, erase_count: u32) -> bool {
        self.by_wear.remove(&(erase_count, block))
    }

    pub fn contains(&self, block: u32, erase_count: u32) -> bool {
        self.by_wear.contains(&(erase_count, block))
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.by_wear.iter().map(|&(_, b)| b)
    }
}
