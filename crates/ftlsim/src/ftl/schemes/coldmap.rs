//! Coldmap (`ftl.placement = "coldmap"` or `"coldmap-age"`, with sharing):
//! a host write goes to the frontier of its stream; a GC copy mapped by at
//! least `threshold` LPNs, or (`age_aware`) older than the mean survival of
//! single-mapped pages, goes to the cold zone, the others to the GC
//! frontier. Frontiers: the host streams `0..n`, the GC frontier n, the
//! cold zone n + 1, which takes the most-worn free blocks: its data stays
//! put, so those blocks rest while the young ones cycle.

use super::{GcWrite, PlacementScheme, SchemeSpace, UserWrite};
use crate::ftl::frontier::{Frontier, FrontierKey, StreamLayout};
use crate::segments::WearPreference;

/// Coldmap's layout and keys.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColdmapKeys {
    pub layout: StreamLayout,
    /// References that make a copy cold (`ftl.coldmap_threshold`).
    pub threshold: u32,
    /// Age against the mean single-mapped survival makes it cold too.
    pub age_aware: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Coldmap {
    keys: ColdmapKeys,
}

impl PlacementScheme for Coldmap {
    type Config = ColdmapKeys;

    fn new(keys: &ColdmapKeys, _: SchemeSpace) -> Self {
        assert_eq!(keys.layout.groups, 1, "Coldmap has no FDP groups");
        Self { keys: *keys }
    }

    /// The stream's own frontier.
    #[inline(always)]
    fn user_class(&mut self, write: &UserWrite) -> u16 {
        write.stream
    }

    /// The cold zone for a shared or (age-aware) old copy, else the GC
    /// frontier.
    #[inline(always)]
    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        let n = self.keys.layout.streams();
        let old = self.keys.age_aware
            && write.mean_single_survival > 0.0
            && write.age_pages as f64 > write.mean_single_survival;
        if write.refs >= self.keys.threshold || old {
            n + 1
        } else {
            n
        }
    }
}

impl Coldmap {
    /// A host frontier per stream, the GC frontier, the cold zone.
    pub(crate) fn frontiers(&self) -> Vec<Frontier> {
        let layout = &self.keys.layout;
        let mut out = layout.host_frontiers();
        out.push(layout.frontier(FrontierKey::Gc { stream: 0 }, WearPreference::LeastErased));
        out.push(layout.frontier(FrontierKey::Cold, WearPreference::MostErased));
        out
    }

    /// The GC frontier and the cold zone.
    pub(crate) fn gc_destinations(&self) -> Vec<usize> {
        let n = usize::from(self.keys.layout.streams());
        vec![n, n + 1]
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gc_write, space, user_write};
    use super::*;

    const GC: u16 = 1;
    const COLD: u16 = 2;

    fn coldmap(threshold: u32, age_aware: bool) -> Coldmap {
        let layout = StreamLayout::new(1, 1);
        Coldmap::new(
            &ColdmapKeys {
                layout,
                threshold,
                age_aware,
            },
            space(),
        )
    }

    /// Copies mapped by `threshold` LPNs or more go cold; with age
    /// awareness, so do copies older than the mean single-mapped survival
    /// (once one is known); host writes stay in their stream.
    #[test]
    fn shared_or_old_copies_go_cold() {
        let mut p = coldmap(2, false);
        assert_eq!(p.user_class(&user_write(0)), 0);
        assert_eq!(p.gc_class(&gc_write(0, 1, 10, 0.0)), GC);
        assert_eq!(p.gc_class(&gc_write(0, 2, 10, 0.0)), COLD);
        assert_eq!(p.gc_class(&gc_write(0, 1, 1_000, 100.0)), GC);
        let mut a = coldmap(3, true);
        assert_eq!(a.gc_class(&gc_write(0, 2, 10, 100.0)), GC);
        assert_eq!(a.gc_class(&gc_write(0, 1, 1_000, 100.0)), COLD);
        assert_eq!(a.gc_class(&gc_write(0, 1, 1_000, 0.0)), GC);
        let f = p.frontiers();
        assert_eq!(f[usize::from(COLD)].wear, WearPreference::MostErased);
        assert_eq!(f[usize::from(COLD)].key, FrontierKey::Cold);
        assert_eq!(p.gc_destinations(), [1, 2]);
    }
}
