//! A YCSB run (`workload.type = "ycsb"`): key-value operations through the
//! LSM engine (`app::lsm`) and its file layer. The engine is a source like
//! a trace: each operation's block requests (the WAL append, a flush, a
//! compaction's reads, writes, remaps and trims) are queued by the device
//! the engine sits on ([`Outbox`]) and taken by the run's one request loop
//! ([`KvFeed`]), which submits them to the device and times them like any
//! other source's. The feed counts operations, closes an operation's
//! latency when its last request completes, and lets the loop sample only
//! between operations. With the timing model and background threads
//! (`lsm.background_threads`), flushes and compactions run beside the
//! operations in simulated time, with LevelDB's write stalls
//! ([`background`]).

mod background;
mod outbox;
mod report;

pub use outbox::Outbox;
pub use report::{LsmLevelReport, LsmReport};

use super::clock::Clock;
use super::feed::Feed;
use super::target::Target;
use crate::app::lsm::{Db, Files, LsmStats, Value};
use crate::config::{LsmConfig, WorkloadConfig};
use crate::error::SimError;
use crate::hash::splitmix64;
use crate::request::{Completion, Op, Request};
use crate::timing;
use crate::workload::ycsb::{key_of, KvOp, Ycsb, YcsbDistribution, YcsbWorkload};
use background::Background;
use outbox::Issued;

/// The engine and the operations of one YCSB run.
pub struct LsmSource {
    db: Db<Outbox>,
    workload: YcsbWorkload,
    ycsb: Ycsb,
    key_bytes: u32,
    value_bytes: u32,
    key: Vec<u8>,
    /// Operations issued so far (each value's checksum is drawn from it).
    ops: u64,
    /// The engine's counters when the measured window began.
    stats_at_start: Option<LsmStats>,
    measured_ops: u64,
    /// Simulated latency of each measured operation (timed runs).
    latencies_ns: Vec<u64>,
    /// The outbox slot of the request the loop holds, lent by the last
    /// `KvFeed::next`.
    lent: Option<usize>,
    /// Earliest arrival and latest completion of the requests of the
    /// operation under way (timed only; `u64::MAX` until one completes).
    op_first_ns: u64,
    op_last_ns: u64,
    /// Background threads in timed windows (`lsm.background_threads`; 0:
    /// inline compaction), and their scheduler while one runs.
    threads: u32,
    bg: Option<Background>,
}

impl LsmSource {
    /// The engine of `lsm` running the workload's YCSB operations over a
    /// device of `logical_pages` pages of `page_bytes`, with `threads`
    /// background threads when its window is timed (0: inline compaction).
    pub fn new(
        lsm: &LsmConfig,
        workload: &WorkloadConfig,
        page_bytes: u32,
        logical_pages: u64,
        threads: u32,
    ) -> Result<Self, SimError> {
        let files = Files::new(Outbox::new(logical_pages), page_bytes);
        let db = Db::new(lsm, files)?;
        let w = workload;
        let distribution = w.ycsb_distribution.unwrap_or(w.ycsb.default_distribution());
        Ok(Self {
            db,
            workload: w.ycsb,
            ycsb: Ycsb::new(w.ycsb, distribution, w.records, w.seed),
            key_bytes: w.key_bytes,
            value_bytes: w.value_bytes,
            key: Vec::new(),
            ops: 0,
            stats_at_start: None,
            measured_ops: 0,
            latencies_ns: Vec::new(),
            lent: None,
            op_first_ns: u64::MAX,
            op_last_ns: 0,
            threads,
            bg: None,
        })
    }

    /// Starts the measured window: the engine's counters from here on.
    pub fn start_measuring(&mut self) {
        self.stats_at_start = Some(self.db.stats());
        self.measured_ops = 0;
        self.latencies_ns.clear();
    }

    /// Runs flushes and compactions on the background threads from here
    /// on (the measured window of a timed run), when there are any.
    pub fn start_background(&mut self) {
        if self.threads > 0 {
            let outbox = self.db.files_mut().device_mut();
            self.bg = Some(Background::new(self.threads, outbox));
            self.db.set_background(true);
        }
    }

    /// Background threads of the timed window (0: inline compaction).
    pub fn background_threads(&self) -> u32 {
        self.threads
    }

    /// The engine's and the file layer's invariants.
    pub fn check_invariants(&self) -> Result<(), SimError> {
        self.db.check_invariants().map_err(SimError::Invariant)
    }

