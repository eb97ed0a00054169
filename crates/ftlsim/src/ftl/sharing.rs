//! Many-to-one mapping: reference counts, the reverse map, and content
//! deduplication (the remap-based SSD of Coldmap).
//!
//! A physical page may be mapped by several LPNs. One of them is kept in the
//! page's OOB area (always a current mapper, so `l2p[oob[ppn]] == ppn` still
//! identifies live pages). The reverse map is a doubly linked list through
//! the LPNs sharing a page, headed by the OOB LPN: an LPN maps one page at a
//! time, so two flat per-LPN arrays (8 bytes per logical page) hold every
//! list, adding and removing a sharer is O(1), and GC moving a page only
//! re-points the LPNs on its list. With dedup on, a fingerprint index finds
//! a live page holding the same content, and a duplicate write only maps. A
//! page dies when its count reaches zero.

use super::fingerprint_index::FingerprintIndex;
use super::frontier::GcPage;
use super::{clear_valid_bit, valid_bit, MapEntry, Ssd, UNMAPPED};
use crate::error::SimError;
use crate::flash::{BlockState, Lpn, Ppn};
use crate::metrics::LogHistogram;

/// What travels with a shared page when GC migrates it (its LPN list stays
/// where it is: it is keyed by LPN, not by page).
#[derive(Debug, Clone)]
pub(crate) struct StagedShare {
    refs: u32,
    born: u32,
    /// Where the page was: the index is re-pointed only if it named this page.
    from: Ppn,
    data: Option<Box<[u8]>>,
}

/// A content fingerprint computed from page bytes: MurmurHash3 x64-128,
/// folded to the 64 bits the FTL keys pages by.
pub fn fingerprint_of_bytes(data: &[u8]) -> u64 {
    let h = murmur3::murmur3_x64_128(&mut std::io::Cursor::new(data), 0)
        .expect("reading from memory cannot fail");
    crate::hash::fold128(h)
}

/// Per physical page: everything a reference drop touches, in one 16-byte
/// record, so an overwrite costs one cache miss here rather than three.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(16))]
pub struct PageShare {
    /// The page's content fingerprint (dedup index key).
    pub fingerprint: u64,
    /// LPNs mapping to the page (low 31 bits) and, in bit 31, whether the
    /// page has ever been mapped by two or more LPNs (its survival class).
    refs: u32,
    /// Logical time the host programmed the page (GC copies keep it).
    pub born: u32,
}

const EVER_SHARED: u32 = 1 << 31;

impl PageShare {
    /// A page mapped by one LPN (recovery rebuilds shared pages LPN by LPN).
    pub(crate) fn new(fingerprint: u64, born: u32) -> Self {
        Self {
            fingerprint,
            refs: 1,
            born,
        }
    }

    /// LPNs mapping to the page.
    #[inline]
    pub fn refs(&self) -> u32 {
        self.refs & !EVER_SHARED
    }

    /// Whether two or more LPNs have ever mapped the page.
    #[inline]
    pub fn ever_shared(&self) -> bool {
        self.refs & EVER_SHARED != 0
    }
}

#[derive(Debug, Clone)]
pub struct Sharing {
    pub(crate) pages: Vec<PageShare>,
    /// The reverse map: the next and previous LPN mapping the same page
    /// (`Lpn::NONE` at the ends; the head is the page's OOB LPN).
    pub(crate) next_sharer: Vec<Lpn>,
    pub(crate) prev_sharer: Vec<Lpn>,
    /// LPNs on reverse-map lists beyond their page's OOB LPN.
    pub(crate) extra_lpns: u64,
    /// Fingerprint → the live page holding it (dedup only).
    pub(crate) index: Option<FingerprintIndex>,
    pub survival_single: LogHistogram,
    pub survival_multi: LogHistogram,
    pub(crate) staged: Vec<StagedShare>,
    /// Page bytes of live pages, per PPN, when `ftl.verify_content` is on:
    /// a fingerprint match is then confirmed byte for byte.
    pub(crate) data: Option<Vec<Option<Box<[u8]>>>>,
    /// Bytes of the page being written by `write_page_data`, for the write path.
    pub(crate) pending_data: Option<Box<[u8]>>,
    /// Fingerprint matches whose bytes differed (programmed as new pages).
    pub fingerprint_collisions: u64,
}

