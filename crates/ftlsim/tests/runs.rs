//! Whole runs: determinism, end of life, read/write/trim mixes.

use ftlsim::config::{Amount, Config, WorkloadType};
use ftlsim::{run, RunOptions};

fn small() -> Config {
    let mut c = Config::default();
    c.device.blocks = 256;
    c.device.pages_per_block = 64;
    c.device.spare_factor = 0.1;
    c.workload.warmup = Some(Amount::Capacity(1.0));
    c.workload.writes = Some(Amount::Capacity(2.0));
    c
}

fn json(cfg: &Config) -> String {
    serde_json::to_string(
        &run(
            cfg,
            &RunOptions {
                check: true,
                ..Default::default()
            },
            &mut |_| {},
        )
        .unwrap(),
    )
    .unwrap()
}

#[test]
fn same_seed_gives_byte_identical_json() {
    for kind in [
        WorkloadType::Uniform,
        WorkloadType::HotCold,
        WorkloadType::Zipf,
        WorkloadType::Sequential,
    ] {
        let mut c = small();
        c.workload.kind = kind;
        c.ftl.gc_policy = ftlsim::config::GcPolicyName::DChoices;
        assert_eq!(json(&c), json(&c), "{kind:?}");
    }
    let a = small();
    let mut b = small();
    b.workload.seed += 1;
    assert_ne!(json(&a), json(&b), "a different seed should change the run");
}

#[test]
fn sequential_writes_have_no_gc_copies() {
    let mut c = small();
    c.workload.kind = WorkloadType::Sequential;
    let r = run(
        &c,
        &RunOptions {
            check: true,
            ..Default::default()
        },
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(r.window.gc_copy_pages, 0);
    assert!((r.window.waf.unwrap() - 1.0).abs() < 1e-12);
}

#[test]
fn hot_cold_is_worse_than_uniform_under_greedy_in_one_frontier() {
    // Known result (reference tables): mixing hot and cold data in one
    // frontier costs more than the uniform workload at the same spare factor.
    let u = run(&small(), &RunOptions::default(), &mut |_| {}).unwrap();
    let mut c = small();
    c.workload.kind = WorkloadType::HotCold;
    let hc = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    assert!(
        hc.window.waf.unwrap() > u.window.waf.unwrap(),
        "hot/cold {} vs uniform {}",
        hc.window.waf.unwrap(),
        u.window.waf.unwrap()
    );
}

#[test]
fn mixed_requests_count_every_kind() {
    let mut c = small();
    c.workload.writes = None;
    c.workload.requests = Some(50_000);
    c.workload.read_fraction = 0.3;
    c.workload.trim_fraction = 0.1;
    c.workload.request_pages = 4;
    let r = run(
        &c,
        &RunOptions {
            check: true,
            ..Default::default()
        },
        &mut |_| {},
    )
    .unwrap();
    let total = r.window.host_write_pages + r.window.host_read_pages + r.window.host_trim_pages;
    assert_eq!(total, 50_000 * 4);
    assert!(
        r.window.host_read_unmapped_pages > 0,
        "trimmed pages read as unmapped"
    );
    assert!(r.window.host_trim_pages > 0 && r.window.host_read_pages > r.window.host_trim_pages);
}

#[test]
fn wear_out_is_reported_as_end_of_life() {
    let mut c = small();
    c.device.pe_cycle_limit = 20;
    c.workload.writes = Some(Amount::Capacity(100.0));
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    assert!(r.lifetime.end_of_life);
    assert!(r.lifetime.retired_blocks > 0);
    assert!(r.wear.erase_max <= 20);
    assert!(r.window.host_write_pages < 100 * r.device.logical_pages);
}

#[test]
fn lifetime_and_survival_are_consistent() {
    // Uniform writes over U pages: a page survives U writes on average
    // (geometric). A long warm-up makes the truncation by the initial fill
    // negligible (weight e^-8).
    let mut c = small();
    c.workload.warmup = Some(Amount::Capacity(8.0));
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    let mean = r.survival.survival_mean.unwrap();
    let u = r.device.logical_pages as f64;
    assert!((mean / u - 1.0).abs() < 0.03, "survival mean {mean} vs {u}");
    // Lifetime = host writes per erase x P/E budget.
    let pages = r.lifetime.lifetime_host_write_bytes.unwrap() / 4096.0;
    let expect = r.window.host_write_pages as f64 / r.window.erase_count as f64 * 3000.0 * 256.0;
    assert!((pages / expect - 1.0).abs() < 1e-9);
    assert_eq!(
        r.series.last().map(|s| s.phase),
        Some(ftlsim::metrics::Phase::Measure)
    );
}

#[test]
fn workload_span_larger_than_logical_space_is_rejected() {
    let mut c = small();
    c.workload.span = Some(Amount::Capacity(1.5));
    let e = c.validate().unwrap_err();
    assert_eq!(e.key, "workload.span");
}

#[test]
fn mixed_request_sizes_cover_the_range_and_keep_the_page_budget() {
    let mut c = small();
    c.workload.writes = None;
    c.workload.requests = Some(20_000);
    c.workload.read_fraction = 0.5;
    c.workload.request_pages = 2;
    c.workload.request_pages_max = Some(16);
    let r = run(
        &c,
        &RunOptions {
            check: true,
            ..Default::default()
        },
        &mut |_| {},
    )
    .unwrap();
    let pages = r.window.host_write_pages + r.window.host_read_pages;
    // Uniform sizes in [2, 16] average 9 pages (a few are cut at the span's end).
    let mean = pages as f64 / 20_000.0;
    assert!((mean - 9.0).abs() < 0.3, "mean request size {mean}");
    // A page budget is met exactly even when sizes vary.
    let mut c = small();
    c.workload.request_pages_max = Some(7);
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(r.window.host_write_pages, 2 * r.device.logical_pages);
    c.workload.request_pages_max = Some(0);
    assert_eq!(c.validate().unwrap_err().key, "workload.request_pages_max");
}
