//! Garbage collection: collecting until the watermarks are met, reclaiming
//! a victim (staging its valid pages, erasing, landing the copies in their
//! GC destinations), erase and retirement at the P/E limit, and deferring
//! to a layer above that cleans.

use super::oplog::FlashOp;
use super::schemes::GcWrite;
use super::{set_valid_range, valid_bit, Ssd, ValidWords};
use crate::error::SimError;
use crate::flash::{BlockState, BlockTable, Lpn, Ppn, NO_BLOCK};
use crate::mem::prefetch;

/// Why pages are being migrated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reclaim {
    Gc,
    WearLeveling,
}

/// A valid page staged by GC between its victim's erase and its new home.
#[derive(Debug, Clone, Copy)]
pub(super) struct GcStaged {
    pub(super) lpn: Lpn,
    pub(super) frontier: u32,
    pub(super) content: u64,
}

/// A staging buffer emptied for the next victim, its capacity kept.
fn reuse<T>(mut buffer: Vec<T>) -> Vec<T> {
    buffer.clear();
    buffer
}

/// What GC's plain scan fills and its landing runs read: a `GcStaged`, or,
/// where the copies go to the victim's one frontier with nothing but their
/// LPN (an untimed plain run), the LPN alone, a quarter of the bytes.
trait Staged: Copy {
    /// A slot before the scan fills it.
    fn unset(frontier: u32) -> Self;
    fn set_lpn(&mut self, lpn: Lpn);
    fn lpn(&self) -> Lpn;
    /// The copy's own frontier, where it keeps one.
    fn frontier(&self) -> Option<u32>;
    fn content(&self) -> u64;
    /// The device's buffer of this kind.
    fn buffer<'a>(staged: &'a mut Vec<GcStaged>, lpns: &'a mut Vec<Lpn>) -> &'a mut Vec<Self>;

    /// Writes a run's LPNs into its pages' reverse-map entries (`oob`, as long as `run`).
    #[inline(always)]
    fn write_lpns(run: &[Self], oob: &mut [Lpn]) {
        for (slot, page) in oob.iter_mut().zip(run) {
            *slot = page.lpn();
        }
    }
}

impl Staged for GcStaged {
    #[inline(always)]
    fn unset(frontier: u32) -> Self {
        GcStaged {
            lpn: Lpn::NONE,
            frontier,
            content: 0,
        }
    }

    #[inline(always)]
    fn set_lpn(&mut self, lpn: Lpn) {
        self.lpn = lpn;
    }

    #[inline(always)]
    fn lpn(&self) -> Lpn {
        self.lpn
    }

    #[inline(always)]
    fn frontier(&self) -> Option<u32> {
        Some(self.frontier)
    }

    #[inline(always)]
    fn content(&self) -> u64 {
        self.content
    }

    fn buffer<'a>(staged: &'a mut Vec<GcStaged>, _: &'a mut Vec<Lpn>) -> &'a mut Vec<Self> {
        staged
    }
}

impl Staged for Lpn {
    #[inline(always)]
    fn unset(_: u32) -> Self {
        Lpn::NONE
    }

    #[inline(always)]
    fn set_lpn(&mut self, lpn: Lpn) {
        *self = lpn;
    }

    #[inline(always)]
    fn lpn(&self) -> Lpn {
        *self
    }

    #[inline(always)]
    fn frontier(&self) -> Option<u32> {
        None
    }

    #[inline(always)]
    fn content(&self) -> u64 {
        0
    }

    fn buffer<'a>(_: &'a mut Vec<GcStaged>, lpns: &'a mut Vec<Lpn>) -> &'a mut Vec<Self> {
        lpns
    }

    /// The run is the entries themselves: one copy.
    #[inline(always)]
    fn write_lpns(run: &[Self], oob: &mut [Lpn]) {
        oob.copy_from_slice(run);
    }
}

