//! The page-mapped FTL: mapping, frontiers and allocation, garbage collection,
//! wear leveling. `Ssd` is the device the host layers write to.
//!
//! This file holds the state and its construction; each concern is a file
//! of its own that adds methods to `Ssd`: `write.rs` (the one write path and
//! the mapping), `alloc.rs` (pages from frontiers, blocks opened and closed),
//! `gc.rs` (collect, reclaim, erase and retirement), `victims.rs` (the victim
//! index of each reclaim group, over `segments::VictimIndex`), `background.rs`,
//! `wear.rs`, `oplog.rs`, `survival.rs`, `placement.rs` (which frontier
//! a page goes to: the dispatch over the placement schemes of `schemes/`); the optional features (sharing,
//! durability, DFTL, FDP, zones) keep theirs. The fields are private to
//! `ftl/`: the rest of the crate goes through methods.
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
mod schemes;
pub mod sharing;
pub mod zoned;

mod alloc;
mod background;
mod classified;
mod gc;
mod log_regime;
mod oplog;
mod placement;
mod plain_chunk;
mod survival;
#[cfg(test)]
mod test_support;
mod victims;
mod wear;
mod write;

pub use oplog::FlashOp;
pub(crate) use plain_chunk::{PlainSource, PlainTables, PlainWrite};
pub use schemes::scheme_names;

use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::Config;
use crate::error::SimError;
use crate::flash::{BlockTable, Geometry, Lpn, Ppn, NO_BLOCK};
use crate::metrics::{Counters, LogHistogram, StreamCounters, WearSummary};
use crate::plan::{DeviceMode, Plan, SsdPlan};
use crate::rng;
use crate::segments::{FreePool, VictimIndex};
use frontier::Frontier;
use gc::GcStaged;
use placement::{Placement, Scheme};
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
    ppn: Ppn::NONE,
    written_at: 0,
};

/// Whether page `ppn`'s bit is set in the valid bitmap `bits`.
#[inline(always)]
fn valid_bit(bits: &[u64], ppn: Ppn) -> bool {
    bits[ppn.index() / 64] & (1u64 << (ppn.get() % 64)) != 0
}

#[inline(always)]
fn set_valid_bit(bits: &mut [u64], ppn: Ppn) {
    bits[ppn.index() / 64] |= 1u64 << (ppn.get() % 64);
}

#[inline(always)]
fn clear_valid_bit(bits: &mut [u64], ppn: Ppn) {
    bits[ppn.index() / 64] &= !(1u64 << (ppn.get() % 64));
}

/// Sets (`on`) or clears the valid bits of the `pages` pages from `first`
/// a word at a time: a whole block at erase, a run of GC copies landing
/// together. Bit by bit these cost about 8 instructions a page (a block
/// erased was about 1,800).
#[inline(always)]
fn set_valid_range(bits: &mut [u64], first: Ppn, pages: u32, on: bool) {
    let mut at = u64::from(first.get());
    let end = at + u64::from(pages);
    while at < end {
        let word_end = ((at / 64 + 1) * 64).min(end);
        let width = word_end - at;
        let mask = if width == 64 {
            u64::MAX
        } else {
            ((1u64 << width) - 1) << (at % 64)
        };
        let word = &mut bits[(at / 64) as usize];
        if on {
            *word |= mask;
        } else {
            *word &= !mask;
        }
        at = word_end;
    }
}

/// A block's valid bits a word at a time, in program order, so that a
/// scan skips a word's dead pages together and visits only the live ones
/// (GC's scan of its victim, a scheme's look at a sealed block).
/// Holds no borrow of the bitmap: the scan may change the device between
/// words.
#[derive(Debug, Clone, Copy)]
struct ValidWords {
    at: u64,
    end: u64,
}

impl ValidWords {
    fn of(first: Ppn, pages: u32) -> Self {
        let at = u64::from(first.get());
        Self {
            at,
            end: at + u64::from(pages),
        }
    }

