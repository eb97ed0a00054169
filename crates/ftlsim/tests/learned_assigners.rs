//! The learned stream assigners (`autostream`, `pcstream`, `oracle`):
//! whatever they learn, they never name a stream the device lacks, reads
//! through them return the last write, trims unmap; and the oracle on
//! hot/cold lands near the separated-pool optimum (below it, as it knows
//! more than the hot/cold label the optimum assumes).

use std::collections::HashMap;
use std::sync::Arc;

use ftlsim::config::{Amount, Config, GcPolicyName, WorkloadType};
use ftlsim::host::autostream::{Algorithm, AutoStreamConfig, Rules};
use ftlsim::host::lba_streams::LbaStreamsConfig;
use ftlsim::host::oracle::{remaining_lifetimes, OracleConfig};
use ftlsim::host::pcstream::PcStreamConfig;
use ftlsim::host::{LayerConfig, Stack};
use ftlsim::plan::Plan;
use ftlsim::request::{BlockDevice, Op, Request};
use ftlsim::{analytic, run, RunOptions, Ssd, SsdOptions};
use proptest::prelude::*;

fn device(layer: LayerConfig, streams: u16, internal: bool) -> Config {
    let mut c = Config::default();
    c.device.blocks = 48;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.3;
    c.device.pe_cycle_limit = 0;
    c.ftl.streams = streams;
    c.ftl.internal_streams = internal;
    c.host.layers = vec![layer];
    c.validate().unwrap();
    c
}

/// One step: (op: 0..8 write, 8 trim, 9 read; address; pages; context).
type Step = (u8, u64, u32, u64);

/// The oracle's record of `steps` (what its pre-pass would see).
fn record_of(steps: &[Step], n: u64) -> Vec<u64> {
    let mut record = Vec::new();
    for &(op, at, pages, _) in steps {
        let lpn = at % n;
        let pages = u64::from(pages.min((n - lpn) as u32));
        match op {
            0..=7 => record.extend(lpn..lpn + pages),
            8 => record.extend((lpn..lpn + pages).map(|p| p | 1 << 63)),
            _ => {}
        }
    }
    record
}

/// Drives `steps` through the stack: every mapped page sits in a block of
/// a stream below `ftl.streams`, reads return the last write, trims unmap.
fn drive(cfg: &Config, steps: &[Step]) -> Result<(), TestCaseError> {
    let ssd = Ssd::new(
        cfg,
        &SsdOptions {
            track_content: true,
            survival: false,
        },
    )
    .unwrap();
    let n = cfg.host_pages();
    let future = matches!(cfg.host.layers[0], LayerConfig::Oracle(_))
        .then(|| Arc::new(remaining_lifetimes(&record_of(steps, n), n)));
    let mut stack = Stack::from_plan(&Plan::from_config(cfg).unwrap().host, ssd, future.as_ref());
    assert_eq!(
        stack.logical_pages(),
        n,
        "the record's space is the stack's"
    );
    let mut model: HashMap<u64, u64> = HashMap::new();
    let mut req = Request::default();
    for (i, &(op, at, pages, context)) in steps.iter().enumerate() {
        let lpn = at % n;
        let pages = pages.min((n - lpn) as u32);
        let fail = |e: ftlsim::SimError| TestCaseError::fail(format!("step {i}: {e}"));
        match op {
            0..=7 => {
                req.set(Op::Write, lpn, pages);
                req.context = context;
                req.fingerprints
                    .extend((0..u64::from(pages)).map(|k| i as u64 * 100 + k));
                stack.submit(&req).map_err(fail)?;
                for k in 0..u64::from(pages) {
                    model.insert(lpn + k, i as u64 * 100 + k);
                }
            }
            8 => {
                req.set(Op::Trim, lpn, pages);
                stack.submit(&req).map_err(fail)?;
                for k in 0..u64::from(pages) {
                    model.remove(&(lpn + k));
                }
            }
            _ => {
                req.set(Op::Read, lpn, pages);
                let done = stack.submit(&req).map_err(fail)?;
                let mapped = (0..u64::from(pages))
                    .filter(|k| model.contains_key(&(lpn + k)))
                    .count() as u32;
                prop_assert_eq!(done.mapped_pages, mapped, "step {}", i);
            }
        }
    }
    stack
        .check_invariants()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(stack.ssd().counters().gc_count > 0, "GC should have run");
    for lpn in 0..n {
        let expected = model.get(&lpn).copied();
        if let Some(ppn) = stack.ssd().lookup(lpn) {
            prop_assert!(stack.ssd().block_stream(ppn) < cfg.ftl.streams);
        }
        let got = stack.ssd_mut().read_page(lpn).unwrap().map(|r| r.content);
        prop_assert_eq!(got, expected, "LPN {}", lpn);
    }
    Ok(())
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    // Contexts: PCs of two programs, with and without the manual bits.
    let context = prop::sample::select(vec![
        0u64,
        1 << 32 | 1,
        1 << 32 | 2,
        2 << 32 | 1,
        1 << 32 | 3 << 24 | 1,
    ]);
    prop::collection::vec((0..10u8, 0..1u64 << 32, 1..4u32, context), 1200)
}

