//! MiDAS (Oh et al., "MiDAS: Minimizing Write Amplification in
//! Log-Structured Systems through Adaptive Group Number and Size
//! Configuration", FAST'24; `algorithm/MiDAS/` of `dgist-datalab/MiDAS`).
//!
//! * The group chain: class `i` is group `i`. User writes enter group 0;
//!   a GC write moves its page one group on from its victim's, the last
//!   group keeping its own (`gc.c`: `mig_count`).
//! * Before the first model (MiDAS's "naive" mode) `initial_groups` groups
//!   and the regime's victim (MiDAS: greedy over every block).
//! * With a configuration, GC takes the oldest block of the first group
//!   holding more sealed blocks than its size (a FIFO), else the best block
//!   of the last group by the regime's score (MiDAS: greedy), the classes
//!   past a shortened chain counting as its last group.
//! * UID sampling: one LPN in `sampling_ratio` (by a hash of the LPN;
//!   MiDAS takes the LPNs that are multiples, which on a trace whose
//!   hottest pages are the lowest LPNs samples the hottest of all) has
//!   its update intervals counted in buckets of a block's worth of host
//!   writes, from the end of the first logical space written (MiDAS skips
//!   the sequential load) over epochs of `epoch_capacities` logical spaces.
//! * At each epoch's end the model (`model.rs`) searches the group count
//!   and sizes over the sealed blocks, its FIFO groups holding a page no
//!   longer than the UID saw, and the best is applied if it predicts a WA
//!   below the one measured over the last logical space written
//!   (`check_applying_config` against MiDAS's `tmp_waf`); the histogram
//!   starts again.
//!
//! * A configuration applied to groups holding more blocks than their new
//!   sizes moves the excess, the oldest, to the last group
//!   (`decrease_group_size`): they are collected with it, their copies go
//!   to it. (Their class stays; the scheme counts them per class, and a
//!   reclaim of such a class counts against them first.)
//!
//! * The error check, at the level of the WA: an epoch run with a
//!   configuration whose last logical space measured more than
//!   `ERROR_MARGIN` above the model's prediction goes back to naive mode
//!   (MiDAS compares each group's valid ratio with the model's, within
//!   0.1), and the epoch's model is not applied. And at once, when the
//!   last group's best block is so full that GC would take
//!   `STUCK_GC_VICTIMS` of them to free a block (MiDAS's infinite-GC
//!   handling).
//!
//! Not built: the hot filter and its group (MiDAS's G0), the second
//! search phase, and the doubling of the time window after errors in two
//! epochs running (`err_cnt`).

mod model;

use super::{
    ClassBlocks, PlacementScheme, GcWrite, Reclaimed, SchemeSpace, UserWrite, VictimChoice,
    VictimOrder,
};
use crate::config::PlacementSchemeConfig;
use crate::hash::splitmix64;
use model::Uid;

/// A configuration whose epoch measured this much above its prediction
/// (relatively) is dropped for naive mode.
const ERROR_MARGIN: f64 = 0.1;

/// A configuration is applied only if its predicted WA is at least this
/// much below the WA measured (MiDAS's `hot_thresh`, the gain it asks of
/// each step of its hot group's size search): the simplified model's own
/// error is of that order, and a change of chain costs a transition.
const MIN_GAIN: f64 = 0.05;

/// MiDAS's `ILOOP`: when GC would take this many victims of the last
/// group to free one block (its best block this full or fuller), the
/// configuration is dropped for naive mode. MiDAS merges groups from the
/// last one back until GC frees a block; ftlsim goes back to the naive
/// chain at once, as MiDAS's error check does.
const STUCK_GC_VICTIMS: u64 = 25;

/// A sampled LPN not written this epoch.
const UNSEEN: u64 = u64::MAX;

#[derive(Debug, Clone)]
pub(crate) struct Midas {
    block_pages: u32,
    max_groups: u16,
    /// Groups in the chain now.
    groups: u16,
    /// Groups in naive mode.
    initial_groups: u16,
    /// Sealed blocks per group when configured (the last entry's is the
    /// rest); `None` before the first model applies.
    sizes: Option<Vec<u32>>,
    /// Sealed blocks of each class.
    sealed: Vec<u32>,
    /// Of them, those moved to the last group (the class's oldest).
    moved: Vec<u32>,
    /// The block being reclaimed is the last group's: its copies stay there.
    copy_to_last: bool,
    sampling_ratio: u64,
    /// The sampled LPNs, in order.
    sampled: Vec<u32>,
    /// Per sampled LPN, its last write this epoch (host page writes).
    last_write: Vec<u64>,
    uid: Uid,
    /// Host page writes before the first epoch (the first logical space).
    load_pages: u64,
    epoch_pages: u64,
    next_model_at: u64,
    /// Host page writes and GC writes in the logical space being written
    /// (a span: `load_pages` host writes).
    span_user: u64,
    span_gc: u64,
    /// The WA of the last whole span (MiDAS's `tmp_waf`, the WAF of its
    /// last device's worth of writes): what a model must beat.
    span_wa: f64,
    /// Logical pages holding data, at the last user write.
    live_pages: u64,
    /// The model's WA of the configuration applied (for tests and reports).
    predicted_wa: Option<f64>,
}

