//! `ftlsim bench`: simulation throughput (host page writes per second) and memory,
//! and each case's rate as a fraction of the memory limit measured in the
//! same run (`limit.rs`).

mod limit;
mod placement;

use std::time::Instant;

use ftlsim::config::{Amount, Config, WorkloadType};
use ftlsim::timing::TimingConfig;
use ftlsim::{pipeline_allowed, RunOptions, Simulation};
use serde::Serialize;

use crate::error::{Result, RunError};
pub use limit::{MemoryLimit, UPDATES_PER_HOST_WRITE};
pub use placement::{placement_case, render_placement, PlacementBenchCase, PlacementBenchRun};

#[derive(Debug, Clone, Serialize)]
pub struct BenchCase {
    pub name: String,
    pub blocks: u32,
    pub pages_per_block: u32,
    pub spare_factor: f64,
    /// Median over the timed segments.
    pub host_writes_per_sec: f64,
    pub segments_writes_per_sec: Vec<f64>,
    pub waf: f64,
    pub state_bytes_per_physical_page: f64,
    /// The memory limit over this case's L2P, measured right after its
    /// segments, and `host_writes_per_sec` as a fraction of it.
    #[serde(flatten)]
    pub memory_limit: MemoryLimit,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// The headline: the first case (64 GiB, Sf 0.28 unless --quick).
    pub host_writes_per_sec: f64,
    pub peak_rss_bytes: Option<u64>,
    pub bytes_per_physical_page: f64,
    pub cases: Vec<BenchCase>,
    /// Dedup on (remap-based FTL with Coldmap placement), 30 % duplicate
    /// pages, on the 16 GiB device of `reproduce coldmap` (the last case).
    pub dedup_host_writes_per_sec: f64,
    /// Timing on: requests simulated per second, closed loop QD 32, random
    /// 4 KiB writes in steady state (the first timed case, Sf 0.28).
    pub timed_requests_per_sec: f64,
    pub timed_cases: Vec<TimedBenchCase>,
    /// A native-format trace (random 4 KiB writes with per-page
    /// fingerprints) replayed into the simulator: requests per second,
    /// median of the timed segments, reading and decoding included.
    pub trace_replay_requests_per_sec: f64,
    pub trace_replay_segments_requests_per_sec: Vec<f64>,
    /// One log layer (capacity 0.9, block-sized segments, trim) over the
    /// first case's device.
    pub log_layer: LogBenchCase,
    /// YCSB through the LSM engine with full RemapCom (examples/remapcom.toml).
    pub lsm: LsmBenchCase,
    /// The gcc model without a layer, with autostream, with pcstream.
    pub assigners: AssignerBenchCase,
}

/// YCSB Load then workload A through the LSM engine, its file layer, the
/// FTL and the timing model, with flushes and compactions on the engine's
/// background thread in simulated time (the example's `[timing]` makes
/// `lsm.background_threads` 1): one run, timed whole.
#[derive(Debug, Clone, Serialize)]
pub struct LsmBenchCase {
    pub name: String,
    pub records: u64,
    pub operations: u64,
    pub wall_secs: f64,
    /// Load records plus workload operations per wall-clock second.
    pub kv_ops_per_sec: f64,
    /// Workload A's operations per simulated second (the timing model),
    /// to the end of the window.
    pub simulated_kv_ops_per_sec: Option<f64>,
    /// Background threads, the writer's throughput to its last operation
    /// and the time its writes stalled (simulated).
    pub background_threads: Option<u32>,
    pub simulated_throughput_ops_per_s: Option<f64>,
    pub stall_us: Option<f64>,
    pub engine_wa: f64,
}

