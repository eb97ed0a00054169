//! The timing model's laws, each checked against numbers derived from the
//! configured times: QD 1 read latency, saturated read IOPS, sequential write
//! throughput, GC in the write tail; plus determinism and bad config.

use ftlsim::config::{Amount, Config, Precondition, WorkloadType};
use ftlsim::timing::{TimingConfig, TimingMode, TimingParams};
use ftlsim::{run, Report, RunOptions, SimError, Simulation};

/// 1024 blocks x 256 pages (1 GiB) on the default 8 channels x 4 LUNs.
fn device() -> Config {
    let mut c = Config::default();
    c.device.blocks = 1024;
    c.device.pages_per_block = 256;
    c.device.spare_factor = 0.1;
    c.device.pe_cycle_limit = 0;
    c.metrics.survival = false;
    c.timing = Some(TimingConfig::default());
    c
}

fn timing(c: &mut Config) -> &mut TimingConfig {
    c.timing.as_mut().unwrap()
}

/// Random single-page reads of a filled device, no warm-up.
fn random_reads(requests: u64, queue_depth: u32) -> Config {
    let mut c = device();
    c.workload.kind = WorkloadType::Uniform;
    c.workload.read_fraction = 1.0;
    c.workload.requests = Some(requests);
    c.workload.warmup = Amount::Pages(0).into();
    timing(&mut c).queue_depth = queue_depth;
    c
}

fn params(c: &Config) -> TimingParams {
    c.timing.as_ref().unwrap().params(&c.device)
}

fn go(c: &Config) -> Report {
    run(c, &RunOptions::default(), &mut |_| {}).unwrap()
}

fn within(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance * want
}

#[test]
fn qd1_read_on_an_idle_drive_takes_read_plus_one_transfer() {
    for (read_us, transfer_us, overhead_us) in
        [(40.0, 10.0, 0.0), (55.5, 3.25, 0.0), (40.0, 10.0, 4.0)]
    {
        let mut c = random_reads(5_000, 1);
        let t = timing(&mut c);
        t.read_latency_us = read_us;
        t.transfer_us_per_page = transfer_us;
        t.controller_overhead_us = overhead_us;
        let r = go(&c);
        let want_us = read_us + transfer_us + overhead_us;
        let mean = r.timing.read_latency_us_mean.unwrap();
        assert!(
            (mean - want_us).abs() < 1e-9,
            "mean {mean} us, want {want_us} us"
        );
        assert!((r.timing.read_latency_us_max.unwrap() - want_us).abs() < 1e-9);
        assert!(
            within(r.timing.iops.unwrap(), 1e6 / want_us, 1e-9),
            "QD 1 IOPS {}",
            r.timing.iops.unwrap()
        );
        assert_eq!(r.timing.write_latency_us_mean, None, "no writes ran");
        assert_eq!(r.timing.gc_time_share, Some(0.0));
    }
}

#[test]
fn qd1_write_without_gc_takes_one_transfer_plus_program() {
    let mut c = device();
    c.workload.kind = WorkloadType::Uniform;
    c.workload.precondition = Precondition::None;
    c.workload.warmup = Amount::Pages(0).into();
    c.workload.writes = Some(Amount::Capacity(0.2));
    timing(&mut c).queue_depth = 1;
    let r = go(&c);
    assert_eq!(r.window.gc_count, 0);
    let t = c.timing.as_ref().unwrap();
    let want_us = t.transfer_us_per_page + t.program_latency_us;
    assert!((r.timing.write_latency_us_mean.unwrap() - want_us).abs() < 1e-9);
}

/// Deep enough that the queues in front of the LUNs never run dry: with N
/// requests spread at random over L LUNs, a closed network keeps each LUN
/// busy about N / (N + L - 1) of the time, over 99 % here.
const DEEP_QUEUE: u32 = 4096;

