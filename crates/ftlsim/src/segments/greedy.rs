//! Greedy: the full segment with the fewest valid pages. Segments sit in
//! buckets by valid count (doubly linked lists), so both the update on each
//! invalidated page and the choice are O(1) amortized, never a scan.

use rand_xoshiro::Xoshiro256PlusPlus;

use super::policy::{PolicyKeys, VictimPolicy};
use super::view::SegmentView;
use super::NONE;

#[derive(Debug, Clone)]
pub struct Greedy {
    /// The first segment of each bucket, by valid count.
    head: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// No non-empty bucket lies below this valid count.
    min_hint: usize,
}

impl Greedy {
    #[inline]
    fn push(&mut self, s: u32, valid: u32) {
        let v = valid as usize;
        let old_head = self.head[v];
        self.prev[s as usize] = NONE;
        self.next[s as usize] = old_head;
        if old_head != NONE {
            self.prev[old_head as usize] = s;
        }
        self.head[v] = s;
        if v < self.min_hint {
            self.min_hint = v;
        }
    }

    #[inline]
    fn unlink(&mut self, s: u32, valid: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NONE {
            debug_assert_eq!(
                self.head[valid as usize], s,
                "block {s} not at the head of bucket {valid}"
            );
            self.head[valid as usize] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }
}

impl VictimPolicy for Greedy {
    const EMPTIEST_FIRST: bool = true;

    fn new(_keys: PolicyKeys, segments: u32, pages_per_segment: u32) -> Self {
        Self {
            head: vec![NONE; pages_per_segment as usize + 1],
            prev: vec![NONE; segments as usize],
            next: vec![NONE; segments as usize],
            min_hint: pages_per_segment as usize + 1,
        }
    }

    #[inline]
    fn insert(&mut self, s: u32, view: &impl SegmentView) {
        self.push(s, view.valid_pages(s));
    }

    fn remove(&mut self, s: u32, view: &impl SegmentView) {
        self.unlink(s, view.valid_pages(s));
    }

    #[inline]
    fn on_invalidate(&mut self, s: u32, valid_after: u32) {
        self.unlink(s, valid_after + 1);
        self.push(s, valid_after);
    }

    #[inline]
    fn on_revalidate(&mut self, s: u32, valid_after: u32) {
        self.unlink(s, valid_after - 1);
        self.push(s, valid_after);
    }

    /// The segment's own links: unlinking it starts there (its neighbours'
    /// come from them, too late to fetch ahead).
    #[inline(always)]
    fn prefetch(&self, s: u32) {
        crate::mem::prefetch(&self.prev, s as usize);
        crate::mem::prefetch(&self.next, s as usize);
    }

    fn choose(
        &mut self,
        _view: &impl SegmentView,
        _rng: &mut Xoshiro256PlusPlus,
        _now_pages: u64,
    ) -> Option<u32> {
        while self.min_hint < self.head.len() {
            let s = self.head[self.min_hint];
            if s != NONE {
                self.unlink(s, self.min_hint as u32);
                return Some(s);
            }
            self.min_hint += 1;
        }
        None
    }

    fn peek_min_valid(&mut self) -> Option<u32> {
        while self.min_hint < self.head.len() && self.head[self.min_hint] == NONE {
            self.min_hint += 1;
        }
        (self.min_hint < self.head.len()).then_some(self.min_hint as u32)
    }

    fn check_member(&self, s: u32, valid: u32) -> Result<(), String> {
        let mut cursor = self.head[valid as usize];
        let mut steps = 0u32;
        while cursor != NONE {
            if cursor == s {
                return Ok(());
            }
            cursor = self.next[cursor as usize];
            steps += 1;
            if steps > self.prev.len() as u32 {
                return Err(format!("bucket {valid} has a cycle"));
            }
        }
        Err(format!("full block {s} is missing from greedy bucket {valid}"))
    }
}
