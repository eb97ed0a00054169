//! YCSB runs through the LSM engine on the device (`workload.type =
//! "ycsb"`): the report's `lsm` section, determinism, RemapCom's direction
//! on a small load, and the config checks that name their key.

use ftlsim::app::lsm::RemapMode;
use ftlsim::config::{Config, WorkloadType};
use ftlsim::workload::ycsb::YcsbWorkload;
use ftlsim::{run, Report, RunOptions};

/// A 64 MiB device and an engine at 1/16 of LevelDB's sizes.
fn config(ycsb: YcsbWorkload, remap: RemapMode) -> Config {
    let mut c = Config::default();
    c.device.page_bytes = 4096;
    c.device.pages_per_block = 64;
    c.device.blocks = 256;
    c.device.spare_factor = 0.2;
    c.device.pe_cycle_limit = 0;
    c.ftl.remap = remap != RemapMode::Off;
    c.workload.kind = WorkloadType::Ycsb;
    c.workload.ycsb = ycsb;
    c.workload.records = 20_000;
    c.workload.operations = 20_000;
    c.workload.value_bytes = 100;
    c.lsm.memtable_bytes = 256 << 10;
    c.lsm.sstable_bytes = 128 << 10;
    c.lsm.l1_bytes = 640 << 10;
    c.lsm.remap = remap;
    c
}

fn go(c: &Config) -> Report {
    let options = RunOptions {
        check: true,
        ..RunOptions::default()
    };
    run(c, &options, &mut |_| {}).unwrap()
}

