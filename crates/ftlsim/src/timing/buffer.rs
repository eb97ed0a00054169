//! The controller's DRAM write buffer (`timing.write_buffer_pages`).
//!
//! A write is acknowledged once its pages are in the buffer, not when they
//! are programmed: its latency is the controller overhead, plus the wait
//! for room when the buffer is full. Its flash work (the programs, and any
//! GC they trigger) starts when the data is in, and each page is *dirty*
//! until the request's flash work has ended (the drain). A drained page
//! stays in the buffer, *clean*, until its slot is needed: room for a new
//! write is taken from the oldest clean page first, and only when none is
//! left does the write wait for the earliest drain (MQSim's data cache
//! keeps written pages the same way). A host read of a page in the buffer,
//! dirty or clean, is served from DRAM and costs no flash read. A flush
//! completes when everything buffered has drained.
//!
//! Pages are tracked by the physical page they are programmed to: a read of
//! an LPN maps to the PPN its latest write went to, so a read finds the
//! buffered copy exactly when the FTL's op log asks for that PPN. A page
//! that GC moves while still buffered is read from flash at its new place
//! (rare, and conservative). An erase drops its block's pages from the
//! buffer's index, so a page programmed there later is never taken for
//! the old one.
//!
//! What the buffer loses at a power cut is the power-loss model's business
//! (`ftl.write_buffer_pages`, docs/power-loss.md); this module is only time.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use super::Engine;
use crate::ftl::FlashOp;
use crate::request::Op;

#[derive(Debug, Clone)]
pub struct WriteBuffer {
    capacity_pages: usize,
    /// Pages per FTL block: the pages an erase drops.
    pages_per_block: u32,
    /// When each dirty page's drain ends, with its PPN: a min-heap, so the
    /// pages that become clean first are on top.
    draining: BinaryHeap<Reverse<(u64, u32)>>,
    /// Drained pages still buffered, oldest first (the next to give up
    /// their slots), with their drain ends.
    clean: VecDeque<(u32, u64)>,
    /// PPN -> drain end of every page in the buffer (read hits). An entry
    /// of `draining` or `clean` whose PPN maps to another end is stale
    /// (erased, or buffered again since).
    resident: HashMap<u32, u64>,
    /// When the last page buffered so far drains (a flush waits for it).
    drained_at: u64,
    /// Reads served from the buffer, pages.
    read_hit_pages: u64,
    /// Writes that found the buffer full and waited for room, and how long.
    full_waits: u64,
    full_wait_ns: u64,
}

impl WriteBuffer {
    pub fn new(capacity_pages: u32, pages_per_block: u32) -> Self {
        assert!(capacity_pages > 0, "validated: a buffer holds a page");
        Self {
            capacity_pages: capacity_pages as usize,
            pages_per_block,
            draining: BinaryHeap::with_capacity(capacity_pages as usize),
            clean: VecDeque::with_capacity(capacity_pages as usize),
            resident: HashMap::with_capacity(capacity_pages as usize),
            drained_at: 0,
            read_hit_pages: 0,
            full_waits: 0,
            full_wait_ns: 0,
        }
    }

    pub fn reset(&mut self) {
        self.draining.clear();
        self.clean.clear();
        self.resident.clear();
        self.drained_at = 0;
        self.read_hit_pages = 0;
        self.full_waits = 0;
        self.full_wait_ns = 0;
    }

    /// A request's completion with the write buffer on. A write is
    /// acknowledged once its pages are in the buffer; its flash work starts
    /// then and its pages stay buffered until that work has ended. A read
    /// skips the flash reads of pages still buffered. A flush waits for
    /// everything buffered to drain.
    /// `ops` are the request's flash operations (from the FTL's op log);
    /// `start_at` is its issue time plus the controller overhead. Returns
    /// when the host sees it complete.
    #[inline(never)]
    pub fn complete(
        &mut self,
        engine: &mut Engine,
        ops: &mut Vec<FlashOp>,
        op: Op,
        pages: u32,
        start_at: u64,
    ) -> u64 {
        self.forget_erased(ops);
        match op {
            Op::Write => {
                // The engine's clock is the issue time; the data is in later.
                let in_at = self.admit(start_at, pages);
                let drained = engine.schedule_at(ops, start_at, in_at);
                for op in ops.iter() {
                    if let FlashOp::Program { ppn, gc: false } = *op {
                        self.hold(ppn.get(), drained);
                    }
                }
                in_at
            }
            Op::Read => {
                ops.retain(|op| match *op {
                    FlashOp::Read { ppn, gc: false } => !self.read_hit(ppn.get()),
                    _ => true,
                });
                engine.schedule(ops, start_at)
            }
            Op::Flush => engine.schedule(ops, start_at).max(self.drained_at()),
            _ => engine.schedule(ops, start_at),
        }
    }

