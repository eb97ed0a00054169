//! LUN queue lengths: how many operations (waiting or in service) a LUN
//! operation finds at its LUN when its request is issued, sampled one
//! operation in `QUEUE_SAMPLE_EVERY`, for the report's percentiles.
//!
//! The engine feeds each LUN operation's end time to a [`QueueSampler`] as
//! it schedules it. When the timing model runs on a thread of its own
//! (`run/clock.rs`), the engine only logs the end times ([`QueueLog`]) and
//! the device's thread, which has time to spare, replays the log into the
//! sampler ([`QueueReplay`]): the same operations in the same order give
//! the same counts.

use crate::ftl::FlashOp;

use super::engine::Striping;

/// Queue lengths are counted exactly below this; longer ones count as this.
pub const QUEUE_LENGTH_CAP: usize = 64;

/// One LUN operation in this many is sampled for queue lengths. Odd, so
/// that GC's alternating reads and programs are both sampled.
const QUEUE_SAMPLE_EVERY: u64 = 7;

/// The end times of a LUN's last `QUEUE_LENGTH_CAP` operations, by
/// sequence number (a ring). A LUN's operations end in the order they are
/// scheduled, so the ones not yet finished are always the newest: counting
/// them passes only those that ended since the last count, and scheduling
/// one is a single store. Of more than `QUEUE_LENGTH_CAP` unfinished, only
/// the newest `QUEUE_LENGTH_CAP` are counted; the count is exact again as
/// soon as fewer are left.
type EndRing = [u64; QUEUE_LENGTH_CAP];

/// A LUN's operations scheduled, and the sequence number of the oldest not
/// known to have ended.
#[derive(Debug, Clone, Copy, Default)]
struct Sequence {
    pushed: u64,
    ended: u64,
}

#[derive(Debug, Clone)]
pub struct QueueSampler {
    rings: Vec<EndRing>,
    sequences: Vec<Sequence>,
    /// Per LUN, `QUEUE_LENGTH_CAP + 1` counters: entry `n` counts the
    /// sampled operations that found `n` others at the LUN.
    counts: Vec<u64>,
    /// LUN operations left until the next one sampled.
    ops_to_sample: u64,
}

impl QueueSampler {
    pub fn new(luns: u32) -> Self {
        Self {
            rings: vec![[0; QUEUE_LENGTH_CAP]; luns as usize],
            sequences: vec![Sequence::default(); luns as usize],
            counts: vec![0; luns as usize * (QUEUE_LENGTH_CAP + 1)],
            ops_to_sample: QUEUE_SAMPLE_EVERY,
        }
    }

    pub fn reset(&mut self) {
        self.rings.fill([0; QUEUE_LENGTH_CAP]);
        self.sequences.fill(Sequence::default());
        self.counts.fill(0);
        self.ops_to_sample = QUEUE_SAMPLE_EVERY;
    }

    /// An operation of a request issued at `now` scheduled on `lun`,
    /// ending at `end`. Every `QUEUE_SAMPLE_EVERY`-th counts the operations
    /// it finds at its LUN: counting for every one would cost as much as
    /// the rest of scheduling it.
    #[inline(always)]
    pub fn note(&mut self, lun: usize, now: u64, end: u64) {
        self.ops_to_sample -= 1;
        if self.ops_to_sample == 0 {
            self.sample(lun, now);
        }
        let s = &mut self.sequences[lun];
        let slot = (s.pushed % QUEUE_LENGTH_CAP as u64) as usize;
        s.pushed += 1;
        self.rings[lun][slot] = end;
    }

    #[inline(always)]
    fn sample(&mut self, lun: usize, now: u64) {
        self.ops_to_sample = QUEUE_SAMPLE_EVERY;
        let found = left_after(&mut self.sequences[lun], &self.rings[lun], now);
        self.counts[lun * (QUEUE_LENGTH_CAP + 1) + found] += 1;
    }

    /// How many sampled operations found each queue length at `lun`: entry
    /// `n` counts those that found `n`, the last those that found
    /// `QUEUE_LENGTH_CAP` or more.
    pub fn counts(&self, lun: u32) -> &[u64] {
        let n = QUEUE_LENGTH_CAP + 1;
        &self.counts[lun as usize * n..(lun as usize + 1) * n]
    }
}

/// Marks the operations ended by `now` (of those kept in `ring`); returns
/// how many of those kept are left. A forward scan, not a binary search: it
/// passes about one operation per call and its exit is the only branch it
/// mispredicts.
#[inline(always)]
fn left_after(s: &mut Sequence, ring: &EndRing, now: u64) -> usize {
    let cap = QUEUE_LENGTH_CAP as u64;
    let mut first = s.ended.max(s.pushed.saturating_sub(cap));
    while first < s.pushed && ring[(first % cap) as usize] <= now {
        first += 1;
    }
    s.ended = first;
    (s.pushed - first) as usize
}

/// What the engine logs instead of sampling: per request scheduled, the
/// time it was issued; per LUN operation, in order, its end.
#[derive(Debug, Clone, Default)]
pub struct QueueLog {
    pub issued: Vec<u64>,
    pub ends: Vec<u64>,
}

impl QueueLog {
    pub fn clear(&mut self) {
        self.issued.clear();
        self.ends.clear();
    }
}

/// A [`QueueSampler`] fed from a [`QueueLog`] on another thread: it works
/// out each operation's LUN as the engine does.
#[derive(Debug, Clone)]
pub struct QueueReplay {
    pub(super) sampler: QueueSampler,
    striping: Striping,
}

impl QueueReplay {
    pub(super) fn new(sampler: QueueSampler, striping: Striping) -> Self {
        Self { sampler, striping }
    }

    /// Feeds the log of the requests `requests` (each: where its
    /// operations end in `ops`, which holds them end to end, and whether the
    /// engine scheduled it; one that failed on the device was not). The log
    /// must be the engine's for exactly these requests.
    pub fn replay(
        &mut self,
        requests: impl IntoIterator<Item = (usize, bool)>,
        ops: &[FlashOp],
        log: &QueueLog,
    ) {
        let (mut issued, mut ends) = (log.issued.iter(), log.ends.iter());
        let mut next_end = || *ends.next().expect("one logged end per LUN operation");
        let mut start = 0usize;
        for (end, scheduled) in requests {
            let request_ops = &ops[start..end];
            start = end;
            if !scheduled {
                continue;
            }
            let now = *issued.next().expect("one logged issue time per request");
            for &op in request_ops {
                match op {
                    FlashOp::Read { ppn, .. }
                    | FlashOp::Program { ppn, .. }
                    | FlashOp::MapRead { ppn } => {
                        let lun = self.striping.lun_of_page(ppn.get()) as usize;
                        self.sampler.note(lun, now, next_end());
                    }
                    FlashOp::Erase { block } => {
                        for lun in self.striping.erase_luns(block) {
                            self.sampler.note(lun as usize, now, next_end());
                        }
                    }
                }
            }
        }
        debug_assert!(issued.next().is_none() && ends.next().is_none());
    }
}
