//! MultiLog (Stoica and Ailamaki, "Improving Flash Write Performance by
//! Using Update Frequency", VLDB'13), as SepBIT's simulator runs it
//! (`placement/MultiLog.java`). Each page has a level, its class; a page's
//! first write is level 0.
//!
//! * GC write: the page climbs a level. At the highest level in use it
//!   climbs only if that level's class already holds a block's worth of
//!   valid pages, and the climb opens the next level (up to the last
//!   class); otherwise it stays.
//! * User write of a page at level l > 0: with update distance u (host
//!   writes since its last user write) against the level's expected
//!   distance e = V·(1 − g)/2 (V the level's valid pages, g the garbage
//!   proportion of the blocks of the level GC has reclaimed), it drops a
//!   level with probability (e − u)/e when that is positive. No block of
//!   the level reclaimed yet: no drop.
//!
//! SepBIT's simulator draws from an unseeded `java.util.Random`; here the
//! draws come from the run's seed (stream `placement.multilog`), as many
//! and at the same moments. A trimmed page's next write keeps its level
//! but has no update distance (its last write went with its mapping), so
//! it does not drop; SepBIT's traces have no trims.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{PlacementScheme, GcWrite, Invalidated, Reclaimed, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;
use crate::rng;

#[derive(Debug, Clone)]
pub(crate) struct Multilog {
    classes: u8,
    block_pages: i64,
    /// Each page's level; `NEVER` before its first write.
    level: Vec<u8>,
    /// Valid pages per class.
    valid: Vec<i64>,
    /// Pages, and dead pages, of the blocks GC reclaimed, per class.
    reclaimed_pages: Vec<u64>,
    reclaimed_dead: Vec<u64>,
    top: u8,
    rng: Xoshiro256PlusPlus,
}

const NEVER: u8 = u8::MAX;

impl PlacementScheme for Multilog {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Multilog { classes } = *config else {
            unreachable!("built from its own variant")
        };
        // Checked: 1..=MAX_CLASSES, which is below NEVER.
        let classes = u8::try_from(classes).expect("checked: classes fit a level");
        let n = usize::from(classes);
        Self {
            classes,
            block_pages: i64::from(space.block_pages),
            level: vec![NEVER; space.logical_pages as usize],
            valid: vec![0; n],
            reclaimed_pages: vec![0; n],
            reclaimed_dead: vec![0; n],
            top: 0,
            rng: rng::stream(space.seed, "placement.multilog"),
        }
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let level = &mut self.level[write.lpn.index()];
        if *level == NEVER {
            *level = 0;
        } else {
            let l = usize::from(*level);
            // SepBIT's arithmetic, in doubles: 0/0 when no block of the
            // level was reclaimed, which no comparison passes.
            let garbage = self.reclaimed_dead[l] as f64 / self.reclaimed_pages[l] as f64;
            let expected = self.valid[l] as f64 * (1.0 - garbage) / 2.0;
            let distance = write.lifespan_pages.unwrap_or(i64::MAX as u64) as f64;
            let p = (expected - distance) / expected;
            if p > 0.0 && *level > 0 && self.rng.random::<f64>() < p {
                *level -= 1;
            }
        }
        let level = *level;
        self.valid[usize::from(level)] += 1;
        u16::from(level)
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        let level = &mut self.level[write.lpn.index()];
        debug_assert_ne!(*level, NEVER, "a page GC copies was written");
        if *level == self.top {
            if self.top + 1 < self.classes && self.valid[usize::from(*level)] >= self.block_pages {
                *level += 1;
                self.top += 1;
            }
        } else {
            *level += 1;
        }
        let level = *level;
        self.valid[usize::from(level)] += 1;
        u16::from(level)
    }

    fn invalidated(&mut self, page: &Invalidated) {
        self.valid[usize::from(page.class)] -= 1;
    }

    fn reclaimed(&mut self, block: &Reclaimed) {
        let c = usize::from(block.class);
        self.valid[c] -= i64::from(block.valid_pages);
        if block.gc {
            self.reclaimed_pages[c] += self.block_pages as u64;
            self.reclaimed_dead[c] += (self.block_pages - i64::from(block.valid_pages)) as u64;
        }
    }

    fn state_bytes(&self) -> usize {
        self.level.len()
    }
}
