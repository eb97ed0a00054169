//! The run: precondition, warm up, measure, report — one driver loop for
//! untimed, timed and trace runs, over the SSD alone or a stack of host
//! layers.

mod clock;
mod feed;
pub mod lsm;
pub mod recorder;
pub mod report;
pub mod target;

use crate::config::{Config, Precondition, TimingMode, WorkloadType, DEFAULT_WRITES};
use crate::error::SimError;
use crate::ftl::{Ssd, SsdOptions};
use crate::host::oracle::Lifetimes;
use crate::host::Stack;
use crate::metrics::{Counters, LayerStats, Phase, StreamCounters};
use crate::plan::Plan;
use crate::request::{BlockDevice, Op, Request, RequestSource};
use crate::timing::{ArrivalSource, Timer};
use crate::workload::ycsb::YcsbWorkload;
use crate::workload::Generator;
pub use clock::pipeline_allowed;
use clock::{run_loop, Clock};
use feed::{External, Feed, Synthetic};
use lsm::LsmSource;
use recorder::Recorder;
pub use report::Report;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use target::Target;

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Run the invariant checker at every time-series sample and at the end.
    pub check: bool,
    /// Set from another thread (or a progress callback) to stop the run at
    /// its next progress point with [`SimError::Interrupted`].
    pub cancel: Option<Arc<AtomicBool>>,
    /// Keep the timing model on the run's own thread. By default a timed
    /// run gives it a thread of its own when a second core is there and
    /// `FTLSIM_PIPELINE` is not `0` (`run/clock.rs`); the results are the
    /// same bytes either way.
    pub one_thread: bool,
}

/// Where a run is, for progress bars.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub phase: Phase,
    /// Work units (pages or requests) done and planned over the whole run.
    pub done: u64,
    pub total: u64,
    /// The device's counters since it was built, when the update was sent
    /// (a live device's statistics come from here).
    pub counters: Counters,
}

/// What a phase runs until.
#[derive(Debug, Clone, Copy)]
enum Measured {
    Pages(u64),
    Requests(u64),
}

/// Where a phase's requests come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Workload {
    /// The logical space in order, one page per request, unique content.
    Fill,
    /// The generator's writes.
    Writes,
    /// The generator's read/write/trim mix.
    Mix,
    /// The external source (a trace).
    External,
    /// The LSM engine's operations: the load's inserts (`load`) or the
    /// workload's.
    Kv { load: bool },
}

/// What the oracle of a stack (if it has one) knows of the future.
enum Foresight {
    /// Nothing yet: a pre-pass of the config's own workload learns it first.
    Foresee,
    /// This run is the pre-pass: the stack records what enters it.
    Record,
    /// Learned by a pre-pass already (a trace read twice).
    Given(Lifetimes),
}

/// Every layer's statistics, top to bottom, the device last.
fn layer_stats(device: &Stack) -> Vec<LayerStats> {
    let mut out = Vec::new();
    device.layer_stats(&mut out);
    out
}

/// Progress is reported every this many requests (and at every sample).
const PROGRESS_EVERY_REQUESTS: u64 = 4096;

/// What the request loop reads and updates besides the device: owned in
/// one place, so the loop reaches every field through one pointer.
struct Driver {
    generator: Generator,
    synthetic: Synthetic,
    external: Option<External>,
    /// The LSM engine of a YCSB run, a source over the device.
    lsm: Option<LsmSource>,
    recorder: Recorder,
    timer: Option<Timer>,
    req: Request,
    source_exhausted: bool,
    /// The timer may run on a thread of its own (`run/clock.rs`).
    pipeline: bool,
}

/// Where a phase's progress counts from.
#[derive(Debug, Clone, Copy)]
struct Budget {
    max_pages: u64,
    max_requests: u64,
    /// Units done before this phase, and planned over the run.
    done_before: u64,
    total: u64,
    /// Requests go through the timing model, on a thread of its own if
    /// `pipeline` (when it can: `run/clock.rs`).
    timed: bool,
    pipeline: bool,
}

/// A run in its phases, so that callers (the bench) can time one phase alone.
pub struct Simulation {
    cfg: Config,
    /// The SSD and its host layers; none is the SSD alone, driven directly.
    device: Stack,
    driver: Driver,
    done: u64,
    total: u64,
    precondition_pages: u64,
    warmup_pages: u64,
    measured: Measured,
    /// The phase in which the device reached end of life.
    end_of_life: Option<Phase>,
    layers_at_start: Vec<LayerStats>,
    streams_at_start: Vec<StreamCounters>,
    /// Writes placed by a pre-pass's future, which covers one measured window.
    foreseen: bool,
    measured_windows: u32,
}

