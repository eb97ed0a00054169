//! When requests are issued to the device: closed loop (a fixed number
//! outstanding) or open loop (given arrival times), both with at most
//! `queue_depth` requests in the device.
//!
//! The outstanding requests are their completion times, sorted
//! (`outstanding.rs`), bounded by the queue depth. Issue times never decrease, so every resource sees its
//! work in issue order (first come, first served).

use super::outstanding::Outstanding;
use super::TimingMode;

#[derive(Debug, Clone)]
pub struct Replay {
    mode: TimingMode,
    queue_depth: usize,
    /// Completion times of the requests in the device.
    outstanding: Outstanding,
    /// The slot of the earliest completion is reused by the request being
    /// issued (closed loop, full queue): its completion replaces the heap top.
    reuse_top: bool,
    last_issue_at: u64,
    /// The queue depth to restore when a batch ends (closed loop, in a batch).
    batch_queue_depth: Option<usize>,
    /// Requests enter at the time given, with no queue-depth limit
    /// ([`Replay::take_issue_times`]).
    given: bool,
    /// Closed loop, not in a batch, times not given, and the queue full:
    /// the next request takes the earliest completion's slot. One test per
    /// request instead of one each for the given times, the mode and the
    /// queue length (issue 30); kept by [`Replay::refresh_full`].
    full_closed: bool,
}

impl Replay {
    pub fn new(mode: TimingMode, queue_depth: u32) -> Self {
        assert!(queue_depth > 0, "validated: queue depth at least 1");
        Self {
            mode,
            queue_depth: queue_depth as usize,
            outstanding: Outstanding::with_capacity(queue_depth as usize),
            reuse_top: false,
            last_issue_at: 0,
            batch_queue_depth: None,
            given: false,
            full_closed: false,
        }
    }

    /// Sets `full_closed` after the queue, the queue depth or the mode's
    /// switches changed.
    fn refresh_full(&mut self) {
        self.full_closed = self.mode == TimingMode::Closed
            && !self.given
            && self.outstanding.len() >= self.queue_depth;
    }

    /// From now on a request enters at the arrival time given (never
    /// before the previous one): the source keeps its own clocks and
    /// bounds (the LSM engine's writer and background threads).
    pub fn take_issue_times(&mut self) {
        self.given = true;
        self.queue_depth = usize::MAX;
        self.refresh_full();
    }

    pub fn mode(&self) -> TimingMode {
        self.mode
    }

    pub fn reset(&mut self) {
        self.outstanding.clear();
        self.reuse_top = false;
        self.last_issue_at = 0;
        if let Some(depth) = self.batch_queue_depth.take() {
            self.queue_depth = depth;
        }
        self.refresh_full();
    }

    /// Closed loop: the requests until [`Replay::end_batch`] enter the
    /// device together, as the writeback of one file's pages does when its
    /// writer syncs it (no queue-depth limit among them). Open loop: no
    /// effect (the arrivals say when requests enter).
    pub fn begin_batch(&mut self) {
        if self.mode == TimingMode::Closed && self.batch_queue_depth.is_none() {
            // The batch enters when the next request would have: once a
            // slot is free.
            if self.outstanding.len() >= self.queue_depth {
                let free_at = self.outstanding.first().expect("full queue");
                self.last_issue_at = self.last_issue_at.max(free_at);
            }
            self.batch_queue_depth = Some(self.queue_depth);
            self.queue_depth = usize::MAX;
            self.refresh_full();
        }
    }

    /// Ends a batch: the caller has waited for every request in the device,
    /// so the next one enters once the last has completed.
    pub fn end_batch(&mut self) {
        let Some(depth) = self.batch_queue_depth.take() else {
            return;
        };
        self.queue_depth = depth;
        let drained = self.drained_at();
        self.outstanding.clear();
        self.outstanding.insert(drained);
        self.last_issue_at = drained;
        self.refresh_full();
    }

