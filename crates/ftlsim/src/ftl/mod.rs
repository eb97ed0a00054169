//! The page-mapped FTL: mapping, frontiers and allocation, garbage collection,
//! wear leveling. `Ssd` is the device the host layers write to.
//!
//! State per page (the "habits that keep it fast" of DESIGN.md):
//! * L2P: one `MapEntry` per logical page, 8 bytes: the PPN and the logical
//!   time the host wrote the data. Keeping the write time beside the PPN means
//!   an overwrite finds the dying page's age in the entry it already touches,
//!   so survival time costs no extra cache miss.
//! * OOB: one LPN per physical page, 4 bytes (the page's out-of-band area).
//!   A page is valid exactly when `l2p[oob[ppn]].ppn == ppn`, so no valid
//!   bitmap has to be kept in step. The write time of a valid page is
//!   `l2p[oob[ppn]].written_at`.
//! * Optional content tags, 8 bytes per physical page, only when asked for
//!   (tests and content-aware features).
//!
//! * A valid bitmap, 1 bit per physical page, redundant with the rule above:
//!   GC walks the set bits of a victim instead of probing the mapping for
//!   every page, so only live pages cost a random access. It is 256 KiB per
//!   GiB of flash and stays in cache, where the mapping does not.
//!
//! Hence at most 12.2 bytes per physical page without content tracking.

pub mod block_device;
pub mod check;
mod copy_first;
pub mod dftl;
pub mod durability;
pub mod fdp;
pub mod fingerprint_index;
pub mod frontier;
pub mod recovery;
pub mod remap;
pub mod sharing;
pub mod zoned;

use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::Config;
use crate::error::SimError;
use crate::flash::{BlockState, BlockTable, Geometry, Lpn, Ppn, NONE};
use crate::metrics::{Counters, LogHistogram, StreamCounters, WearSummary};
use crate::rng;
use crate::segments::{FreePool, GcPolicy, VictimIndex};
use frontier::{Frontier, FrontierKey, GcPage, Placement, Scheme};
use sharing::Sharing;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C)]
pub struct MapEntry {
    pub ppn: Ppn,
    /// Logical time of the host write, truncated to 32 bits: survival times
    /// are wrapping differences, exact for pages that live under 2^32 writes.
    pub written_at: u32,
}

const UNMAPPED: MapEntry = MapEntry {
    ppn: NONE,
    written_at: 0,
};

/// Why pages are being migrated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reclaim {
    Gc,
    WearLeveling,
}

/// A flash operation, as the timing model sees it. Recorded only when the op
/// log is on, so WAF-only studies pay nothing for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlashOp {
    /// A page read: a host read (`gc` false) or a GC / wear-leveling migration read.
    Read {
        ppn: Ppn,
        gc: bool,
    },
    /// A page program: host data (`gc` false) or a migrated page.
    Program {
        ppn: Ppn,
        gc: bool,
    },
    Erase {
        block: u32,
    },
    /// A translation page read (DFTL mapping cache): the request's later
    /// operations need the mapping it holds, so they wait for it.
    MapRead {
        ppn: Ppn,
    },
}

/// What a page read found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRead {
    pub ppn: Ppn,
    /// The content tag written with the page (0 when content is not tracked).
    pub content: u64,
}

#[derive(Debug, Clone)]
pub struct SsdOptions {
    pub track_content: bool,
    pub survival: bool,
}

impl Default for SsdOptions {
    fn default() -> Self {
        Self {
            track_content: false,
            survival: true,
        }
    }
}

/// A valid page staged by GC between its victim's erase and its new home.
#[derive(Debug, Clone, Copy)]
struct GcStaged {
    lpn: Lpn,
    frontier: u32,
    content: u64,
}

