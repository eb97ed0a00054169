//! Victim selection: which full segment (an FTL block, a log layer's
//! segment) cleaning reclaims next.
//!
//! A policy keeps its own index of the full segments and returns a choice;
//! the log carries it out. Greedy keeps segments in buckets by valid count
//! (doubly linked lists), so both its per-invalidation update and its choice
//! are O(1) amortized; the others need no per-page work at all. The index
//! reads segment state through [`SegmentView`]; "block" below means a
//! segment of whichever log owns the index.

use std::collections::VecDeque;

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::policy::GcPolicy;
use super::view::SegmentView;

/// "No segment": an empty bucket, the end of a list, a segment not in the set.
const NONE: u32 = u32::MAX;

/// Full blocks bucketed by valid count, each bucket a doubly linked list.
#[derive(Debug, Clone)]
struct Buckets {
    head: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// No non-empty bucket lies below this valid count.
    min_hint: usize,
}

impl Buckets {
    fn new(blocks: u32, pages_per_block: u32) -> Self {
        Self {
            head: vec![NONE; pages_per_block as usize + 1],
            prev: vec![NONE; blocks as usize],
            next: vec![NONE; blocks as usize],
            min_hint: pages_per_block as usize + 1,
        }
    }

    #[inline]
    fn push(&mut self, block: u32, valid: u32) {
        let v = valid as usize;
        let old_head = self.head[v];
        self.prev[block as usize] = NONE;
        self.next[block as usize] = old_head;
        if old_head != NONE {
            self.prev[old_head as usize] = block;
        }
        self.head[v] = block;
        if v < self.min_hint {
            self.min_hint = v;
        }
    }

