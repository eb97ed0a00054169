//! A bounded table keyed by program context with least-recently-used
//! eviction: PCStream's attribute table. Every write looks its PC up and
//! every death updates one, so both must be O(1): a hash index (with a
//! cheap multiplicative hasher; PCs are not attacker-controlled) over a
//! slab of entries threaded on an intrusive doubly linked list in use order.
//! Iteration order is the slab's, which depends only on the sequence of
//! operations, so runs stay deterministic.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash-style hasher for 64-bit keys: one multiply per key.
#[derive(Default, Clone, Copy)]
pub struct PcHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for PcHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(SEED);
    }

    fn finish(&self) -> u64 {
        // The multiply leaves its entropy in the high bits; the table's
        // bucket index takes the low ones.
        self.0.rotate_left(26)
    }
}

pub type PcHash = BuildHasherDefault<PcHasher>;

const NIL: u32 = u32::MAX;

struct Slot<V> {
    key: u64,
    value: V,
    /// Neighbours in use order (`prev` toward the most recent).
    prev: u32,
    next: u32,
    live: bool,
}

pub struct PcTable<V> {
    capacity: usize,
    index: HashMap<u64, u32, PcHash>,
    slots: Vec<Slot<V>>,
    free: Vec<u32>,
    /// Most and least recently used slots.
    head: u32,
    tail: u32,
}

impl<V> PcTable<V> {
    /// A table that holds at most `capacity` entries (0: holds none).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            index: HashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    fn unlink(&mut self, i: u32) {
        let (prev, next) = (self.slots[i as usize].prev, self.slots[i as usize].next);
        if prev == NIL {
            self.head = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.slots[next as usize].prev = prev;
        }
    }

    fn push_front(&mut self, i: u32) {
        let old = self.head;
        let s = &mut self.slots[i as usize];
        s.prev = NIL;
        s.next = old;
        if old == NIL {
            self.tail = i;
        } else {
            self.slots[old as usize].prev = i;
        }
        self.head = i;
    }

    fn touch(&mut self, i: u32) {
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
    }

    /// The entry of `key`, without counting it as a use.
    pub fn get(&self, key: u64) -> Option<&V> {
        self.index.get(&key).map(|&i| &self.slots[i as usize].value)
    }

    /// The entry of `key`, now the most recently used.
    pub fn get_touch(&mut self, key: u64) -> Option<&V> {
        let i = *self.index.get(&key)?;
        self.touch(i);
        Some(&self.slots[i as usize].value)
    }

    /// The entry of `key` (inserted as `fresh` if absent, evicting the least
    /// recently used entry when full), now the most recently used; and the
    /// evicted entry. Needs a capacity above 0.
    pub fn get_or_insert(&mut self, key: u64, fresh: V) -> (&mut V, Option<V>) {
        debug_assert!(self.capacity > 0, "a table of capacity 0 holds nothing");
        if let Some(&i) = self.index.get(&key) {
            self.touch(i);
            return (&mut self.slots[i as usize].value, None);
        }
        let mut evicted = None;
        let i = if self.index.len() >= self.capacity {
            // Reuse the least recently used slot.
            let i = self.tail;
            self.unlink(i);
            let s = &mut self.slots[i as usize];
            self.index.remove(&s.key);
            s.key = key;
            evicted = Some(std::mem::replace(&mut s.value, fresh));
            i
        } else if let Some(i) = self.free.pop() {
            let s = &mut self.slots[i as usize];
            s.key = key;
            s.value = fresh;
            s.live = true;
            i
        } else {
            self.slots.push(Slot {
                key,
                value: fresh,
                prev: NIL,
                next: NIL,
                live: true,
            });
            (self.slots.len() - 1) as u32
        };
        self.index.insert(key, i);
        self.push_front(i);
        (&mut self.slots[i as usize].value, evicted)
    }

    /// Removes every entry whose key `gone` selects; returns what it removed.
    pub fn remove_where(&mut self, gone: impl Fn(u64) -> bool) -> Vec<V>
    where
        V: Copy,
    {
        let mut removed = Vec::new();
        for i in 0..self.slots.len() as u32 {
            let s = &self.slots[i as usize];
            if s.live && gone(s.key) {
                removed.push(s.value);
                let key = s.key;
                self.unlink(i);
                self.index.remove(&key);
                self.slots[i as usize].live = false;
                self.free.push(i);
            }
        }
        removed
    }

    /// The entries, in slab order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.slots.iter().filter(|s| s.live).map(|s| &s.value)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.slots
            .iter_mut()
            .filter(|s| s.live)
            .map(|s| &mut s.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used() {
        let mut t = PcTable::new(2);
        t.get_or_insert(1, 'a');
        t.get_or_insert(2, 'b');
        assert_eq!(t.get_touch(1), Some(&'a'));
        // 2 is now the least recently used.
        let (_, evicted) = t.get_or_insert(3, 'c');
        assert_eq!(evicted, Some('b'));
        assert_eq!(t.get(2), None);
        assert_eq!(t.len(), 2);
        let (_, evicted) = t.get_or_insert(4, 'd');
        assert_eq!(evicted, Some('a'));
        let mut v: Vec<char> = t.values().copied().collect();
        v.sort_unstable();
        assert_eq!(v, ['c', 'd']);
    }

    #[test]
    fn removal_frees_slots_and_keeps_the_order() {
        let mut t = PcTable::new(3);
        for k in 1..=3 {
            t.get_or_insert(k, k * 10);
        }
        assert_eq!(t.remove_where(|k| k == 2), [20]);
        assert_eq!(t.len(), 2);
        t.get_or_insert(5, 50); // reuses the freed slot, no eviction
        assert_eq!(t.len(), 3);
        // Least recently used: 1, then 3.
        assert_eq!(t.get_or_insert(6, 60).1, Some(10));
        assert_eq!(t.get_or_insert(7, 70).1, Some(30));
        assert_eq!(t.get(5), Some(&50));
    }
}
