//! The remap-based (dedup) device against a reference model LPN → content,
//! with duplicates, overwrites, trims, remaps and clones across many GC
//! cycles and the invariant checker after every operation: reference counts
//! equal the LPNs sharing each page, no referenced page is erased (a read
//! would return the wrong content), every read returns the right content.

use std::collections::HashMap;

use ftlsim::config::{Config, GcPolicyName, PlacementName};
use ftlsim::flash::Lpn;
use ftlsim::{SimError, Ssd, SsdOptions};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Step {
    /// Write `content` (a small alphabet, so duplicates are common).
    Write(u64, u64),
    Trim(u64),
    Read(u64),
    Remap(u64, u64, u64),
    Clone(u64, u64, u64),
}

fn device(placement: PlacementName, dedup: bool, policy: GcPolicyName) -> Config {
    let mut c = Config::default();
    c.device.blocks = 24;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.25;
    c.device.pe_cycle_limit = 0;
    c.ftl.dedup = dedup;
    c.ftl.remap = true;
    c.ftl.placement = placement;
    c.ftl.gc_policy = policy;
    c
}

const LOGICAL: u64 = 144; // 24 x 8 x 0.75

fn drive(cfg: &Config, steps: &[Step]) -> Result<Ssd, TestCaseError> {
    let mut ssd = Ssd::new(
        cfg,
        &SsdOptions {
            track_content: true,
            survival: true,
        },
    )
    .unwrap();
    let mut model: HashMap<u64, u64> = HashMap::new();
    let fail = |i: usize, e: SimError| TestCaseError::fail(format!("step {i}: {e}"));
    for (i, step) in steps.iter().enumerate() {
        match *step {
            Step::Write(lpn, content) => {
                ssd.write_page(lpn, 0, content).map_err(|e| fail(i, e))?;
                model.insert(lpn, content);
            }
            Step::Trim(lpn) => {
                ssd.trim_page(lpn).map_err(|e| fail(i, e))?;
                model.remove(&lpn);
            }
            Step::Read(lpn) => {
                let got = ssd
                    .read_page(lpn)
                    .map_err(|e| fail(i, e))?
                    .map(|r| r.content);
                prop_assert_eq!(
                    got,
                    model.get(&lpn).copied(),
                    "step {}: read LPN {}",
                    i,
                    lpn
                );
            }
            Step::Remap(src, dst, len) | Step::Clone(src, dst, len) => {
                let is_remap = matches!(step, Step::Remap(..));
                let before = ssd.clone();
                let result = if is_remap {
                    ssd.remap(src, dst, len)
                } else {
                    ssd.clone_range(src, dst, len)
                };
                let valid = src + len <= LOGICAL
                    && dst + len <= LOGICAL
                    && !(src < dst + len && dst < src + len)
                    && (src..src + len).all(|l| model.contains_key(&l));
                match result {
                    Ok(()) => {
                        prop_assert!(valid, "step {}: an invalid request succeeded", i);
                        for k in 0..len {
                            let c = model[&(src + k)];
                            model.insert(dst + k, c);
                            if is_remap {
                                model.remove(&(src + k));
                            }
                        }
                    }
                    Err(SimError::BadRequest(_)) => {
                        prop_assert!(!valid, "step {}: a valid request was refused", i);
                        // An error changes nothing.
                        for l in 0..LOGICAL {
                            prop_assert_eq!(ssd.lookup(l), before.lookup(l));
                        }
                    }
                    Err(e) => return Err(fail(i, e)),
                }
            }
        }
        ssd.check_invariants().map_err(|e| fail(i, e))?;
    }
    for lpn in 0..LOGICAL {
        let got = ssd.read_page(lpn).unwrap().map(|r| r.content);
        prop_assert_eq!(got, model.get(&lpn).copied(), "final read of LPN {}", lpn);
    }
    Ok(ssd)
}

fn steps(len: usize) -> impl Strategy<Value = Vec<Step>> {
    let lpn = 0..LOGICAL;
    let step = prop_oneof![
        8 => (lpn.clone(), 0..40u64).prop_map(|(l, c)| Step::Write(l, c)),
        4 => (lpn.clone(), 1000..100_000u64).prop_map(|(l, c)| Step::Write(l, c)),
        1 => lpn.clone().prop_map(Step::Trim),
        3 => lpn.clone().prop_map(Step::Read),
        1 => (0..LOGICAL + 4, 0..LOGICAL + 4, 1..6u64).prop_map(|(s, d, n)| Step::Remap(s, d, n)),
        1 => (0..LOGICAL + 4, 0..LOGICAL + 4, 1..6u64).prop_map(|(s, d, n)| Step::Clone(s, d, n)),
    ];
    prop::collection::vec(step, len)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn dedup_normal_placement_matches_model(s in steps(2500)) {
        let ssd = drive(&device(PlacementName::Normal, true, GcPolicyName::Greedy), &s)?;
        prop_assert!(ssd.counters().gc_count > 0, "GC should have run");
        prop_assert!(ssd.counters().dedup_hit_pages > 0, "duplicates should have been found");
    }

    #[test]
    fn coldmap_matches_model(s in steps(2500)) {
        drive(&device(PlacementName::Coldmap, true, GcPolicyName::Greedy), &s)?;
        drive(&device(PlacementName::ColdmapAge, true, GcPolicyName::CostBenefit), &s)?;
    }

    #[test]
    fn remap_without_dedup_matches_model(s in steps(2500)) {
        let ssd = drive(&device(PlacementName::Normal, false, GcPolicyName::Fifo), &s)?;
        prop_assert_eq!(ssd.counters().dedup_hit_pages, 0);
    }
}

