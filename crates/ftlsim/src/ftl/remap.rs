//! The remap primitive, as requests a host layer can send:
//! `remap(src, dst, len)`: dst takes src's pages and src is unmapped;
//! `clone(src, dst, len)`: dst shares src's pages and both stay mapped.
//! Neither programs flash. Every check runs before any change, so a bad
//! request changes nothing.

use super::durability::RecordKind;
use super::{MapEntry, Ssd, UNMAPPED};
use crate::error::SimError;
use crate::flash::Lpn;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Remap,
    Clone,
}

impl Ssd {
    /// Marks a remap/clone in progress, so a cut inside one is reported as such.
    fn set_in_remap(&mut self, on: bool) {
        if let Some(d) = &mut self.durability {
            d.in_remap = on;
        }
    }

    /// Checks a request; returns its first source and destination LPNs
    /// and its length.
    fn check_range_request(
        &self,
        kind: Kind,
        src: u64,
        dst: u64,
        len: u64,
    ) -> Result<(Lpn, Lpn, u32), SimError> {
        let name = match kind {
            Kind::Remap => "remap",
            Kind::Clone => "clone",
        };
        let bad = |m: String| {
            Err(SimError::BadRequest(format!(
                "{name}({src}, {dst}, {len}): {m}"
            )))
        };
        if kind == Kind::Clone && self.sharing.is_none() {
            return bad(
                "clone shares pages between LPNs: it needs ftl.remap = true or ftl.dedup = true"
                    .into(),
            );
        }
        if self.cmt.is_some() {
            return bad(
                "remap and clone are not modelled with the DFTL mapping cache (ftl.mapping_cache_entries)"
                    .into(),
            );
        }
        if len == 0 {
            return bad("length is zero".into());
        }
        let logical = u64::from(self.logical_pages);
        for (what, start) in [("source", src), ("destination", dst)] {
            if start.checked_add(len).is_none_or(|end| end > logical) {
                return bad(format!(
                    "{what} range ends beyond the logical space of {logical} pages"
                ));
            }
        }
        if src < dst + len && dst < src + len {
            return bad("source and destination ranges overlap".into());
        }
        // Both ranges end within the logical space: their LPNs and the
        // length fit in 32 bits.
        let (src, dst, len) = (self.check_lpn(src)?, self.check_lpn(dst)?, len as u32);
        if let Some(i) = (0..len).find(|&i| self.l2p[(src + i).index()].ppn.is_none()) {
            return bad(format!("source LPN {} is unmapped", src + i));
        }
        Ok((src, dst, len))
    }

    /// Moves the mapping of `len` pages from `src` to `dst`; `src` reads as unmapped after.
    pub fn remap(&mut self, src: u64, dst: u64, len: u64) -> Result<(), SimError> {
        let (src, dst, pages) = self.check_range_request(Kind::Remap, src, dst, len)?;
        self.set_in_remap(true);
        for i in 0..pages {
            let (s, d) = (src + i, dst + i);
            let moving = self.l2p[s.index()];
            let old = self.l2p[d.index()];
            if self.sharing.is_some() {
                // An LPN is on one reverse-map list at a time: dst leaves its
                // old page first (if that is the moving page, src keeps it live).
                if !old.ppn.is_none() {
                    self.drop_ref(d, old.ppn);
                }
                self.add_ref(d, moving.ppn);
                self.l2p[d.index()] = moving;
                self.drop_ref(s, moving.ppn);
                self.l2p[s.index()] = UNMAPPED;
            } else {
                // One-to-one mapping: the page changes owner in place.
                self.l2p[s.index()] = UNMAPPED;
                if !old.ppn.is_none() {
                    self.l2p[d.index()] = UNMAPPED;
                    self.invalidate::<false>(old);
                }
                self.oob_lpn[moving.ppn.index()] = d;
                self.l2p[d.index()] = moving;
            }
            if self.durability.is_some() {
                self.durable_record(RecordKind::Remap { src: s, dst: d });
            }
        }
        self.set_in_remap(false);
        self.counters.remap_pages += len;
        Ok(())
    }

    /// Maps `len` pages at `dst` to the pages of `src`; both stay mapped.
    pub fn clone_range(&mut self, src: u64, dst: u64, len: u64) -> Result<(), SimError> {
        let (src, dst, pages) = self.check_range_request(Kind::Clone, src, dst, len)?;
        let now = self.now_pages as u32;
        self.set_in_remap(true);
        for i in 0..pages {
            let (s, d) = (src + i, dst + i);
            let shared = self.l2p[s.index()].ppn;
            let old = self.l2p[d.index()].ppn;
            if old == shared {
                continue;
            }
            if !old.is_none() {
                self.drop_ref(d, old);
            }
            self.add_ref(d, shared);
            self.l2p[d.index()] = MapEntry {
                ppn: shared,
                written_at: now,
            };
            if self.durability.is_some() {
                self.durable_record(RecordKind::Clone { src: s, dst: d });
            }
        }
        self.set_in_remap(false);
        self.counters.clone_pages += len;
        Ok(())
    }
}
