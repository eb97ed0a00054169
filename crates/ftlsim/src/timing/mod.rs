//! Timing model (issue 5): how fast the device answers, and how much garbage
//! collection hurts the tail.
//!
//! Every LUN has the time it becomes free and serves its operations first
//! come, first served; every channel has a timetable of the transfers in
//! flight, and a transfer takes the earliest gap after its data is ready, so
//! a LUN that is busy never holds its channel (issue 15; docs/timing.md). A
//! request's flash operations (from the FTL's op log, GC included) are
//! placed once, at its issue. No event queue: a request costs a few integer
//! operations per flash operation plus a heap step, so timing keeps the
//! simulator fast. The laws it obeys (QD 1 read latency, saturated IOPS
//! bounds, sequential write throughput) are checked in `tests/timing.rs`,
//! the queueing laws in `ftlsim validate`.
//!
//! * `config`: the `[timing]` section and its values in nanoseconds.
//! * `engine`: resources, where pages live (superblock striping), scheduling.
//! * `channel`: one channel's timetable (transfers in the order their data is ready).
//! * `replay`: closed and open loop issue times, bounded by the queue depth.
//! * `stats`: latency histograms, throughput, busy time, latency over time.
//!
//! `Timer` ties them to an `Ssd`: `submit` runs one host request through the
//! FTL and the model and returns its timing.

pub mod buffer;
pub mod channel;
pub mod engine;
mod outstanding;
pub mod queues;
pub mod replay;
pub mod stats;

pub use crate::config::timing::{TimingConfig, TimingMode, TimingParams};
pub use buffer::WriteBuffer;
pub use engine::Engine;
pub use replay::Replay;
pub use stats::{ChannelRow, LatencyRow, LatencyUs, LunRow, TimingStats, TimingSummary};

use rand_distr::{Distribution, Exp1};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::DeviceConfig;
use crate::error::{ConfigError, SimError};
use crate::ftl::{FlashOp, Ssd};
use crate::request::Op;
use crate::rng;

/// Where open-loop arrival times come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrivalSource {
    /// The caller generates requests without times (synthetic workloads): a
    /// Poisson process of `timing.arrival_rate_iops` in open loop.
    Synthetic,
    /// The caller passes each request's arrival time (traces).
    Given,
}

/// When one request entered the device and when it completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub arrival_at: u64,
    pub issue_at: u64,
    pub done_at: u64,
}

impl Completion {
    pub fn latency_ns(&self) -> u64 {
        self.done_at - self.arrival_at
    }
}

/// A request between [`Timer::begin`] and [`Timer::finish`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "a begun request must be finished"]
pub struct Ticket {
    op: Op,
    pages: u32,
    arrival_at: u64,
    issue_at: u64,
}

/// The latest simulated time the model accepts: 2^62 ns, about 146 years.
/// Times are u64 nanoseconds, and the engine adds latencies and transfer
/// lengths to them (the channel timetable keeps `u64::MAX` as a sentinel),
/// so a time near 2^64 would wrap into nonsense or a panic. Below 2^62 a
/// request's own work, however long, cannot reach 2^64. A run whose time
/// passes it (a vanishing arrival rate, a tiny `timing.speedup`, trace
/// times that jump by centuries) is an error naming the key.
pub const MAX_TIME_NS: u64 = 1 << 62;

/// How errors describe [`MAX_TIME_NS`].
const HORIZON: &str = "the timing model's horizon of 2^62 ns (about 146 years)";

/// Poisson arrivals for open-loop synthetic workloads.
#[derive(Debug, Clone)]
struct PoissonArrivals {
    mean_gap_ns: f64,
    next_at: f64,
    rng: Xoshiro256PlusPlus,
}

impl PoissonArrivals {
    /// The next arrival; `None` past [`MAX_TIME_NS`].
    fn next(&mut self) -> Option<u64> {
        // A rate so small that the mean gap overflows makes `next_at`
        // infinite, or NaN (0 × ∞): past the horizon too.
        if !self.next_at.is_finite() || self.next_at > MAX_TIME_NS as f64 {
            return None;
        }
        let at = self.next_at.round() as u64;
        let gap: f64 = Exp1.sample(&mut self.rng);
        self.next_at += gap * self.mean_gap_ns;
        Some(at)
    }
}

