//! Random: a full segment drawn uniformly (the analytical models' baseline).

use rand_xoshiro::Xoshiro256PlusPlus;

use super::indexed_set::IndexedSet;
use super::policy::{PolicyKeys, VictimPolicy};
use super::view::SegmentView;

#[derive(Debug, Clone)]
pub struct Random {
    set: IndexedSet,
}

impl VictimPolicy for Random {
    fn new(_keys: PolicyKeys, segments: u32, _pages_per_segment: u32) -> Self {
        Self {
            set: IndexedSet::new(segments),
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
        _view: &impl SegmentView,
        rng: &mut Xoshiro256PlusPlus,
        _now_pages: u64,
    ) -> Option<u32> {
        let victim = self.set.draw(rng);
        self.set.remove(victim);
        Some(victim)
    }

    fn check_member(&self, s: u32, _valid: u32) -> Result<(), String> {
        self.set.check_member(s)
    }
}
