//! Separate GC frontiers (`ftl.frontiers = "separate"`; FDP's initially
//! isolated reclaim unit handles): a host write goes to the frontier of its
//! stream, every GC copy to the one GC frontier of the victim's group (FDP
//! reclaim group; one group otherwise). Frontiers: the host streams
//! `0..streams`, then a GC frontier per group. With one stream, `sepgc`.

use super::{GcWrite, PlacementScheme, SchemeSpace, UserWrite};
use crate::ftl::frontier::{Frontier, FrontierKey, StreamLayout};
use crate::segments::WearPreference;

#[derive(Debug, Clone)]
pub(crate) struct SeparateGc {
    layout: StreamLayout,
}

impl PlacementScheme for SeparateGc {
    type Config = StreamLayout;

    fn new(layout: &StreamLayout, _: SchemeSpace) -> Self {
        Self { layout: *layout }
    }

    /// The stream's own frontier.
    #[inline(always)]
    fn user_class(&mut self, write: &UserWrite) -> u16 {
        write.stream
    }

    /// The GC frontier of the victim's group.
    #[inline(always)]
    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        let n = self.layout.streams();
        // A branch rather than a division: one group but under FDP.
        if self.layout.groups == 1 {
            n
        } else {
            n + self.layout.group_of_stream(write.victim_class) as u16
        }
    }
}

impl SeparateGc {
    /// A host frontier per stream, then a GC frontier per group, keyed by
    /// the group's first stream.
    pub(crate) fn frontiers(&self) -> Vec<Frontier> {
        let mut out = self.layout.host_frontiers();
        out.extend((0..self.layout.groups).map(|g| {
            let stream = g * self.layout.group_streams;
            self.layout
                .frontier(FrontierKey::Gc { stream }, WearPreference::LeastErased)
        }));
        out
    }

    /// The GC frontiers.
    pub(crate) fn gc_destinations(&self) -> Vec<usize> {
        let n = usize::from(self.layout.streams());
        (n..n + usize::from(self.layout.groups)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gc_write, space, user_write};
    use super::*;

    /// Writes take their stream's frontier; copies of every stream go to the
    /// one GC frontier after the host frontiers, one per FDP reclaim group.
    #[test]
    fn copies_go_to_their_groups_gc_frontier() {
        let mut one_group = SeparateGc::new(&StreamLayout::new(3, 1), space());
        assert_eq!(one_group.user_class(&user_write(2)), 2);
        assert_eq!(one_group.gc_class(&gc_write(2, 1, 0, 0.0)), 3);
        assert_eq!(one_group.gc_class(&gc_write(0, 1, 0, 0.0)), 3);
        let f = one_group.frontiers();
        assert_eq!(f.len(), 4);
        assert_eq!(f[3].key, FrontierKey::Gc { stream: 0 });
        // Two reclaim groups of two handles: ids 2 and 3 write to group 1.
        let mut groups = SeparateGc::new(&StreamLayout::new(2, 2), space());
        assert_eq!(groups.user_class(&user_write(3)), 3);
        assert_eq!(groups.gc_class(&gc_write(1, 1, 0, 0.0)), 4);
        assert_eq!(groups.gc_class(&gc_write(3, 1, 0, 0.0)), 5);
        assert_eq!(groups.gc_destinations(), [4, 5]);
        let f = groups.frontiers();
        assert_eq!((f[5].key, f[5].group), (FrontierKey::Gc { stream: 2 }, 1));
    }
}