    /// The next word's first page and its valid bits (bit k: page
    /// first + k), the pages outside the block masked off.
    #[inline(always)]
    fn next(&mut self, bits: &[u64]) -> Option<(u64, u64)> {
        if self.at >= self.end {
            return None;
        }
        let base = self.at;
        let word_end = ((base / 64 + 1) * 64).min(self.end);
        let mut word = bits[(base / 64) as usize] >> (base % 64);
        if word_end - base < 64 {
            word &= (1u64 << (word_end - base)) - 1;
        }
        self.at = word_end;
        Some((base, word))
    }
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

#[derive(Debug, Clone)]
pub struct Ssd {
    geo: Geometry,
    logical_pages: u32,
    l2p: Vec<MapEntry>,
    /// OOB: the LPN each physical page was programmed with.
    oob_lpn: Vec<Lpn>,
    /// Bit `ppn` set when the page holds live data.
    valid_bits: Vec<u64>,
    content: Option<Vec<u64>>,
    blocks: BlockTable,
    pool: FreePool,
    /// Full blocks GC may choose: those of reclaim group 0 (all blocks
    /// without FDP reclaim groups) ...
    victims: VictimIndex,
    /// ... and those of reclaim groups 1.. under FDP (empty otherwise).
    group_victims: Vec<VictimIndex>,
    /// Blocks per reclaim group: all of them without FDP reclaim groups.
    group_blocks: u32,
    frontiers: Vec<Frontier>,
    placement: Placement,
    gc_rng: Xoshiro256PlusPlus,
    /// Logical time: host page writes so far.
    now_pages: u64,
    next_seq: u64,
    gc_low: u32,
    gc_high: u32,
    pe_limit: u32,
    wl_threshold: u32,
    erases_since_wl_check: u32,
    retired: u32,
    /// Blocks the device needs to hold its logical space and keep GC going.
    min_usable_blocks: u32,
    /// GC staging buffer: the victim's valid pages and where each goes.
    gc_buffer: Vec<GcStaged>,
    /// GC's staging when its copies carry only their LPN (`gc.rs`, `Staged`).
    gc_lpns: Vec<Lpn>,
    /// Many-to-one mapping state (dedup, remap, clone), when on.
    sharing: Option<Sharing>,
    counters: Counters,
    /// Zoned mode: zone write pointers (`device.zoned`).
    zones: Option<zoned::Zones>,
    /// GC trigger and target as configured; `gc_low`/`gc_high` drop to
    /// `gc_floor` while a layer above cleans (`Hint::UpperGcStarted`).
    gc_low_configured: u32,
    gc_high_configured: u32,
    /// The hard watermark: free blocks GC always keeps (one for a victim
    /// that retires under wear-out, two under power-loss tracking).
    gc_floor: u32,
    /// Per host stream: pages written (by requests, counted in `submit`),
    /// GC copies out of its blocks, blocks opened.
    stream_counters: Vec<StreamCounters>,
    survival: Option<LogHistogram>,
    /// Survival by the stream of the block a page died in: host streams
    /// `0..streams`, then their internal streams; on with several streams
    /// or internal streams (and survival).
    stream_survival: Option<Vec<LogHistogram>>,
    /// Flash operations since the last `take_ops`, when the op log is on.
    ops: Option<Vec<FlashOp>>,
    /// The flash image, journal and checkpoints, when power-loss tracking is on.
    durability: Option<Box<durability::Durability>>,
    /// Flash blocks per erase unit: the blocks of a reclaim unit under FDP
    /// (the FTL's `geo` then counts reclaim units as blocks), else 1.
    erase_unit_blocks: u32,
    /// NVMe FDP state (`ftl.fdp`), when on.
    fdp: Option<fdp::Fdp>,
    /// The DFTL cached mapping table (`ftl.mapping_cache_entries`), when on.
    cmt: Option<Box<dftl::MappingCache>>,
    /// SepBIT's log regime (`ftl.regime = "log"`, `log_regime.rs`): GC by
    /// the log's garbage proportion after each write request, no
    /// watermarks.
    log: Option<crate::plan::LogPlan>,
}

impl Ssd {
    /// Builds an erased device from a config that plans (`Plan::from_config`).
    pub fn new(cfg: &Config, options: &SsdOptions) -> Result<Self, SimError> {
        Ok(Self::from_plan(&Plan::from_config(cfg)?.ssd, options))
    }

