//! How the request loop times its requests: not at all, with the timer on
//! the loop's own thread, or with the timer on a thread of its own that
//! trails the device (a pipeline).
//!
//! The pipeline is possible because the device never waits for the timing
//! model: the FTL's work for a request (its flash operations, GC included)
//! does not depend on when the request is issued, so the device can run
//! ahead and hand each request's operations to the timer later. (Background
//! GC is the exception, since it runs in the idle time the timer finds; a
//! timer with it is never detached.) The timer sees the same requests with
//! the same operations in the same order, so the results are the same bytes
//! either way; only the wall clock changes, when a second core is free.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};

use crate::error::{ConfigError, SimError};
use crate::flash::Ppn;
use crate::ftl::{FlashOp, PlainWrite, Ssd};
use crate::request::{Op, Request};
use crate::timing::{self, Ticket, Timer};

use super::target::Target;

/// The loop's view of the timing model.
pub(super) trait Clock {
    type Ticket;
    /// Before the device carries `req` out.
    fn begin<D: Target>(&mut self, dev: &mut D, req: &Request) -> Result<Self::Ticket, SimError>;
    /// After it: `failed` when the device returned an error. When the
    /// request was timed here, when it arrived and completed (a pipeline
    /// times it later, on its own thread: `None`).
    fn finish<D: Target>(
        &mut self,
        dev: &mut D,
        ticket: Self::Ticket,
        failed: bool,
    ) -> Result<Option<timing::Completion>, SimError>;
    /// The requests until [`Clock::end_batch`] enter the device together
    /// (one file's pages from the LSM engine: `Timer::begin_batch`).
    #[inline(always)]
    fn begin_batch(&mut self) {}
    #[inline(always)]
    fn end_batch(&mut self) {}
}

/// No timing model.
pub(super) struct Untimed;

impl Clock for Untimed {
    type Ticket = ();

    #[inline(always)]
    fn begin<D: Target>(&mut self, _dev: &mut D, _req: &Request) -> Result<(), SimError> {
        Ok(())
    }

    #[inline(always)]
    fn finish<D: Target>(
        &mut self,
        _dev: &mut D,
        _ticket: (),
        _failed: bool,
    ) -> Result<Option<timing::Completion>, SimError> {
        Ok(None)
    }
}

/// The timer on the loop's thread.
pub(super) struct Inline<'t>(pub &'t mut Timer);

impl Clock for Inline<'_> {
    type Ticket = Ticket;

    #[inline(always)]
    fn begin<D: Target>(&mut self, dev: &mut D, req: &Request) -> Result<Ticket, SimError> {
        self.0
            .begin(dev.ssd_mut(), req.op, req.pages, req.arrival_ns)
    }

    #[inline(always)]
    fn finish<D: Target>(
        &mut self,
        dev: &mut D,
        ticket: Ticket,
        failed: bool,
    ) -> Result<Option<timing::Completion>, SimError> {
        Ok(Some(self.0.finish(dev.ssd_mut(), ticket, failed)))
    }

    fn begin_batch(&mut self) {
        self.0.begin_batch();
    }

    fn end_batch(&mut self) {
        self.0.end_batch();
    }
}

/// How the plain loop (`drive_plain_writes`) times its single-page
/// writes: those of one call of the device at once, after it carried them
/// out. (Its work does not depend on time: only with a timer that is
/// [`Timer::detachable`].)
pub(super) trait PlainClock {
    /// The most writes the next call may take.
    #[inline(always)]
    fn room(&self) -> u64 {
        u64::MAX
    }

    /// The device carried out `writes` (`Ssd::write_plain_pages`), and
    /// then, if `failed`, one more write that failed.
    fn time_writes(
        &mut self,
        ssd: &mut Ssd,
        writes: &[PlainWrite],
        failed: bool,
    ) -> Result<(), SimError>;
}

impl PlainClock for Untimed {
    #[inline(always)]
    fn time_writes(&mut self, _: &mut Ssd, _: &[PlainWrite], _: bool) -> Result<(), SimError> {
        Ok(())
    }
}

/// Times `writes` single-page writes, each the program of the next page
/// from `first` (`PlainWrite::Run`), as `Timer::begin` and `Timer::finish`
/// time such a write.
#[inline(always)]
fn time_run(timer: &mut Timer, first: Ppn, writes: u32) -> Result<(), SimError> {
    for k in 0..writes {
        let ticket = timer.begin_detached(Op::Write, 1, None)?;
        timer.finish_with(ticket, &[PlainWrite::program(first, k)], false);
    }
    Ok(())
}