    /// Pages drained by `now` become clean.
    fn release_until(&mut self, now: u64) {
        while let Some(&Reverse((end, ppn))) = self.draining.peek() {
            if end > now {
                break;
            }
            self.draining.pop();
            self.clean.push_back((ppn, end));
        }
    }

    /// Gives up a slot: removes the page from the index unless the PPN is
    /// buffered again under a newer drain end.
    fn evict(&mut self, ppn: u32, end: u64) {
        if self.resident.get(&ppn) == Some(&end) {
            self.resident.remove(&ppn);
        }
    }

    /// When a write of `pages` issued at `now` is in the buffer: at once if
    /// there is room (taken from clean pages, oldest first), else when
    /// enough dirty pages have drained. A request larger than the whole
    /// buffer waits for it to empty.
    pub fn admit(&mut self, now: u64, pages: u32) -> u64 {
        self.release_until(now);
        let need = (pages as usize).min(self.capacity_pages);
        let mut in_at = now;
        while self.draining.len() + self.clean.len() + need > self.capacity_pages {
            if let Some((ppn, end)) = self.clean.pop_front() {
                self.evict(ppn, end);
                continue;
            }
            let Reverse((end, ppn)) = self.draining.pop().expect("over capacity: not empty");
            self.evict(ppn, end);
            in_at = in_at.max(end);
        }
        if in_at > now {
            self.full_waits += 1;
            self.full_wait_ns += in_at - now;
        }
        in_at
    }

    /// Records that the page programmed to `ppn` is buffered until `drain_end`.
    pub fn hold(&mut self, ppn: u32, drain_end: u64) {
        self.draining.push(Reverse((drain_end, ppn)));
        self.resident.insert(ppn, drain_end);
        self.drained_at = self.drained_at.max(drain_end);
    }

    /// Whether a host read of `ppn` is served from the buffer.
    pub fn read_hit(&mut self, ppn: u32) -> bool {
        let hit = self.resident.contains_key(&ppn);
        self.read_hit_pages += u64::from(hit);
        hit
    }

    /// Drops the pages of erased blocks from the index: what is programmed
    /// there next is other data. Their slots are given back as the queues
    /// reach them.
    pub fn forget_erased(&mut self, ops: &[FlashOp]) {
        for op in ops {
            if let FlashOp::Erase { block } = *op {
                if self.resident.is_empty() {
                    return;
                }
                let first = block * self.pages_per_block;
                for ppn in first..first + self.pages_per_block {
                    self.resident.remove(&ppn);
                }
            }
        }
    }

    /// When everything buffered so far has drained.
    pub fn drained_at(&self) -> u64 {
        self.drained_at
    }

    pub fn capacity_pages(&self) -> u32 {
        self.capacity_pages as u32
    }

    pub fn read_hit_pages(&self) -> u64 {
        self.read_hit_pages
    }

    /// Writes that waited for room, and their total wait.
    pub fn full_waits(&self) -> (u64, u64) {
        (self.full_waits, self.full_wait_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_enter_at_once_until_full_then_wait_for_the_earliest_drain() {
        let mut b = WriteBuffer::new(2, 8);
        assert_eq!(b.admit(0, 1), 0);
        b.hold(10, 500);
        assert_eq!(b.admit(0, 1), 0);
        b.hold(11, 300);
        // Full: the next page waits for the first slot to free (300).
        assert_eq!(b.admit(100, 1), 300);
        b.hold(12, 900);
        assert_eq!(b.full_waits(), (1, 200));
        // 11 gave its slot to 12; 10 is still buffered, dirty then clean.
        assert!(b.read_hit(10));
        assert!(!b.read_hit(11));
        assert!(b.read_hit(12));
        assert_eq!(b.read_hit_pages(), 2);
        assert_eq!(b.drained_at(), 900);
        // At 600, 10 is clean: a write takes its slot at once.
        assert_eq!(b.admit(600, 1), 600);
        assert!(!b.read_hit(10));
        b.hold(13, 1000);
        // A request larger than the buffer waits for it to empty.
        assert_eq!(b.admit(700, 5), 1000);
    }

    #[test]
    fn a_ppn_buffered_again_keeps_its_newer_drain_time() {
        let mut b = WriteBuffer::new(4, 8);
        b.admit(0, 1);
        b.hold(7, 100);
        b.admit(50, 1);
        b.hold(7, 400);
        // The old entry's release must not drop the newer one.
        b.admit(250, 1);
        assert!(b.read_hit(7));
    }

    #[test]
    fn an_erase_forgets_its_pages() {
        let mut b = WriteBuffer::new(4, 8);
        b.admit(0, 2);
        b.hold(3, 10);
        b.hold(9, 10);
        b.forget_erased(&[FlashOp::Erase { block: 0 }]);
        assert!(!b.read_hit(3));
        assert!(b.read_hit(9));
    }
}
