//! Frontiers (open blocks keyed by placement) and the placement policy that
//! decides which frontier receives a host write or a GC copy.
//!
//! GC never looks at *why* a frontier exists: streams, internal streams and
//! cold zones are new keys and a new policy here, not edits to GC.

use crate::flash::NO_BLOCK;
pub use crate::plan::{PlacementPlan, Scheme};
use crate::segments::WearPreference;

/// What a frontier's pages are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontierKey {
    /// Host writes of one stream (0 when the host uses none).
    Host { stream: u16 },
    /// GC copies (an internal stream when there are several).
    Gc { stream: u16 },
    /// Coldmap's cold zone: GC copies expected to live long.
    Cold,
    /// A placement scheme's class (`[ftl.placement_scheme]`): user writes
    /// and GC copies alike, as the scheme chooses.
    Class { class: u16 },
}

#[derive(Debug, Clone)]
pub struct Frontier {
    pub key: FrontierKey,
    /// The open block, or `NO_BLOCK` before the first write or after it filled.
    pub block: u32,
    /// Which free block this frontier asks for.
    pub wear: WearPreference,
    /// The group of blocks (FDP reclaim group) it takes its blocks from; 0
    /// without FDP.
    pub group: u32,
}

/// What placement knows about a page GC is migrating.
#[derive(Debug, Clone, Copy)]
pub struct GcPage {
    /// LPNs sharing the page (1 without many-to-one mapping).
    pub refs: u32,
    /// Logical time since the page was programmed by the host.
    pub age: u64,
}

/// Maps a write to a frontier index. Built at run time from the config:
/// frontiers `0..streams` take host writes of each stream, then come the GC
/// frontier (separate, coldmap) and the cold zone (coldmap). With one
/// stream the indices are the fixed ones of earlier versions (host 0, GC 1,
/// cold 2), so results do not move.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    scheme: Scheme,
    streams: u16,
    /// FDP reclaim groups (1 otherwise): streams `g * group_streams ..
    /// (g + 1) * group_streams` write to group g, and each group has GC
    /// frontiers of its own.
    groups: u16,
    group_streams: u16,
    /// The frontiers GC copies can go to.
    gc_destinations: Vec<usize>,
}

impl Placement {
    /// The policy the placement plan describes.
    pub fn from_plan(plan: &PlacementPlan) -> Self {
        Self::grouped(plan.scheme, plan.group_streams, plan.groups)
    }

    pub fn new(scheme: Scheme, streams: u16) -> Self {
        Self::grouped(scheme, streams, 1)
    }

    /// `groups` groups of `group_streams` streams each (FDP reclaim groups
    /// of handles); with Separate, a GC frontier per group.
    pub fn grouped(scheme: Scheme, group_streams: u16, groups: u16) -> Self {
        assert!(
            group_streams >= 1,
            "a device has at least the default stream"
        );
        assert!(
            groups == 1 || matches!(scheme, Scheme::Separate | Scheme::Internal),
            "only FDP's schemes have groups"
        );
        let streams = group_streams * groups;
        let n = usize::from(streams);
        let gc_destinations = match scheme {
            Scheme::Shared => (0..n).collect(),
            Scheme::Separate => (n..n + usize::from(groups)).collect(),
            Scheme::Internal => (n..2 * n).collect(),
            Scheme::Coldmap { .. } => vec![n, n + 1],
            // Any class may receive copies.
            Scheme::Classified(classes) => (0..usize::from(classes.classes())).collect(),
        };
        Self {
            scheme,
            streams,
            groups,
            group_streams,
            gc_destinations,
        }
    }

    /// The group stream `stream` writes to.
    #[inline]
    pub fn group_of_stream(&self, stream: u16) -> u32 {
        u32::from(stream / self.group_streams)
    }

    pub fn groups(&self) -> u16 {
        self.groups
    }

    pub fn streams(&self) -> u16 {
        self.streams
    }

    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The frontiers this policy writes to, in index order.
    pub fn frontiers(&self) -> Vec<Frontier> {
        let frontier = |key, wear| {
            let group = match key {
                FrontierKey::Host { stream } | FrontierKey::Gc { stream } => {
                    self.group_of_stream(stream)
                }
                FrontierKey::Cold | FrontierKey::Class { .. } => 0,
            };
            Frontier {
                key,
                block: NO_BLOCK,
                wear,
                group,
            }
        };
        if let Scheme::Classified(classes) = self.scheme {
            return (0..classes.classes())
                .map(|class| frontier(FrontierKey::Class { class }, WearPreference::LeastErased))
                .collect();
        }
        let mut out: Vec<Frontier> = (0..self.streams)
            .map(|stream| frontier(FrontierKey::Host { stream }, WearPreference::LeastErased))
            .collect();
        if self.scheme == Scheme::Internal {
            out.extend(
                (0..self.streams).map(|stream| {
                    frontier(FrontierKey::Gc { stream }, WearPreference::LeastErased)
                }),
            );
        }
        if matches!(self.scheme, Scheme::Separate | Scheme::Coldmap { .. }) {
            // One GC frontier per group, keyed by the group's first stream.
            out.extend((0..self.groups).map(|g| {
                frontier(
                    FrontierKey::Gc {
                        stream: g * self.group_streams,
                    },
                    WearPreference::LeastErased,
                )
            }));
        }
        if matches!(self.scheme, Scheme::Coldmap { .. }) {
            // The cold zone takes the most-worn blocks: its data stays put, so
            // those blocks rest while the young ones cycle.
            out.push(frontier(FrontierKey::Cold, WearPreference::MostErased));
        }
        out
    }