impl Sharing {
    pub fn new(physical_pages: usize, logical_pages: usize, dedup: bool, verify: bool) -> Self {
        Self {
            pages: crate::mem::filled_vec(physical_pages, PageShare::default()),
            next_sharer: crate::mem::filled_vec(logical_pages, Lpn::NONE),
            prev_sharer: crate::mem::filled_vec(logical_pages, Lpn::NONE),
            extra_lpns: 0,
            // Sized for a full device up front: growing a large index
            // mid-run costs a long pause and double the memory.
            index: dedup.then(|| FingerprintIndex::with_capacity(physical_pages)),
            survival_single: LogHistogram::default(),
            survival_multi: LogHistogram::default(),
            staged: Vec::new(),
            data: verify.then(|| vec![None; physical_pages]),
            pending_data: None,
            fingerprint_collisions: 0,
        }
    }

    /// Bytes of sharing state: per-page records, the reverse map, the index.
    pub fn state_bytes(&self) -> usize {
        let per_page = self.pages.len() * std::mem::size_of::<PageShare>();
        let reverse =
            (self.next_sharer.len() + self.prev_sharer.len()) * std::mem::size_of::<Lpn>();
        let index = self.index.as_ref().map_or(0, FingerprintIndex::bytes);
        per_page + reverse + index
    }

    /// Bytes of the reverse-map table alone.
    pub fn reverse_map_bytes(&self) -> usize {
        (self.next_sharer.len() + self.prev_sharer.len()) * std::mem::size_of::<Lpn>()
    }

    pub fn reverse_map_entries(&self) -> usize {
        self.extra_lpns as usize
    }

    pub fn index_entries(&self) -> usize {
        self.index.as_ref().map_or(0, FingerprintIndex::len)
    }
}

impl Ssd {
    pub fn sharing(&self) -> Option<&Sharing> {
        self.sharing.as_ref()
    }

    /// Every LPN mapping to `ppn` (OOB first), empty when the page is dead.
    pub fn lpns_of(&self, ppn: Ppn) -> Vec<Lpn> {
        let Some(owner) = self.reverse_lookup(ppn) else {
            return Vec::new();
        };
        let mut out = vec![owner];
        if let Some(s) = &self.sharing {
            let mut cursor = s.next_sharer[owner.index()];
            while !cursor.is_none() {
                out.push(cursor);
                cursor = s.next_sharer[cursor.index()];
            }
        }
        out
    }

    /// Writes one page with its bytes: the fingerprint is MurmurHash3 of
    /// the bytes, and with `ftl.verify_content` a duplicate is confirmed by
    /// comparing them (a collision is counted and programmed as a new page).
    pub fn write_page_data(&mut self, lpn: u64, stream: u16, data: &[u8]) -> Result<(), SimError> {
        self.write_page_data_as(lpn, stream, fingerprint_of_bytes(data), data)
    }

    /// Writes one page whose fingerprint is already known (a trace's hash)
    /// together with its bytes.
    pub fn write_page_data_as(
        &mut self,
        lpn: u64,
        stream: u16,
        fingerprint: u64,
        data: &[u8],
    ) -> Result<(), SimError> {
        if let Some(s) = self.sharing.as_mut().filter(|s| s.data.is_some()) {
            s.pending_data = Some(data.into());
        }
        let result = self.write_page(lpn, stream, fingerprint);
        if let Some(s) = self.sharing.as_mut() {
            s.pending_data = None;
        }
        result
    }

    /// The bytes an LPN holds, when content verification keeps them.
    pub fn read_page_data(&self, lpn: u64) -> Option<&[u8]> {
        let ppn = self.lookup(lpn)?;
        self.sharing.as_ref()?.data.as_ref()?[ppn.index()].as_deref()
    }

    /// `lpn` (mapping nothing now) maps to the live page `ppn` too.
    /// Inlined into the dedup write (one call site per loop): out of line
    /// its prologue and re-checks cost more than its body.
    #[inline(always)]
    pub(super) fn add_ref(&mut self, lpn: Lpn, ppn: Ppn) {
        let s = self.sharing.as_mut().expect("sharing on");
        let p = ppn.index();
        debug_assert!(
            s.pages[p].refs() > 0,
            "adding a reference to dead page {ppn}"
        );
        debug_assert!(
            s.next_sharer[lpn.index()].is_none() && s.prev_sharer[lpn.index()].is_none(),
            "LPN {lpn} is still on a reverse-map list"
        );
        s.pages[p].refs = (s.pages[p].refs + 1) | EVER_SHARED;
        // Insert right after the head (the OOB LPN).
        let head = self.oob_lpn[p];
        let after = s.next_sharer[head.index()];
        s.next_sharer[lpn.index()] = after;
        s.prev_sharer[lpn.index()] = head;
        if !after.is_none() {
            s.prev_sharer[after.index()] = lpn;
        }
        s.next_sharer[head.index()] = lpn;
        s.extra_lpns += 1;
    }

