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
    /// Each segment's neighbours in its bucket: both in one entry, so an
    /// update finds them with one bounds check and one cache line.
    links: Vec<Links>,
    /// No non-empty bucket lies below this valid count.
    min_hint: usize,
}

#[derive(Debug, Clone, Copy)]
struct Links {
    prev: u32,
    next: u32,
}

const UNLINKED: Links = Links {
    prev: NONE,
    next: NONE,
};

/// The lists as slices, for one update: their pointers and lengths stay
/// in registers, where the vectors' were loaded again after every store.
struct Lists<'a> {
    head: &'a mut [u32],
    links: &'a mut [Links],
}

impl Lists<'_> {
    #[inline(always)]
    fn push(&mut self, s: u32, valid: u32) {
        let old_head = self.head[valid as usize];
        self.links[s as usize] = Links {
            prev: NONE,
            next: old_head,
        };
        if old_head != NONE {
            self.links[old_head as usize].prev = s;
        }
        self.head[valid as usize] = s;
    }

    #[inline(always)]
    fn unlink(&mut self, s: u32, valid: u32) {
        let Links { prev: p, next: n } = self.links[s as usize];
        if p == NONE {
            debug_assert_eq!(
                self.head[valid as usize], s,
                "block {s} not at the head of bucket {valid}"
            );
            self.head[valid as usize] = n;
        } else {
            self.links[p as usize].next = n;
        }
        if n != NONE {
            self.links[n as usize].prev = p;
        }
    }
}

impl Greedy {
    #[inline(always)]
    fn lists(&mut self) -> Lists<'_> {
        Lists {
            head: &mut self.head,
            links: &mut self.links,
        }
    }

    #[inline]
    fn push(&mut self, s: u32, valid: u32) {
        self.lists().push(s, valid);
        self.lower_hint(valid);
    }

    #[inline(always)]
    fn lower_hint(&mut self, valid: u32) {
        if (valid as usize) < self.min_hint {
            self.min_hint = valid as usize;
        }
    }

    #[inline]
    fn unlink(&mut self, s: u32, valid: u32) {
        self.lists().unlink(s, valid);
    }
}

impl VictimPolicy for Greedy {
    const EMPTIEST_FIRST: bool = true;

    fn new(_keys: PolicyKeys, segments: u32, pages_per_segment: u32) -> Self {
        Self {
            head: vec![NONE; pages_per_segment as usize + 1],
            links: vec![UNLINKED; segments as usize],
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

    #[inline(always)]
    fn on_invalidate(&mut self, s: u32, valid_after: u32) {
        let mut lists = self.lists();
        lists.unlink(s, valid_after + 1);
        lists.push(s, valid_after);
        self.lower_hint(valid_after);
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
        crate::mem::prefetch(&self.links, s as usize);
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
            cursor = self.links[cursor as usize].next;
            steps += 1;
            if steps > self.links.len() as u32 {
                return Err(format!("bucket {valid} has a cycle"));
            }
        }
        Err(format!("full block {s} is missing from greedy bucket {valid}"))
    }
}
