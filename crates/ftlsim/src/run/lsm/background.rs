//! The engine's background threads in simulated time (timing model on,
//! `lsm.background_threads` ≥ 1): the writer (the YCSB client, one thread,
//! each request issued when the one before it completed) and each
//! background thread (a job's requests one after another, a table's pages
//! together) are clocks of their own, and the feed always hands the loop
//! the request of whichever is earliest, so the timing model sees issue
//! times that never decrease and foreground requests queue behind
//! background ones on the same LUNs and channels.
//!
//! The writer does not wait for its log writes: LevelDB's default write
//! (`WriteOptions::sync = false`) returns once the record is in the
//! operating system's buffer, and the page goes to the device behind it;
//! here it is issued when the writer fills it, and competes for the flash
//! like any other, but the writer goes on. It waits for its reads. Its own
//! CPU time is not modelled.
//!
//! The writer makes room before each operation that writes as LevelDB's
//! `MakeRoomForWrite` does: at `lsm.l0_slowdown` level-0 files it is
//! delayed 1 ms, once per write; with the memtable full it waits while the
//! previous memtable is still being flushed, or while level 0 holds
//! `lsm.l0_stop` files, until a background job finishes; otherwise it
//! switches memtables and the flush starts. A flush goes to a free thread,
//! or over the merge that occupies the thread, as LevelDB's compaction loop
//! flushes the immutable memtable between two keys. Merges run one at a
//! time (LevelDB's picker assumes it); more threads let flushes run beside
//! one. Everything is decided from simulated time and the order of events,
//! ties going to the lowest thread and then the writer: same seed, same
//! bytes.
//!
//! A job installs (its outputs become visible, its inputs are deleted) when
//! its last request has completed and the writer is between requests (a
//! reader keeps the version it started with, as LevelDB's does); the trims
//! of an install run before anything else, so that no page freed by them
//! is written again first.
//!
//! One thing runs ahead of the device: RemapCom's remap moves an unchanged
//! block's pages to the output's LPNs while the merge's inputs are still
//! what readers see. A reader's request for such a block goes where the
//! device holds its pages at the time it is issued (the same flash pages).

use std::collections::HashMap;

use super::outbox::{Frame, Issued, Outbox, Route};
use super::KvFeed;
use crate::app::lsm::wal::CONTEXT_WAL;
use crate::app::lsm::Db;
use crate::error::SimError;
use crate::request::{Op, Request};
use crate::timing;
use crate::workload::ycsb::KvOp;

/// LevelDB's delay of a write at the slowdown trigger.
const SLOWDOWN_DELAY_NS: u64 = 1_000_000;

/// What the writer is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writer {
    /// Between operations: the next one is drawn at `writer_ns`.
    Idle,
    /// The drawn operation makes room for its write at `writer_ns`.
    Room,
    /// Delayed (level 0 at the slowdown trigger) until then.
    Delayed(u64),
    /// Waiting for a background job to finish.
    Waiting,
    /// Issuing the operation's requests.
    Busy,
}

/// One background thread's clock.
#[derive(Debug, Clone, Copy, Default)]
struct Thread {
    /// When its next request is issued.
    at_ns: u64,
    /// The latest completion of the batch being issued (all of a batch
    /// enters at `at_ns`; the thread goes on when all of it completed).
    batch_done_ns: Option<u64>,
}

/// Who holds the request lent to the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lent {
    /// The writer's, at this outbox slot; `waits`: it waits for the
    /// request to complete (not for a log write).
    Writer {
        at: usize,
        waits: bool,
    },
    /// The writer's, the rest of a read that a remap split.
    Rest,
    Thread(usize),
}

/// What the writer lends.
enum Lend {
    Slot(usize),
    Rest,
}

