//! The log layer: an FTL of its own (its WA against the analytical models
//! for its own segment size and reserve), the report identity TCWA =
//! product of the layers' WA = NAND writes / top writes, the directions the
//! log-on-log literature reports, and the zoned "collapsed" stack.

use ftlsim::analytic::{waf_fifo, waf_greedy};
use ftlsim::config::{Amount, Config, GcPolicyName};
use ftlsim::host::log::{LogConfig, Separation};
use ftlsim::host::LayerConfig;
use ftlsim::metrics::LayerStats;
use ftlsim::{run, Report, RunOptions};

const PAGES_PER_BLOCK: u32 = 64;

fn log(f: impl FnOnce(&mut LogConfig)) -> LayerConfig {
    let mut l = LogConfig {
        capacity_ratio: 0.9,
        segment_pages: PAGES_PER_BLOCK,
        ..LogConfig::default()
    };
    f(&mut l);
    LayerConfig::Log(l)
}

fn device(blocks: u32) -> Config {
    let mut c = Config::default();
    c.device.blocks = blocks;
    c.device.pages_per_block = PAGES_PER_BLOCK;
    c.device.spare_factor = 0.10;
    c.device.pe_cycle_limit = 0;
    c.ftl.gc_policy = GcPolicyName::Greedy;
    c.workload.warmup = Some(Amount::Capacity(3.0));
    c.workload.writes = Some(Amount::Capacity(4.0));
    c
}

fn report(c: &Config) -> Report {
    c.validate().expect("valid config");
    run(c, &RunOptions::default(), &mut |_| {}).expect("run")
}

fn layer(r: &Report, i: usize) -> &LayerStats {
    &r.layers[i]
}

/// The spare factor of the log layer of `c` over the device: its segments
/// against its logical pages.
fn layer_alpha(c: &Config, segment_pages: u64) -> f64 {
    let below = c.logical_pages();
    let segments = below / segment_pages;
    let user = c.host_pages();
    (segments * segment_pages) as f64 / user as f64
}

#[test]
fn log_layer_wa_matches_the_greedy_and_fifo_models() {
    for (policy, model) in [
        (GcPolicyName::Greedy, waf_greedy as fn(f64, u32) -> f64),
        (GcPolicyName::Fifo, |a, _| waf_fifo(a)),
    ] {
        let mut c = device(2048);
        c.host.layers = vec![log(|l| l.gc_policy = policy)];
        let r = report(&c);
        let alpha = layer_alpha(&c, u64::from(PAGES_PER_BLOCK));
        let expected = model(alpha, PAGES_PER_BLOCK);
        let wa = layer(&r, 0).wa.expect("writes ran");
        let error = (wa - expected).abs() / expected;
        assert!(
            error < 0.02,
            "{policy:?}: log layer WA {wa:.4}, model {expected:.4} (alpha {alpha:.4}): off by {:.2} %",
            error * 100.0
        );
    }
}

#[test]
fn trimmed_block_sized_segments_keep_the_device_near_waf_one() {
    let mut c = device(1024);
    c.host.layers = vec![log(|l| l.trim = true)];
    let r = report(&c);
    let waf = r.window.waf.expect("writes ran");
    assert!(
        waf < 1.01,
        "device WAF {waf:.4} under block-sized trimmed segments"
    );
    assert!(
        layer(&r, 0).gc_count > 0,
        "the log layer should have cleaned"
    );
}

#[test]
fn tcwa_is_the_product_of_the_layers_and_nand_over_top_writes() {
    let mut c = device(512);
    c.host.layers = vec![
        log(|l| {
            l.capacity_ratio = 0.85;
            l.segment_pages = 16;
        }),
        log(|l| {
            l.segment_pages = 32;
            l.metadata = true;
            l.checkpoint_pages = 2048;
            l.append_streams = 2;
            l.separation = Separation::F2fs;
        }),
    ];
    let r = report(&c);
    let product: f64 = r
        .layers
        .iter()
        .map(|l| l.wa.expect("every layer wrote"))
        .product();
    let tcwa = r.tcwa.expect("tcwa");
    let top = r.layers[0].write_pages_in as f64;
    let nand = r.window.nand_write_pages as f64;
    assert!(
        (tcwa - product).abs() < 1e-9 * tcwa,
        "TCWA {tcwa} vs product {product}"
    );
    assert!(
        (tcwa - nand / top).abs() < 1e-9 * tcwa,
        "TCWA {tcwa} vs NAND / top writes {}",
        nand / top
    );
    // Each layer's pages out are the next one's pages in.
    for pair in r.layers.windows(2) {
        assert_eq!(pair[0].write_pages_out, pair[1].write_pages_in);
    }
    assert_eq!(r.layers.len(), 3);
    assert!(
        r.layers[1].metadata_pages > 0,
        "metadata = true writes metadata"
    );
    assert!(tcwa > 1.5, "two logs and an FTL amplify: TCWA {tcwa}");
}

