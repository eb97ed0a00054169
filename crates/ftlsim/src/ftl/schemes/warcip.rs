//! WARCIP (Yang, Pei, Yang and Hou, "WARCIP: Write Amplification Reduction
//! by Clustering I/O Pages", SYSTOR'19), as SepBIT's simulator runs it
//! (`placement/Warcip.java`).
//!
//! Clusters, each a class: cluster 0 takes every GC write; user writes go
//! to the user cluster (1 and up) whose centre is nearest their rewrite
//! interval (ties to the later cluster). A page's rewrite interval is the
//! time since its last user write, plus, when GC moved it since, the time
//! from that write to the move (a penalty); a first write's is 0. Times
//! are the trace's µs (the module comment of `schemes`). The chosen
//! cluster's centre becomes the running mean of the intervals written to
//! its open block (so the first write after a block fills sets it).
//!
//! Every `split_merge_period_segments` blocks the user clusters fill, the
//! first user cluster that took over half of the period's user writes
//! splits (a new cluster before it, centred between its neighbours), while
//! fewer than `classes` clusters exist; otherwise the first user cluster
//! that took less than a block's worth is marked to merge, and goes away
//! when its open block next fills. All start with `classes` clusters
//! centred on 0.
//!
//! A cluster keeps the frontier it was given while clusters come and go
//! around it (SepBIT's simulator shifts its open segments instead); a split
//! takes the lowest frontier no cluster holds, whose block a merge left
//! full. One guard SepBIT's lacks: the last user cluster never merges (its
//! simulator would then fail on the next user write); with one cluster
//! taking every user write that cannot be marked anyway.

use super::{PlacementScheme, GcWrite, HostRequest, SchemeSpace, UserWrite};
use crate::config::PlacementSchemeConfig;
use crate::flash::Lpn;

#[derive(Debug, Clone, Copy)]
struct Cluster {
    centre: f64,
    /// Writes to its open block (the running mean's weight).
    block_writes: u64,
    /// User writes in the current period.
    period_writes: u64,
    /// Its class: the frontier it writes to.
    frontier: u16,
}

#[derive(Debug, Clone)]
pub(crate) struct Warcip {
    max_clusters: usize,
    period_blocks: u64,
    block_pages: u64,
    now_us: u64,
    /// Each page's last user write, µs (`NEVER`: none).
    last_us: Vec<u64>,
    /// Each page's penalty: from its last user write to its last GC move.
    penalty_us: Vec<u64>,
    /// In order; 0 is GC's.
    clusters: Vec<Cluster>,
    period_writes: u64,
    user_blocks_filled: u64,
    merge_next: Option<usize>,
}

const NEVER: u64 = u64::MAX;

impl Warcip {
    fn split(&mut self, at: usize) {
        let taken = |f: u16| self.clusters.iter().any(|c| c.frontier == f);
        let frontier = (0..self.max_clusters as u16)
            .find(|&f| !taken(f))
            .expect("fewer clusters than frontiers");
        let centre = (self.clusters[at - 1].centre + self.clusters[at].centre) / 2.0;
        self.clusters.insert(
            at,
            Cluster {
                centre,
                block_writes: 0,
                period_writes: 0,
                frontier,
            },
        );
    }

    fn split_and_merge(&mut self) {
        let half = self.period_writes / 2;
        let busy = (1..self.clusters.len()).find(|&i| self.clusters[i].period_writes > half);
        match busy {
            Some(i) if self.clusters.len() < self.max_clusters => self.split(i),
            _ => {
                let idle = (1..self.clusters.len())
                    .find(|&i| self.clusters[i].period_writes < self.block_pages);
                if let Some(i) = idle {
                    self.merge_next.get_or_insert(i);
                }
            }
        }
        self.period_writes = 0;
        for c in &mut self.clusters {
            c.period_writes = 0;
        }
    }
}

impl PlacementScheme for Warcip {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Warcip {
            classes,
            split_merge_period_segments,
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        let pages = space.logical_pages as usize;
        Self {
            max_clusters: usize::from(classes),
            period_blocks: u64::from(split_merge_period_segments),
            block_pages: u64::from(space.block_pages),
            now_us: 0,
            last_us: vec![NEVER; pages],
            penalty_us: vec![0; pages],
            clusters: (0..classes)
                .map(|frontier| Cluster {
                    centre: 0.0,
                    block_writes: 0,
                    period_writes: 0,
                    frontier,
                })
                .collect(),
            period_writes: 0,
            user_blocks_filled: 0,
            merge_next: None,
        }
    }