impl Simulation {
    /// Builds an erased device and the workload of a config (validated here).
    pub fn new(cfg: &Config, options: &RunOptions) -> Result<Self, SimError> {
        if cfg.workload.kind == WorkloadType::Trace {
            return Err(crate::ConfigError::new(
                "workload.type",
                "a trace replay needs its trace opened: use Simulation::with_source (ftlsim-run does)",
            )
            .into());
        }
        Self::new_inner(cfg, options, Foresight::Foresee)
    }

    /// The oracle's pre-pass: the same run with the oracle recording the
    /// address of every page written and trimmed, turned into each page
    /// write's remaining lifetime (see `host::oracle`).
    fn foresee(cfg: &Config, options: &RunOptions) -> Result<Lifetimes, SimError> {
        if cfg.workload.kind == WorkloadType::Trace {
            let key = if cfg.host.has_oracle() {
                "host.layers[0].type"
            } else {
                "ftl.placement_scheme"
            };
            return Err(crate::ConfigError::new(
                key,
                "the future needs a pre-pass over the workload: a trace replay offers one through Simulation::with_source_foreseen (ftlsim-run does)",
            )
            .into());
        }
        let sim = Self::new_inner(cfg, options, Foresight::Record)?;
        sim.lifetimes_of_run(cfg)
    }

    /// Runs this (pre-pass) simulation to its end and turns the oracle's
    /// record into each page write's remaining lifetime.
    fn lifetimes_of_run(mut self, cfg: &Config) -> Result<Lifetimes, SimError> {
        self.run_phases(&mut |_| {})?;
        let record = self.device.take_record();
        Ok(Arc::new(crate::host::oracle::remaining_lifetimes(
            record.as_slice(),
            cfg.host_pages(),
        )))
    }

