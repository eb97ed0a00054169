//! FADaC (Kremer and Brinkmann, "FADaC: A Self-Adapting Data Classifier for
//! Flash Memory", SYSTOR'19), as SepBIT's simulator runs it
//! (`placement/FADaC.java`): each page counts its writes, +1 at a user
//! write and −1 (not below 0) at a GC write; a fading average tracks the
//! request size, `a ← a + pages/N − a/N` at each write request, N the
//! pages holding data. A write, user or GC, is class k for the least k with
//! count ≤ a·10^k, capped at the last class (class 0 while a is 0).
//!
//! N: SepBIT's simulator uses its log's blocks less its sealed segments'
//! invalid ones, which also counts the dead pages of its open segments;
//! this is the pages holding data. With one-page requests (SepBIT's
//! synthetic traces) the average tends to 1 whatever N is, and N only sets
//! how fast.

use super::{ClassScheme, GcWrite, HostRequest, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;

#[derive(Debug, Clone)]
pub(crate) struct Fadac {
    last: u16,
    /// Each page's write count.
    count: Vec<u32>,
    fading_average: f64,
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

impl ClassScheme for Fadac {
    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Fadac { classes } = *config else {
            unreachable!("built from its own variant")
        };
        Self {
            last: classes - 1,
            count: vec![0; space.logical_pages as usize],
            fading_average: 0.0,
        }
    }

    fn request(&mut self, request: &HostRequest) {
        if request.live_pages == 0 {
            return;
        }
        let n = request.live_pages as f64;
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

    fn state_bytes(&self) -> usize {
        self.count.len() * 4
    }
}
