//! The one write path and the mapping: host writes, reads and trims of
//! logical pages, stream resolution, and what programming or invalidating a
//! page records (OOB, valid bit, counts, victim index, survival). Sharing,
//! power-loss tracking and the DFTL cache branch off at the top of
//! `write_page_of_stream` into their own files.

use super::durability;
use super::oplog::FlashOp;
use super::schemes::UserWrite;
use super::victims::victim_index;
use super::{clear_valid_bit, set_valid_bit, MapEntry, PageRead, Ssd, UNMAPPED};
use crate::error::SimError;
use crate::flash::{BlockState, Lpn, Ppn};
use crate::mem::prefetch;

impl Ssd {
    /// The one conversion of the host's `u64` LPN to the FTL's `Lpn`: in
    /// range, it fits in 32 bits.
    #[inline]
    pub(super) fn check_lpn(&self, lpn: u64) -> Result<Lpn, SimError> {
        if lpn < u64::from(self.logical_pages) {
            Ok(Lpn::new(lpn as u32))
        } else {
            Err(SimError::OutOfRange {
                lpn,
                logical_pages: u64::from(self.logical_pages),
            })
        }
    }

    /// Writes one logical page from the host. `content` is stored only when
    /// content tracking is on.
    #[inline]
    /// A page written through this call is a request of its own: the log
    /// regime collects after it, as after a request `submit`s.
    pub fn write_page(&mut self, lpn: u64, stream: u16, content: u64) -> Result<(), SimError> {
        let stream = self.resolve_stream(stream)?;
        self.write_page_of_stream(lpn, stream, content)?;
        if self.log.is_some() {
            self.log_collect()?;
        }
        Ok(())
    }

    /// `write_page` for a stream already checked (a request checks it once
    /// for all its pages). Inlined into the request loop: a call here cost
    /// about 16 instructions per page in prologue, epilogue and a result
    /// returned through memory.
    #[inline(always)]
    pub(super) fn write_page_of_stream(
        &mut self,
        lpn: u64,
        stream: u16,
        content: u64,
    ) -> Result<(), SimError> {
        debug_assert!(
            stream < self.placement.streams(),
            "stream {stream} unchecked"
        );
        let lpn = self.check_lpn(lpn)?;
        if self.sharing.is_some() {
            return self.write_page_shared(lpn, stream, content);
        }
        // One test for the features whose write paths live out of line:
        // each its own branch here made this function (inlined into the
        // request loop) big enough to tip the sharing path out of line.
        if self.durability.is_some() | self.cmt.is_some() | self.placement.is_classified() {
            return self.write_page_out_of_line(lpn, stream, content);
        }
        self.write_page_mapped::<false, false>(lpn, stream, content)
    }

    /// Power-loss tracking, the DFTL cache or a placement scheme (at most
    /// one of them: the plan refuses them together).
    #[inline(never)]
    fn write_page_out_of_line(
        &mut self,
        lpn: Lpn,
        stream: u16,
        content: u64,
    ) -> Result<(), SimError> {
        if self.durability.is_some() {
            self.write_page_tracked(lpn, stream, content)
        } else if self.cmt.is_some() {
            self.write_page_cached(lpn, stream, content)
        } else {
            debug_assert_eq!(stream, 0, "a class scheme runs over one stream");
            self.write_page_classified(lpn, content)
        }
    }