impl Ssd {
    /// A layer above started (`true`) or finished cleaning: while it cleans,
    /// GC waits until the free pool reaches the hard watermark (the least
    /// that keeps the device writable), so that the upper layer's
    /// invalidations land before victims are chosen.
    pub fn defer_gc(&mut self, defer: bool) {
        (self.gc_low, self.gc_high) = if defer {
            (self.gc_floor, self.gc_floor)
        } else {
            (self.gc_low_configured, self.gc_high_configured)
        };
    }

    /// Reclaims victims until the free pool holds more than the high
    /// watermark, or until GC copies have opened room in `frontier` and the
    /// pool is at or above the low watermark. Bounded: a pass that reclaims
    /// every block without gaining space means the device is full.
    pub(super) fn collect(&mut self, frontier: usize) -> Result<(), SimError> {
        let mut fruitless = 0u32;
        // Under FDP a handle's reclaim group collects its own victims.
        let group = self.frontiers[frontier].group;
        loop {
            let free = self.pool.len_in(group);
            if free > self.gc_high || (self.has_room(frontier) && free >= self.gc_low) {
                return Ok(());
            }
            let Some(victim) = self.choose_victim_durably(group)? else {
                return Err(self.full_error());
            };
            let valid = self.blocks.valid[victim as usize];
            if valid == self.geo.pages_per_block {
                // Reclaiming a fully valid block gains nothing. A policy that
                // chooses the emptiest block (greedy) says nothing can be gained
                // at all; others may have chosen badly, so give them one full pass.
                // So may a placement scheme that chooses victims (MiDAS moves
                // a full block on to its next group).
                fruitless += 1;
                let emptiest = self.victims.emptiest_first() && !self.placement.chooses_victims();
                if emptiest || fruitless > self.geo.blocks {
                    self.victim_insert(victim);
                    return Err(SimError::DeviceFull {
                        closed_blocks: self.victims_len(),
                        free_blocks: self.pool.len(),
                    });
                }
            } else {
                fruitless = 0;
            }
            self.reclaim(victim, Reclaim::Gc)?;
            self.maybe_level_wear()?;
        }
    }

