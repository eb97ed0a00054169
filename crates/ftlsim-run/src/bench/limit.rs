//! The memory limit of a bench case (issue 30): how fast this machine, in
//! this process and run, updates random entries of a table the size of the
//! case's L2P, with the best a plain loop can do about memory latency
//! (software prefetch a fixed distance ahead).
//!
//! A page-mapped FTL's host write is, at bottom, random read-modify-writes
//! of large arrays: the L2P entry of its LPN, and the state of the block
//! holding the page it replaces. A loop that does nothing else bounds what
//! any simulator of the same tables can reach on the same machine, so a
//! case's rate over that bound says how much of the simulator's time is
//! anything but waiting for memory.
//!
//! The formula, also in the bench's JSON and output and the README:
//! `memory_limit_host_writes_per_sec = memory_limit_updates_per_sec /
//! UPDATES_PER_HOST_WRITE` (2: the count at WAF ≈ 2) and
//! `fraction_of_limit = host writes (or timed requests) per second /
//! memory_limit_host_writes_per_sec`.

use std::time::Instant;

use ftlsim::flash::Ppn;
use ftlsim::ftl::MapEntry;
use serde::Serialize;

/// Random read-modify-writes of DRAM-sized arrays per host write at WAF ≈ 2
/// (issue 30): the L2P entry of the LPN, and the valid count and bit of
/// the old page's block. The same divisor for every case, whatever its WAF
/// or features, so that their fractions compare. It leaves out GC's own
/// remapping (each copy updates the L2P entry of a page at random too):
/// counting it would lower the limit and raise every fraction, so the
/// fraction errs low.
pub const UPDATES_PER_HOST_WRITE: f64 = 2.0;

/// How many updates ahead of the current one the loop prefetches. The
/// prefetches in flight are what hides the latency: a core keeps 10 to 16
/// misses to memory outstanding, and with a page walk (TLB miss) before
/// many of them, a distance of a few times that keeps them all busy; past
/// that a longer one buys nothing. Measured on this project's 2-core
/// machine (2026-11-27, a 96 MiB table: the 64 GiB Sf 0.28 case's L2P;
/// three rounds at load 5-7), M updates/s: no prefetch 52-54 (out-of-order
/// execution overlaps a few misses by itself), distance 4: 45-55, 8:
/// 54-64, 16: 58-72, 32: 58-67, 64: 58-72.
const PREFETCH_DISTANCE: usize = 32;

/// Updates per timed segment at least: long enough (tens of ms even for a
/// table that fits in cache) that the clock's resolution does not matter.
const MIN_UPDATES_PER_SEGMENT: usize = 1 << 22;

/// A case's memory limit: the table it was measured over and the rates.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryLimit {
    /// The case's L2P: entries × bytes per entry of the simulator's own
    /// entry type (`ftlsim::ftl::MapEntry`), allocated as the simulator
    /// allocates it (huge pages where the OS allows), so that the loop
    /// meets the same TLB and cache behaviour.
    pub memory_limit_table_bytes: u64,
    /// Random read-modify-writes per second: the median of the timed
    /// segments (the case's own rate is a median of its segments too, so
    /// both sides of the fraction are the same statistic over segments
    /// timed back to back; the best segment would pair an undisturbed
    /// limit with a typically disturbed case on a shared machine and
    /// understate the fraction).
    pub memory_limit_updates_per_sec: f64,
    pub memory_limit_segments_updates_per_sec: Vec<f64>,
    /// `memory_limit_updates_per_sec / UPDATES_PER_HOST_WRITE`.
    pub memory_limit_host_writes_per_sec: f64,
    /// The case's rate over `memory_limit_host_writes_per_sec`.
    pub fraction_of_limit: f64,
}

impl MemoryLimit {
    /// Measures `segments` segments over a table of `l2p_entries` entries
    /// and relates `rate_per_sec` (the case's host writes or requests per
    /// second) to the result.
    pub fn measure(l2p_entries: usize, segments: usize, rate_per_sec: f64) -> Self {
        let rates = update_rates(l2p_entries, segments);
        let updates_per_sec = super::median(&rates);
        let host_writes_per_sec = updates_per_sec / UPDATES_PER_HOST_WRITE;
        Self {
            memory_limit_table_bytes: (l2p_entries * std::mem::size_of::<MapEntry>()) as u64,
            memory_limit_updates_per_sec: updates_per_sec,
            memory_limit_segments_updates_per_sec: rates,
            memory_limit_host_writes_per_sec: host_writes_per_sec,
            fraction_of_limit: rate_per_sec / host_writes_per_sec,
        }
    }
}

