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
/// dropped. 256, not 64 (issue 30): at queue depth 32 about 30 are in
/// flight, so at 64 every 34th placement moved them all down (about 7
/// instructions per request); at 256, every 220th. Ended transfers left in
/// the table change no placement (see `forget_ended`).
const FORGET_AT: usize = 256;

/// Transfers looked at, without a branch, to find a new one's place. Four:
/// counting and moving them is half the work of eight on every transfer.
/// The one in ten that passes all four looks at the four below them the
/// same way ([`Channel::place_beyond`]), and only the one in 34 that
/// passes those too takes [`Channel::place_far`]'s binary search, about
/// 160 instructions (issue 30; docs/hotpath-timed.md, "The timed path").
const WINDOW: usize = 4;

/// The slot after the last transfer: it never collides with one placed
/// before it, so the push-back loop stops there without a bounds test.
const STOP: (u64, u64) = (u64::MAX, u64::MAX);

#[derive(Debug, Clone)]
pub struct Channel {
    /// `WINDOW` sentinels, then the `len` transfers not yet dropped as
    /// `(ready, start)` in ready order (starts increasing and at least one
    /// transfer apart), then `WINDOW + 1` spare slots, the first `STOP`.
    /// A sentinel is ready at 0 (never passed) and ends at 0 (never delays
    /// the transfer after it); the spare slots let a new transfer move a
    /// whole window up one place, so how many it passes needs no branch.
    /// Empty until the first transfer, which knows the transfer length.
    ///
    /// The vector's length is not all the slots it was grown to (`slots`)
    /// but where the fast path ends: a placement fits while `len + TAIL`
    /// slots are within it, so the range check of the view it takes (which
    /// is needed anyway) is also the test for forgetting and for growing
    /// (issue 30: a compare of `len` against a limit of its own cost three
    /// instructions a transfer). See [`Channel::make_room`].
    table: Vec<(u64, u64)>,
    /// The slots the table was grown to; those past its length hold
    /// nothing a placement reads before writing it.
    slots: usize,
    len: usize,
    /// The length at which ended transfers are next looked for: twice what
    /// was left in flight the last time (at least `FORGET_AT`), so looking
    /// costs O(1) per transfer however long the table is.
    forget_at: usize,
    /// Transfers carried are `forgotten + len + free`: those dropped from
    /// the table, those in it, and those of a free channel (transfer time
    /// 0, never placed). Counting them apart costs nothing per transfer.
    forgotten: u64,
    free: u64,
    /// The total and longest wait of the transfers between ready and
    /// start, as computed when each was placed.
    wait_ns: u64,
    max_wait_ns: u64,
    /// Time by which transfers were pushed back after they were placed.
    late_shift_ns: u64,
}

impl Default for Channel {
    fn default() -> Self {
        Self {
            table: Vec::new(),
            slots: 0,
            len: 0,
            forget_at: FORGET_AT,
            forgotten: 0,
            free: 0,
            wait_ns: 0,
            max_wait_ns: 0,
            late_shift_ns: 0,
        }
    }
}

impl Channel {
    pub fn reset(&mut self) {
        self.table.clear();
        self.slots = 0;
        self.len = 0;
        self.forget_at = FORGET_AT;
        self.forgotten = 0;
        self.free = 0;
        self.wait_ns = 0;
        self.max_wait_ns = 0;
        self.late_shift_ns = 0;
    }

    pub fn transfers(&self) -> u64 {
        self.forgotten + self.len as u64 + self.free
    }