/// The scheduler of a run's measured window.
#[derive(Debug)]
pub(super) struct Background {
    threads: Vec<Thread>,
    writer: Writer,
    writer_ns: u64,
    writer_batch_done_ns: Option<u64>,
    /// The operation drawn and not yet applied (making room for it).
    pending: Option<KvOp>,
    allow_delay: bool,
    op_start_ns: u64,
    /// The latest event handled: issue times never go below it.
    now_ns: u64,
    /// The thread that must go next: it is issuing a batch, or an install's trims.
    forced: Option<usize>,
    /// Jobs may start once the forced thread's trims are done.
    schedule_after_trims: bool,
    flushing: bool,
    merging: bool,
    lent: Option<Lent>,
    /// Pages a remap issued to the device moved (source LPN → its new
    /// LPN) whose source was not trimmed yet: a merge input still read.
    moved: HashMap<u64, u64>,
    /// The rest of a writer's read whose pages a remap moved apart (issued
    /// after its first part), and the part lent now.
    rest: Option<Request>,
    rest_lent: Request,
    /// Simulated time writes waited (slowdowns, full memtable, level-0 stop).
    pub stall_ns: u64,
    /// When the last operation completed.
    pub writer_done_ns: u64,
}

impl Background {
    /// `threads` background threads at time 0, `outbox` given their queues.
    pub(super) fn new(threads: u32, outbox: &mut Outbox) -> Self {
        outbox.lanes = (0..threads).map(|_| Vec::new()).collect();
        outbox.route = Route::Foreground;
        Self {
            threads: vec![Thread::default(); threads as usize],
            writer: Writer::Idle,
            writer_ns: 0,
            writer_batch_done_ns: None,
            pending: None,
            allow_delay: true,
            op_start_ns: 0,
            now_ns: 0,
            forced: None,
            schedule_after_trims: false,
            flushing: false,
            merging: false,
            lent: None,
            moved: HashMap::new(),
            rest: None,
            rest_lent: Request::default(),
            stall_ns: 0,
            writer_done_ns: 0,
        }
    }

