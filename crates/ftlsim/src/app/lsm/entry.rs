//! What the engine stores: an [`Entry`] is a key, its sequence number and
//! either a [`Value`] or a tombstone. Entries sort by key ascending, then
//! sequence number descending, so the newest version of a key comes first
//! (LevelDB's internal key order).

use std::cmp::Ordering;

pub use crate::config::lsm::ENTRY_OVERHEAD_BYTES;
use crate::hash::{fnv1a64, splitmix64};

/// A value, represented by its length and a checksum of its bytes: the
/// length drives every size in the engine, the checksum lets a test tell
/// one value from another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Value {
    pub len_bytes: u32,
    pub checksum: u64,
}

/// One version of one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: Vec<u8>,
    /// Sequence number: larger is newer.
    pub seq: u64,
    /// `None` is a tombstone (a delete).
    pub value: Option<Value>,
}

impl Entry {
    /// Bytes the entry takes in a data block (and in the memtable and WAL).
    pub fn size_bytes(&self) -> u64 {
        entry_bytes(self.key.len(), self.value)
    }

    /// A hash of everything the entry's on-disk bytes hold, so that two
    /// blocks of equal entries have equal content fingerprints.
    pub fn content_hash(&self) -> u64 {
        content_hash(&self.key, self.seq, self.value)
    }
}

/// [`Entry::content_hash`] from the parts of an entry.
pub fn content_hash(key: &[u8], seq: u64, value: Option<Value>) -> u64 {
    let value = value.map_or(u64::MAX, |v| {
        u64::from(v.len_bytes) ^ v.checksum.rotate_left(32)
    });
    splitmix64(fnv1a64(key) ^ splitmix64(seq ^ splitmix64(value)))
}

/// Bytes an entry with a key of `key_len` bytes and `value` takes.
pub fn entry_bytes(key_len: usize, value: Option<Value>) -> u64 {
    key_len as u64 + value.map_or(0, |v| u64::from(v.len_bytes)) + ENTRY_OVERHEAD_BYTES
}

/// Internal key order: key ascending, then sequence number descending.
pub fn internal_cmp(a_key: &[u8], a_seq: u64, b_key: &[u8], b_seq: u64) -> Ordering {
    a_key.cmp(b_key).then(b_seq.cmp(&a_seq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_version_sorts_first() {
        assert_eq!(internal_cmp(b"a", 5, b"a", 3), Ordering::Less);
        assert_eq!(internal_cmp(b"a", 1, b"b", 9), Ordering::Less);
        let v = Some(Value {
            len_bytes: 100,
            checksum: 7,
        });
        let e = Entry {
            key: b"abc".to_vec(),
            seq: 1,
            value: v,
        };
        assert_eq!(e.size_bytes(), 3 + 100 + ENTRY_OVERHEAD_BYTES);
        let other = Entry {
            seq: 2,
            ..e.clone()
        };
        assert_ne!(e.content_hash(), other.content_hash());
    }
}
