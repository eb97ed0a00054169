//! One channel's timetable: the transfers placed on it that have not ended
//! yet, as disjoint busy intervals in time order.
//!
//! A transfer goes into the earliest idle gap that starts at or after the
//! time its data is ready and is long enough to hold it. So a transfer that
//! waits for its LUN (a read still sensing, a program whose LUN is busy) is
//! placed at the time it can really move and does not hold the channel until
//! then: transfers of the channel's other LUNs that are ready earlier go
//! first. Among the channel's LUNs the order is therefore by ready time, not
//! by issue time. A transfer never moves one already placed (a request's
//! completion time is final when it is computed), so where a transfer is
//! ready before an already placed one but does not fit in front of it, it
//! waits behind it: see docs/timing.md, "Channel scheduling".
//!
//! Intervals that end before the current request's issue time can no longer
//! matter (every later transfer is ready after it) and are dropped, so the
//! table holds only the transfers in flight.

use std::collections::VecDeque;

#[derive(Debug, Clone, Default)]
pub struct Channel {
    /// Busy intervals `[start, end)`, sorted, disjoint and never touching
    /// (touching intervals are merged).
    busy: VecDeque<(u64, u64)>,
    /// Transfers carried, and their total time between ready and start.
    transfers: u64,
    wait_ns: u64,
}

impl Channel {
    pub fn reset(&mut self) {
        self.busy.clear();
        self.transfers = 0;
        self.wait_ns = 0;
    }

    pub fn transfers(&self) -> u64 {
        self.transfers
    }

    /// Total time transfers waited for this channel after their data was ready.
    pub fn wait_ns(&self) -> u64 {
        self.wait_ns
    }

    /// When the last placed transfer ends (0 when none is in flight).
    pub fn free_at(&self) -> u64 {
        self.busy.back().map_or(0, |b| b.1)
    }

    /// Forgets the transfers that ended by `now`. `now` must never decrease:
    /// every later transfer is ready at or after it.
    #[inline(always)]
    pub fn forget_before(&mut self, now: u64) {
        while self.busy.front().is_some_and(|b| b.1 <= now) {
            self.busy.pop_front();
        }
    }

    /// Places a transfer of `len_ns` ready at `ready_at` in the earliest gap
    /// that holds it; returns when it ends.
    #[inline(always)]
    pub fn place(&mut self, ready_at: u64, len_ns: u64) -> u64 {
        self.transfers += 1;
        if len_ns == 0 {
            // A free channel (transfer time 0): nothing to place.
            return ready_at;
        }
        let start = match self.busy.back_mut() {
            // After everything placed: the common case at light load and
            // for transfers that queue behind the whole channel.
            None => {
                self.busy.push_back((ready_at, ready_at + len_ns));
                ready_at
            }
            Some(last) if ready_at >= last.1 => {
                if ready_at == last.1 {
                    last.1 += len_ns;
                } else {
                    self.busy.push_back((ready_at, ready_at + len_ns));
                }
                ready_at
            }
            Some(_) => self.place_in_gap(ready_at, len_ns),
        };
        self.wait_ns += start - ready_at;
        start + len_ns
    }

    /// The slow path: a gap between placed transfers, or after the last.
    fn place_in_gap(&mut self, ready_at: u64, len_ns: u64) -> u64 {
        // First interval that ends after `ready_at` (ends are sorted).
        let mut i = self.busy.partition_point(|b| b.1 <= ready_at);
        let mut start = ready_at;
        while i < self.busy.len() {
            let (b_start, b_end) = self.busy[i];
            if start + len_ns <= b_start {
                break;
            }
            start = start.max(b_end);
            i += 1;
        }
        let end = start + len_ns;
        // Insert [start, end) before interval i, merging with the neighbours it touches.
        let touches_prev = i > 0 && self.busy[i - 1].1 == start;
        let touches_next = i < self.busy.len() && self.busy[i].0 == end;
        match (touches_prev, touches_next) {
            (true, true) => {
                self.busy[i - 1].1 = self.busy[i].1;
                self.busy.remove(i);
            }
            (true, false) => self.busy[i - 1].1 = end,
            (false, true) => self.busy[i].0 = start,
            (false, false) => self.busy.insert(i, (start, end)),
        }
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transfer_ready_early_goes_into_the_gap_before_a_later_one() {
        let mut c = Channel::default();
        // A read whose LUN was busy: its transfer is ready only at 1000.
        assert_eq!(c.place(1000, 10), 1010);
        // Another LUN's read, issued later but ready at 50: not held behind it.
        assert_eq!(c.place(50, 10), 60);
        // Ready at 995: does not fit before 1000, so it goes after 1010.
        assert_eq!(c.place(995, 10), 1020);
        // Ready at 60: right after the one at 50 (merged interval [50, 70)).
        assert_eq!(c.place(60, 10), 70);
        assert_eq!(c.busy, VecDeque::from([(50, 70), (1000, 1020)]));
        // Ends exactly where [1000, 1020) starts: merged with it.
        assert_eq!(c.place(985, 15), 1000);
        assert_eq!(c.busy, VecDeque::from([(50, 70), (985, 1020)]));
        assert_eq!(c.transfers(), 5);
        assert_eq!(c.wait_ns(), 15);
        c.forget_before(70);
        assert_eq!(c.busy, VecDeque::from([(985, 1020)]));
        assert_eq!(c.free_at(), 1020);
    }

    #[test]
    fn gaps_too_short_are_skipped() {
        let mut c = Channel::default();
        c.place(0, 10);
        c.place(15, 10);
        c.place(30, 10);
        // Gaps [10, 15) and [25, 30) are 5 long: a 10 transfer ready at 5 ends at 50.
        assert_eq!(c.place(5, 10), 50);
        // A 5 transfer fits the first gap.
        assert_eq!(c.place(5, 5), 15);
        assert_eq!(c.busy, VecDeque::from([(0, 25), (30, 50)]));
    }
}
