//! The victim hook: a scheme that groups its blocks into regions (2R) or a
//! chain of groups (MiDAS) says where GC takes its next victim. It sees, per
//! class, the sealed blocks and their valid pages (`ClassBlocks`) and names
//! a set of classes and an order (`VictimChoice`); the regime picks the
//! victim among the sealed blocks of those classes, by its own score
//! (`Score`) or the block opened first (`Oldest`). A scheme without the
//! hook (`None`, the default) leaves the regime's victim as it was, and the
//! regime does not even scan: the hook is asked only when the scheme
//! `chooses_victims`. A scheme that keeps its own order of blocks (2R-FIFO)
//! may name the block itself first (`victim_block`, given each block's
//! valid pages when GC may take it).
//!
//! The scan is O(blocks) per GC, as the log regime's own victim search is;
//! it runs only for the schemes with the hook.

use std::ops::Range;

use super::Classes;
use crate::flash::{BlockState, BlockTable};
use crate::ftl::victims::BestBlock;

/// The sealed (full) blocks of one class, as GC is about to choose.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ClassBlocks {
    pub sealed_blocks: u32,
    /// Valid pages in them.
    pub valid_pages: u64,
    /// The fewest valid pages of one of them (`u32::MAX` when none).
    pub fewest_valid: u32,
}

/// How the victim is picked among the chosen classes' sealed blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VictimOrder {
    /// The regime's score: greedy (fewest valid pages) in the SSD regime,
    /// the log regime's greedy or cost-benefit with its threshold there.
    Score,
    /// The block opened first (a FIFO), whatever its valid pages.
    Oldest,
}

/// Where GC takes its next victim: the classes of `classes` (bit `c` for
/// class `c`; at most 64 classes, `MAX_CLASSES`), in `order`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VictimChoice {
    pub classes: u64,
    pub order: VictimOrder,
}

impl VictimChoice {
    /// Classes `from..to` (`to` at most 64).
    pub(crate) fn class_range(from: u16, to: u16, order: VictimOrder) -> Self {
        let bits = |n: u16| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        Self {
            classes: bits(to) & !bits(from),
            order,
        }
    }

    fn has(&self, class: u16) -> bool {
        class < 64 && self.classes & (1 << class) != 0
    }
}

impl Classes {
    /// Whether the scheme chooses where GC takes its victims.
    #[inline]
    pub(crate) fn chooses_victims(&self) -> bool {
        self.chooses_victims
    }

    /// The scheme's victim among the full blocks of `range`, or `None` for
    /// the regime's own (the scheme declined, or none of its classes' blocks
    /// qualifies). `score` is the regime's for a full block, higher first,
    /// `None` for a block the regime would not collect; ties go to the
    /// block opened first.
    pub(crate) fn scheme_victim(
        &mut self,
        blocks: &BlockTable,
        range: Range<u32>,
        score: impl Fn(usize) -> Option<f64>,
    ) -> Option<u32> {
        let takeable = |b: u32| {
            (range.contains(&b) && blocks.state[b as usize] == BlockState::Full)
                .then(|| blocks.valid[b as usize])
        };
        if let Some(victim) = self.scheme.victim_block(&takeable) {
            return Some(victim);
        }
        self.view.clear();
        self.view.resize(
            usize::from(self.classes),
            ClassBlocks {
                fewest_valid: u32::MAX,
                ..ClassBlocks::default()
            },
        );
        for b in range.clone() {
            let i = b as usize;
            if blocks.state[i] != BlockState::Full {
                continue;
            }
            let v = &mut self.view[usize::from(self.block_class[i])];
            v.sealed_blocks += 1;
            v.valid_pages += u64::from(blocks.valid[i]);
            v.fewest_valid = v.fewest_valid.min(blocks.valid[i]);
        }
        let choice = self.scheme.victim_choice(&self.view)?;
        let mut best = BestBlock::default();
        for b in range {
            let i = b as usize;
            if blocks.state[i] != BlockState::Full || !choice.has(self.block_class[i]) {
                continue;
            }
            let s = match choice.order {
                VictimOrder::Oldest => 0.0,
                VictimOrder::Score => match score(i) {
                    Some(s) => s,
                    None => continue,
                },
            };
            best.offer(s, blocks.seq[i], b);
        }
        best.block()
    }
}

#[cfg(test)]
mod tests {
    use super::{VictimChoice, VictimOrder};

    #[test]
    fn class_ranges_are_the_bits_named() {
        let c = VictimChoice::class_range(1, 3, VictimOrder::Score);
        assert_eq!(c.classes, 0b110);
        assert!(!c.has(0) && c.has(1) && c.has(2) && !c.has(3));
        assert_eq!(
            VictimChoice::class_range(0, 64, VictimOrder::Oldest).classes,
            u64::MAX
        );
        assert_eq!(
            VictimChoice::class_range(63, 64, VictimOrder::Oldest).classes,
            1 << 63
        );
    }
}