    /// Migrates the valid pages of `victim` (already out of the victim index)
    /// and erases it. The valid pages are staged in the controller's buffer
    /// before the erase, so the victim itself can receive them back: a
    /// device with an empty free pool can still be collected, and no block
    /// is held in hidden reserve (the analytical models assume none).
    pub(super) fn reclaim(&mut self, victim: u32, why: Reclaim) -> Result<(), SimError> {
        let v = victim as usize;
        debug_assert_eq!(self.blocks.state[v], BlockState::Full);
        let valid = self.blocks.valid[v];
        let erases_after = self.blocks.erase_count[v] + 1;
        // A victim that retires at this erase does not return to the pool, so
        // its valid pages must fit in what is left: room in the GC
        // destinations plus free blocks. Otherwise stop here, before anything
        // changes, rather than erase live data with nowhere to put it.
        let retires = self.pe_limit > 0 && erases_after >= self.pe_limit;
        if retires
            && (self.geo.blocks - self.retired - 1 < self.min_usable_blocks
                || self.gc_room_pages_for(victim) < u64::from(valid))
        {
            self.victim_insert(victim);
            return Err(SimError::EndOfLife {
                retired_blocks: self.retired,
            });
        }
        self.gc_buffer.clear();
        self.gc_lpns.clear();
        if let Some(s) = &mut self.sharing {
            s.staged.clear();
        }
        // With power-loss tracking GC copies before it erases its victim
        // (the victim keeps the only durable copy until then): every caller
        // chose a victim whose pages fit (ftl/copy_first.rs). Erasing first
        // would be an unsafe window; it is counted, and must stay zero.
        let copy_first = self.durability.is_some() && (valid == 0 || self.copy_fits(victim));
        if self.durability.is_some() {
            self.durable_gc_begin(victim);
            if !copy_first {
                debug_assert!(
                    false,
                    "block {victim}: reclaimed without room to copy first"
                );
                self.durability.as_mut().expect("on").stats.unsafe_reclaims += 1;
            }
        }
        let mean_single = self.mean_single_survival();
        let origin_stream = self.blocks.stream[v];
        let now = self.now_pages;
        self.placement.reclaiming(
            victim,
            origin_stream,
            valid,
            mean_single,
            now,
            why == Reclaim::Gc,
        );
        // With sharing, or a scheme whose GC decision reads the page, each
        // copy's frontier is asked for; else one for the whole victim
        // (tested once here, not per page).
        let per_page = self.sharing.is_some() || self.placement.classifies_each_copy();
        // Otherwise the scheme is a stream scheme without sharing: its
        // copies are pages of one reference, and its decision reads only
        // the victim's stream: one frontier for the whole victim, asked
        // once (per page it cost about 8 instructions of every GC copy).
        let unshared_frontier = if per_page {
            0
        } else {
            let write = self.placement.gc_write(Lpn::NONE, 0, 1, now);
            self.placement.stream_gc_frontier(&write) as u32
        };
        let words = ValidWords::of(self.geo.first_page(victim), self.geo.pages_per_block);
        let plain = !per_page && self.content.is_none();
        // Only the LPNs when nothing after the scan reads a `GcStaged`
        // (tracking's landing, the DFTL cache's note of the moves).
        let lpns_only = plain && self.durability.is_none() && self.cmt.is_none();
        // With the op log on (a timed run's measured phase) each scan is a
        // loop of its own: the untimed scan keeps no test of the log.
        let logged = self.ops.is_some();
        if lpns_only && !logged {
            self.stage_plain::<Lpn, false>(words, unshared_frontier, valid);
        } else if lpns_only {
            self.stage_plain::<Lpn, true>(words, unshared_frontier, valid);
        } else if plain && !logged {
            self.stage_plain::<GcStaged, false>(words, unshared_frontier, valid);
        } else if plain {
            self.stage_plain::<GcStaged, true>(words, unshared_frontier, valid);
        } else {
            self.stage_each(words, per_page.then_some(now), unshared_frontier);
        }
        assert_eq!(
            (self.gc_buffer.len() + self.gc_lpns.len()) as u32,
            valid,
            "block {victim}: valid count disagrees with the mapping"
        );
        self.counters.nand_read_pages += u64::from(valid);
        match why {
            Reclaim::Gc => {
                self.counters.gc_count += 1;
                self.counters.gc_copy_pages += u64::from(valid);
                self.stream_counters[usize::from(origin_stream)].gc_copy_pages += u64::from(valid);
            }
            Reclaim::WearLeveling => {
                self.counters.wl_count += 1;
                self.counters.wl_copy_pages += u64::from(valid);
            }
        }
        if self.cmt.is_some() {
            self.note_gc_moves();
        }
        if copy_first {
            // Only with tracking: the copies are stamped.
            self.land_tracked(victim)?;
        }
        self.erase(victim);
        if !copy_first {
            if self.durability.is_some() {
                self.land_tracked(victim)?;
            } else if self.sharing.is_some() {
                self.land_staged::<false, true>(victim)?;
            } else if lpns_only {
                let lpns = std::mem::take(&mut self.gc_lpns);
                self.land_runs(&lpns, victim, Some(unshared_frontier))?;
                self.gc_lpns = reuse(lpns);
            } else {
                let staged = std::mem::take(&mut self.gc_buffer);
                self.land_runs(&staged, victim, (!per_page).then_some(unshared_frontier))?;
                self.gc_buffer = reuse(staged);
            }
        }
        if let Some(d) = &mut self.durability {
            d.in_gc = false;
        }
        Ok(())
    }

