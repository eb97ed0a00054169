//! Cost-benefit (Rosenblum and Ousterhout, LFS): the full segment that
//! maximizes age · (1 − u) / 2u, age in logical time since the segment was
//! last written. A scan of the full segments: O(segments) per victim,
//! acceptable for a policy studied on small and medium devices.

use rand_xoshiro::Xoshiro256PlusPlus;

use super::indexed_set::IndexedSet;
use super::policy::{PolicyKeys, VictimPolicy};
use super::view::SegmentView;
use super::NONE;

#[derive(Debug, Clone)]
pub struct CostBenefit {
    set: IndexedSet,
    pages_per_segment: u32,
}

impl VictimPolicy for CostBenefit {
    fn new(_keys: PolicyKeys, segments: u32, pages_per_segment: u32) -> Self {
        Self {
            set: IndexedSet::new(segments),
            pages_per_segment,
        }
    }

    fn insert(&mut self, s: u32, _view: &impl SegmentView) {
        self.set.insert(s);
    }

    fn remove(&mut self, s: u32, _view: &impl SegmentView) {
        self.set.remove(s);
    }

    fn choose(
        &mut self,
        view: &impl SegmentView,
        _rng: &mut Xoshiro256PlusPlus,
        now_pages: u64,
    ) -> Option<u32> {
        let victim = self.best(view, now_pages);
        self.set.remove(victim);
        Some(victim)
    }

    fn check_member(&self, s: u32, _valid: u32) -> Result<(), String> {
        self.set.check_member(s)
    }
}

impl CostBenefit {
    fn best(&self, view: &impl SegmentView, now_pages: u64) -> u32 {
        let pages = f64::from(self.pages_per_segment);
        let mut best = NONE;
        let mut best_score = f64::NEG_INFINITY;
        for &s in &self.set.members {
            let valid = view.valid_pages(s);
            // An empty segment costs nothing to clean: no score beats it.
            if valid == 0 {
                return s;
            }
            let u = f64::from(valid) / pages;
            let age = (now_pages.saturating_sub(view.last_write_at(s)) + 1) as f64;
            let score = age * (1.0 - u) / (2.0 * u);
            // The lowest segment number on a tie, whatever the set's order.
            if score > best_score || (score == best_score && s < best) {
                best = s;
                best_score = score;
            }
        }
        best
    }
}
