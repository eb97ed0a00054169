//! The run loop: precondition, warm up, measure, report.

use serde::Serialize;

use crate::config::{Config, Precondition, WorkloadType, DEFAULT_WRITES};
use crate::error::SimError;
use crate::ftl::{Ssd, SsdOptions};
use crate::metrics::{Counters, LogHistogram, Phase, SeriesRow};
use crate::source::{RequestSource, SourceOp, SourceRequest};
use crate::timing::{ArrivalSource, LatencyRow, LunRow, RequestKind, Timer, TimingSummary};
use crate::workload::{Generator, Op, WorkItem};

#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Run the invariant checker at every time-series sample and at the end.
    pub check: bool,
}

/// Where a run is, for progress bars.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub phase: Phase,
    /// Work units (pages or requests) done and planned over the whole run.
    pub done: u64,
    pub total: u64,
}

/// The result of a run: the measured window's metrics, flat so that it reads
/// well as one JSON object or one CSV row.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub seed: u64,
    pub host_write_pages: u64,
    pub host_read_pages: u64,
    pub host_read_unmapped_pages: u64,
    pub host_trim_pages: u64,
    pub flushes: u64,
    pub nand_write_pages: u64,
    pub gc_copy_pages: u64,
    pub wl_copy_pages: u64,
    pub waf: f64,
    pub gc_count: u64,
    /// Victims of `gc_count` reclaimed by background GC (timing model, idle time).
    pub background_gc_count: u64,
    pub erase_count: u64,
    /// Per-block erase counts at the end of the run (the device's wear state).
    pub erase_max: u32,
    pub erase_min: u32,
    pub erase_mean: f64,
    pub erase_stddev: f64,
    /// Page survival time, write to invalidation, in host page writes; pages
    /// invalidated in the measured window. Null when survival is off.
    pub survival_count: Option<u64>,
    pub survival_mean: Option<f64>,
    pub survival_p50: Option<u64>,
    pub survival_p90: Option<u64>,
    pub survival_p99: Option<u64>,
    pub survival_p999: Option<u64>,
    /// Host bytes the device absorbs over its whole P/E budget at the measured
    /// erase rate, assuming even wear; null without a P/E limit or without erases.
    pub lifetime_host_write_bytes: Option<f64>,
    /// The same in full logical-capacity writes.
    pub lifetime_drive_writes: Option<f64>,
    /// Lifetime without even wear: full drive writes until the most-worn
    /// block reaches the P/E limit, if wear keeps the spread it has now
    /// (the even-wear lifetime × mean / max erase count). Placement that
    /// spreads or concentrates wear shows here; null without a P/E limit or erases.
    pub lifetime_worst_block_drive_writes: Option<f64>,
    pub end_of_life: bool,
    pub retired_blocks: u32,
    pub free_blocks: u32,
    pub logical_pages: u64,
    pub physical_pages: u64,
    pub spare_factor: f64,
    pub precondition_pages: u64,
    pub warmup_pages: u64,
    pub state_bytes_per_physical_page: f64,
    /// Timing model results, null without a `[timing]` section: requests of
    /// every kind and host bytes moved per simulated second, and simulated
    /// time from the window's start to its last completion.
    pub iops: Option<f64>,
    pub bandwidth_bytes_per_sec: Option<f64>,
    pub sim_time_ns: Option<u64>,
    /// Request latency in µs: completion − issue (closed loop) or − arrival
    /// (open loop); null when no request of the kind ran.
    pub read_latency_us_mean: Option<f64>,
    pub read_latency_us_p50: Option<f64>,
    pub read_latency_us_p99: Option<f64>,
    pub read_latency_us_p999: Option<f64>,
    pub read_latency_us_max: Option<f64>,
    pub write_latency_us_mean: Option<f64>,
    pub write_latency_us_p50: Option<f64>,
    pub write_latency_us_p99: Option<f64>,
    pub write_latency_us_p999: Option<f64>,
    pub write_latency_us_max: Option<f64>,
    /// LUN time on GC work (copies, erases, wear leveling) / all LUN busy time.
    pub gc_time_share: Option<f64>,
    /// Busy time / simulated time: mean and max over LUNs, mean over channels.
    pub lun_busy_mean: Option<f64>,
    pub lun_busy_max: Option<f64>,
    pub channel_busy_mean: Option<f64>,
    /// Many-to-one mapping (null when off): host page writes that were
    /// duplicates of live content and programmed nothing; pages moved by
    /// remap and shared by clone requests.
    pub dedup_hit_pages: Option<u64>,
    pub dedup_ratio: Option<f64>,
    pub remap_pages: Option<u64>,
    pub clone_pages: Option<u64>,
    /// Survival of physical pages (program to last reference dropped), by
    /// mapping class: pages never shared, and pages mapped by two or more
    /// LPNs at some point of their life. In host page writes.
    pub survival_single_count: Option<u64>,
    pub survival_single_mean: Option<f64>,
    pub survival_multi_count: Option<u64>,
    pub survival_multi_mean: Option<f64>,
    /// Reverse-map entries beyond the OOB LPN, fingerprint index entries,
    /// and the bytes of all sharing state at the end of the run.
    pub reverse_map_entries: Option<u64>,
    /// Fingerprint matches whose bytes differed (`ftl.verify_content`).
    pub fingerprint_collisions: Option<u64>,
    pub dedup_index_entries: Option<u64>,
    pub sharing_state_bytes: Option<u64>,
    #[serde(skip)]
    pub series: Vec<SeriesRow>,
    /// Latency over time (timing on): one row per `timing.series_window` requests.
    #[serde(skip)]
    pub latency_series: Vec<LatencyRow>,
    /// Busy fraction of every LUN (timing on).
    #[serde(skip)]
    pub lun_busy: Vec<LunRow>,
}