    /// The feed of one phase: `count` operations, the load's inserts
    /// (`load`) or the workload's.
    pub fn feed(&mut self, load: bool, count: u64) -> KvFeed<'_> {
        KvFeed {
            loader: load.then(|| Ycsb::new(YcsbWorkload::Load, YcsbDistribution::Uniform, 0, 0)),
            source: self,
            remaining: count,
            done: 0,
        }
    }

    fn value(&mut self) -> Value {
        self.ops += 1;
        Value {
            len_bytes: self.value_bytes,
            checksum: splitmix64(self.ops),
        }
    }

    fn apply(&mut self, op: KvOp) -> Result<(), SimError> {
        let record = match op {
            KvOp::Insert(r)
            | KvOp::Read(r)
            | KvOp::Update(r)
            | KvOp::ReadModifyWrite(r)
            | KvOp::Scan(r, _) => r,
        };
        let mut key = std::mem::take(&mut self.key);
        key_of(record, self.key_bytes, &mut key);
        let result = match op {
            KvOp::Insert(_) | KvOp::Update(_) => {
                let v = self.value();
                self.db.put(&key, v)
            }
            KvOp::Read(_) => self.db.get(&key).map(|_| ()),
            KvOp::ReadModifyWrite(_) => self.db.get(&key).and_then(|_| {
                let v = self.value();
                self.db.put(&key, v)
            }),
            KvOp::Scan(_, len) => self.db.scan(&key, len).map(|_| ()),
        };
        self.key = key;
        result
    }

    fn outbox(&self) -> &Outbox {
        self.db.files().device()
    }

    /// The outbox slot of the next queued request; the batch edges before
    /// it go to `clock` on the way, in order.
    fn take_request<C: Clock>(&mut self, clock: &mut C) -> Option<usize> {
        let outbox = self.db.files_mut().device_mut();
        while let Some((issued, at)) = outbox.take() {
            match issued {
                Issued::Request => return Some(at),
                Issued::BeginBatch => clock.begin_batch(),
                Issued::EndBatch => clock.end_batch(),
            }
        }
        None
    }

    /// The operation under way, if any, has run its last request: its
    /// latency is recorded once (an operation with no timed request has
    /// none).
    fn close_op(&mut self) {
        if self.stats_at_start.is_some() && self.op_first_ns != u64::MAX {
            self.latencies_ns.push(self.op_last_ns - self.op_first_ns);
        }
        (self.op_first_ns, self.op_last_ns) = (u64::MAX, 0);
    }
}

/// One phase's operations as requests for the loop.
pub struct KvFeed<'a> {
    source: &'a mut LsmSource,
    /// The load's own insert order, restarted in each phase that loads.
    loader: Option<Ycsb>,
    remaining: u64,
    /// Operations issued in this phase.
    done: u64,
}

impl Feed for KvFeed<'_> {
    // An operation's latency needs its requests' completion times.
    const CLOSED_LOOP: bool = true;

    fn next<D: Target, C: Clock>(
        &mut self,
        _dev: &D,
        clock: &mut C,
        _max_pages: u64,
    ) -> Result<Option<&Request>, SimError> {
        if self.source.bg.is_some() {
            return self.next_background();
        }
        let s = &mut *self.source;
        s.lent = None;
        loop {
            if let Some(at) = s.take_request(clock) {
                s.lent = Some(at);
                return Ok(Some(s.outbox().slot(at)));
            }
            s.close_op();
            if self.remaining == 0 {
                return Ok(None);
            }
            self.remaining -= 1;
            let op = match &mut self.loader {
                Some(loader) => loader.next_op(),
                None => s.ycsb.next_op(),
            };
            s.apply(op)?;
            self.done += 1;
            if s.stats_at_start.is_some() {
                s.measured_ops += 1;
            }
        }
    }

    fn completed<C: Clock>(
        &mut self,
        done: &Completion,
        timed: Option<timing::Completion>,
        _clock: &mut C,
    ) -> Result<(), SimError> {
        let req = match self.source.bg {
            Some(_) => self.lent_background(),
            None => {
                let at = self
                    .source
                    .lent
                    .expect("a completion follows a lent request");
                self.source.outbox().slot(at)
            }
        };
        if req.op == Op::Read && done.mapped_pages != req.pages {
            return Err(SimError::Invariant(format!(
                "LSM read of pages {}..{}{}: {} of {} pages unmapped on the device",
                req.lpn,
                req.lpn + u64::from(req.pages),
                self.source.bg.as_ref().map_or("", |bg| bg.lent_by()),
                done.unmapped_pages,
                req.pages
            )));
        }
        if self.source.bg.is_some() {
            return self.completed_background(timed);
        }
        let s = &mut *self.source;
        if let Some(t) = timed {
            s.op_first_ns = s.op_first_ns.min(t.arrival_at);
            s.op_last_ns = s.op_last_ns.max(t.done_at);
        }
        Ok(())
    }

    fn units_done(&self) -> Option<u64> {
        Some(self.done)
    }

    fn between_units(&self) -> bool {
        match &self.source.bg {
            Some(bg) => bg.between_units(),
            None => self.source.outbox().pending_requests == 0,
        }
    }
}