    /// A transfer on a free channel (transfer time 0): counted, not placed.
    pub fn count_free(&mut self) {
        self.free += 1;
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
    /// non-empty: ended transfers are dropped just before a placement.)
    pub fn free_at(&self, len_ns: u64) -> u64 {
        self.live().last().map_or(0, |t| t.1 + len_ns)
    }

    /// The transfers not yet dropped, in ready order.
    fn live(&self) -> &[(u64, u64)] {
        self.table.get(WINDOW..WINDOW + self.len).unwrap_or(&[])
    }

    /// Places a transfer of `len_ns` ready at `ready_at` for a request
    /// issued at `now` (see [`Channel::place_in_room`]), first forgetting the
    /// transfers that ended by `now` once the table has grown to
    /// `forget_at`: an ended transfer changes nothing (every later one is
    /// ready after it ended, so goes after it and cannot collide with it),
    /// so dropping them only bounds memory, and looking on every transfer
    /// would cost more than the rest of placing it. `now` must never
    /// decrease; `len_ns` must not be 0 (a free channel is not placed on:
    /// [`Channel::count_free`]). Returns when the transfer ends.
    #[inline(always)]
    pub fn place_after(&mut self, now: u64, ready_at: u64, len_ns: u64) -> u64 {
        self.place_in_room(now, ready_at, len_ns)
    }

    /// [`Channel::place_after`]'s slow path: forgets the ended transfers
    /// when the table has grown to `forget_at`, makes room for one more,
    /// sets the length at which to look again, and places the transfer.
    #[cold]
    #[inline(never)]
    fn place_making_room(&mut self, now: u64, ready_at: u64, len_ns: u64) -> u64 {
        self.make_room(now, len_ns);
        self.place_in_room(now, ready_at, len_ns)
    }

    /// Forgets the ended transfers when the table has grown to
    /// `forget_at`, grows it when it has no room for one more, and sets its
    /// length so that the fast path ends when `len` reaches the smaller of
    /// `forget_at` and the room there is (`len + TAIL <= slots`).
    fn make_room(&mut self, now: u64, len_ns: u64) {
        if self.len >= self.forget_at {
            self.forget_ended(now, len_ns);
        }
        if self.slots < self.len + TAIL {
            self.grow(len_ns);
        }
        // A placement fits while `len + TAIL <= table.len()`, that is while
        // `len < check_at`.
        let check_at = self.forget_at.min(self.slots + 1 - TAIL);
        self.table.resize(check_at - 1 + TAIL, STOP);
    }

    /// Forgets the ended transfers as [`Channel::place_after`] does.
    #[cfg(test)]
    fn forget_before(&mut self, now: u64, len_ns: u64) {
        if self.len >= self.forget_at {
            self.forget_ended(now, len_ns);
        }
    }

    #[cold]
    #[inline(never)]
    fn forget_ended(&mut self, now: u64, len_ns: u64) {
        // Starts increase in ready order, so the ended transfers are a prefix.
        let ended = self.live().partition_point(|t| t.1 + len_ns <= now);
        // Only the live transfers and `STOP` move down: the spare slots
        // after them hold nothing a placement reads before writing it.
        let live_end = WINDOW + self.len;
        self.table.copy_within(WINDOW + ended..=live_end, WINDOW);
        self.len -= ended;
        self.forgotten += ended as u64;
        self.forget_at = FORGET_AT.max(2 * self.len);
    }

    /// Makes room for one more transfer: `WINDOW + 1` slots after the last
    /// (the first `STOP`) plus the one the fixed-size move fills. The first
    /// call lays out the sentinels; later ones double the table.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, len_ns: u64) {
        if self.table.is_empty() {
            debug_assert!(self.len == 0);
            // Ends at 0: `start + len_ns` wraps to 0.
            let sentinel = (0, 0u64.wrapping_sub(len_ns));
            self.table.resize(WINDOW, sentinel);
        }
        let want = 2 * (WINDOW + self.len + WINDOW + 2);
        self.table.resize(want, STOP);
        self.slots = want;
    }

    /// Places a transfer of `len_ns` ready at `ready_at` in ready order,
    /// never forgetting ended ones; returns when it ends.
    #[cfg(test)]
    fn place(&mut self, ready_at: u64, len_ns: u64) -> u64 {
        if self.slots < self.len + TAIL {
            self.grow(len_ns);
        }
        self.table.resize(self.slots, STOP);
        self.place_in_room(0, ready_at, len_ns)
    }

    /// Places a transfer of `len_ns` ready at `ready_at` in ready order
    /// (for a request issued at `now`, as [`Channel::place_after`]);
    /// returns when it ends.
    ///
    /// About two thirds of the transfers in the timed bench go before one
    /// already placed, passing a varying few. A loop that passes them one by
    /// one mispredicts its exit about once per transfer, which cost more
    /// than everything else in placing it; so the count is a branch-free sum
    /// over the last `WINDOW` transfers, and the move is a fixed-size copy
    /// within a fixed-size view of the table's tail (no bounds checks).
    #[inline(always)]
    fn place_in_room(&mut self, now: u64, ready_at: u64, len_ns: u64) -> u64 {
        // The engine counts a free channel's transfers apart: the check
        // is once per request, not once per transfer (issue 30).
        debug_assert!(len_ns > 0);
        // The last `WINDOW` transfers (or sentinels), then `STOP`, then the
        // spare slots the move writes into: one view, one range check (the
        // window is a fixed part of it, checked at compile time). Outside
        // the table's length (see `table`), the slow path makes room.
        let Some(tail) = self
            .table
            .get_mut(self.len..)
            .and_then(|t| t.first_chunk_mut::<TAIL>())
        else {
            return self.place_making_room(now, ready_at, len_ns);
        };
        debug_assert_eq!(tail[WINDOW], STOP);
        // A transfer ready after `ready_at` makes `ready_at - ready`
        // negative: its sign bit counts it (times stay below 2^63 ns).
        // Compiled as compares and `seta`, LLVM vectorized the count into a
        // long chain of lane inserts.
        debug_assert!(ready_at < 1 << 63);
        let passed = passed_in(
            tail[..WINDOW].try_into().expect("WINDOW of TAIL slots"),
            ready_at,
        );
        if passed == WINDOW {
            return self.place_beyond(ready_at, len_ns);
        }
        // `1 <= at <= WINDOW`: the one before is a transfer or a sentinel.
        // The move takes `STOP` one place up with the passed transfers, so
        // it follows the new last transfer again.
        let at = WINDOW - passed;
        // Read before the move: the start of the one it follows (a
        // sentinel's ends at 0) and of the first it passes (`STOP` if none).
        // After it, they would be loads of slots the move has just written.
        let start = ready_at.max(tail[at - 1].1.wrapping_add(len_ns));
        let next_start = tail[at].1;
        tail.copy_within(at..at + WINDOW, at + 1);
        self.len += 1;
        tail[at] = (ready_at, start);
        // Most transfers end before the next one starts: the push-back loop
        // (which reads the slots just moved) runs only for those that do not.
        if start + len_ns > next_start {
            self.late_shift_ns += push_back(&mut tail[at + 1..], start + len_ns, len_ns);
        }
        self.account(start - ready_at);
        start + len_ns
    }