impl PlacementScheme for Midas {
    type Config = PlacementSchemeConfig;

    fn new(config: &PlacementSchemeConfig, space: SchemeSpace) -> Self {
        let PlacementSchemeConfig::Midas {
            max_groups,
            initial_groups,
            sampling_ratio,
            epoch_capacities,
        } = *config
        else {
            unreachable!("built from its own variant")
        };
        let logical = u64::from(space.logical_pages);
        let epoch_pages = ((logical as f64 * epoch_capacities).ceil() as u64).max(1);
        let buckets = (epoch_pages / u64::from(space.block_pages)) as usize + 1;
        let sampling_ratio = u64::from(sampling_ratio);
        let sampled: Vec<u32> = (0..space.logical_pages)
            .filter(|&lpn| is_sampled(lpn, sampling_ratio))
            .collect();
        Self {
            block_pages: space.block_pages,
            max_groups,
            groups: initial_groups,
            initial_groups,
            sizes: None,
            sealed: vec![0; usize::from(max_groups)],
            moved: vec![0; usize::from(max_groups)],
            copy_to_last: false,
            sampling_ratio,
            last_write: vec![UNSEEN; sampled.len()],
            sampled,
            uid: Uid::new(buckets),
            load_pages: logical,
            epoch_pages,
            next_model_at: logical + epoch_pages,
            span_user: 0,
            span_gc: 0,
            span_wa: f64::INFINITY,
            live_pages: 0,
            predicted_wa: None,
        }
    }

    fn user_class(&mut self, write: &UserWrite) -> u16 {
        let now = write.write_index;
        self.live_pages = write.live_pages;
        if now >= self.next_model_at {
            self.model(now);
            self.next_model_at = now + self.epoch_pages;
        }
        if now >= self.load_pages {
            self.span_user += 1;
            if self.span_user == self.load_pages {
                self.span_wa = (self.span_user + self.span_gc) as f64 / self.span_user as f64;
                self.span_user = 0;
                self.span_gc = 0;
            }
            let lpn = write.lpn.get();
            if is_sampled(lpn, self.sampling_ratio) {
                if let Ok(index) = self.sampled.binary_search(&lpn) {
                    self.sample(index, now);
                }
            }
        }
        0
    }

    fn gc_class(&mut self, write: &GcWrite) -> u16 {
        if write.now_pages > self.load_pages {
            self.span_gc += 1;
        }
        let last = self.groups - 1;
        if self.copy_to_last {
            return last;
        }
        (write.victim_class + 1).min(last)
    }

    fn sealed(&mut self, _block: u32, class: u16, _valid_pages: &[crate::flash::Lpn]) {
        self.sealed[usize::from(class)] += 1;
    }

    fn reclaimed(&mut self, block: &Reclaimed) {
        let c = usize::from(block.class);
        self.sealed[c] -= 1;
        self.copy_to_last = self.moved[c] > 0;
        if self.copy_to_last {
            self.moved[c] -= 1;
        }
    }

    fn chooses_victims(&self) -> bool {
        true
    }

    fn victim_choice(&mut self, view: &[ClassBlocks]) -> Option<VictimChoice> {
        let sizes = self.sizes.as_ref()?;
        let last = self.groups - 1;
        let mut moved = 0u64;
        for g in 0..last {
            let i = usize::from(g);
            if view[i].sealed_blocks - self.moved[i].min(view[i].sealed_blocks) > sizes[i] {
                return Some(VictimChoice::class_range(g, g + 1, VictimOrder::Oldest));
            }
            if self.moved[i] > 0 {
                moved |= 1 << g;
            }
        }
        let mut choice = VictimChoice::class_range(last, self.max_groups, VictimOrder::Score);
        choice.classes |= moved;
        let any = view[usize::from(last)..]
            .iter()
            .any(|c| c.sealed_blocks > 0);
        if !(any || moved != 0) {
            return None;
        }
        // The last group's best block: if it frees less than a block per
        // `STUCK_GC_VICTIMS` taken, the last group cannot hold what the
        // chain leaves it (MiDAS: `infinite_gc_handling`).
        let fewest = view
            .iter()
            .enumerate()
            .filter(|&(c, _)| c < 64 && choice.classes & (1 << c) != 0)
            .map(|(_, c)| c.fewest_valid)
            .min()
            .unwrap_or(u32::MAX);
        let stuck = u64::from(self.block_pages) * (STUCK_GC_VICTIMS - 1);
        if fewest != u32::MAX && u64::from(fewest) * STUCK_GC_VICTIMS > stuck {
            self.naive();
            return None;
        }
        Some(choice)
    }

