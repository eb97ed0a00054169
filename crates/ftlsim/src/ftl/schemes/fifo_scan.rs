//! 2R-FIFO's victim order (`sim/TwoR.hpp` of `gabriel-haas/ssdiq-pub`,
//! `selectVictimBlocksFIFO`): every sealed block, of either region, in the
//! order it was sealed, and a scan cursor that stays where the last GC
//! left it. From the cursor the first block whose utilization (valid pages
//! over the block's pages) is below a bound is the victim. Each time the
//! scan has gone `SCAN_DEPTH` of the list since it last started over, it
//! starts over from the list's head with the bound raised by `BOUND_STEP`
//! (the second chance: a block passed over once may be taken at the next
//! pass). The bound is `FIRST_BOUND` for the first GC and `BOUND` after
//! each (ssdiq resets it at the end of every GC).
//!
//! ssdiq takes victims until they hold a block's worth of invalid pages
//! and compacts them together; ftlsim reclaims one victim per GC and asks
//! again, so a bound raised within one of ssdiq's GCs lasts for its next
//! victims there, here only until the victim it finds. A scan that reaches
//! the list's end without a victim starts over as ssdiq's next GC would.

use std::collections::VecDeque;

/// ssdiq's `FIFO_SCAN_DEPTH`: the share of the list one pass scans.
const SCAN_DEPTH: f64 = 0.7;
/// ssdiq's `BLK_UTIL` as its constructor sets it.
const FIRST_BOUND: f64 = 0.5;
/// ssdiq's `BLK_UTIL` after every GC.
const BOUND: f64 = 0.7;
/// ssdiq's raise of `BLK_UTIL` per pass.
const BOUND_STEP: f64 = 0.05;

#[derive(Debug, Clone)]
pub(super) struct FifoScan {
    /// Sealed blocks, the first sealed first.
    list: VecDeque<u32>,
    /// The next block the scan looks at (an index into `list`).
    cursor: usize,
    /// Blocks scanned since the scan last started over.
    steps: usize,
    bound: f64,
    block_pages: f64,
}

impl FifoScan {
    pub(super) fn new(block_pages: u32) -> Self {
        Self {
            list: VecDeque::new(),
            cursor: 0,
            steps: 0,
            bound: FIRST_BOUND,
            block_pages: f64::from(block_pages),
        }
    }

    /// `block` is full: the list's tail.
    pub(super) fn sealed(&mut self, block: u32) {
        self.list.push_back(block);
    }

    /// `block` was reclaimed: out of the list, the cursor staying on the
    /// block it pointed at (on the next one if it pointed at `block`).
    pub(super) fn reclaimed(&mut self, block: u32) {
        if let Some(i) = self.list.iter().position(|&b| b == block) {
            self.list.remove(i);
            if i < self.cursor {
                self.cursor -= 1;
            }
        }
    }

    /// The next victim: from the cursor, the first block whose valid pages
    /// (`valid_pages`: `None` for a block GC may not take now) put it below
    /// the bound. `None` when the list holds no block GC may take.
    pub(super) fn victim(&mut self, valid_pages: &dyn Fn(u32) -> Option<u32>) -> Option<u32> {
        let len = self.list.len();
        // Past a bound of 1 every block qualifies: at most eleven raises
        // from 0.5, each after at most the list's length of steps, and a
        // pass from the head before each. The cap only guards the bound.
        let mut left = len * 32 + 64;
        while left > 0 {
            left -= 1;
            if self.cursor >= len {
                if len == 0 {
                    return None;
                }
                self.cursor = 0;
                self.steps = 0;
            }
            let threshold = (SCAN_DEPTH * len as f64) as usize;
            let block = self.list[self.cursor];
            let chosen =
                valid_pages(block).is_some_and(|v| f64::from(v) / self.block_pages < self.bound);
            self.cursor += 1;
            self.steps += 1;
            if self.steps >= threshold {
                self.cursor = 0;
                self.steps = 0;
                self.bound += BOUND_STEP;
            }
            if chosen {
                self.bound = BOUND;
                return Some(block);
            }
        }
        None
    }

    pub(super) fn state_bytes(&self) -> usize {
        self.list.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::FifoScan;

    fn scan(blocks: &[u32]) -> FifoScan {
        let mut f = FifoScan::new(10);
        for &b in blocks {
            f.sealed(b);
        }
        f
    }

    /// ssdiq's rule on a list of ten blocks of ten pages: the first GC
    /// takes the first block under half full from the head; the cursor
    /// stays after it, and the next GC, under 0.7, goes on from there.
    #[test]
    fn the_scan_goes_on_from_where_it_stopped() {
        // Block b holds valid[b] valid pages.
        let valid = [9, 6, 4, 8, 9, 6, 9, 9, 3, 9];
        let v = |b: u32| Some(valid[b as usize]);
        let mut f = scan(&(0..10).collect::<Vec<_>>());
        // Bound 0.5: block 1 (0.6) is passed over, block 2 (0.4) taken.
        assert_eq!(f.victim(&v), Some(2));
        f.reclaimed(2);
        // Bound 0.7 from block 3 on: 5 (0.6).
        assert_eq!(f.victim(&v), Some(5));
        f.reclaimed(5);
        // Taking 5 was the sixth step of the pass, 0.7 of the nine blocks
        // then listed: the next GC starts over from the head (under 0.7
        // again, as ssdiq resets it after each GC) and takes block 1 (0.6).
        assert_eq!(f.victim(&v), Some(1));
    }

    /// A pass of `SCAN_DEPTH` of the list without a victim starts over from
    /// the head with a bound 0.05 higher, until a block qualifies.
    #[test]
    fn a_fruitless_pass_raises_the_bound() {
        let valid = [8u32; 10];
        let v = |b: u32| Some(valid[b as usize]);
        let mut f = scan(&(0..10).collect::<Vec<_>>());
        // 0.8 full: none qualifies until the bound passes 0.8, after six
        // or seven passes of seven blocks; each raise starts the scan over
        // from the head, so the first block taken is the head.
        assert_eq!(f.victim(&v), Some(0));
        // Blocks GC may not take are passed over; none at all: `None`.
        assert_eq!(f.victim(&|_| None), None);
        assert_eq!(FifoScan::new(10).victim(&v), None);
    }

    #[test]
    fn a_reclaimed_block_leaves_the_list_and_the_cursor_keeps_its_place() {
        let mut f = scan(&[4, 5, 6, 7]);
        f.cursor = 2;
        f.reclaimed(5);
        assert_eq!(
            (f.list.iter().copied().collect::<Vec<_>>(), f.cursor),
            (vec![4, 6, 7], 1)
        );
        f.reclaimed(6);
        assert_eq!(
            (f.list.iter().copied().collect::<Vec<_>>(), f.cursor),
            (vec![4, 7], 1)
        );
        f.reclaimed(9);
        assert_eq!(f.list.len(), 2);
    }
}
