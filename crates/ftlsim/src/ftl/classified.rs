//! The write path and GC copies under a scheme of `[ftl.placement_scheme]`
//! (`schemes/`): the scheme hears the old page's death before its user
//! decision, and each GC copy is asked for on its own, from what the
//! mapping knows of the page (its last user write). Both decisions go
//! through `Placement`, as every scheme's do.

use super::schemes::UserWrite;
use super::Ssd;
use crate::error::SimError;
use crate::flash::{Lpn, Ppn};
use crate::future::Lifetimes;

impl Ssd {
    /// A host write of `lpn` to the class its scheme chooses: the plain
    /// write (`write_page_mapped`) with the frontier from the scheme.
    /// Its stream hint is 0: the plan refuses a class scheme beside several
    /// streams and FDP, so every request resolves to stream 0 (a constant,
    /// not an argument: it saved the scheme path about 2 instructions per
    /// write).
    #[inline(never)]
    pub(super) fn write_page_classified(&mut self, lpn: Lpn, content: u64) -> Result<(), SimError> {
        self.now_pages += 1;
        let old = self.l2p[lpn.index()];
        let lifespan_pages = if old.ppn.is_none() {
            None
        } else {
            self.l2p[lpn.index()].ppn = Ppn::NONE;
            self.invalidate::<false>(old);
            let block = self.geo.block_of(old.ppn);
            let classes = self.placement.classes_mut().expect("a class scheme");
            classes.invalidated(lpn, block);
            Some(self.pages_since(old.written_at))
        };
        let frontier = self.placement.user_frontier(&UserWrite {
            lpn,
            stream: 0,
            write_index: self.now_pages - 1,
            lifespan_pages,
            // `Classes` counts the pages holding data.
            live_pages: 0,
        });
        self.program_host_page::<false, false>(lpn, frontier, content)
    }

    /// The frontier of a GC copy of `lpn` (one reference: no sharing) out
    /// of the victim being reclaimed, asked of a scheme that
    /// `classifies_each_copy`. Out of line: inlined into GC's scan, the
    /// schemes' `gc_class` arms cost the plain FTL's GC loop (cachegrind,
    /// basic.toml at 512 blocks, when it was `classified_gc_frontier`:
    /// 647.6 M instructions inlined, 643.3 M out of line; a scheme run
    /// pays the call, sepbit.toml at 512 blocks 1,097.2 M -> 1,113.1 M).
    #[inline(never)]
    pub(super) fn copy_gc_frontier(&mut self, lpn: Lpn) -> u32 {
        let age_pages = self.pages_since(self.l2p[lpn.index()].written_at);
        let write = self.placement.gc_write(lpn, age_pages, 1, self.now_pages);
        self.placement.gc_frontier(&write) as u32
    }

    /// Hands a run's pre-pass lifespans (each host page write's remaining
    /// lifetime) to a placement scheme that foresees (`fk`); a no-op for
    /// the others.
    pub fn foresee(&mut self, future: &Lifetimes) {
        if let Some(c) = self.placement.classes_mut() {
            c.foresee(future);
        }
    }

    /// Host page writes since the logical time `written_at` (a mapping
    /// entry's, 32 bits: exact for spans under 2^32 writes).
    #[inline]
    pub(super) fn pages_since(&self, written_at: u32) -> u64 {
        u64::from((self.now_pages as u32).wrapping_sub(written_at))
    }
}