/// The limit and its formula in words, for the bench's output.
pub fn formula() -> String {
    format!(
        "memory limit: random read-modify-writes per second over a table the size of the case's \
         L2P (software prefetch {PREFETCH_DISTANCE} ahead; median of the segments), measured right \
         after the case; in host writes/s = updates/s / {UPDATES_PER_HOST_WRITE} (two random \
         updates per host write at WAF ~ 2); fraction = the case's rate / that\n"
    )
}

/// The update rate of each of `segments` segments over a fresh table of
/// `entries` L2P entries. The table is built (and so first touched) before
/// the first segment: page faults are not timed.
fn update_rates(entries: usize, segments: usize) -> Vec<f64> {
    let entries = entries.max(1);
    let mut table = ftlsim::mem::filled_vec(
        entries,
        MapEntry {
            ppn: Ppn::NONE,
            written_at: 0,
        },
    );
    let updates = entries.max(MIN_UPDATES_PER_SEGMENT);
    let mut rng = Wyrand(0x005E_ED0F_11A1);
    (0..segments)
        .map(|_| {
            let start = Instant::now();
            random_updates(&mut table, updates, &mut rng);
            updates as f64 / start.elapsed().as_secs_f64()
        })
        .collect()
}

/// `updates` read-modify-writes of random entries of `table` (one more
/// write to each: what a host write does to its L2P entry's time stamp),
/// each prefetched `PREFETCH_DISTANCE` updates ahead. The indices wait in a
/// ring between their prefetch and their update, so the distance holds
/// across the whole run, not just within batches.
#[inline(never)]
fn random_updates(table: &mut [MapEntry], updates: usize, rng: &mut Wyrand) {
    let len = table.len() as u64;
    let mut ring = [0usize; PREFETCH_DISTANCE];
    for slot in &mut ring {
        *slot = rng.below(len);
        prefetch(table, *slot);
    }
    for i in 0..updates {
        let k = i % PREFETCH_DISTANCE;
        let index = ring[k];
        let ahead = rng.below(len);
        prefetch(table, ahead);
        ring[k] = ahead;
        let entry = &mut table[index];
        entry.written_at = entry.written_at.wrapping_add(1);
    }
    // The updates must happen: the table is read after the loop.
    std::hint::black_box(&*table);
}

/// Asks for `table[index]`'s cache line without waiting for it.
#[inline(always)]
fn prefetch(table: &[MapEntry], index: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults; `index` is in bounds
    // (drawn below the table's length), so the address is inside the table.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch(table.as_ptr().add(index).cast::<i8>(), _MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (table, index);
}

/// wyrand (Wang Yi): one add and one 128-bit multiply per draw, so that
/// drawing an index costs little next to the memory access it feeds.
struct Wyrand(u64);

impl Wyrand {
    #[inline(always)]
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xA076_1D64_78BD_642F);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xE703_7ED1_A0B4_28DB);
        (t >> 64) as u64 ^ t as u64
    }

    /// Uniform enough below `n` by the high half of a 64 × 64 product
    /// (Lemire): no division.
    #[inline(always)]
    fn below(&mut self, n: u64) -> usize {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_update_lands_once_in_the_table() {
        // The loop's work is real: `updates` increments, all in bounds,
        // spread over the table (no entry of 1000 left untouched by 200,000
        // draws; a stuck generator would leave most at zero).
        let mut table = vec![
            MapEntry {
                ppn: Ppn::NONE,
                written_at: 0
            };
            1000
        ];
        let mut rng = Wyrand(7);
        random_updates(&mut table, 200_000, &mut rng);
        let total: u64 = table.iter().map(|e| u64::from(e.written_at)).sum();
        assert_eq!(total, 200_000);
        assert!(table.iter().all(|e| e.written_at > 0));
    }

    #[test]
    fn the_fraction_is_the_rate_over_half_the_update_rate() {
        let limit = MemoryLimit::measure(1 << 12, 3, 1e6);
        assert_eq!(limit.memory_limit_segments_updates_per_sec.len(), 3);
        assert_eq!(limit.memory_limit_table_bytes, 8 << 12);
        let half = limit.memory_limit_updates_per_sec / UPDATES_PER_HOST_WRITE;
        assert_eq!(limit.memory_limit_host_writes_per_sec, half);
        assert_eq!(limit.fraction_of_limit, 1e6 / half);
    }
}
