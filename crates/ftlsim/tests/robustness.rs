//! Any config, valid or not, ends in a report or a clear error: no panic, no
//! endless loop. Random small devices with every policy, placement, watermark,
//! wear limit and workload shape.

use ftlsim::config::{
    Amount, Config, FrontierMode, GcPolicyName, PlacementName, Precondition, WorkloadType,
};
use ftlsim::timing::{TimingConfig, TimingMode};
use ftlsim::{run, RunOptions, SimError};
use proptest::prelude::*;

fn config() -> impl Strategy<Value = Config> {
    let device = (
        2u32..40,
        2u32..33,
        0.005f64..0.95,
        prop_oneof![Just(0u32), 3u32..60],
    );
    let ftl = (
        prop_oneof![
            Just(GcPolicyName::Greedy),
            Just(GcPolicyName::CostBenefit),
            Just(GcPolicyName::Fifo),
            Just(GcPolicyName::Random),
            Just(GcPolicyName::DChoices)
        ],
        1u32..5,
        prop_oneof![Just(FrontierMode::Shared), Just(FrontierMode::Separate)],
        (0u32..4, 0u32..6),
        0u32..4,
        any::<bool>(),
        prop_oneof![
            Just(PlacementName::Normal),
            Just(PlacementName::Coldmap),
            Just(PlacementName::ColdmapAge)
        ],
    );
    let workload = (
        prop_oneof![
            Just(WorkloadType::Uniform),
            Just(WorkloadType::HotCold),
            Just(WorkloadType::Zipf),
            Just(WorkloadType::Sequential)
        ],
        1u32..5,
        0.0f64..0.6,
        0.0f64..0.3,
        0.0f64..0.8,
        any::<u64>(),
        any::<bool>(),
    );
    let timing = prop::option::of((any::<bool>(), 1u32..64, any::<bool>(), 1u32..4, 1u32..4));
    (device, ftl, workload, timing).prop_map(|(d, f, w, t)| {
        let mut c = Config::default();
        (
            c.device.blocks,
            c.device.pages_per_block,
            c.device.spare_factor,
            c.device.pe_cycle_limit,
        ) = d;
        let (policy, choices, frontiers, (low, high), wl, dedup, placement) = f;
        c.ftl.gc_policy = policy;
        c.ftl.gc_choices = choices;
        c.ftl.frontiers = frontiers;
        c.ftl.gc_low_watermark = low;
        c.ftl.gc_high_watermark = high;
        c.ftl.wear_leveling_threshold = wl;
        c.ftl.dedup = dedup;
        c.ftl.placement = placement;
        let (kind, request_pages, read, trim, dups, seed, fill) = w;
        c.workload.kind = kind;
        c.workload.request_pages = request_pages;
        c.workload.request_pages_max = Some(request_pages + 3);
        c.workload.dedup_fraction = dups;
        c.workload.seed = seed;
        c.workload.precondition = if fill {
            Precondition::SequentialFill
        } else {
            Precondition::None
        };
        c.workload.warmup = Some(Amount::Capacity(1.0));
        if read + trim > 0.0 {
            c.workload.read_fraction = read;
            c.workload.trim_fraction = trim;
            c.workload.requests = Some(3000);
        } else {
            c.workload.writes = Some(Amount::Capacity(3.0));
        }
        if let Some((open, queue_depth, background_gc, channels, luns)) = t {
            c.timing = Some(TimingConfig {
                mode: if open {
                    TimingMode::Open
                } else {
                    TimingMode::Closed
                },
                arrival_rate_iops: Some(5_000.0),
                queue_depth,
                background_gc,
                channels: Some(channels),
                luns_per_channel: Some(luns),
                ..TimingConfig::default()
            });
        }
        c
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn any_config_ends_in_a_report_or_a_clear_error(c in config()) {
        match run(&c, &RunOptions { check: true, ..Default::default() }, &mut |_| {}) {
            Ok(r) => {
                // Nothing measured only when the device wore out before the
                // window began (a tiny P/E limit): no WAF, no rates then.
                match r.window.waf {
                    Some(waf) => {
                        prop_assert_eq!(r.timing.iops.is_some(), c.timing.is_some());
                        prop_assert!(waf == 0.0 || waf >= 1.0 || c.ftl.dedup, "WAF {} below 1 without dedup", waf);
                    }
                    None => prop_assert!(r.lifetime.end_of_life, "no WAF without end of life"),
                }
                if r.lifetime.end_of_life {
                    prop_assert!(c.device.pe_cycle_limit > 0);
                }
            }
            Err(SimError::Config(e)) => prop_assert!(!e.key.is_empty() && !e.message.is_empty()),
            Err(SimError::DeviceFull { .. }) => {}
            Err(e) => prop_assert!(false, "unexpected error: {e}"),
        }
    }
}

/// A device that wears out during warm-up reports, with no measured WAF
/// and no rates, rather than failing (proptest found it: 20 blocks of 2
/// pages, a P/E limit of 3).
#[test]
fn end_of_life_during_warm_up_is_a_report_without_rates() {
    let mut c = Config::default();
    c.device.blocks = 20;
    c.device.pages_per_block = 2;
    c.device.spare_factor = 0.3005;
    c.device.pe_cycle_limit = 3;
    c.ftl.gc_policy = GcPolicyName::Random;
    c.workload.seed = 6_568_730_706_993_262_282;
    c.workload.request_pages_max = Some(4);
    c.workload.writes = Some(Amount::Capacity(3.0));
    c.workload.warmup = Some(Amount::Capacity(1.0));
    c.timing = Some(TimingConfig {
        channels: Some(1),
        luns_per_channel: Some(1),
        ..TimingConfig::default()
    });
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    assert!(r.lifetime.end_of_life);
    assert_eq!((r.window.waf, r.timing.iops), (None, None));
}