    fn state_bytes(&self) -> usize {
        self.last_write.len() * 12 + self.uid.counts.len() * 16 + self.sealed.len() * 4
    }
}

/// Whether `lpn` is one of the LPNs sampled, one in `ratio`.
fn is_sampled(lpn: u32, ratio: u64) -> bool {
    splitmix64(u64::from(lpn)).is_multiple_of(ratio)
}

impl Midas {
    /// A write of sampled LPN `index` at `now`: the interval since its last
    /// write this epoch goes into the histogram.
    fn sample(&mut self, index: usize, now: u64) {
        let last = std::mem::replace(&mut self.last_write[index], now);
        if last == UNSEEN {
            return;
        }
        let bucket = ((now - last) / u64::from(self.block_pages)) as usize;
        match self.uid.counts.get_mut(bucket) {
            Some(c) => *c += 1,
            None => self.uid.beyond += 1,
        }
    }

    /// The epoch's end: the model's best chain, applied if it beats the WA
    /// measured; then a new epoch.
    fn model(&mut self, now: u64) {
        // Intervals still open: censored at their age.
        for t in &mut self.last_write {
            if *t != UNSEEN {
                let bucket = (now.saturating_sub(*t) / u64::from(self.block_pages)) as usize;
                match self.uid.open.get_mut(bucket) {
                    Some(c) => *c += 1,
                    None => self.uid.beyond += 1,
                }
                *t = UNSEEN;
            }
        }
        let measured = self.span_wa;
        if self.predicted_wa.is_some_and(|p| measured > p * (1.0 + ERROR_MARGIN)) {

            self.naive();
            self.new_epoch();
            return;
        }
        let total: u32 = self.sealed.iter().sum();
        let best = self
            .uid
            .survival(u64::from(self.block_pages), self.live_pages)
            .filter(|_| total >= 2)
            .and_then(|s| model::search(total, self.max_groups, self.block_pages, &s));
        if let Some((sizes, wa)) = best {
            if sizes.len() >= 2 && wa + MIN_GAIN < measured {
                self.groups = sizes.len() as u16;
                let last = sizes.len() - 1;
                for (c, moved) in self.moved.iter_mut().enumerate() {
                    *moved = match sizes.get(c) {
                        Some(&size) if c < last => self.sealed[c].saturating_sub(size),
                        _ => 0,
                    };
                }
                self.sizes = Some(sizes);
                self.predicted_wa = Some(wa);
            }
        }
        self.new_epoch();
    }

    fn new_epoch(&mut self) {
        self.uid.clear();
    }

    /// Back to naive mode: the regime's victims, the initial chain; blocks
    /// stay in their classes (those past the chain count as its last).
    fn naive(&mut self) {
        self.sizes = None;
        self.groups = self.initial_groups;
        self.moved.iter_mut().for_each(|m| *m = 0);
        self.predicted_wa = None;
    }
}

#[cfg(test)]
mod tests {
    use super::{ClassBlocks, PlacementScheme, Midas, SchemeSpace, VictimOrder};
    use crate::config::PlacementSchemeConfig;
    use crate::flash::Lpn;
    use crate::ftl::schemes::{Reclaimed, UserWrite};

    fn midas(epoch_capacities: f64) -> Midas {
        let config = PlacementSchemeConfig::Midas {
            max_groups: 4,
            initial_groups: 3,
            sampling_ratio: 1,
            epoch_capacities,
        };
        let space = SchemeSpace {
            logical_pages: 1000,
            block_pages: 10,
            blocks: 150,
            seed: 1,
        };
        Midas::new(&config, space)
    }

    fn view(sealed: &[u32]) -> Vec<ClassBlocks> {
        sealed
            .iter()
            .map(|&n| ClassBlocks {
                sealed_blocks: n,
                valid_pages: u64::from(n) * 5,
                fewest_valid: 5,
            })
            .collect()
    }

