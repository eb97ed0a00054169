//! Allocation: a frontier takes the next page of its open block, opening a
//! block from the free pool (after GC, for host frontiers) when it is full,
//! and a full block closes into its reclaim group's victim index.

use super::frontier::FrontierKey;
use super::{Ssd, ValidWords};
use crate::error::SimError;
use crate::flash::{BlockState, BlockTable, Ppn, NO_BLOCK};

impl Ssd {
    #[cold]
    #[inline(never)]
    pub(super) fn close_block(&mut self, block: u32) {
        let b = block as usize;
        let owner = self.blocks.owner[b] as usize;
        debug_assert_eq!(self.frontiers[owner].block, block);
        self.frontiers[owner].block = NO_BLOCK;
        self.blocks.state[b] = BlockState::Full;
        self.blocks.owner[b] = BlockTable::NO_OWNER;
        self.victim_insert(block);
        if let Some(c) = self.placement.classes_mut() {
            let mut words = ValidWords::of(self.geo.first_page(block), self.geo.pages_per_block);
            let (bits, oob) = (&self.valid_bits, &self.oob_lpn);
            c.sealed(block, |pages| {
                while let Some((base, mut word)) = words.next(bits) {
                    while word != 0 {
                        pages.push(oob[(base + u64::from(word.trailing_zeros())) as usize]);
                        word &= word - 1;
                    }
                }
            });
        }
    }

    #[inline]
    pub(super) fn has_room(&self, frontier: usize) -> bool {
        let block = self.frontiers[frontier].block;
        block != NO_BLOCK && self.blocks.write_ptr[block as usize] < self.geo.pages_per_block
    }

    /// Allocates the next page of `frontier`, opening a block (and, for host
    /// frontiers, collecting garbage first) when it is full. The common
    /// case, a page of the open block, is inlined into the host write and
    /// GC's landing loop; out of line it cost about 25 instructions per
    /// page in prologue, epilogue and a `Result` returned through memory.
    #[inline(always)]
    pub(super) fn next_page(&mut self, frontier: usize, host: bool) -> Result<Ppn, SimError> {
        let block = self.frontiers[frontier].block;
        if block != NO_BLOCK {
            let b = block as usize;
            let written = self.blocks.write_ptr[b];
            if written < self.geo.pages_per_block {
                self.blocks.write_ptr[b] = written + 1;
                return Ok(self.geo.first_page(block) + written);
            }
        }
        self.next_page_opening(frontier, host)
    }

    /// `next_page` with the page's block and whether the page fills it,
    /// for the plain host write (`program_host_page`), which then programs
    /// and closes without deriving either again.
    #[inline(always)]
    pub(super) fn next_page_in_block(
        &mut self,
        frontier: usize,
        host: bool,
    ) -> Result<(Ppn, u32, bool), SimError> {
        let ppb = self.geo.pages_per_block;
        let block = self.frontiers[frontier].block;
        if block != NO_BLOCK {
            let b = block as usize;
            let written = self.blocks.write_ptr[b];
            if written < ppb {
                self.blocks.write_ptr[b] = written + 1;
                return Ok((
                    self.geo.first_page(block) + written,
                    block,
                    written + 1 == ppb,
                ));
            }
        }
        let ppn = self.next_page_opening(frontier, host)?;
        let block = self.geo.block_of(ppn);
        Ok((ppn, block, self.blocks.write_ptr[block as usize] == ppb))
    }

    /// `next_page` when the frontier has no open block with room.
    #[cold]
    #[inline(never)]
    fn next_page_opening(&mut self, frontier: usize, host: bool) -> Result<Ppn, SimError> {
        // The log regime collects after each request instead (`log_regime.rs`).
        if host
            && self.pool.len_in(self.frontiers[frontier].group) <= self.gc_low
            && self.log.is_none()
        {
            self.collect(frontier)?;
        }
        if !self.has_room(frontier) {
            self.open_block(frontier)?;
        }
        let block = self.frontiers[frontier].block;
        let b = block as usize;
        let ppn = self.geo.first_page(block) + self.blocks.write_ptr[b];
        self.blocks.write_ptr[b] += 1;
        Ok(ppn)
    }

    fn open_block(&mut self, frontier: usize) -> Result<(), SimError> {
        let f = &self.frontiers[frontier];
        let Some(block) = self.pool.take(f.group, f.wear) else {
            return Err(self.full_error());
        };
        let b = block as usize;
        debug_assert_eq!(self.blocks.state[b], BlockState::Free);
        debug_assert_eq!(self.blocks.write_ptr[b], 0);
        self.blocks.state[b] = BlockState::Open;
        self.blocks.owner[b] = frontier as u32;
        let (stream, internal) = match self.frontiers[frontier].key {
            FrontierKey::Host { stream } => (stream, false),
            FrontierKey::Gc { stream } => (stream, true),
            FrontierKey::Cold => (0, true),
            FrontierKey::Class { class } => {
                let now = self.now_pages;
                if let Some(c) = self.placement.classes_mut() {
                    c.opened(block, class, now);
                }
                (0, false)
            }
        };
        self.blocks.stream[b] = stream;
        self.blocks.internal[b] = internal;
        self.stream_counters[usize::from(stream)].blocks_opened += 1;
        self.blocks.seq[b] = self.next_seq;
        self.next_seq += 1;
        self.frontiers[frontier].block = block;
        if self.durability.is_some() {
            self.durable_open(block);
        }
        Ok(())
    }

    pub(super) fn full_error(&self) -> SimError {
        if self.log.is_some() {
            return SimError::LogOutgrewDevice {
                blocks: self.geo.blocks,
            };
        }
        // Once blocks have retired, running out of free blocks is the capacity
        // loss of wear-out, reported as end of life rather than as a full device.
        if self.pe_limit > 0
            && (self.retired > 0 || self.geo.blocks - self.retired < self.min_usable_blocks)
        {
            SimError::EndOfLife {
                retired_blocks: self.retired,
            }
        } else {
            SimError::DeviceFull {
                closed_blocks: self.victims_len(),
                free_blocks: self.pool.len(),
            }
        }
    }
}