    /// `lpn` no longer maps to `ppn`; the page dies with its last reference.
    pub(super) fn drop_ref(&mut self, lpn: Lpn, ppn: Ppn) {
        let now = self.now_pages as u32;
        let s = self.sharing.as_mut().expect("sharing on");
        let p = ppn.index();
        debug_assert!(
            s.pages[p].refs() > 0,
            "dropping a reference to dead page {ppn}"
        );
        s.pages[p].refs -= 1;
        if s.pages[p].refs() > 0 {
            let (before, after) = (s.prev_sharer[lpn.index()], s.next_sharer[lpn.index()]);
            if before.is_none() {
                // The head leaves: its successor becomes the OOB LPN, so the
                // OOB always holds a current mapper.
                debug_assert_eq!(self.oob_lpn[p], lpn);
                self.oob_lpn[p] = after;
            } else {
                s.next_sharer[before.index()] = after;
            }
            if !after.is_none() {
                s.prev_sharer[after.index()] = before;
            }
            s.next_sharer[lpn.index()] = Lpn::NONE;
            s.prev_sharer[lpn.index()] = Lpn::NONE;
            s.extra_lpns -= 1;
            return;
        }
        debug_assert_eq!(self.oob_lpn[p], lpn, "last reference must be the OOB LPN");
        let survival = u64::from(now.wrapping_sub(s.pages[p].born));
        if s.pages[p].ever_shared() {
            s.survival_multi.record(survival);
        } else {
            s.survival_single.record(survival);
        }
        if let Some(index) = s.index.as_mut() {
            index.remove_if(s.pages[p].fingerprint, ppn);
        }
        if let Some(data) = s.data.as_mut() {
            data[p] = None;
        }
        if let Some(h) = &mut self.survival {
            h.record(survival);
            if self.stream_survival.is_some() {
                self.record_stream_survival(self.geo.block_of(ppn) as usize, survival);
            }
        }
        self.kill_page(ppn);
    }

    /// A page lost its last reference: it no longer counts as valid.
    fn kill_page(&mut self, ppn: Ppn) {
        let block = self.geo.block_of(ppn);
        let b = block as usize;
        self.blocks.valid[b] -= 1;
        if self.blocks.state[b] == BlockState::Full {
            super::victims::victim_index(
                &mut self.victims,
                &mut self.group_victims,
                self.group_blocks,
                block,
            )
            .on_invalidate(block, self.blocks.valid[b]);
        }
        clear_valid_bit(&mut self.valid_bits, ppn);
    }

    /// The host write path with many-to-one mapping. Always inlined into
    /// the shared request loop: left to the inliner it went out of line
    /// when the placement schemes grew the FTL (+3 % instructions per
    /// dedup write).
    #[inline(always)]
    pub(super) fn write_page_shared(
        &mut self,
        lpn: Lpn,
        stream: u16,
        content: u64,
    ) -> Result<(), SimError> {
        if self.durability.is_some() {
            self.write_page_shared_as::<true>(lpn, stream, content)
        } else {
            self.write_page_shared_as::<false>(lpn, stream, content)
        }
    }