/// The case: 1 M records of 1 KiB loaded, then 1 M operations of
/// workload A (`--quick`: a tenth of each), full RemapCom.
pub fn lsm_case(quick: bool) -> Result<LsmBenchCase> {
    let mut cfg: Config = toml::from_str(include_str!("../../../examples/remapcom.toml"))?;
    let n = if quick { 100_000 } else { 1_000_000 };
    cfg.workload.records = n;
    cfg.workload.operations = n;
    let start = Instant::now();
    let report = ftlsim::run(&cfg, &RunOptions::default(), &mut |_| {})?;
    let wall_secs = start.elapsed().as_secs_f64();
    let lsm = report
        .lsm
        .ok_or_else(|| RunError::Internal("a YCSB run reports its lsm section".into()))?;
    Ok(LsmBenchCase {
        name: format!("YCSB load {n} x 1 KiB + {n} ops of A, full RemapCom, bg"),
        records: n,
        operations: n,
        wall_secs,
        kv_ops_per_sec: (2 * n) as f64 / wall_secs,
        simulated_kv_ops_per_sec: lsm.kv_ops_per_sec,
        background_threads: lsm.background_threads,
        simulated_throughput_ops_per_s: lsm.throughput_ops_per_s,
        stall_us: lsm.stall_us,
        engine_wa: lsm.engine_wa,
    })
}

/// A log layer over the FTL: page writes per second at the top of the
/// stack and at the device (the layer's cleaning writes included), to hold
/// against the plain case's host page writes per second.
#[derive(Debug, Clone, Serialize)]
pub struct LogBenchCase {
    pub name: String,
    pub top_writes_per_sec: f64,
    pub device_writes_per_sec: f64,
    /// Device page writes per second over the plain FTL's host page writes
    /// per second on the same device.
    pub device_writes_vs_plain: f64,
    pub log_wa: f64,
    pub waf: f64,
}

/// Generates a native trace of random 4 KiB writes over the logical space of
/// a 4096-block device at Sf 0.28, then replays it into the simulator after
/// a sequential fill: the trace path of `ftlsim run`, timed.
fn trace_replay_case(segments: usize) -> Result<Vec<f64>> {
    let mut cfg = device(4096, 256, 0.28);
    cfg.workload.kind = WorkloadType::Trace;
    cfg.workload.warmup = Some(Amount::Pages(0));
    let per_segment = 2_000_000u64;
    let path = std::env::temp_dir().join(format!("ftlsim-bench-{}.ftlt", std::process::id()));
    let opts = ftlsim_trace::FioDedupeOptions {
        logical_pages: cfg.logical_pages(),
        requests: per_segment * segments as u64,
        seed: 7,
        ..ftlsim_trace::FioDedupeOptions::default()
    };
    crate::trace_source::generate(&path, opts, 4096)?;
    cfg.workload.trace.path = path.display().to_string();
    cfg.workload.writes = None;
    cfg.workload.requests = Some(per_segment);
    let result = (|| {
        let (source, _) = crate::trace_source::open_source(&cfg)?;
        let mut sim = Simulation::with_source(&cfg, &RunOptions::default(), source)?;
        sim.precondition(&mut |_| {})?;
        let mut rates = Vec::with_capacity(segments);
        for _ in 0..segments {
            let start = Instant::now();
            sim.measure(&mut |_| {})?;
            rates.push(per_segment as f64 / start.elapsed().as_secs_f64());
        }
        Ok(rates)
    })();
    let _ = std::fs::remove_file(&path);
    result
}

/// A bench case with the timing model on.
#[derive(Debug, Clone, Serialize)]
pub struct TimedBenchCase {
    pub name: String,
    pub blocks: u32,
    pub pages_per_block: u32,
    pub spare_factor: f64,
    pub queue_depth: u32,
    /// Requests simulated per wall-clock second, median over the timed segments.
    pub requests_per_sec: f64,
    pub segments_requests_per_sec: Vec<f64>,
    /// The same per second of the process's CPU time, every thread's
    /// (median; absent where the OS does not give it): what the run costs
    /// a sweep that keeps every core busy.
    pub requests_per_cpu_sec: Option<f64>,
    /// The timing model ran on a thread of its own (`ftlsim::run` pipeline:
    /// two cores or more and `FTLSIM_PIPELINE` not `0`).
    pub pipelined: bool,
    pub waf: f64,
    /// What the simulated device did in the last segment.
    pub simulated_iops: f64,
    pub write_latency_us_p99: f64,
    /// The memory limit over this case's L2P, and `requests_per_sec` (one
    /// page per request) as a fraction of it.
    #[serde(flatten)]
    pub memory_limit: MemoryLimit,
}

