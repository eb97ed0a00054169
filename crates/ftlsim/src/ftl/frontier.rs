//! Frontiers (open blocks keyed by placement) and the placement policy that
//! decides which frontier receives a host write or a GC copy.
//!
//! GC never looks at *why* a frontier exists: streams, internal streams and
//! cold zones are new keys and a new policy here, not edits to GC.

use super::free_pool::WearPreference;
use crate::config::{Config, FrontierMode, PlacementName};
use crate::flash::NONE;

/// What a frontier's pages are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontierKey {
    /// Host writes of one stream (0 when the host uses none).
    Host { stream: u16 },
    /// GC copies (an internal stream when there are several).
    Gc { stream: u16 },
    /// Coldmap's cold zone: GC copies expected to live long.
    Cold,
}

#[derive(Debug, Clone)]
pub struct Frontier {
    pub key: FrontierKey,
    /// The open block, or NONE before the first write or after it filled.
    pub block: u32,
    /// Which free block this frontier asks for.
    pub wear: WearPreference,
}

/// What placement knows about a page GC is migrating.
#[derive(Debug, Clone, Copy)]
pub struct GcPage {
    /// LPNs sharing the page (1 without many-to-one mapping).
    pub refs: u32,
    /// Logical time since the page was programmed by the host.
    pub age: u64,
}

/// Maps a write to a frontier index. Small and `Copy`: matched on every page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Placement {
    /// Host writes and GC copies share frontier 0.
    Shared,
    /// Host writes use frontier 0, GC copies frontier 1.
    Separate,
    /// Host 0, GC 1, cold zone 2: GC copies with at least `threshold`
    /// references, or (`age_aware`) older than the mean single-mapped
    /// survival `mean_single_survival`, go cold.
    Coldmap { threshold: u32, age_aware: bool },
}

/// Frontier indices, fixed per policy.
const HOST: usize = 0;
const GC: usize = 1;
const COLD: usize = 2;

impl Placement {
    pub fn from_config(cfg: &Config) -> Self {
        match (cfg.ftl.placement, cfg.ftl.frontiers) {
            (PlacementName::Coldmap, _) => Placement::Coldmap {
                threshold: cfg.ftl.coldmap_threshold,
                age_aware: false,
            },
            (PlacementName::ColdmapAge, _) => Placement::Coldmap {
                threshold: cfg.ftl.coldmap_threshold,
                age_aware: true,
            },
            (PlacementName::Normal, FrontierMode::Shared) => Placement::Shared,
            (PlacementName::Normal, FrontierMode::Separate) => Placement::Separate,
        }
    }

    /// The frontiers this policy writes to, in index order.
    pub fn frontiers(self) -> Vec<Frontier> {
        let frontier = |key, wear| Frontier {
            key,
            block: NONE,
            wear,
        };
        let host = frontier(FrontierKey::Host { stream: 0 }, WearPreference::LeastErased);
        let gc = frontier(FrontierKey::Gc { stream: 0 }, WearPreference::LeastErased);
        match self {
            Placement::Shared => vec![host],
            Placement::Separate => vec![host, gc],
            // The cold zone takes the most-worn blocks: its data stays put, so
            // those blocks rest while the young ones cycle.
            Placement::Coldmap { .. } => vec![
                host,
                gc,
                frontier(FrontierKey::Cold, WearPreference::MostErased),
            ],
        }
    }

    /// The frontiers GC copies can go to.
    pub fn gc_destinations(self) -> &'static [usize] {
        match self {
            Placement::Shared => &[HOST],
            Placement::Separate => &[GC],
            Placement::Coldmap { .. } => &[GC, COLD],
        }
    }

    #[inline]
    pub fn host_frontier(self, _stream: u16) -> usize {
        HOST
    }

    /// The frontier a GC copy goes to. `mean_single_survival` is the mean
    /// survival of single-mapped pages so far (0 when none died yet).
    #[inline]
    pub fn gc_frontier(self, page: GcPage, mean_single_survival: f64) -> usize {
        match self {
            Placement::Shared => HOST,
            Placement::Separate => GC,
            Placement::Coldmap {
                threshold,
                age_aware,
            } => {
                let old = age_aware
                    && mean_single_survival > 0.0
                    && page.age as f64 > mean_single_survival;
                if page.refs >= threshold || old {
                    COLD
                } else {
                    GC
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coldmap_sends_shared_pages_cold() {
        let p = Placement::Coldmap {
            threshold: 2,
            age_aware: false,
        };
        assert_eq!(p.gc_frontier(GcPage { refs: 1, age: 10 }, 0.0), GC);
        assert_eq!(p.gc_frontier(GcPage { refs: 2, age: 10 }, 0.0), COLD);
        assert_eq!(
            p.gc_frontier(
                GcPage {
                    refs: 1,
                    age: 1_000
                },
                100.0
            ),
            GC
        );
        let a = Placement::Coldmap {
            threshold: 3,
            age_aware: true,
        };
        assert_eq!(a.gc_frontier(GcPage { refs: 2, age: 10 }, 100.0), GC);
        assert_eq!(
            a.gc_frontier(
                GcPage {
                    refs: 1,
                    age: 1_000
                },
                100.0
            ),
            COLD
        );
        assert_eq!(p.frontiers()[COLD].wear, WearPreference::MostErased);
        assert_eq!(
            Placement::Shared.gc_frontier(GcPage { refs: 5, age: 0 }, 0.0),
            HOST
        );
    }
}
