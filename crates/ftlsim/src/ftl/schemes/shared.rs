//! Shared frontiers (`ftl.frontiers = "shared"`, the default): a host write
//! goes to the frontier of its stream, and a GC copy returns to the frontier
//! of the stream its victim was opened for. With one stream every write,
//! user or GC, goes to frontier 0: ftlsim's plain FTL (and `nosep`).

use super::{GcWrite, PlacementScheme, SchemeSpace, UserWrite};
use crate::ftl::frontier::{Frontier, StreamLayout};

#[derive(Debug, Clone)]
pub(crate) struct SharedStreams {
    layout: StreamLayout,
}

impl PlacementScheme for SharedStreams {
    type Config = StreamLayout;

    fn new(layout: &StreamLayout, _: SchemeSpace) -> Self {
        Self { layout: *layout }
    }

    /// The stream's own frontier.
    #[inline(always)]
    fn user_class(&mut self, write: &UserWrite) -> u16 {
        write.stream
    }

    /// Back to the victim's stream.
    #[inline(always)]
    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        write.victim_class.min(self.layout.streams() - 1)
    }
}

impl SharedStreams {
    /// A host frontier per stream.
    pub(crate) fn frontiers(&self) -> Vec<Frontier> {
        self.layout.host_frontiers()
    }

    /// Every frontier takes copies.
    pub(crate) fn gc_destinations(&self) -> Vec<usize> {
        (0..usize::from(self.layout.streams())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gc_write, space, user_write};
    use super::*;
    use crate::ftl::frontier::FrontierKey;

    /// A write takes its stream's frontier; a copy goes back to the stream
    /// its victim was opened for, whatever its references or age.
    #[test]
    fn writes_and_copies_stay_in_their_stream() {
        let mut one = SharedStreams::new(&StreamLayout::new(1, 1), space());
        assert_eq!(one.user_class(&user_write(0)), 0);
        assert_eq!(one.gc_class(&gc_write(0, 5, 1_000, 0.0)), 0);
        assert_eq!(one.frontiers().len(), 1);
        let mut three = SharedStreams::new(&StreamLayout::new(3, 1), space());
        assert_eq!(three.user_class(&user_write(2)), 2);
        assert_eq!(three.gc_class(&gc_write(2, 1, 0, 0.0)), 2);
        assert_eq!(three.gc_class(&gc_write(1, 1, 0, 0.0)), 1);
        assert_eq!(three.gc_destinations(), [0, 1, 2]);
        let keys: Vec<FrontierKey> = three.frontiers().iter().map(|f| f.key).collect();
        assert_eq!(keys, [0, 1, 2].map(|stream| FrontierKey::Host { stream }));
    }
}