/// Random 4 KiB writes through the timing model, closed loop at `queue_depth`,
/// after the same untimed fill and warm-up as the plain cases.
fn timed_case(
    blocks: u32,
    spare_factor: f64,
    queue_depth: u32,
    segments: usize,
) -> Result<TimedBenchCase> {
    let mut cfg = device(blocks, 256, spare_factor);
    cfg.timing = Some(TimingConfig {
        queue_depth,
        ..TimingConfig::default()
    });
    let (sim, rates) = steady_state(&cfg, segments)?;
    let l2p_entries = sim.ssd().l2p_entries();
    let report = sim.finish()?;
    let per_cpu = (rates.top_per_cpu.len() == rates.top.len()).then(|| median(&rates.top_per_cpu));
    let rates = rates.top;
    // After the simulation is gone: its tables and the loop's never
    // compete for memory, and the peak RSS stays the simulation's.
    let memory_limit = MemoryLimit::measure(l2p_entries, segments, median(&rates));
    Ok(TimedBenchCase {
        name: format!(
            "timed QD {queue_depth} uniform {blocks} blocks x 256 pages, Sf {spare_factor}"
        ),
        blocks,
        pages_per_block: 256,
        spare_factor,
        queue_depth,
        requests_per_sec: median(&rates),
        segments_requests_per_sec: rates,
        requests_per_cpu_sec: per_cpu,
        // As the runs above would have said it: a bad FTLSIM_PIPELINE is
        // the simulation's config error.
        pipelined: pipeline_allowed().map_err(ftlsim::SimError::from)?,
        waf: report.window.waf.unwrap_or(0.0),
        simulated_iops: report.timing.iops.unwrap_or(0.0),
        write_latency_us_p99: report.timing.write_latency_us_p99.unwrap_or(0.0),
        memory_limit,
    })
}

/// Ages the device (fill, warm-up), then times `segments` measured windows:
/// the rate of each, in the run's units (pages written at the top of the
/// stack) and in page writes the device received.
fn steady_state_rates(cfg: &Config, segments: usize) -> Result<(Simulation, Vec<f64>, Vec<f64>)> {
    let (sim, rates) = steady_state(cfg, segments)?;
    Ok((sim, rates.top, rates.device))
}

/// Each measured window's rates: top and device per wall-clock second, and
/// top per second of the process's CPU time (every thread's; absent where
/// the OS does not give it).
struct Rates {
    top: Vec<f64>,
    device: Vec<f64>,
    top_per_cpu: Vec<f64>,
}

/// [`steady_state_rates`] with the CPU-time rates too.
fn steady_state(cfg: &Config, segments: usize) -> Result<(Simulation, Rates)> {
    let mut sim = Simulation::new(cfg, &RunOptions::default())?;
    sim.precondition(&mut |_| {})?;
    sim.warm_up(&mut |_| {})?;
    let mut rates = Rates {
        top: Vec::with_capacity(segments),
        device: Vec::with_capacity(segments),
        top_per_cpu: Vec::with_capacity(segments),
    };
    for _ in 0..segments {
        let before = sim.ssd().counters().host_write_pages;
        let (start, cpu_start) = (Instant::now(), cpu_secs(libc::CLOCK_PROCESS_CPUTIME_ID));
        sim.measure(&mut |_| {})?;
        let secs = start.elapsed().as_secs_f64();
        let units = sim.measured_units() as f64;
        rates.top.push(units / secs);
        rates
            .device
            .push((sim.ssd().counters().host_write_pages - before) as f64 / secs);
        if let (Some(a), Some(b)) = (cpu_start, cpu_secs(libc::CLOCK_PROCESS_CPUTIME_ID)) {
            rates.top_per_cpu.push(units / (b - a));
        }
    }
    Ok((sim, rates))
}