/// Samples the WAF-over-time series every `window` host page writes.
struct Recorder {
    window: u64,
    next_at: u64,
    last: Counters,
    measure_start: Option<Counters>,
    rows: Vec<SeriesRow>,
    check: bool,
}

impl Recorder {
    #[inline]
    fn due(&self, ssd: &Ssd) -> bool {
        ssd.counters.host_write_pages >= self.next_at
    }

    fn sample(&mut self, ssd: &Ssd, phase: Phase) -> Result<(), SimError> {
        let c = ssd.counters;
        let window = c.since(&self.last);
        let measured_waf = self
            .measure_start
            .map_or(0.0, |start| c.since(&start).waf());
        self.rows.push(SeriesRow {
            phase,
            host_write_pages: c.host_write_pages,
            nand_write_pages: c.nand_write_pages,
            gc_copy_pages: c.gc_copy_pages,
            erase_count: c.erase_count,
            window_waf: window.waf(),
            measured_waf,
            free_blocks: ssd.free_blocks(),
        });
        self.last = c;
        self.next_at = c.host_write_pages + self.window;
        if self.check {
            ssd.check_invariants()?;
        }
        Ok(())
    }
}

/// A run in its phases, so that callers (the CLI's bench) can time one phase alone.
pub struct Simulation {
    cfg: Config,
    ssd: Ssd,
    generator: Generator,
    recorder: Recorder,
    done: u64,
    total: u64,
    precondition_pages: u64,
    warmup_pages: u64,
    measured: Measured,
    end_of_life: bool,
    lookahead: [(u64, u64); LOOKAHEAD],
    lookahead_pos: usize,
    lookahead_primed: bool,
    /// The request source of a trace replay.
    source: Option<Box<dyn RequestSource>>,
    /// Requests read ahead of use (their map entries are prefetched), and
    /// spent ones kept for reuse so replay allocates nothing per request.
    source_pending: std::collections::VecDeque<SourceRequest>,
    source_spare: Vec<SourceRequest>,
    /// The source returned its last request (some may still be pending).
    source_drained: bool,
    /// The source ran out of requests.
    source_exhausted: bool,
    /// The timing model, when the config has a `[timing]` section.
    timer: Option<Timer>,
}

/// Write requests generated ahead of use (see `Simulation::next_write`).
const LOOKAHEAD: usize = 16;

impl Simulation {
    /// Builds an erased device and the workload of a config (validated here).
    pub fn new(cfg: &Config, options: &RunOptions) -> Result<Self, SimError> {
        if cfg.workload.kind == WorkloadType::Trace {
            return Err(crate::ConfigError::new(
                "workload.type",
                "a trace replay needs its trace opened: use Simulation::with_source (the CLI does)",
            )
            .into());
        }
        Self::new_inner(cfg, options)
    }