    fn new_inner(
        cfg: &Config,
        options: &RunOptions,
        foresight: Foresight,
    ) -> Result<Self, SimError> {
        // The pre-pass first, so that its device is gone before this one is built.
        let record = matches!(foresight, Foresight::Record);
        let future = match foresight {
            Foresight::Foresee if cfg.foresees() => Some(Self::foresee(cfg, options)?),
            Foresight::Given(future) => Some(future),
            Foresight::Foresee | Foresight::Record => None,
        };
        // Planned once: each component is built from its own part.
        let plan = Plan::from_config(cfg)?;
        let mut ssd = Ssd::from_plan(
            &plan.ssd,
            &SsdOptions {
                track_content: false,
                survival: cfg.metrics.survival,
            },
        );
        if let Some(future) = &future {
            ssd.foresee(future);
        }
        // Workloads address the top of the stack.
        let logical = cfg.host_pages();
        let ycsb = cfg.workload.kind == WorkloadType::Ycsb;
        let mut device = Stack::from_plan(&plan.host, ssd, future.as_ref());
        if record {
            device.start_recording();
        }
        let lsm = match ycsb {
            true => Some(LsmSource::new(
                &cfg.lsm,
                &plan.workload.section,
                cfg.device.page_bytes,
                logical,
                cfg.lsm.threads(cfg.timing.is_some())?,
            )?),
            false => None,
        };
        let window = cfg
            .metrics
            .window
            .map_or((logical / 20).max(1), |w| w.to_pages(logical).max(1));
        // A YCSB run counts operations: its precondition is the load
        // (unless the load is what is measured) and it has no warm-up.
        let w = &cfg.workload;
        let precondition_pages = match cfg.workload.precondition {
            _ if ycsb && w.ycsb == YcsbWorkload::Load => 0,
            _ if ycsb => w.records,
            Precondition::None => 0,
            Precondition::SequentialFill => logical,
        };
        let warmup_pages = cfg.warmup_pages();
        let measured = match (cfg.workload.requests, cfg.workload.writes) {
            _ if ycsb && w.ycsb == YcsbWorkload::Load => Measured::Requests(w.records),
            _ if ycsb => Measured::Requests(w.operations),
            (Some(r), _) => Measured::Requests(r),
            (None, w) => Measured::Pages(w.unwrap_or(DEFAULT_WRITES).to_pages(logical)),
        };
        let total = precondition_pages
            + warmup_pages
            + match measured {
                Measured::Requests(r) | Measured::Pages(r) => r,
            };
        let arrivals = match cfg.workload.kind {
            WorkloadType::Trace => ArrivalSource::Given,
            _ => ArrivalSource::Synthetic,
        };
        // Checked when the run is built rather than in the plan: a sweep's
        // base config may leave the rate to its grid (ftlsim-py's sweep
        // checks the base alone).
        if let Some(t) = &cfg.timing {
            if t.mode == TimingMode::Open
                && arrivals == ArrivalSource::Synthetic
                && t.arrival_rate_iops.is_none()
            {
                return Err(crate::ConfigError::new(
                    "timing.arrival_rate_iops",
                    "open loop with a synthetic workload needs an arrival rate (or use timing.mode = \"closed\")",
                )
                .into());
            }
        }
        let mut timer = cfg
            .timing
            .as_ref()
            .map(|t| Timer::new(t, &cfg.device, cfg.workload.seed, arrivals));
        if let (Some(timer), Some(lsm)) = (&mut timer, &lsm) {
            if lsm.background_threads() > 0 {
                // The engine's scheduler says when each request enters.
                timer.take_issue_times();
            }
        }
        // Built once: an application model's source asks it whether writes
        // carry content, and the driver draws from it.
        let generator = Generator::from_plan(&plan.workload);
        let mut driver_external = None;
        if cfg.workload.kind.is_app() {
            // Application models are sources like a trace, built here.
            driver_external = Some(External::new(
                Box::new(crate::app::pcapps::AppSource::new(&plan.workload)),
                generator.has_content(),
            ));
        }
        Ok(Self {
            cfg: cfg.clone(),
            device,
            driver: Driver {
                generator,
                synthetic: Synthetic::default(),
                external: driver_external,
                lsm,
                recorder: Recorder::new(window, options.check, options.cancel.clone()),
                timer,
                req: Request::default(),
                source_exhausted: false,
                pipeline: !options.one_thread && pipeline_allowed()?,
            },
            done: 0,
            total,
            precondition_pages,
            warmup_pages,
            measured,
            foreseen: future.is_some(),
            measured_windows: 0,
            end_of_life: None,
            layers_at_start: Vec::new(),
            streams_at_start: Vec::new(),
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
        let mut sim = Self::new_inner(cfg, options, Foresight::Foresee)?;
        sim.attach(cfg, source);
        Ok(sim)
    }

    /// [`Simulation::with_source`] for a config with the oracle: `prepass`
    /// is a second reader of the same requests, run first to learn each
    /// page write's remaining lifetime (a trace file opened twice).
    pub fn with_source_foreseen(
        cfg: &Config,
        options: &RunOptions,
        source: Box<dyn RequestSource>,
        prepass: Box<dyn RequestSource>,
    ) -> Result<Self, SimError> {
        let mut pre = Self::new_inner(cfg, options, Foresight::Record)?;
        pre.attach(cfg, prepass);
        let lifetimes = pre.lifetimes_of_run(cfg)?;
        let mut sim = Self::new_inner(cfg, options, Foresight::Given(lifetimes))?;
        sim.attach(cfg, source);
        Ok(sim)
    }

    /// Makes `source` the workload; with neither `workload.writes` nor
    /// `workload.requests`, the measured window runs to its end.
    fn attach(&mut self, cfg: &Config, source: Box<dyn RequestSource>) {
        if cfg.workload.requests.is_none() && cfg.workload.writes.is_none() {
            self.measured = Measured::Requests(u64::MAX);
            self.total = self.precondition_pages + self.warmup_pages;
        }
        let fill_content = self.driver.generator.has_content();
        self.driver.external = Some(External::new(source, fill_content));
    }

    /// Whether a trace source ran out before its limits were reached.
    pub fn source_exhausted(&self) -> bool {
        self.driver.source_exhausted
    }

    pub fn ssd(&self) -> &Ssd {
        self.device.ssd()
    }

    /// The SSD and its host layers.
    pub fn device(&self) -> &Stack {
        &self.device
    }

    /// Units of work the measured phase will do (pages, or requests for a mix).
    pub fn measured_units(&self) -> u64 {
        match self.measured {
            Measured::Requests(r) | Measured::Pages(r) => r,
        }
    }

    /// Runs one phase's loop; end of life becomes a flag that stops the
    /// remaining phases.
    fn phase(
        &mut self,
        phase: Phase,
        workload: Workload,
        amount: Measured,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        if self.end_of_life.is_some() {
            return Ok(());
        }
        // A YCSB run's every phase is the engine's: the load's inserts in
        // the precondition (or as the measured workload), then its operations.
        let workload = match self.driver.lsm {
            Some(_) => Workload::Kv {
                load: phase == Phase::Precondition || self.cfg.workload.ycsb == YcsbWorkload::Load,
            },
            None => workload,
        };
        let (max_pages, max_requests) = match amount {
            Measured::Pages(p) => (p, u64::MAX),
            Measured::Requests(r) => (u64::MAX, r),
        };
        let budget = Budget {
            max_pages,
            max_requests,
            done_before: self.done,
            total: self.total,
            timed: phase == Phase::Measure && self.driver.timer.is_some(),
            pipeline: self.driver.pipeline,
        };
        let driver = &mut self.driver;
        let result = if self.device.is_plain() {
            // The SSD alone, statically dispatched; with sharing on, or
            // with none of the write path's features, it gets a loop of its
            // own (see SharedSsd, PlainSsd; timed or not).
            let ssd = self.device.ssd_mut();
            if ssd.sharing().is_some() {
                let mut shared = target::SharedSsd::of(ssd).expect("sharing is on");
                driver.drive(&mut shared, phase, workload, budget, progress)
            } else if let Some(mut plain) = target::PlainSsd::<false>::of(ssd) {
                driver.drive(&mut plain, phase, workload, budget, progress)
            } else if let Some(mut logged) = target::PlainSsd::<true>::of(ssd) {
                driver.drive(&mut logged, phase, workload, budget, progress)
            } else {
                driver.drive(ssd, phase, workload, budget, progress)
            }
        } else {
            driver.drive(&mut self.device, phase, workload, budget, progress)
        };
        self.done += match amount {
            Measured::Pages(p) | Measured::Requests(p) if p != u64::MAX => p,
            _ => 0,
        };
        match result {
            Err(SimError::EndOfLife { .. }) => {
                self.end_of_life = Some(phase);
                Ok(())
            }
            other => other,
        }
    }

    /// Sequential fill of the logical space (when the config asks for it).
    pub fn precondition(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), SimError> {
        let pages = self.precondition_pages;
        self.phase(
            Phase::Precondition,
            Workload::Fill,
            Measured::Pages(pages),
            progress,
        )
    }

    /// Writes that age the device but are excluded from the measurement.
    pub fn warm_up(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), SimError> {
        let workload = if self.driver.external.is_some() {
            Workload::External
        } else {
            Workload::Writes
        };
        let pages = self.warmup_pages;
        self.phase(Phase::Warmup, workload, Measured::Pages(pages), progress)
    }

    /// The measured window.
    pub fn measure(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), SimError> {
        // Past the foreseen window every write would look as if it never died.
        if self.foreseen && self.measured_windows > 0 {
            return Err(SimError::BadRequest("this run's future was foreseen for one measured window (its pre-pass ran the config's phases once); a second measure() would place writes it never saw: make workload.writes cover the whole window instead".into()));
        }
        self.measured_windows += 1;
        self.driver.recorder.measure_start = Some(*self.ssd().counters());
        self.layers_at_start = layer_stats(&self.device);
        self.streams_at_start = self.ssd().stream_counters().to_vec();
        self.device.ssd_mut().reset_survival();
        let measured = self.measured;
        if let Some(timer) = self.driver.timer.as_mut() {
            let request_pages = u64::from(self.driver.generator.request_pages());
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
            timer.attach(self.device.ssd_mut());
        }
        if let Some(lsm) = &mut self.driver.lsm {
            lsm.start_measuring();
            if self.driver.timer.is_some() {
                lsm.start_background();
            }
        }
        let workload = match (self.driver.external.is_some(), measured) {
            (true, _) => Workload::External,
            (false, Measured::Pages(_)) => Workload::Writes,
            (false, Measured::Requests(_)) => Workload::Mix,
        };
        self.phase(Phase::Measure, workload, measured, progress)
    }

    /// Every phase in order: precondition, warm-up, the measured window
    /// (then [`Simulation::finish`] for the report; a front end may look at
    /// the run in between, as `source_exhausted`).
    pub fn run_phases(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<(), SimError> {
        self.precondition(progress)?;
        self.warm_up(progress)?;
        self.measure(progress)
    }

    /// The report of the measured window.
    pub fn finish(mut self) -> Result<Report, SimError> {
        let start = self.driver.recorder.measure_start.unwrap_or_default();
        // A last, partial window: kept when it is at least half a window
        // (a sliver of a window gives a WAF that is mostly noise) or when
        // the measured phase has no sample yet.
        let since =
            self.ssd().counters().host_write_pages - self.driver.recorder.last.host_write_pages;
        let measured_sampled = self
            .driver
            .recorder
            .rows
            .iter()
            .any(|r| r.phase == Phase::Measure);
        if since > 0 && (2 * since >= self.driver.recorder.window || !measured_sampled) {
            // A stack of no layers samples as its SSD does.
            self.driver.recorder.sample(&self.device, Phase::Measure)?;
        }
        if self.driver.recorder.check && self.end_of_life.is_none() {
            if let Some(lsm) = &self.driver.lsm {
                lsm.check_invariants()?;
            }
            self.device.check_invariants()?;
        }
        // A YCSB run's engine is the top row (over the window already).
        let engine = self.driver.lsm.as_ref().map(LsmSource::layer_row);
        let below = layer_stats(&self.device)
            .iter()
            .zip(
                self.layers_at_start
                    .iter()
                    .chain(std::iter::repeat(&LayerStats::default())),
            )
            .map(|(now, then)| now.since(then))
            .collect::<Vec<_>>();
        let layers: Vec<LayerStats> = engine.into_iter().chain(below).collect();
        let timing = self
            .driver
            .timer
            .as_mut()
            .map(Timer::summary)
            .filter(|t| t.requests > 0);
        let m: Counters = self.ssd().counters().since(&start);
        let empty_reason = match self.end_of_life {
            Some(Phase::Precondition) => {
                Some("the device reached end of life during preconditioning".to_string())
            }
            Some(Phase::Warmup) => {
                Some("the device reached end of life during warm-up".to_string())
            }
            _ if self.measured_units() == 0 => Some(
                "the measured window is empty (workload.writes or workload.requests is 0)"
                    .to_string(),
            ),
            _ => None,
        };
        let window = report::Window::of(&m, empty_reason);
        let lsm = self
            .driver
            .lsm
            .as_mut()
            .map(|lsm| lsm.report(window.waf, timing.as_ref().map(|t| t.sim_time_ns)));
        let (cfg, ssd) = (&self.cfg, self.device.ssd());
        let wear = report::Wear::of(ssd);
        let streams = ssd
            .stream_counters()
            .iter()
            .zip(
                self.streams_at_start
                    .iter()
                    .chain(std::iter::repeat(&StreamCounters::default())),
            )
            .enumerate()
            .map(|(i, (now, then))| {
                let stream = i as u16;
                report::StreamReport::of(stream, &now.since(then)).with_lifetimes(
                    ssd.stream_survival(stream, false),
                    ssd.stream_survival(stream, true),
                )
            })
            .collect();
        Ok(Report {
            seed: cfg.workload.seed,
            window,
            lsm,
            lifetime: report::Lifetime::of(cfg, ssd, &m, &wear, self.end_of_life.is_some()),
            wear,
            survival: report::Survival::of(ssd),
            device: report::Device {
                logical_pages: u64::from(ssd.logical_pages()),
                physical_pages: cfg.physical_pages(),
                spare_factor: cfg.device.spare_factor,
                precondition_pages: self.precondition_pages,
                warmup_pages: self.warmup_pages,
                total_host_write_pages: ssd.counters().host_write_pages,
                state_bytes_per_physical_page: ssd.state_bytes_per_physical_page(),
            },
            timing: report::Timing::of(timing.as_ref()),
            sharing: report::Sharing::of(ssd, &m),
            mapping_cache: report::MappingCache::of(cfg, &m),
            fdp: report::FdpReport::of(cfg, &m),
            tcwa: report::tcwa(&layers),
            layers,
            streams,
            series: std::mem::take(&mut self.driver.recorder.rows),
            layer_series: std::mem::take(&mut self.driver.recorder.layer_rows),
            latency_series: timing.as_ref().map_or_else(Vec::new, |t| t.series.clone()),
            channel_busy: timing
                .as_ref()
                .map_or_else(Vec::new, |t| t.channels.clone()),
            lun_busy: timing.map_or_else(Vec::new, |t| t.luns),
        })
    }
}

impl Driver {
    /// Runs one phase: picks the feed and whether requests are timed, then
    /// the loop specialized for them.
    fn drive<D: Target>(
        &mut self,
        dev: &mut D,
        phase: Phase,
        workload: Workload,
        budget: Budget,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        let timer = self.timer.as_mut().filter(|_| budget.timed);
        let recorder = &mut self.recorder;
        let (generator, req) = (&mut self.generator, &mut self.req);
        let ended = match workload {
            Workload::Fill => {
                let feed = &mut feed::Fill {
                    generator,
                    req,
                    next_lpn: 0,
                };
                run_loop(dev, feed, recorder, timer, phase, budget, progress)?
            }
            Workload::Writes => {
                let feed = &mut feed::Writes {
                    generator,
                    synthetic: &mut self.synthetic,
                    req,
                };
                run_loop(dev, feed, recorder, timer, phase, budget, progress)?
            }
            Workload::Mix => {
                let feed = &mut feed::Mix { generator, req };
                run_loop(dev, feed, recorder, timer, phase, budget, progress)?
            }
            Workload::External => {
                let feed = &mut feed::Replay {
                    external: self
                        .external
                        .as_mut()
                        .expect("an external workload has a source"),
                    generator,
                };
                run_loop(dev, feed, recorder, timer, phase, budget, progress)?
            }
            Workload::Kv { load } => {
                // The precondition (the load) comes as pages, the measured
                // window as requests: either way, operations. The feed ends
                // after them; that is not a source running out.
                let count = match phase {
                    Phase::Warmup => 0,
                    _ => budget.max_pages.min(budget.max_requests),
                };
                let lsm = self
                    .lsm
                    .as_mut()
                    .expect("a key-value workload has an engine");
                let budget = Budget {
                    max_pages: u64::MAX,
                    max_requests: u64::MAX,
                    ..budget
                };
                run_loop(
                    dev,
                    &mut lsm.feed(load, count),
                    recorder,
                    timer,
                    phase,
                    budget,
                    progress,
                )?;
                false
            }
        };
        self.source_exhausted |= ended;
        Ok(())
    }
}

/// The one request loop: until `budget.max_pages` host pages were written,
/// `budget.max_requests` requests ran, or the feed ends (returns `true`
/// then). Static dispatch throughout: one compact copy per target, feed and
/// clock, out of line.
#[inline(never)]
fn drive_requests<D: Target, F: Feed, C: Clock>(
    dev: &mut D,
    feed: &mut F,
    recorder: &mut Recorder,
    clock: &mut C,
    phase: Phase,
    budget: Budget,
    progress: &mut dyn FnMut(Progress),
) -> Result<bool, SimError> {
    let (mut written, mut requests) = (0u64, 0u64);
    let counts_pages = budget.max_pages != u64::MAX;
    while written < budget.max_pages && requests < budget.max_requests {
        let Some(req) = feed.next(dev, clock, budget.max_pages - written)? else {
            return Ok(true);
        };
        let ticket = clock.begin(dev, req)?;
        let result = dev.submit(req);
        let timed = clock.finish(dev, ticket, result.is_err())?;
        let done = result?;
        if req.op == Op::Write {
            written += u64::from(req.pages);
        }
        feed.completed(&done, timed, clock)?;
        requests += 1;
        let sampled = feed.between_units() && recorder.due(dev);
        if sampled {
            recorder.sample(dev, phase)?;
        }
        if sampled || requests % PROGRESS_EVERY_REQUESTS == 0 {
            let units = feed
                .units_done()
                .unwrap_or(if counts_pages { written } else { requests });
            progress(Progress {
                phase,
                done: budget.done_before + units,
                total: budget.total,
                counters: *dev.ssd().counters(),
            });
            if recorder.cancelled() {
                return Err(SimError::Interrupted);
            }
        }
    }
    Ok(false)
}

/// Runs a config from an erased device to a report.
pub fn run(
    cfg: &Config,
    options: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, SimError> {
    let mut sim = Simulation::new(cfg, options)?;
    sim.run_phases(progress)?;
    sim.finish()
}