#[derive(Debug, Clone)]
pub struct Ssd {
    pub(crate) geo: Geometry,
    pub(crate) logical_pages: u32,
    pub(crate) l2p: Vec<MapEntry>,
    /// OOB: the LPN each physical page was programmed with.
    pub(crate) oob_lpn: Vec<Lpn>,
    /// Bit `ppn` set when the page holds live data.
    pub(crate) valid_bits: Vec<u64>,
    pub(crate) content: Option<Vec<u64>>,
    pub(crate) blocks: BlockTable,
    pub(crate) pool: FreePool,
    /// Full blocks GC may choose: those of reclaim group 0 (all blocks
    /// without FDP reclaim groups) ...
    pub(crate) victims: VictimIndex,
    /// ... and those of reclaim groups 1.. under FDP (empty otherwise).
    pub(crate) group_victims: Vec<VictimIndex>,
    /// Blocks per reclaim group: all of them without FDP reclaim groups.
    pub(crate) group_blocks: u32,
    pub(crate) frontiers: Vec<Frontier>,
    pub(crate) placement: Placement,
    gc_rng: Xoshiro256PlusPlus,
    /// Logical time: host page writes so far.
    pub(crate) now: u64,
    next_seq: u64,
    pub(crate) gc_low: u32,
    pub(crate) gc_high: u32,
    pe_limit: u32,
    wl_threshold: u32,
    erases_since_wl_check: u32,
    pub(crate) retired: u32,
    /// Blocks the device needs to hold its logical space and keep GC going.
    min_usable_blocks: u32,
    /// GC staging buffer: the victim's valid pages and where each goes.
    gc_buffer: Vec<GcStaged>,
    /// Many-to-one mapping state (dedup, remap, clone), when on.
    pub(crate) sharing: Option<Sharing>,
    pub counters: Counters,
    /// Zoned mode: zone write pointers (`device.zoned`).
    pub(crate) zones: Option<zoned::Zones>,
    /// GC trigger and target as configured; `gc_low`/`gc_high` drop to
    /// `gc_floor` while a layer above cleans (`Hint::UpperGcStarted`).
    gc_low_configured: u32,
    gc_high_configured: u32,
    /// The hard watermark: free blocks GC always keeps (one for a victim
    /// that retires under wear-out, two under power-loss tracking).
    gc_floor: u32,
    /// Per host stream: pages written (by requests, counted in `submit`),
    /// GC copies out of its blocks, blocks opened.
    pub stream_counters: Vec<StreamCounters>,
    pub survival: Option<LogHistogram>,
    /// Survival by the stream of the block a page died in: host streams
    /// `0..streams`, then their internal streams; on with several streams
    /// or internal streams (and survival).
    stream_survival: Option<Vec<LogHistogram>>,
    /// Flash operations since the last `take_ops`, when the op log is on.
    ops: Option<Vec<FlashOp>>,
    /// The flash image, journal and checkpoints, when power-loss tracking is on.
    pub(crate) durability: Option<Box<durability::Durability>>,
    /// Flash blocks per erase unit: the blocks of a reclaim unit under FDP
    /// (the FTL's `geo` then counts reclaim units as blocks), else 1.
    erase_unit_blocks: u32,
    /// NVMe FDP state (`ftl.fdp`), when on.
    pub(crate) fdp: Option<fdp::Fdp>,
    /// The DFTL cached mapping table (`ftl.mapping_cache_entries`), when on.
    pub(crate) cmt: Option<Box<dftl::MappingCache>>,
}

