//! One channel's timetable: the transfers placed on it that have not ended
//! yet, in the order the channel carries them.
//!
//! The channel carries transfers in the order their data is ready (earliest
//! ready first; FIFO among equal times), each starting when it is ready and
//! the one before it has ended: all transfers have the same length, so the
//! timetable is Lindley's recursion over the ready times. A transfer that
//! waits for its LUN (a read still sensing, a program whose LUN is busy) is
//! placed at the time it can really move and does not hold the channel until
//! then.
//!
//! A request's completion is computed once, when it is issued, from the
//! transfers known then. A transfer placed later (a request issued later)
//! that is ready earlier goes ahead of the waiting ones in the timetable and
//! pushes them back, so the channel never carries more than it can; but the
//! completions already reported for the transfers it pushed back are not
//! revised. That delay is counted (`late_shift_ns`): it is what the
//! reported latencies miss (docs/timing.md, "Channel scheduling").
//!
//! Transfers that end before the current request's issue time can no longer
//! matter (every later transfer is ready after it) and are dropped, so the
//! table holds only the transfers in flight.

/// Transfers in the table before the ended ones are looked for and dropped.
const FORGET_AT: usize = 64;

#[derive(Debug, Clone, Default)]
pub struct Channel {
    /// Ready time and start of the last transfer in ready order, copied out
    /// of the timetable: placing a transfer ready after it (the common
    /// case) reads only these.
    last_ready: u64,
    last_start: u64,
    /// `(ready, start)` of each transfer from `head` on, in ready order;
    /// starts are increasing and at least one transfer apart. Entries
    /// before `head` have ended and are dropped in batches (a plain vector:
    /// the slow path scans and shifts it as a slice).
    timetable: Vec<(u64, u64)>,
    head: usize,
    /// Transfers carried; their total and longest wait between ready and
    /// start, as computed when each was placed.
    transfers: u64,
    wait_ns: u64,
    max_wait_ns: u64,
    /// Time by which transfers were pushed back after they were placed.
    late_shift_ns: u64,
}

impl Channel {
    pub fn reset(&mut self) {
        self.timetable.clear();
        self.head = 0;
        self.last_ready = 0;
        self.last_start = 0;
        self.transfers = 0;
        self.wait_ns = 0;
        self.max_wait_ns = 0;
        self.late_shift_ns = 0;
    }

    pub fn transfers(&self) -> u64 {
        self.transfers
    }

    /// Total time transfers waited for this channel after their data was
    /// ready, as reported in request latencies.
    pub fn wait_ns(&self) -> u64 {
        self.wait_ns
    }

    /// The longest any transfer waited.
    pub fn max_wait_ns(&self) -> u64 {
        self.max_wait_ns
    }

    /// Total time by which placed transfers were pushed back by transfers
    /// placed after them but ready before them.
    pub fn late_shift_ns(&self) -> u64 {
        self.late_shift_ns
    }

    /// When the last transfer in flight ends (0 when none is), given
    /// transfers of `len_ns`.
    pub fn free_at(&self, len_ns: u64) -> u64 {
        self.live().last().map_or(0, |t| t.1 + len_ns)
    }

    /// The transfers in flight (or not yet dropped), in ready order.
    fn live(&self) -> &[(u64, u64)] {
        &self.timetable[self.head..]
    }

    /// Forgets the transfers of `len_ns` that ended by `now`, once the
    /// table holds `FORGET_AT` of them or more: an ended transfer changes
    /// nothing (every later one is ready after it ended), so dropping them
    /// only bounds memory, and checking the front on every transfer would
    /// cost more than the rest of placing it. `now` must never decrease.
    #[inline(always)]
    pub fn forget_before(&mut self, now: u64, len_ns: u64) {
        if self.timetable.len() - self.head < FORGET_AT {
            return;
        }
        while self
            .timetable
            .get(self.head)
            .is_some_and(|t| t.1 + len_ns <= now)
        {
            self.head += 1;
        }
        if 2 * self.head >= self.timetable.len() {
            self.timetable.drain(..self.head);
            self.head = 0;
        }
    }

    /// Places a transfer of `len_ns` ready at `ready_at` in ready order;
    /// returns when it ends.
    #[inline(always)]
    pub fn place(&mut self, ready_at: u64, len_ns: u64) -> u64 {
        self.transfers += 1;
        if len_ns == 0 {
            // A free channel (transfer time 0): nothing to place.
            return ready_at;
        }
        let start = if self.head == self.timetable.len() {
            ready_at
        } else if ready_at >= self.last_ready {
            ready_at.max(self.last_start + len_ns)
        } else {
            return self.place_before_waiting(ready_at, len_ns);
        };
        self.timetable.push((ready_at, start));
        self.last_ready = ready_at;
        self.last_start = start;
        self.account(start - ready_at);
        start + len_ns
    }