    #[test]
    fn the_chain_moves_one_group_per_gc_until_the_last() {
        let mut m = midas(1.0);
        let gc = |victim_class| super::GcWrite {
            lpn: Lpn::new(0),
            refs: 1,
            mean_single_survival: 0.0,
            victim_class,
            age_pages: 0,
            now_pages: 0,
        };
        assert_eq!(m.gc_class(&gc(0)), 1);
        assert_eq!(m.gc_class(&gc(1)), 2);
        assert_eq!(m.gc_class(&gc(2)), 2);
        // Naive mode: the regime's victim.
        assert!(m.victim_choice(&view(&[5, 5, 5, 0])).is_none());
    }

    #[test]
    fn a_group_over_its_size_gives_its_oldest_block() {
        let mut m = midas(1.0);
        m.groups = 3;
        m.sizes = Some(vec![4, 6, 100]);
        let c = m.victim_choice(&view(&[5, 6, 50, 0])).expect("a choice");
        assert_eq!((c.classes, c.order), (0b1, VictimOrder::Oldest));
        let c = m.victim_choice(&view(&[4, 7, 50, 0])).expect("a choice");
        assert_eq!((c.classes, c.order), (0b10, VictimOrder::Oldest));
        // Within sizes: the last group and the classes past it, by score.
        let c = m.victim_choice(&view(&[4, 6, 50, 3])).expect("a choice");
        assert_eq!((c.classes, c.order), (0b1100, VictimOrder::Score));
        assert!(m.victim_choice(&view(&[4, 6, 0, 0])).is_none());
    }

    /// Blocks moved to the last group by a new configuration are collected
    /// with it and copy into it, and leave their group's count.
    #[test]
    fn moved_blocks_belong_to_the_last_group() {
        let mut m = midas(1.0);
        m.groups = 3;
        m.sizes = Some(vec![4, 6, 100]);
        m.sealed = vec![4, 9, 50, 0];
        m.moved = vec![0, 3, 0, 0];
        // Group 1 holds 9, 3 of them moved: within its size of 6.
        let c = m.victim_choice(&view(&[4, 9, 50, 0])).expect("a choice");
        assert_eq!((c.classes, c.order), (0b1110, VictimOrder::Score));
        let reclaim = |class| Reclaimed {
            block: 0,
            class,
            lifespan_pages: 0,
            valid_pages: 0,
            gc: true,
        };
        m.reclaimed(&reclaim(1));
        assert_eq!((m.sealed[1], m.moved[1]), (8, 2));
        let gc = super::GcWrite {
            lpn: Lpn::new(0),
            refs: 1,
            mean_single_survival: 0.0,
            victim_class: 1,
            age_pages: 0,
            now_pages: 0,
        };
        assert_eq!(m.gc_class(&gc), 2);
        m.reclaimed(&reclaim(0));
        assert_eq!(m.gc_class(&super::GcWrite { victim_class: 0, ..gc }), 1);
    }

    /// A hot tenth rewritten often and a cold rest: the model splits off
    /// a small first group and applies it when it beats the WA measured.
    #[test]
    fn the_model_applies_a_chain_that_beats_the_measured_wa() {
        let mut m = midas(2.0);
        // 140 sealed blocks over the first classes.
        for _ in 0..140 {
            m.sealed[0] += 1;
        }
        let mut x = 7u64;
        let mut now = 0u64;
        while now < 1000 + 2000 + 1 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            let r = (x >> 33) % 1000;
            let lpn = if now < 1000 {
                now
            } else if r < 900 {
                (x >> 20) % 100
            } else {
                100 + (x >> 20) % 900
            };
            m.user_class(&UserWrite {
                lpn: Lpn::new(lpn as u32),
                stream: 0,
                write_index: now,
                lifespan_pages: Some(1),
                live_pages: 1000,
            });
            // A measured WA of 3: two GC copies per user write.
            if now >= 1000 {
                m.span_gc += 2;
            }
            now += 1;
        }
        let sizes = m.sizes.clone().expect("a chain applied");
        assert!(sizes.len() >= 2, "{sizes:?}");
        assert_eq!(sizes.iter().sum::<u32>(), 140);
        assert!(m.predicted_wa.expect("predicted") < 3.0);
        m.reclaimed(&Reclaimed {
            block: 0,
            class: 0,
            lifespan_pages: 0,
            valid_pages: 0,
            gc: true,
        });
        assert_eq!(m.sealed[0], 139);
        // The next epoch measures WA 5 under a prediction below 3: back to
        // naive mode, and that epoch's model is not applied.
        while now < 1000 + 2000 + 2000 + 1 {
            m.user_class(&UserWrite {
                lpn: Lpn::new((now % 1000) as u32),
                stream: 0,
                write_index: now,
                lifespan_pages: Some(1),
                live_pages: 1000,
            });
            m.span_gc += 4;
            now += 1;
        }
        assert!(m.sizes.is_none() && m.predicted_wa.is_none());
        assert_eq!(m.groups, 3);
    }
}