    /// The scan of a victim whose copies all go to `frontier` and carry
    /// nothing but their LPN (no content): on slices held for the whole
    /// scan; with `LOG` (the op log on), each copy's read logged in scan
    /// order, as `stage_each` logs it. Out of line, once per victim:
    /// inlined, its loop's registers moved with every change to `reclaim`
    /// (one more instruction per copy at one time). The buffer (and the
    /// log's tail) is sized to the victim's `valid` count first and filled
    /// in place: a push per copy (length, capacity and pointer loaded and
    /// stored each time) cost about 10 instructions more. A bitmap holding
    /// more live pages than the count fails at the fill, fewer at
    /// `reclaim`'s assert.
    #[inline(never)]
    fn stage_plain<T: Staged, const LOG: bool>(
        &mut self,
        mut words: ValidWords,
        frontier: u32,
        valid: u32,
    ) {
        // Slices, not the vectors: a store into the buffer might, for all
        // the compiler knows, change a vector's pointer or length, which
        // it then reloaded for every copy.
        let Ssd {
            valid_bits,
            oob_lpn,
            l2p,
            gc_buffer,
            gc_lpns,
            ops,
            ..
        } = self;
        let (bits, oob, l2p) = (&valid_bits[..], &oob_lpn[..], &l2p[..]);
        let staged = T::buffer(gc_buffer, gc_lpns);
        staged.resize(valid as usize, T::unset(frontier));
        // The log's tail, sized as the buffer and filled in place the same
        // way: a read per copy, at the copy's index (a second iterator cost
        // about 3 instructions per request more).
        let (logged_before, reads) = match ops {
            Some(ops) if LOG => {
                let before = ops.len();
                let unread = FlashOp::Read {
                    ppn: Ppn::NONE,
                    gc: true,
                };
                ops.resize(before + valid as usize, unread);
                (before, &mut ops[before..])
            }
            _ => (0, &mut [][..]),
        };
        let mut slots = staged.iter_mut();
        let mut filled = 0usize;
        while let Some((base, mut word)) = words.next(bits) {
            while word != 0 {
                let ppn = (base + u64::from(word.trailing_zeros())) as usize;
                word &= word - 1;
                let lpn = oob[ppn];
                // The mapping entry is rewritten when the copy lands: start fetching it now.
                prefetch(l2p, lpn.index());
                let Some(slot) = slots.next() else {
                    panic!("victim holds more live pages than its valid count {valid}");
                };
                slot.set_lpn(lpn);
                if LOG {
                    reads[filled] = FlashOp::Read {
                        ppn: Ppn::new(ppn as u32),
                        gc: true,
                    };
                }
                filled += 1;
            }
        }
        staged.truncate(filled);
        if let (true, Some(ops)) = (LOG, &mut self.ops) {
            ops.truncate(logged_before + filled);
        }
    }

    /// The scan of a victim in general: each copy's frontier asked of
    /// sharing's placement or the class scheme when `per_page` is the time
    /// (`Some(now_pages)`), else `frontier` for all; its content and its
    /// read logged where they are kept. Out of line, once per victim, as
    /// `stage_plain` is: in `reclaim` its loop's registers spilled with the
    /// victim's state around it (cachegrind: about 1 instruction per copy).
    #[inline(never)]
    fn stage_each(&mut self, mut words: ValidWords, per_page: Option<u64>, frontier: u32) {
        while let Some((base, mut word)) = words.next(&self.valid_bits) {
            while word != 0 {
                let ppn = Ppn::new((base + u64::from(word.trailing_zeros())) as u32);
                word &= word - 1;
                debug_assert!(valid_bit(&self.valid_bits, ppn));
                let lpn = self.oob_lpn[ppn.index()];
                // The mapping entry is rewritten below: start fetching it now.
                prefetch(&self.l2p, lpn.index());
                let content = self.content.as_ref().map_or(0, |c| c[ppn.index()]);
                let frontier = match per_page {
                    None => frontier,
                    // Sharing runs under a stream scheme only (the plan
                    // refuses a class scheme beside it).
                    Some(now) if self.sharing.is_some() => {
                        let page = self.stage_shared(ppn);
                        let write = self.placement.gc_write(lpn, page.age, page.refs, now);
                        self.placement.stream_gc_frontier(&write) as u32
                    }
                    Some(_) => self.copy_gc_frontier(lpn),
                };
                self.gc_buffer.push(GcStaged {
                    lpn,
                    frontier,
                    content,
                });
                if let Some(ops) = &mut self.ops {
                    ops.push(FlashOp::Read { ppn, gc: true });
                }
            }
        }
    }

