//! A table's bloom filter over its keys (LevelDB's filter policy with 10
//! bits per key), so a get skips the data block read of a table that does
//! not hold the key.

use crate::hash::{fnv1a64, splitmix64};

/// Bits per key, as LevelDB's `NewBloomFilterPolicy(10)`.
pub const BITS_PER_KEY: u64 = 10;
/// Probes per key: `bits_per_key × ln 2`, rounded down (LevelDB).
const PROBES: u32 = 6;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bloom {
    bits: Vec<u64>,
    nbits: u64,
}

impl Bloom {
    /// A filter over `keys` (duplicates allowed).
    pub fn build<'a>(keys: impl Iterator<Item = &'a [u8]>, key_count: usize) -> Self {
        // At least 64 bits so a small table does not see a high false-positive rate.
        let nbits = (key_count as u64 * BITS_PER_KEY).max(64);
        let mut bloom = Self {
            bits: vec![0; nbits.div_ceil(64) as usize],
            nbits,
        };
        for key in keys {
            let (mut h, delta) = probes(key);
            for _ in 0..PROBES {
                let bit = h % nbits;
                bloom.bits[(bit / 64) as usize] |= 1 << (bit % 64);
                h = h.wrapping_add(delta);
            }
        }
        bloom
    }

    /// False means the key is surely absent.
    pub fn may_contain(&self, key: &[u8]) -> bool {
        if self.nbits == 0 {
            return true;
        }
        let (mut h, delta) = probes(key);
        (0..PROBES).all(|_| {
            let bit = h % self.nbits;
            h = h.wrapping_add(delta);
            self.bits[(bit / 64) as usize] & (1 << (bit % 64)) != 0
        })
    }

    /// Bytes the filter block takes on disk.
    pub fn size_bytes(&self) -> u64 {
        self.nbits.div_ceil(8)
    }

    /// A hash of the filter's bits (its pages' content).
    pub fn content_hash(&self) -> u64 {
        self.bits.iter().fold(self.nbits, |h, &w| splitmix64(h ^ w))
    }
}

/// Double hashing (Kirsch–Mitzenmacher), as LevelDB does.
fn probes(key: &[u8]) -> (u64, u64) {
    let h = fnv1a64(key);
    (h, splitmix64(h) | 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_false_negatives_and_few_false_positives() {
        let keys: Vec<Vec<u8>> = (0..2000u32)
            .map(|i| format!("key{i}").into_bytes())
            .collect();
        let bloom = Bloom::build(keys.iter().map(|k| k.as_slice()), keys.len());
        assert!(keys.iter().all(|k| bloom.may_contain(k)));
        let false_positives = (0..10_000u32)
            .filter(|i| bloom.may_contain(format!("other{i}").as_bytes()))
            .count();
        // About 1 % expected with 10 bits per key.
        assert!(false_positives < 300, "{false_positives} false positives");
        assert_eq!(bloom.size_bytes(), 2500);
    }
}
