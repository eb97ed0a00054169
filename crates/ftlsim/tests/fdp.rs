//! NVMe FDP mode (docs/fdp.md): reclaim units, handles and their isolation.
//!
//! * Against a reference model: random writes with placement ids (some
//!   invalid), trims and reads over many GC cycles; every read returns the
//!   last write, and no reclaim unit ever holds data of two handles
//!   (persistently isolated) or host data of two handles (initially).
//! * Equivalences with the stream machinery FDP reuses: one handle with
//!   one-block RUs is a device with a separate GC frontier; persistently
//!   isolated handles with one-block RUs are streams with internal streams.
//! * Hot/cold data on two handles lowers WAF against one handle.

use std::collections::HashMap;

use ftlsim::config::{Amount, Config, FdpIsolation, FrontierMode, GcPolicyName, WorkloadType};
use ftlsim::flash::Ppn;
use ftlsim::host::{lba_streams::LbaStreamsConfig, LayerConfig};
use ftlsim::{run, BlockDevice, Op, Report, Request, RunOptions, Ssd, SsdOptions};
use proptest::prelude::*;

const HANDLES: u16 = 3;

fn tiny_fdp(isolation: FdpIsolation, ru_blocks: u32, policy: GcPolicyName) -> Config {
    let mut c = Config::default();
    c.device.blocks = 128;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.3;
    c.ftl.gc_policy = policy;
    c.ftl.gc_choices = 3;
    c.ftl.fdp = true;
    c.ftl.fdp_handles = HANDLES;
    c.ftl.fdp_ru_blocks = ru_blocks;
    c.ftl.fdp_isolation = isolation;
    c.validate().expect("valid config");
    c
}

#[derive(Debug, Clone)]
enum Step {
    /// A write of `pages` pages at an LPN with a placement id (possibly invalid).
    Write {
        lpn: u64,
        pages: u32,
        pid: u16,
    },
    Trim(u64),
    Read(u64),
}

/// Steps on `logical` pages with placement ids `0..=ids` (`ids` is invalid).
fn steps(logical: u64, ids: u16) -> impl Strategy<Value = Vec<Step>> {
    // Skewed LPNs (a quarter of the space takes most writes) so that
    // reclaim units die unevenly and GC has copies to route.
    let lpn = prop_oneof![3 => 0..logical / 4, 1 => 0..logical];
    let step = prop_oneof![
        8 => (lpn.clone(), 1u32..4, 0..ids + 1)
            .prop_map(|(lpn, pages, pid)| Step::Write { lpn, pages, pid }),
        1 => lpn.clone().prop_map(Step::Trim),
        2 => lpn.prop_map(Step::Read),
    ];
    prop::collection::vec(step, 1500..3000)
}