    /// When the next request enters the device. Closed loop: as soon as a
    /// slot is free (`arrival_at` is ignored). Open loop: at `arrival_at`, or
    /// later if the queue is full then; an arrival earlier than the previous
    /// issue (an unsorted trace) is issued at the previous issue time.
    #[inline(always)]
    pub fn issue_at(&mut self, arrival_at: u64) -> u64 {
        debug_assert!(!self.reuse_top, "issue_at called twice without complete");
        if self.full_closed {
            // What the closed loop below does when the queue is full.
            self.reuse_top = true;
            let issue = self.outstanding.first().expect("full queue");
            let issue = issue.max(self.last_issue_at);
            self.last_issue_at = issue;
            return issue;
        }
        if self.given {
            while self
                .outstanding
                .first()
                .is_some_and(|done| done <= arrival_at)
            {
                self.outstanding.pop_first();
            }
            debug_assert!(
                arrival_at >= self.last_issue_at,
                "given issue times never decrease"
            );
            self.last_issue_at = self.last_issue_at.max(arrival_at);
            return self.last_issue_at;
        }
        let issue = match self.mode {
            TimingMode::Closed => {
                if self.outstanding.len() < self.queue_depth {
                    self.last_issue_at
                } else {
                    self.reuse_top = true;
                    self.outstanding.first().expect("full queue")
                }
            }
            TimingMode::Open => {
                while self
                    .outstanding
                    .first()
                    .is_some_and(|done| done <= arrival_at)
                {
                    self.outstanding.pop_first();
                }
                if self.outstanding.len() < self.queue_depth {
                    arrival_at
                } else {
                    self.reuse_top = true;
                    self.outstanding.first().expect("full queue")
                }
            }
        };
        let issue = issue.max(self.last_issue_at);
        self.last_issue_at = issue;
        issue
    }

    /// Records the completion time of the request just issued.
    #[inline(always)]
    pub fn complete(&mut self, done_at: u64) {
        debug_assert!(done_at >= self.last_issue_at);
        if self.reuse_top {
            self.reuse_top = false;
            self.outstanding.replace_first(done_at);
        } else {
            self.outstanding.insert(done_at);
            self.refresh_full();
        }
        debug_assert!(self.outstanding.len() <= self.queue_depth);
    }

    /// When every issued request has completed.
    pub fn drained_at(&self) -> u64 {
        self.outstanding.last().unwrap_or(0).max(self.last_issue_at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_loop_keeps_queue_depth_outstanding() {
        let mut r = Replay::new(TimingMode::Closed, 2);
        // Two slots: both requests issue at 0.
        assert_eq!(r.issue_at(0), 0);
        r.complete(10);
        assert_eq!(r.issue_at(0), 0);
        r.complete(4);
        // Full: the next one takes the slot of the earliest completion.
        assert_eq!(r.issue_at(0), 4);
        r.complete(20);
        assert_eq!(r.issue_at(0), 10);
        r.complete(30);
        assert_eq!(r.drained_at(), 30);
    }

    #[test]
    fn a_batch_enters_together_and_the_next_request_waits_for_all_of_it() {
        let mut r = Replay::new(TimingMode::Closed, 1);
        assert_eq!(r.issue_at(0), 0);
        r.complete(10);
        r.begin_batch();
        // Three requests at once, past the queue depth of 1.
        for done in [30, 50, 20] {
            assert_eq!(r.issue_at(0), 10);
            r.complete(done);
        }
        r.end_batch();
        // The caller waited for the last of them (50), not the first (20).
        assert_eq!(r.issue_at(0), 50);
        r.complete(60);
        assert_eq!(r.issue_at(0), 60);
        r.complete(70);
        // Open loop: a batch changes nothing.
        let mut o = Replay::new(TimingMode::Open, 1);
        o.begin_batch();
        assert_eq!(o.issue_at(5), 5);
        o.complete(50);
        assert_eq!(o.issue_at(10), 50);
        o.complete(60);
        o.end_batch();
    }

    #[test]
    fn open_loop_waits_only_when_the_queue_is_full() {
        let mut r = Replay::new(TimingMode::Open, 1);
        assert_eq!(r.issue_at(5), 5);
        r.complete(50);
        // Arrives at 10 while the only slot is busy until 50.
        assert_eq!(r.issue_at(10), 50);
        r.complete(60);
        // Arrives after everything completed: issued on arrival.
        assert_eq!(r.issue_at(100), 100);
        r.complete(101);
        // Out of order arrival is not issued in the past.
        assert_eq!(r.issue_at(90), 101);
    }
}