impl PlainClock for Inline<'_> {
    /// Each write as `begin` and `finish` time it one at a time.
    fn time_writes(
        &mut self,
        ssd: &mut Ssd,
        writes: &[PlainWrite],
        failed: bool,
    ) -> Result<(), SimError> {
        let timer = &mut *self.0;
        let ops = ssd.logged();
        let mut start = 0usize;
        for write in writes {
            match *write {
                PlainWrite::Logged { ops_end } => {
                    let ticket = timer.begin_detached(Op::Write, 1, None)?;
                    timer.finish_with(ticket, &ops[start..ops_end as usize], false);
                    start = ops_end as usize;
                }
                PlainWrite::Run { first, writes } => time_run(timer, first, writes)?,
            }
        }
        if failed {
            let ticket = timer.begin_detached(Op::Write, 1, None)?;
            timer.finish_with(ticket, &[], true);
        }
        ssd.clear_ops();
        Ok(())
    }
}

impl PlainClock for Pipeline {
    /// A batch takes the device's whole log when it is sent, so a call's
    /// writes end where the batch is full at the latest.
    #[inline(always)]
    fn room(&self) -> u64 {
        (BATCH_REQUESTS - self.batch.count) as u64
    }

    /// Each logged write as `finish` hands it on, a run whole.
    fn time_writes(
        &mut self,
        ssd: &mut Ssd,
        writes: &[PlainWrite],
        failed: bool,
    ) -> Result<(), SimError> {
        let write = |ops_end, failed| Timed::Request {
            op: Op::Write,
            pages: 1,
            arrival_ns: None,
            ops_end,
            failed,
        };
        let batch = &mut self.batch;
        for w in writes {
            match *w {
                PlainWrite::Logged { ops_end } => {
                    batch.requests.push(write(ops_end, false));
                    batch.count += 1;
                }
                PlainWrite::Run { first, writes } => {
                    batch.requests.push(Timed::Run { first, writes });
                    batch.count += writes as usize;
                }
            }
        }
        if failed {
            batch.requests.push(write(ssd.logged_ops_end(), true));
            batch.count += 1;
        }
        if batch.count >= BATCH_REQUESTS {
            self.send(ssd)?;
        }
        Ok(())
    }
}

/// Requests handed to the timer's thread at a time: enough that the hand-off
/// costs little per request, few enough that a batch's operations stay in
/// the caches between the two threads.
const BATCH_REQUESTS: usize = 2048;

/// Batches in flight between the threads (besides the one each holds).
const BATCHES_IN_FLIGHT: usize = 2;

/// What the timer needs of one request, or of a run of a plain loop's
/// writes.
#[derive(Debug, Clone, Copy)]
enum Timed {
    Request {
        op: Op,
        pages: u32,
        arrival_ns: Option<u64>,
        /// Where its operations end in the batch's operations (they start
        /// where the previous request's end).
        ops_end: u32,
        failed: bool,
    },
    /// Single-page writes, each the program of the next page from `first`
    /// (`PlainWrite::Run`): none of their operations is in the batch's.
    Run { first: Ppn, writes: u32 },
}

/// Requests carried out by the device, in order, with their flash
/// operations end to end. The timer's thread samples the LUN queue lengths
/// itself (`timing/queues.rs`), so a batch comes back only to be reused.
#[derive(Debug, Default)]
struct Batch {
    requests: Vec<Timed>,
    ops: Vec<FlashOp>,
    /// Requests in `requests`, a run counting each of its writes.
    count: usize,
}

/// The device's side of the pipeline: collects each request's operations
/// (the device logs them end to end; a batch takes the whole log) and sends
/// full batches to the timer's thread.
pub(super) struct Pipeline {
    batch: Batch,
    to_timer: Option<SyncSender<Batch>>,
    /// Batches the timer is done with, every one kept to be filled again:
    /// one dropped is replaced by a new batch whose vectors (the device's
    /// op log among them) grow from empty again.
    spent: Receiver<Batch>,
    spare: Vec<Batch>,
}

/// The pending request between `begin` and `finish`.
pub(super) struct Pending {
    op: Op,
    pages: u32,
    arrival_ns: Option<u64>,
}

impl Clock for Pipeline {
    type Ticket = Pending;

    #[inline(always)]
    fn begin<D: Target>(&mut self, _dev: &mut D, req: &Request) -> Result<Pending, SimError> {
        Ok(Pending {
            op: req.op,
            pages: req.pages,
            arrival_ns: req.arrival_ns,
        })
    }

    #[inline(always)]
    fn finish<D: Target>(
        &mut self,
        dev: &mut D,
        ticket: Pending,
        failed: bool,
    ) -> Result<Option<timing::Completion>, SimError> {
        self.batch.requests.push(Timed::Request {
            op: ticket.op,
            pages: ticket.pages,
            arrival_ns: ticket.arrival_ns,
            ops_end: dev.ssd().logged_ops_end(),
            failed,
        });
        self.batch.count += 1;
        if self.batch.count >= BATCH_REQUESTS {
            self.send(dev)?;
        }
        Ok(None)
    }

