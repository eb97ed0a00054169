//! The FTL's victim indexes: one per reclaim group (one in all without
//! FDP reclaim groups), each a `segments::VictimIndex` over the block table.

use super::Ssd;
use crate::segments::VictimIndex;

/// The best of the blocks offered by a score, higher first, ties to the
/// block opened first (the lower sequence number): how the log regime and a
/// scheme's victim choice scan for SepBIT's victim.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct BestBlock {
    best: Option<(f64, u64, u32)>,
}

impl BestBlock {
    /// Offers `block`, opened as `seq`, at `score`.
    #[inline]
    pub(crate) fn offer(&mut self, score: f64, seq: u64, block: u32) {
        let better = match self.best {
            None => true,
            Some((s, q, _)) => score > s || (score == s && seq < q),
        };
        if better {
            self.best = Some((score, seq, block));
        }
    }

    /// The best block offered, if any.
    pub(crate) fn block(self) -> Option<u32> {
        self.best.map(|(_, _, b)| b)
    }
}

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

    /// GC's next victim in reclaim group `group` (0 without FDP). A
    /// placement scheme with the victim hook may choose it instead (one
    /// test per GC, and no scan, without such a scheme).
    #[inline]
    pub(super) fn choose_victim(&mut self, group: u32) -> Option<u32> {
        if self.placement.chooses_victims() {
            if let Some(victim) = self.scheme_victim(group) {
                return Some(victim);
            }
        }
        let index = match group {
            0 => &mut self.victims,
            g => &mut self.group_victims[g as usize - 1],
        };
        index.choose(&self.blocks, &mut self.gc_rng, self.now_pages)
    }

    /// The placement scheme's victim in `group`, taken out of its victim
    /// index; by score, greedy (the fewest valid pages, a block with an
    /// invalid one) among the classes it names (`schemes/victim_choice.rs`),
    /// or `None` for the policy's own.
    #[cold]
    #[inline(never)]
    fn scheme_victim(&mut self, group: u32) -> Option<u32> {
        let first = group * self.group_blocks;
        let end = (first + self.group_blocks).min(self.geo.blocks);
        let (blocks, ppb) = (&self.blocks, self.geo.pages_per_block);
        let classes = self.placement.classes_mut()?;
        let victim = classes.scheme_victim(blocks, first..end, |b| {
            let valid = blocks.valid[b];
            (valid < ppb).then(|| -f64::from(valid))
        })?;
        self.take_victim(victim);
        Some(victim)
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
