//! d-choices: the emptiest of d full segments drawn uniformly (with
//! replacement), between random (d = 1) and greedy (d → ∞) at d draws per
//! choice.

use rand_xoshiro::Xoshiro256PlusPlus;

use super::indexed_set::IndexedSet;
use super::policy::{PolicyKeys, VictimPolicy};
use super::view::SegmentView;
use super::NONE;

#[derive(Debug, Clone)]
pub struct DChoices {
    set: IndexedSet,
    /// d: candidates per choice, at least 1 (the plan checks it).
    choices: u32,
}

impl VictimPolicy for DChoices {
    fn new(keys: PolicyKeys, segments: u32, _pages_per_segment: u32) -> Self {
        debug_assert!(keys.choices >= 1, "d-choices needs a candidate");
        Self {
            set: IndexedSet::new(segments),
            choices: keys.choices,
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
        rng: &mut Xoshiro256PlusPlus,
        _now_pages: u64,
    ) -> Option<u32> {
        let mut best = NONE;
        let mut best_valid = u32::MAX;
        // The first candidate on a tie: the draw order decides, not the set's.
        for _ in 0..self.choices {
            let candidate = self.set.draw(rng);
            let valid = view.valid_pages(candidate);
            if valid < best_valid {
                best = candidate;
                best_valid = valid;
            }
        }
        self.set.remove(best);
        Some(best)
    }

    fn check_member(&self, s: u32, _valid: u32) -> Result<(), String> {
        self.set.check_member(s)
    }
}