#[test]
fn remap_on_a_one_to_one_ftl_moves_pages_and_clone_is_refused() {
    let mut c = device(PlacementName::Normal, false, GcPolicyName::Greedy);
    c.ftl.remap = false;
    let mut ssd = Ssd::new(
        &c,
        &SsdOptions {
            track_content: true,
            survival: false,
        },
    )
    .unwrap();
    for l in 0..4 {
        ssd.write_page(l, 0, 100 + l).unwrap();
    }
    let programs = ssd.counters().nand_write_pages;
    ssd.remap(0, 10, 4).unwrap();
    assert_eq!(
        ssd.counters().nand_write_pages,
        programs,
        "remap programs nothing"
    );
    for l in 0..4 {
        assert_eq!(ssd.read_page(l).unwrap(), None);
        assert_eq!(ssd.read_page(10 + l).unwrap().unwrap().content, 100 + l);
        let ppn = ssd.lookup(10 + l).unwrap();
        assert_eq!(ssd.reverse_lookup(ppn), Some(Lpn::new(10 + l as u32)));
    }
    assert!(
        matches!(ssd.clone_range(10, 20, 2), Err(SimError::BadRequest(m)) if m.contains("ftl.remap"))
    );
    ssd.check_invariants().unwrap();
}

#[test]
fn duplicate_writes_program_nothing_and_shared_pages_list_every_lpn() {
    let c = device(PlacementName::Normal, true, GcPolicyName::Greedy);
    let mut ssd = Ssd::new(
        &c,
        &SsdOptions {
            track_content: true,
            survival: true,
        },
    )
    .unwrap();
    ssd.write_page(1, 0, 7).unwrap();
    ssd.write_page(2, 0, 7).unwrap();
    ssd.write_page(3, 0, 7).unwrap();
    assert_eq!(ssd.counters().nand_write_pages, 1);
    assert_eq!(ssd.counters().dedup_hit_pages, 2);
    let ppn = ssd.lookup(1).unwrap();
    let mut lpns = ssd.lpns_of(ppn);
    lpns.sort_unstable();
    assert_eq!(lpns, [1, 2, 3].map(Lpn::new));
    ssd.trim_page(1).unwrap();
    ssd.write_page(2, 0, 8).unwrap();
    assert_eq!(ssd.lpns_of(ppn), [Lpn::new(3)]);
    ssd.trim_page(3).unwrap();
    assert!(
        ssd.lpns_of(ppn).is_empty(),
        "the page died with its last reference"
    );
    let s = ssd.sharing().unwrap();
    assert_eq!(s.survival_multi.count(), 1);
    ssd.check_invariants().unwrap();
}

#[test]
fn verified_dedup_catches_fingerprint_collisions_across_gc() {
    let mut c = device(PlacementName::Coldmap, true, GcPolicyName::Greedy);
    c.ftl.verify_content = true;
    let mut ssd = Ssd::new(
        &c,
        &SsdOptions {
            track_content: true,
            survival: false,
        },
    )
    .unwrap();
    let page = |tag: u8| vec![tag; 64];
    // Same fingerprint, different bytes: a collision, programmed apart.
    ssd.write_page_data_as(1, 0, 7, &page(b'a')).unwrap();
    ssd.write_page_data_as(2, 0, 7, &page(b'b')).unwrap();
    assert_eq!(ssd.sharing().unwrap().fingerprint_collisions, 1);
    assert_ne!(ssd.lookup(1), ssd.lookup(2));
    // Same fingerprint and bytes as the indexed page: deduplicated.
    ssd.write_page_data_as(3, 0, 7, &page(b'a')).unwrap();
    assert_eq!(ssd.lookup(3), ssd.lookup(1));
    assert_eq!(ssd.counters().dedup_hit_pages, 1);
    // Churn through many GC cycles; bytes follow their pages.
    let mut model: HashMap<u64, Vec<u8>> =
        HashMap::from([(1, page(b'a')), (2, page(b'b')), (3, page(b'a'))]);
    for i in 0..20_000u64 {
        let lpn = 10 + (i * 37) % 120;
        // A few hundred distinct contents: some duplicates, plenty of programs.
        let mut bytes = page(0);
        bytes[..8].copy_from_slice(&(i % 400).to_le_bytes());
        ssd.write_page_data(lpn, 0, &bytes).unwrap();
        model.insert(lpn, bytes);
        if i % 250 == 0 {
            ssd.check_invariants().unwrap();
        }
    }
    ssd.check_invariants().unwrap();
    assert!(ssd.counters().gc_count > 0);
    for (lpn, bytes) in &model {
        assert_eq!(
            ssd.read_page_data(*lpn),
            Some(bytes.as_slice()),
            "LPN {lpn}"
        );
    }
    assert_eq!(
        ftlsim::ftl::sharing::fingerprint_of_bytes(b"abc"),
        ftlsim::ftl::sharing::fingerprint_of_bytes(b"abc")
    );
    assert_ne!(
        ftlsim::ftl::sharing::fingerprint_of_bytes(b"abc"),
        ftlsim::ftl::sharing::fingerprint_of_bytes(b"abd")
    );
    c.ftl.dedup = false;
    assert_eq!(c.validate().unwrap_err().key, "ftl.verify_content");
}