#[test]
fn saturated_random_reads_reach_the_busier_resources_bound() {
    // (transfer time, which resource binds) on 8 channels x 4 LUNs, tR 40 us:
    // LUNs bound 32 / 40 us = 800 K IOPS; channels bound 8 / transfer time.
    for (transfer_us, luns_per_channel, channels) in
        [(5.0, 4, 8), (20.0, 4, 8), (2.0, 2, 4), (12.0, 8, 2)]
    {
        // Random reads load the LUNs unevenly, and the run lasts until the
        // busiest LUN is done: over n reads that costs about 2 sqrt(n / LUNs)
        // reads of the busiest LUN, 0.7 % at 3 M reads on 32 LUNs.
        let mut c = random_reads(3_000_000, DEEP_QUEUE);
        let t = timing(&mut c);
        t.transfer_us_per_page = transfer_us;
        t.luns_per_channel = Some(luns_per_channel);
        t.channels = Some(channels);
        let params = params(&c);
        let bound = params
            .lun_read_bound_iops()
            .min(params.channel_bound_iops());
        let r = go(&c);
        let iops = r.timing.iops.unwrap();
        assert!(
            within(iops, bound, 0.02),
            "transfer {transfer_us} us, {channels} x {luns_per_channel}: IOPS {iops:.0}, bound {bound:.0} \
             (LUNs {:.0}, channels {:.0})",
            params.lun_read_bound_iops(),
            params.channel_bound_iops()
        );
        assert!(
            iops <= bound * (1.0 + 1e-9),
            "IOPS {iops} above the bound {bound}"
        );
    }
}

#[test]
fn sequential_writes_reach_luns_over_program_time() {
    // An empty device: no GC, so only host programs occupy the LUNs.
    for (program_us, queue_depth) in [(200.0, 64), (600.0, 256)] {
        let mut c = device();
        c.workload.kind = WorkloadType::Sequential;
        c.workload.precondition = Precondition::None;
        c.workload.warmup = Amount::Pages(0).into();
        c.workload.writes = Some(Amount::Capacity(0.5));
        let t = timing(&mut c);
        t.program_latency_us = program_us;
        t.queue_depth = queue_depth;
        let params = params(&c);
        assert!(
            params.channel_bound_iops() > 2.0 * params.lun_program_bound_iops(),
            "programs must dominate"
        );
        let r = go(&c);
        assert_eq!(r.window.gc_count, 0);
        let pages_per_sec =
            r.window.host_write_pages as f64 * 1e9 / r.timing.sim_time_ns.unwrap() as f64;
        let bound = params.lun_program_bound_iops();
        assert!(
            within(pages_per_sec, bound, 0.02),
            "{pages_per_sec:.0} pages/s, LUNs / tPROG = {bound:.0}"
        );
        assert!(
            r.timing.lun_busy_mean.unwrap() > 0.98,
            "LUNs busy {}",
            r.timing.lun_busy_mean.unwrap()
        );
    }
    // One page at a time on one LUN's worth of parallelism: QD 1 gets 1 / (transfer + program).
    let mut c = device();
    c.workload.kind = WorkloadType::Sequential;
    c.workload.precondition = Precondition::None;
    c.workload.warmup = Amount::Pages(0).into();
    c.workload.writes = Some(Amount::Pages(10_000));
    timing(&mut c).queue_depth = 1;
    let r = go(&c);
    assert!(within(r.timing.iops.unwrap(), 1e6 / 210.0, 1e-9));
}

fn random_writes(spare_factor: f64) -> Config {
    let mut c = device();
    c.device.spare_factor = spare_factor;
    c.workload.kind = WorkloadType::Uniform;
    c.workload.warmup = Amount::Capacity(2.0).into();
    c.workload.writes = Some(Amount::Capacity(1.0));
    timing(&mut c).queue_depth = 32;
    c
}

/// A 70/30 write/read mix of `requests` single-page requests on a warm device.
fn random_mix(requests: u64) -> Config {
    let mut c = random_writes(0.1);
    c.workload.read_fraction = 0.3;
    c.workload.writes = None;
    c.workload.requests = Some(requests);
    c
}

