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

/// Transfers in the table before the ended ones are first looked for and
/// dropped.
const FORGET_AT: usize = 64;

#[derive(Debug, Clone)]
pub struct Channel {
    /// Ready time and start of the last transfer in ready order, copied out
    /// of the timetable: placing a transfer ready after it (the common
    /// case) reads only these.
    last_ready: u64,
    last_start: u64,
    /// `(ready, start)` of each transfer not yet dropped, in ready order;
    /// starts are increasing and at least one transfer apart.
    timetable: Vec<(u64, u64)>,
    /// The table length at which ended transfers are next looked for:
    /// twice what was left in flight the last time (at least `FORGET_AT`),
    /// so looking costs O(1) per transfer however long the table is.
    forget_at: usize,
    /// Transfers carried; their total and longest wait between ready and
    /// start, as computed when each was placed.
    transfers: u64,
    wait_ns: u64,
    max_wait_ns: u64,
    /// Time by which transfers were pushed back after they were placed.
    late_shift_ns: u64,
}

impl Default for Channel {
    fn default() -> Self {
        Self {
            last_ready: 0,
            last_start: 0,
            timetable: Vec::new(),
            forget_at: FORGET_AT,
            transfers: 0,
            wait_ns: 0,
            max_wait_ns: 0,
            late_shift_ns: 0,
        }
    }
}

impl Channel {
    pub fn reset(&mut self) {
        self.timetable.clear();
        self.forget_at = FORGET_AT;
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

    /// When the last transfer placed (in ready order) ends, given transfers
    /// of `len_ns`; 0 when none was. (Placing always leaves the table
    /// non-empty: ended transfers are dropped just before a push.)
    pub fn free_at(&self, len_ns: u64) -> u64 {
        self.timetable.last().map_or(0, |t| t.1 + len_ns)
    }

    /// The transfers not yet dropped, in ready order.
    #[cfg(test)]
    fn live(&self) -> &[(u64, u64)] {
        &self.timetable
    }

    /// Forgets the transfers of `len_ns` that ended by `now`, once the
    /// table has grown to `forget_at`: an ended transfer changes nothing
    /// (every later one is ready after it ended, so goes after it and cannot
    /// collide with it), so dropping them only bounds memory, and looking on
    /// every transfer would cost more than the rest of placing it. `now`
    /// must never decrease.
    #[inline(always)]
    pub fn forget_before(&mut self, now: u64, len_ns: u64) {
        if self.timetable.len() >= self.forget_at {
            self.forget_ended(now, len_ns);
        }
    }

    #[cold]
    #[inline(never)]
    fn forget_ended(&mut self, now: u64, len_ns: u64) {
        // Starts increase in ready order, so the ended transfers are a prefix.
        let ended = self.timetable.partition_point(|t| t.1 + len_ns <= now);
        self.timetable.drain(..ended);
        self.forget_at = FORGET_AT.max(2 * self.timetable.len());
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
        let start = if self.timetable.is_empty() {
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

    /// The slow path: ready before the last transfer placed. It goes in
    /// ready order, and those after it move back as far as it pushes them.
    #[inline(never)]
    fn place_before_waiting(&mut self, ready_at: u64, len_ns: u64) -> u64 {
        // Found from the back: a transfer ready early usually passes only
        // the last few placed (about 4 in the timed bench); past `SCAN`, a
        // binary search.
        const SCAN: usize = 16;
        let table = &mut self.timetable;
        let scan_from = table.len().saturating_sub(SCAN);
        let pos = match table[scan_from..].iter().rposition(|t| t.0 <= ready_at) {
            Some(i) => scan_from + i + 1,
            None => table[..scan_from].partition_point(|t| t.0 <= ready_at),
        };
        let start = match pos.checked_sub(1) {
            None => ready_at,
            Some(before) => ready_at.max(table[before].1 + len_ns),
        };
        table.insert(pos, (ready_at, start));
        let mut prev_end = start + len_ns;
        let mut shifted_ns = 0;
        for t in &mut table[pos + 1..] {
            if t.1 >= prev_end {
                break;
            }
            shifted_ns += prev_end - t.1;
            t.1 = prev_end;
            prev_end += len_ns;
        }
        self.late_shift_ns += shifted_ns;
        if let Some(&(_, last_start)) = table.last() {
            self.last_start = last_start;
        }
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