#[test]
fn trim_off_raises_tcwa() {
    let tcwa = |trim: bool| {
        let mut c = device(1024);
        c.host.layers = vec![log(|l| {
            l.segment_pages = PAGES_PER_BLOCK / 2;
            l.trim = trim;
        })];
        report(&c).tcwa.expect("tcwa")
    };
    let (on, off) = (tcwa(true), tcwa(false));
    assert!(off > on * 1.05, "TCWA with trim {on:.3}, without {off:.3}");
}

#[test]
fn six_append_streams_with_metadata_write_more_than_two() {
    let writes = |streams: u8| {
        let mut c = device(1024);
        c.host.layers = vec![log(|l| {
            l.append_streams = streams;
            l.separation = Separation::F2fs;
            l.metadata = true;
            l.checkpoint_pages = 4096;
        })];
        let r = report(&c);
        (r.tcwa.expect("tcwa"), layer(&r, 0).metadata_pages)
    };
    let ((two, meta_two), (six, meta_six)) = (writes(2), writes(6));
    assert!(six > two, "TCWA with 6 streams {six:.3}, with 2 {two:.3}");
    assert!(
        meta_six > meta_two,
        "metadata pages: 6 streams {meta_six}, 2 {meta_two}"
    );
}

#[test]
fn tcwa_rises_faster_once_the_lower_segment_outgrows_the_upper() {
    // Upper segment fixed at 32 pages; the lower segment is the device
    // block. Below or at 32 the device sees whole dead blocks; above it,
    // blocks mix segments that die apart.
    let tcwa = |block: u32| {
        let mut c = device(65_536 / block);
        c.device.pages_per_block = block;
        c.host.layers = vec![log(|l| l.segment_pages = 32)];
        report(&c).tcwa.expect("tcwa")
    };
    let t: Vec<f64> = [8, 16, 32, 64, 128].into_iter().map(tcwa).collect();
    let below = (t[2] - t[0]) / 2.0;
    let above = (t[4] - t[2]) / 2.0;
    assert!(
        above > 2.0 * below.max(0.0) + 0.1,
        "TCWA by lower segment 8..128: {t:?}: slope up to 32 {below:.3}, past it {above:.3}"
    );
}

#[test]
fn zoned_stack_has_waf_one_and_beats_the_log_over_an_ftl() {
    let mut over_ftl = device(1024);
    over_ftl.host.layers = vec![log(|_| {})];
    let top = over_ftl.host_pages();
    // Equal raw capacity and equal space at the top: the FTL's spare space
    // goes to the log instead.
    let mut zoned = device(1024);
    zoned.device.zoned = true;
    zoned.device.zone_blocks = 1;
    let raw = zoned.physical_pages() as f64;
    zoned.host.layers = vec![log(|l| l.capacity_ratio = (top as f64 + 0.5) / raw)];
    assert_eq!(zoned.host_pages(), top, "both stacks offer the same space");
    let (z, f) = (report(&zoned), report(&over_ftl));
    assert_eq!(z.window.waf, Some(1.0), "a zoned device never copies");
    assert_eq!(z.window.gc_copy_pages, 0);
    assert!(z.window.erase_count > 0, "zones were reset");
    let (zt, ft) = (z.tcwa.unwrap(), f.tcwa.unwrap());
    assert!(
        zt < ft,
        "zoned TCWA {zt:.3} should be below log-over-FTL {ft:.3}"
    );
}