#[test]
fn write_tail_latency_rises_with_waf() {
    let mut last: Option<Report> = None;
    for sf in [0.4, 0.2, 0.07] {
        let r = go(&random_writes(sf));
        let p99 = r.timing.write_latency_us_p99.unwrap();
        let t = TimingConfig::default();
        // GC adds work to every write: even the median waits beyond one program.
        assert!(
            r.timing.write_latency_us_mean.unwrap() > t.program_latency_us + t.transfer_us_per_page
        );
        assert!(r.timing.gc_time_share.unwrap() > 0.0);
        if let Some(prev) = &last {
            assert!(r.window.waf.unwrap() > prev.window.waf.unwrap());
            assert!(
                p99 > prev.timing.write_latency_us_p99.unwrap(),
                "Sf {sf}: WAF {:.2} p99 {p99} us, vs WAF {:.2} p99 {} us",
                r.window.waf.unwrap(),
                prev.window.waf.unwrap(),
                prev.timing.write_latency_us_p99.unwrap()
            );
            assert!(r.timing.gc_time_share.unwrap() > prev.timing.gc_time_share.unwrap());
            assert!(r.timing.iops.unwrap() < prev.timing.iops.unwrap());
        }
        last = Some(r);
    }
}

#[test]
fn timing_does_not_change_what_the_ftl_does() {
    let timed = random_writes(0.1);
    let mut untimed = timed.clone();
    untimed.timing = None;
    let (a, b) = (go(&timed), go(&untimed));
    assert_eq!(a.window.nand_write_pages, b.window.nand_write_pages);
    assert_eq!(a.window.gc_count, b.window.gc_count);
    assert_eq!(a.window.waf.unwrap(), b.window.waf.unwrap());
    assert!(
        a.timing.iops.is_some()
            && b.timing.iops.is_none()
            && b.timing.write_latency_us_p99.is_none()
    );
    let json = serde_json::to_value(&b).unwrap();
    assert!(json["iops"].is_null() && json["sim_time_ns"].is_null());
}

#[test]
fn same_seed_gives_identical_timing() {
    let c = random_mix(200_000);
    let a = serde_json::to_string(&go(&c)).unwrap();
    assert_eq!(a, serde_json::to_string(&go(&c)).unwrap());
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    for key in [
        "iops",
        "read_latency_us_p99",
        "write_latency_us_p99",
        "write_latency_us_mean",
        "sim_time_ns",
    ] {
        assert!(
            v[key].as_f64().is_some_and(|x| x > 0.0),
            "{key} = {}",
            v[key]
        );
    }
}

#[test]
fn open_loop_follows_the_arrival_rate_until_the_device_saturates() {
    let mut c = random_reads(100_000, 1024);
    timing(&mut c).mode = TimingMode::Open;
    let p = params(&c);
    let bound = p.lun_read_bound_iops().min(p.channel_bound_iops());
    // Light load: the device keeps up and most reads find it idle.
    timing(&mut c).arrival_rate_iops = Some(0.1 * bound);
    let light = go(&c);
    assert!(
        within(light.timing.iops.unwrap(), 0.1 * bound, 0.02),
        "IOPS {}",
        light.timing.iops.unwrap()
    );
    assert!((light.timing.read_latency_us_p50.unwrap() - 50.0).abs() <= 50.0 / 32.0);
    // Overload: throughput stops at the bound and latency grows with the backlog.
    timing(&mut c).arrival_rate_iops = Some(2.0 * bound);
    let heavy = go(&c);
    assert!(heavy.timing.iops.unwrap() < 1.02 * bound);
    assert!(
        heavy.timing.read_latency_us_p99.unwrap()
            > 10.0 * light.timing.read_latency_us_p99.unwrap()
    );
}