/// Runs the steps on the device and on the model (LPN → content tag and
/// the placement id that wrote it); checks reads, isolation (each reclaim
/// unit holds one handle's data, in that handle's reclaim group) and
/// invariants.
fn drive(cfg: &Config, steps: &[Step]) -> Result<(), TestCaseError> {
    let mut ssd = Ssd::new(
        cfg,
        &SsdOptions {
            track_content: true,
            survival: true,
        },
    )
    .expect("valid config");
    let logical = u64::from(ssd.logical_pages());
    let persistent = cfg.ftl.fdp_isolation == FdpIsolation::Persistently;
    let ids = cfg.ftl.placement_ids();
    let ru_pages = cfg.device.pages_per_block * cfg.ftl.fdp_ru_blocks;
    let group_units = cfg.device.blocks / cfg.ftl.fdp_ru_blocks / cfg.ftl.fdp_reclaim_groups;
    let group_of_ppn = |ppn: Ppn| ppn.get() / ru_pages / group_units;
    let mut model: HashMap<u64, (u64, u16)> = HashMap::new();
    let mut tag = 0u64;
    let mut invalid_writes = 0u64;
    let mut req = Request::default();
    for (i, step) in steps.iter().enumerate() {
        match *step {
            Step::Write { lpn, pages, pid } => {
                let pages = pages.min((logical - lpn) as u32);
                req.set(Op::Write, lpn, pages);
                req.stream = pid;
                for p in 0..pages {
                    req.fingerprints.push(tag + 1 + u64::from(p));
                }
                ssd.submit(&req)
                    .map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
                // An unknown placement id writes through handle 0.
                let handle = if pid < ids { pid } else { 0 };
                invalid_writes += u64::from(pid >= ids);
                for p in 0..pages {
                    tag += 1;
                    model.insert(lpn + u64::from(p), (tag, handle));
                }
            }
            Step::Trim(lpn) => {
                ssd.trim_page(lpn)
                    .map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
                model.remove(&lpn);
            }
            Step::Read(lpn) => {
                let got = ssd
                    .read_page(lpn)
                    .map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
                prop_assert_eq!(
                    got.map(|r| r.content),
                    model.get(&lpn).map(|m| m.0),
                    "step {}: read of LPN {}",
                    i,
                    lpn
                );
            }
        }
        if i % 97 == 0 {
            ssd.check_invariants()
                .map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
        }
    }
    ssd.check_invariants()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(
        ssd.counters().gc_count > 0,
        "no GC ran: the test shows nothing"
    );
    prop_assert_eq!(ssd.counters().fdp_invalid_placement_ids, invalid_writes);
    for lpn in 0..logical {
        let expected = model.get(&lpn).copied();
        let got = ssd.read_page(lpn).unwrap().map(|r| r.content);
        prop_assert_eq!(got, expected.map(|m| m.0), "final read of LPN {}", lpn);
        let (Some((_, handle)), Some(ppn)) = (expected, ssd.lookup(lpn)) else {
            continue;
        };
        prop_assert_eq!(
            group_of_ppn(ppn),
            u32::from(handle / HANDLES),
            "LPN {} written through placement id {} left its reclaim group",
            lpn,
            handle
        );
        // Every reclaim unit belongs to one handle: its host unit or (when
        // persistently isolated) its GC unit. Initially isolated handles
        // share the GC unit, so only host units are checked there.
        if persistent || !ssd.block_is_gc(ppn) {
            prop_assert_eq!(
                ssd.block_stream(ppn),
                handle,
                "LPN {} written through handle {} lies in a reclaim unit of handle {} (GC unit: {})",
                lpn,
                handle,
                ssd.block_stream(ppn),
                ssd.block_is_gc(ppn)
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn persistently_isolated_handles_never_share_a_reclaim_unit(
        s in steps(716, HANDLES),
        ru_blocks in prop_oneof![Just(1u32), Just(2), Just(4)],
        cost_benefit in any::<bool>(),
    ) {
        let policy = if cost_benefit { GcPolicyName::CostBenefit } else { GcPolicyName::Greedy };
        let cfg = tiny_fdp(FdpIsolation::Persistently, ru_blocks, policy);
        drive(&cfg, &s)?;
    }

    #[test]
    fn initially_isolated_handles_keep_host_data_apart(
        s in steps(716, HANDLES),
        ru_blocks in prop_oneof![Just(1u32), Just(2), Just(4)],
    ) {
        let cfg = tiny_fdp(FdpIsolation::Initially, ru_blocks, GcPolicyName::Greedy);
        drive(&cfg, &s)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Two reclaim groups: each placement id writes to its group, and GC
    /// of each group keeps the group's data (spare 0.5 so that either
    /// group can hold its random share of the live data).
    #[test]
    fn reclaim_groups_keep_their_data(
        s in steps(512, 2 * HANDLES),
        ru_blocks in prop_oneof![Just(1u32), Just(2)],
        persistent in any::<bool>(),
    ) {
        let isolation = if persistent { FdpIsolation::Persistently } else { FdpIsolation::Initially };
        let mut cfg = tiny_fdp(isolation, ru_blocks, GcPolicyName::Greedy);
        cfg.device.spare_factor = 0.5;
        cfg.ftl.fdp_reclaim_groups = 2;
        cfg.validate().expect("valid config");
        drive(&cfg, &s)?;
    }
}

#[test]
fn tiny_devices_have_the_logical_space_the_strategies_assume() {
    let cfg = tiny_fdp(FdpIsolation::Persistently, 2, GcPolicyName::Greedy);
    assert_eq!(cfg.logical_pages(), 716);
    let mut two = cfg.clone();
    two.device.spare_factor = 0.5;
    two.ftl.fdp_reclaim_groups = 2;
    assert_eq!(two.logical_pages(), 512);
    assert_eq!(two.ftl.placement_ids(), 2 * HANDLES);
}

/// Hot/cold 90/10 at Sf 0.10 on 1024 blocks of 64 pages, cost-benefit GC; `handles` 2 puts
/// the hot tenth of the space on handle 1 through an `lba-streams` layer.
fn hot_cold(fdp: bool, handles: u16, isolation: FdpIsolation, ru_blocks: u32) -> Config {
    let mut c = Config::default();
    c.device.blocks = 1024;
    c.device.pages_per_block = 64;
    c.device.spare_factor = 0.10;
    // Cost-benefit: greedy splits the spare space badly between a hot and
    // a cold handle (tests/streams.rs), which hides what separation gains.
    c.ftl.gc_policy = GcPolicyName::CostBenefit;
    c.workload.kind = WorkloadType::HotCold;
    c.workload.hot_write_fraction = 0.9;
    c.workload.hot_space_fraction = 0.1;
    c.workload.warmup = Some(Amount::Capacity(3.0));
    c.workload.writes = Some(Amount::Capacity(3.0));
    if fdp {
        c.ftl.fdp = true;
        c.ftl.fdp_handles = handles;
        c.ftl.fdp_isolation = isolation;
        c.ftl.fdp_ru_blocks = ru_blocks;
    } else {
        c.ftl.streams = handles;
    }
    if handles > 1 {
        let hot_pages = (0.1 * c.logical_pages() as f64).round() as u64;
        c.host.layers = vec![LayerConfig::LbaStreams(LbaStreamsConfig {
            ranges: vec![[0, hot_pages, 1]],
        })];
    }
    c.validate().expect("valid config");
    c
}

fn report(c: &Config) -> Report {
    run(
        c,
        &RunOptions {
            check: true,
            ..Default::default()
        },
        &mut |_| {},
    )
    .expect("run")
}

/// The numbers a placement decides.
fn numbers(r: &Report) -> (u64, u64, u64, u64, Option<f64>) {
    let w = &r.window;
    (
        w.host_write_pages,
        w.nand_write_pages,
        w.gc_copy_pages,
        w.erase_count,
        w.waf,
    )
}

#[test]
fn one_handle_of_one_block_units_is_a_device_with_a_gc_frontier() {
    let fdp = report(&hot_cold(true, 1, FdpIsolation::Initially, 1));
    let mut plain = hot_cold(false, 1, FdpIsolation::Initially, 1);
    plain.ftl.frontiers = FrontierMode::Separate;
    let plain = report(&plain);
    assert_eq!(numbers(&fdp), numbers(&plain));
    assert!(plain.fdp.is_none() && fdp.fdp.is_some());
}

#[test]
fn persistently_isolated_handles_are_streams_with_internal_streams() {
    let fdp = report(&hot_cold(true, 2, FdpIsolation::Persistently, 1));
    let mut streams = hot_cold(false, 2, FdpIsolation::Initially, 1);
    streams.ftl.internal_streams = true;
    let streams = report(&streams);
    assert_eq!(numbers(&fdp), numbers(&streams));
    assert_eq!(fdp.streams.len(), 2);
    assert_eq!(
        fdp.streams[1].host_write_pages,
        streams.streams[1].host_write_pages
    );
}

#[test]
fn two_handles_on_hot_and_cold_data_lower_waf() {
    for isolation in [FdpIsolation::Initially, FdpIsolation::Persistently] {
        for ru_blocks in [1, 4] {
            let one = report(&hot_cold(true, 1, isolation, ru_blocks));
            let two = report(&hot_cold(true, 2, isolation, ru_blocks));
            let (one, two) = (one.window.waf.unwrap(), two.window.waf.unwrap());
            eprintln!("{isolation:?}, {ru_blocks}-block RUs: one handle {one:.3}, two {two:.3}");
            // Initially isolated handles still mix hot and cold copies in
            // the shared GC unit, so they gain less than persistent ones.
            let gain = match isolation {
                FdpIsolation::Initially => 0.03,
                FdpIsolation::Persistently => 0.10,
            };
            assert!(
                two < one * (1.0 - gain),
                "{isolation:?}, {ru_blocks}-block RUs: two handles {two} not {gain} below one handle {one}"
            );
        }
    }
}

#[test]
fn the_report_has_the_fdp_statistics() {
    let c = hot_cold(true, 2, FdpIsolation::Persistently, 4);
    let r = report(&c);
    let f = r.fdp.as_ref().expect("fdp section");
    let page = u64::from(c.device.page_bytes);
    assert_eq!(f.hbmw_bytes, r.window.host_write_pages * page);
    assert_eq!(f.mbmw_bytes, r.window.nand_write_pages * page);
    assert_eq!(f.mbe_bytes, r.window.erase_count * 64 * page);
    assert_eq!(f.ru_bytes, 4 * 64 * page);
    let waf = f.mbmw_bytes as f64 / f.hbmw_bytes as f64;
    assert!((waf - r.window.waf.unwrap()).abs() < 1e-12);
    // Whole reclaim units are erased: 4 flash blocks at a time.
    assert!(r.window.erase_count > 0 && r.window.erase_count.is_multiple_of(4));
    assert_eq!(f.events.invalid_placement_id, 0);
    assert_eq!(f.events.ru_not_fully_written, 0);
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["fdp"]["isolation"], "persistently");
    assert_eq!(json["fdp"]["events"]["invalid_placement_id"], 0);
    // Off: no section at all, so reports without FDP keep their keys.
    let off = report(&hot_cold(false, 1, FdpIsolation::Initially, 1));
    assert!(serde_json::to_value(&off).unwrap().get("fdp").is_none());
}

#[test]
fn invalid_placement_ids_fall_back_to_handle_zero_and_are_counted() {
    let cfg = tiny_fdp(FdpIsolation::Persistently, 2, GcPolicyName::Greedy);
    let mut ssd = Ssd::new(&cfg, &SsdOptions::default()).unwrap();
    let mut req = Request::default();
    req.set(Op::Write, 10, 3);
    req.stream = 7;
    ssd.submit(&req).unwrap();
    assert_eq!(ssd.counters().fdp_invalid_placement_ids, 1);
    assert_eq!(ssd.block_stream(ssd.lookup(10).unwrap()), 0);
    assert_eq!(ssd.stream_counters()[0].host_write_pages, 3);
    req.stream = 2;
    ssd.submit(&req).unwrap();
    assert_eq!(ssd.counters().fdp_invalid_placement_ids, 1);
    assert_eq!(ssd.block_stream(ssd.lookup(10).unwrap()), 2);
    // Without FDP the same request is refused.
    let mut plain = cfg.clone();
    plain.ftl.fdp = false;
    let mut ssd = Ssd::new(&plain, &SsdOptions::default()).unwrap();
    req.stream = 7;
    assert!(ssd.submit(&req).is_err());
}

#[test]
fn a_handle_update_closes_a_partly_written_unit_and_counts_it() {
    let cfg = tiny_fdp(FdpIsolation::Persistently, 2, GcPolicyName::Greedy);
    let mut ssd = Ssd::new(&cfg, &SsdOptions::default()).unwrap();
    // A fresh handle has nothing to leave behind.
    ssd.fdp_update_handle(1).unwrap();
    assert_eq!(ssd.counters().fdp_ru_not_fully_written, 0);
    ssd.write_page(0, 1, 0).unwrap();
    let first = ssd.lookup(0).unwrap();
    ssd.fdp_update_handle(1).unwrap();
    assert_eq!(ssd.counters().fdp_ru_not_fully_written, 1);
    ssd.write_page(1, 1, 0).unwrap();
    let second = ssd.lookup(1).unwrap();
    let ru_pages = 2 * 8;
    assert_ne!(
        first.get() / ru_pages,
        second.get() / ru_pages,
        "the handle moved on"
    );
    assert!(ssd.fdp_update_handle(HANDLES).is_err());
    ssd.check_invariants().unwrap();
    // The closed unit is reclaimable: fill the device several times over.
    for i in 0..4 * u64::from(ssd.logical_pages()) {
        ssd.write_page(i % u64::from(ssd.logical_pages()), (i % 3) as u16, 0)
            .unwrap();
        if i % 50 == 0 {
            ssd.fdp_update_handle((i % 3) as u16).unwrap();
        }
    }
    ssd.check_invariants().unwrap();
    assert!(ssd.counters().fdp_ru_not_fully_written > 1);
}
