//! Streams and GC routing against the analytical ground truth: hot/cold
//! 90/10 at Sf 0.10 (4096 blocks of 64 pages), the hot tenth of the space
//! sent to stream 1 by an `lba-streams` layer, GC copies returning to the
//! stream their block was opened for.

use ftlsim::analytic::{alpha_from_spare_factor, waf_greedy, waf_separated_best};
use ftlsim::config::{Amount, Config, GcPolicyName, WorkloadType};
use ftlsim::host::{lba_streams::LbaStreamsConfig, LayerConfig};
use ftlsim::{run, RunOptions};

const SPARE_FACTOR: f64 = 0.10;
const HOT_WRITES: f64 = 0.9;
const HOT_SPACE: f64 = 0.1;
const PAGES_PER_BLOCK: u32 = 64;
/// Mixed hot/cold 90/10, greedy, b = 64, Sf 0.10: the reference simulation
/// column of ../shared/reference/analytical-waf.md.
const MIXED_GREEDY_WAF: f64 = 5.89;

fn config(policy: GcPolicyName, streams: bool) -> Config {
    let mut c = Config::default();
    c.device.blocks = 4096;
    c.device.pages_per_block = PAGES_PER_BLOCK;
    c.device.spare_factor = SPARE_FACTOR;
    c.device.pe_cycle_limit = 0;
    c.ftl.gc_policy = policy;
    c.workload.kind = WorkloadType::HotCold;
    c.workload.hot_write_fraction = HOT_WRITES;
    c.workload.hot_space_fraction = HOT_SPACE;
    c.workload.warmup = Some(Amount::Capacity(4.0));
    c.workload.writes = Some(Amount::Capacity(4.0));
    if streams {
        // The generator's hot region is its first round(f × slots) pages.
        let hot_pages = (HOT_SPACE * c.logical_pages() as f64).round() as u64;
        c.ftl.streams = 2;
        c.host.layers = vec![LayerConfig::LbaStreams(LbaStreamsConfig {
            ranges: vec![[0, hot_pages, 1]],
        })];
    }
    c.validate().expect("valid config");
    c
}

fn waf(c: &Config) -> f64 {
    let r = run(c, &RunOptions::default(), &mut |_| {}).expect("run");
    r.window.waf.expect("writes ran")
}

/// The separated-pool optimum: hot and cold in pools of their own, the
/// spare space split between them in the best proportion, each pool
/// collected greedily.
fn separated_optimum() -> f64 {
    let alpha = alpha_from_spare_factor(SPARE_FACTOR);
    waf_separated_best(alpha, HOT_WRITES, HOT_SPACE, |a| {
        waf_greedy(a, PAGES_PER_BLOCK)
    })
    .1
}

#[test]
fn greedy_with_streams_beats_the_mixed_device() {
    let mixed = waf(&config(GcPolicyName::Greedy, false));
    let streams = waf(&config(GcPolicyName::Greedy, true));
    eprintln!("greedy: mixed {mixed:.3}, two streams {streams:.3}");
    assert!(
        (mixed - MIXED_GREEDY_WAF).abs() / MIXED_GREEDY_WAF < 0.02,
        "mixed greedy WAF {mixed} vs the reference {MIXED_GREEDY_WAF}"
    );
    assert!(streams < mixed, "streams {streams} not below mixed {mixed}");
}

#[test]
fn cost_benefit_with_streams_approaches_the_separated_optimum() {
    let optimum = separated_optimum();
    let streams = waf(&config(GcPolicyName::CostBenefit, true));
    let greedy = waf(&config(GcPolicyName::Greedy, true));
    eprintln!(
        "two streams: cost-benefit {streams:.3}, greedy {greedy:.3}; separated-pool optimum {optimum:.3}"
    );
    assert!(
        streams >= optimum,
        "cost-benefit {streams} below the separated-pool optimum {optimum}: a model or accounting error"
    );
    assert!(
        streams <= optimum * 1.10,
        "cost-benefit {streams} more than 10 % above the optimum {optimum}"
    );
    // Greedy splits the spare space badly between the streams.
    assert!(
        greedy > streams * 1.2,
        "greedy {greedy} vs cost-benefit {streams}"
    );
}

#[test]
fn streams_report_their_pages_and_copies() {
    let r = run(
        &config(GcPolicyName::Greedy, true),
        &RunOptions {
            check: true,
            ..Default::default()
        },
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(r.streams.len(), 2);
    let (cold, hot) = (&r.streams[0], &r.streams[1]);
    let total = cold.host_write_pages + hot.host_write_pages;
    assert_eq!(total, r.window.host_write_pages);
    let hot_share = hot.host_write_pages as f64 / total as f64;
    assert!(
        (hot_share - HOT_WRITES).abs() < 0.01,
        "hot share {hot_share}"
    );
    assert_eq!(
        cold.gc_copy_pages + hot.gc_copy_pages,
        r.window.gc_copy_pages
    );
    assert!(hot.blocks_opened > 0 && cold.blocks_opened > 0);
    // Layers: lba-streams passes pages through; TCWA is the device's WAF.
    assert_eq!(r.layers.len(), 2);
    assert_eq!(r.layers[0].name, "lba-streams");
    assert_eq!(r.layers[0].wa, Some(1.0));
    assert_eq!(r.layers[1].name, "ssd");
    assert!((r.tcwa.unwrap() - r.window.waf.unwrap()).abs() < 1e-12);
}