#[test]
fn background_gc_uses_idle_time_and_shortens_the_write_tail() {
    // Open loop random writes at a moderate rate: the device is often idle
    // between arrivals, and with background GC on it reclaims then instead
    // of in front of a host write.
    let mut c = random_writes(0.2);
    timing(&mut c).mode = TimingMode::Open;
    timing(&mut c).arrival_rate_iops = Some(300.0);
    let foreground = go(&c);
    assert_eq!(foreground.window.background_gc_count, 0);
    timing(&mut c).background_gc = true;
    timing(&mut c).background_gc_free_blocks = Some(16);
    let background = go(&c);
    assert!(
        background.window.background_gc_count > 0,
        "idle time should have been used"
    );
    assert!(
        background.window.background_gc_count * 2 > background.window.gc_count,
        "most GC should move to idle time: {} of {}",
        background.window.background_gc_count,
        background.window.gc_count
    );
    // Writes stop waiting for GC: the mean and the tail drop. A victim is
    // only started when its estimated work fits before the next arrival.
    let (fg, bg) = (
        foreground.timing.write_latency_us_mean.unwrap(),
        background.timing.write_latency_us_mean.unwrap(),
    );
    eprintln!(
        "WAF {:.3} -> {:.3}, write mean {fg:.0} -> {bg:.0} us, p99 {:.0} -> {:.0} us, background victims {} of {}",
        foreground.window.waf.unwrap(),
        background.window.waf.unwrap(),
        foreground.timing.write_latency_us_p99.unwrap(),
        background.timing.write_latency_us_p99.unwrap(),
        background.window.background_gc_count,
        background.window.gc_count
    );
    assert!(
        bg < fg,
        "write mean {bg} us with background GC vs {fg} us without"
    );
    assert!(
        background.timing.write_latency_us_p99.unwrap()
            < 0.5 * foreground.timing.write_latency_us_p99.unwrap()
    );
    // Reclaiming early, with blocks held free, costs some WAF.
    assert!(background.window.waf.unwrap() >= foreground.window.waf.unwrap());
    // Closed loop never idles: background GC never runs.
    timing(&mut c).mode = TimingMode::Closed;
    assert_eq!(go(&c).window.background_gc_count, 0);
}

fn config_error(c: &Config) -> String {
    match Simulation::new(c, &RunOptions::default()) {
        Err(SimError::Config(e)) => e.key,
        Err(e) => panic!("expected a config error, got {e}"),
        Ok(_) => panic!("expected a config error"),
    }
}

#[test]
fn bad_timing_config_names_the_key() {
    let mut c = device();
    timing(&mut c).queue_depth = 0;
    assert_eq!(config_error(&c), "timing.queue_depth");
    let mut c = device();
    timing(&mut c).read_latency_us = -1.0;
    assert_eq!(config_error(&c), "timing.read_latency_us");
    let mut c = device();
    timing(&mut c).erase_latency_us = f64::NAN;
    assert_eq!(config_error(&c), "timing.erase_latency_us");
    let mut c = device();
    timing(&mut c).program_latency_us = 0.0;
    assert_eq!(config_error(&c), "timing.program_latency_us");
    let mut c = device();
    timing(&mut c).channels = Some(0);
    assert_eq!(config_error(&c), "timing.channels");
    let mut c = device();
    timing(&mut c).luns_per_channel = Some(0);
    assert_eq!(config_error(&c), "timing.luns_per_channel");
    let mut c = device();
    timing(&mut c).mode = TimingMode::Open;
    assert_eq!(config_error(&c), "timing.arrival_rate_iops");
    timing(&mut c).arrival_rate_iops = Some(-5.0);
    assert_eq!(config_error(&c), "timing.arrival_rate_iops");
    let mut c = device();
    timing(&mut c).speedup = 0.0;
    assert_eq!(config_error(&c), "timing.speedup");
    for target in [0, 1024] {
        let mut c = device();
        timing(&mut c).background_gc_free_blocks = Some(target);
        assert_eq!(config_error(&c), "timing.background_gc_free_blocks");
    }
}

