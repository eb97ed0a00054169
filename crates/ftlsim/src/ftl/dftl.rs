//! DFTL's cached mapping table (CMT; Gupta et al., ASPLOS'09), on with
//! `ftl.mapping_cache_entries` > 0 (docs/dftl.md).
//!
//! The full L2P table stays the simulator's ground truth; the cache models
//! which of its entries the controller holds in DRAM, and so which host
//! accesses cost flash work:
//! * A translation page holds `page_bytes / 4` consecutive LPNs' entries.
//!   Translation page t is stored as internal LPN `logical_pages + t`, above
//!   the host's space, so GC moves it like any page and its programs count
//!   in `nand_write_pages` (hence in WAF). Fresh translation pages go to a
//!   frontier of their own. Where each translation page lives (DFTL's
//!   global translation directory) is in DRAM: moving one costs nothing more.
//! * A host access (read, write, trim) whose entry is not cached is a miss:
//!   the entry's translation page is read (if it was ever written), and the
//!   entry enters the cache as most recently used, evicting the least
//!   recently used one when full.
//! * Evicting a dirty entry writes its translation page back: read (merge)
//!   and program. DFTL's batch update: every dirty cached entry of that page
//!   is clean after the one write.
//! * GC moving a host page whose entry is cached dirties the entry; one not
//!   cached needs its translation page updated: once per translation page
//!   per victim (read + program), after the victim is reclaimed.

use super::{FlashOp, MapEntry, Ssd};
use crate::error::SimError;
use crate::flash::{Lpn, Ppn};

#[derive(Debug, Clone)]
pub(crate) struct MappingCache {
    capacity: u32,
    len: u32,
    entries_per_page: u32,
    /// The internal LPN of translation page 0.
    first_page_lpn: Lpn,
    /// The frontier fresh translation pages are programmed to.
    frontier: usize,
    /// The LRU list, intrusive over host LPNs: `head` most recently used;
    /// `Lpn::NONE` ends it.
    prev: Vec<Lpn>,
    next: Vec<Lpn>,
    head: Lpn,
    tail: Lpn,
    /// Bit per host LPN: entry cached; entry cached and newer than its
    /// translation page.
    cached: Vec<u64>,
    dirty: Vec<u64>,
    /// Translation pages GC must update, waiting for the flash work in
    /// progress to end (GC runs inside an allocation).
    pending: Vec<u32>,
}

#[inline(always)]
fn bit(bits: &[u64], lpn: Lpn) -> bool {
    bits[lpn.index() / 64] & (1u64 << (lpn.get() % 64)) != 0
}

#[inline(always)]
fn set(bits: &mut [u64], lpn: Lpn, on: bool) {
    let w = &mut bits[lpn.index() / 64];
    if on {
        *w |= 1u64 << (lpn.get() % 64);
    } else {
        *w &= !(1u64 << (lpn.get() % 64));
    }
}

impl MappingCache {
    pub(crate) fn new(
        capacity: u32,
        logical_pages: u32,
        entries_per_page: u32,
        frontier: usize,
    ) -> Self {
        let n = logical_pages as usize;
        Self {
            capacity,
            len: 0,
            entries_per_page,
            first_page_lpn: Lpn::new(logical_pages),
            frontier,
            prev: vec![Lpn::NONE; n],
            next: vec![Lpn::NONE; n],
            head: Lpn::NONE,
            tail: Lpn::NONE,
            cached: vec![0; n.div_ceil(64)],
            dirty: vec![0; n.div_ceil(64)],
            pending: Vec::new(),
        }
    }

    /// Translation pages for `logical_pages` host pages.
    pub(super) fn pages_for(logical_pages: u32, entries_per_page: u32) -> u32 {
        logical_pages.div_ceil(entries_per_page)
    }

    #[inline]
    fn page_of(&self, lpn: Lpn) -> u32 {
        lpn.get() / self.entries_per_page
    }

    pub(super) fn is_cached(&self, lpn: Lpn) -> bool {
        bit(&self.cached, lpn)
    }

    pub(super) fn is_dirty(&self, lpn: Lpn) -> bool {
        bit(&self.dirty, lpn)
    }

    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    pub(crate) fn capacity(&self) -> u32 {
        self.capacity
    }

    fn unlink(&mut self, lpn: Lpn) {
        let (p, n) = (self.prev[lpn.index()], self.next[lpn.index()]);
        if p.is_none() {
            self.head = n;
        } else {
            self.next[p.index()] = n;
        }
        if n.is_none() {
            self.tail = p;
        } else {
            self.prev[n.index()] = p;
        }
    }