    /// `land_staged` with power-loss tracking, with or without sharing,
    /// each its own loop: with the sharing work inlined, one loop serving
    /// both cost the plain GC path about 2 % more instructions (Sf 0.07).
    #[inline(always)]
    fn land_tracked(&mut self, victim: u32) -> Result<(), SimError> {
        if self.sharing.is_some() {
            self.land_staged::<true, true>(victim)
        } else {
            self.land_staged::<true, false>(victim)
        }
    }

    /// Programs the staged pages of `victim` into their GC destinations
    /// (`TRACKED`: stamping each copy on the flash image; `SHARED`: sharing
    /// is on, and each copy's sharing state lands with it).
    #[inline(never)]
    fn land_staged<const TRACKED: bool, const SHARED: bool>(
        &mut self,
        victim: u32,
    ) -> Result<(), SimError> {
        let mut staged = std::mem::take(&mut self.gc_buffer);
        for (i, page) in staged.iter().enumerate() {
            let ppn = self.next_page(self.gc_destination(page.frontier as usize), false)?;
            debug_assert_eq!(self.geo.block_of(self.l2p[page.lpn.index()].ppn), victim);
            self.program::<false>(ppn, page.lpn, page.content);
            self.log(FlashOp::Program { ppn, gc: true });
            if TRACKED {
                self.durable_gc_copy(i, ppn, page.content);
            }
            self.l2p[page.lpn.index()].ppn = ppn;
            if SHARED {
                self.land_shared(i, ppn, page.content);
            }
        }
        staged.clear();
        self.gc_buffer = staged;
        Ok(())
    }

    /// GC's landing without tracking or sharing: the staged pages land a
    /// run at a time, a run being the consecutive pages bound for one
    /// frontier that fit in the block the first of them opens or
    /// continues. A run's per-block work (write pointer, valid count, last
    /// write time, closing the block) is done once, and its per-page work
    /// (reverse map, valid bit, map entry, op log) on slices held for the
    /// whole run. Every page goes where `land_staged` would put it, in the
    /// same order: within a run no block opens, so neither the free pool nor
    /// the destination's room changes what `gc_destination` answers.
    /// `uniform`: every staged page is bound for the same frontier (the
    /// scan chose one for the whole victim), so a run ends only where the
    /// block does.
    fn land_runs<T: Staged>(
        &mut self,
        staged: &[T],
        victim: u32,
        uniform: Option<u32>,
    ) -> Result<(), SimError> {
        let ppb = self.geo.pages_per_block;
        let mut i = 0;
        while i < staged.len() {
            let frontier = uniform
                .or(staged[i].frontier())
                .expect("a copy without a frontier of its own takes its victim's");
            let first = self.next_page(self.gc_destination(frontier as usize), false)?;
            let block = self.geo.block_of(first);
            let b = block as usize;
            // `next_page` took the run's first page; the rest of the block is free.
            let room = (ppb - self.blocks.write_ptr[b]) as usize;
            let mut end = staged.len().min(i + 1 + room);
            if uniform.is_none() {
                end = i
                    + 1
                    + staged[i + 1..end]
                        .iter()
                        .take_while(|p| p.frontier() == Some(frontier))
                        .count();
            }
            let run = &staged[i..end];
            let pages = run.len() as u32;
            self.blocks.write_ptr[b] += pages - 1;
            // A slice, as in `stage_plain`: its pointer and length stay in registers.
            let (l2p, bits) = (&mut self.l2p[..], &mut self.valid_bits);
            // The run's reverse-map entries, sliced once (one range check, not one per page).
            let oob = &mut self.oob_lpn[first.index()..first.index() + run.len()];
            T::write_lpns(run, oob);
            let mut ppn = first;
            for page in run {
                debug_assert_eq!(self.geo.block_of(l2p[page.lpn().index()].ppn), victim);
                l2p[page.lpn().index()].ppn = ppn;
                ppn = ppn + 1;
            }
            set_valid_range(bits, first, pages, true);
            if let Some(c) = &mut self.content {
                for (k, page) in run.iter().enumerate() {
                    c[(first + k as u32).index()] = page.content();
                }
            }
            if let Some(ops) = &mut self.ops {
                ops.extend((0..pages).map(|k| FlashOp::Program {
                    ppn: first + k,
                    gc: true,
                }));
            }
            self.counters.nand_write_pages += u64::from(pages);
            self.blocks.valid[b] += pages;
            self.blocks.last_write_at[b] = self.now_pages;
            if self.blocks.write_ptr[b] == ppb {
                self.close_block(block);
            }
            i = end;
        }
        Ok(())
    }