    /// The plain write of a host page whose mapping entry is at hand.
    /// `PLAIN`: the caller knows the device [`Ssd::writes_plain`], so the
    /// tests for the features that rules out fold away (the plain driver
    /// loop, `submit_plain`); every other caller passes `false`. `LOG`
    /// (with `PLAIN`): the op log is on (a timed run's measured phase),
    /// and the page's program is logged as the general path logs it;
    /// without `PLAIN` the log is tested at run time and `LOG` is `false`.
    #[inline(always)]
    pub(super) fn write_page_mapped<const PLAIN: bool, const LOG: bool>(
        &mut self,
        lpn: Lpn,
        stream: u16,
        content: u64,
    ) -> Result<(), SimError> {
        self.now_pages += 1;
        let old = self.l2p[lpn.index()];
        if !old.ppn.is_none() {
            // Unmap before allocating: GC must not migrate the page this write kills.
            self.l2p[lpn.index()].ppn = Ppn::NONE;
            self.invalidate::<PLAIN>(old);
        }
        let frontier = self.stream_write_frontier(lpn, stream, old);
        self.program_host_page::<PLAIN, LOG>(lpn, frontier, content)
    }

    /// The user decision of a host write on a stream path (plain, tracked,
    /// shared): `lpn` written on `stream`, its map entry before the write
    /// `old`. Inlined, the `UserWrite` beyond its stream folds away.
    #[inline(always)]
    pub(super) fn stream_write_frontier(&mut self, lpn: Lpn, stream: u16, old: MapEntry) -> usize {
        let lifespan_pages = (!old.ppn.is_none()).then(|| self.pages_since(old.written_at));
        self.placement.stream_user_frontier(&UserWrite {
            lpn,
            stream,
            write_index: self.now_pages - 1,
            lifespan_pages,
            live_pages: 0,
        })
    }

    /// Programs host page `lpn` (already unmapped) into `frontier` and maps
    /// it: the tail of every one-to-one host write. `PLAIN` and `LOG` as in
    /// `write_page_mapped`.
    #[inline(always)]
    pub(super) fn program_host_page<const PLAIN: bool, const LOG: bool>(
        &mut self,
        lpn: Lpn,
        frontier: usize,
        content: u64,
    ) -> Result<(), SimError> {
        let ppn = if PLAIN {
            // The allocation knows the page's block and whether the page
            // fills it: `program` would derive both again.
            let (ppn, block, fills) = self.next_page_in_block(frontier, true)?;
            self.counters.host_write_pages += 1;
            self.program_cells_in::<true>(ppn, block, lpn, content);
            if fills {
                self.close_block(block);
            }
            if LOG {
                self.log(FlashOp::Program { ppn, gc: false });
            }
            ppn
        } else {
            let ppn = self.next_page(frontier, true)?;
            // Counted once it has a page: a write refused at end of life is not a host write.
            self.counters.host_write_pages += 1;
            self.program::<false>(ppn, lpn, content);
            self.log(FlashOp::Program { ppn, gc: false });
            ppn
        };
        self.l2p[lpn.index()] = MapEntry {
            ppn,
            written_at: self.now_pages as u32,
        };
        Ok(())
    }

    /// Host streams the device offers.
    pub fn streams(&self) -> u16 {
        self.placement.streams()
    }

    #[inline]
    pub(super) fn check_stream(&self, stream: u16) -> Result<(), SimError> {
        if stream < self.placement.streams() {
            Ok(())
        } else {
            Err(self.bad_stream(stream))
        }
    }

    #[cold]
    fn bad_stream(&self, stream: u16) -> SimError {
        SimError::BadRequest(format!(
            "stream {stream} is not below ftl.streams = {}",
            self.placement.streams()
        ))
    }

    /// The stream a write of `stream` goes to: itself when the device has
    /// it; under FDP an invalid placement id falls back to handle 0 and is
    /// counted (as the spec has it); otherwise an error.
    #[inline]
    pub(super) fn resolve_stream(&mut self, stream: u16) -> Result<u16, SimError> {
        if stream < self.placement.streams() {
            Ok(stream)
        } else {
            self.invalid_stream(stream)
        }
    }

    #[cold]
    #[inline(never)]
    fn invalid_stream(&mut self, stream: u16) -> Result<u16, SimError> {
        if self.fdp.is_some() {
            self.counters.fdp_invalid_placement_ids += 1;
            Ok(0)
        } else {
            Err(self.bad_stream(stream))
        }
    }