    /// [`Channel::place_in_room`] for a transfer that passes every transfer in the
    /// window (about one in ten): the `WINDOW` transfers below them are
    /// counted the same way, and the new one goes in by a fixed-size move
    /// twice as long. Only one that passes those too (about one in 34)
    /// takes [`Channel::place_far`]'s binary search and `memmove`, which
    /// cost about three times as much.
    #[inline(never)]
    fn place_beyond(&mut self, ready_at: u64, len_ns: u64) -> u64 {
        // The window held `WINDOW` transfers (a sentinel is never passed),
        // so the `WINDOW` slots below it exist: transfers or sentinels.
        debug_assert!(self.len >= WINDOW);
        let live_end = WINDOW + self.len;
        // Both windows, then `STOP`, then the spare slots (as in `place_in_room`).
        let view: &mut [(u64, u64); BEYOND] = (&mut self.table
            [live_end - 2 * WINDOW..live_end + TAIL - WINDOW])
            .try_into()
            .expect("BEYOND slots from 2 WINDOW before the end of the live transfers");
        debug_assert_eq!(view[2 * WINDOW], STOP);
        let passed = passed_in(
            view[..WINDOW].try_into().expect("WINDOW of BEYOND slots"),
            ready_at,
        );
        if passed == WINDOW {
            return self.place_far(ready_at, len_ns);
        }
        // `1 <= at <= WINDOW`; the move of `2 WINDOW` slots takes the
        // passed transfers of both windows and `STOP` up one place.
        let at = WINDOW - passed;
        let start = ready_at.max(view[at - 1].1.wrapping_add(len_ns));
        let next_start = view[at].1;
        view.copy_within(at..at + 2 * WINDOW, at + 1);
        self.len += 1;
        view[at] = (ready_at, start);
        if start + len_ns > next_start {
            self.late_shift_ns += push_back(&mut view[at + 1..], start + len_ns, len_ns);
        }
        self.account(start - ready_at);
        start + len_ns
    }

    /// [`Channel::place_in_room`] for a transfer that passes every transfer in both
    /// windows (rare): its place among the live transfers by binary search,
    /// below those `WINDOW`, and those it passes moved up one place.
    #[cold]
    #[inline(never)]
    fn place_far(&mut self, ready_at: u64, len_ns: u64) -> u64 {
        let live_end = WINDOW + self.len;
        let table = self.table.as_mut_slice();
        let at = WINDOW + table[WINDOW..live_end - WINDOW].partition_point(|t| t.0 <= ready_at);
        table.copy_within(at..live_end, at + 1);
        self.len += 1;
        table[WINDOW + self.len] = STOP;
        let (start, shifted_ns) = settle(&mut table[at - 1..], ready_at, len_ns);
        self.late_shift_ns += shifted_ns;
        self.account(start - ready_at);
        start + len_ns
    }

    #[inline(always)]
    fn account(&mut self, wait_ns: u64) {
        self.wait_ns += wait_ns;
        self.max_wait_ns = self.max_wait_ns.max(wait_ns);
    }
}

/// Slots [`Channel::place_in_room`] looks at: the last `WINDOW` transfers, `STOP`,
/// and the `WINDOW` the fixed-size move may write past the last transfer.
const TAIL: usize = 2 * WINDOW + 1;

/// Slots [`Channel::place_beyond`] looks at: the last `2 WINDOW`
/// transfers, `STOP`, and the same `WINDOW` spare slots as [`TAIL`].
const BEYOND: usize = 3 * WINDOW + 1;

