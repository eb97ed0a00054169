//! How much memory LevelDB's memtable says it holds, which is what its
//! `write_buffer_size` is compared with: not the bytes of its entries but
//! the blocks its arena took (`Arena::MemoryUsage`), entries and skip-list
//! nodes together. Modelled here, allocation by allocation, so that a
//! memtable is flushed after as many entries as LevelDB's would be: with
//! 16-byte keys and 1000-byte values LevelDB's memtable takes about
//! 1,054 bytes an entry where the entry itself is 1,027, so it is flushed
//! about 2.5 % sooner than counting entries would say.
//!
//! LevelDB 1.23's rules (`util/arena.cc`, `db/skiplist.h`): blocks of 4 KiB;
//! an allocation larger than a quarter block gets a block of its own and
//! leaves the current one as it is; one that does not fit the rest of the
//! current block opens a new one, wasting the rest; each block costs its
//! size plus a pointer. Each entry is one allocation of its encoded bytes
//! (varint key length, key, 8-byte tag, varint value length, value), then
//! one 8-byte-aligned skip-list node of 16 bytes plus 8 per level above the
//! first; a node's height is drawn from the skip list's own generator
//! (Park–Miller, seeded 0xdeadbeef in every memtable), so it is the same
//! sequence LevelDB draws. A new memtable's head node has the full 12 levels.

/// LevelDB's arena block.
const BLOCK_BYTES: u64 = 4096;
/// A pointer, the cost of each block beyond its bytes.
const POINTER_BYTES: u64 = 8;
/// The skip list's tallest node and its branching factor.
const MAX_HEIGHT: u64 = 12;
const BRANCHING: u32 = 4;
/// The skip list's generator seed.
const SKIPLIST_SEED: u32 = 0xdead_beef;

/// One memtable's arena, by the numbers.
#[derive(Debug, Clone)]
pub struct ArenaModel {
    usage_bytes: u64,
    /// Bytes left in the current block, and where in it the next
    /// allocation starts (blocks are aligned, so this decides alignment).
    left_bytes: u64,
    offset_bytes: u64,
    rng: u32,
}

impl Default for ArenaModel {
    fn default() -> Self {
        let mut a = Self {
            usage_bytes: 0,
            left_bytes: 0,
            offset_bytes: 0,
            rng: SKIPLIST_SEED & 0x7fff_ffff,
        };
        a.allocate_aligned(node_bytes(MAX_HEIGHT));
        a
    }
}

/// Bytes of a skip-list node of `height` levels.
fn node_bytes(height: u64) -> u64 {
    16 + 8 * (height - 1)
}

/// Bytes of LevelDB's varint encoding of `v`.
fn varint_bytes(mut v: u64) -> u64 {
    let mut n = 1;
    while v >= 128 {
        v >>= 7;
        n += 1;
    }
    n
}

impl ArenaModel {
    /// The arena's memory, as LevelDB reports it.
    pub fn usage_bytes(&self) -> u64 {
        self.usage_bytes
    }

    /// Adds one entry of a `key_bytes` key and a `value_bytes` value (0 for
    /// a tombstone).
    pub fn add_entry(&mut self, key_bytes: u64, value_bytes: u64) {
        let internal_key = key_bytes + 8;
        let encoded =
            varint_bytes(internal_key) + internal_key + varint_bytes(value_bytes) + value_bytes;
        self.allocate(encoded, 0);
        let height = self.random_height();
        self.allocate_aligned(node_bytes(height));
    }

    fn allocate_aligned(&mut self, bytes: u64) {
        let slop = (8 - self.offset_bytes % 8) % 8;
        self.allocate(bytes, slop);
    }

    /// An allocation of `bytes` after `slop` bytes of alignment.
    fn allocate(&mut self, bytes: u64, slop: u64) {
        if bytes + slop <= self.left_bytes {
            self.left_bytes -= bytes + slop;
            self.offset_bytes += bytes + slop;
        } else if bytes > BLOCK_BYTES / 4 {
            self.usage_bytes += bytes + POINTER_BYTES;
        } else {
            self.usage_bytes += BLOCK_BYTES + POINTER_BYTES;
            self.left_bytes = BLOCK_BYTES - bytes;
            self.offset_bytes = bytes;
        }
    }

    /// The Park–Miller step of LevelDB's `Random::Next`.
    fn next(&mut self) -> u32 {
        const M: u64 = 2_147_483_647;
        let product = u64::from(self.rng) * 16_807;
        let mut seed = (product >> 31) + (product & M);
        if seed > M {
            seed -= M;
        }
        self.rng = seed as u32;
        self.rng
    }

    fn random_height(&mut self) -> u64 {
        let mut height = 1;
        while height < MAX_HEIGHT && self.next().is_multiple_of(BRANCHING) {
            height += 1;
        }
        height
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_memtable_holds_its_head_node_in_one_block() {
        assert_eq!(ArenaModel::default().usage_bytes(), 4096 + 8);
    }

    #[test]
    fn large_entries_fill_the_block_then_get_blocks_of_their_own() {
        let mut a = ArenaModel::default();
        // 16-byte key, 1000-byte value: 1 + 24 + 2 + 1000 = 1027 bytes. Three
        // fit the 3,992 bytes the head node left, with their nodes.
        for _ in 0..3 {
            a.add_entry(16, 1000);
        }
        assert_eq!(a.usage_bytes(), 4104);
        // The fourth does not and is over a quarter block: a block of its
        // own (1027 + 8), the current block kept for the nodes.
        a.add_entry(16, 1000);
        assert_eq!(a.usage_bytes(), 4104 + 1035);
        let mut n = 4;
        while n < 2000 {
            a.add_entry(16, 1000);
            n += 1;
        }
        // About 1,055 bytes an entry: 1,035, a node of 18.7 on average and
        // the 4 KiB blocks that fill with nodes (and a few entries).
        let per_entry = a.usage_bytes() as f64 / f64::from(n);
        assert!((1045.0..1065.0).contains(&per_entry), "{per_entry}");
    }

    #[test]
    fn small_entries_pack_into_blocks() {
        let mut a = ArenaModel::default();
        for _ in 0..1000 {
            a.add_entry(16, 100);
        }
        // 127 bytes an entry and a node: about 37,000 bytes in 4 KiB blocks.
        let blocks = (a.usage_bytes() / 4104) as f64;
        assert!((34.0..40.0).contains(&blocks), "{}", a.usage_bytes());
        assert_eq!(a.usage_bytes() % 4104, 0, "only whole blocks");
    }

    #[test]
    fn heights_follow_leveldbs_generator() {
        let mut a = ArenaModel::default();
        let heights: Vec<u64> = (0..100_000).map(|_| a.random_height()).collect();
        let tall = heights.iter().filter(|&&h| h >= 2).count();
        // One in four nodes is at least two levels tall.
        assert!((24_000..26_000).contains(&tall), "{tall}");
        // The first draw of Random(0xdeadbeef): 0x5eadbeef × 16807 mod
        // (2^31 − 1), worked out by hand.
        assert_eq!(ArenaModel::default().next(), 1_624_403_320);
    }
}