    /// Reads one logical page; `None` when it holds no data.
    #[inline]
    pub fn read_page(&mut self, lpn: u64) -> Result<Option<PageRead>, SimError> {
        let lpn = self.check_lpn(lpn)?;
        if self.cmt.is_some() {
            self.map_access(lpn, false)?;
        }
        self.counters.host_read_pages += 1;
        let ppn = self.l2p[lpn.index()].ppn;
        if ppn.is_none() {
            self.counters.host_read_unmapped_pages += 1;
            return Ok(None);
        }
        let content = self.content.as_ref().map_or(0, |c| c[ppn.index()]);
        self.log(FlashOp::Read { ppn, gc: false });
        Ok(Some(PageRead { ppn, content }))
    }

    /// Discards one logical page: its data dies now and it reads as unmapped.
    #[inline]
    pub fn trim_page(&mut self, lpn: u64) -> Result<(), SimError> {
        let lpn = self.check_lpn(lpn)?;
        self.counters.host_trim_pages += 1;
        if self.sharing.is_some() {
            self.trim_page_shared(lpn);
            return Ok(());
        }
        if self.cmt.is_some() {
            self.map_access(lpn, false)?;
        }
        let old = self.l2p[lpn.index()];
        if !old.ppn.is_none() {
            if self.cmt.is_some() {
                self.map_dirty(lpn);
            }
            self.l2p[lpn.index()] = UNMAPPED;
            self.invalidate::<false>(old);
            if let Some(c) = self.placement.classes_mut() {
                c.trimmed(lpn, self.geo.block_of(old.ppn));
            }
            if self.durability.is_some() {
                self.durable_record(durability::RecordKind::Trim { lpn });
            }
        }
        Ok(())
    }

    /// Flush: with power-loss tracking, the write buffer and the journal
    /// batch become durable; otherwise it only counts (the timing model
    /// gives it a cost).
    pub fn flush(&mut self) {
        self.counters.flushes += 1;
        if self.durability.is_some() {
            self.durable_flush();
        }
    }

    /// Hints that `lpn` will be written or read soon (start fetching its map entry).
    #[inline]
    pub fn prefetch(&self, lpn: u64) {
        if lpn < u64::from(self.logical_pages) {
            prefetch(&self.l2p, lpn as usize);
        }
    }

    /// `prefetch_mapped` for a device that [`Ssd::writes_plain`]: the
    /// valid bit, block count and victim-index links an overwrite of
    /// `lpn` updates, with no sharing record to follow and no reclaim
    /// group to find.
    #[inline(always)]
    pub(crate) fn prefetch_mapped_plain(&self, lpn: u64) {
        if let Some(e) = self.l2p.get(lpn as usize) {
            if !e.ppn.is_none() {
                let block = self.geo.block_of(e.ppn);
                prefetch(&self.valid_bits, e.ppn.index() / 64);
                prefetch(&self.blocks.valid, block as usize);
                self.victims.prefetch(block);
            }
        }
    }

    /// The physical page an LPN maps to (`get_ppn`).
    pub fn lookup(&self, lpn: u64) -> Option<Ppn> {
        let lpn = self.check_lpn(lpn).ok()?;
        let ppn = self.l2p[lpn.index()].ppn;
        (!ppn.is_none()).then_some(ppn)
    }

    /// The content tag of `lpn`'s data (content tracking on), without
    /// counting a host read; `None` when it holds no data.
    pub fn content_of(&self, lpn: u64) -> Option<u64> {
        let ppn = self.lookup(lpn)?;
        Some(self.content.as_ref().map_or(0, |c| c[ppn.index()]))
    }

    /// The stream the block holding `ppn` was opened for.
    pub fn block_stream(&self, ppn: Ppn) -> u16 {
        self.blocks.stream[self.geo.block_of(ppn) as usize]
    }