/// The timing model attached to a device for a measured window.
#[derive(Debug, Clone)]
pub struct Timer {
    params: TimingParams,
    engine: Engine,
    replay: Replay,
    stats: TimingStats,
    ops: Vec<FlashOp>,
    /// Scratch for the write buffer, which edits a request's operations.
    buffer_ops: Vec<FlashOp>,
    arrivals: Option<PoissonArrivals>,
    speedup: f64,
    series_window: Option<u64>,
    page_bytes: u32,
    seed: u64,
    rate_iops: Option<f64>,
    /// The first given arrival time since `reset`: the window's time origin.
    origin_ns: Option<u64>,
    /// Free blocks background GC aims for while idle (None: off).
    background_target: Option<u32>,
    /// The controller's write buffer (`timing.write_buffer_pages`; None: off).
    buffer: Option<WriteBuffer>,
    /// Each request enters at the time it is given (`arrival_ns`), which
    /// the source schedules itself (the LSM engine's background threads).
    given_issue: bool,
}

impl Timer {
    /// The timer of the `[timing]` section `t` over the device `device`,
    /// as the plan checked them (and the run: in open loop with
    /// `ArrivalSource::Synthetic`, `timing.arrival_rate_iops` is given);
    /// `seed` draws the synthetic arrivals.
    pub fn new(t: &TimingConfig, device: &DeviceConfig, seed: u64, source: ArrivalSource) -> Self {
        debug_assert!(
            t.mode == TimingMode::Closed
                || source == ArrivalSource::Given
                || t.arrival_rate_iops.is_some(),
            "the run checks that an open loop of synthetic arrivals has a rate"
        );
        let params = t.params(device);
        let rate_iops = (t.mode == TimingMode::Open && source == ArrivalSource::Synthetic)
            .then_some(t.arrival_rate_iops)
            .flatten();
        let mut timer = Self {
            params,
            engine: Engine::new(&params, device.pages_per_block),
            replay: Replay::new(params.mode, params.queue_depth),
            stats: TimingStats::new(1),
            ops: Vec::new(),
            buffer_ops: Vec::new(),
            arrivals: None,
            speedup: t.speedup,
            series_window: t.series_window,
            page_bytes: device.page_bytes,
            seed,
            rate_iops,
            origin_ns: None,
            background_target: t.background_gc.then(|| {
                t.background_gc_free_blocks
                    .unwrap_or((device.blocks / 64).max(2))
            }),
            buffer: (t.write_buffer_pages > 0)
                .then(|| WriteBuffer::new(t.write_buffer_pages, device.pages_per_block)),
            given_issue: false,
        };
        timer.reset(100);
        timer
    }

    /// From now on each request enters the device at its `arrival_ns`,
    /// never earlier than the one before, whatever the mode and queue
    /// depth: the source keeps its own clocks (the LSM engine's writer and
    /// background threads, `run/lsm/background.rs`).
    pub fn take_issue_times(&mut self) {
        self.given_issue = true;
        self.replay.take_issue_times();
    }

