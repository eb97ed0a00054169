//! Many-to-one mapping: reference counts, the reverse map, and content
//! deduplication (the remap-based SSD of Coldmap).
//!
//! A physical page may be mapped by several LPNs. One of them is kept in the
//! page's OOB area (always a current mapper, so `l2p[oob[ppn]] == ppn` still
//! identifies live pages); the others live in a reverse-map table. With
//! dedup on, a fingerprint index finds a live page holding the same content,
//! and a duplicate write only maps. A page dies when its count reaches zero.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::frontier::GcPage;
use super::{MapEntry, Ssd, UNMAPPED};
use crate::error::SimError;
use crate::flash::{BlockState, Lpn, Ppn, NONE};
use crate::metrics::LogHistogram;

/// Fingerprints are already uniform hashes: mixing them once more with a
/// multiply is enough, and it is deterministic (std's default hasher is seeded).
#[derive(Default, Clone, Copy)]
pub struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
}

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FingerprintHasher>>;

/// What travels with a shared page when GC migrates it.
#[derive(Debug, Clone)]
pub(crate) struct StagedShare {
    refs: u32,
    born: u32,
    ever_shared: bool,
    extras: Option<Vec<Lpn>>,
}

#[derive(Debug, Clone)]
pub struct Sharing {
    /// LPNs mapping to each physical page.
    pub(crate) refs: Vec<u32>,
    /// Logical time the host programmed the page (GC copies keep it).
    pub(crate) born: Vec<u32>,
    /// Bit set when the page has ever been mapped by two or more LPNs.
    pub(crate) ever_shared: Vec<u64>,
    /// The reverse map beyond the OOB LPN.
    pub(crate) extra_lpns: FastMap<Ppn, Vec<Lpn>>,
    /// Fingerprint → the live page holding it (dedup only).
    pub(crate) index: Option<FastMap<u64, Ppn>>,
    pub survival_single: LogHistogram,
    pub survival_multi: LogHistogram,
    pub(crate) staged: Vec<StagedShare>,
}

#[inline]
fn bit(bits: &[u64], i: u32) -> bool {
    bits[(i / 64) as usize] & (1u64 << (i % 64)) != 0
}

#[inline]
fn set_bit(bits: &mut [u64], i: u32, on: bool) {
    let mask = 1u64 << (i % 64);
    if on {
        bits[(i / 64) as usize] |= mask;
    } else {
        bits[(i / 64) as usize] &= !mask;
    }
}

impl Sharing {
    pub fn new(physical_pages: usize, dedup: bool) -> Self {
        Self {
            refs: crate::mem::filled_vec(physical_pages, 0),
            born: crate::mem::filled_vec(physical_pages, 0),
            ever_shared: vec![0; physical_pages.div_ceil(64)],
            extra_lpns: FastMap::default(),
            index: dedup.then(FastMap::default),
            survival_single: LogHistogram::default(),
            survival_multi: LogHistogram::default(),
            staged: Vec::new(),
        }
    }

    /// Bytes of sharing state: per-page arrays, and the tables at their current size.
    pub fn state_bytes(&self) -> usize {
        let per_page = self.refs.len() * 4 + self.born.len() * 4 + self.ever_shared.len() * 8;
        // A hash entry costs its key, value and control byte; a Vec its header and elements.
        let reverse: usize = self
            .extra_lpns
            .values()
            .map(|v| 4 + 24 + 1 + v.capacity() * 4)
            .sum::<usize>();
        let index = self
            .index
            .as_ref()
            .map_or(0, |i| i.capacity() * (8 + 4 + 1));
        per_page + reverse + index
    }

    pub fn reverse_map_entries(&self) -> usize {
        self.extra_lpns.values().map(Vec::len).sum()
    }

    pub fn index_entries(&self) -> usize {
        self.index.as_ref().map_or(0, FastMap::len)
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
        if let Some(extra) = self.sharing.as_ref().and_then(|s| s.extra_lpns.get(&ppn)) {
            out.extend_from_slice(extra);
        }
        out
    }

    /// `lpn` now maps to the live page `ppn` too.
    pub(crate) fn add_ref(&mut self, lpn: Lpn, ppn: Ppn) {
        let s = self.sharing.as_mut().expect("sharing on");
        debug_assert!(
            s.refs[ppn as usize] > 0,
            "adding a reference to dead page {ppn}"
        );
        s.refs[ppn as usize] += 1;
        set_bit(&mut s.ever_shared, ppn, true);
        s.extra_lpns.entry(ppn).or_default().push(lpn);
    }

