//! Stream assignment by context (`manual`, `write-hint`) and the device's
//! internal streams: writes land in blocks of the stream their context maps
//! to, GC copies stay in their stream's internal stream, reads return the
//! last write, and internal streams lower WAF where host streams mix
//! lifetimes.

use std::collections::HashMap;

use ftlsim::config::{Amount, Config, WorkloadType};
use ftlsim::host::context_streams::{ManualConfig, WriteHintConfig};
use ftlsim::host::{LayerConfig, Stack};
use ftlsim::request::{BlockDevice, Op, Request};
use ftlsim::{run, RunOptions, Ssd, SsdOptions};
use proptest::prelude::*;

fn device(layer: LayerConfig, internal: bool) -> Config {
    let mut c = Config::default();
    c.device.blocks = 48;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.3;
    c.device.pe_cycle_limit = 0;
    c.ftl.streams = 5;
    c.ftl.internal_streams = internal;
    c.host.layers = vec![layer];
    c.validate().unwrap();
    c
}

/// Random writes tagged with contexts 0..8 and reads: every page lands in a
/// block of `stream_of(context)`, or of its internal stream after GC.
fn drive(
    cfg: &Config,
    stream_of: impl Fn(u64) -> u16,
    steps: &[(u64, u32, u64)],
) -> Result<(), TestCaseError> {
    let ssd = Ssd::new(
        cfg,
        &SsdOptions {
            track_content: true,
            survival: false,
        },
    )
    .unwrap();
    let mut stack = Stack::new(cfg, ssd).unwrap();
    let n = stack.logical_pages();
    let mut model: HashMap<u64, (u64, u16)> = HashMap::new();
    let mut req = Request::default();
    for (i, &(at, pages, context)) in steps.iter().enumerate() {
        let lpn = at % n;
        let pages = pages.min((n - lpn) as u32);
        req.set(Op::Write, lpn, pages);
        req.context = context;
        req.fingerprints
            .extend((0..u64::from(pages)).map(|k| i as u64 * 100 + k));
        stack
            .submit(&req)
            .map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
        for k in 0..u64::from(pages) {
            model.insert(lpn + k, (i as u64 * 100 + k, stream_of(context)));
        }
    }
    stack
        .check_invariants()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(stack.ssd().counters().gc_count > 0, "GC should have run");
    for (&lpn, &(content, stream)) in &model {
        let ppn = stack.ssd().lookup(lpn).expect("mapped");
        prop_assert_eq!(stack.ssd().block_stream(ppn), stream, "LPN {}", lpn);
        let got = stack.ssd_mut().read_page(lpn).unwrap().map(|r| r.content);
        prop_assert_eq!(got, Some(content));
    }
    Ok(())
}

fn steps() -> impl Strategy<Value = Vec<(u64, u32, u64)>> {
    prop::collection::vec((0..1u64 << 32, 1..4u32, 0..8u64), 800)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn manual_streams_place_by_context(s in steps(), internal in any::<bool>()) {
        let map = vec![[1, 1], [2, 2], [3, 3], [4, 4], [5, 1]];
        let cfg = device(LayerConfig::Manual(ManualConfig { map: map.clone(), default_stream: 0 }), internal);
        let stream_of = |context: u64| map.iter().find(|m| m[0] == context).map_or(0, |m| m[1] as u16);
        drive(&cfg, stream_of, &s)?;
    }

    #[test]
    fn write_hints_place_by_hint(s in steps(), internal in any::<bool>()) {
        let cfg = device(LayerConfig::WriteHint(WriteHintConfig {}), internal);
        let stream_of = |hint: u64| match hint { 2 => 1, 3 => 2, 4 => 3, 5 => 4, _ => 0 };
        drive(&cfg, stream_of, &s)?;
    }
}

/// 90/10 hot/cold writes on `blocks` blocks of 64 pages, Sf 0.10, greedy.
fn hot_cold(blocks: u32, capacities: f64) -> Config {
    let mut c = Config::default();
    c.device.blocks = blocks;
    c.device.pages_per_block = 64;
    c.device.spare_factor = 0.10;
    c.device.pe_cycle_limit = 0;
    c.workload.kind = WorkloadType::HotCold;
    c.workload.warmup = Some(Amount::Capacity(capacities));
    c.workload.writes = Some(Amount::Capacity(capacities));
    c
}

fn hot_cold_waf(internal: bool) -> f64 {
    let mut c = hot_cold(2048, 3.0);
    c.ftl.internal_streams = internal;
    c.validate().unwrap();
    run(&c, &RunOptions::default(), &mut |_| {})
        .unwrap()
        .window
        .waf
        .unwrap()
}

#[test]
fn internal_streams_lower_waf_of_the_legacy_device() {
    // One host stream (PCStream's baseline): GC copies, mostly cold
    // survivors, no longer share blocks with fresh hot writes.
    let (shared, internal) = (hot_cold_waf(false), hot_cold_waf(true));
    assert!(
        internal < shared * 0.97,
        "internal streams {internal:.3} vs shared {shared:.3}"
    );
}

#[test]
fn lifetimes_are_reported_per_stream_host_and_internal() {
    use ftlsim::host::lba_streams::LbaStreamsConfig;
    let mut c = hot_cold(1024, 2.0);
    c.ftl.streams = 2;
    c.ftl.internal_streams = true;
    let hot = (0.1 * c.logical_pages() as f64).round() as u64;
    c.host.layers = vec![LayerConfig::LbaStreams(LbaStreamsConfig {
        ranges: vec![[0, hot, 1]],
    })];
    c.validate().unwrap();
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    let (cold, hot) = (&r.streams[0], &r.streams[1]);
    for s in [cold, hot] {
        let host = [s.lifetime_p25, s.lifetime_p50, s.lifetime_p75].map(Option::unwrap);
        let internal = [
            s.internal_lifetime_p25,
            s.internal_lifetime_p50,
            s.internal_lifetime_p75,
        ]
        .map(Option::unwrap);
        assert!(host[0] <= host[1] && host[1] <= host[2], "{host:?}");
        assert!(
            internal[0] <= internal[1] && internal[1] <= internal[2],
            "{internal:?}"
        );
        // Pages that survived a GC copy lived longer than fresh ones die.
        assert!(
            internal[1] > host[1],
            "stream {}: {internal:?} vs {host:?}",
            s.stream
        );
    }
    // The hot tenth takes 90 % of the writes: its pages die young.
    assert!(hot.lifetime_p50.unwrap() * 10 < cold.lifetime_p50.unwrap());
    // One stream and no internal streams: no per-stream lifetimes.
    let r = run(
        &{
            let mut c = c.clone();
            c.ftl.streams = 1;
            c.ftl.internal_streams = false;
            c.host.layers.clear();
            c
        },
        &RunOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(r.streams[0].lifetime_p50, None);
}
