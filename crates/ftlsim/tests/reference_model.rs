//! The device against a reference model: a plain map LPN → last content tag.
//! Random writes, overwrites, trims and reads over many GC cycles, with the
//! invariant checker after every operation: every read returns the last
//! write, trimmed and never-written pages read as unmapped.

use std::collections::HashMap;

use ftlsim::config::{Config, FrontierMode, GcPolicyName};
use ftlsim::{Ssd, SsdOptions};
use proptest::prelude::*;

#[derive(Debug, Clone)]
pub(crate) enum Step {
    Write(u64),
    Trim(u64),
    Read(u64),
}

fn tiny(policy: GcPolicyName, frontiers: FrontierMode, pe_limit: u32, wl: u32) -> Config {
    let mut c = Config::default();
    c.device.blocks = 16;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.25;
    c.device.pe_cycle_limit = pe_limit;
    c.ftl.gc_policy = policy;
    c.ftl.gc_choices = 3;
    c.ftl.frontiers = frontiers;
    c.ftl.wear_leveling_threshold = wl;
    c
}

/// Applies the steps to the device and the model; checks every read and the invariants.
pub(crate) fn drive(cfg: &Config, steps: &[Step], check_every: usize) -> Result<(), TestCaseError> {
    let mut ssd = Ssd::new(
        cfg,
        &SsdOptions {
            track_content: true,
            survival: true,
        },
    )
    .expect("valid config");
    let mut model: HashMap<u64, u64> = HashMap::new();
    let mut tag = 0u64;
    for (i, step) in steps.iter().enumerate() {
        match *step {
            Step::Write(lpn) => {
                tag += 1;
                ssd.write_page(lpn, 0, tag)
                    .map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
                model.insert(lpn, tag);
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
                    model.get(&lpn).copied(),
                    "step {}: read of LPN {}",
                    i,
                    lpn
                );
            }
        }
        if i % check_every == 0 {
            ssd.check_invariants()
                .map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
        }
    }
    ssd.check_invariants()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    for lpn in 0..u64::from(ssd.logical_pages()) {
        let got = ssd.read_page(lpn).unwrap().map(|r| r.content);
        prop_assert_eq!(got, model.get(&lpn).copied(), "final read of LPN {}", lpn);
    }
    prop_assert!(
        ssd.counters().gc_count > 0 || steps.len() < 500,
        "the sequence should have exercised GC"
    );
    Ok(())
}

pub(crate) fn steps(logical: u64, len: usize) -> impl Strategy<Value = Vec<Step>> {
    // Writes dominate so that the device fills and GC runs many cycles;
    // a narrow hot range makes overwrites frequent.
    let step = prop_oneof![
        6 => (0..logical).prop_map(Step::Write),
        3 => (0..logical / 8).prop_map(Step::Write),
        1 => (0..logical).prop_map(Step::Trim),
        3 => (0..logical).prop_map(Step::Read),
    ];
    prop::collection::vec(step, len)
}

const LOGICAL: u64 = 96; // 16 blocks x 8 pages x (1 - 0.25)

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn greedy_shared_matches_model(s in steps(LOGICAL, 3000)) {
        drive(&tiny(GcPolicyName::Greedy, FrontierMode::Shared, 0, 0), &s, 1)?;
    }

    #[test]
    fn greedy_separate_matches_model(s in steps(LOGICAL, 3000)) {
        drive(&tiny(GcPolicyName::Greedy, FrontierMode::Separate, 0, 0), &s, 1)?;
    }

    #[test]
    fn fifo_matches_model(s in steps(LOGICAL, 3000)) {
        drive(&tiny(GcPolicyName::Fifo, FrontierMode::Shared, 0, 0), &s, 1)?;
    }

    #[test]
    fn random_and_d_choices_match_model(s in steps(LOGICAL, 3000)) {
        drive(&tiny(GcPolicyName::Random, FrontierMode::Separate, 0, 0), &s, 1)?;
        drive(&tiny(GcPolicyName::DChoices, FrontierMode::Shared, 0, 0), &s, 1)?;
    }

    #[test]
    fn cost_benefit_with_wear_leveling_matches_model(s in steps(LOGICAL, 3000)) {
        drive(&tiny(GcPolicyName::CostBenefit, FrontierMode::Separate, 0, 2), &s, 1)?;
    }
}

/// 200 000 steps of random pages, `hot_share` of them among the first `hot`:
/// a tenth trims, three tenths reads, the rest writes.
pub(crate) fn long_sequence(seed: u64, hot: u64, hot_share: f64, logical: u64) -> Vec<Step> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..200_000)
        .map(|_| {
            let lpn = if rng.random_bool(hot_share) {
                rng.random_range(0..hot)
            } else {
                rng.random_range(0..logical)
            };
            match rng.random_range(0..10) {
                0 => Step::Trim(lpn),
                1..=3 => Step::Read(lpn),
                _ => Step::Write(lpn),
            }
        })
        .collect()
}

/// Long sequences: hundreds of GC cycles per block, every policy and mode.
#[test]
fn long_runs_match_model_for_every_policy() {
    let seq = long_sequence(7, 12, 0.5, LOGICAL);
    for policy in [
        GcPolicyName::Greedy,
        GcPolicyName::CostBenefit,
        GcPolicyName::Fifo,
        GcPolicyName::Random,
        GcPolicyName::DChoices,
    ] {
        for frontiers in [FrontierMode::Shared, FrontierMode::Separate] {
            drive(&tiny(policy, frontiers, 0, 4), &seq, 97)
                .unwrap_or_else(|e| panic!("{policy:?} {frontiers:?}: {e}"));
        }
    }
}

/// With a P/E limit, blocks retire, capacity shrinks, and the device reports
/// end of life instead of failing obscurely; until then, reads stay right.
#[test]
fn wear_out_ends_in_end_of_life() {
    let cfg = tiny(GcPolicyName::Greedy, FrontierMode::Shared, 30, 0);
    let mut ssd = Ssd::new(
        &cfg,
        &SsdOptions {
            track_content: true,
            survival: false,
        },
    )
    .unwrap();
    let mut model = HashMap::new();
    let mut end = None;
    for i in 0..1_000_000u64 {
        let lpn = (i * 7919) % LOGICAL;
        match ssd.write_page(lpn, 0, i) {
            Ok(()) => {
                model.insert(lpn, i);
            }
            Err(e) => {
                end = Some(e);
                break;
            }
        }
    }
    match end {
        Some(ftlsim::SimError::EndOfLife { retired_blocks }) => assert!(retired_blocks > 0),
        other => panic!("expected end of life, got {other:?}"),
    }
    assert!(ssd.retired_blocks() > 0);
    assert!(
        ssd.erase_counts().iter().all(|&e| e <= 30),
        "no block erased past its limit"
    );
}