    /// The LPN stored in a physical page's OOB, if the page holds live data (`get_lpn`).
    pub fn reverse_lookup(&self, ppn: Ppn) -> Option<Lpn> {
        if ppn.is_none() {
            return None;
        }
        let lpn = *self.oob_lpn.get(ppn.index())?;
        (!lpn.is_none() && self.l2p[lpn.index()].ppn == ppn).then_some(lpn)
    }

    // Inlined into the write loop: out of line its prologue and epilogue
    // cost about 13 instructions per overwrite. `PLAIN` as in
    // `write_page_mapped`.
    #[inline(always)]
    pub(super) fn invalidate<const PLAIN: bool>(&mut self, old: MapEntry) {
        let b = self.invalidate_page::<PLAIN>(old.ppn);
        if let Some(h) = &mut self.survival {
            let age = u64::from((self.now_pages as u32).wrapping_sub(old.written_at));
            h.record(age);
            if !PLAIN && self.stream_survival.is_some() {
                self.record_stream_survival(b, age);
            }
        }
    }

    /// Clears page `ppn`'s valid state (count, bit, victim index); returns
    /// its block. Survival is the caller's (host data only). `PLAIN`: no
    /// reclaim groups, so the block's victim index is the first.
    #[inline(always)]
    pub(super) fn invalidate_page<const PLAIN: bool>(&mut self, ppn: Ppn) -> usize {
        let block = self.geo.block_of(ppn);
        let b = block as usize;
        debug_assert!(
            self.blocks.valid[b] > 0,
            "invalidating a page of block {block} with no valid pages"
        );
        self.blocks.valid[b] -= 1;
        clear_valid_bit(&mut self.valid_bits, ppn);
        if self.blocks.state[b] == BlockState::Full {
            let index = if PLAIN {
                &mut self.victims
            } else {
                victim_index(
                    &mut self.victims,
                    &mut self.group_victims,
                    self.group_blocks,
                    block,
                )
            };
            index.on_invalidate(block, self.blocks.valid[b]);
        }
        b
    }

    /// Programs `lpn` into `ppn` (already allocated by `next_page`).
    /// Inlined into the host write and GC's landing loop (a call cost about
    /// 20 instructions per page); closing a full block, once per block,
    /// stays out of line.
    /// `PLAIN` as in `write_page_mapped` (no content kept).
    #[inline(always)]
    pub(super) fn program<const PLAIN: bool>(&mut self, ppn: Ppn, lpn: Lpn, content: u64) {
        let block = self.program_cells::<PLAIN>(ppn, lpn, content);
        if self.blocks.write_ptr[block as usize] == self.geo.pages_per_block {
            self.close_block(block);
        }
    }

    /// What programming a page records, whoever allocated it (a frontier,
    /// or a zone's write pointer): OOB, valid bit, content, counters.
    /// Returns the page's block.
    #[inline(always)]
    pub(super) fn program_cells<const PLAIN: bool>(
        &mut self,
        ppn: Ppn,
        lpn: Lpn,
        content: u64,
    ) -> u32 {
        let block = self.geo.block_of(ppn);
        self.program_cells_in::<PLAIN>(ppn, block, lpn, content);
        block
    }

    /// `program_cells` of a page whose block the caller knows.
    #[inline(always)]
    fn program_cells_in<const PLAIN: bool>(
        &mut self,
        ppn: Ppn,
        block: u32,
        lpn: Lpn,
        content: u64,
    ) {
        debug_assert_eq!(block, self.geo.block_of(ppn));
        self.oob_lpn[ppn.index()] = lpn;
        set_valid_bit(&mut self.valid_bits, ppn);
        if !PLAIN {
            if let Some(c) = &mut self.content {
                c[ppn.index()] = content;
            }
        }
        self.counters.nand_write_pages += 1;
        let b = block as usize;
        self.blocks.valid[b] += 1;
        self.blocks.last_write_at[b] = self.now_pages;
    }
}