/// The log layer case: page writes per second at the top and at the device.
fn log_case(blocks: u32, segments: usize, plain_writes_per_sec: f64) -> Result<LogBenchCase> {
    let mut cfg = device(blocks, 256, 0.28);
    cfg.host.layers = vec![ftlsim::host::LayerConfig::Log(
        ftlsim::host::log::LogConfig {
            capacity_ratio: 0.9,
            segment_pages: 256,
            ..Default::default()
        },
    )];
    let (sim, top, dev) = steady_state_rates(&cfg, segments)?;
    let report = sim.finish()?;
    let device_writes_per_sec = median(&dev);
    Ok(LogBenchCase {
        name: format!("log layer (0.9, 256-page segments) over {blocks} blocks, Sf 0.28"),
        top_writes_per_sec: median(&top),
        device_writes_per_sec,
        device_writes_vs_plain: device_writes_per_sec / plain_writes_per_sec,
        log_wa: report.layers[0].wa.unwrap_or(0.0),
        waf: report.window.waf.unwrap_or(0.0),
    })
}

/// The stream assigners' cost: the gcc application model (PC-tagged,
/// examples/pcstream/gcc.toml) without a layer, with `autostream` and with
/// `pcstream`, same device and seed. Host page writes per second at the
/// top of the stack; the ratios are what the issue bounds (at most 25 %
/// slower). The layers change the device's WAF (fewer GC copies with
/// streams), so the FTL's share of the work differs between the runs.
#[derive(Debug, Clone, Serialize)]
pub struct AssignerBenchCase {
    pub name: String,
    pub blocks: u32,
    pub pages_per_block: u32,
    pub runs: Vec<AssignerBenchRun>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AssignerBenchRun {
    /// `none`, `pass-through` (a layer that only passes requests down),
    /// `autostream` or `pcstream`.
    pub layer: String,
    /// Median over the timed segments.
    pub host_writes_per_sec: f64,
    pub segments_writes_per_sec: Vec<f64>,
    /// The same per second of this thread's CPU time (median; absent where
    /// the OS does not give a thread's CPU time).
    pub host_writes_per_cpu_sec: Option<f64>,
    /// CPU time (wall time without it) per page over the no-layer run's,
    /// minus one (0.21 = 21 % slower).
    pub cost_vs_no_layer: f64,
    pub waf: f64,
    /// The layer's tables per logical page (absent without a layer).
    pub state_bytes_per_logical_page: Option<f64>,
}

pub fn assigner_case(
    quick: bool,
    segments: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<AssignerBenchCase> {
    check_segments(segments)?;
    let blocks = if quick { 2048 } else { 16_384 };
    // `pass-through`: a layer that only passes requests down (lba-streams
    // with no ranges), the stack's own cost, to read the others against.
    let layers = ["none", "pass-through", "autostream", "pcstream"];
    let mut sims = Vec::new();
    for layer in layers {
        progress(&format!(
            "gcc model, {blocks} blocks x 64 pages, layer {layer}: ageing"
        ));
        let mut cfg: Config = toml::from_str(include_str!("../../../examples/pcstream/gcc.toml"))?;
        cfg.device.blocks = blocks;
        // Segments of 2x the logical space (1x with --quick): long enough
        // (0.1-0.2 s) that scheduler noise does not swamp a 10 % difference.
        cfg.workload.warmup = Some(Amount::Capacity(1.0));
        cfg.workload.writes = Some(Amount::Capacity(if quick { 1.0 } else { 2.0 }));
        cfg.host.layers = match layer {
            "pass-through" => vec![ftlsim::host::LayerConfig::LbaStreams(Default::default())],
            "autostream" => vec![ftlsim::host::LayerConfig::Autostream(Default::default())],
            "pcstream" => vec![ftlsim::host::LayerConfig::Pcstream(Default::default())],
            _ => vec![],
        };
        let mut sim = Simulation::new(&cfg, &RunOptions::default())?;
        sim.precondition(&mut |_| {})?;
        sim.warm_up(&mut |_| {})?;
        sims.push(sim);
    }
    // The layers' segments alternate, so that a change in the machine's
    // load (other processes) falls on all of them alike.
    let mut rates = vec![Vec::with_capacity(segments); layers.len()];
    let mut cpu_rates = vec![Vec::with_capacity(segments); layers.len()];
    for round in 0..segments {
        progress(&format!(
            "gcc model, timed round {} of {segments}",
            round + 1
        ));
        for ((sim, rates), cpu_rates) in sims.iter_mut().zip(&mut rates).zip(&mut cpu_rates) {
            let (start, cpu_start) = (Instant::now(), thread_cpu_secs());
            sim.measure(&mut |_| {})?;
            let pages = sim.measured_units() as f64;
            rates.push(pages / start.elapsed().as_secs_f64());
            if let (Some(a), Some(b)) = (cpu_start, thread_cpu_secs()) {
                cpu_rates.push(pages / (b - a).max(1e-9));
            }
        }
    }
    let mut runs: Vec<AssignerBenchRun> = Vec::new();
    for (((layer, sim), rates), cpu) in layers.into_iter().zip(sims).zip(rates).zip(cpu_rates) {
        let report = sim.finish()?;
        let host_writes_per_sec = median(&rates);
        let host_writes_per_cpu_sec = (!cpu.is_empty()).then(|| median(&cpu));
        // The cost from CPU time where the OS gives it: on a shared machine
        // wall time also counts the other processes' turns.
        let (mine, plain) = match (host_writes_per_cpu_sec, runs.first()) {
            (Some(m), Some(first)) => (m, first.host_writes_per_cpu_sec.unwrap_or(m)),
            (Some(m), None) => (m, m),
            (None, first) => (
                host_writes_per_sec,
                first.map_or(host_writes_per_sec, |r| r.host_writes_per_sec),
            ),
        };
        runs.push(AssignerBenchRun {
            layer: layer.to_string(),
            host_writes_per_sec,
            segments_writes_per_sec: rates,
            host_writes_per_cpu_sec,
            cost_vs_no_layer: plain / mine - 1.0,
            waf: report.window.waf.unwrap_or(0.0),
            state_bytes_per_logical_page: report
                .layers
                .first()
                .and_then(|l| l.assigner)
                .map(|a| a.state_bytes_per_logical_page),
        });
    }
    Ok(AssignerBenchCase {
        name: format!("gcc model, {blocks} blocks x 64 pages, Sf 0.10, 9 streams"),
        blocks,
        pages_per_block: 64,
        runs,
    })
}

/// This thread's CPU time in seconds, if the OS gives it.
fn thread_cpu_secs() -> Option<f64> {
    cpu_secs(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time in seconds on `clock` (this thread's or the process's), if the
/// OS gives it.
fn cpu_secs(clock: libc::clockid_t) -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

pub fn render_assigners(c: &AssignerBenchCase) -> String {
    let mut s = String::new();
    for r in &c.runs {
        s += &format!(
            "{:<52} {:>6.2} M host writes/s, {:.2} M per CPU-s (medians of {}), {:+.1} % vs no layer, WAF {:.3}{}\n",
            format!("{}, {}", c.name, r.layer),
            r.host_writes_per_sec / 1e6,
            r.host_writes_per_cpu_sec.unwrap_or(0.0) / 1e6,
            r.segments_writes_per_sec.len(),
            100.0 * r.cost_vs_no_layer,
            r.waf,
            r.state_bytes_per_logical_page
                .map_or(String::new(), |b| format!(", {b:.3} B/logical page"))
        );
    }
    s
}

/// Peak resident set size of this process (Linux VmHWM), if it can be read.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// The Coldmap experiment's device (16 GiB, Sf 0.25; 4096 blocks with
/// --quick) with dedup on and 30 % of written pages duplicates, uniform
/// random single-page writes, timed like the plain cases.
fn dedup_case(quick: bool, segments: usize) -> Result<BenchCase> {
    let blocks = if quick { 4096 } else { 16_384 };
    let spare_factor = 0.25;
    let mut cfg = device(blocks, 256, spare_factor);
    cfg.ftl.dedup = true;
    cfg.ftl.placement = ftlsim::config::PlacementName::Coldmap;
    cfg.workload.dedup_fraction = 0.3;
    let (sim, rates, _) = steady_state_rates(&cfg, segments)?;
    let bytes = sim.ssd().state_bytes_per_physical_page();
    let l2p_entries = sim.ssd().l2p_entries();
    let report = sim.finish()?;
    let memory_limit = MemoryLimit::measure(l2p_entries, segments, median(&rates));
    Ok(BenchCase {
        name: format!("dedup 30% coldmap {blocks} blocks x 256 pages, Sf {spare_factor}"),
        blocks,
        pages_per_block: 256,
        spare_factor,
        host_writes_per_sec: median(&rates),
        segments_writes_per_sec: rates,
        waf: report.window.waf.unwrap_or(0.0),
        state_bytes_per_physical_page: bytes,
        memory_limit,
    })
}

/// Uniform random single-page writes, greedy GC, every metric on.
fn device(blocks: u32, pages_per_block: u32, spare_factor: f64) -> Config {
    let mut c = Config::default();
    c.device.blocks = blocks;
    c.device.pages_per_block = pages_per_block;
    c.device.spare_factor = spare_factor;
    c.workload.kind = WorkloadType::Uniform;
    c.workload.warmup = Some(Amount::Capacity(1.5));
    c.workload.writes = Some(Amount::Capacity(0.5));
    c.metrics.survival = true;
    c
}

/// Refuses a benchmark without a timed segment: it has no median to report.
fn check_segments(segments: usize) -> Result<()> {
    if segments == 0 {
        return Err(RunError::Input(
            "bench needs at least one timed segment".into(),
        ));
    }
    Ok(())
}

pub fn run_bench(
    quick: bool,
    segments: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchReport> {
    // A median of nothing: refuse rather than quietly time one segment.
    check_segments(segments)?;
    let blocks = if quick { 4096 } else { 65_536 };
    let mut cases = plain_cases(quick, segments, progress)?;
    progress("dedup 30% coldmap, Sf 0.25");
    let dedup = dedup_case(quick, segments)?;
    let dedup_host_writes_per_sec = dedup.host_writes_per_sec;
    cases.push(dedup);
    let timed_cases = timed_cases(quick, segments, progress)?;
    progress("native trace replay, 4096 blocks x 256 pages, Sf 0.28");
    let replay = trace_replay_case(segments)?;
    progress(&format!(
        "log layer over {blocks} blocks x 256 pages, Sf 0.28"
    ));
    let log_layer = log_case(blocks, segments, cases[0].host_writes_per_sec)?;
    progress("YCSB load + A through the LSM engine, full RemapCom");
    let lsm = lsm_case(quick)?;
    let assigners = assigner_case(quick, segments, progress)?;
    Ok(BenchReport {
        lsm,
        assigners,
        log_layer,
        trace_replay_requests_per_sec: median(&replay),
        trace_replay_segments_requests_per_sec: replay,
        timed_requests_per_sec: timed_cases[0].requests_per_sec,
        timed_cases,
        host_writes_per_sec: cases[0].host_writes_per_sec,
        dedup_host_writes_per_sec,
        peak_rss_bytes: peak_rss_bytes(),
        bytes_per_physical_page: cases[0].state_bytes_per_physical_page,
        cases,
    })
}

/// The two untimed uniform cases alone (`ftlsim bench --only plain`): the
/// write path and GC, Sf 0.28 and 0.07, each with its memory limit.
pub fn plain_cases(
    quick: bool,
    segments: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<BenchCase>> {
    check_segments(segments)?;
    let blocks = if quick { 4096 } else { 65_536 };
    let mut cases = Vec::new();
    for sf in [0.28, 0.07] {
        let name = format!("uniform greedy {blocks} blocks x 256 pages, Sf {sf}");
        progress(&name);
        let cfg = device(blocks, 256, sf);
        let (sim, rates, _) = steady_state_rates(&cfg, segments)?;
        let bytes = sim.ssd().state_bytes_per_physical_page();
        let l2p_entries = sim.ssd().l2p_entries();
        let report = sim.finish()?;
        let memory_limit = MemoryLimit::measure(l2p_entries, segments, median(&rates));
        cases.push(BenchCase {
            name,
            blocks,
            pages_per_block: 256,
            spare_factor: sf,
            host_writes_per_sec: median(&rates),
            segments_writes_per_sec: rates,
            waf: report.window.waf.unwrap_or(0.0),
            state_bytes_per_physical_page: bytes,
            memory_limit,
        });
    }
    Ok(cases)
}

/// The timed cases alone (`ftlsim bench --only timed`): the timing model's
/// hot path, closed loop QD 32 at Sf 0.28 and 0.07.
pub fn timed_cases(
    quick: bool,
    segments: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<TimedBenchCase>> {
    check_segments(segments)?;
    let blocks = if quick { 4096 } else { 65_536 };
    let mut cases = Vec::new();
    for sf in [0.28, 0.07] {
        progress(&format!(
            "timed QD 32 uniform {blocks} blocks x 256 pages, Sf {sf}"
        ));
        cases.push(timed_case(blocks, sf, 32, segments)?);
    }
    Ok(cases)
}

pub fn render_timed(cases: &[TimedBenchCase]) -> String {
    let mut s = String::new();
    for c in cases {
        s += &format!(
            "{:<52} {:>6.2} M requests/s, {:.2} M per CPU-s (medians of {}{}), WAF {:.3}, simulated {:.0} IOPS, write p99 {:.0} us, {}\n",
            c.name,
            c.requests_per_sec / 1e6,
            c.requests_per_cpu_sec.unwrap_or(0.0) / 1e6,
            c.segments_requests_per_sec.len(),
            if c.pipelined { "; timer on its own thread" } else { "" },
            c.waf,
            c.simulated_iops,
            c.write_latency_us_p99,
            render_limit(&c.memory_limit)
        );
    }
    s += &limit::formula();
    s
}

/// A case's fraction of its memory limit, and the limit.
fn render_limit(l: &MemoryLimit) -> String {
    format!(
        "{:.2} of the memory limit ({:.1} M updates/s / {UPDATES_PER_HOST_WRITE} = {:.1} M host writes/s, {:.0} MiB table)",
        l.fraction_of_limit,
        l.memory_limit_updates_per_sec / 1e6,
        l.memory_limit_host_writes_per_sec / 1e6,
        l.memory_limit_table_bytes as f64 / (1024.0 * 1024.0)
    )
}

/// The untimed cases, one line each (without the formula line).
fn render_cases(cases: &[BenchCase]) -> String {
    let mut s = String::new();
    for c in cases {
        s += &format!(
            "{:<52} {:>6.2} M host writes/s (median of {}), WAF {:.3}, {:.2} B/physical page, {}\n",
            c.name,
            c.host_writes_per_sec / 1e6,
            c.segments_writes_per_sec.len(),
            c.waf,
            c.state_bytes_per_physical_page,
            render_limit(&c.memory_limit)
        );
    }
    s
}

/// `ftlsim bench --only plain`.
pub fn render_plain(cases: &[BenchCase]) -> String {
    render_cases(cases) + &limit::formula()
}

pub fn render(r: &BenchReport) -> String {
    let mut s = render_cases(&r.cases);
    // The formula line comes after the timed cases.
    s += &render_timed(&r.timed_cases);
    s += &format!(
        "{:<52} {:>6.2} M requests/s (median of {})\n",
        "native trace replay, 4096 blocks, Sf 0.28",
        r.trace_replay_requests_per_sec / 1e6,
        r.trace_replay_segments_requests_per_sec.len()
    );
    let l = &r.log_layer;
    s += &format!(
        "{:<52} {:>6.2} M top writes/s, {:.2} M device writes/s ({:.2} x the plain case), log WA {:.3}, WAF {:.3}\n",
        l.name,
        l.top_writes_per_sec / 1e6,
        l.device_writes_per_sec / 1e6,
        l.device_writes_vs_plain,
        l.log_wa,
        l.waf
    );
    s += &render_lsm(&r.lsm);
    s += &render_assigners(&r.assigners);
    if let Some(rss) = r.peak_rss_bytes {
        s += &format!("peak RSS {:.1} MiB\n", rss as f64 / (1024.0 * 1024.0));
    }
    s
}

/// The LSM case's line (`ftlsim bench --only lsm` prints it alone).
pub fn render_lsm(k: &LsmBenchCase) -> String {
    format!(
        "{:<52} {:>6.2} s, {:.0} K KV ops/s (simulated {:.1} K/s, stalled {:.2} s), engine WA {:.2}\n",
        k.name,
        k.wall_secs,
        k.kv_ops_per_sec / 1e3,
        k.simulated_throughput_ops_per_s.unwrap_or(0.0) / 1e3,
        k.stall_us.unwrap_or(0.0) / 1e6,
        k.engine_wa
    )
}