    /// Who issued the request lent last, for error messages.
    pub(super) fn lent_by(&self) -> &'static str {
        match self.lent {
            Some(Lent::Thread(_)) => " (a background job's)",
            _ => " (the writer's)",
        }
    }

    /// Whether the writer is between operations (the loop may sample).
    pub(super) fn between_units(&self) -> bool {
        self.writer != Writer::Busy
    }

    /// The earliest thread with something to do now: a request or a marker
    /// of its running job, or the install of a finished one (not while the
    /// writer is inside an operation).
    fn earliest_thread(&self, outbox: &Outbox) -> Option<(usize, u64)> {
        let busy = self.writer == Writer::Busy;
        (0..self.threads.len())
            .filter(|&l| {
                outbox.lanes[l]
                    .last()
                    .is_some_and(|f| !f.items.is_empty() || !busy)
            })
            .map(|l| (l, self.threads[l].at_ns.max(self.now_ns)))
            .min_by_key(|&(l, at)| (at, l))
    }

    /// Starts what the engine needs and a thread is free for: the flush of
    /// the immutable memtable, then a compaction.
    fn schedule(&mut self, db: &mut Db<Outbox>) -> Result<(), SimError> {
        if self.forced.is_some() {
            self.schedule_after_trims = true;
            return Ok(());
        }
        let now = self.now_ns;
        let idle = |db: &Db<Outbox>| {
            let outbox = db.files().device();
            (0..outbox.lanes.len()).find(|&l| outbox.lanes[l].is_empty())
        };
        if db.has_imm() && !self.flushing {
            // A free thread, else over the merge (at most one runs).
            let lane = idle(db).unwrap_or(0);
            self.start(db, lane, now, true)?;
        }
        if !self.merging {
            if let Some(lane) = idle(db) {
                self.start(db, lane, now, false)?;
            }
        }
        Ok(())
    }

    /// Starts a flush or a compaction on thread `lane` at `now`.
    fn start(
        &mut self,
        db: &mut Db<Outbox>,
        lane: usize,
        now: u64,
        flush: bool,
    ) -> Result<(), SimError> {
        let outbox = db.files_mut().device_mut();
        if outbox.lanes[lane].is_empty() {
            self.threads[lane].at_ns = self.threads[lane].at_ns.max(now);
        }
        outbox.lanes[lane].push(Frame::default());
        outbox.route = Route::Background(lane);
        let job = if flush {
            db.start_flush().map(Some)
        } else {
            db.start_compaction()
        };
        let outbox = db.files_mut().device_mut();
        outbox.route = Route::Foreground;
        match job? {
            Some(job) => {
                self.flushing |= job.is_flush();
                self.merging |= !job.is_flush();
                outbox.lanes[lane].last_mut().expect("pushed").job = Some(job);
            }
            None => {
                // Nothing to merge (trivial moves issue nothing).
                let frame = outbox.lanes[lane].pop().expect("pushed");
                debug_assert!(frame.items.is_empty());
            }
        }
        Ok(())
    }

    /// Drops the finished requests-only frames of `lane` and says which
    /// thread must go next.
    fn settle(&mut self, outbox: &mut Outbox, lane: usize) {
        while outbox.lanes[lane]
            .last()
            .is_some_and(|f| f.job.is_none() && f.items.is_empty())
        {
            outbox.lanes[lane].pop();
        }
        let trims = outbox.lanes[lane].last().is_some_and(|f| f.job.is_none());
        let forced = self.threads[lane].batch_done_ns.is_some() || trims;
        self.forced = forced.then_some(lane);
    }

    /// Notes what a request moves as it is issued: a remap moves its
    /// source pages; a trim, a write or a remap onto a page ends what was
    /// noted of it (a deleted file's page, or one taken by a new file: with
    /// `lsm.trim = false` only the write says so).
    fn track_moves(&mut self, req: &Request) {
        if req.op == Op::Remap {
            for i in 0..u64::from(req.pages) {
                self.moved.remove(&(req.lpn + i));
                self.moved.insert(req.src_lpn + i, req.lpn + i);
            }
        } else if matches!(req.op, Op::Trim | Op::Write) && !self.moved.is_empty() {
            for i in 0..u64::from(req.pages) {
                self.moved.remove(&(req.lpn + i));
            }
        }
    }

    /// Sends a writer's read of pages a remap moved to where they are now:
    /// `req` becomes its first part whose pages are still contiguous there,
    /// and the rest, if any, is returned (to be read next).
    fn redirect(&self, req: &mut Request) -> Option<Request> {
        if req.op != Op::Read || self.moved.is_empty() {
            return None;
        }
        let now_at = |lpn: u64| self.moved.get(&lpn).copied().unwrap_or(lpn);
        let first = now_at(req.lpn);
        let run = (1..req.pages)
            .take_while(|&i| now_at(req.lpn + u64::from(i)) == first + u64::from(i))
            .count() as u32
            + 1;
        let rest = (run < req.pages).then(|| {
            let mut rest = req.clone();
            rest.lpn += u64::from(run);
            rest.pages -= run;
            rest
        });
        req.lpn = first;
        req.pages = run;
        rest
    }

    /// Makes room for a write at `writer_ns`: `true` when the write may go.
    fn make_room(&mut self, db: &mut Db<Outbox>) -> Result<bool, SimError> {
        let config = db.config();
        let (slowdown, stop) = (config.l0_slowdown as usize, config.l0_stop as usize);
        let in_flight = self.flushing || self.merging;
        if self.allow_delay && db.l0_files() >= slowdown {
            self.allow_delay = false;
            self.writer = Writer::Delayed(self.writer_ns + SLOWDOWN_DELAY_NS);
            return Ok(false);
        }
        if !db.memtable_full() {
            return Ok(true);
        }
        // (LevelDB would wait for ever at the stop trigger with nothing
        // to compact, as with lsm.l0_trigger above lsm.l0_stop: here the
        // write goes on.)
        if db.has_imm() || (db.l0_files() >= stop && in_flight) {
            self.writer = Writer::Waiting;
            return Ok(false);
        }
        db.switch_memtable()?;
        self.schedule(db)?;
        Ok(true)
    }
}