/// How many of `window`'s transfers are ready after `ready_at`: the sign
/// bits of `ready_at - ready`, summed without a branch (times stay below
/// 2^63 ns; a sentinel, ready at 0, is never counted).
#[inline(always)]
fn passed_in(window: &[(u64, u64); WINDOW], ready_at: u64) -> usize {
    window
        .iter()
        .map(|t| (ready_at.wrapping_sub(t.0) >> 63) as usize)
        .sum()
}

/// Pushes the transfers from `t[0]` on back so that none starts before the
/// one before it ends (the first: before `prev_end`); `STOP` ends the loop.
/// Returns the time they were pushed back.
#[inline(always)]
fn push_back(t: &mut [(u64, u64)], mut prev_end: u64, len_ns: u64) -> u64 {
    let mut shifted_ns = 0;
    for t in t {
        if t.1 >= prev_end {
            break;
        }
        shifted_ns += prev_end - t.1;
        t.1 = prev_end;
        prev_end += len_ns;
    }
    shifted_ns
}

/// Starts the transfer ready at `ready_at` in `t[1]` (whose old contents
/// were moved up a place) after `t[0]`, the transfer or sentinel before it,
/// and pushes those after it back as far as it delays them; `STOP` ends
/// that loop. Returns its start and the time the others were pushed back.
#[inline(always)]
fn settle(t: &mut [(u64, u64)], ready_at: u64, len_ns: u64) -> (u64, u64) {
    let start = ready_at.max(t[0].1.wrapping_add(len_ns));
    t[1] = (ready_at, start);
    let mut prev_end = start + len_ns;
    let mut shifted_ns = 0;
    for t in &mut t[2..] {
        if t.1 >= prev_end {
            break;
        }
        shifted_ns += prev_end - t.1;
        t.1 = prev_end;
        prev_end += len_ns;
    }
    (start, shifted_ns)
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

    /// The timetable the slow, obvious way: every transfer in flight in
    /// ready order (FIFO among equals), and after each placement every start
    /// from the new transfer on recomputed by Lindley's recursion (those
    /// before it cannot change; an ended transfer still delayed the ones
    /// after it, so they are not recomputed from scratch). Ended transfers
    /// are dropped at every placement.
    #[derive(Default)]
    struct Reference {
        table: Vec<(u64, u64)>,
        late_shift_ns: u64,
        wait_ns: u64,
        max_wait_ns: u64,
    }

    impl Reference {
        fn place(&mut self, now: u64, ready_at: u64, len_ns: u64) -> u64 {
            self.table.retain(|t| t.1 + len_ns > now);
            let pos = self.table.partition_point(|t| t.0 <= ready_at);
            self.table.insert(pos, (ready_at, 0));
            let mut prev_end = match pos {
                0 => 0,
                _ => self.table[pos - 1].1 + len_ns,
            };
            for (i, t) in self.table.iter_mut().enumerate().skip(pos) {
                let start = t.0.max(prev_end);
                if i > pos {
                    self.late_shift_ns += start - t.1;
                }
                t.1 = start;
                prev_end = start + len_ns;
            }
            let start = self.table[pos].1;
            self.wait_ns += start - ready_at;
            self.max_wait_ns = self.max_wait_ns.max(start - ready_at);
            start + len_ns
        }
    }

    #[test]
    fn the_window_and_the_binary_search_agree_with_a_plain_recomputation() {
        // Random placements (xorshift, fixed seeds): most ready soon after
        // the issue time, some far ahead (a LUN with a long queue), some on
        // equal times, bursts that pass more than the window. Every end,
        // wait and push-back must match the reference exactly, with ended
        // transfers dropped at the channel's own pace.
        for seed in 1..=8u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = move |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let len_ns = 10;
            let (mut c, mut r) = (Channel::default(), Reference::default());
            let mut now = 0;
            for step in 0..20_000 {
                now += next(8);
                let ready_at = match next(10) {
                    0..=3 => now + next(30),
                    4..=6 => now + 5 * next(20),
                    7 | 8 => now + next(400),
                    _ => now + 10 * next(60),
                };
                let end = c.place_after(now, ready_at, len_ns);
                assert_eq!(
                    end,
                    r.place(now, ready_at, len_ns),
                    "seed {seed} step {step}"
                );
                assert_eq!(
                    c.late_shift_ns(),
                    r.late_shift_ns,
                    "seed {seed} step {step}"
                );
                assert_eq!(c.wait_ns(), r.wait_ns);
                assert_eq!(c.max_wait_ns(), r.max_wait_ns);
                assert_eq!(
                    c.free_at(len_ns),
                    r.table.last().map_or(0, |t| t.1 + len_ns)
                );
            }
            assert_eq!(c.transfers(), 20_000);
        }
    }
}