/// Issue 15, item 4: with program/erase suspend a host read that finds its
/// LUN programming goes ahead of the program, so under writes the read tail
/// (reads stuck behind a 200 us program) drops. Open loop at a moderate
/// rate on a filled device with no GC in the window, so that a read finds
/// at most the running program ahead of it (reads do not jump queued work,
/// and a GC burst queues plenty). The FTL's work is the same.
#[test]
fn suspend_cuts_the_read_tail_under_writes() {
    let mut c = random_writes(0.2);
    c.workload.warmup = Amount::Pages(0).into();
    c.workload.read_fraction = 0.5;
    c.workload.writes = None;
    c.workload.requests = Some(60_000);
    timing(&mut c).mode = TimingMode::Open;
    timing(&mut c).arrival_rate_iops = Some(40_000.0);
    let without = go(&c);
    let t = timing(&mut c);
    t.suspend = true;
    t.suspend_overhead_us = Some(5.0);
    t.resume_overhead_us = Some(5.0);
    let with = go(&c);
    let p99 = |r: &Report| r.timing.read_latency_us_p99.unwrap();
    eprintln!(
        "read p99 {:.0} -> {:.0} us, mean {:.0} -> {:.0} us, write p99 {:.0} -> {:.0} us, {} suspensions",
        p99(&without),
        p99(&with),
        without.timing.read_latency_us_mean.unwrap(),
        with.timing.read_latency_us_mean.unwrap(),
        without.timing.write_latency_us_p99.unwrap(),
        with.timing.write_latency_us_p99.unwrap(),
        with.timing.suspensions.unwrap()
    );
    assert_eq!(without.timing.suspensions, Some(0));
    assert!(with.timing.suspensions.unwrap() > 1000);
    assert!(
        p99(&with) < 0.8 * p99(&without),
        "read p99 {} us with suspend, {} us without",
        p99(&with),
        p99(&without)
    );
    assert_eq!(
        with.window.nand_write_pages,
        without.window.nand_write_pages
    );
}

#[test]
fn suspend_needs_both_overheads() {
    let mut c = device();
    timing(&mut c).suspend = true;
    assert_eq!(config_error(&c), "timing.suspend_overhead_us");
    timing(&mut c).suspend_overhead_us = Some(5.0);
    assert_eq!(config_error(&c), "timing.resume_overhead_us");
    timing(&mut c).resume_overhead_us = Some(-1.0);
    assert_eq!(config_error(&c), "timing.resume_overhead_us");
    // Overheads without suspend are a mistake, not silently ignored.
    let mut c = device();
    timing(&mut c).resume_overhead_us = Some(5.0);
    assert_eq!(config_error(&c), "timing.resume_overhead_us");
}

/// Issue 15, item 5: with two planes per LUN, pages at the same offset on
/// both planes are programmed together (one tPROG), so sequential writes on
/// an empty device reach LUNs x planes / tPROG instead of LUNs / tPROG. The
/// FTL's work is the same.
#[test]
fn multi_plane_programs_raise_the_program_bound() {
    let mut c = device();
    c.workload.kind = WorkloadType::Sequential;
    c.workload.precondition = Precondition::None;
    c.workload.warmup = Amount::Pages(0).into();
    c.workload.writes = Some(Amount::Capacity(0.5));
    timing(&mut c).program_latency_us = 600.0;
    timing(&mut c).queue_depth = 256;
    let pages_per_sec =
        |r: &Report| r.window.host_write_pages as f64 * 1e9 / r.timing.sim_time_ns.unwrap() as f64;
    let one = go(&c);
    let one_plane_bound = params(&c).lun_program_bound_iops();
    c.device.planes_per_lun = 2;
    let two = go(&c);
    let bound = params(&c).lun_program_bound_iops();
    assert!(within(bound, 2.0 * one_plane_bound, 1e-12));
    assert!(
        within(pages_per_sec(&two), bound, 0.02),
        "{:.0} pages/s with 2 planes, bound {bound:.0}",
        pages_per_sec(&two)
    );
    assert!(
        pages_per_sec(&two) > 1.9 * pages_per_sec(&one),
        "{:.0} vs {:.0} pages/s",
        pages_per_sec(&two),
        pages_per_sec(&one)
    );
    assert_eq!(two.window.nand_write_pages, one.window.nand_write_pages);
    // QD 1: nothing to pair with, one page per program as before.
    timing(&mut c).queue_depth = 1;
    c.workload.writes = Some(Amount::Pages(10_000));
    assert!(within(go(&c).timing.iops.unwrap(), 1e6 / 610.0, 1e-9));
}

#[test]
fn planes_must_divide_the_block_layout() {
    // 256-page blocks over 32 LUNs: an 8-page slice per LUN; 3 planes do not divide it.
    let mut c = device();
    c.device.planes_per_lun = 3;
    assert_eq!(config_error(&c), "device.planes_per_lun");
    c.device.planes_per_lun = 16;
    assert_eq!(config_error(&c), "device.planes_per_lun");
    c.device.planes_per_lun = 8;
    assert!(Simulation::new(&c, &RunOptions::default()).is_ok());
}