    // A source that batches its requests needs their completion times as
    // they run, so it never gets a pipeline (`Feed::CLOSED_LOOP`).
    fn begin_batch(&mut self) {
        debug_assert!(false, "a batch in a pipelined run");
    }

    fn end_batch(&mut self) {
        debug_assert!(false, "a batch in a pipelined run");
    }
}

impl Pipeline {
    /// Sends the batch (with the device's logged operations) to the timer.
    /// An error means the timer's thread stopped: its own error says why.
    fn send<D: Target>(&mut self, dev: &mut D) -> Result<(), SimError> {
        // The batch's operations are the device's log; the device logs on
        // into the (cleared) vector the batch held, a spent batch's.
        dev.ssd_mut().take_ops(&mut self.batch.ops);
        while let Ok(spent) = self.spent.try_recv() {
            self.spare.push(spent);
        }
        let mut next = self.spare.pop().unwrap_or_default();
        next.requests.clear();
        next.count = 0;
        let full = std::mem::replace(&mut self.batch, next);
        let sent = self
            .to_timer
            .as_ref()
            .expect("sends only while open")
            .send(full);
        sent.map_err(|_| SimError::Interrupted)
    }

    /// Sends what is left and closes the pipe.
    fn close<D: Target>(&mut self, dev: &mut D) {
        if !self.batch.requests.is_empty() {
            // A failed send means the timer stopped with an error of its own.
            let _ = self.send(dev);
        }
        self.to_timer = None;
    }
}

/// The timer's thread: times each batch's requests in order until the pipe
/// closes; the first error stops it (the device's side then stops at its
/// next send).
fn time_batches(
    timer: &mut Timer,
    batches: Receiver<Batch>,
    spent: Sender<Batch>,
) -> Result<(), SimError> {
    for batch in batches {
        let mut start = 0usize;
        for timed in &batch.requests {
            match *timed {
                Timed::Request {
                    op,
                    pages,
                    arrival_ns,
                    ops_end,
                    failed,
                } => {
                    let end = ops_end as usize;
                    let ticket = timer.begin_detached(op, pages, arrival_ns)?;
                    timer.finish_with(ticket, &batch.ops[start..end], failed);
                    start = end;
                }
                Timed::Run { first, writes } => time_run(timer, first, writes)?,
            }
        }
        // Nobody waiting for it any more is fine: the run is ending.
        let _ = spent.send(batch);
    }
    Ok(())
}

/// Runs `drive` (the request loop, given the device's side of a pipeline)
/// with `timer` on a thread of its own. The device must log its operations
/// for the timer (`Timer::attach`) and be empty of logged operations.
/// Returns the loop's result, or the timer's error if it stopped first.
pub(super) fn pipelined<D: Target, T>(
    dev: &mut D,
    timer: &mut Timer,
    drive: impl FnOnce(&mut D, &mut Pipeline) -> Result<T, SimError>,
) -> Result<T, SimError> {
    debug_assert!(timer.detachable());
    debug_assert_eq!(dev.ssd().logged_ops(), 0);
    let (to_timer, batches) = sync_channel(BATCHES_IN_FLIGHT);
    // Unbounded, but never holds more than the batches in flight.
    let (spent_tx, spent) = channel();
    let (driven, timed) = std::thread::scope(|scope| {
        let worker = scope.spawn(|| time_batches(timer, batches, spent_tx));
        let mut pipe = Pipeline {
            batch: Batch::default(),
            to_timer: Some(to_timer),
            spent,
            spare: Vec::new(),
        };
        let driven = drive(dev, &mut pipe);
        pipe.close(dev);
        let timed = match worker.join() {
            Ok(timed) => timed,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        (driven, timed)
    });
    // The timer's error comes first: it stopped the loop (or the loop
    // stopped at a later request).
    timed?;
    driven
}

/// Whether runs may put the timer on a thread of its own: a second core is
/// there, and `FTLSIM_PIPELINE` is not `0` (the results are the same either
/// way; `0` keeps a run on one core, as a sweep that fills every core may
/// want). Unset or empty means `1`; any other value is an error.
pub fn pipeline_allowed() -> Result<bool, ConfigError> {
    let wanted = match std::env::var_os("FTLSIM_PIPELINE") {
        None => true,
        Some(v) if v.is_empty() || v == "1" => true,
        Some(v) if v == "0" => false,
        Some(v) => {
            return Err(ConfigError::new(
                "FTLSIM_PIPELINE",
                format!(
                    "the environment variable must be 0 (one thread) or 1 (the default), not {:?}",
                    v.to_string_lossy()
                ),
            ))
        }
    };
    Ok(wanted && std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2))
}