    fn new_inner(cfg: &Config, options: &RunOptions) -> Result<Self, SimError> {
        let ssd = Ssd::new(
            cfg,
            &SsdOptions {
                track_content: false,
                survival: cfg.metrics.survival,
            },
        )?;
        let logical = u64::from(ssd.logical_pages());
        let window = cfg
            .metrics
            .window
            .map_or((logical / 20).max(1), |w| w.to_pages(logical).max(1));
        let precondition_pages = match cfg.workload.precondition {
            Precondition::None => 0,
            Precondition::SequentialFill => logical,
        };
        let warmup_pages = cfg.warmup_pages();
        let measured = match (cfg.workload.requests, cfg.workload.writes) {
            (Some(r), _) => Measured::Requests(r),
            (None, w) => Measured::Pages(w.unwrap_or(DEFAULT_WRITES).to_pages(logical)),
        };
        let total = precondition_pages
            + warmup_pages
            + match measured {
                Measured::Requests(r) | Measured::Pages(r) => r,
            };
        let timer = match cfg.timing {
            Some(_) if cfg.workload.kind == WorkloadType::Trace => {
                Some(Timer::new(cfg, ArrivalSource::Given)?)
            }
            Some(_) => Some(Timer::new(cfg, ArrivalSource::Synthetic)?),
            None => None,
        };
        Ok(Self {
            cfg: cfg.clone(),
            ssd,
            generator: Generator::new(cfg),
            recorder: Recorder {
                window,
                next_at: window,
                last: Counters::default(),
                measure_start: None,
                rows: Vec::new(),
                check: options.check,
            },
            done: 0,
            total,
            precondition_pages,
            warmup_pages,
            measured,
            end_of_life: false,
            lookahead: [(0, 0); LOOKAHEAD],
            lookahead_pos: 0,
            lookahead_primed: false,
            source: None,
            source_pending: std::collections::VecDeque::with_capacity(LOOKAHEAD),
            source_spare: Vec::with_capacity(LOOKAHEAD + 1),
            source_drained: false,
            source_exhausted: false,
            timer,
        })
    }

    /// A simulation whose workload comes from `source` (a trace replay).
    /// With neither `workload.writes` nor `workload.requests`, the measured
    /// window runs to the end of the source.
    pub fn with_source(
        cfg: &Config,
        options: &RunOptions,
        source: Box<dyn RequestSource>,
    ) -> Result<Self, SimError> {
        let mut sim = Self::new_inner(cfg, options)?;
        if cfg.workload.requests.is_none() && cfg.workload.writes.is_none() {
            sim.measured = Measured::Requests(u64::MAX);
            sim.total = sim.precondition_pages + sim.warmup_pages;
        }
        sim.source = Some(source);
        Ok(sim)
    }

    /// Whether a trace source ran out before its limits were reached.
    pub fn source_exhausted(&self) -> bool {
        self.source_exhausted
    }

    pub fn ssd(&self) -> &Ssd {
        &self.ssd
    }

    /// Units of work the measured phase will do (pages, or requests for a mix).
    pub fn measured_units(&self) -> u64 {
        match self.measured {
            Measured::Requests(r) | Measured::Pages(r) => r,
        }
    }

    /// Turns end of life into a flag that stops the remaining phases.
    fn phase(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<(), SimError>,
    ) -> Result<(), SimError> {
        if self.end_of_life {
            return Ok(());
        }
        match body(self) {
            Err(SimError::EndOfLife { .. }) => {
                self.end_of_life = true;
                Ok(())
            }
            other => other,
        }
    }

    /// Sequential fill of the logical space (when the config asks for it).
    pub fn precondition(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), SimError> {
        let pages = self.precondition_pages;
        self.phase(|s| s.write_pages(pages, Phase::Precondition, true, progress))
    }

    /// Writes that age the device but are excluded from the measurement.
    pub fn warm_up(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), SimError> {
        let pages = self.warmup_pages;
        self.phase(|s| s.write_pages(pages, Phase::Warmup, false, progress))
    }