impl KvFeed<'_> {
    /// The next request with background threads (the feed's `next`).
    pub(super) fn next_background(&mut self) -> Result<Option<&Request>, SimError> {
        for _ in 0..u64::MAX {
            let s = &mut *self.source;
            let bg = s.bg.as_mut().expect("background threads");
            let db = &mut s.db;
            bg.lent = None;
            if bg.schedule_after_trims && bg.forced.is_none() {
                bg.schedule_after_trims = false;
                bg.schedule(db)?;
            }
            let thread = match bg.forced {
                Some(l) => Some((l, bg.threads[l].at_ns.max(bg.now_ns))),
                None => bg.earliest_thread(db.files().device()),
            };
            let writer_at = match bg.writer {
                Writer::Idle => (self.remaining > 0).then_some(bg.writer_ns),
                Writer::Room | Writer::Busy => Some(bg.writer_ns),
                Writer::Delayed(until) => Some(until),
                Writer::Waiting => None,
            };
            let writer_at = writer_at.filter(|_| bg.forced.is_none());
            let thread = thread.filter(|&(_, at)| writer_at.is_none_or(|w| at <= w));
            match (thread, writer_at) {
                (Some((l, at)), _) => {
                    bg.now_ns = at;
                    bg.threads[l].at_ns = at;
                    if self.thread_step(l)? {
                        let outbox = self.source.db.files().device();
                        let frame = outbox.lanes[l].last().expect("a frame");
                        return Ok(Some(&frame.items.front().expect("an item").1));
                    }
                }
                (_, Some(at)) => {
                    bg.now_ns = at;
                    match self.writer_step()? {
                        Some(Lend::Slot(at)) => {
                            return Ok(Some(self.source.db.files().device().slot(at)));
                        }
                        Some(Lend::Rest) => {
                            let bg = self.source.bg.as_ref().expect("background threads");
                            return Ok(Some(&bg.rest_lent));
                        }
                        None => {}
                    }
                }
                (None, None) => {
                    debug_assert!(
                        bg.writer == Writer::Idle,
                        "a waiting writer has a job to wait for"
                    );
                    return Ok(None);
                }
            }
        }
        unreachable!("the scheduler's loop returns")
    }

    /// One step of thread `l` at its time: `true` when it lends its next
    /// request (the front item of its top frame).
    fn thread_step(&mut self, l: usize) -> Result<bool, SimError> {
        let s = &mut *self.source;
        let bg = s.bg.as_mut().expect("background threads");
        let at = bg.threads[l].at_ns;
        let outbox = s.db.files_mut().device_mut();
        let frame = outbox.lanes[l].last_mut().expect("a thread with work");
        match frame.items.front_mut() {
            Some((Issued::Request, req)) => {
                req.arrival_ns = Some(at);
                bg.track_moves(req);
                bg.lent = Some(Lent::Thread(l));
                return Ok(true);
            }
            Some((Issued::BeginBatch, _)) => {
                frame.items.pop_front();
                bg.threads[l].batch_done_ns = Some(at);
            }
            Some((Issued::EndBatch, _)) => {
                frame.items.pop_front();
                let done = bg.threads[l].batch_done_ns.take().expect("a batch began");
                bg.threads[l].at_ns = done;
            }
            None => {
                // The job's last request completed: install it.
                let frame = outbox.lanes[l].pop().expect("a frame");
                let job = frame
                    .job
                    .expect("requests-only frames are dropped when done");
                if job.is_flush() {
                    bg.flushing = false;
                } else {
                    bg.merging = false;
                }
                outbox.lanes[l].push(Frame::default());
                outbox.route = Route::Background(l);
                let installed = s.db.install(job, bg.merging);
                s.db.files_mut().device_mut().route = Route::Foreground;
                installed?;
                // LevelDB wakes a waiting writer when any background work finishes.
                if bg.writer == Writer::Waiting {
                    bg.stall_ns += at.saturating_sub(bg.writer_ns);
                    bg.writer_ns = bg.writer_ns.max(at);
                    bg.writer = Writer::Room;
                }
                bg.schedule_after_trims = true;
            }
        }
        bg.settle(s.db.files_mut().device_mut(), l);
        Ok(false)
    }

    /// One step of the writer at its time: the outbox slot of the request it
    /// lends, if it lends one.
    fn writer_step(&mut self) -> Result<Option<Lend>, SimError> {
        let s = &mut *self.source;
        let bg = s.bg.as_mut().expect("background threads");
        match bg.writer {
            Writer::Idle => {
                self.remaining -= 1;
                let op = match &mut self.loader {
                    Some(loader) => loader.next_op(),
                    None => s.ycsb.next_op(),
                };
                bg.pending = Some(op);
                bg.op_start_ns = bg.writer_ns;
                bg.allow_delay = true;
                bg.writer = Writer::Room;
            }
            Writer::Delayed(until) => {
                bg.stall_ns += until - bg.writer_ns;
                bg.writer_ns = until;
                bg.writer = Writer::Room;
            }
            Writer::Waiting => unreachable!("a waiting writer has no time"),
            Writer::Room => {
                let op = bg.pending.expect("an operation makes room");
                let writes = !matches!(op, KvOp::Read(_) | KvOp::Scan(..));
                if writes && !bg.make_room(&mut s.db)? {
                    return Ok(None);
                }
                bg.pending = None;
                s.apply(op)?;
                self.done += 1;
                if s.stats_at_start.is_some() {
                    s.measured_ops += 1;
                }
                let bg = s.bg.as_mut().expect("background threads");
                bg.writer = Writer::Busy;
                // A get may have used up a table's seeks.
                bg.schedule(&mut s.db)?;
            }
            Writer::Busy => {
                if let Some(mut rest) = bg.rest.take() {
                    bg.rest = bg.redirect(&mut rest);
                    rest.arrival_ns = Some(bg.writer_ns);
                    bg.rest_lent = rest;
                    bg.lent = Some(Lent::Rest);
                    return Ok(Some(Lend::Rest));
                }
                let outbox = s.db.files_mut().device_mut();
                while let Some((issued, at)) = outbox.take() {
                    match issued {
                        Issued::Request => {
                            let req = outbox.slot_mut(at);
                            req.arrival_ns = Some(bg.writer_ns);
                            bg.track_moves(req);
                            bg.rest = bg.redirect(req);
                            let waits = !(req.op == Op::Write && req.context == CONTEXT_WAL);
                            bg.lent = Some(Lent::Writer { at, waits });
                            return Ok(Some(Lend::Slot(at)));
                        }
                        Issued::BeginBatch => bg.writer_batch_done_ns = Some(bg.writer_ns),
                        Issued::EndBatch => {
                            bg.writer_ns = bg.writer_batch_done_ns.take().expect("a batch began");
                        }
                    }
                }
                // The operation's last request completed.
                if s.stats_at_start.is_some() {
                    s.latencies_ns.push(bg.writer_ns - bg.op_start_ns);
                }
                bg.writer_done_ns = bg.writer_ns;
                bg.writer = Writer::Idle;
            }
        }
        Ok(None)
    }

    /// The request lent last completed at `timed` (the feed's `completed`).
    pub(super) fn completed_background(
        &mut self,
        timed: Option<timing::Completion>,
    ) -> Result<(), SimError> {
        let s = &mut *self.source;
        let bg = s.bg.as_mut().expect("background threads");
        let done = timed
            .expect("background threads run with the timing model")
            .done_at;
        match bg.lent.take().expect("a completion follows a lent request") {
            Lent::Writer { waits: false, .. } => {}
            Lent::Writer { .. } | Lent::Rest => match &mut bg.writer_batch_done_ns {
                Some(batch) => *batch = (*batch).max(done),
                None => bg.writer_ns = done,
            },
            Lent::Thread(l) => {
                let thread = &mut bg.threads[l];
                match &mut thread.batch_done_ns {
                    Some(batch) => *batch = (*batch).max(done),
                    None => thread.at_ns = done,
                }
                let outbox = s.db.files_mut().device_mut();
                let frame = outbox.lanes[l].last_mut().expect("a frame");
                frame.items.pop_front();
                bg.settle(outbox, l);
            }
        }
        Ok(())
    }

    /// The request lent last, for the completion's checks.
    pub(super) fn lent_background(&self) -> &Request {
        let s = &*self.source;
        let bg = s.bg.as_ref().expect("background threads");
        let outbox = s.db.files().device();
        match bg.lent.expect("a completion follows a lent request") {
            Lent::Writer { at, .. } => outbox.slot(at),
            Lent::Rest => &bg.rest_lent,
            Lent::Thread(l) => {
                let frame = outbox.lanes[l].last().expect("a frame");
                &frame.items.front().expect("an item").1
            }
        }
    }
}