/// Issue 15, item 3: with a write buffer a write is acknowledged once its
/// page is in DRAM (the controller overhead), not after tPROG; the FTL does
/// exactly the same work and, at a load the flash sustains, no write waits.
#[test]
fn write_buffer_acknowledges_writes_before_they_are_programmed() {
    let mut c = random_writes(0.2);
    c.workload.warmup = Amount::Pages(0).into();
    c.workload.writes = None;
    c.workload.requests = Some(40_000);
    let t = timing(&mut c);
    t.mode = TimingMode::Open;
    t.arrival_rate_iops = Some(5_000.0);
    t.controller_overhead_us = 2.0;
    let without = go(&c);
    timing(&mut c).write_buffer_pages = 256;
    let with = go(&c);
    let mean = |r: &Report| r.timing.write_latency_us_mean.unwrap();
    eprintln!(
        "write mean {:.1} -> {:.1} us, p99 {:.1} -> {:.1} us",
        mean(&without),
        mean(&with),
        without.timing.write_latency_us_p99.unwrap(),
        with.timing.write_latency_us_p99.unwrap()
    );
    // Without: at least one transfer and a program on top of the overhead.
    assert!(mean(&without) >= 2.0 + 10.0 + 200.0);
    assert!(within(mean(&with), 2.0, 1e-9), "{}", mean(&with));
    assert_eq!(with.timing.write_buffer_full_waits, Some(0));
    assert_eq!(without.timing.write_buffer_full_waits, None);
    assert_eq!(
        with.window.nand_write_pages,
        without.window.nand_write_pages
    );
    assert_eq!(with.window.waf, without.window.waf);
}

/// Writes faster than the flash drains them fill the buffer: then a write
/// waits for the earliest drain, and the sustained rate is the flash's.
#[test]
fn a_full_write_buffer_holds_writes_to_the_flash_rate() {
    let mut c = random_writes(0.2);
    c.workload.warmup = Amount::Capacity(1.0).into();
    c.workload.writes = Some(Amount::Capacity(0.2));
    let without = go(&c);
    timing(&mut c).write_buffer_pages = 64;
    let with = go(&c);
    let iops = |r: &Report| r.timing.iops.unwrap();
    eprintln!(
        "IOPS {:.0} -> {:.0}; write mean {:.1} -> {:.1} us; {} waits, mean {:.1} us",
        iops(&without),
        iops(&with),
        without.timing.write_latency_us_mean.unwrap(),
        with.timing.write_latency_us_mean.unwrap(),
        with.timing.write_buffer_full_waits.unwrap(),
        with.timing.write_buffer_wait_us_mean.unwrap()
    );
    assert!(with.timing.write_buffer_full_waits.unwrap() > 1000);
    assert!(with.timing.write_buffer_wait_us_mean.unwrap() > 0.0);
    assert!(within(iops(&with), iops(&without), 0.05));
}

/// A read of a page still in the buffer costs no flash read.
#[test]
fn reads_of_buffered_pages_are_served_from_the_buffer() {
    let mut c = random_writes(0.2);
    c.workload.warmup = Amount::Pages(0).into();
    c.workload.writes = None;
    c.workload.requests = Some(20_000);
    c.workload.read_fraction = 0.5;
    c.workload.span = Some(Amount::Pages(32));
    let t = timing(&mut c);
    t.mode = TimingMode::Open;
    t.arrival_rate_iops = Some(20_000.0);
    let without = go(&c);
    timing(&mut c).write_buffer_pages = 1024;
    let with = go(&c);
    let mean = |r: &Report| r.timing.read_latency_us_mean.unwrap();
    eprintln!(
        "read mean {:.1} -> {:.1} us, {} pages from the buffer",
        mean(&without),
        mean(&with),
        with.timing.write_buffer_read_hit_pages.unwrap()
    );
    assert!(with.timing.write_buffer_read_hit_pages.unwrap() > 1000);
    assert!(mean(&with) < 0.8 * mean(&without));
}