    /// The measured window.
    pub fn measure(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), SimError> {
        self.recorder.measure_start = Some(self.ssd.counters);
        if let Some(h) = &mut self.ssd.survival {
            *h = LogHistogram::default();
        }
        if let Some(sh) = &mut self.ssd.sharing {
            sh.survival_single = LogHistogram::default();
            sh.survival_multi = LogHistogram::default();
        }
        let measured = self.measured;
        if self.timer.is_some() {
            return self.phase(|s| s.run_timed(measured, progress));
        }
        self.phase(|s| match measured {
            Measured::Pages(p) => s.write_pages(p, Phase::Measure, false, progress),
            Measured::Requests(r) => s.run_requests(r, progress),
        })
    }

    /// Takes a time-series sample when one is due, counting the window as
    /// progress (phases whose work is measured in host page writes).
    #[inline]
    fn sample_if_due(
        &mut self,
        phase: Phase,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        if self.recorder.due(&self.ssd) {
            self.done += self.recorder.window;
            self.recorder.sample(&self.ssd, phase)?;
            self.report_progress(phase, progress);
        }
        Ok(())
    }

    fn report_progress(&self, phase: Phase, progress: &mut dyn FnMut(Progress)) {
        progress(Progress {
            phase,
            done: self.done,
            total: self.total,
        });
    }

    /// Writes `pages` host pages: the logical space in order, or the generator's pattern.
    fn write_pages(
        &mut self,
        pages: u64,
        phase: Phase,
        sequential_fill: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        if self.source.is_some() && !sequential_fill {
            return self.replay_source(pages, u64::MAX, phase, None, progress);
        }
        let mut written = 0u64;
        while written < pages {
            let (start, first_content) = if sequential_fill {
                (written, 0)
            } else {
                self.next_write()
            };
            let n = if sequential_fill {
                1
            } else {
                u64::from(self.generator.request_size(start)).min(pages - written)
            };
            for lpn in start..start + n {
                let content = if sequential_fill {
                    self.generator.unique_content()
                } else if lpn == start {
                    first_content
                } else {
                    self.generator.next_content()
                };
                self.ssd.write_page(lpn, 0, content)?;
            }
            written += n;
            self.sample_if_due(phase, progress)?;
        }
        Ok(())
    }

    /// The generator's next write start and the content of its first page,
    /// drawn `LOOKAHEAD` requests early so that what the write will touch is
    /// already on its way into cache, in three stages: the map entry when
    /// drawn; halfway, the sharing record it points to; near the end, the
    /// dedup index slot of the content it will kill. The sequences of starts
    /// and contents are exactly the generator's.
    #[inline]
    fn next_write(&mut self) -> (u64, u64) {
        if !self.lookahead_primed {
            for slot in &mut self.lookahead {
                *slot = (self.generator.next_write(), self.generator.next_content());
                self.ssd.prefetch(slot.0);
                self.ssd.prefetch_content(slot.1);
            }
            self.lookahead_primed = true;
        }
        let upcoming = (self.generator.next_write(), self.generator.next_content());
        self.ssd.prefetch(upcoming.0);
        self.ssd.prefetch_content(upcoming.1);
        let at = |ahead: usize| (self.lookahead_pos + ahead) % LOOKAHEAD;
        let (lpn, content) = self.lookahead[at(LOOKAHEAD * 5 / 8)];
        self.ssd.prefetch_mapped(lpn, content);
        let (lpn, content) = self.lookahead[at(LOOKAHEAD / 4)];
        self.ssd.prefetch_dying_content(lpn, content);
        let next = std::mem::replace(&mut self.lookahead[self.lookahead_pos], upcoming);
        self.lookahead_pos = (self.lookahead_pos + 1) % LOOKAHEAD;
        next
    }

    fn run_requests(
        &mut self,
        requests: u64,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        if self.source.is_some() {
            return self.replay_source(u64::MAX, requests, Phase::Measure, None, progress);
        }
        let progress_every = (requests / 100).max(1);
        for i in 0..requests {
            let WorkItem { op, lpn, pages } = self.generator.next_request();
            for p in lpn..lpn + u64::from(pages) {
                match op {
                    Op::Write => {
                        let content = self.generator.next_content();
                        self.ssd.write_page(p, 0, content)?;
                    }
                    Op::Read => {
                        self.ssd.read_page(p)?;
                    }
                    Op::Trim => self.ssd.trim_page(p)?,
                }
            }
            if self.recorder.due(&self.ssd) {
                self.recorder.sample(&self.ssd, Phase::Measure)?;
            }
            if i % progress_every == 0 {
                self.done += progress_every;
                self.report_progress(Phase::Measure, progress);
            }
        }
        Ok(())
    }