    pub fn params(&self) -> &TimingParams {
        &self.params
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Back to an idle device at time 0 and empty statistics. The latency
    /// series samples every `timing.series_window` requests, or every
    /// `default_series_window` when the config leaves it out.
    pub fn reset(&mut self, default_series_window: u64) {
        self.engine.reset();
        self.replay.reset();
        if let Some(b) = &mut self.buffer {
            b.reset();
        }
        self.origin_ns = None;
        self.stats = TimingStats::new(self.series_window.unwrap_or(default_series_window));
        self.arrivals = self.rate_iops.map(|rate| PoissonArrivals {
            mean_gap_ns: 1e9 / rate,
            next_at: 0.0,
            rng: rng::stream(self.seed, "arrivals"),
        });
    }

    /// Starts recording `ssd`'s flash operations; earlier ones are dropped.
    pub fn attach(&mut self, ssd: &mut Ssd) {
        ssd.enable_op_log();
        ssd.take_ops(&mut self.ops);
        self.ops.clear();
    }

    /// Starts one host request: runs background GC in the idle time before
    /// it (open loop) and places it in simulated time. The caller then
    /// carries the request out on the FTL (which logs its flash operations,
    /// GC included) and calls [`Timer::finish`]. `arrival_ns` is the
    /// request's trace time in open loop: time runs from the first one given
    /// since `reset`, divided by `timing.speedup`. It is ignored in closed
    /// loop and may be `None` for synthetic open-loop workloads.
    #[inline(always)]
    pub fn begin(
        &mut self,
        ssd: &mut Ssd,
        op: Op,
        pages: u32,
        arrival_ns: Option<u64>,
    ) -> Result<Ticket, SimError> {
        if self.given_issue {
            let at = arrival_ns.expect("a scheduled request has its issue time");
            return self.issue(op, pages, Some(at));
        }
        let arrival_at = self.arrival_at(arrival_ns)?;
        if let (Some(target), Some(arrival)) = (self.background_target, arrival_at) {
            self.collect_while_idle(ssd, target, arrival)?;
        }
        self.issue(op, pages, arrival_at)
    }

    /// Whether [`Timer::begin`] leaves the device alone (no background
    /// GC), so that the device may run ahead of the timer
    /// ([`Timer::begin_detached`]).
    pub fn detachable(&self) -> bool {
        self.background_target.is_none()
    }

    /// [`Timer::begin`] for a timer that is [`Timer::detachable`]: the
    /// device has already carried the request out (on another thread).
    #[inline(always)]
    pub fn begin_detached(
        &mut self,
        op: Op,
        pages: u32,
        arrival_ns: Option<u64>,
    ) -> Result<Ticket, SimError> {
        debug_assert!(self.detachable());
        let arrival_at = self.arrival_at(arrival_ns)?;
        self.issue(op, pages, arrival_at)
    }

    /// A request's arrival time in simulated time (`None` in closed loop).
    #[inline(always)]
    fn arrival_at(&mut self, arrival_ns: Option<u64>) -> Result<Option<u64>, SimError> {
        Ok(match self.params.mode {
            TimingMode::Closed => None,
            TimingMode::Open => match (arrival_ns, &mut self.arrivals) {
                (Some(t), _) => {
                    let since = t.saturating_sub(*self.origin_ns.get_or_insert(t));
                    let at = if self.speedup == 1.0 {
                        since
                    } else {
                        let at = (since as f64 / self.speedup).round();
                        // Saturating `as` would hide the overflow: check first.
                        if at > MAX_TIME_NS as f64 { u64::MAX } else { at as u64 }
                    };
                    if at > MAX_TIME_NS {
                        return Err(ConfigError::new(
                            "timing.speedup",
                            format!(
                                "a request {since} ns after the window's first, divided by the speedup {:?}, arrives past {HORIZON}",
                                self.speedup
                            ),
                        )
                        .into());
                    }
                    Some(at)
                }
                (None, Some(poisson)) => match poisson.next() {
                    Some(at) => Some(at),
                    None => {
                        return Err(ConfigError::new(
                            "timing.arrival_rate_iops",
                            format!(
                                "{:?} IOPS spaces the arrivals so far apart that they pass {HORIZON}; raise the rate",
                                self.rate_iops.unwrap_or(0.0)
                            ),
                        )
                        .into())
                    }
                },
                (None, None) => return Err(ConfigError::new(
                    "timing.arrival_rate_iops",
                    "an open-loop request came without an arrival time and no arrival rate is set",
                )
                .into()),
            },
        })
    }

    /// Places a request that arrived at `arrival_at` in simulated time.
    #[inline(always)]
    fn issue(&mut self, op: Op, pages: u32, arrival_at: Option<u64>) -> Result<Ticket, SimError> {
        let issue_at = self.replay.issue_at(arrival_at.unwrap_or(0));
        if issue_at > MAX_TIME_NS {
            // Arrivals are checked above: the device's own work got here
            // (latencies near their bound, times an enormous run).
            return Err(ConfigError::new(
                "timing",
                format!("the device's work takes simulated time past {HORIZON}: shorter latencies or a shorter run"),
            )
            .into());
        }
        let arrival_at = arrival_at.unwrap_or(issue_at).min(issue_at);
        Ok(Ticket {
            op,
            pages,
            arrival_at,
            issue_at,
        })
    }

    /// The requests until [`Timer::end_batch`] enter the device together
    /// (closed loop): one file's writeback after its writer syncs it.
    pub fn begin_batch(&mut self) {
        self.replay.begin_batch();
    }

    /// Ends a batch: the next request enters once all of it has completed.
    pub fn end_batch(&mut self) {
        self.replay.end_batch();
    }

    /// Ends the request `ticket` began: its flash operations (logged by
    /// `ssd` since `begin`) are scheduled, and it completes when the last
    /// one has. A write that triggered GC completes when that GC has
    /// (foreground GC); other requests wait for it only where they share a
    /// LUN or channel. `failed`: the request stopped with an error; the
    /// replay is kept consistent and nothing is recorded.
    #[inline(always)]
    pub fn finish(&mut self, ssd: &mut Ssd, ticket: Ticket, failed: bool) -> Completion {
        let completion = self.finish_with(ticket, ssd.logged(), failed);
        ssd.clear_ops();
        completion
    }

    /// [`Timer::finish`] with the request's flash operations given (the
    /// device logged them on another thread).
    #[inline(always)]
    pub fn finish_with(&mut self, ticket: Ticket, ops: &[FlashOp], failed: bool) -> Completion {
        let Ticket {
            op,
            pages,
            arrival_at,
            issue_at,
        } = ticket;
        if failed {
            self.replay.complete(issue_at);
            return Completion {
                arrival_at,
                issue_at,
                done_at: issue_at,
            };
        }
        let done_at = match &mut self.buffer {
            None => self
                .engine
                .schedule(ops, issue_at + self.params.overhead_ns),
            Some(buffer) => {
                // The buffer drops the reads it serves: it works on a copy.
                let mut own = std::mem::take(&mut self.buffer_ops);
                own.clear();
                own.extend_from_slice(ops);
                let done_at = buffer.complete(
                    &mut self.engine,
                    &mut own,
                    op,
                    pages,
                    issue_at + self.params.overhead_ns,
                );
                self.buffer_ops = own;
                done_at
            }
        };
        self.replay.complete(done_at);
        if self.stats.record(op, pages, arrival_at, done_at) {
            self.stats.close_window(issue_at, &self.engine);
        }
        Completion {
            arrival_at,
            issue_at,
            done_at,
        }
    }

    /// The timing results since the last `reset`.
    /// Runs background GC in the idle time before `arrival`: one victim at
    /// a time, each starting when the device went idle, while the device is
    /// still idle and the pool is below `target`. Bounded by the device's
    /// block count per idle period.
    fn collect_while_idle(
        &mut self,
        ssd: &mut Ssd,
        target: u32,
        arrival: u64,
    ) -> Result<(), SimError> {
        if self.replay.drained_at() > arrival {
            return Ok(());
        }
        for _ in 0..ssd.geometry().blocks {
            // Start a victim only if its work fits before the arrival: a
            // victim is not preempted, and one that overran would delay the
            // very request background GC is meant to spare.
            let idle_from = self.engine.idle_at();
            if idle_from.saturating_add(self.victim_estimate_ns(ssd.next_victim_valid_pages()))
                > arrival
                || !ssd.collect_in_background(target)?
            {
                break;
            }
            ssd.take_ops(&mut self.ops);
            if let Some(b) = &mut self.buffer {
                b.forget_erased(&self.ops);
            }
            self.engine.schedule(&self.ops, idle_from);
        }
        Ok(())
    }

    /// Time to reclaim a victim with `valid` pages on an idle device: its
    /// copies spread over the LUNs (read, two transfers, program each), then
    /// the erase.
    fn victim_estimate_ns(&self, valid: u32) -> u64 {
        let p = &self.params;
        let per_lun = u64::from(valid.div_ceil(p.luns()));
        per_lun * (p.read_ns + p.program_ns + 2 * p.transfer_ns) + p.erase_ns
    }

    pub fn summary(&mut self) -> TimingSummary {
        // With a write buffer, the window ends when the last buffered page
        // has drained, not at the last acknowledgement: throughput is what
        // the flash sustained.
        let now = self
            .replay
            .drained_at()
            .max(self.buffer.as_ref().map_or(0, WriteBuffer::drained_at));
        let mut summary = self.stats.summary(now, &self.engine, self.page_bytes);
        if let Some(b) = &self.buffer {
            let (waits, wait_ns) = b.full_waits();
            summary.write_buffer_pages = b.capacity_pages();
            summary.write_buffer_read_hit_pages = b.read_hit_pages();
            summary.write_buffer_full_waits = waits;
            summary.write_buffer_wait_us_mean = if waits == 0 {
                0.0
            } else {
                wait_ns as f64 / waits as f64 / 1e3
            };
        }
        summary
    }
}
