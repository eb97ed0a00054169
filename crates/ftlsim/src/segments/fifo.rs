//! FIFO: the segment sealed first (a circular log's cleaning order).

use std::collections::VecDeque;

use rand_xoshiro::Xoshiro256PlusPlus;

use super::policy::{PolicyKeys, VictimPolicy};
use super::view::SegmentView;

#[derive(Debug, Clone)]
pub struct Fifo {
    /// (segment, seq) in the order they filled. A removed segment's entry
    /// stays and goes stale: its seq changes when it is reopened, and an
    /// entry for a segment that is not full is skipped, so removal is O(1).
    queue: VecDeque<(u32, u64)>,
}

impl VictimPolicy for Fifo {
    fn new(_keys: PolicyKeys, _segments: u32, _pages_per_segment: u32) -> Self {
        Self {
            queue: VecDeque::new(),
        }
    }

    fn insert(&mut self, s: u32, view: &impl SegmentView) {
        self.queue.push_back((s, view.seq(s)));
    }

    fn remove(&mut self, _s: u32, _view: &impl SegmentView) {}

    fn put_back(&mut self, s: u32, view: &impl SegmentView) {
        self.queue.push_front((s, view.seq(s)));
    }

    fn choose(
        &mut self,
        view: &impl SegmentView,
        _rng: &mut Xoshiro256PlusPlus,
        _now_pages: u64,
    ) -> Option<u32> {
        loop {
            let (s, seq) = self.queue.pop_front()?;
            if view.is_full(s) && view.seq(s) == seq {
                return Some(s);
            }
        }
    }

    /// Live entries sit among stale ones, so membership would take a scan
    /// of the queue; it is not checked.
    fn check_member(&self, _s: u32, _valid: u32) -> Result<(), String> {
        Ok(())
    }
}