    /// The measured window through the timing model: the same requests as
    /// the untimed run (so the same WAF), each placed in simulated time.
    fn run_timed(
        &mut self,
        measured: Measured,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        let mut timer = self.timer.take().expect("run_timed needs a timer");
        let result = self.run_timed_with(&mut timer, measured, progress);
        self.timer = Some(timer);
        result
    }

    fn run_timed_with(
        &mut self,
        timer: &mut Timer,
        measured: Measured,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        let request_pages = u64::from(self.generator.request_pages());
        let requests = match measured {
            Measured::Pages(p) => p.div_ceil(request_pages),
            Measured::Requests(r) => r,
        };
        // Latency samples: 100 over a known window, every 10,000 requests of a whole trace.
        timer.reset(if requests == u64::MAX {
            10_000
        } else {
            (requests / 100).max(1)
        });
        timer.attach(&mut self.ssd);
        if self.source.is_some() {
            let (pages, requests) = match measured {
                Measured::Pages(p) => (p, u64::MAX),
                Measured::Requests(r) => (u64::MAX, r),
            };
            return self.replay_source(pages, requests, Phase::Measure, Some(timer), progress);
        }
        let progress_every = (requests / 100).max(1);
        let mut written = 0u64;
        for i in 0..requests {
            let (kind, lpn, pages, first_content) = match measured {
                // Mixed sizes can finish the page budget in fewer requests.
                Measured::Pages(p) if written >= p => break,
                Measured::Pages(p) => {
                    let (start, content) = self.next_write();
                    let n = u64::from(self.generator.request_size(start)).min(p - written);
                    written += n;
                    (RequestKind::Write, start, n as u32, Some(content))
                }
                Measured::Requests(_) => {
                    let WorkItem { op, lpn, pages } = self.generator.next_request();
                    (RequestKind::from(op), lpn, pages, None)
                }
            };
            let generator = &mut self.generator;
            timer.submit(&mut self.ssd, kind, pages, None, |ssd| {
                for p in lpn..lpn + u64::from(pages) {
                    match kind {
                        RequestKind::Write => {
                            let content = match first_content {
                                Some(c) if p == lpn => c,
                                _ => generator.next_content(),
                            };
                            ssd.write_page(p, 0, content)?
                        }
                        RequestKind::Read => {
                            ssd.read_page(p)?;
                        }
                        RequestKind::Trim => ssd.trim_page(p)?,
                        RequestKind::Flush => ssd.flush(),
                    }
                }
                Ok(())
            })?;
            if self.recorder.due(&self.ssd) {
                self.recorder.sample(&self.ssd, Phase::Measure)?;
            }
            if i % progress_every == 0 {
                // Progress counts pages for a write budget, requests for a mix.
                let unit = if matches!(measured, Measured::Pages(_)) {
                    request_pages
                } else {
                    1
                };
                self.done += progress_every * unit;
                self.report_progress(Phase::Measure, progress);
            }
        }
        Ok(())
    }

    /// The next source request, read `LOOKAHEAD` requests early so that its
    /// map entry is in cache when it runs. `None` at the end of the source.
    fn next_source_request(&mut self) -> Result<Option<SourceRequest>, SimError> {
        while self.source_pending.len() < LOOKAHEAD && !self.source_drained {
            let mut req = self.source_spare.pop().unwrap_or_default();
            let source = self.source.as_mut().expect("replay needs a source");
            if source.next_request(&mut req)? {
                self.ssd.prefetch(req.lpn);
                self.source_pending.push_back(req);
            } else {
                self.source_drained = true;
                self.source_spare.push(req);
            }
        }
        Ok(self.source_pending.pop_front())
    }