fn layers() -> Vec<LayerConfig> {
    vec![
        LayerConfig::Autostream(AutoStreamConfig {
            algorithm: Algorithm::Sfr,
            rules: Rules::Paper,
            chunk_bytes: 2 * 4096,
            decay_s: None,
        }),
        LayerConfig::Autostream(AutoStreamConfig {
            algorithm: Algorithm::Mq,
            rules: Rules::Paper,
            chunk_bytes: 4096,
            decay_s: Some(1e-4),
        }),
        LayerConfig::Autostream(AutoStreamConfig {
            algorithm: Algorithm::Sfr,
            rules: Rules::Bdbm,
            chunk_bytes: 4096,
            decay_s: Some(1e-4),
        }),
        LayerConfig::Pcstream(PcStreamConfig {
            lba_granularity_bytes: 4096,
            pc_table_bytes: 36,
            ..PcStreamConfig::default()
        }),
        LayerConfig::Oracle(OracleConfig { class_ratio: 2.0 }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn assigners_stay_below_the_device_streams(
        s in steps(),
        streams in 2u16..6,
        internal in any::<bool>(),
    ) {
        for layer in layers() {
            let cfg = device(layer, streams, internal);
            drive(&cfg, &s)?;
        }
    }
}

/// 90/10 hot/cold on 2048 blocks of 64 pages, Sf 0.10, cost-benefit GC.
fn hot_cold(layer: Option<LayerConfig>, streams: u16) -> Config {
    let mut c = Config::default();
    c.device.blocks = 2048;
    c.device.pages_per_block = 64;
    c.device.spare_factor = 0.10;
    c.device.pe_cycle_limit = 0;
    c.ftl.gc_policy = GcPolicyName::CostBenefit;
    c.ftl.streams = streams;
    c.workload.kind = WorkloadType::HotCold;
    c.workload.warmup = Some(Amount::Capacity(3.0));
    c.workload.writes = Some(Amount::Capacity(3.0));
    c.host.layers = layer.into_iter().collect();
    c.validate().unwrap();
    c
}

#[test]
fn oracle_lands_near_the_separated_pool_optimum() {
    let c = hot_cold(Some(LayerConfig::Oracle(OracleConfig::default())), 2);
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    let oracle = r.window.waf.unwrap();
    let alpha = analytic::alpha_from_spare_factor(0.10);
    // Within each pool the data is uniform: the pool's WA is greedy's.
    let (_, optimum) =
        analytic::waf_separated_best(alpha, 0.9, 0.1, |a| analytic::waf_greedy(a, 64));
    let base = run(&hot_cold(None, 1), &RunOptions::default(), &mut |_| {})
        .unwrap()
        .window
        .waf
        .unwrap();
    // Separation by the hot/cold label, which is what the optimum models:
    // the hot range (the first 10 % of the slots) on stream 0, the rest on 1.
    let n = c.logical_pages();
    let hot = (0.1 * n as f64).round() as u64;
    let by_label = LayerConfig::LbaStreams(LbaStreamsConfig {
        ranges: vec![[0, hot, 0], [hot, n, 1]],
    });
    let label = run(
        &hot_cold(Some(by_label), 2),
        &RunOptions::default(),
        &mut |_| {},
    )
    .unwrap()
    .window
    .waf
    .unwrap();
    eprintln!(
        "oracle {oracle:.4}, by label {label:.4}, separated-pool optimum {optimum:.4}, one stream {base:.4}"
    );
    // The optimum bounds placement by the hot/cold label (each pool's data
    // uniform within it): separation by label lands at or just above it
    // (measured 2.235 vs 2.204; the FTL shares its free blocks between the
    // pools instead of holding the best split).
    assert!(
        label >= optimum && label <= optimum * 1.05,
        "by label {label:.4} vs optimum {optimum:.4}"
    );
    // The oracle knows more than the label: each page's death. With two
    // streams it sends a page that dies within one pass over the logical
    // space to stream 0, and about 10 % of cold writes (1 - e^(-1/9)) do,
    // so it separates inside the cold group and beats both (measured 2.126,
    // 3.5 % below the optimum). The must-show's "never below" holds for the
    // label, not for the oracle; it stays within 10 % (docs/pcstream.md).
    assert!(oracle < label, "oracle {oracle:.4} vs by label {label:.4}");
    assert!(
        (oracle - optimum).abs() <= optimum * 0.10,
        "oracle {oracle:.4} vs optimum {optimum:.4}"
    );
    assert!(
        oracle < base * 0.5,
        "oracle {oracle:.4} vs one stream {base:.4}"
    );
    let stats = r.layers[0].assigner.unwrap();
    assert!(stats.state_bytes > 0);
}

#[test]
fn oracle_refuses_a_position_below_the_top() {
    let mut c = hot_cold(None, 2);
    c.host.layers = vec![
        LayerConfig::Pcstream(PcStreamConfig::default()),
        LayerConfig::Oracle(OracleConfig::default()),
    ];
    let e = c.validate().unwrap_err().to_string();
    assert!(e.contains("host.layers[1].type"), "{e}");
}
