//! The dedup index: content fingerprint → the live physical page holding it.
//!
//! An open-addressing table with linear probing and backward-shift deletion,
//! made for this one job: keys are already uniform hashes, values are PPNs,
//! and every host write probes it once or twice at a random place. A general
//! hash map gives no way to prefetch a probe; this table does
//! (`prefetch`), which lets the write lookahead hide the miss.

use crate::flash::Ppn;

#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
struct Slot {
    fingerprint: u64,
    /// `Ppn::NONE` marks an empty slot.
    ppn: Ppn,
}

const EMPTY: Slot = Slot {
    fingerprint: 0,
    ppn: Ppn::NONE,
};

#[derive(Debug, Clone)]
pub struct FingerprintIndex {
    slots: Vec<Slot>,
    /// log2 of the slot count.
    bits: u32,
    /// `64 - bits` and `slots - 1`, kept beside `bits` because every probe
    /// needs them (derived per probe they cost 4 instructions, several
    /// probes per dedup write).
    shift: u32,
    mask: usize,
    len: usize,
}

impl FingerprintIndex {
    /// A table that holds `expected` entries at a load factor of at most 1/2.
    pub fn with_capacity(expected: usize) -> Self {
        let bits = (expected.max(8) * 2).next_power_of_two().trailing_zeros();
        Self {
            slots: crate::mem::filled_vec(1 << bits, EMPTY),
            bits,
            shift: 64 - bits,
            mask: (1 << bits) - 1,
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of the table.
    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
    }

    #[inline]
    fn mask(&self) -> usize {
        self.mask
    }

    /// Home slot: the top bits of a multiplicative mix, so even sequential
    /// fingerprints spread out.
    #[inline]
    fn home(&self, fingerprint: u64) -> usize {
        (fingerprint.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    #[inline]
    pub fn prefetch(&self, fingerprint: u64) {
        crate::mem::prefetch(&self.slots, self.home(fingerprint));
    }

    /// Slot holding `fingerprint`, or the empty slot ending its probe run.
    #[inline]
    fn find(&self, fingerprint: u64) -> (usize, bool) {
        let mask = self.mask();
        let mut i = self.home(fingerprint);
        loop {
            let s = self.slots[i];
            if s.ppn.is_none() {
                return (i, false);
            }
            if s.fingerprint == fingerprint {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    pub fn get(&self, fingerprint: u64) -> Option<Ppn> {
        match self.find(fingerprint) {
            (i, true) => Some(self.slots[i].ppn),
            _ => None,
        }
    }

    /// Maps `fingerprint` to `ppn`, replacing any previous page.
    pub fn insert(&mut self, fingerprint: u64, ppn: Ppn) {
        debug_assert!(!ppn.is_none());
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let (i, found) = self.find(fingerprint);
        if !found {
            self.len += 1;
        }
        self.slots[i] = Slot { fingerprint, ppn };
    }

    /// Maps `fingerprint` to `to` if it maps to `from` (GC moved the page
    /// the index names); one probe where a lookup and an insert took two.
    #[inline]
    pub fn repoint(&mut self, fingerprint: u64, from: Ppn, to: Ppn) -> bool {
        debug_assert!(!to.is_none());
        match self.find(fingerprint) {
            (i, true) if self.slots[i].ppn == from => {
                self.slots[i].ppn = to;
                true
            }
            _ => false,
        }
    }

    /// Removes `fingerprint` if it maps to `ppn` (a page dying with content
    /// that another live page may hold is not in the index).
    pub fn remove_if(&mut self, fingerprint: u64, ppn: Ppn) -> bool {
        let (mut hole, found) = self.find(fingerprint);
        if !found || self.slots[hole].ppn != ppn {
            return false;
        }
        // Backward-shift deletion: pull later entries of the run into the
        // hole unless their home lies cyclically after the hole.
        let mask = self.mask();
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let s = self.slots[j];
            if s.ppn.is_none() {
                break;
            }
            let home = self.home(s.fingerprint);
            let stays = if hole <= j {
                hole < home && home <= j
            } else {
                hole < home || home <= j
            };
            if !stays {
                self.slots[hole] = s;
                hole = j;
            }
        }
        self.slots[hole] = EMPTY;
        self.len -= 1;
        true
    }

    fn grow(&mut self) {
        let old = std::mem::replace(
            &mut self.slots,
            crate::mem::filled_vec(1 << (self.bits + 1), EMPTY),
        );
        self.bits += 1;
        self.shift = 64 - self.bits;
        self.mask = (1 << self.bits) - 1;
        self.len = 0;
        for s in old.into_iter().filter(|s| !s.ppn.is_none()) {
            let (i, _) = self.find(s.fingerprint);
            self.slots[i] = s;
            self.len += 1;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (u64, Ppn)> + '_ {
        self.slots
            .iter()
            .filter(|s| !s.ppn.is_none())
            .map(|s| (s.fingerprint, s.ppn))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn matches_a_hash_map_under_churn() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let mut index = FingerprintIndex::with_capacity(4);
        let mut model: HashMap<u64, Ppn> = HashMap::new();
        for step in 0..200_000u32 {
            // A small key space makes long probe runs, wrap-around and collisions common.
            let fp = rng.random_range(0..3000u64) * 0x1_0000_0001;
            match rng.random_range(0..3) {
                0 | 1 => {
                    index.insert(fp, Ppn::new(step));
                    model.insert(fp, Ppn::new(step));
                }
                _ => {
                    let target = model.get(&fp).copied().unwrap_or(Ppn::new(7));
                    let want = model.get(&fp) == Some(&target);
                    assert_eq!(index.remove_if(fp, target), want);
                    if want {
                        model.remove(&fp);
                    }
                }
            }
            if step % 997 == 0 {
                assert_eq!(index.len(), model.len());
                for (&k, &v) in &model {
                    assert_eq!(index.get(k), Some(v), "step {step}");
                }
            }
        }
        assert!(index.bytes() >= index.len() * 16);
        assert_eq!(index.iter().count(), model.len());
    }

    #[test]
    fn remove_only_when_the_page_matches() {
        let mut index = FingerprintIndex::with_capacity(16);
        index.insert(42, Ppn::new(7));
        assert!(!index.remove_if(42, Ppn::new(8)));
        assert_eq!(index.get(42), Some(Ppn::new(7)));
        assert!(index.remove_if(42, Ppn::new(7)));
        assert_eq!(index.get(42), None);
        assert!(index.is_empty());
    }

    #[test]
    fn repoint_only_from_the_named_page() {
        let mut index = FingerprintIndex::with_capacity(16);
        index.insert(42, Ppn::new(7));
        assert!(!index.repoint(42, Ppn::new(8), Ppn::new(9)));
        assert_eq!(index.get(42), Some(Ppn::new(7)));
        assert!(index.repoint(42, Ppn::new(7), Ppn::new(9)));
        assert_eq!(index.get(42), Some(Ppn::new(9)));
        assert!(!index.repoint(43, Ppn::new(9), Ppn::new(10)));
        assert_eq!(index.get(43), None);
        assert_eq!(index.len(), 1);
    }
}