    /// Replays source requests until `max_write_pages` host pages were
    /// written, `max_requests` requests ran, or the source ends; through the
    /// timing model when `timer` is given (in open loop each request arrives
    /// at its trace time, counted from the window's first request).
    fn replay_source(
        &mut self,
        max_write_pages: u64,
        max_requests: u64,
        phase: Phase,
        mut timer: Option<&mut Timer>,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        let (mut written, mut requests) = (0u64, 0u64);
        while written < max_write_pages && requests < max_requests {
            let Some(req) = self.next_source_request()? else {
                self.source_exhausted = true;
                break;
            };
            requests += 1;
            let generator = &mut self.generator;
            let result = match timer.as_deref_mut() {
                None => apply_source_request(&mut self.ssd, generator, &req),
                Some(timer) => {
                    let kind = match req.op {
                        SourceOp::Write => RequestKind::Write,
                        SourceOp::Read => RequestKind::Read,
                        SourceOp::Trim => RequestKind::Trim,
                        SourceOp::Flush => RequestKind::Flush,
                    };
                    timer
                        .submit(&mut self.ssd, kind, req.pages, Some(req.time_ns), |ssd| {
                            apply_source_request(ssd, generator, &req)
                        })
                        .map(|_| ())
                }
            };
            if req.op == SourceOp::Write {
                written += u64::from(req.pages);
            }
            self.source_spare.push(req);
            result?;
            self.sample_if_due(phase, progress)?;
        }
        Ok(())
    }

    /// The report of the measured window.
    pub fn finish(mut self) -> Result<Report, SimError> {
        let start = self.recorder.measure_start.unwrap_or_default();
        // A last, partial window: kept when it is at least half a window
        // (a sliver of a window gives a WAF that is mostly noise) or when
        // the measured phase has no sample yet.
        let since = self.ssd.counters.host_write_pages - self.recorder.last.host_write_pages;
        let measured_sampled = self.recorder.rows.iter().any(|r| r.phase == Phase::Measure);
        if since > 0 && (2 * since >= self.recorder.window || !measured_sampled) {
            self.recorder.sample(&self.ssd, Phase::Measure)?;
        }
        let (cfg, ssd) = (&self.cfg, &self.ssd);
        if self.recorder.check && !self.end_of_life {
            ssd.check_invariants()?;
        }
        let logical = u64::from(ssd.logical_pages());
        let m = ssd.counters.since(&start);
        let wear = ssd.wear();
        let survival = ssd.survival.as_ref().map(LogHistogram::summary);
        let sharing = ssd.sharing();
        let pe_budget = u64::from(cfg.device.pe_cycle_limit) * u64::from(cfg.device.blocks);
        let lifetime_pages = (pe_budget > 0 && m.erase_count > 0)
            .then(|| m.host_write_pages as f64 * pe_budget as f64 / m.erase_count as f64);
        let timing = self
            .timer
            .as_mut()
            .map(Timer::summary)
            .filter(|t| t.requests > 0);
        let read = timing.as_ref().and_then(TimingSummary::read_us);
        let write = timing.as_ref().and_then(TimingSummary::write_us);
        Ok(Report {
            seed: cfg.workload.seed,
            host_write_pages: m.host_write_pages,
            host_read_pages: m.host_read_pages,
            host_read_unmapped_pages: m.host_read_unmapped_pages,
            host_trim_pages: m.host_trim_pages,
            flushes: m.flushes,
            nand_write_pages: m.nand_write_pages,
            gc_copy_pages: m.gc_copy_pages,
            wl_copy_pages: m.wl_copy_pages,
            waf: m.waf(),
            gc_count: m.gc_count,
            background_gc_count: m.background_gc_count,
            erase_count: m.erase_count,
            erase_max: wear.max,
            erase_min: wear.min,
            erase_mean: wear.mean,
            erase_stddev: wear.stddev,
            survival_count: survival.map(|s| s.count),
            survival_mean: survival.map(|s| s.mean),
            survival_p50: survival.map(|s| s.p50),
            survival_p90: survival.map(|s| s.p90),
            survival_p99: survival.map(|s| s.p99),
            survival_p999: survival.map(|s| s.p999),
            lifetime_host_write_bytes: lifetime_pages.map(|p| p * f64::from(cfg.device.page_bytes)),
            lifetime_drive_writes: lifetime_pages.map(|p| p / logical as f64),
            lifetime_worst_block_drive_writes: lifetime_pages
                .filter(|_| wear.max > 0)
                .map(|p| p / logical as f64 * wear.mean / f64::from(wear.max)),
            end_of_life: self.end_of_life,
            retired_blocks: ssd.retired_blocks(),
            free_blocks: ssd.free_blocks(),
            logical_pages: logical,
            physical_pages: cfg.physical_pages(),
            spare_factor: cfg.device.spare_factor,
            precondition_pages: self.precondition_pages,
            warmup_pages: self.warmup_pages,
            state_bytes_per_physical_page: ssd.state_bytes_per_physical_page(),
            iops: timing.as_ref().map(|t| t.iops),
            bandwidth_bytes_per_sec: timing.as_ref().map(|t| t.bandwidth_bytes_per_sec),
            sim_time_ns: timing.as_ref().map(|t| t.sim_time_ns),
            read_latency_us_mean: read.map(|l| l.mean),
            read_latency_us_p50: read.map(|l| l.p50),
            read_latency_us_p99: read.map(|l| l.p99),
            read_latency_us_p999: read.map(|l| l.p999),
            read_latency_us_max: read.map(|l| l.max),
            write_latency_us_mean: write.map(|l| l.mean),
            write_latency_us_p50: write.map(|l| l.p50),
            write_latency_us_p99: write.map(|l| l.p99),
            write_latency_us_p999: write.map(|l| l.p999),
            write_latency_us_max: write.map(|l| l.max),
            gc_time_share: timing.as_ref().map(|t| t.gc_time_share),
            lun_busy_mean: timing.as_ref().map(|t| t.lun_busy_mean),
            lun_busy_max: timing.as_ref().map(|t| t.lun_busy_max),
            channel_busy_mean: timing.as_ref().map(|t| t.channel_busy_mean),
            dedup_hit_pages: sharing.map(|_| m.dedup_hit_pages),
            dedup_ratio: sharing
                .map(|_| m.dedup_hit_pages as f64 / (m.host_write_pages.max(1)) as f64),
            remap_pages: sharing.map(|_| m.remap_pages),
            clone_pages: sharing.map(|_| m.clone_pages),
            survival_single_count: sharing.map(|s| s.survival_single.count()),
            survival_single_mean: sharing.map(|s| s.survival_single.mean()),
            survival_multi_count: sharing.map(|s| s.survival_multi.count()),
            survival_multi_mean: sharing.map(|s| s.survival_multi.mean()),
            reverse_map_entries: sharing.map(|s| s.reverse_map_entries() as u64),
            fingerprint_collisions: sharing.map(|s| s.fingerprint_collisions),
            dedup_index_entries: sharing.map(|s| s.index_entries() as u64),
            sharing_state_bytes: sharing.map(|s| s.state_bytes() as u64),
            series: std::mem::take(&mut self.recorder.rows),
            latency_series: timing.as_ref().map_or_else(Vec::new, |t| t.series.clone()),
            lun_busy: timing.map_or_else(Vec::new, |t| t.luns),
        })
    }
}