    /// `gc_room_pages` for `victim`: under FDP only one GC frontier may
    /// take its copies (its handle's, or its reclaim group's), with the
    /// free blocks of its reclaim group.
    pub(super) fn gc_room_pages_for(&mut self, victim: u32) -> u64 {
        if self.fdp.is_none() {
            return self.gc_room_pages();
        }
        let origin_stream = self.blocks.stream[victim as usize];
        // FDP's schemes (separate, internal) place a victim's copies by its
        // handle alone: a victim-wide GC write (`GcWrite`'s note) of this
        // victim, not yet the one being reclaimed.
        let f = self.placement.stream_gc_frontier(&GcWrite {
            lpn: Lpn::NONE,
            victim_class: origin_stream,
            age_pages: 0,
            now_pages: self.now_pages,
            refs: 1,
            mean_single_survival: 0.0,
        });
        let block = self.frontiers[f].block;
        let ppb = self.geo.pages_per_block;
        let open = if block == NO_BLOCK {
            0
        } else {
            u64::from(ppb - self.blocks.write_ptr[block as usize])
        };
        open + u64::from(self.pool.len_in(self.frontiers[f].group)) * u64::from(ppb)
    }

    /// Pages GC could program without a block from its victim: free room in
    /// the GC destination frontiers plus every free block.
    fn gc_room_pages(&self) -> u64 {
        let ppb = self.geo.pages_per_block;
        let open: u64 = self
            .placement
            .gc_destinations()
            .iter()
            .map(|&f| self.frontiers[f].block)
            .filter(|&b| b != NO_BLOCK)
            .map(|b| u64::from(ppb - self.blocks.write_ptr[b as usize]))
            .sum();
        open + u64::from(self.pool.len()) * u64::from(ppb)
    }

    /// Where a GC copy meant for `frontier` goes. With several GC
    /// destinations (Coldmap's GC and cold frontiers) a victim could need a
    /// new block for each while its erase freed only one; when the pool is
    /// empty and the intended frontier is full, the copy goes to a
    /// destination with room instead. One always has room: the block this
    /// victim's copies opened holds more pages than the victim had valid.
    #[inline(always)]
    fn gc_destination(&self, frontier: usize) -> usize {
        if !self.pool.is_empty() || self.has_room(frontier) || self.fdp.is_some() {
            // FDP never lends a copy another handle's or reclaim group's
            // unit; it needs none: a victim's copies all go to one frontier,
            // and the victim's erase freed a unit of its group.
            return frontier;
        }
        self.placement
            .gc_destinations()
            .iter()
            .copied()
            .find(|&f| self.has_room(f))
            .unwrap_or(frontier)
    }

