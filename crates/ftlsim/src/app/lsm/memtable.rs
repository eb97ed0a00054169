//! The memtable: every version written since the last flush, in internal
//! key order, and the bytes it holds (which decide when it is flushed).

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::Bound;

use super::arena::ArenaModel;
use super::entry::{entry_bytes, Entry, Value};

/// Versions since the last flush. All versions are kept, as in LevelDB, so
/// that a flush writes what LevelDB's would.
#[derive(Debug, Default)]
pub struct Memtable {
    map: BTreeMap<(Vec<u8>, Reverse<u64>), Option<Value>>,
    size_bytes: u64,
    /// The memory LevelDB's memtable would say it holds.
    arena: ArenaModel,
}

impl Memtable {
    /// Adds one version (`None`: a tombstone).
    pub fn insert(&mut self, key: &[u8], seq: u64, value: Option<Value>) {
        self.size_bytes += entry_bytes(key.len(), value);
        let value_bytes = value.map_or(0, |v| u64::from(v.len_bytes));
        self.arena.add_entry(key.len() as u64, value_bytes);
        self.map.insert((key.to_vec(), Reverse(seq)), value);
    }

    /// The newest version of `key`: `Some(None)` when it is a tombstone,
    /// `None` when the memtable does not hold the key.
    pub fn get(&self, key: &[u8]) -> Option<Option<Value>> {
        let from = (key.to_vec(), Reverse(u64::MAX));
        let ((k, _), v) = self
            .map
            .range((Bound::Included(from), Bound::Unbounded))
            .next()?;
        (k.as_slice() == key).then_some(*v)
    }

    /// Versions from `start` on, in internal key order.
    pub fn range_from<'a>(
        &'a self,
        start: &[u8],
    ) -> impl Iterator<Item = (&'a [u8], u64, Option<Value>)> + 'a {
        let from = (start.to_vec(), Reverse(u64::MAX));
        self.map
            .range((Bound::Included(from), Bound::Unbounded))
            .map(|((k, Reverse(seq)), v)| (k.as_slice(), *seq, *v))
    }

    /// Bytes of every version held.
    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// The memory LevelDB's memtable would hold with these versions (its
    /// arena's blocks: [`ArenaModel`]), which is what decides a flush.
    pub fn memory_bytes(&self) -> u64 {
        self.arena.usage_bytes()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Empties the memtable, returning its versions in internal key order.
    pub fn take_entries(&mut self) -> Vec<Entry> {
        self.size_bytes = 0;
        self.arena = ArenaModel::default();
        std::mem::take(&mut self.map)
            .into_iter()
            .map(|((key, Reverse(seq)), value)| Entry { key, seq, value })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_version_wins_and_tombstones_show() {
        let mut m = Memtable::default();
        let v = |c| {
            Some(Value {
                len_bytes: 10,
                checksum: c,
            })
        };
        m.insert(b"b", 1, v(1));
        m.insert(b"b", 3, v(3));
        m.insert(b"c", 2, None);
        assert_eq!(m.get(b"b"), Some(v(3)));
        assert_eq!(m.get(b"c"), Some(None));
        assert_eq!(m.get(b"a"), None);
        assert_eq!(m.get(b"bb"), None);
        let from_b: Vec<u64> = m.range_from(b"b").map(|(_, s, _)| s).collect();
        assert_eq!(from_b, vec![3, 1, 2]);
        assert_eq!(m.size_bytes(), 3 * 11 + 3 + 20);
        let entries = m.take_entries();
        assert_eq!(entries.len(), 3);
        assert!(m.is_empty() && m.size_bytes() == 0);
        assert_eq!(m.memory_bytes(), ArenaModel::default().usage_bytes());
    }
}
