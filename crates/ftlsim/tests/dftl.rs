//! The DFTL mapping cache (`ftl.mapping_cache_entries`, docs/dftl.md): the
//! cache's bookkeeping (misses, batch write-back, GC's mapping updates), the
//! data it keeps correct, and its effects: a small cache raises WAF and
//! lowers read IOPS; off (0) reports nothing and changes nothing.

use std::collections::HashMap;

use ftlsim::config::{Amount, Config, WorkloadType};
use ftlsim::flash::Lpn;
use ftlsim::timing::TimingConfig;
use ftlsim::{run, Report, RunOptions, Ssd, SsdOptions};

/// SplitMix64: a test's own deterministic draws.
struct Draws(u64);

impl Draws {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

/// 64 blocks x 64 pages of 4 KiB: 1024 entries per translation page.
fn small_device(cache_entries: u64) -> Config {
    let mut c = Config::default();
    c.device.blocks = 64;
    c.device.pages_per_block = 64;
    c.device.spare_factor = 0.2;
    c.device.pe_cycle_limit = 0;
    c.ftl.mapping_cache_entries = cache_entries;
    c
}

fn ssd(c: &Config) -> Ssd {
    Ssd::new(
        c,
        &SsdOptions {
            track_content: true,
            survival: true,
        },
    )
    .unwrap()
}

#[test]
fn a_dirty_eviction_writes_its_translation_page_once_for_all_its_dirty_entries() {
    let mut s = ssd(&small_device(4));
    // LPNs 0..4 share translation page 0; none was ever written, so their
    // misses read nothing.
    for lpn in 0..4 {
        s.write_page(lpn, 0, lpn).unwrap();
    }
    assert_eq!(s.counters().mapping_cache_misses, 4);
    assert_eq!(s.counters().translation_read_pages, 0);
    assert_eq!(s.counters().translation_write_pages, 0);
    assert_eq!(s.mapping_cache_len(), Some((4, 4)));
    // LPN 1024 (translation page 1) evicts LPN 0, dirty: page 0 is written
    // once, and LPNs 1..4 are clean after it.
    s.write_page(1024, 0, 7).unwrap();
    assert_eq!(s.counters().translation_write_pages, 1);
    for lpn in 1..4 {
        assert_eq!(
            s.mapping_cache_dirty(Lpn::new(lpn)),
            Some(false),
            "LPN {lpn}"
        );
    }
    assert_eq!(s.mapping_cache_dirty(Lpn::new(1024)), Some(true));
    // Evicting the clean ones writes nothing.
    for lpn in 2048..2051 {
        s.read_page(lpn).unwrap();
    }
    assert_eq!(s.counters().translation_write_pages, 1);
    // LPN 0 is a miss again, and now its translation page is on flash; it
    // evicts LPN 1024, dirty, whose page 1 is written (with no merge read:
    // page 1 was never on flash).
    let before = s.counters().translation_read_pages;
    assert_eq!(s.read_page(0).unwrap().unwrap().content, 0);
    assert_eq!(s.counters().translation_read_pages, before + 1);
    assert_eq!(s.counters().translation_write_pages, 2);
    // A hit costs nothing.
    let reads = s.counters().translation_read_pages;
    s.read_page(0).unwrap();
    assert_eq!(s.counters().translation_read_pages, reads);
    assert_eq!(s.counters().mapping_cache_hits, 1);
    // Translation writes are NAND writes, not host writes.
    assert_eq!(s.counters().host_write_pages, 5);
    assert_eq!(s.counters().nand_write_pages, 7);
    s.check_invariants().unwrap();
}

/// Random writes, reads and trims through a tiny cache, with GC: every read
/// returns what was last written, and the device's invariants (the cache's
/// list included) hold throughout.
#[test]
fn data_stays_correct_through_evictions_and_gc() {
    for cache in [1, 16, 700] {
        let c = small_device(cache);
        let mut s = ssd(&c);
        let logical = u64::from(s.logical_pages());
        let mut model: HashMap<u64, u64> = HashMap::new();
        let mut rng = Draws(cache);
        for i in 0..40_000u64 {
            let lpn = rng.below(logical);
            match rng.below(10) {
                0..=5 => {
                    s.write_page(lpn, 0, i + 1).unwrap();
                    model.insert(lpn, i + 1);
                }
                6..=8 => {
                    let got = s.read_page(lpn).unwrap().map(|p| p.content);
                    assert_eq!(got, model.get(&lpn).copied(), "cache {cache}, LPN {lpn}");
                }
                _ => {
                    s.trim_page(lpn).unwrap();
                    model.remove(&lpn);
                }
            }
            if i % 4096 == 0 {
                s.check_invariants().unwrap();
            }
        }
        s.check_invariants().unwrap();
        assert!(s.counters().gc_count > 0, "cache {cache}: GC ran");
        assert!(
            s.counters().translation_write_pages > 0,
            "cache {cache}: translation pages written"
        );
        let (len, cap) = s.mapping_cache_len().unwrap();
        assert!(len <= cap);
    }
}

/// Uniform random writes over a device filled once.
fn random_writes(cache_entries: u64) -> Config {
    let mut c = Config::default();
    c.device.blocks = 1024;
    c.device.pages_per_block = 64;
    c.device.spare_factor = 0.1;
    c.device.pe_cycle_limit = 0;
    c.metrics.survival = false;
    c.workload.kind = WorkloadType::Uniform;
    c.workload.writes = Some(Amount::Capacity(2.0));
    c.workload.warmup = Some(Amount::Capacity(1.0));
    c.ftl.mapping_cache_entries = cache_entries;
    c
}

fn go(c: &Config) -> Report {
    run(c, &RunOptions::default(), &mut |_| {}).unwrap()
}

#[test]
fn a_small_mapping_cache_raises_waf() {
    let off = go(&random_writes(0));
    assert_eq!(off.mapping_cache.translation_write_pages, None);
    assert_eq!(off.mapping_cache.mapping_cache_hit_ratio, None);
    let logical = off.device.logical_pages;
    let mut last_waf = off.window.waf.unwrap();
    // From half the table cached down to 1 %: WAF rises as the cache shrinks.
    for fraction in [0.5, 0.1, 0.01] {
        let entries = (logical as f64 * fraction) as u64;
        let r = go(&random_writes(entries));
        let waf = r.window.waf.unwrap();
        let written = r.mapping_cache.translation_write_pages.unwrap();
        let hit = r.mapping_cache.mapping_cache_hit_ratio.unwrap();
        assert!(
            waf > last_waf,
            "cache {entries}: WAF {waf} not above {last_waf}"
        );
        // WAF counts the translation programs.
        assert_eq!(
            r.window.nand_write_pages,
            r.window.host_write_pages + r.window.gc_copy_pages + written
        );
        // Uniform writes hit about as often as the cache covers the space.
        assert!(
            (hit - fraction).abs() < 0.02,
            "cache {entries}: hit ratio {hit}, covers {fraction}"
        );
        last_waf = waf;
    }
}

#[test]
fn a_cache_of_the_whole_table_writes_no_translation_page() {
    // Every entry is cached by the fill and none is ever evicted: GC only
    // updates cached entries, so no translation page is written and the
    // flash work is exactly that of the table in DRAM.
    let off = go(&random_writes(0));
    let mut c = random_writes(0);
    c.ftl.mapping_cache_entries = c.logical_pages();
    let whole = go(&c);
    assert_eq!(whole.mapping_cache.translation_write_pages, Some(0));
    assert_eq!(whole.mapping_cache.mapping_cache_hit_ratio, Some(1.0));
    assert_eq!(whole.window.waf, off.window.waf);
    assert_eq!(whole.window.gc_copy_pages, off.window.gc_copy_pages);
}

/// Random single-page reads of a filled device, closed loop at QD 32.
fn random_reads(cache_entries: u64) -> Config {
    let mut c = Config::default();
    c.device.blocks = 1024;
    c.device.pages_per_block = 256;
    c.device.spare_factor = 0.1;
    c.device.pe_cycle_limit = 0;
    c.metrics.survival = false;
    c.workload.kind = WorkloadType::Uniform;
    c.workload.read_fraction = 1.0;
    c.workload.requests = Some(50_000);
    c.workload.warmup = Some(Amount::Pages(0));
    c.ftl.mapping_cache_entries = cache_entries;
    c.timing = Some(TimingConfig {
        queue_depth: 32,
        ..TimingConfig::default()
    });
    c
}

#[test]
fn a_small_mapping_cache_lowers_read_iops() {
    let off = go(&random_reads(0));
    let small = go(&random_reads(4096));
    let off_iops = off.timing.iops.unwrap();
    let small_iops = small.timing.iops.unwrap();
    let misses = small.mapping_cache.translation_read_pages.unwrap();
    assert!(misses > 45_000, "{misses} translation reads");
    // Nearly every read costs two page reads, the second waiting for the
    // first: the LUNs' read bound halves.
    assert!(
        small_iops < 0.6 * off_iops,
        "IOPS {small_iops} with a small cache, {off_iops} without"
    );
    assert!(
        small.timing.read_latency_us_mean.unwrap() > 1.5 * off.timing.read_latency_us_mean.unwrap()
    );
}

#[test]
fn qd1_miss_costs_two_dependent_reads() {
    let mut c = random_reads(1);
    c.timing.as_mut().unwrap().queue_depth = 1;
    c.workload.requests = Some(2_000);
    let t = c.timing.clone().unwrap().params(&c.device);
    let r = go(&c);
    // With one entry cached every read misses: two reads and two
    // transfers, one after the other (the first read also writes back the
    // entry the fill left dirty).
    let one = (t.read_ns + t.transfer_ns) as f64 / 1000.0;
    let mean = r.timing.read_latency_us_mean.unwrap();
    assert_eq!(r.mapping_cache.mapping_cache_hit_ratio, Some(0.0));
    assert!(
        mean > 1.99 * one && mean <= 2.01 * one,
        "mean {mean} us, one read {one} us"
    );
}

#[test]
fn too_large_a_cache_is_refused_naming_the_key() {
    let c = small_device(1_000_000);
    let e = c.validate().unwrap_err().to_string();
    assert!(e.contains("ftl.mapping_cache_entries"), "{e}");
    let mut c = small_device(16);
    c.ftl.checkpoint_interval_pages = 100;
    let e = c.validate().unwrap_err().to_string();
    assert!(e.contains("ftl.mapping_cache_entries"), "{e}");
}

#[test]
fn runs_with_the_cache_are_deterministic() {
    let a = serde_json::to_string(&go(&random_writes(500))).unwrap();
    let b = serde_json::to_string(&go(&random_writes(500))).unwrap();
    assert_eq!(a, b);
}

#[test]
fn the_crash_test_refuses_the_cache() {
    let c = small_device(16);
    let e = ssd(&c).track_power_loss(&c).unwrap_err().to_string();
    assert!(e.contains("ftl.mapping_cache_entries"), "{e}");
}
