//! LUN queue lengths: how many operations (waiting or in service) a LUN
//! operation finds at its LUN when its request is issued, sampled one
//! operation in `QUEUE_SAMPLE_EVERY`, for the report's percentiles.
//!
//! The engine feeds each LUN operation's end time to a [`QueueSampler`] as
//! it schedules it, on the timer's own thread when the timing model runs on
//! one (`run/clock.rs`). (Until issue 30 a pipelined engine logged the end
//! times for the device's thread to replay into the sampler: the replay cost
//! the device's thread about 170 instructions per request, three times what
//! sampling costs the timer's.)

/// Queue lengths are counted exactly below this; longer ones count as this.
pub const QUEUE_LENGTH_CAP: usize = 64;

/// One LUN operation in this many is sampled for queue lengths. Odd, so
/// that GC's alternating reads and programs are both sampled.
const QUEUE_SAMPLE_EVERY: u64 = 7;

/// One LUN's recent operation ends, kept in the engine's record of the LUN
/// (`engine.rs`, `Lun`) so that scheduling an operation and noting it find
/// both behind one index (issue 30: a sampler of its own, indexed apart,
/// cost a second bounds check and base address per operation).
///
/// `ends` holds the end times of the LUN's last `QUEUE_LENGTH_CAP`
/// operations, by sequence number (a ring). A LUN's operations end in the
/// order they are scheduled (each starts when the one before it ends), so
/// the ones not yet finished are always the newest: counting them passes
/// only those, from the newest back, and scheduling one is a single store.
/// Of more than `QUEUE_LENGTH_CAP` unfinished, only the newest
/// `QUEUE_LENGTH_CAP` are counted; the count is exact again as soon as
/// fewer are left.
#[derive(Debug, Clone)]
pub struct LunRing {
    /// Operations scheduled.
    pushed: u64,
    ends: [u64; QUEUE_LENGTH_CAP],
}

impl Default for LunRing {
    fn default() -> Self {
        Self {
            pushed: 0,
            ends: [0; QUEUE_LENGTH_CAP],
        }
    }
}

/// Entry `n` counts the sampled operations that found `n` others at the
/// LUN.
type Counts = [u64; QUEUE_LENGTH_CAP + 1];

#[derive(Debug, Clone)]
pub struct QueueSampler {
    /// Per LUN: the sampled queue lengths.
    counts: Vec<Counts>,
    /// LUN operations left until the next one sampled.
    ops_to_sample: u64,
}

impl QueueSampler {
    pub fn new(luns: u32) -> Self {
        Self {
            counts: vec![[0; QUEUE_LENGTH_CAP + 1]; luns as usize],
            ops_to_sample: QUEUE_SAMPLE_EVERY,
        }
    }

    pub fn reset(&mut self) {
        self.counts.fill([0; QUEUE_LENGTH_CAP + 1]);
        self.ops_to_sample = QUEUE_SAMPLE_EVERY;
    }

    /// An operation of a request issued at `now` scheduled on `lun`, whose
    /// ring is `ring`, ending at `end`. Every `QUEUE_SAMPLE_EVERY`-th counts
    /// the operations it finds at its LUN: counting for every one would
    /// cost as much as the rest of scheduling it.
    #[inline(always)]
    pub fn note(&mut self, ring: &mut LunRing, lun: usize, now: u64, end: u64) {
        self.ops_to_sample -= 1;
        if self.ops_to_sample == 0 {
            self.ops_to_sample = QUEUE_SAMPLE_EVERY;
            let found = left_after(ring, now);
            self.counts[lun][found] += 1;
        }
        ring.ends[(ring.pushed % QUEUE_LENGTH_CAP as u64) as usize] = end;
        ring.pushed += 1;
    }

    /// How many sampled operations found each queue length at `lun`: entry
    /// `n` counts those that found `n`, the last those that found
    /// `QUEUE_LENGTH_CAP` or more.
    pub fn counts(&self, lun: u32) -> &[u64] {
        &self.counts[lun as usize]
    }
}

/// How many of the operations kept in the ring have not ended by `now`
/// (at most `QUEUE_LENGTH_CAP`). Their ends never decrease with the
/// sequence number (and a slot not yet written holds 0, never after
/// `now`), so the unfinished ones are the newest. The newest
/// `FIRST_COUNTED` are counted without a branch: fewer than all of them
/// unfinished means that count is the answer, as no older one can be. Only
/// a longer queue scans on, from the newest back. (Before issue 30 a scan
/// forward from the oldest not known to have ended passed every operation
/// that ended since the LUN's last sample, about seven; the scan from the
/// newest back, about three, cost 7 instructions a step.)
#[inline(always)]
fn left_after(q: &LunRing, now: u64) -> usize {
    let newest = q.pushed as usize;
    let found: usize = (1..=FIRST_COUNTED)
        .map(|k| usize::from(q.ends[newest.wrapping_sub(k) % QUEUE_LENGTH_CAP] > now))
        .sum();
    if found < FIRST_COUNTED {
        return found;
    }
    // All `FIRST_COUNTED` were written (an unwritten slot is not counted).
    let cap = QUEUE_LENGTH_CAP as u64;
    let oldest = q.pushed.saturating_sub(cap);
    let mut first = q.pushed - FIRST_COUNTED as u64;
    while first > oldest && q.ends[((first - 1) % cap) as usize] > now {
        first -= 1;
    }
    (q.pushed - first) as usize
}

/// Operations [`left_after`] counts without a branch: at queue depth 32
/// on 32 LUNs a sampled operation finds about three.
const FIRST_COUNTED: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_from_the_newest_back_matches_a_forward_scan() {
        // One LUN's ends never decrease; `now` never decreases. The count
        // must equal the plain one: the kept ends (the last
        // `QUEUE_LENGTH_CAP`) that are after `now`.
        for seed in 1..=4u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = move |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let mut s = QueueSampler::new(1);
            let mut ring = LunRing::default();
            let (mut now, mut free_at) = (0u64, 0u64);
            let mut all = Vec::new();
            for _ in 0..20_000 {
                now += next(40);
                // Bursts: sometimes many operations queue at once.
                let burst = if next(50) == 0 { 80 } else { 1 + next(3) };
                for _ in 0..burst {
                    free_at = free_at.max(now) + next(30);
                    let kept = &all[all.len().saturating_sub(QUEUE_LENGTH_CAP)..];
                    let want = kept.iter().filter(|&&e| e > now).count();
                    assert_eq!(left_after(&ring, now), want);
                    s.note(&mut ring, 0, now, free_at);
                    all.push(free_at);
                }
            }
        }
    }
}