    /// `TRACKED`: power-loss tracking is on (dedup maps are journaled,
    /// programs stamped, the old page unmapped after allocating); the
    /// untracked instance is the path as it was.
    #[inline(always)]
    fn write_page_shared_as<const TRACKED: bool>(
        &mut self,
        lpn: Lpn,
        stream: u16,
        content: u64,
    ) -> Result<(), SimError> {
        self.now_pages += 1;
        let now = self.now_pages as u32;
        let old_entry = self.l2p[lpn.index()];
        let old = old_entry.ppn;
        let duplicate = self
            .sharing
            .as_ref()
            .and_then(|s| s.index.as_ref())
            .and_then(|i| i.get(content));
        // With verification on and both pages' bytes known, a fingerprint
        // match must also be a byte match.
        let collision = duplicate.is_some_and(|target| {
            let s = self.sharing.as_ref().expect("sharing on");
            match (
                s.data.as_ref().and_then(|d| d[target.index()].as_deref()),
                s.pending_data.as_deref(),
            ) {
                (Some(stored), Some(new)) => stored != new,
                _ => false,
            }
        });
        if collision {
            self.sharing
                .as_mut()
                .expect("sharing on")
                .fingerprint_collisions += 1;
        }
        if let Some(target) = duplicate.filter(|_| !collision) {
            // Same content is live already: map, program nothing.
            self.counters.dedup_hit_pages += 1;
            self.counters.host_write_pages += 1;
            if target != old {
                // Leave the old page's list before joining the target's (an
                // LPN is on one list at a time); the target stays live.
                if !old.is_none() {
                    self.drop_ref(lpn, old);
                }
                self.add_ref(lpn, target);
                self.l2p[lpn.index()].ppn = target;
                if TRACKED {
                    self.durable_map(lpn, target);
                }
            }
            self.l2p[lpn.index()].written_at = now;
            return Ok(());
        }
        if !old.is_none() && !TRACKED {
            self.l2p[lpn.index()].ppn = Ppn::NONE;
            self.drop_ref(lpn, old);
        }
        let frontier = self.stream_write_frontier(lpn, stream, old_entry);
        let ppn = self.next_page(frontier, true)?;
        if TRACKED {
            self.unmap_after_allocating(lpn);
        }
        // Counted once it has a page: a write refused at end of life is not a host write.
        self.counters.host_write_pages += 1;
        self.program::<false>(ppn, lpn, content);
        self.log(super::FlashOp::Program { ppn, gc: false });
        let s = self.sharing.as_mut().expect("sharing on");
        s.pages[ppn.index()] = PageShare {
            fingerprint: content,
            refs: 1,
            born: now,
        };
        if let Some(data) = s.data.as_mut() {
            data[ppn.index()] = s.pending_data.take();
        }
        // A colliding page is not indexed: the index keeps the page it had.
        if let (Some(index), false) = (s.index.as_mut(), collision) {
            index.insert(content, ppn);
        }
        self.l2p[lpn.index()] = MapEntry {
            ppn,
            written_at: now,
        };
        if TRACKED {
            self.durable_host_write(ppn, lpn, content);
        }
        Ok(())
    }

    pub(super) fn trim_page_shared(&mut self, lpn: Lpn) {
        let old = self.l2p[lpn.index()].ppn;
        if !old.is_none() {
            self.l2p[lpn.index()] = UNMAPPED;
            self.drop_ref(lpn, old);
            if self.durability.is_some() {
                self.durable_record(super::durability::RecordKind::Trim { lpn });
            }
        }
    }

    /// Takes the sharing state of a page GC is about to migrate (call before the erase).
    pub(super) fn stage_shared(&mut self, ppn: Ppn) -> GcPage {
        let now = self.now_pages as u32;
        let s = self.sharing.as_mut().expect("sharing on");
        let p = ppn.index();
        let page = s.pages[p];
        // Keep the raw count: it carries the survival-class flag along.
        s.staged.push(StagedShare {
            refs: page.refs,
            born: page.born,
            from: ppn,
            data: s.data.as_mut().and_then(|d| d[p].take()),
        });
        s.pages[p].refs = 0;
        GcPage {
            refs: page.refs(),
            age: u64::from(now.wrapping_sub(page.born)),
        }
    }

    /// Re-attaches the `i`-th staged page's sharing state at its new home
    /// `ppn`, whose OOB already holds the list head: every LPN on the list
    /// now maps there. Inlined into GC's landing loop, as it was before
    /// the loop moved out of `reclaim`.
    #[inline(always)]
    pub(super) fn land_shared(&mut self, i: usize, ppn: Ppn, content: u64) {
        let s = self.sharing.as_mut().expect("sharing on");
        let staged = &mut s.staged[i];
        if let Some(data) = s.data.as_mut() {
            data[ppn.index()] = staged.data.take();
        }
        let (from, refs, born) = (staged.from, staged.refs, staged.born);
        s.pages[ppn.index()] = PageShare {
            fingerprint: content,
            refs,
            born,
        };
        let mut cursor = s.next_sharer[self.oob_lpn[ppn.index()].index()];
        while !cursor.is_none() {
            self.l2p[cursor.index()].ppn = ppn;
            cursor = s.next_sharer[cursor.index()];
        }
        if let Some(index) = s.index.as_mut() {
            index.repoint(content, from, ppn);
        }
    }