    fn request(&mut self, request: &HostRequest) {
        self.now_us = request.time_us;
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let l = write.lpn.index();
        let interval = match self.last_us[l] {
            NEVER => 0.0,
            last => (self.now_us as i64 - last as i64 + self.penalty_us[l] as i64) as f64,
        };
        self.last_us[l] = self.now_us;
        self.penalty_us[l] = 0;
        let mut nearest = 1;
        let mut least = f64::MAX;
        for i in (1..self.clusters.len()).rev() {
            let d = (self.clusters[i].centre - interval).abs();
            if d < least {
                nearest = i;
                least = d;
            }
        }
        let c = &mut self.clusters[nearest];
        let n = c.block_writes as f64;
        c.centre = (c.centre * n + interval) / (n + 1.0);
        c.block_writes += 1;
        c.period_writes += 1;
        self.period_writes += 1;
        c.frontier
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        let l = write.lpn.index();
        debug_assert_ne!(self.last_us[l], NEVER, "a page GC copies was written");
        self.penalty_us[l] = self.now_us.saturating_sub(self.last_us[l]);
        self.clusters[0].frontier
    }

    fn sealed(&mut self, _: u32, frontier: u16, _: &[Lpn]) {
        let Some(id) = self.clusters.iter().position(|c| c.frontier == frontier) else {
            return;
        };
        if id != 0 {
            self.user_blocks_filled += 1;
        }
        if self.merge_next == Some(id) && self.clusters.len() > 2 {
            self.clusters.remove(id);
            self.merge_next = None;
        } else {
            if self.merge_next == Some(id) {
                self.merge_next = None;
            }
            self.clusters[id].block_writes = 0;
        }
        if self.user_blocks_filled == self.period_blocks {
            self.user_blocks_filled = 0;
            self.split_and_merge();
        }
    }

    fn state_bytes(&self) -> usize {
        self.last_us.len() * 16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(w: &mut Warcip, lpn: u32) -> u16 {
        w.user_class(&UserWrite {
            lpn: Lpn::new(lpn),
            stream: 0,
            write_index: 0,
            lifespan_pages: None,
            live_pages: 1,
        })
    }

    /// With a period of one block: a first write goes to the last cluster
    /// (all centres 0, ties to the later one); once a cluster takes every
    /// write of a period it splits, the new cluster on the lowest free
    /// frontier; an idle cluster merges when its block next fills, never
    /// the last user cluster.
    #[test]
    fn splits_and_merges_as_sepbits() {
        let config = PlacementSchemeConfig::Warcip {
            classes: 3,
            split_merge_period_segments: 1,
        };
        let space = SchemeSpace {
            logical_pages: 64,
            block_pages: 2,
            blocks: 16,
            seed: 0,
        };
        let mut w = Warcip::new(&config, space);
        assert_eq!(user(&mut w, 0), 2);
        assert_eq!(user(&mut w, 1), 2);
        // Cluster 2 (frontier 2) filled its block with every write; the
        // other user cluster took none: it is marked to merge.
        w.sealed(0, 2, &[]);
        assert_eq!(w.merge_next, Some(1));
        assert_eq!(w.clusters.len(), 3);
        // Cluster 1's block fills: it merges away, frontier 1 is free.
        w.sealed(1, 1, &[]);
        let frontiers: Vec<u16> = w.clusters.iter().map(|c| c.frontier).collect();
        assert_eq!(frontiers, [0, 2]);
        // The lone user cluster, marked in turn, does not merge; it takes
        // every write, and splits at the next period's end onto frontier 1.
        assert_eq!(w.merge_next, Some(1));
        assert_eq!(user(&mut w, 2), 2);
        assert_eq!(user(&mut w, 3), 2);
        w.sealed(2, 2, &[]);
        let frontiers: Vec<u16> = w.clusters.iter().map(|c| c.frontier).collect();
        assert_eq!(frontiers, [0, 1, 2]);
        // The last user cluster never merges.
        let mut two = Warcip::new(
            &PlacementSchemeConfig::Warcip {
                classes: 2,
                split_merge_period_segments: 1,
            },
            space,
        );
        two.merge_next = Some(1);
        two.sealed(0, 1, &[]);
        assert_eq!(two.clusters.len(), 2);
        assert_eq!(user(&mut two, 5), 1);
    }
}