    fn push_front(&mut self, lpn: Lpn) {
        self.prev[lpn.index()] = Lpn::NONE;
        self.next[lpn.index()] = self.head;
        if self.head.is_none() {
            self.tail = lpn;
        } else {
            self.prev[self.head.index()] = lpn;
        }
        self.head = lpn;
    }

    /// A hit: `lpn` becomes the most recently used.
    fn touch(&mut self, lpn: Lpn) {
        if self.head != lpn {
            self.unlink(lpn);
            self.push_front(lpn);
        }
    }

    fn insert(&mut self, lpn: Lpn, dirty: bool) {
        debug_assert!(self.len < self.capacity && !self.is_cached(lpn));
        self.push_front(lpn);
        set(&mut self.cached, lpn, true);
        set(&mut self.dirty, lpn, dirty);
        self.len += 1;
    }

    /// Drops the least recently used entry: its LPN and whether it was dirty.
    fn pop_lru(&mut self) -> (Lpn, bool) {
        let lpn = self.tail;
        debug_assert!(!lpn.is_none(), "evicting from an empty cache");
        self.unlink(lpn);
        let dirty = self.is_dirty(lpn);
        set(&mut self.cached, lpn, false);
        set(&mut self.dirty, lpn, false);
        self.len -= 1;
        (lpn, dirty)
    }

    /// Translation page `page` was written: every cached entry of it is clean.
    fn clean_page(&mut self, page: u32) {
        let first = page as usize * self.entries_per_page as usize;
        let end = (first + self.entries_per_page as usize).min(self.prev.len());
        for lpn in first..end {
            set(&mut self.dirty, Lpn::from_index(lpn), false);
        }
    }

    /// State bytes of the cache model (the LRU links and the two bitmaps).
    pub(crate) fn state_bytes(&self) -> usize {
        (self.prev.len() + self.next.len()) * 4 + (self.cached.len() + self.dirty.len()) * 8
    }

    /// The list agrees with the bitmaps and the length; dirty implies cached.
    pub(crate) fn check(&self) -> Result<(), String> {
        let mut seen = 0u32;
        let mut at = self.head;
        let mut before = Lpn::NONE;
        while !at.is_none() {
            if !self.is_cached(at) {
                return Err(format!("LPN {at} is in the LRU list but not cached"));
            }
            if self.prev[at.index()] != before {
                return Err(format!("LPN {at}: LRU back link broken"));
            }
            seen += 1;
            if seen > self.len {
                return Err("LRU list longer than the cache's length".into());
            }
            before = at;
            at = self.next[at.index()];
        }
        if before != self.tail || seen != self.len || self.len > self.capacity {
            return Err(format!(
                "LRU list holds {seen} entries, length says {} (capacity {})",
                self.len, self.capacity
            ));
        }
        let cached: u32 = self.cached.iter().map(|w| w.count_ones()).sum();
        if cached != self.len {
            return Err(format!("{cached} cached bits for {} entries", self.len));
        }
        if let Some(i) = self
            .dirty
            .iter()
            .zip(&self.cached)
            .position(|(d, c)| d & !c != 0)
        {
            return Err(format!("a dirty entry not cached in LPNs {}..", i * 64));
        }
        Ok(())
    }
}

impl Ssd {
    /// Entries in the mapping cache and its capacity; `None` when it is off
    /// (the whole table in DRAM).
    pub fn mapping_cache_len(&self) -> Option<(u32, u32)> {
        self.cmt.as_ref().map(|c| (c.len(), c.capacity()))
    }

    /// Whether `lpn`'s entry is cached and dirty (newer than its
    /// translation page); `None` when the cache is off.
    pub fn mapping_cache_dirty(&self, lpn: Lpn) -> Option<bool> {
        self.cmt.as_ref().map(|c| c.is_dirty(lpn))
    }

    fn cache(&mut self) -> &mut MappingCache {
        self.cmt.as_mut().expect("mapping cache on")
    }

    /// The lookup every host access makes first: a hit moves the entry to
    /// the front; a miss evicts (writing back a dirty victim's translation
    /// page) and reads the entry's translation page. `dirty`: the access
    /// changes the mapping (a write, a trim of a mapped page).
    #[cold]
    #[inline(never)]
    pub(super) fn map_access(&mut self, lpn: Lpn, dirty: bool) -> Result<(), SimError> {
        let c = self.cmt.as_mut().expect("mapping cache on");
        if c.is_cached(lpn) {
            c.touch(lpn);
            if dirty {
                set(&mut c.dirty, lpn, true);
            }
            self.counters.mapping_cache_hits += 1;
            return Ok(());
        }
        self.counters.mapping_cache_misses += 1;
        if c.len == c.capacity {
            let (victim, victim_dirty) = c.pop_lru();
            if victim_dirty {
                let page = c.page_of(victim);
                self.write_translation_page(page)?;
            }
        }
        let c = self.cache();
        let page = c.page_of(lpn);
        c.insert(lpn, dirty);
        self.read_translation_page(page);
        self.flush_translation_updates()
    }