    /// Second stage of the write lookahead (the map entry and the index slot
    /// were fetched by the first): fetch the sharing record and OOB of the
    /// page the write will leave, and of the page holding the same content
    /// if there is one (a duplicate will join its reverse-map list).
    #[inline(always)]
    pub fn prefetch_mapped(&self, lpn: u64, content: u64) {
        // Every mode: the valid bit and block counters an overwrite updates,
        // and the victim index's links of that block (a greedy bucket move).
        if let Some(e) = self.l2p.get(lpn as usize) {
            if !e.ppn.is_none() {
                let block = self.geo.block_of(e.ppn);
                crate::mem::prefetch(&self.valid_bits, e.ppn.index() / 64);
                crate::mem::prefetch(&self.blocks.valid, block as usize);
                self.victim_index_of(block).prefetch(block);
            }
        }
        if self.sharing.is_some() {
            self.prefetch_mapped_shared(lpn, content);
        }
    }

    /// `prefetch_mapped`'s sharing records, out of line so that the
    /// driver's loop without sharing stays small.
    #[inline(never)]
    fn prefetch_mapped_shared(&self, lpn: u64, content: u64) {
        self.prefetch_mapped_sharing(lpn, content);
    }

    /// The write lookahead's second and third stages for the driver loop
    /// of a device with sharing on ([`crate::run::target::SharedSsd`]):
    /// every part inlined, so that the stages share their loads and pay
    /// no call (out of line they cost about 45 instructions per request).
    #[inline(always)]
    pub(crate) fn prefetch_mapped_inline(&self, lpn: u64, content: u64) {
        if let Some(e) = self.l2p.get(lpn as usize) {
            if !e.ppn.is_none() {
                let block = self.geo.block_of(e.ppn);
                crate::mem::prefetch(&self.valid_bits, e.ppn.index() / 64);
                crate::mem::prefetch(&self.blocks.valid, block as usize);
                self.victim_index_of(block).prefetch(block);
            }
        }
        self.prefetch_mapped_sharing(lpn, content);
    }

    /// See [`Ssd::prefetch_mapped_inline`].
    #[inline(always)]
    pub(crate) fn prefetch_dying_content_inline(&self, lpn: u64, content: u64) {
        self.prefetch_dying_content_sharing(lpn, content);
    }

    #[inline(always)]
    fn prefetch_mapped_sharing(&self, lpn: u64, content: u64) {
        let Some(s) = &self.sharing else { return };
        if let Some(e) = self.l2p.get(lpn as usize) {
            if !e.ppn.is_none() {
                crate::mem::prefetch(&s.pages, e.ppn.index());
                crate::mem::prefetch(&self.oob_lpn, e.ppn.index());
            }
        }
        crate::mem::prefetch(&s.next_sharer, lpn as usize);
        crate::mem::prefetch(&s.prev_sharer, lpn as usize);
        if let Some(target) = s.index.as_ref().and_then(|i| i.get(content)) {
            crate::mem::prefetch(&s.pages, target.index());
            crate::mem::prefetch(&self.oob_lpn, target.index());
        }
    }

    /// Third stage of the write lookahead: the index slot of the content
    /// that an overwrite of `lpn` will kill (its sharing record was fetched
    /// by the second stage).
    #[inline(always)]
    pub fn prefetch_dying_content(&self, lpn: u64, content: u64) {
        if self.sharing.is_some() {
            self.prefetch_dying_content_shared(lpn, content);
        }
    }

    #[inline(never)]
    fn prefetch_dying_content_shared(&self, lpn: u64, content: u64) {
        self.prefetch_dying_content_sharing(lpn, content);
    }

    #[inline(always)]
    fn prefetch_dying_content_sharing(&self, lpn: u64, content: u64) {
        let Some(s) = &self.sharing else { return };
        if let (Some(index), Some(e)) = (&s.index, self.l2p.get(lpn as usize)) {
            if !e.ppn.is_none() {
                index.prefetch(s.pages[e.ppn.index()].fingerprint);
            }
            // A duplicate joins the list after its head: fetch the head's links.
            if let Some(target) = index.get(content) {
                crate::mem::prefetch(&s.next_sharer, self.oob_lpn[target.index()].index());
            }
        }
    }

