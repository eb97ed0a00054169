//! The completion times of the requests in the device, kept sorted: the
//! replay's queue (`replay.rs`) needs the earliest (when a slot frees) and
//! the latest (when the device drains), and adds one completion per request.
//!
//! Until issue 30 this was `std`'s `BinaryHeap`: at queue depth 32 a new
//! completion replaced the top and sank about four levels, a compare and a
//! move each (about 46 instructions per timed request). A new completion is
//! mostly later than nearly every other one in the device (it was issued
//! last), so in a sorted array it goes in near the end: the place is
//! counted over the last `WINDOW` times without a branch and the new time
//! goes in by a fixed-size move, as the channel's timetable does
//! (`channel.rs`). The earliest is taken from the front, whose slot is
//! zeroed and left behind; the live times move back down to the front only
//! when the spare slots after them run out.

/// Times looked at, without a branch, to find a new one's place. One that
/// goes before all of them (about one in four at queue depth 32) looks at
/// the `WINDOW` below them the same way; only one that goes before those
/// too takes a binary search and a `memmove`.
const WINDOW: usize = 4;

/// Zeros before the first live time: both windows may reach below it.
const FRONT: usize = 2 * WINDOW;

/// Slots a fast insertion's view spans: the last `WINDOW` times, and the
/// `WINDOW + 1` after them that the fixed-size move may write.
const VIEW: usize = 2 * WINDOW + 1;

/// Slots [`Outstanding::insert_beyond`]'s view spans: the last `2 WINDOW`
/// times and the same spare slots.
const BEYOND: usize = 3 * WINDOW + 1;

#[derive(Debug, Clone)]
pub struct Outstanding {
    /// `FRONT` zeros, then slots already taken (zeroed), then the live
    /// times ascending in `head..end`, then spare slots. Every slot before
    /// `head` holds 0, never after a time inserted, so the window may reach
    /// below `head` without counting a slot that is not live.
    times: Vec<u64>,
    head: usize,
    end: usize,
}

