//! FK, future knowledge: the class of a write is its page's remaining
//! lifespan in blocks' worth of host page writes (how many blocks the host
//! fills before the page dies), capped at the last class; a page that is
//! never overwritten or trimmed takes the last class. User and GC writes
//! alike: a GC copy's remaining lifespan is its death time less now. The
//! lower bound SepBIT's evaluation sets the other schemes against.
//!
//! The lifespans are the oracle layer's: a pre-pass over the same workload
//! records every page write and trim, and each write's remaining lifetime
//! follows (`host::oracle::remaining_lifetimes`). In the pre-pass itself
//! there is no future yet, and every write takes class 0.

use super::{PlacementScheme, GcWrite, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;
use crate::future::{Lifetimes, NEVER};

#[derive(Debug, Clone)]
pub(crate) struct Fk {
    last: u16,
    block_pages: u64,
    future: Option<Lifetimes>,
    /// Each logical page's death: the host page write that ends its data
    /// (`u64::MAX`: never).
    death: Vec<u64>,
}

impl Fk {
    fn class_of(&self, remaining_pages: u64) -> u16 {
        let blocks = remaining_pages / self.block_pages;
        u16::try_from(blocks).map_or(self.last, |b| b.min(self.last))
    }
}

impl PlacementScheme for Fk {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Fk { classes } = *config else {
            unreachable!("built from its own variant")
        };
        Self {
            last: classes - 1,
            block_pages: u64::from(space.block_pages),
            future: None,
            death: vec![u64::MAX; space.logical_pages as usize],
        }
    }

    fn foresee(&mut self, future: &Lifetimes) {
        self.future = Some(future.clone());
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let Some(future) = &self.future else {
            return 0;
        };
        // A run writes what its pre-pass wrote, in the same order; past the
        // record's end (it cannot happen) the page counts as never dying.
        let lifespan = future
            .get(write.write_index as usize)
            .copied()
            .unwrap_or(NEVER);
        let death = match lifespan {
            NEVER => u64::MAX,
            l => write.write_index + u64::from(l),
        };
        self.death[write.lpn.index()] = death;
        self.class_of(death.saturating_sub(write.write_index))
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        if self.future.is_none() {
            return 0;
        }
        let death = self.death[write.lpn.index()];
        // `now_pages` counts the writes so far; the next one's index is it.
        self.class_of(death.saturating_sub(write.now_pages))
    }
}
