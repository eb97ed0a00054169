//! SepBIT (Wang et al., "Separating Data via Block Invalidation Time
//! Inference for Write Amplification Reduction in Log-Structured Storage",
//! FAST'22). Six classes.
//!
//! * User writes: a page rewritten within ℓ host writes of its previous
//!   write is expected to die soon again: class 0; any other user write
//!   (a first write, or an older page): class 1. ℓ is the mean lifespan
//!   (opening to reclaim) of the last `lifespan_window_segments` class-0
//!   blocks GC reclaimed; infinite until that many were.
//! * GC writes: out of a class-0 block: class 2; otherwise by the age of
//!   the data since its user write, in powers of `gc_age_base`: below
//!   `base`·ℓ class 3, below `base`²·ℓ class 4, older class 5.
//!
//! SepBIT bounds its memory with a FIFO of recent user writes no longer
//! than ℓ nor than the pages holding data: a rewrite counts as short-lived
//! only while its previous write is still in the FIFO. The length is
//! tracked here (the page's previous write time is the mapping entry's
//! `written_at`), so the rule is the FIFO's without keeping its entries.

use super::{PlacementScheme, GcWrite, Reclaimed, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;

#[derive(Debug, Clone)]
pub(crate) struct Sepbit {
    window_segments: u32,
    age_base: f64,
    /// ℓ, in host page writes.
    threshold: f64,
    lifespan_sum: f64,
    collected: u32,
    /// Length of SepBIT's FIFO of recent user writes.
    fifo_pages: u64,
}

impl PlacementScheme for Sepbit {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, _: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Sepbit {
            lifespan_window_segments,
            gc_age_base,
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        Self {
            window_segments: lifespan_window_segments,
            age_base: gc_age_base,
            threshold: f64::INFINITY,
            lifespan_sum: 0.0,
            collected: 0,
            fifo_pages: 0,
        }
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let window = self.threshold.min(self.fifo_pages as f64);
        let class = match write.lifespan_pages {
            Some(v) if (v as f64) < window => 0,
            _ => 1,
        };
        // The FIFO takes this write, then sheds its oldest entry while it is
        // longer than the pages holding data or ℓ (a second one when ℓ
        // shrank below it, as SepBIT amortises the shrink).
        self.fifo_pages += 1;
        let cap = (write.live_pages as f64).min(self.threshold);
        if self.fifo_pages as f64 > cap {
            self.fifo_pages -= 1;
            if self.fifo_pages as f64 > self.threshold {
                self.fifo_pages -= 1;
            }
        }
        class
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        if write.victim_class == 0 {
            return 2;
        }
        let mut class = 3;
        let mut bound = self.threshold * self.age_base;
        while write.age_pages as f64 >= bound && class < 5 {
            bound *= self.age_base;
            class += 1;
        }
        class
    }

    fn reclaimed(&mut self, block: &Reclaimed) {
        if !block.gc || block.class != 0 {
            return;
        }
        self.lifespan_sum += block.lifespan_pages as f64;
        self.collected += 1;
        if self.collected == self.window_segments {
            self.threshold = self.lifespan_sum / f64::from(self.window_segments);
            self.lifespan_sum = 0.0;
            self.collected = 0;
        }
    }
}
