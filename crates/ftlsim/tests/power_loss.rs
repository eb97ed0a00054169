//! Power cut and recovery at the `Ssd` level: with write-through and a
//! journal page per record, everything but the operation in flight is
//! acknowledged, so after a cut at any flash operation every LPN must read
//! its last value (or the in-flight one), and the invariants must hold.

use ftlsim::config::Config;
use ftlsim::{Ssd, SsdOptions};

fn config() -> Config {
    let mut c = Config::default();
    c.device.blocks = 32;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.25;
    c.device.pe_cycle_limit = 0;
    c.ftl.journal_batch = 1;
    c
}

fn options() -> SsdOptions {
    SsdOptions {
        track_content: true,
        survival: false,
    }
}

#[test]
fn every_cut_point_recovers_what_was_acknowledged() {
    let cfg = config();
    let logical = cfg.logical_pages();
    for cut_at in 1..700u64 {
        let mut ssd = Ssd::new(&cfg, &options()).unwrap();
        ssd.track_power_loss(&cfg).unwrap();
        ssd.arm_power_cut(cut_at);
        let mut model: Vec<Option<u64>> = vec![None; logical as usize];
        let mut in_flight = None;
        let mut step = 0u64;
        while !ssd.power_lost() {
            step += 1;
            let lpn = ftlsim::hash::splitmix64(step) % logical;
            let content = step;
            if step.is_multiple_of(7) {
                ssd.trim_page(lpn).unwrap();
                in_flight = Some((lpn, None));
            } else {
                ssd.write_page(lpn, 0, content).unwrap();
                in_flight = Some((lpn, Some(content)));
            }
            if !ssd.power_lost() {
                let (l, v) = in_flight.take().unwrap();
                model[l as usize] = v;
            }
        }
        ssd.power_cut().unwrap();
        let report = ssd.recover().unwrap();
        assert!(report.pages_scanned > 0 || step == 1);
        ssd.check_invariants()
            .unwrap_or_else(|e| panic!("cut at op {cut_at}: {e}"));
        for lpn in 0..logical {
            let got = ssd.peek_content(lpn);
            let want = model[lpn as usize];
            let flight = in_flight.filter(|&(l, _)| l == lpn).map(|(_, v)| v);
            assert!(
                got == want || Some(got) == flight,
                "cut at op {cut_at}: LPN {lpn} reads {got:?}, acknowledged {want:?}"
            );
        }
        // The device keeps working after recovery.
        for lpn in 0..logical {
            ssd.write_page(lpn, 0, 1_000_000 + lpn).unwrap();
        }
        ssd.check_invariants().unwrap();
    }
}

#[test]
fn without_tracking_there_is_nothing_to_cut() {
    let mut ssd = Ssd::new(&config(), &options()).unwrap();
    assert!(!ssd.power_loss_tracking());
    assert!(ssd.power_loss_stats().is_none());
    assert_eq!(ssd.durable_seq(), u64::MAX);
    assert!(ssd.power_cut().is_err());
}

#[test]
fn tracking_starts_only_on_an_empty_device() {
    let cfg = config();
    let mut ssd = Ssd::new(&cfg, &options()).unwrap();
    ssd.write_page(0, 0, 1).unwrap();
    assert!(ssd.track_power_loss(&cfg).is_err());
}