    /// The entry of `lpn` changed without a host access (a trim of a
    /// mapped page after its lookup).
    pub(super) fn map_dirty(&mut self, lpn: Lpn) {
        let c = self.cache();
        debug_assert!(c.is_cached(lpn));
        set(&mut c.dirty, lpn, true);
    }

    /// Reads translation page `page` from flash, if it was ever written
    /// (before that every entry of it is unmapped, known without a read).
    fn read_translation_page(&mut self, page: u32) {
        let lpn = self.cache().first_page_lpn + page;
        let ppn = self.l2p[lpn.index()].ppn;
        if !ppn.is_none() {
            self.counters.translation_read_pages += 1;
            self.log(FlashOp::MapRead { ppn });
        }
    }

    /// Writes translation page `page` back: read the old copy to merge,
    /// program the new one on the translation frontier. Every cached entry
    /// of the page is clean after it.
    fn write_translation_page(&mut self, page: u32) -> Result<(), SimError> {
        self.read_translation_page(page);
        let (lpn, frontier) = {
            let c = self.cache();
            c.clean_page(page);
            (c.first_page_lpn + page, c.frontier)
        };
        let old = self.l2p[lpn.index()];
        if !old.ppn.is_none() {
            // Unmapped first, as a host overwrite: GC must not move the dying copy.
            self.l2p[lpn.index()].ppn = Ppn::NONE;
            self.invalidate_page::<false>(old.ppn);
        }
        // As a host write: the allocation may collect garbage.
        let ppn = self.next_page(frontier, true)?;
        self.counters.translation_write_pages += 1;
        self.program::<false>(ppn, lpn, 0);
        self.log(FlashOp::Program { ppn, gc: false });
        self.l2p[lpn.index()] = MapEntry {
            ppn,
            written_at: self.now_pages as u32,
        };
        Ok(())
    }

    /// GC staged the valid pages of a victim (`gc_buffer`): a host page
    /// whose entry is cached gets its new address in the cache (dirty); the
    /// translation pages of the others are queued for one update each.
    // Out of line and cold: the GC loop it follows must compile as it
    // does with the cache off.
    #[cold]
    #[inline(never)]
    pub(super) fn note_gc_moves(&mut self) {
        let staged = std::mem::take(&mut self.gc_buffer);
        let c = self.cmt.as_mut().expect("mapping cache on");
        let start = c.pending.len();
        for page in &staged {
            // Translation pages themselves move in the DRAM directory only.
            if page.lpn >= c.first_page_lpn {
                continue;
            }
            if c.is_cached(page.lpn) {
                set(&mut c.dirty, page.lpn, true);
            } else {
                c.pending.push(c.page_of(page.lpn));
            }
        }
        // Once per translation page per victim.
        c.pending[start..].sort_unstable();
        let mut kept = start;
        for i in start..c.pending.len() {
            if i == start || c.pending[i] != c.pending[kept - 1] {
                c.pending[kept] = c.pending[i];
                kept += 1;
            }
        }
        c.pending.truncate(kept);
        self.gc_buffer = staged;
    }

    /// Writes the translation pages GC left to update. Each write may
    /// itself collect garbage and queue more; the loop runs until none is
    /// left.
    // Out of line and cold: the GC loop it follows must compile as it
    // does with the cache off.
    #[cold]
    #[inline(never)]
    pub(super) fn flush_translation_updates(&mut self) -> Result<(), SimError> {
        while let Some(page) = self.cache().pending.pop() {
            self.write_translation_page(page)?;
        }
        Ok(())
    }

    /// A host page write with the mapping cache on: the lookup, the write,
    /// then the mapping updates its GC left.
    #[cold]
    #[inline(never)]
    pub(super) fn write_page_cached(
        &mut self,
        lpn: Lpn,
        stream: u16,
        content: u64,
    ) -> Result<(), SimError> {
        self.map_access(lpn, true)?;
        self.write_page_mapped::<false, false>(lpn, stream, content)?;
        self.flush_translation_updates()
    }
}