#[test]
fn a_load_reports_the_lsm_section() {
    let r = go(&config(YcsbWorkload::Load, RemapMode::Off));
    let json = serde_json::to_value(&r).unwrap();
    let lsm = &json["lsm"];
    for key in [
        "user_write_bytes",
        "engine_wa",
        "udb_blocks",
        "remapped_pages",
        "wal_write_pages",
    ] {
        assert!(lsm[key].is_number(), "lsm.{key} missing: {lsm}");
    }
    let levels = lsm["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 7);
    for key in [
        "compaction_write_pages",
        "compaction_read_pages",
        "wa",
        "udb_ratio",
    ] {
        assert!(levels[1][key].is_number(), "levels[1].{key}: {lsm}");
    }
    let l = r.lsm.as_ref().unwrap();
    assert_eq!(l.kv_operations, 20_000);
    // 20k records of a 16-byte key and a 100-byte value.
    assert_eq!(l.user_write_bytes, 20_000 * 116);
    assert!(l.engine_wa > 1.0, "{l:?}");
    assert_eq!(l.remapped_pages, 0);
    // The device saw what the file layer wrote, and nothing else.
    assert_eq!(r.window.host_write_pages, l.file_write_pages);
    let shares: f64 = levels
        .iter()
        .map(|l| l["wa"].as_f64().unwrap())
        .sum::<f64>()
        + l.wal_write_pages as f64 * 4096.0 / l.user_write_bytes as f64;
    assert!((shares - l.engine_wa).abs() < 1e-9);
    assert!(json.get("lsm").is_some());
    // A run of another workload type has no lsm section.
    let mut plain = Config::default();
    plain.device.blocks = 64;
    plain.workload.writes = Some(ftlsim::config::Amount::Pages(1000));
    let r = run(&plain, &RunOptions::default(), &mut |_| {}).unwrap();
    assert!(serde_json::to_value(&r).unwrap().get("lsm").is_none());
}

#[test]
fn runs_are_deterministic() {
    let c = config(YcsbWorkload::A, RemapMode::Full);
    let a = serde_json::to_string(&go(&c)).unwrap();
    let b = serde_json::to_string(&go(&c)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn workload_a_after_the_load_measures_only_its_operations() {
    let r = go(&config(YcsbWorkload::A, RemapMode::Off));
    let l = r.lsm.unwrap();
    assert_eq!(l.kv_operations, 20_000);
    // About half are updates of 116 bytes.
    let updates = l.user_write_bytes / 116;
    assert!((9_000..11_000).contains(&updates), "{updates}");
    let r = go(&config(YcsbWorkload::C, RemapMode::Off));
    assert_eq!(r.lsm.unwrap().user_write_bytes, 0, "C only reads");
    let r = go(&config(YcsbWorkload::E, RemapMode::Off));
    assert!(r.window.host_read_pages > 20_000, "scans read blocks");
}

#[test]
fn remapping_lowers_engine_wa_on_the_load_and_a() {
    for ycsb in [YcsbWorkload::Load, YcsbWorkload::A] {
        let wa = |remap| {
            let r = go(&config(ycsb, remap));
            let l = r.lsm.unwrap();
            eprintln!(
                "{ycsb:?} {remap:?}: engine WA {:.3}, remapped {} pages, UDB ratio {:.3}",
                l.engine_wa, l.remapped_pages, l.udb_ratio
            );
            if remap != RemapMode::Off {
                assert!(l.remapped_pages > 0);
                assert_eq!(
                    l.remapped_pages,
                    r.sharing.remap_pages.unwrap_or(l.remapped_pages)
                );
            }
            l.engine_wa
        };
        let (off, base, full) = (wa(RemapMode::Off), wa(RemapMode::Base), wa(RemapMode::Full));
        assert!(base < off, "{ycsb:?}: base {base} vs off {off}");
        assert!(full < off, "{ycsb:?}: full {full} vs off {off}");
        // Since the engine compacts as LevelDB does (input expansion, level 0
        // by its pointer, memtables by arena memory), full RemapCom's aligned
        // blocks can cost the Load a hair over base (+0.04 % here): full is
        // within 1 % of base, not always below it (docs/remapcom.md).
        assert!(full <= base * 1.01, "{ycsb:?}: full {full} vs base {base}");
    }
}

#[test]
fn bad_ycsb_configs_name_their_key() {
    let key = |f: &dyn Fn(&mut Config)| {
        let mut c = config(YcsbWorkload::A, RemapMode::Base);
        f(&mut c);
        c.validate().unwrap_err().key
    };
    assert_eq!(key(&|c| c.workload.value_bytes = 0), "workload.value_bytes");
    assert_eq!(
        key(&|c| c.workload.value_bytes = 5000),
        "workload.value_bytes"
    );
    assert_eq!(key(&|c| c.workload.records = 0), "workload.records");
    assert_eq!(key(&|c| c.lsm.level_ratio = 1), "lsm.level_ratio");
    assert_eq!(key(&|c| c.ftl.remap = false), "lsm.remap");
    assert_eq!(key(&|c| c.workload.key_bytes = 4), "workload.key_bytes");
    // Without remapping a value larger than a block is fine (its own block).
    let mut c = config(YcsbWorkload::A, RemapMode::Off);
    c.workload.value_bytes = 5000;
    c.validate().unwrap();
}

/// `config` with the RemapCom example's flash timing (40/200/2000 µs, 10 µs
/// a page on the channel) on 8 channels × 4 LUNs, so that compactions run
/// on the background thread (`lsm.background_threads` unset: 1).
fn timed(ycsb: YcsbWorkload, remap: RemapMode, value_bytes: u32) -> Config {
    let mut c = config(ycsb, remap);
    c.device.channels = 8;
    c.device.luns_per_channel = 4;
    c.device.pages_per_block = 256;
    c.device.blocks = 256;
    c.workload.value_bytes = value_bytes;
    // Room for a 4 KiB value in a block of RemapCom's layout.
    c.lsm.block_bytes = 8192;
    c.timing = Some(ftlsim::config::TimingConfig {
        read_latency_us: 40.0,
        program_latency_us: 200.0,
        erase_latency_us: 2000.0,
        transfer_us_per_page: 10.0,
        ..Default::default()
    });
    c
}

/// With background compaction every workload runs to the end with every
/// read finding its pages (the feed checks each one), the engine's and the
/// device's invariants hold at the end (`check`), stall time and the
/// writer's throughput are reported, and the same seed gives the same bytes.
#[test]
fn background_compaction_runs_every_workload_deterministically() {
    use YcsbWorkload::*;
    for ycsb in [Load, A, B, C, D, E, F] {
        for remap in [RemapMode::Off, RemapMode::Full] {
            let c = timed(ycsb, remap, 1024);
            let r = go(&c);
            let l = r.lsm.as_ref().unwrap();
            assert_eq!(l.background_threads, Some(1));
            assert!(l.stall_us.is_some_and(|s| s >= 0.0), "{l:?}");
            assert!(l.throughput_ops_per_s.is_some_and(|t| t > 0.0), "{l:?}");
            if ycsb == A {
                let again = serde_json::to_string(&go(&c)).unwrap();
                assert_eq!(serde_json::to_string(&r).unwrap(), again);
            }
        }
    }
    // The load fills memtables faster than the device flushes them: writes stall.
    let r = go(&timed(Load, RemapMode::Off, 1024));
    assert!(r.lsm.unwrap().stall_us.unwrap() > 0.0);
    // Inline compaction: no stall, and throughput is the window's.
    let mut c = timed(Load, RemapMode::Off, 1024);
    c.lsm.background_threads = Some(0);
    let l = go(&c).lsm.unwrap();
    assert_eq!((l.background_threads, l.stall_us), (Some(0), Some(0.0)));
    assert_eq!(l.throughput_ops_per_s, l.kv_ops_per_sec);
}

/// The direction, where it holds here: full RemapCom gives a
/// higher simulated throughput than LevelDB's compaction (off) on the load
/// at 1 KiB and 4 KiB values (compaction programs fewer pages: shorter
/// stalls), and on workload A at 1 KiB with one-page blocks. Where it does
/// not (docs/remapcom.md), nothing is asserted: with the default blocks of
/// up to 8 pages, A is read-bound and full's page-aligned blocks make each
/// get read more pages than off's packed ones; at 4 KiB values A with full
/// stalls longer than off (1.45 s against 0.68 s here, 5 776 against
/// 8 380 ops/s).
#[test]
fn full_remapcom_raises_throughput_on_the_load_and_a() {
    for (ycsb, value_bytes, block_pages) in [
        (YcsbWorkload::Load, 1024, 8),
        (YcsbWorkload::Load, 4096, 8),
        (YcsbWorkload::A, 1024, 1),
    ] {
        let ops = |remap| {
            let mut c = timed(ycsb, remap, value_bytes);
            c.lsm.aligned_block_max_pages = block_pages;
            let l = go(&c).lsm.unwrap();
            eprintln!(
                "{ycsb:?} {value_bytes} B {remap:?}: {:.0} ops/s, stall {:.0} us, engine WA {:.3}",
                l.throughput_ops_per_s.unwrap(),
                l.stall_us.unwrap(),
                l.engine_wa
            );
            l.throughput_ops_per_s.unwrap()
        };
        let (off, full) = (ops(RemapMode::Off), ops(RemapMode::Full));
        assert!(
            full > off,
            "{ycsb:?} at {value_bytes} B: full {full} vs off {off}"
        );
    }
}

#[test]
fn bad_background_configs_name_their_key() {
    let key = |f: &dyn Fn(&mut Config)| {
        let mut c = timed(YcsbWorkload::A, RemapMode::Off, 1024);
        f(&mut c);
        c.validate().unwrap_err().key
    };
    assert_eq!(key(&|c| c.lsm.l0_stop = 8), "lsm.l0_stop");
    assert_eq!(key(&|c| c.lsm.l0_slowdown = 0), "lsm.l0_slowdown");
    assert_eq!(
        key(&|c| c.lsm.background_threads = Some(17)),
        "lsm.background_threads"
    );
    // Threads asked for without a timing section have no time to run in.
    let no_timing = |c: &mut Config| {
        c.timing = None;
        c.lsm.background_threads = Some(1);
    };
    assert_eq!(key(&no_timing), "lsm.background_threads");
    // Unset or 0 without timing: inline, as before.
    let mut c = config(YcsbWorkload::A, RemapMode::Off);
    c.validate().unwrap();
    c.lsm.background_threads = Some(0);
    c.validate().unwrap();
}
