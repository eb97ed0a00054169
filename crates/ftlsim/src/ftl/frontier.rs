//! Frontiers (open blocks keyed by placement) and the placement policy that
//! decides which frontier receives a host write or a GC copy.
//!
//! GC never looks at *why* a frontier exists: streams, internal streams and
//! cold zones are new keys and a new policy here, not edits to GC.

use super::free_pool::WearPreference;
use crate::config::FrontierMode;
use crate::flash::NONE;

/// What a frontier's pages are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontierKey {
    /// Host writes of one stream (0 when the host uses none).
    Host { stream: u16 },
    /// GC copies (an internal stream when there are several).
    Gc { stream: u16 },
}

#[derive(Debug, Clone)]
pub struct Frontier {
    pub key: FrontierKey,
    /// The open block, or NONE before the first write or after it filled.
    pub block: u32,
    /// Which free block this frontier asks for.
    pub wear: WearPreference,
}

/// Maps a write to a frontier index. Small and `Copy`: matched on every page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Host writes and GC copies share frontier 0.
    Shared,
    /// Host writes use frontier 0, GC copies frontier 1.
    Separate,
}

impl Placement {
    pub fn from_mode(mode: FrontierMode) -> Self {
        match mode {
            FrontierMode::Shared => Placement::Shared,
            FrontierMode::Separate => Placement::Separate,
        }
    }

    /// The frontiers this policy writes to, in index order.
    pub fn frontiers(self) -> Vec<Frontier> {
        let host = Frontier {
            key: FrontierKey::Host { stream: 0 },
            block: NONE,
            wear: WearPreference::LeastErased,
        };
        match self {
            Placement::Shared => vec![host],
            Placement::Separate => vec![
                host,
                Frontier {
                    key: FrontierKey::Gc { stream: 0 },
                    block: NONE,
                    wear: WearPreference::LeastErased,
                },
            ],
        }
    }

    #[inline]
    pub fn host_frontier(self, _stream: u16) -> usize {
        0
    }

    #[inline]
    pub fn gc_frontier(self) -> usize {
        match self {
            Placement::Shared => 0,
            Placement::Separate => 1,
        }
    }

    pub fn is_gc_frontier(self, index: usize) -> bool {
        self == Placement::Separate && index == 1
    }
}
