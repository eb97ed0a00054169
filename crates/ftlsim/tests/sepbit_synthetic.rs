//! `workload.type = "sepbit-synthetic"`: its keys' checks name the key, a
//! run is deterministic per seed, the generator's stream is skewed as the
//! Zipf law says over the working set and its hot set moves after
//! `hot_shift_bytes`.

use ftlsim::config::{Amount, Config, WorkloadType};
use ftlsim::workload::sepbit::HOT_DIVISOR;
use ftlsim::workload::Generator;
use ftlsim::{run, RunOptions};

fn sepbit(alpha: f64) -> Config {
    let mut c = Config::default();
    c.device.blocks = 128;
    c.device.pages_per_block = 64;
    c.device.spare_factor = 0.2;
    c.workload.kind = WorkloadType::SepbitSynthetic;
    c.workload.zipf_alpha = Some(alpha);
    c.workload.working_set_bytes = Some(4096 * 5000);
    c.workload.warmup = Some(Amount::Pages(0));
    c.workload.writes = Some(Amount::Capacity(3.0));
    c
}

fn key_of(c: &Config) -> String {
    c.validate().expect_err("must be refused").key
}

#[test]
fn bad_keys_are_refused_by_name() {
    let mut c = sepbit(-0.1);
    assert_eq!(key_of(&c), "workload.zipf_alpha");
    c.workload.zipf_alpha = None;
    assert_eq!(key_of(&c), "workload.zipf_alpha");
    c = sepbit(1.0);
    c.workload.working_set_bytes = Some(0);
    assert_eq!(key_of(&c), "workload.working_set_bytes");
    c.workload.working_set_bytes = Some(4096 * c.logical_pages() + 4096);
    assert_eq!(key_of(&c), "workload.working_set_bytes");
    c.workload.working_set_bytes = Some(4096 * 100 + 1);
    assert_eq!(key_of(&c), "workload.working_set_bytes");
    c = sepbit(1.0);
    c.workload.hot_shift_bytes = Some(0);
    assert_eq!(key_of(&c), "workload.hot_shift_bytes");
    c = sepbit(1.0);
    c.workload.span = Some(Amount::Pages(100));
    assert_eq!(key_of(&c), "workload.span");
    // The keys belong to this type alone.
    let mut u = Config::default();
    u.workload.hot_shift_bytes = Some(4096);
    assert_eq!(key_of(&u), "workload.hot_shift_bytes");
    // The whole logical space is a working set.
    c = sepbit(0.0);
    c.workload.working_set_bytes = Some(4096 * c.logical_pages());
    c.validate().unwrap();
}

#[test]
fn same_seed_same_report_other_seed_other_stream() {
    let mut c = sepbit(1.0);
    c.workload.hot_shift_bytes = Some(4096 * 1000);
    let json = |c: &Config| {
        serde_json::to_string(&run(c, &RunOptions::default(), &mut |_| {}).unwrap()).unwrap()
    };
    assert_eq!(json(&c), json(&c));
    let draws = |c: &Config| {
        let mut g = Generator::new(c).unwrap();
        (0..1000).map(|_| g.next_write()).collect::<Vec<_>>()
    };
    assert_eq!(draws(&c), draws(&c));
    let mut other = c.clone();
    other.workload.seed += 1;
    assert_ne!(draws(&c), draws(&other));
}

/// The top decile of the working set (ranks 1..n/10 while the hot set has
/// not moved) takes the Zipf law's share of writes; every write stays in
/// the working set; after the shift the hottest page moves within the hot
/// fifth.
#[test]
fn stream_has_the_laws_skew_and_its_hot_set_moves() {
    let n = 5000u64;
    let law = |alpha: f64, top: u64| {
        let w = |k: u64| (k as f64).powf(-alpha);
        (1..=top).map(w).sum::<f64>() / (1..=n).map(w).sum::<f64>()
    };
    for alpha in [0.0, 0.8, 1.0] {
        let mut c = sepbit(alpha);
        let shift = 50_000u64;
        c.workload.hot_shift_bytes = Some(4096 * shift);
        let mut g = Generator::new(&c).unwrap();
        let mut counts = vec![0u32; n as usize];
        let mut top = 0u64;
        for _ in 0..shift {
            let lpn = g.next_write();
            assert!(lpn < n, "{lpn} is outside the working set");
            counts[lpn as usize] += 1;
            top += u64::from(lpn < n / 10);
        }
        let share = top as f64 / shift as f64;
        let want = law(alpha, n / 10);
        assert!(
            (share - want).abs() < 0.01,
            "alpha {alpha}: top decile {share}, law {want}"
        );
        if alpha > 0.0 {
            let first = (0..n as usize).max_by_key(|&s| counts[s]).unwrap();
            assert_eq!(first, 0, "rank 1 is page 0 before the first shift");
            let mut later = vec![0u32; n as usize];
            for _ in 0..shift {
                later[g.next_write() as usize] += 1;
            }
            let second = (0..n as usize).max_by_key(|&s| later[s]).unwrap() as u64;
            assert!(
                second < n / HOT_DIVISOR,
                "hottest {second} left the hot fifth"
            );
            assert_ne!(second, 0, "the hot set did not move after hot_shift_bytes");
        }
    }
}
