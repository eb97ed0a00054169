//! 2R, two regions (Haas and Leis, SSD-iq; `sim/TwoR.hpp` of
//! `gabriel-haas/ssdiq-pub`, its "2r-greedy"). User writes fill the normal
//! region (class 0); GC compacts its victims into the cold region (class 1),
//! whichever region they came from. The placement is SepGC's; what makes it
//! 2R is where GC takes its victim:
//!
//! * the cold region, if it holds at least `min_region_garbage_blocks`
//!   blocks' worth of invalid pages and either the normal region holds less
//!   than that or the normal region's emptiest block is no emptier than the
//!   cold region's (`garbageCollectColdRegion`: a tie goes to cold);
//! * otherwise the normal region;
//! * greedily within the region (the regime's score).
//!
//! Not modelled: ssdiq compacts victims until a whole block is free
//! (`compactUntilFreeBlock`); ftlsim's GC reclaims one victim at a time and
//! asks again, which gives the same victims while the region stays the
//! same.
//!
//! With `victim = "fifo"` (ssdiq's "2r-fifo") the placement is the same,
//! and GC's victim comes from a second-chance scan of every sealed block,
//! of either region, in the order sealed (`fifo_scan.rs`).

use super::fifo_scan::FifoScan;
use super::{
    ClassBlocks, GcWrite, PlacementScheme, Reclaimed, SchemeSpace, UserWrite, VictimChoice,
    VictimOrder,
};
use crate::config::{PlacementSchemeConfig, TworrVictim};
use crate::flash::Lpn;

const NORMAL: u16 = 0;
const COLD: u16 = 1;

#[derive(Debug, Clone)]
pub(crate) struct Tworr {
    block_pages: u64,
    /// Invalid pages a region must hold to be collected before the other.
    min_garbage_pages: u64,
    /// 2R-FIFO's scan; `None` for 2R-greedy.
    fifo: Option<FifoScan>,
}

impl PlacementScheme for Tworr {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Tworr {
            min_region_garbage_blocks,
            victim,
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        let block_pages = u64::from(space.block_pages);
        Self {
            block_pages,
            min_garbage_pages: u64::from(min_region_garbage_blocks) * block_pages,
            fifo: (victim == TworrVictim::Fifo).then(|| FifoScan::new(space.block_pages)),
        }
    }

    fn user_class(&mut self, _: &UserWrite) -> u16 {
        NORMAL
    }

    fn gc_class(&mut self, _: &GcWrite) -> u16 {
        COLD
    }

    fn sealed(&mut self, block: u32, _class: u16, _valid_pages: &[Lpn]) {
        if let Some(f) = &mut self.fifo {
            f.sealed(block);
        }
    }

    fn reclaimed(&mut self, block: &Reclaimed) {
        if let Some(f) = &mut self.fifo {
            f.reclaimed(block.block);
        }
    }

    fn chooses_victims(&self) -> bool {
        true
    }

    fn victim_block(&mut self, valid_pages: &dyn Fn(u32) -> Option<u32>) -> Option<u32> {
        self.fifo.as_mut()?.victim(valid_pages)
    }

    fn state_bytes(&self) -> usize {
        self.fifo.as_ref().map_or(0, FifoScan::state_bytes)
    }

    fn victim_choice(&mut self, view: &[ClassBlocks]) -> Option<VictimChoice> {
        let region = pick_region(
            &view[usize::from(NORMAL)],
            &view[usize::from(COLD)],
            self.block_pages,
            self.min_garbage_pages,
        );
        Some(VictimChoice::class_range(
            region,
            region + 1,
            VictimOrder::Score,
        ))
    }
}

/// The region GC collects (ssdiq's `garbageCollectColdRegion`).
fn pick_region(
    normal: &ClassBlocks,
    cold: &ClassBlocks,
    block_pages: u64,
    min_garbage_pages: u64,
) -> u16 {
    let invalid = |c: &ClassBlocks| u64::from(c.sealed_blocks) * block_pages - c.valid_pages;
    if cold.sealed_blocks == 0 || invalid(cold) < min_garbage_pages {
        return NORMAL;
    }
    if normal.sealed_blocks == 0 || invalid(normal) < min_garbage_pages {
        return COLD;
    }
    if normal.fewest_valid < cold.fewest_valid {
        NORMAL
    } else {
        COLD
    }
}

#[cfg(test)]
mod tests {
    use super::{pick_region, ClassBlocks, COLD, NORMAL};

    fn region(sealed_blocks: u32, valid_pages: u64, fewest_valid: u32) -> ClassBlocks {
        ClassBlocks {
            sealed_blocks,
            valid_pages,
            fewest_valid,
        }
    }

    #[test]
    fn regions_as_ssdiq_picks_them() {
        // Blocks of 8 pages, a block's worth of garbage needed.
        let pick = |n: &ClassBlocks, c: &ClassBlocks| pick_region(n, c, 8, 8);
        // No cold block yet, or too little cold garbage: normal.
        assert_eq!(pick(&region(4, 20, 2), &region(0, 0, u32::MAX)), NORMAL);
        assert_eq!(pick(&region(4, 20, 2), &region(2, 9, 1)), NORMAL);
        // Enough cold garbage and too little normal garbage: cold.
        assert_eq!(pick(&region(4, 25, 5), &region(2, 8, 3)), COLD);
        // Both enough: the emptier best block, a tie to cold.
        assert_eq!(pick(&region(4, 20, 2), &region(2, 8, 3)), NORMAL);
        assert_eq!(pick(&region(4, 20, 3), &region(2, 8, 3)), COLD);
        assert_eq!(pick(&region(4, 20, 4), &region(2, 8, 3)), COLD);
    }
}