    #[inline]
    fn unlink(&mut self, block: u32, valid: u32) {
        let (p, n) = (self.prev[block as usize], self.next[block as usize]);
        if p == NONE {
            debug_assert_eq!(
                self.head[valid as usize], block,
                "block {block} not at the head of bucket {valid}"
            );
            self.head[valid as usize] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    fn pop_min(&mut self) -> Option<(u32, u32)> {
        while self.min_hint < self.head.len() {
            let block = self.head[self.min_hint];
            if block != NONE {
                let valid = self.min_hint as u32;
                self.unlink(block, valid);
                return Some((block, valid));
            }
            self.min_hint += 1;
        }
        None
    }
}

/// Random-access set of full blocks for random, d-choices and cost-benefit.
#[derive(Debug, Clone)]
struct IndexedSet {
    members: Vec<u32>,
    position: Vec<u32>,
}

impl IndexedSet {
    fn new(blocks: u32) -> Self {
        Self {
            members: Vec::with_capacity(blocks as usize),
            position: vec![NONE; blocks as usize],
        }
    }

    fn insert(&mut self, block: u32) {
        debug_assert_eq!(self.position[block as usize], NONE);
        self.position[block as usize] = self.members.len() as u32;
        self.members.push(block);
    }

    fn remove(&mut self, block: u32) {
        let pos = self.position[block as usize];
        debug_assert_ne!(pos, NONE, "block {block} is not in the set");
        let last = self
            .members
            .pop()
            .expect("set holds the block being removed");
        if last != block {
            self.members[pos as usize] = last;
            self.position[last as usize] = pos;
        }
        self.position[block as usize] = NONE;
    }
}

/// The index of full blocks that a victim policy chooses from.
#[derive(Debug, Clone)]
pub struct VictimIndex {
    policy: GcPolicy,
    pages_per_block: u32,
    buckets: Option<Buckets>,
    /// FIFO: (block, seq) in close order; entries whose seq no longer matches are stale.
    fifo: VecDeque<(u32, u64)>,
    set: Option<IndexedSet>,
    len: u32,
}

impl VictimIndex {
    pub fn new(policy: GcPolicy, blocks: u32, pages_per_block: u32) -> Self {
        let buckets = (policy == GcPolicy::Greedy).then(|| Buckets::new(blocks, pages_per_block));
        let needs_set = matches!(
            policy,
            GcPolicy::Random | GcPolicy::DChoices { .. } | GcPolicy::CostBenefit
        );
        Self {
            policy,
            pages_per_block,
            buckets,
            fifo: VecDeque::new(),
            set: needs_set.then(|| IndexedSet::new(blocks)),
            len: 0,
        }
    }

    pub fn policy(&self) -> GcPolicy {
        self.policy
    }

    /// Full blocks the index holds.
    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A block became full and may now be chosen.
    pub fn insert(&mut self, block: u32, blocks: &impl SegmentView) {
        self.len += 1;
        if let Some(b) = &mut self.buckets {
            b.push(block, blocks.valid_pages(block));
        }
        if let Some(s) = &mut self.set {
            s.insert(block);
        }
        if self.policy == GcPolicy::Fifo {
            self.fifo.push_back((block, blocks.seq(block)));
        }
    }

    /// Returns a block that `choose` just handed out and the engine did not
    /// take: it goes back where it was, so FIFO keeps its order.
    pub fn put_back(&mut self, block: u32, blocks: &impl SegmentView) {
        if self.policy == GcPolicy::Fifo {
            self.len += 1;
            self.fifo.push_front((block, blocks.seq(block)));
        } else {
            self.insert(block, blocks);
        }
    }

    /// A full block lost a valid page (`valid_after` = its new count).
    #[inline]
    pub fn on_invalidate(&mut self, block: u32, valid_after: u32) {
        if let Some(b) = &mut self.buckets {
            b.unlink(block, valid_after + 1);
            b.push(block, valid_after);
        }
    }

    /// A full block gained a valid page (dedup remaps can re-reference one).
    #[inline]
    pub fn on_revalidate(&mut self, block: u32, valid_after: u32) {
        if let Some(b) = &mut self.buckets {
            b.unlink(block, valid_after - 1);
            b.push(block, valid_after);
        }
    }

    /// Takes a specific full block out of the index (wear leveling picks its own victim).
    pub fn remove(&mut self, block: u32, blocks: &impl SegmentView) {
        self.len -= 1;
        if let Some(b) = &mut self.buckets {
            b.unlink(block, blocks.valid_pages(block));
        }
        if let Some(s) = &mut self.set {
            s.remove(block);
        }
        // FIFO entries go stale: the block's seq changes when it is reopened,
        // and a stale entry for a block that is not full is skipped.
    }

    /// Chooses a victim among the full blocks and removes it from the index.
    pub fn choose(
        &mut self,
        blocks: &impl SegmentView,
        rng: &mut Xoshiro256PlusPlus,
        now_pages: u64,
    ) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let victim = match self.policy {
            GcPolicy::Greedy => {
                let (block, _) = self
                    .buckets
                    .as_mut()
                    .expect("greedy keeps buckets")
                    .pop_min()?;
                self.len -= 1;
                return Some(block);
            }
            GcPolicy::Fifo => loop {
                let (block, seq) = self.fifo.pop_front()?;
                if blocks.is_full(block) && blocks.seq(block) == seq {
                    self.len -= 1;
                    return Some(block);
                }
            },
            GcPolicy::Random => {
                let set = self.set.as_ref().expect("random keeps a set");
                set.members[rng.random_range(0..set.members.len())]
            }
            GcPolicy::DChoices { choices: d } => {
                let set = self.set.as_ref().expect("d-choices keeps a set");
                let mut best = NONE;
                let mut best_valid = u32::MAX;
                for _ in 0..d {
                    let candidate = set.members[rng.random_range(0..set.members.len())];
                    let valid = blocks.valid_pages(candidate);
                    if valid < best_valid {
                        best = candidate;
                        best_valid = valid;
                    }
                }
                best
            }
            GcPolicy::CostBenefit => self.choose_cost_benefit(blocks, now_pages),
        };
        self.remove(victim, blocks);
        Some(victim)
    }

    /// Rosenblum and Ousterhout's cost-benefit: maximize age · (1 − u) / 2u,
    /// age in logical time since the block was last programmed. A scan of the
    /// full blocks: O(blocks) per victim, acceptable for a policy studied on
    /// small and medium devices.
    fn choose_cost_benefit(&self, blocks: &impl SegmentView, now_pages: u64) -> u32 {
        let set = self.set.as_ref().expect("cost-benefit keeps a set");
        let ppb = f64::from(self.pages_per_block);
        let mut best = NONE;
        let mut best_score = f64::NEG_INFINITY;
        for &block in &set.members {
            let valid = blocks.valid_pages(block);
            if valid == 0 {
                return block;
            }
            let u = f64::from(valid) / ppb;
            let age = (now_pages.saturating_sub(blocks.last_write_at(block)) + 1) as f64;
            let score = age * (1.0 - u) / (2.0 * u);
            if score > best_score || (score == best_score && block < best) {
                best = block;
                best_score = score;
            }
        }
        best
    }

    /// Greedy only: the valid count of the block `choose` would return next.
    pub fn peek_min_valid(&mut self) -> Option<u32> {
        let b = self.buckets.as_mut()?;
        while b.min_hint < b.head.len() && b.head[b.min_hint] == NONE {
            b.min_hint += 1;
        }
        (b.min_hint < b.head.len()).then_some(b.min_hint as u32)
    }

    /// For the invariant checker: is `block` indexed under `valid`?
    pub fn check_member(&self, block: u32, valid: u32) -> Result<(), String> {
        if let Some(b) = &self.buckets {
            let mut cursor = b.head[valid as usize];
            let mut steps = 0u32;
            while cursor != NONE {
                if cursor == block {
                    return Ok(());
                }
                cursor = b.next[cursor as usize];
                steps += 1;
                if steps > b.prev.len() as u32 {
                    return Err(format!("bucket {valid} has a cycle"));
                }
            }
            return Err(format!(
                "full block {block} is missing from greedy bucket {valid}"
            ));
        }
        if let Some(s) = &self.set {
            if s.position[block as usize] == NONE {
                return Err(format!("full block {block} is missing from the victim set"));
            }
        }
        Ok(())
    }
}
