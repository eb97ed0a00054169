//! FADaC (Kremer and Brinkmann, "FADaC: A Self-Adapting Data Classifier for
//! Flash Memory", SYSTOR'19), as SepBIT's simulator runs it
//! (`placement/FADaC.java`): each page counts its writes, +1 at a user
//! write and −1 (not below 0) at a GC write; a fading average tracks the
//! request size, `a ← a + pages/N − a/N` at each write request, N the
//! pages holding data. A write, user or GC, is class k for the least k with
//! count ≤ a·10^k, capped at the last class (class 0 while a is 0).
//!
//! N is SepBIT's count of valid blocks (`getnValidBlocks`): its log counts
//! a dead page as invalid only once its segment is sealed, so N is the
//! pages holding data plus the dead pages of the open blocks, counted here
//! from the blocks' deaths and seals.

use super::{PlacementScheme, GcWrite, HostRequest, Invalidated, Reclaimed, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;
use crate::flash::Lpn;

#[derive(Debug, Clone)]
pub(crate) struct Fadac {
    last: u16,
    /// Each page's write count.
    count: Vec<u32>,
    fading_average: f64,
    /// Per block: dead pages while it was open, and whether it is full.
    dead_while_open: Vec<u32>,
    full: Vec<bool>,
    /// Dead pages of the open blocks.
    open_dead_pages: u64,
}

impl Fadac {
    fn class_of(&self, count: u32) -> u16 {
        let mut base = self.fading_average;
        let mut level = 0;
        if base != 0.0 {
            // Bounded: past the last class the answer is the last class.
            while f64::from(count) > base && level < self.last {
                base *= 10.0;
                level += 1;
            }
        }
        level
    }
}

impl PlacementScheme for Fadac {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Fadac { classes } = *config else {
            unreachable!("built from its own variant")
        };
        Self {
            last: classes - 1,
            count: vec![0; space.logical_pages as usize],
            fading_average: 0.0,
            dead_while_open: vec![0; space.blocks as usize],
            full: vec![false; space.blocks as usize],
            open_dead_pages: 0,
        }
    }

    fn request(&mut self, request: &HostRequest) {
        let valid = request.live_pages + self.open_dead_pages;
        if valid == 0 {
            return;
        }
        let n = valid as f64;
        let a = self.fading_average;
        self.fading_average = a + f64::from(request.pages) / n - a / n;
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let count = &mut self.count[write.lpn.index()];
        *count = count.saturating_add(1);
        let count = *count;
        self.class_of(count)
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        let count = &mut self.count[write.lpn.index()];
        *count = count.saturating_sub(1);
        let count = *count;
        self.class_of(count)
    }

    fn invalidated(&mut self, page: &Invalidated) {
        let b = page.block as usize;
        if !self.full[b] {
            self.dead_while_open[b] += 1;
            self.open_dead_pages += 1;
        }
    }

    fn sealed(&mut self, block: u32, _: u16, _: &[Lpn]) {
        let b = block as usize;
        self.open_dead_pages -= u64::from(self.dead_while_open[b]);
        self.dead_while_open[b] = 0;
        self.full[b] = true;
    }

    fn reclaimed(&mut self, block: &Reclaimed) {
        // Full when reclaimed; open again once it is reused.
        self.full[block.block as usize] = false;
    }

    fn state_bytes(&self) -> usize {
        self.count.len() * 4 + self.full.len() * 5
    }
}
