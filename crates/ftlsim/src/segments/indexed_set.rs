//! The random-access set of full segments that random, d-choices and
//! cost-benefit choose from: O(1) insert, remove and uniform draw.

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::NONE;

#[derive(Debug, Clone)]
pub(super) struct IndexedSet {
    /// The segments, in no order a choice may rely on but a deterministic one.
    pub(super) members: Vec<u32>,
    /// Where each segment sits in `members`, `NONE` when absent.
    position: Vec<u32>,
}

impl IndexedSet {
    pub(super) fn new(segments: u32) -> Self {
        Self {
            members: Vec::with_capacity(segments as usize),
            position: vec![NONE; segments as usize],
        }
    }

    pub(super) fn insert(&mut self, s: u32) {
        debug_assert_eq!(self.position[s as usize], NONE);
        self.position[s as usize] = self.members.len() as u32;
        self.members.push(s);
    }

    /// Moves the last member into `s`'s place, so removal is O(1).
    pub(super) fn remove(&mut self, s: u32) {
        let pos = self.position[s as usize];
        debug_assert_ne!(pos, NONE, "segment {s} is not in the set");
        let last = self
            .members
            .pop()
            .expect("set holds the segment being removed");
        if last != s {
            self.members[pos as usize] = last;
            self.position[last as usize] = pos;
        }
        self.position[s as usize] = NONE;
    }

    /// A member drawn uniformly; the set is not empty.
    #[inline]
    pub(super) fn draw(&self, rng: &mut Xoshiro256PlusPlus) -> u32 {
        self.members[rng.random_range(0..self.members.len())]
    }

    pub(super) fn check_member(&self, s: u32) -> Result<(), String> {
        if self.position[s as usize] == NONE {
            return Err(format!("full block {s} is missing from the victim set"));
        }
        Ok(())
    }
}
