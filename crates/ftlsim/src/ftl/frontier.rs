//! Frontiers: the open blocks a device writes to, each keyed by what its
//! pages are for, and the layout of host streams over FDP reclaim groups
//! that the stream schemes (`schemes/`) lay their frontiers out by.
//!
//! GC never looks at *why* a frontier exists: streams, internal streams,
//! cold zones and a scheme's classes are keys here and a placement scheme's
//! decisions (`placement.rs` dispatches to them), not edits to GC.

use crate::flash::NO_BLOCK;
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

/// What sharing knows about a page GC is migrating (`Ssd::stage_shared`).
#[derive(Debug, Clone, Copy)]
pub struct GcPage {
    /// LPNs sharing the page (1 without many-to-one mapping).
    pub refs: u32,
    /// Logical time since the page was programmed by the host.
    pub age: u64,
}

/// Host streams over groups: `groups` groups of `group_streams` streams
/// each (FDP reclaim groups of handles; one group otherwise). Stream s
/// writes to group `s / group_streams`; frontiers `0..streams` take the
/// host writes of each stream, in every stream scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLayout {
    pub group_streams: u16,
    pub groups: u16,
    /// `group_streams * groups`, kept: each request's stream check reads it.
    streams: u16,
}

impl StreamLayout {
    pub fn new(group_streams: u16, groups: u16) -> Self {
        assert!(
            group_streams >= 1 && groups >= 1,
            "a device has at least the default stream, in one group"
        );
        Self {
            group_streams,
            groups,
            streams: group_streams * groups,
        }
    }

    /// Host streams in all groups.
    #[inline]
    pub fn streams(&self) -> u16 {
        self.streams
    }

    /// The group stream `stream` writes to.
    #[inline]
    pub fn group_of_stream(&self, stream: u16) -> u32 {
        u32::from(stream / self.group_streams)
    }

    /// An empty frontier for `key`, in the group its stream writes to (a
    /// cold zone or a class: group 0).
    pub fn frontier(&self, key: FrontierKey, wear: WearPreference) -> Frontier {
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
    }

    /// The host frontier of every stream, stream 0 first.
    pub fn host_frontiers(&self) -> Vec<Frontier> {
        (0..self.streams())
            .map(|stream| self.frontier(FrontierKey::Host { stream }, WearPreference::LeastErased))
            .collect()
    }
}
