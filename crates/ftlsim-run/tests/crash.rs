//! Crash-point sweeps: power cut at random flash operations (inside GC and
//! remaps too), recovery from the flash image, and the reference-model check
//! after every recovery. Small counts so that CI runs them in seconds; the
//! 1000-cut runs are in docs/power-loss.md.

use ftlsim::config::PlacementName;
use ftlsim::ftl::durability::BrokenRecovery;
use ftlsim::Config;
use ftlsim_run::crash::{crash_test, CrashOptions, CrashReport};
use ftlsim_run::load::load_config;

fn small(sets: &[&str]) -> Config {
    let mut all: Vec<String> = [
        "device.blocks=96",
        "device.pages_per_block=16",
        "workload.warmup=1x",
        "workload.requests=30000",
        "workload.trim_fraction=0.1",
        "workload.read_fraction=0.1",
        "workload.request_pages_max=4",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    all.extend(sets.iter().map(|s| s.to_string()));
    load_config(None, &all).unwrap()
}

fn coldmap(sets: &[&str]) -> Config {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/coldmap/fio.toml"
    );
    let mut all: Vec<String> = [
        "device.blocks=128",
        "device.pages_per_block=32",
        "workload.warmup=1x",
        "workload.writes=4x",
        "ftl.placement=coldmap",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    all.extend(sets.iter().map(|s| s.to_string()));
    load_config(Some(std::path::Path::new(path)), &all).unwrap()
}

fn sweep(
    cfg: &Config,
    cuts: u64,
    remap_fraction: f64,
    broken: Option<BrokenRecovery>,
) -> CrashReport {
    let mut opts = CrashOptions::new(cuts, 7);
    opts.remap_fraction = remap_fraction;
    opts.flush_every_requests = 40;
    opts.broken = broken;
    crash_test(cfg, &opts, &mut |_, _| {}).unwrap()
}

fn assert_clean(r: &CrashReport) {
    assert_eq!(
        (
            r.failures,
            r.lost_pages,
            r.resurrected_pages,
            r.foreign_pages
        ),
        (0, 0, 0, 0),
        "{r:#?}"
    );
    assert_eq!(r.invariant_failures, 0, "{r:#?}");
    assert_eq!(r.read_mismatches, 0, "{r:#?}");
    assert_eq!(r.unsafe_reclaims, 0, "GC erased before it copied: {r:#?}");
    assert!(r.cuts_in_gc > 0, "no cut landed inside GC: {r:#?}");
}

/// Every GC policy under every feature that changes what GC copies or
/// where: found so (issue 24): FIFO and random lost acknowledged pages,
/// because after a cut inside GC their next victim could be erased before
/// its pages were copied. 100 cuts per cell, the must-show count for CI.
#[test]
fn every_gc_policy_under_every_feature_loses_nothing() {
    let policies = ["greedy", "cost-benefit", "fifo", "random", "d-choices"];
    let features: [(&str, &[&str], f64); 7] = [
        ("plain", &[], 0.0),
        ("checkpoints", &["ftl.checkpoint_interval_pages=256"], 0.0),
        ("write buffer", &["ftl.write_buffer_pages=16"], 0.0),
        (
            "dedup",
            &["ftl.dedup=true", "workload.dedup_fraction=0.3"],
            0.05,
        ),
        ("remap/clone", &["ftl.remap=true"], 0.1),
        (
            "wear leveling",
            &[
                "device.pe_cycle_limit=100000",
                "ftl.wear_leveling_threshold=4",
            ],
            0.0,
        ),
        (
            "internal streams",
            &[
                "ftl.internal_streams=true",
                "ftl.streams=2",
                "device.spare_factor=0.12",
            ],
            0.0,
        ),
    ];
    for (name, sets, remap_fraction) in features {
        let mut cuts_in_remap = 0;
        for policy in policies {
            let gc = format!("ftl.gc_policy={policy}");
            let mut all = vec![gc.as_str()];
            all.extend_from_slice(sets);
            let r = sweep(&small(&all), 100, remap_fraction, None);
            assert_eq!(r.cuts, 100, "{policy} / {name}: {r:#?}");
            assert_clean(&r);
            cuts_in_remap += r.cuts_in_remap;
        }
        // A remap is one journal record, so few of 100 cuts land in one.
        assert_eq!(
            cuts_in_remap > 0,
            remap_fraction > 0.0,
            "{name}: {cuts_in_remap} cuts inside remaps"
        );
    }
}

#[test]
fn plain_ftl_loses_nothing_acknowledged() {
    let r = sweep(&small(&[]), 300, 0.0, None);
    assert_clean(&r);
    assert_eq!(r.cuts, 300);
    assert!(r.journal_pages > 0, "trims are journaled");
}

#[test]
fn plain_ftl_with_remaps_and_checkpoints() {
    let cfg = small(&["ftl.checkpoint_interval_pages=200", "ftl.journal_batch=4"]);
    let r = sweep(&cfg, 300, 0.05, None);
    assert_clean(&r);
    assert!(r.cuts_in_remap > 0, "no cut landed inside a remap: {r:#?}");
    assert!(r.checkpoint_pages > 0);
}

#[test]
fn dedup_ftl_with_coldmap_placement() {
    let r = sweep(&coldmap(&[]), 300, 0.0, None);
    assert_clean(&r);
}

#[test]
fn sharing_ftl_with_remap_and_clone_traffic() {
    let r = sweep(&coldmap(&["ftl.journal_batch=8"]), 300, 0.1, None);
    assert_clean(&r);
    assert!(
        r.cuts_in_remap > 0,
        "no cut landed inside a remap/clone: {r:#?}"
    );
    let cfg = small(&["ftl.remap=true", "ftl.frontiers=separate"]);
    assert_clean(&sweep(&cfg, 200, 0.1, None));
}

#[test]
fn write_buffer_rolls_back_only_what_was_not_acknowledged() {
    let plain = sweep(&small(&["ftl.write_buffer_pages=16"]), 200, 0.0, None);
    assert_clean(&plain);
    assert!(
        plain.unacknowledged_lost_pages > 0,
        "a volatile buffer must lose unflushed writes: {plain:#?}"
    );
    let protected = sweep(
        &small(&[
            "ftl.write_buffer_pages=16",
            "ftl.power_loss_protection=true",
        ]),
        200,
        0.0,
        None,
    );
    assert_clean(&protected);
}

#[test]
fn the_sweep_catches_a_recovery_that_ignores_the_journal() {
    let r = sweep(&small(&[]), 200, 0.0, Some(BrokenRecovery::IgnoreJournal));
    assert!(r.failures > 0, "{r:#?}");
    assert!(r.resurrected_pages > 0, "trims must come back: {r:#?}");
}

#[test]
fn the_sweep_catches_a_recovery_that_trusts_the_lower_sequence() {
    let r = sweep(
        &small(&[]),
        200,
        0.0,
        Some(BrokenRecovery::TrustLowerSequence),
    );
    assert!(r.failures > 0, "{r:#?}");
    assert!(r.lost_pages > 0, "old versions must win: {r:#?}");
}

#[test]
fn checkpoints_trade_write_amplification_for_recovery_time() {
    // A device large enough that a checkpoint leaves most blocks unscanned.
    let base = [
        "device.blocks=512",
        "device.pages_per_block=32",
        "workload.warmup=0.5x",
        "workload.writes=2x",
    ];
    let load = |extra: &[&str]| {
        let all: Vec<String> = base.iter().chain(extra).map(|s| s.to_string()).collect();
        load_config(None, &all).unwrap()
    };
    let logical = load(&[]).logical_pages();
    let mut last: Option<CrashReport> = None;
    for divisor in [0u64, 2, 8, 32] {
        // 0 turns checkpoints off.
        let interval = logical.checked_div(divisor).unwrap_or(0);
        let cfg = load(&[&format!("ftl.checkpoint_interval_pages={interval}")]);
        let r = sweep(&cfg, 60, 0.0, None);
        assert_clean(&r);
        if let Some(prev) = &last {
            assert!(
                r.recovery_ns_p50 < prev.recovery_ns_p50,
                "interval {interval}: recovery {} not below {}",
                r.recovery_ns_p50,
                prev.recovery_ns_p50
            );
            assert!(
                r.checkpoint_waf > prev.checkpoint_waf,
                "interval {interval}: checkpoint WAF {} not above {}",
                r.checkpoint_waf,
                prev.checkpoint_waf
            );
        }
        last = Some(r);
    }
}

#[test]
fn checkpoints_count_as_nand_writes_in_a_normal_run() {
    let mut cfg = small(&["workload.requests=20000"]);
    cfg.workload.trim_fraction = 0.0;
    cfg.workload.read_fraction = 0.0;
    let off = ftlsim_run::simulate(&cfg, false, &mut |_| {})
        .unwrap()
        .report;
    cfg.ftl.checkpoint_interval_pages = cfg.logical_pages() / 4;
    let on = ftlsim_run::simulate(&cfg, true, &mut |_| {})
        .unwrap()
        .report;
    let waf = |r: &ftlsim::Report| serde_json::to_value(r).unwrap()["waf"].as_f64().unwrap();
    assert!(waf(&on) > waf(&off), "on {} off {}", waf(&on), waf(&off));
    assert_eq!(cfg.ftl.placement, PlacementName::Normal);
}

#[test]
fn same_seed_same_report() {
    let cfg = small(&["ftl.write_buffer_pages=8"]);
    let a = serde_json::to_string(&sweep(&cfg, 50, 0.05, None)).unwrap();
    let b = serde_json::to_string(&sweep(&cfg, 50, 0.05, None)).unwrap();
    assert_eq!(a, b);
}