    /// `lpn` no longer maps to `ppn`; the page dies with its last reference.
    pub(crate) fn drop_ref(&mut self, lpn: Lpn, ppn: Ppn) {
        let now = self.now as u32;
        let s = self.sharing.as_mut().expect("sharing on");
        let p = ppn as usize;
        debug_assert!(s.refs[p] > 0, "dropping a reference to dead page {ppn}");
        s.refs[p] -= 1;
        if s.refs[p] > 0 {
            let extras = s
                .extra_lpns
                .get_mut(&ppn)
                .expect("a shared page has extra LPNs");
            if self.oob_lpn[p] == lpn {
                // Keep a current mapper in the OOB slot.
                self.oob_lpn[p] = extras.pop().expect("refs > 0 beyond the OOB LPN");
            } else {
                let at = extras
                    .iter()
                    .position(|&x| x == lpn)
                    .expect("LPN is in the reverse map");
                extras.swap_remove(at);
            }
            if extras.is_empty() {
                s.extra_lpns.remove(&ppn);
            }
            return;
        }
        debug_assert_eq!(self.oob_lpn[p], lpn, "last reference must be the OOB LPN");
        let survival = u64::from(now.wrapping_sub(s.born[p]));
        if bit(&s.ever_shared, ppn) {
            s.survival_multi.record(survival);
        } else {
            s.survival_single.record(survival);
        }
        if let (Some(index), Some(content)) = (s.index.as_mut(), self.content.as_ref()) {
            if index.get(&content[p]) == Some(&ppn) {
                index.remove(&content[p]);
            }
        }
        if let Some(h) = &mut self.survival {
            h.record(survival);
        }
        self.kill_page(ppn);
    }

    /// A page lost its last reference: it no longer counts as valid.
    fn kill_page(&mut self, ppn: Ppn) {
        let block = self.geo.block_of(ppn);
        let b = block as usize;
        self.blocks.valid[b] -= 1;
        if self.blocks.state[b] == BlockState::Full {
            self.victims.on_invalidate(block, self.blocks.valid[b]);
        }
        set_bit(&mut self.valid_bits, ppn, false);
    }

    /// The host write path with many-to-one mapping.
    pub(crate) fn write_page_shared(
        &mut self,
        lpn: Lpn,
        stream: u16,
        content: u64,
    ) -> Result<(), SimError> {
        self.now += 1;
        self.counters.host_write_pages += 1;
        let now = self.now as u32;
        let old = self.l2p[lpn as usize].ppn;
        let duplicate = self
            .sharing
            .as_ref()
            .and_then(|s| s.index.as_ref())
            .and_then(|i| i.get(&content))
            .copied();
        if let Some(target) = duplicate {
            // Same content is live already: map, program nothing.
            self.counters.dedup_hit_pages += 1;
            if target != old {
                self.add_ref(lpn, target);
                self.l2p[lpn as usize].ppn = target;
                if old != NONE {
                    self.drop_ref(lpn, old);
                }
            }
            self.l2p[lpn as usize].written_at = now;
            return Ok(());
        }
        if old != NONE {
            self.l2p[lpn as usize].ppn = NONE;
            self.drop_ref(lpn, old);
        }
        let frontier = self.placement.host_frontier(stream);
        let ppn = self.next_page(frontier, true)?;
        self.program(ppn, lpn, content);
        self.log(super::FlashOp::Program { ppn, gc: false });
        let s = self.sharing.as_mut().expect("sharing on");
        s.refs[ppn as usize] = 1;
        s.born[ppn as usize] = now;
        set_bit(&mut s.ever_shared, ppn, false);
        if let Some(index) = s.index.as_mut() {
            index.insert(content, ppn);
        }
        self.l2p[lpn as usize] = MapEntry {
            ppn,
            written_at: now,
        };
        Ok(())
    }

    pub(crate) fn trim_page_shared(&mut self, lpn: Lpn) {
        let old = self.l2p[lpn as usize].ppn;
        if old != NONE {
            self.l2p[lpn as usize] = UNMAPPED;
            self.drop_ref(lpn, old);
        }
    }

