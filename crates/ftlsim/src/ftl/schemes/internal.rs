//! Internal streams (PCStream's `ftl.internal_streams`; FDP's persistently
//! isolated reclaim unit handles): a host write goes to the frontier of its
//! stream, and a GC copy to the internal (GC-only) stream of the stream its
//! victim was opened for, also when that victim was opened by the internal
//! stream itself. Frontiers: the host streams `0..n`, then their internal
//! streams `n..2n`.

use super::{GcWrite, PlacementScheme, SchemeSpace, UserWrite};
use crate::ftl::frontier::{Frontier, FrontierKey, StreamLayout};
use crate::segments::WearPreference;

#[derive(Debug, Clone)]
pub(crate) struct InternalStreams {
    layout: StreamLayout,
}

impl PlacementScheme for InternalStreams {
    type Config = StreamLayout;

    fn new(layout: &StreamLayout, _: SchemeSpace) -> Self {
        Self { layout: *layout }
    }

    /// The stream's own frontier.
    #[inline(always)]
    fn user_class(&mut self, write: &UserWrite) -> u16 {
        write.stream
    }

    /// The internal stream of the victim's stream.
    #[inline(always)]
    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        let n = self.layout.streams();
        n + write.victim_class.min(n - 1)
    }
}

impl InternalStreams {
    /// A host frontier per stream, then an internal stream per stream.
    pub(crate) fn frontiers(&self) -> Vec<Frontier> {
        let mut out = self.layout.host_frontiers();
        out.extend((0..self.layout.streams()).map(|stream| {
            self.layout
                .frontier(FrontierKey::Gc { stream }, WearPreference::LeastErased)
        }));
        out
    }

    /// The internal streams.
    pub(crate) fn gc_destinations(&self) -> Vec<usize> {
        let n = usize::from(self.layout.streams());
        (n..2 * n).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gc_write, space, user_write};
    use super::*;

    /// Stream s's copies, also from blocks its internal stream opened
    /// (which are opened for stream s), go to internal stream n + s.
    #[test]
    fn copies_go_to_their_streams_internal_stream() {
        let mut internal = InternalStreams::new(&StreamLayout::new(3, 1), space());
        assert_eq!(internal.user_class(&user_write(1)), 1);
        assert_eq!(internal.gc_class(&gc_write(1, 1, 0, 0.0)), 4);
        assert_eq!(internal.gc_class(&gc_write(2, 1, 0, 0.0)), 5);
        let keys: Vec<FrontierKey> = internal.frontiers().iter().map(|f| f.key).collect();
        assert_eq!(
            keys[3..],
            [0, 1, 2].map(|stream| FrontierKey::Gc { stream })
        );
        assert_eq!(internal.gc_destinations(), [3, 4, 5]);
    }
}