    // One call site on the GC path (and one at mount): keep it inlined there.
    #[inline(always)]
    pub(super) fn erase(&mut self, block: u32) {
        let b = block as usize;
        let pages = self.geo.pages_per_block;
        set_valid_range(
            &mut self.valid_bits,
            self.geo.first_page(block),
            pages,
            false,
        );
        self.blocks.valid[b] = 0;
        self.blocks.write_ptr[b] = 0;
        self.blocks.owner[b] = BlockTable::NO_OWNER;
        self.blocks.erase_count[b] += 1;
        // Counted in flash blocks: a reclaim unit erases all of its own.
        self.counters.erase_count += u64::from(self.erase_unit_blocks);
        self.erases_since_wl_check += 1;
        if self.erase_unit_blocks == 1 {
            self.log(FlashOp::Erase { block });
        } else {
            for i in 0..self.erase_unit_blocks {
                self.log(FlashOp::Erase {
                    block: block * self.erase_unit_blocks + i,
                });
            }
        }
        if let Some(d) = &mut self.durability {
            d.on_reclaimed(block, self.blocks.erase_count[b]);
        }
        if self.pe_limit > 0 && self.blocks.erase_count[b] >= self.pe_limit {
            self.blocks.state[b] = BlockState::Retired;
            self.retired += 1;
        } else {
            self.blocks.state[b] = BlockState::Free;
            self.pool.insert(block, self.blocks.erase_count[b]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{lcg, small_config};
    use super::super::{Ssd, SsdOptions, ValidWords};
    use super::GcStaged;
    use crate::flash::{BlockState, Lpn};
    use crate::request::{BlockDevice, Op, Request};

    /// The plain scans with the op log on (`stage_plain::<_, true>`, the
    /// whole `GcStaged` or the LPN alone) stage the same copies as the
    /// general scan (`stage_each`) of the same victim, and log the same
    /// reads in the same order: checked on every full block holding valid
    /// pages, after random overwrites.
    #[test]
    fn logged_plain_scan_stages_and_logs_as_the_general_one() {
        let cfg = small_config(64, 128, 0.25);
        let mut ssd = Ssd::new(&cfg, &SsdOptions::default()).expect("plans");
        let logical = u64::from(ssd.logical_pages());
        let (mut x, mut req) = (3u64, Request::default());
        for i in 0..3 * logical {
            lcg(&mut x);
            let lpn = if i < logical { i } else { (x >> 33) % logical };
            req.set(Op::Write, lpn, 1);
            ssd.submit(&req).expect("writes");
        }
        ssd.enable_op_log();
        let mut scanned = 0;
        for victim in 0..ssd.geo.blocks {
            let valid = ssd.blocks.valid[victim as usize];
            if ssd.blocks.state[victim as usize] != BlockState::Full || valid == 0 {
                continue;
            }
            let words = ValidWords::of(ssd.geo.first_page(victim), ssd.geo.pages_per_block);
            let mut runs = Vec::new();
            for scan in 0..3 {
                ssd.clear_ops();
                ssd.gc_buffer.clear();
                ssd.gc_lpns.clear();
                match scan {
                    0 => ssd.stage_each(words, None, 5),
                    1 => ssd.stage_plain::<GcStaged, true>(words, 5, valid),
                    _ => ssd.stage_plain::<Lpn, true>(words, 5, valid),
                }
                let staged: Vec<_> = if scan < 2 {
                    ssd.gc_buffer
                        .iter()
                        .map(|p| (p.lpn, p.frontier, p.content))
                        .collect()
                } else {
                    ssd.gc_lpns.iter().map(|&lpn| (lpn, 5, 0)).collect()
                };
                assert_eq!(staged.len(), valid as usize, "block {victim}");
                runs.push((staged, ssd.logged().to_vec()));
            }
            assert_eq!(runs[0], runs[1], "block {victim}");
            assert_eq!(runs[0], runs[2], "block {victim}");
            scanned += 1;
        }
        assert!(scanned > 10, "{scanned} victims scanned");
        ssd.gc_buffer.clear();
        ssd.gc_lpns.clear();
    }
}