    /// Takes the sharing state of a page GC is about to migrate (call before the erase).
    pub(crate) fn stage_shared(&mut self, ppn: Ppn) -> GcPage {
        let now = self.now as u32;
        let s = self.sharing.as_mut().expect("sharing on");
        let p = ppn as usize;
        let staged = StagedShare {
            refs: s.refs[p],
            born: s.born[p],
            ever_shared: bit(&s.ever_shared, ppn),
            extras: s.extra_lpns.remove(&ppn),
        };
        s.refs[p] = 0;
        let page = GcPage {
            refs: staged.refs,
            age: u64::from(now.wrapping_sub(staged.born)),
        };
        s.staged.push(staged);
        page
    }

    /// Re-attaches the `i`-th staged page's sharing state at its new home
    /// `ppn`: every LPN that mapped to it now maps there.
    pub(crate) fn land_shared(&mut self, i: usize, ppn: Ppn, content: u64) {
        let s = self.sharing.as_mut().expect("sharing on");
        let staged = &mut s.staged[i];
        let p = ppn as usize;
        s.refs[p] = staged.refs;
        s.born[p] = staged.born;
        set_bit(&mut s.ever_shared, ppn, staged.ever_shared);
        if let Some(extras) = staged.extras.take() {
            for &lpn in &extras {
                self.l2p[lpn as usize].ppn = ppn;
            }
            s.extra_lpns.insert(ppn, extras);
        }
        if let Some(index) = s.index.as_mut() {
            index.insert(content, ppn);
        }
    }

    /// Mean survival of single-mapped pages so far (for age-aware placement).
    pub(crate) fn mean_single_survival(&self) -> f64 {
        self.sharing
            .as_ref()
            .map_or(0.0, |s| s.survival_single.mean())
    }

    /// Checks the sharing invariants: reference counts equal the LPNs mapping
    /// each page, the reverse map lists exactly them, the index points at
    /// live pages holding its fingerprints.
    pub(crate) fn check_sharing(&self) -> Result<(), SimError> {
        let Some(s) = &self.sharing else {
            return Ok(());
        };
        let fail = |m: String| Err(SimError::Invariant(m));
        let mut mappers: FastMap<Ppn, u32> = FastMap::default();
        for e in &self.l2p {
            if e.ppn != NONE {
                *mappers.entry(e.ppn).or_default() += 1;
            }
        }
        let mut live = 0usize;
        for ppn in 0..self.geo.physical_pages() as u32 {
            let p = ppn as usize;
            let want = mappers.get(&ppn).copied().unwrap_or(0);
            if s.refs[p] != want {
                return fail(format!(
                    "page {ppn}: reference count {} but {want} LPNs map to it",
                    s.refs[p]
                ));
            }
            if bit(&self.valid_bits, ppn) != (want > 0) {
                return fail(format!(
                    "page {ppn}: valid bit disagrees with {want} references"
                ));
            }
            if want == 0 {
                if s.extra_lpns.contains_key(&ppn) {
                    return fail(format!("dead page {ppn} has a reverse-map entry"));
                }
                continue;
            }
            live += 1;
            if self.l2p[self.oob_lpn[p] as usize].ppn != ppn {
                return fail(format!(
                    "page {ppn}: OOB LPN {} does not map to it",
                    self.oob_lpn[p]
                ));
            }
            let extras = s.extra_lpns.get(&ppn).map_or(&[][..], Vec::as_slice);
            if extras.len() as u32 + 1 != want {
                return fail(format!(
                    "page {ppn}: {} reverse-map entries for {want} references",
                    extras.len()
                ));
            }
            if let Some(&bad) = extras.iter().find(|&&l| self.l2p[l as usize].ppn != ppn) {
                return fail(format!(
                    "page {ppn}: reverse map lists LPN {bad} which maps elsewhere"
                ));
            }
        }
        if let (Some(index), Some(content)) = (&s.index, &self.content) {
            for (&fp, &ppn) in index {
                if s.refs[ppn as usize] == 0 || content[ppn as usize] != fp {
                    return fail(format!(
                        "index maps fingerprint {fp:#x} to page {ppn}, which is dead or differs"
                    ));
                }
            }
            if index.len() != live {
                return fail(format!(
                    "{} index entries for {live} live pages",
                    index.len()
                ));
            }
        }
        Ok(())
    }
}