    /// Builds an erased device from its part of the plan.
    pub fn from_plan(plan: &SsdPlan, options: &SsdOptions) -> Self {
        let geo = Geometry::from_config(&plan.device);
        // Under FDP a reclaim unit is written and erased as one, so the FTL
        // sees it as one block of `fdp_ru_blocks` flash blocks. A reclaim
        // unit's blocks are consecutive, so a page's number is the same in
        // either view and the timing model's page layout does not change.
        let (erase_unit_blocks, groups) = match plan.mode {
            DeviceMode::Fdp {
                ru_blocks,
                reclaim_groups,
                ..
            } => (ru_blocks.max(1), reclaim_groups.max(1)),
            DeviceMode::Conventional | DeviceMode::Zoned { .. } => (1, 1),
        };
        let mut geo = geo.with_pages_per_block(geo.pages_per_block * erase_unit_blocks);
        geo.blocks /= erase_unit_blocks;
        let logical_pages = plan.logical_pages;
        let physical = geo.physical_pages() as usize;
        let placement = Placement::from_plan(
            &plan.placement,
            schemes::SchemeSpace {
                logical_pages,
                block_pages: geo.pages_per_block,
                blocks: geo.blocks,
                seed: plan.seed,
            },
        );
        let mut frontiers = placement.frontiers();
        // The DFTL mapping cache: translation pages are internal LPNs above
        // the host's, on a frontier of their own.
        let translation_pages = plan.mapping_cache.map_or(0, |c| {
            dftl::MappingCache::pages_for(logical_pages, c.entries_per_page)
        });
        let cmt = plan.mapping_cache.map(|c| {
            let mut f = frontiers[placement.host_frontier(0)].clone();
            f.block = NO_BLOCK;
            frontiers.push(f);
            Box::new(dftl::MappingCache::new(
                c.entries,
                logical_pages,
                c.entries_per_page,
                frontiers.len() - 1,
            ))
        });
        let per_stream_survival = plan.streams > 1 || placement.scheme() == Scheme::Internal;
        let blocks = BlockTable::new(geo.blocks);
        let group_blocks = geo.blocks / groups;
        let mut pool = FreePool::new(groups, group_blocks);
        for b in 0..geo.blocks {
            pool.insert(b, 0);
        }
        let ppb = geo.pages_per_block;
        let min_usable_blocks =
            (logical_pages + translation_pages).div_ceil(ppb) + frontiers.len() as u32 + 1;
        let gc = plan.gc;
        let mut ssd = Self {
            geo,
            logical_pages,
            l2p: crate::mem::filled_vec((logical_pages + translation_pages) as usize, UNMAPPED),
            oob_lpn: crate::mem::filled_vec(physical, Lpn::NONE),
            valid_bits: vec![0; physical.div_ceil(64)],
            content: (options.track_content || plan.keeps_content())
                .then(|| crate::mem::filled_vec(physical, 0)),
            blocks,
            pool,
            victims: VictimIndex::new(gc.policy, geo.blocks, ppb),
            group_victims: (1..groups)
                .map(|_| VictimIndex::new(gc.policy, geo.blocks, ppb))
                .collect(),
            group_blocks,
            frontiers,
            placement,
            gc_rng: rng::stream(plan.seed, "gc"),
            now_pages: 0,
            next_seq: 0,
            gc_low: gc.low_watermark,
            gc_high: gc.high_watermark,
            gc_low_configured: gc.low_watermark,
            gc_floor: gc.floor,
            gc_high_configured: gc.high_watermark,
            zones: zoned::Zones::of(plan),
            pe_limit: plan.device.pe_cycle_limit,
            wl_threshold: plan.wear_leveling_threshold,
            erases_since_wl_check: 0,
            retired: 0,
            min_usable_blocks,
            gc_buffer: Vec::with_capacity(ppb as usize),
            gc_lpns: Vec::with_capacity(ppb as usize),
            counters: Counters::default(),
            stream_counters: vec![StreamCounters::default(); usize::from(plan.streams)],
            survival: options.survival.then(LogHistogram::default),
            stream_survival: (options.survival && per_stream_survival)
                .then(|| vec![LogHistogram::default(); 2 * usize::from(plan.streams)]),
            ops: None,
            sharing: plan
                .sharing
                .map(|s| Sharing::new(physical, logical_pages as usize, s.dedup, s.verify_content)),
            durability: None,
            erase_unit_blocks,
            fdp: fdp::Fdp::of(plan.mode),
            cmt,
            log: plan.log,
        };
        if let Some(durability) = &plan.durability {
            ssd.durability = Some(Box::new(durability::Durability::new(
                durability,
                &plan.device,
            )));
            ssd.keep_gc_spare();
        }
        ssd
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    pub fn logical_pages(&self) -> u32 {
        self.logical_pages
    }

    /// Entries in the L2P table (the logical pages, and the translation
    /// pages of the DFTL mapping cache), each a [`MapEntry`]: the size of
    /// the table `ftlsim bench`'s memory-limit loop updates at random.
    pub fn l2p_entries(&self) -> usize {
        self.l2p.len()
    }

    /// Logical time: host page writes so far.
    pub fn now(&self) -> u64 {
        self.now_pages
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
    /// The device's counters since it was built (the engine alone updates them).
    #[inline]
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Each stream's counters since the device was built, stream 0 first.
    pub fn stream_counters(&self) -> &[StreamCounters] {
        &self.stream_counters
    }

    /// Survival times of invalidated pages (`metrics.survival`), if kept.
    pub fn survival(&self) -> Option<&LogHistogram> {
        self.survival.as_ref()
    }

    pub fn state_bytes_per_physical_page(&self) -> f64 {
        let l2p = self.l2p.len() * std::mem::size_of::<MapEntry>();
        let oob = self.oob_lpn.len() * std::mem::size_of::<Lpn>() + self.valid_bits.len() * 8;
        let content = self.content.as_ref().map_or(0, |c| c.len() * 8)
            + self.sharing.as_ref().map_or(0, Sharing::state_bytes)
            + self.durability.as_ref().map_or(0, |d| d.state_bytes())
            + self.cmt.as_ref().map_or(0, |c| c.state_bytes())
            + self.placement.classes().map_or(0, |c| c.state_bytes());
        // state, valid, write_ptr, erase_count, owner, seq, last_write_at, plus victim links
        let per_block = 1 + 4 + 4 + 4 + 4 + 8 + 8 + 8;
        let blocks = self.geo.blocks as usize * per_block;
        (l2p + oob + content + blocks) as f64 / self.geo.physical_pages() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A range set or cleared a word at a time leaves the bitmap as the
    /// page-by-page loop does, for ranges that start and end inside a
    /// word, span several, or cover whole words.
    #[test]
    fn valid_range_matches_bit_by_bit() {
        for (first, pages) in [
            (0, 64),
            (0, 256),
            (3, 5),
            (60, 10),
            (64, 63),
            (100, 300),
            (7, 1),
        ] {
            for on in [true, false] {
                let start = if on { 0 } else { u64::MAX };
                let mut by_word = vec![start; 8];
                let mut by_bit = by_word.clone();
                set_valid_range(&mut by_word, Ppn::new(first), pages, on);
                for p in first..first + pages {
                    match on {
                        true => set_valid_bit(&mut by_bit, Ppn::new(p)),
                        false => clear_valid_bit(&mut by_bit, Ppn::new(p)),
                    }
                }
                assert_eq!(by_word, by_bit, "pages {first}..+{pages}, set {on}");
            }
        }
    }
}
