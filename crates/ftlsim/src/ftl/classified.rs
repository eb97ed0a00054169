//! The write path and GC copies under a placement scheme
//! (`[ftl.placement_scheme]`, `schemes/`): the scheme picks the frontier,
//! from what the mapping knows of the page (its last user write).

use super::Ssd;
use crate::error::SimError;
use crate::flash::{Lpn, Ppn};
use crate::future::Lifetimes;

impl Ssd {
    /// A host write of `lpn` to the class its scheme chooses: the plain
    /// write (`write_page_mapped`) with the frontier from the scheme.
    #[inline(never)]
    pub(super) fn write_page_classified(&mut self, lpn: Lpn, content: u64) -> Result<(), SimError> {
        self.now_pages += 1;
        let old = self.l2p[lpn.index()];
        let lifespan = if old.ppn.is_none() {
            None
        } else {
            self.l2p[lpn.index()].ppn = Ppn::NONE;
            self.invalidate(old);
            let block = self.geo.block_of(old.ppn);
            let classes = self.classes.as_mut().expect("a placement scheme is set");
            classes.invalidated(lpn, block);
            Some(self.pages_since(old.written_at))
        };
        let now = self.now_pages;
        let classes = self.classes.as_mut().expect("a placement scheme is set");
        let frontier = usize::from(classes.user_class(lpn, now, lifespan));
        self.program_host_page(lpn, frontier, content)
    }

    /// The frontier of a GC copy of `lpn` out of the victim being reclaimed.
    /// Out of line: inlined into `reclaim`, the schemes' `gc_class` arms
    /// cost the plain FTL's GC loop (cachegrind, basic.toml at 512 blocks:
    /// 647.6 M instructions inlined, 643.3 M out of line; a scheme run pays
    /// the call, sepbit.toml at 512 blocks 1,097.2 M -> 1,113.1 M).
    #[inline(never)]
    pub(super) fn classified_gc_frontier(&mut self, lpn: Lpn) -> u32 {
        let age = self.pages_since(self.l2p[lpn.index()].written_at);
        let now = self.now_pages;
        let classes = self.classes.as_mut().expect("a placement scheme is set");
        u32::from(classes.gc_class(lpn, age, now))
    }

    /// Hands a run's pre-pass lifespans (each host page write's remaining
    /// lifetime) to a placement scheme that foresees (`fk`); a no-op for
    /// the others and without a scheme.
    pub fn foresee(&mut self, future: &Lifetimes) {
        if let Some(c) = &mut self.classes {
            c.foresee(future);
        }
    }

    /// Host page writes since the logical time `written_at` (a mapping
    /// entry's, 32 bits: exact for spans under 2^32 writes).
    #[inline]
    fn pages_since(&self, written_at: u32) -> u64 {
        u64::from((self.now_pages as u32).wrapping_sub(written_at))
    }
}