impl Outstanding {
    /// Room for `capacity` times (at most 4096 at first: a deeper queue
    /// grows it) before the first move down.
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.clamp(1, 4096);
        let mut o = Self {
            times: Vec::new(),
            head: FRONT,
            end: FRONT,
        };
        o.times.resize(FRONT + 2 * capacity + VIEW, 0);
        o
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.end - self.head
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.head
    }

    /// The earliest time, if any.
    #[inline(always)]
    pub fn first(&self) -> Option<u64> {
        (!self.is_empty()).then(|| self.times[self.head])
    }

    /// The latest time, if any.
    pub fn last(&self) -> Option<u64> {
        (!self.is_empty()).then(|| self.times[self.end - 1])
    }

    pub fn clear(&mut self) {
        self.times[self.head..self.end].fill(0);
        self.head = FRONT;
        self.end = FRONT;
    }

    /// Takes the earliest time out.
    #[inline(always)]
    pub fn pop_first(&mut self) -> Option<u64> {
        let first = self.first()?;
        self.times[self.head] = 0;
        self.head += 1;
        Some(first)
    }

    /// Replaces the earliest time with `time`, which must not be earlier
    /// than it (a closed loop's new completion takes the slot freed first).
    #[inline(always)]
    pub fn replace_first(&mut self, time: u64) {
        debug_assert!(self.first().is_some_and(|f| f <= time));
        self.times[self.head] = 0;
        self.head += 1;
        self.insert(time);
    }

    /// Adds `time` after every time not later than it (times stay below
    /// 2^63 ns).
    #[inline(always)]
    pub fn insert(&mut self, time: u64) {
        debug_assert!(time < 1 << 63);
        let Some(view) = self
            .times
            .get_mut(self.end - WINDOW..)
            .and_then(|t| t.first_chunk_mut::<VIEW>())
        else {
            return self.insert_making_room(time);
        };
        // A time after `time` makes `time - t` negative: its sign bit counts
        // it. A zero (a slot before `head`) is never counted.
        let passed: usize = view[..WINDOW]
            .iter()
            .map(|&t| (time.wrapping_sub(t) >> 63) as usize)
            .sum();
        if passed == WINDOW {
            return self.insert_beyond(time);
        }
        let at = WINDOW - passed;
        view.copy_within(at..at + WINDOW, at + 1);
        view[at] = time;
        self.end += 1;
    }

    /// [`Outstanding::insert`] when the spare slots after the live times
    /// run out: the live times move down to the front (the table grows
    /// when they fill half of it), then the time goes in.
    #[cold]
    #[inline(never)]
    fn insert_making_room(&mut self, time: u64) {
        let live = self.len();
        if 2 * live + FRONT + VIEW > self.times.len() {
            self.times.resize(2 * (FRONT + 2 * live + VIEW), 0);
        }
        // Slots below `FRONT` stay 0; those after the live times are
        // spare (written before they are read).
        self.times.copy_within(self.head..self.end, FRONT);
        self.head = FRONT;
        self.end = FRONT + live;
        self.insert(time);
    }

    /// [`Outstanding::insert`] for a time before every time in the window:
    /// the `WINDOW` below them counted the same way, and the time goes in
    /// by a fixed-size move twice as long.
    #[inline(never)]
    fn insert_beyond(&mut self, time: u64) {
        // `end >= FRONT`, and the view of `insert` fitted: so does this one.
        let view: &mut [u64; BEYOND] = (&mut self.times[self.end - 2 * WINDOW..][..BEYOND])
            .try_into()
            .expect("BEYOND slots from 2 WINDOW before the end");
        let passed: usize = view[..WINDOW]
            .iter()
            .map(|&t| (time.wrapping_sub(t) >> 63) as usize)
            .sum();
        if passed == WINDOW {
            return self.insert_far(time);
        }
        let at = WINDOW - passed;
        view.copy_within(at..at + 2 * WINDOW, at + 1);
        view[at] = time;
        self.end += 1;
    }

    /// [`Outstanding::insert`] for a time before every time in both
    /// windows: its place by binary search among the live times below them.
    #[cold]
    #[inline(never)]
    fn insert_far(&mut self, time: u64) {
        let below = self.end - 2 * WINDOW;
        let at = self.head + self.times[self.head..below].partition_point(|&t| t <= time);
        self.times.copy_within(at..self.end, at + 1);
        self.times[at] = time;
        self.end += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    #[test]
    fn the_sorted_times_agree_with_a_heap() {
        // Random closed- and open-loop traffic (xorshift, fixed seeds):
        // replace the earliest with a later time, pop, insert anywhere.
        // The earliest, the latest and the count must match a heap's.
        for seed in 1..=6u64 {
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = move |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let mut o = Outstanding::with_capacity(next(40) as usize);
            let mut h = BinaryHeap::new();
            for step in 0..40_000 {
                match next(10) {
                    0..=5 if !h.is_empty() => {
                        let Reverse(min) = *h.peek().expect("not empty");
                        let spread = if next(8) == 0 { 5_000 } else { 300 };
                        let t = min + next(spread);
                        o.replace_first(t);
                        *h.peek_mut().expect("not empty") = Reverse(t);
                    }
                    6 => assert_eq!(o.pop_first(), h.pop().map(|r: Reverse<u64>| r.0)),
                    7 if next(50) == 0 => {
                        o.clear();
                        h.clear();
                    }
                    _ => {
                        let t = next(1 << 20);
                        o.insert(t);
                        h.push(Reverse(t));
                    }
                }
                assert_eq!(o.len(), h.len(), "seed {seed} step {step}");
                assert_eq!(o.first(), h.peek().map(|r| r.0), "seed {seed} step {step}");
                assert_eq!(o.last(), h.iter().map(|r| r.0).max());
            }
        }
    }
}