    /// The index slot a write of `content` will probe.
    #[inline(always)]
    pub fn prefetch_content(&self, content: u64) {
        if let Some(index) = self.sharing.as_ref().and_then(|s| s.index.as_ref()) {
            index.prefetch(content);
        }
    }

    /// Mean survival of single-mapped pages so far (for age-aware placement).
    pub(super) fn mean_single_survival(&self) -> f64 {
        self.sharing
            .as_ref()
            .map_or(0.0, |s| s.survival_single.mean())
    }

    /// Checks the sharing invariants: reference counts equal the LPNs mapping
    /// each page, the reverse map lists exactly them, the index points at
    /// live pages holding its fingerprints.
    pub(super) fn check_sharing(&self) -> Result<(), SimError> {
        let Some(s) = &self.sharing else {
            return Ok(());
        };
        let fail = |m: String| Err(SimError::Invariant(m));
        let mut mappers = vec![0u32; self.geo.physical_pages() as usize];
        for e in &self.l2p {
            if !e.ppn.is_none() {
                mappers[e.ppn.index()] += 1;
            }
        }
        let mut live = 0usize;
        let mut listed = 0u64;
        for (p, &want) in mappers.iter().enumerate() {
            let ppn = Ppn::from_index(p);
            if s.pages[p].refs() != want {
                return fail(format!(
                    "page {ppn}: reference count {} but {want} LPNs map to it",
                    s.pages[p].refs()
                ));
            }
            if valid_bit(&self.valid_bits, ppn) != (want > 0) {
                return fail(format!(
                    "page {ppn}: valid bit disagrees with {want} references"
                ));
            }
            if want == 0 {
                continue;
            }
            live += 1;
            let head = self.oob_lpn[p];
            if self.l2p[head.index()].ppn != ppn || !s.prev_sharer[head.index()].is_none() {
                return fail(format!(
                    "page {ppn}: OOB LPN {head} does not map to it or is not a list head"
                ));
            }
            // Walk the list: every member maps here, links agree both ways,
            // and the length is the reference count (bounded by it, so a
            // cycle cannot hang the checker).
            let (mut members, mut cursor, mut before) = (1u32, s.next_sharer[head.index()], head);
            while !cursor.is_none() {
                members += 1;
                if members > want {
                    return fail(format!(
                        "page {ppn}: reverse-map list longer than {want} references"
                    ));
                }
                if self.l2p[cursor.index()].ppn != ppn || s.prev_sharer[cursor.index()] != before {
                    return fail(format!("page {ppn}: reverse map lists LPN {cursor} which maps elsewhere or is mislinked"));
                }
                (before, cursor) = (cursor, s.next_sharer[cursor.index()]);
            }
            if members != want {
                return fail(format!(
                    "page {ppn}: {members} LPNs on the reverse map for {want} references"
                ));
            }
            listed += u64::from(members - 1);
        }
        if listed != s.extra_lpns {
            return fail(format!(
                "{listed} LPNs on reverse-map lists but {} counted",
                s.extra_lpns
            ));
        }
        for (lpn, e) in self.l2p.iter().enumerate() {
            if e.ppn.is_none() && !(s.next_sharer[lpn].is_none() && s.prev_sharer[lpn].is_none()) {
                return fail(format!("unmapped LPN {lpn} is still on a reverse-map list"));
            }
        }
        if let (Some(index), Some(content)) = (&s.index, &self.content) {
            for (fp, ppn) in index.iter() {
                let page = s.pages[ppn.index()];
                if page.refs() == 0 || content[ppn.index()] != fp || page.fingerprint != fp {
                    return fail(format!(
                        "index maps fingerprint {fp:#x} to page {ppn}, which is dead or differs"
                    ));
                }
            }
            // Every live page is indexed, except pages whose fingerprint
            // collided with a different live page's (verification on).
            let mut unindexed = 0usize;
            for (p, page) in s.pages.iter().enumerate() {
                let ppn = Ppn::from_index(p);
                if page.refs() == 0 {
                    continue;
                }
                match index.get(page.fingerprint) {
                    Some(q) if q == ppn => {}
                    Some(q) if s.data.is_some() && s.pages[q.index()].refs() > 0 => unindexed += 1,
                    _ => return fail(format!("live page {ppn} is missing from the index")),
                }
            }
            if index.len() + unindexed != live {
                return fail(format!(
                    "{} index entries for {live} live pages",
                    index.len()
                ));
            }
        }
        Ok(())
    }
}