    /// The frontiers GC copies can go to.
    pub fn gc_destinations(&self) -> &[usize] {
        &self.gc_destinations
    }

    /// The host frontier of `stream` (already checked to be below `streams`).
    #[inline]
    pub fn host_frontier(&self, stream: u16) -> usize {
        debug_assert!(stream < self.streams, "stream {stream} unchecked");
        usize::from(stream)
    }

    /// The frontier a GC copy goes to. `origin_stream` is the stream the
    /// victim block was opened for; `mean_single_survival` the mean survival
    /// of single-mapped pages so far (0 when none died yet).
    #[inline]
    pub fn gc_frontier(
        &self,
        page: GcPage,
        mean_single_survival: f64,
        origin_stream: u16,
    ) -> usize {
        let n = usize::from(self.streams);
        match self.scheme {
            Scheme::Shared => usize::from(origin_stream.min(self.streams - 1)),
            // A branch rather than a division: one group but under FDP.
            Scheme::Separate if self.groups == 1 => n,
            Scheme::Separate => n + self.group_of_stream(origin_stream) as usize,
            Scheme::Internal => n + usize::from(origin_stream.min(self.streams - 1)),
            Scheme::Coldmap {
                threshold,
                age_aware,
            } => {
                let old = age_aware
                    && mean_single_survival > 0.0
                    && page.age as f64 > mean_single_survival;
                if page.refs >= threshold || old {
                    n + 1
                } else {
                    n
                }
            }
            // The scheme classifies each copy (`Ssd::classified_gc_frontier`);
            // a victim-wide choice is only asked for room, and class 0 is one.
            Scheme::Classified(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: usize = 0;
    const GC: usize = 1;
    const COLD: usize = 2;

    #[test]
    fn coldmap_sends_shared_pages_cold() {
        let coldmap = |threshold, age_aware| {
            Placement::new(
                Scheme::Coldmap {
                    threshold,
                    age_aware,
                },
                1,
            )
        };
        let page = |refs, age| GcPage { refs, age };
        let p = coldmap(2, false);
        assert_eq!(p.gc_frontier(page(1, 10), 0.0, 0), GC);
        assert_eq!(p.gc_frontier(page(2, 10), 0.0, 0), COLD);
        assert_eq!(p.gc_frontier(page(1, 1_000), 100.0, 0), GC);
        let a = coldmap(3, true);
        assert_eq!(a.gc_frontier(page(2, 10), 100.0, 0), GC);
        assert_eq!(a.gc_frontier(page(1, 1_000), 100.0, 0), COLD);
        assert_eq!(p.frontiers()[COLD].wear, WearPreference::MostErased);
        let shared = Placement::new(Scheme::Shared, 1);
        assert_eq!(shared.gc_frontier(page(5, 0), 0.0, 0), HOST);
    }

    #[test]
    fn streams_get_frontiers_and_copies_return_to_their_stream() {
        let shared = Placement::new(Scheme::Shared, 3);
        assert_eq!(shared.frontiers().len(), 3);
        assert_eq!(shared.gc_destinations(), &[0, 1, 2]);
        assert_eq!(shared.gc_frontier(GcPage { refs: 1, age: 0 }, 0.0, 2), 2);
        let separate = Placement::new(Scheme::Separate, 3);
        assert_eq!(separate.frontiers().len(), 4);
        assert_eq!(separate.frontiers()[3].key, FrontierKey::Gc { stream: 0 });
        assert_eq!(separate.gc_frontier(GcPage { refs: 1, age: 0 }, 0.0, 2), 3);
        assert_eq!(separate.host_frontier(2), 2);
        // Internal streams: stream s's copies, also from blocks its GC
        // frontier opened, go to GC frontier streams + s.
        let internal = Placement::new(Scheme::Internal, 3);
        let keys: Vec<FrontierKey> = internal.frontiers().iter().map(|f| f.key).collect();
        assert_eq!(
            keys[3..],
            [0, 1, 2].map(|stream| FrontierKey::Gc { stream })
        );
        assert_eq!(internal.gc_destinations(), &[3, 4, 5]);
        assert_eq!(internal.gc_frontier(GcPage { refs: 1, age: 0 }, 0.0, 1), 4);
    }
}
