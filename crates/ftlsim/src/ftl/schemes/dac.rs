//! DAC, Dynamic dAta Clustering (Chiang, Lee and Chang, 1999): each page
//! has a level; a user write of a page already written raises it by one, a
//! GC write lowers it by one, within `0..classes`, and the level is the
//! class. A page written for the first time starts at level 0. Pages that
//! are rewritten often climb to the hot classes; pages GC keeps moving sink.

use super::{PlacementScheme, GcWrite, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;

#[derive(Debug, Clone)]
pub(crate) struct Dac {
    top: u8,
    /// Each logical page's level; `NEVER` before its first write.
    level: Vec<u8>,
}

const NEVER: u8 = u8::MAX;

impl PlacementScheme for Dac {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Dac { classes } = *config else {
            unreachable!("built from its own variant")
        };
        // Checked: 1..=MAX_CLASSES, which is below NEVER.
        let top = u8::try_from(classes - 1).expect("checked: classes fit a level");
        Self {
            top,
            level: vec![NEVER; space.logical_pages as usize],
        }
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let level = &mut self.level[write.lpn.index()];
        *level = match *level {
            NEVER => 0,
            l => (l + 1).min(self.top),
        };
        u16::from(*level)
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        let level = &mut self.level[write.lpn.index()];
        debug_assert_ne!(*level, NEVER, "a page GC copies was written");
        *level = level.saturating_sub(1);
        u16::from(*level)
    }
}