impl Ssd {
    /// Builds an erased device. The config must have passed `Config::validate`.
    pub fn new(cfg: &Config, options: &SsdOptions) -> Result<Self, SimError> {
        cfg.validate()?;
        let geo = Geometry::from_config(&cfg.device);
        // Under FDP a reclaim unit is written and erased as one, so the FTL
        // sees it as one block of `fdp_ru_blocks` flash blocks. A reclaim
        // unit's blocks are consecutive, so a page's number is the same in
        // either view and the timing model's page layout does not change.
        let erase_unit_blocks = cfg.ftl.erase_unit_blocks();
        let mut geo = geo.with_pages_per_block(geo.pages_per_block * erase_unit_blocks);
        geo.blocks /= erase_unit_blocks;
        let logical_pages =
            u32::try_from(cfg.logical_pages()).expect("validated: pages fit in u32");
        let physical = geo.physical_pages() as usize;
        let placement = Placement::from_config(cfg);
        let mut frontiers = placement.frontiers();
        // The DFTL mapping cache: translation pages are internal LPNs above
        // the host's, on a frontier of their own.
        let cache_entries = u32::try_from(cfg.ftl.mapping_cache_entries)
            .expect("validated: at most the logical pages");
        let entries_per_page =
            u32::try_from(cfg.translation_entries_per_page()).expect("page bytes fit in u32");
        let translation_pages = if cache_entries > 0 {
            dftl::MappingCache::pages_for(logical_pages, entries_per_page)
        } else {
            0
        };
        let cmt = (cache_entries > 0).then(|| {
            let mut f = frontiers[placement.host_frontier(0)].clone();
            f.block = NONE;
            frontiers.push(f);
            Box::new(dftl::MappingCache::new(
                cache_entries,
                logical_pages,
                entries_per_page,
                frontiers.len() - 1,
            ))
        });
        let per_stream_survival =
            cfg.ftl.placement_ids() > 1 || placement.scheme() == Scheme::Internal;
        let blocks = BlockTable::new(geo.blocks);
        let groups = if cfg.ftl.fdp {
            cfg.ftl.fdp_reclaim_groups.max(1)
        } else {
            1
        };
        let group_blocks = geo.blocks / groups;
        let mut pool = FreePool::new(groups, group_blocks);
        for b in 0..geo.blocks {
            pool.insert(b, 0);
        }
        let ppb = geo.pages_per_block;
        let min_usable_blocks =
            (logical_pages + translation_pages).div_ceil(ppb) + frontiers.len() as u32 + 1;
        // With wear-out on, a victim can retire at its erase instead of
        // returning to the pool; one free block kept in reserve gives its
        // valid pages a home. Without wear-out no reserve is needed.
        let gc_floor = u32::from(cfg.device.pe_cycle_limit > 0);
        let gc_policy = GcPolicy::new(cfg.ftl.gc_policy, cfg.ftl.gc_choices, "ftl.gc_choices")?;
        let gc_low = cfg.ftl.gc_low_watermark.max(gc_floor);
        let mut ssd = Self {
            geo,
            logical_pages,
            l2p: crate::mem::filled_vec((logical_pages + translation_pages) as usize, UNMAPPED),
            oob_lpn: crate::mem::filled_vec(physical, NONE),
            valid_bits: vec![0; physical.div_ceil(64)],
            // Dedup keys pages by content, so it always keeps fingerprints.
            content: (options.track_content || cfg.ftl.dedup)
                .then(|| crate::mem::filled_vec(physical, 0)),
            blocks,
            pool,
            victims: VictimIndex::new(gc_policy, geo.blocks, ppb),
            group_victims: (1..groups)
                .map(|_| VictimIndex::new(gc_policy, geo.blocks, ppb))
                .collect(),
            group_blocks,
            frontiers,
            placement,
            gc_rng: rng::stream(cfg.workload.seed, "gc"),
            now: 0,
            next_seq: 0,
            gc_low,
            gc_high: cfg.ftl.gc_high_watermark.max(gc_low),
            gc_low_configured: gc_low,
            gc_floor,
            gc_high_configured: cfg.ftl.gc_high_watermark.max(gc_low),
            zones: zoned::Zones::from_config(cfg),
            pe_limit: cfg.device.pe_cycle_limit,
            wl_threshold: cfg.ftl.wear_leveling_threshold,
            erases_since_wl_check: 0,
            retired: 0,
            min_usable_blocks,
            gc_buffer: Vec::with_capacity(ppb as usize),
            counters: Counters::default(),
            stream_counters: vec![StreamCounters::default(); usize::from(cfg.ftl.placement_ids())],
            survival: options.survival.then(LogHistogram::default),
            stream_survival: (options.survival && per_stream_survival)
                .then(|| vec![LogHistogram::default(); 2 * usize::from(cfg.ftl.placement_ids())]),
            ops: None,
            sharing: cfg.sharing().then(|| {
                Sharing::new(
                    physical,
                    logical_pages as usize,
                    cfg.ftl.dedup,
                    cfg.ftl.verify_content,
                )
            }),
            durability: None,
            erase_unit_blocks,
            fdp: cfg.ftl.fdp.then(|| fdp::Fdp::from_config(cfg)),
            cmt,
        };
        if cfg.ftl.power_loss_tracking() {
            ssd.durability = Some(Box::new(durability::Durability::new(cfg)));
            ssd.keep_gc_spare();
        }
        Ok(ssd)
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn logical_pages(&self) -> u32 {
        self.logical_pages
    }

    /// Logical time: host page writes so far.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Flash blocks in the free pool (whole reclaim units under FDP).
    pub fn free_blocks(&self) -> u32 {
        self.pool.len() * self.erase_unit_blocks
    }

    /// Flash blocks retired at the P/E limit (whole reclaim units under FDP).
    pub fn retired_blocks(&self) -> u32 {
        self.retired * self.erase_unit_blocks
    }

    pub fn erase_counts(&self) -> &[u32] {
        &self.blocks.erase_count
    }

    pub fn wear(&self) -> WearSummary {
        WearSummary::of(&self.blocks.erase_count)
    }

    /// Bytes of simulator state per physical page (mapping, OOB, content, block table).
    pub fn state_bytes_per_physical_page(&self) -> f64 {
        let l2p = self.l2p.len() * std::mem::size_of::<MapEntry>();
        let oob = self.oob_lpn.len() * std::mem::size_of::<Lpn>() + self.valid_bits.len() * 8;
        let content = self.content.as_ref().map_or(0, |c| c.len() * 8)
            + self.sharing.as_ref().map_or(0, Sharing::state_bytes)
            + self.durability.as_ref().map_or(0, |d| d.state_bytes())
            + self.cmt.as_ref().map_or(0, |c| c.state_bytes());
        // state, valid, write_ptr, erase_count, owner, seq, last_write_at, plus victim links
        let per_block = 1 + 4 + 4 + 4 + 4 + 8 + 8 + 8;
        let blocks = self.geo.blocks as usize * per_block;
        (l2p + oob + content + blocks) as f64 / self.geo.physical_pages() as f64
    }

    #[inline]
    fn check_lpn(&self, lpn: u64) -> Result<Lpn, SimError> {
        if lpn < u64::from(self.logical_pages) {
            Ok(lpn as Lpn)
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
    pub fn write_page(&mut self, lpn: u64, stream: u16, content: u64) -> Result<(), SimError> {
        let stream = self.resolve_stream(stream)?;
        self.write_page_of_stream(lpn, stream, content)
    }

    /// `write_page` for a stream already checked (a request checks it once
    /// for all its pages). Inlined into the request loop: a call here cost
    /// about 16 instructions per page in prologue, epilogue and a result
    /// returned through memory.
    #[inline(always)]
    pub(crate) fn write_page_of_stream(
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
        if self.durability.is_some() {
            return self.write_page_tracked(lpn, stream, content);
        }
        if self.cmt.is_some() {
            return self.write_page_cached(lpn, stream, content);
        }
        self.write_page_mapped(lpn, stream, content)
    }

    /// The plain write of a host page whose mapping entry is at hand.
    #[inline(always)]
    pub(crate) fn write_page_mapped(
        &mut self,
        lpn: Lpn,
        stream: u16,
        content: u64,
    ) -> Result<(), SimError> {
        self.now += 1;
        let old = self.l2p[lpn as usize];
        if old.ppn != NONE {
            // Unmap before allocating: GC must not migrate the page this write kills.
            self.l2p[lpn as usize].ppn = NONE;
            self.invalidate(old);
        }
        let frontier = self.placement.host_frontier(stream);
        let ppn = self.next_page(frontier, true)?;
        // Counted once it has a page: a write refused at end of life is not a host write.
        self.counters.host_write_pages += 1;
        self.program(ppn, lpn, content);
        self.log(FlashOp::Program { ppn, gc: false });
        self.l2p[lpn as usize] = MapEntry {
            ppn,
            written_at: self.now as u32,
        };
        Ok(())
    }

    /// Host streams the device offers.
    pub fn streams(&self) -> u16 {
        self.placement.streams()
    }

    #[inline]
    pub(crate) fn check_stream(&self, stream: u16) -> Result<(), SimError> {
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
    pub(crate) fn resolve_stream(&mut self, stream: u16) -> Result<u16, SimError> {
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
        let ppn = self.l2p[lpn as usize].ppn;
        if ppn == NONE {
            self.counters.host_read_unmapped_pages += 1;
            return Ok(None);
        }
        let content = self.content.as_ref().map_or(0, |c| c[ppn as usize]);
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
        let old = self.l2p[lpn as usize];
        if old.ppn != NONE {
            if self.cmt.is_some() {
                self.map_dirty(lpn);
            }
            self.l2p[lpn as usize] = UNMAPPED;
            self.invalidate(old);
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

    /// Starts recording flash operations (for the timing model).
    pub fn enable_op_log(&mut self) {
        self.ops.get_or_insert_with(Vec::new);
    }

    /// Operations recorded since the last [`Ssd::take_ops`].
    #[inline]
    pub fn logged_ops(&self) -> usize {
        self.ops.as_ref().map_or(0, Vec::len)
    }

    /// Moves the operations recorded since the last call into `out` (cleared first).
    pub fn take_ops(&mut self, out: &mut Vec<FlashOp>) {
        out.clear();
        if let Some(ops) = &mut self.ops {
            std::mem::swap(ops, out);
        }
    }

    #[inline]
    fn log(&mut self, op: FlashOp) {
        if let Some(ops) = &mut self.ops {
            ops.push(op);
        }
    }

    /// Hints that `lpn` will be written or read soon (start fetching its map entry).
    #[inline]
    pub fn prefetch(&self, lpn: u64) {
        if lpn < u64::from(self.logical_pages) {
            prefetch(&self.l2p, lpn as usize);
        }
    }

    /// The physical page an LPN maps to (`get_ppn`).
    pub fn lookup(&self, lpn: u64) -> Option<Ppn> {
        let lpn = self.check_lpn(lpn).ok()?;
        let ppn = self.l2p[lpn as usize].ppn;
        (ppn != NONE).then_some(ppn)
    }

    /// The content tag of `lpn`'s data (content tracking on), without
    /// counting a host read; `None` when it holds no data.
    pub fn content_of(&self, lpn: u64) -> Option<u64> {
        let ppn = self.lookup(lpn)?;
        Some(self.content.as_ref().map_or(0, |c| c[ppn as usize]))
    }

    /// The stream the block holding `ppn` was opened for.
    pub fn block_stream(&self, ppn: Ppn) -> u16 {
        self.blocks.stream[self.geo.block_of(ppn) as usize]
    }

    /// The LPN stored in a physical page's OOB, if the page holds live data (`get_lpn`).
    pub fn reverse_lookup(&self, ppn: Ppn) -> Option<Lpn> {
        let lpn = *self.oob_lpn.get(ppn as usize)?;
        (lpn != NONE && self.l2p[lpn as usize].ppn == ppn).then_some(lpn)
    }

    // Inlined into the write loop: out of line its prologue and epilogue
    // cost about 13 instructions per overwrite.
    #[inline(always)]
    fn invalidate(&mut self, old: MapEntry) {
        let b = self.invalidate_page(old.ppn);
        if let Some(h) = &mut self.survival {
            let age = u64::from((self.now as u32).wrapping_sub(old.written_at));
            h.record(age);
            if self.stream_survival.is_some() {
                self.record_stream_survival(b, age);
            }
        }
    }

    /// Clears page `ppn`'s valid state (count, bit, victim index); returns
    /// its block. Survival is the caller's (host data only).
    #[inline(always)]
    fn invalidate_page(&mut self, ppn: Ppn) -> usize {
        let block = self.geo.block_of(ppn);
        let b = block as usize;
        debug_assert!(
            self.blocks.valid[b] > 0,
            "invalidating a page of block {block} with no valid pages"
        );
        self.blocks.valid[b] -= 1;
        self.valid_bits[(ppn / 64) as usize] &= !(1u64 << (ppn % 64));
        if self.blocks.state[b] == BlockState::Full {
            victim_index(
                &mut self.victims,
                &mut self.group_victims,
                self.group_blocks,
                block,
            )
            .on_invalidate(block, self.blocks.valid[b]);
        }
        b
    }

    /// A page of `block` died at `age`: count it for the block's stream,
    /// host or internal.
    #[inline(never)]
    pub(crate) fn record_stream_survival(&mut self, block: usize, age: u64) {
        let streams = usize::from(self.placement.streams());
        let stream = usize::from(self.blocks.stream[block]).min(streams - 1);
        let i = stream
            + if self.blocks.internal[block] {
                streams
            } else {
                0
            };
        if let Some(hs) = &mut self.stream_survival {
            hs[i].record(age);
        }
    }

    /// Survival of the pages that died in blocks of host stream `stream`
    /// (`internal` false) or of its internal stream; `None` when
    /// per-stream survival is off (one stream and no internal streams, or
    /// survival off).
    pub fn stream_survival(&self, stream: u16, internal: bool) -> Option<&LogHistogram> {
        let hs = self.stream_survival.as_ref()?;
        let streams = usize::from(self.placement.streams());
        hs.get(usize::from(stream) + if internal { streams } else { 0 })
    }

    /// Programs `lpn` into `ppn` (already allocated by `next_page`).
    #[inline]
    fn program(&mut self, ppn: Ppn, lpn: Lpn, content: u64) {
        let block = self.program_cells(ppn, lpn, content);
        if self.blocks.write_ptr[block as usize] == self.geo.pages_per_block {
            self.close_block(block);
        }
    }

    /// What programming a page records, whoever allocated it (a frontier,
    /// or a zone's write pointer): OOB, valid bit, content, counters.
    /// Returns the page's block.
    #[inline(always)]
    pub(crate) fn program_cells(&mut self, ppn: Ppn, lpn: Lpn, content: u64) -> u32 {
        self.oob_lpn[ppn as usize] = lpn;
        self.valid_bits[(ppn / 64) as usize] |= 1u64 << (ppn % 64);
        if let Some(c) = &mut self.content {
            c[ppn as usize] = content;
        }
        self.counters.nand_write_pages += 1;
        let block = self.geo.block_of(ppn);
        let b = block as usize;
        self.blocks.valid[b] += 1;
        self.blocks.last_write_at[b] = self.now;
        block
    }

    fn close_block(&mut self, block: u32) {
        let b = block as usize;
        let owner = self.blocks.owner[b] as usize;
        debug_assert_eq!(self.frontiers[owner].block, block);
        self.frontiers[owner].block = NONE;
        self.blocks.state[b] = BlockState::Full;
        self.blocks.owner[b] = NONE;
        self.victim_insert(block);
    }

    #[inline]
    fn has_room(&self, frontier: usize) -> bool {
        let block = self.frontiers[frontier].block;
        block != NONE && self.blocks.write_ptr[block as usize] < self.geo.pages_per_block
    }

    /// Allocates the next page of `frontier`, opening a block (and, for host
    /// frontiers, collecting garbage first) when it is full.
    #[inline]
    fn next_page(&mut self, frontier: usize, host: bool) -> Result<Ppn, SimError> {
        if !self.has_room(frontier) {
            if host && self.pool.len_in(self.frontiers[frontier].group) <= self.gc_low {
                self.collect(frontier)?;
            }
            if !self.has_room(frontier) {
                self.open_block(frontier)?;
            }
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

    fn full_error(&self) -> SimError {
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

    /// Reclaims victims until the free pool holds more than the high
    /// watermark, or until GC copies have opened room in `frontier` and the
    /// pool is at or above the low watermark. Bounded: a pass that reclaims
    /// every block without gaining space means the device is full.
    fn collect(&mut self, frontier: usize) -> Result<(), SimError> {
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
                // Reclaiming a fully valid block gains nothing. Greedy chose the
                // emptiest block, so nothing can be gained at all; other
                // policies may have chosen badly, so give them one full pass.
                fruitless += 1;
                if self.victims.policy() == GcPolicy::Greedy || fruitless > self.geo.blocks {
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
    fn reclaim(&mut self, victim: u32, why: Reclaim) -> Result<(), SimError> {
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
        // Without sharing every copy is a page of one reference and no
        // recorded age: one frontier for the whole victim, chosen once
        // (per page it cost about 8 instructions of every GC copy).
        let unshared_frontier =
            self.placement
                .gc_frontier(GcPage { refs: 1, age: 0 }, mean_single, origin_stream)
                as u32;
        let first = self.geo.first_page(victim);
        for ppn in first..first + self.geo.pages_per_block {
            if self.valid_bits[(ppn / 64) as usize] & (1u64 << (ppn % 64)) != 0 {
                let lpn = self.oob_lpn[ppn as usize];
                // The mapping entry is rewritten below: start fetching it now.
                prefetch(&self.l2p, lpn as usize);
                let content = self.content.as_ref().map_or(0, |c| c[ppn as usize]);
                let frontier = if self.sharing.is_some() {
                    let page = self.stage_shared(ppn);
                    self.placement.gc_frontier(page, mean_single, origin_stream) as u32
                } else {
                    unshared_frontier
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
        assert_eq!(
            self.gc_buffer.len() as u32,
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
            self.land_staged_of::<true>(victim)?;
        }
        self.erase(victim);
        if !copy_first {
            if self.durability.is_some() {
                self.land_staged_of::<true>(victim)?;
            } else {
                self.land_staged_of::<false>(victim)?;
            }
        }
        if let Some(d) = &mut self.durability {
            d.in_gc = false;
        }
        Ok(())
    }

    /// `land_staged` with or without sharing, each its own loop: with the
    /// sharing work inlined, one loop serving both cost the plain GC path
    /// about 2 % more instructions (Sf 0.07).
    #[inline(always)]
    fn land_staged_of<const TRACKED: bool>(&mut self, victim: u32) -> Result<(), SimError> {
        if self.sharing.is_some() {
            self.land_staged::<TRACKED, true>(victim)
        } else {
            self.land_staged::<TRACKED, false>(victim)
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
            debug_assert_eq!(self.geo.block_of(self.l2p[page.lpn as usize].ppn), victim);
            self.program(ppn, page.lpn, page.content);
            self.log(FlashOp::Program { ppn, gc: true });
            if TRACKED {
                self.durable_gc_copy(i, ppn, page.content);
            }
            self.l2p[page.lpn as usize].ppn = ppn;
            if SHARED {
                self.land_shared(i, ppn, page.content);
            }
        }
        staged.clear();
        self.gc_buffer = staged;
        Ok(())
    }

    /// `gc_room_pages` for `victim`: under FDP only one GC frontier may
    /// take its copies (its handle's, or its reclaim group's), with the
    /// free blocks of its reclaim group.
    fn gc_room_pages_for(&self, victim: u32) -> u64 {
        if self.fdp.is_none() {
            return self.gc_room_pages();
        }
        let origin_stream = self.blocks.stream[victim as usize];
        let f = self
            .placement
            .gc_frontier(GcPage { refs: 1, age: 0 }, 0.0, origin_stream);
        let block = self.frontiers[f].block;
        let ppb = self.geo.pages_per_block;
        let open = if block == NONE {
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
            .filter(|&b| b != NONE)
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
    fn erase(&mut self, block: u32) {
        let b = block as usize;
        let first = self.geo.first_page(block);
        for ppn in first..first + self.geo.pages_per_block {
            self.valid_bits[(ppn / 64) as usize] &= !(1u64 << (ppn % 64));
        }
        self.blocks.valid[b] = 0;
        self.blocks.write_ptr[b] = 0;
        self.blocks.owner[b] = NONE;
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

    /// Valid pages of the next GC victim, when the policy can tell without
    /// choosing (greedy); otherwise a full block, the worst case.
    pub fn next_victim_valid_pages(&mut self) -> u32 {
        let group = self.pool.neediest_group();
        self.group_victims_mut(group)
            .peek_min_valid()
            .unwrap_or(self.geo.pages_per_block)
    }

    /// Background GC: reclaims one victim if the free pool holds fewer than
    /// `target_free` blocks and a victim would gain space. Returns whether it
    /// reclaimed one. The timing model calls this while the device is idle.
    pub fn collect_in_background(&mut self, target_free: u32) -> Result<bool, SimError> {
        // Under FDP reclaim groups: the group with the fewest free units,
        // against its share of the target.
        let group = self.pool.neediest_group();
        if self.pool.len_in(group) * self.pool.groups() >= target_free {
            return Ok(false);
        }
        // No victim that GC can reclaim safely: not now either.
        let Ok(Some(victim)) = self.choose_victim_durably(group) else {
            return Ok(false);
        };
        if self.blocks.valid[victim as usize] == self.geo.pages_per_block {
            // Nothing to gain now; leave it for later.
            self.victim_insert(victim);
            return Ok(false);
        }
        self.reclaim(victim, Reclaim::Gc)?;
        self.counters.background_gc_count += 1;
        self.maybe_level_wear()?;
        if self.cmt.is_some() {
            self.flush_translation_updates()?;
        }
        Ok(true)
    }

    /// Static wear leveling: every so often, when the erase-count gap exceeds
    /// the threshold, relocate the data of the least-worn full block (cold
    /// data pinning a young block) so that the block returns to circulation.
    fn maybe_level_wear(&mut self) -> Result<(), SimError> {
        // Checking scans every block, so do it about once per sixteenth of the device's erases.
        if self.wl_threshold == 0 || self.erases_since_wl_check < (self.geo.blocks / 16).max(1) {
            return Ok(());
        }
        self.erases_since_wl_check = 0;
        let mut coldest = NONE;
        let mut coldest_erases = u32::MAX;
        let mut max_erases = 0;
        for b in 0..self.geo.blocks as usize {
            let e = self.blocks.erase_count[b];
            if self.blocks.state[b] != BlockState::Retired {
                max_erases = max_erases.max(e);
            }
            if self.blocks.state[b] == BlockState::Full && e < coldest_erases {
                coldest = b as u32;
                coldest_erases = e;
            }
        }
        if coldest == NONE || max_erases - coldest_erases <= self.wl_threshold {
            return Ok(());
        }
        if self.durability.is_some() && !self.copy_fits(coldest) {
            // Not now: it could only be erased before its data is copied.
            return Ok(());
        }
        victim_index(
            &mut self.victims,
            &mut self.group_victims,
            self.group_blocks,
            coldest,
        )
        .remove(coldest, &self.blocks);
        self.reclaim(coldest, Reclaim::WearLeveling)
    }

    /// Puts a full block into its reclaim group's victim index.
    #[inline]
    fn victim_insert(&mut self, block: u32) {
        victim_index(
            &mut self.victims,
            &mut self.group_victims,
            self.group_blocks,
            block,
        )
        .insert(block, &self.blocks);
    }

    /// GC's next victim in reclaim group `group` (0 without FDP).
    #[inline]
    fn choose_victim(&mut self, group: u32) -> Option<u32> {
        let index = match group {
            0 => &mut self.victims,
            g => &mut self.group_victims[g as usize - 1],
        };
        index.choose(&self.blocks, &mut self.gc_rng, self.now)
    }

    fn group_victims_mut(&mut self, group: u32) -> &mut VictimIndex {
        match group {
            0 => &mut self.victims,
            g => &mut self.group_victims[g as usize - 1],
        }
    }

    /// Full blocks in every victim index.
    pub(crate) fn victims_len(&self) -> u32 {
        self.victims.len() + self.group_victims.iter().map(VictimIndex::len).sum::<u32>()
    }

    /// The victim index holding `block` (its reclaim group's).
    pub(crate) fn victim_index_of(&self, block: u32) -> &VictimIndex {
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
fn victim_index<'a>(
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

/// Starts loading `slice[index]` into cache without waiting for it.
#[inline(always)]
pub(crate) fn prefetch<T>(slice: &[T], index: usize) {
    debug_assert!(index < slice.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetch is a hint; it never faults and the address is in bounds.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch(slice.as_ptr().add(index).cast::<i8>(), _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, index);
}