#[test]
fn bad_write_buffer_config_names_the_key() {
    let mut c = device();
    timing(&mut c).write_buffer_pages = 1024 * 256 + 1;
    assert_eq!(config_error(&c), "timing.write_buffer_pages");
    let mut c = device();
    timing(&mut c).write_buffer_pages = 64;
    c.ftl.write_buffer_pages = 32;
    assert_eq!(config_error(&c), "timing.write_buffer_pages");
    // The same buffer in both models is accepted.
    c.ftl.write_buffer_pages = 64;
    assert!(Simulation::new(&c, &RunOptions::default()).is_ok());
}

/// Multi-plane reads: pages at the same offset on the planes of a LUN are
/// sensed together (one tR), so saturated sequential reads of a filled
/// device reach LUNs x planes / tR (the channels kept out of the way with a
/// short transfer). The FTL's work is the same.
#[test]
fn multi_plane_reads_raise_the_read_bound() {
    let mut c = device();
    c.workload.kind = WorkloadType::Sequential;
    c.workload.read_fraction = 1.0;
    c.workload.requests = Some(100_000);
    c.workload.warmup = Amount::Pages(0).into();
    let t = timing(&mut c);
    t.read_latency_us = 100.0;
    t.transfer_us_per_page = 1.0;
    t.queue_depth = 256;
    let pages_per_sec =
        |r: &Report| r.window.host_read_pages as f64 * 1e9 / r.timing.sim_time_ns.unwrap() as f64;
    let one = go(&c);
    c.device.planes_per_lun = 2;
    let two = go(&c);
    // 32 LUNs x 2 planes / 100 us.
    let bound = 2.0 * params(&c).lun_read_bound_iops();
    eprintln!(
        "sequential reads: {:.0} pages/s with 1 plane, {:.0} with 2 (bound {bound:.0})",
        pages_per_sec(&one),
        pages_per_sec(&two)
    );
    assert!(within(pages_per_sec(&one), bound / 2.0, 0.02));
    assert!(within(pages_per_sec(&two), bound, 0.03));
    assert_eq!(two.window.host_read_pages, one.window.host_read_pages);
}

/// The timer on a thread of its own (`run/clock.rs`, the default on two
/// cores) trails the device by whole batches of requests: every report must
/// be the same bytes as with the timer on the run's thread, across batch
/// boundaries, with each feature that changes what the timer does with a
/// request's operations, in open loop, and when the device wears out in the
/// middle of the measured window (the error ends the run mid-batch).
#[test]
fn the_timer_on_its_own_thread_gives_the_same_report() {
    let mixed = random_mix(50_000);
    let mut buffered = mixed.clone();
    timing(&mut buffered).write_buffer_pages = 256;
    let mut suspending = mixed.clone();
    let t = timing(&mut suspending);
    t.suspend = true;
    t.suspend_overhead_us = Some(5.0);
    t.resume_overhead_us = Some(5.0);
    let mut planes = mixed.clone();
    planes.device.planes_per_lun = 2;
    let mut open = mixed.clone();
    let t = timing(&mut open);
    t.mode = TimingMode::Open;
    t.arrival_rate_iops = Some(20_000.0);
    let mut cached = mixed.clone();
    cached.ftl.mapping_cache_entries = 4096;
    let mut worn = random_writes(0.1);
    worn.workload.warmup = Amount::Pages(0).into();
    worn.device.pe_cycle_limit = 2;
    let cases = [
        ("gc", random_writes(0.07)),
        ("mixed", mixed),
        ("buffered", buffered),
        ("suspending", suspending),
        ("planes", planes),
        ("open", open),
        ("cached", cached),
        ("worn", worn),
    ];
    for (name, c) in cases {
        let alone = RunOptions {
            one_thread: true,
            ..RunOptions::default()
        };
        let a = run(&c, &alone, &mut |_| {}).unwrap();
        let b = go(&c);
        if name == "worn" {
            assert!(a.lifetime.end_of_life, "the device wears out in the window");
        }
        assert!(a.timing.iops.is_some(), "{name}: timed");
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap(),
            "{name}"
        );
    }
}
