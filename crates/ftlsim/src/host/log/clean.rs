//! Cleaning: victims chosen by the shared victim policies (`segments`),
//! their valid pages read below and appended again, the segment freed (and
//! trimmed below).

use super::Coordination;
use super::{LogLayer, PageRun, NONE};
use crate::error::SimError;
use crate::flash::BlockState;
use crate::request::{BlockDevice, Hint};

impl LogLayer {
    /// Cleans victims until more than `free_segments_high` segments are
    /// free, or stream `log` has room and the low watermark is met.
    pub(super) fn clean(
        &mut self,
        log: usize,
        below: &mut dyn BlockDevice,
    ) -> Result<(), SimError> {
        let defer = self.cfg.coordination == Coordination::DeferLower;
        if defer {
            self.flush_pending(below)?;
            below.hint(Hint::UpperGcStarted);
        }
        self.cleaning = true;
        let result = self.clean_until_done(log, below);
        self.cleaning = false;
        if defer {
            let flushed = self.flush_pending(below);
            below.hint(Hint::UpperGcEnded);
            flushed?;
        }
        result
    }

    fn clean_until_done(
        &mut self,
        log: usize,
        below: &mut dyn BlockDevice,
    ) -> Result<(), SimError> {
        let seg_pages = self.layout.segment_pages;
        let mut fruitless = 0u32;
        loop {
            let free = self.free.len() as u32;
            let room =
                self.open[log] != NONE && self.segs.write_ptr[self.open[log] as usize] < seg_pages;
            if free > self.cfg.free_segments_high || (room && free >= self.cfg.free_segments_low) {
                return Ok(());
            }
            let Some(victim) = self.victims.choose(&self.segs, &mut self.rng, self.now) else {
                return Err(SimError::DeviceFull {
                    closed_blocks: 0,
                    free_blocks: free,
                });
            };
            if self.segs.valid[victim as usize] == seg_pages {
                // Nothing to gain; a policy that chooses the emptiest (greedy)
                // says nothing can be.
                fruitless += 1;
                if self.victims.emptiest_first() || fruitless > self.layout.segments {
                    self.victims.insert(victim, &self.segs);
                    return Err(SimError::DeviceFull {
                        closed_blocks: self.victims.len(),
                        free_blocks: free,
                    });
                }
            } else {
                fruitless = 0;
            }
            self.reclaim(victim, below)?;
        }
    }

    /// Moves the valid pages of `victim` (out of the victim index) to the
    /// head of their append stream and frees it. The pages are staged first
    /// (read below), so the victim itself may take them back: no hidden
    /// reserve, as in the FTL and the analytical models.
    fn reclaim(&mut self, victim: u32, below: &mut dyn BlockDevice) -> Result<(), SimError> {
        self.flush_pending(below)?;
        let seg_pages = self.layout.segment_pages;
        let first = victim * seg_pages;
        let v = victim as usize;
        let log = usize::from(self.segs.stream[v]);
        self.staged.clear();
        let mut run = PageRun::default();
        for lp in first..first + seg_pages {
            let lpn = self.p2l[lp as usize];
            if lpn != NONE {
                // Its mapping entry is rewritten below: start fetching it now.
                crate::mem::prefetch(&self.l2p, lpn as usize);
                let content = self.content.as_ref().map_or(0, |c| c[lp as usize]);
                self.staged.push((lpn, content));
                if let Some((start, pages)) = run.push(lp) {
                    self.read_below(start, pages, below)?;
                }
            }
        }
        if let Some((start, pages)) = run.take() {
            self.read_below(start, pages, below)?;
        }
        let valid = self.staged.len() as u32;
        assert_eq!(
            valid, self.segs.valid[v],
            "segment {victim}: valid count disagrees with the mapping"
        );
        self.stats.gc_count += 1;
        self.stats.gc_copy_pages += u64::from(valid);
        for &(lpn, _) in &self.staged {
            debug_assert_eq!(self.l2p[lpn as usize] / seg_pages, victim);
            self.l2p[lpn as usize] = NONE;
        }
        self.p2l[first as usize..(first + seg_pages) as usize].fill(NONE);
        self.segs.valid[v] = 0;
        self.segs.write_ptr[v] = 0;
        self.segs.state[v] = BlockState::Free;
        self.segs.erase_count[v] += 1;
        self.free.push_back(victim);
        // A zone must be reset before it is written again; on a
        // conventional device the trim tells the FTL the pages are dead.
        if self.cfg.trim || self.zoned {
            self.trim_below(u64::from(first), seg_pages, below)?;
        }
        let staged = std::mem::take(&mut self.staged);
        for &(lpn, content) in &staged {
            self.append(log, u64::from(lpn), content, false, below)?;
            self.mark_node_dirty(u64::from(lpn));
        }
        self.staged = staged;
        Ok(())
    }
}