    #[inline(always)]
    fn account(&mut self, wait_ns: u64) {
        self.wait_ns += wait_ns;
        self.max_wait_ns = self.max_wait_ns.max(wait_ns);
    }

    /// The slow path: ready before a transfer already placed. It goes in
    /// ready order, and those after it move back as far as it pushes them.
    fn place_before_waiting(&mut self, ready_at: u64, len_ns: u64) -> u64 {
        // Insertion from the back: a transfer ready early usually passes
        // only the last few placed (3 on average in the timed bench), which
        // move up one place as it goes; past `SCAN`, a binary search.
        const SCAN: usize = 16;
        self.timetable.push((ready_at, 0));
        let live = &mut self.timetable[self.head..];
        let mut pos = live.len() - 1;
        let scan_to = pos.saturating_sub(SCAN);
        while pos > scan_to && live[pos - 1].0 > ready_at {
            live[pos] = live[pos - 1];
            pos -= 1;
        }
        if pos == scan_to && pos > 0 && live[pos - 1].0 > ready_at {
            let at = live[..pos].partition_point(|t| t.0 <= ready_at);
            live.copy_within(at..pos, at + 1);
            pos = at;
        }
        let start = match pos {
            0 => ready_at,
            _ => ready_at.max(live[pos - 1].1 + len_ns),
        };
        live[pos] = (ready_at, start);
        let mut prev_end = start + len_ns;
        for t in &mut live[pos + 1..] {
            if t.1 >= prev_end {
                break;
            }
            self.late_shift_ns += prev_end - t.1;
            t.1 = prev_end;
            prev_end += len_ns;
        }
        self.last_start = self.timetable.last().expect("just inserted").1;
        self.account(start - ready_at);
        start + len_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(c: &Channel) -> Vec<(u64, u64)> {
        c.live().to_vec()
    }

    #[test]
    fn transfers_go_in_ready_order_not_in_the_order_placed() {
        let mut c = Channel::default();
        // A read whose LUN was busy: its transfer is ready only at 1000.
        assert_eq!(c.place(1000, 10), 1010);
        // Another LUN's read, placed later but ready at 50: not held behind it.
        assert_eq!(c.place(50, 10), 60);
        // Ready at 995: goes first and pushes the one ready at 1000 to 1005.
        assert_eq!(c.place(995, 10), 1005);
        assert_eq!(starts(&c), vec![(50, 50), (995, 995), (1000, 1005)]);
        assert_eq!(c.late_shift_ns(), 5);
        // Ready at 1000 too: after the one placed first (FIFO among equals).
        assert_eq!(c.place(1000, 10), 1025);
        // Ready at 1001: after both, and the channel is busy until 1025.
        assert_eq!(c.place(1001, 10), 1035);
        assert_eq!(c.transfers(), 5);
        // Waits: 0, 0, 0, 15, 24.
        assert_eq!(c.wait_ns(), 39);
        assert_eq!(c.max_wait_ns(), 24);
        assert_eq!(c.free_at(10), 1035);
        // Ended transfers stay until the table is long enough, then go.
        c.forget_before(61, 10);
        assert_eq!(starts(&c)[0], (50, 50));
        for i in 0..FORGET_AT as u64 {
            c.place(2000 + 10 * i, 10);
        }
        c.forget_before(2000, 10);
        assert_eq!(starts(&c)[0], (2000, 2000));
        assert_eq!(starts(&c).len(), FORGET_AT);
        assert_eq!(c.place(5000, 10), 5010);
    }

    #[test]
    fn a_push_back_stops_at_an_idle_gap() {
        let mut c = Channel::default();
        c.place(100, 10);
        c.place(110, 10);
        c.place(200, 10);
        // Ready at 95: [95, 105) pushes 100 -> 105 and 110 -> 115; 200 stays.
        assert_eq!(c.place(95, 10), 105);
        assert_eq!(
            starts(&c),
            vec![(95, 95), (100, 105), (110, 115), (200, 200)]
        );
        assert_eq!(c.late_shift_ns(), 10);
        assert_eq!(c.wait_ns(), 0);
    }

    #[test]
    fn a_transfer_passing_many_goes_where_ready_order_puts_it() {
        let mut c = Channel::default();
        // 20 transfers ready every 100 from 1000, then one ready at 1250:
        // it passes the 17 ready after it (a binary search) and pushes
        // back only the one it collides with (ready 1300, start 1300).
        for i in 0..20 {
            c.place(1000 + 100 * i, 10);
        }
        assert_eq!(c.place(1295, 10), 1305);
        let t = starts(&c);
        assert_eq!(t[3], (1295, 1295));
        assert_eq!(t[4], (1300, 1305));
        assert_eq!(t[5], (1400, 1400));
        assert_eq!(c.late_shift_ns(), 5);
        assert_eq!(t.len(), 21);
    }
}