/// Carries out one source request on the device. Pages without a
/// fingerprint get unique content.
fn apply_source_request(
    ssd: &mut Ssd,
    generator: &mut Generator,
    req: &SourceRequest,
) -> Result<(), SimError> {
    if req.op == SourceOp::Flush {
        ssd.flush();
        return Ok(());
    }
    for (i, lpn) in (req.lpn..req.lpn + u64::from(req.pages)).enumerate() {
        match req.op {
            SourceOp::Write => {
                let content = match req.fingerprints.get(i) {
                    Some(&fp) => fp,
                    None => generator.unique_content(),
                };
                ssd.write_page(lpn, req.stream, content)?;
            }
            SourceOp::Read => {
                ssd.read_page(lpn)?;
            }
            SourceOp::Trim => ssd.trim_page(lpn)?,
            SourceOp::Flush => {}
        }
    }
    Ok(())
}

/// Runs a config from an erased device to a report.
pub fn run(
    cfg: &Config,
    options: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, SimError> {
    let mut sim = Simulation::new(cfg, options)?;
    sim.precondition(progress)?;
    sim.warm_up(progress)?;
    sim.measure(progress)?;
    sim.finish()
}

#[derive(Debug, Clone, Copy)]
enum Measured {
    Pages(u64),
    Requests(u64),
}
