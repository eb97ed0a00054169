//! A stack of `lba-streams` over the device against a reference model
//! LPN → content: random multi-page writes, reads, trims, remaps and clones
//! go in at the top of the stack; every read must agree with the model, and
//! every page must land in a block opened for its range's stream (while no
//! remap or clone has moved pages across ranges).

use std::collections::HashMap;

use ftlsim::config::{Config, FrontierMode, GcPolicyName};
use ftlsim::host::{lba_streams::LbaStreamsConfig, LayerConfig, Stack};
use ftlsim::request::{BlockDevice, Op, Request};
use ftlsim::{SimError, Ssd, SsdOptions};
use proptest::prelude::*;

const LOGICAL: u64 = 144; // 24 x 8 x 0.75
const RANGES: [[u64; 3]; 2] = [[0, 40, 1], [100, 144, 2]];

fn stream_of(lpn: u64) -> u16 {
    RANGES
        .iter()
        .find(|r| (r[0]..r[1]).contains(&lpn))
        .map_or(0, |r| r[2] as u16)
}

fn config(dedup: bool, frontiers: FrontierMode, policy: GcPolicyName) -> Config {
    let mut c = Config::default();
    c.device.blocks = 24;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.25;
    c.device.pe_cycle_limit = 0;
    c.ftl.dedup = dedup;
    c.ftl.remap = true;
    c.ftl.streams = 3;
    c.ftl.frontiers = frontiers;
    c.ftl.gc_policy = policy;
    c.host.layers = vec![LayerConfig::LbaStreams(LbaStreamsConfig {
        ranges: RANGES.to_vec(),
    })];
    c.validate().unwrap();
    c
}

#[derive(Debug, Clone)]
enum Step {
    /// Write `pages` pages from `lpn`, contents `content`, `content + 1`, …
    Write(u64, u32, u64),
    Read(u64, u32),
    Trim(u64, u32),
    Remap(u64, u64, u32),
    Clone(u64, u64, u32),
}

fn drive(cfg: &Config, steps: &[Step]) -> Result<Stack, TestCaseError> {
    let ssd = Ssd::new(
        cfg,
        &SsdOptions {
            track_content: true,
            survival: true,
        },
    )
    .unwrap();
    let mut stack = Stack::new(cfg, ssd).unwrap();
    prop_assert_eq!(stack.logical_pages(), LOGICAL);
    let mut model: HashMap<u64, u64> = HashMap::new();
    let mut req = Request::default();
    let mut moved_across = false;
    let fail = |i: usize, e: SimError| TestCaseError::fail(format!("step {i}: {e}"));
    for (i, step) in steps.iter().enumerate() {
        match *step {
            Step::Write(lpn, pages, content) => {
                let pages = pages.min((LOGICAL - lpn) as u32);
                req.set(Op::Write, lpn, pages);
                req.fingerprints
                    .extend((0..u64::from(pages)).map(|k| content + k));
                stack.submit(&req).map_err(|e| fail(i, e))?;
                for k in 0..u64::from(pages) {
                    model.insert(lpn + k, content + k);
                }
            }
            Step::Read(lpn, pages) => {
                let pages = pages.min((LOGICAL - lpn) as u32);
                req.set(Op::Read, lpn, pages);
                let done = stack.submit(&req).map_err(|e| fail(i, e))?;
                let mapped = (lpn..lpn + u64::from(pages))
                    .filter(|l| model.contains_key(l))
                    .count() as u32;
                prop_assert_eq!(done.mapped_pages, mapped, "step {}: mapped pages", i);
                prop_assert_eq!(done.unmapped_pages, pages - mapped);
                for l in lpn..lpn + u64::from(pages) {
                    let got = stack.ssd_mut().read_page(l).unwrap().map(|r| r.content);
                    prop_assert_eq!(got, model.get(&l).copied(), "step {}: LPN {}", i, l);
                }
            }
            Step::Trim(lpn, pages) => {
                let pages = pages.min((LOGICAL - lpn) as u32);
                req.set(Op::Trim, lpn, pages);
                stack.submit(&req).map_err(|e| fail(i, e))?;
                for l in lpn..lpn + u64::from(pages) {
                    model.remove(&l);
                }
            }
            Step::Remap(src, dst, pages) | Step::Clone(src, dst, pages) => {
                let remap = matches!(step, Step::Remap(..));
                req.set(if remap { Op::Remap } else { Op::Clone }, dst, pages);
                req.src_lpn = src;
                let len = u64::from(pages);
                let valid = src + len <= LOGICAL
                    && dst + len <= LOGICAL
                    && !(src < dst + len && dst < src + len)
                    && (src..src + len).all(|l| model.contains_key(&l));
                match stack.submit(&req) {
                    Ok(_) => {
                        prop_assert!(valid, "step {}: an invalid request succeeded", i);
                        moved_across = true;
                        for k in 0..len {
                            let c = model[&(src + k)];
                            model.insert(dst + k, c);
                            if remap {
                                model.remove(&(src + k));
                            }
                        }
                    }
                    Err(SimError::BadRequest(_)) => {
                        prop_assert!(!valid, "step {}: a valid request was refused", i)
                    }
                    Err(e) => return Err(fail(i, e)),
                }
            }
        }
        stack.check_invariants().map_err(|e| fail(i, e))?;
        if !moved_across && cfg.ftl.frontiers == FrontierMode::Shared && !cfg.ftl.dedup {
            // GC copies return to the stream their block was opened for.
            for (&lpn, _) in model.iter() {
                let ppn = stack.ssd().lookup(lpn).expect("mapped");
                let stream = stack.ssd().block_stream(ppn);
                prop_assert_eq!(stream, stream_of(lpn), "step {}: LPN {} in stream", i, lpn);
            }
        }
    }
    for lpn in 0..LOGICAL {
        let got = stack.ssd_mut().read_page(lpn).unwrap().map(|r| r.content);
        prop_assert_eq!(got, model.get(&lpn).copied(), "final read of LPN {}", lpn);
    }
    Ok(stack)
}

fn steps(len: usize, moves: u32) -> impl Strategy<Value = Vec<Step>> {
    let lpn = 0..LOGICAL;
    let step = prop_oneof![
        10 => (lpn.clone(), 1..5u32, 0..60u64).prop_map(|(l, n, c)| Step::Write(l, n, c)),
        4 => (lpn.clone(), 1..5u32, 1000..100_000u64).prop_map(|(l, n, c)| Step::Write(l, n, c)),
        3 => (lpn.clone(), 1..5u32).prop_map(|(l, n)| Step::Read(l, n)),
        1 => (lpn.clone(), 1..3u32).prop_map(|(l, n)| Step::Trim(l, n)),
        moves => (0..LOGICAL + 4, 0..LOGICAL + 4, 1..5u32).prop_map(|(s, d, n)| Step::Remap(s, d, n)),
        moves => (0..LOGICAL + 4, 0..LOGICAL + 4, 1..5u32).prop_map(|(s, d, n)| Step::Clone(s, d, n)),
    ];
    prop::collection::vec(step, len)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn stack_with_remap_and_clone_matches_model(s in steps(1500, 1)) {
        let stack = drive(&config(false, FrontierMode::Shared, GcPolicyName::Greedy), &s)?;
        prop_assert!(stack.ssd().counters().gc_count > 0, "GC should have run");
    }

    #[test]
    fn stack_over_dedup_matches_model(s in steps(1500, 1)) {
        drive(&config(true, FrontierMode::Separate, GcPolicyName::CostBenefit), &s)?;
    }

    #[test]
    fn gc_copies_stay_in_their_stream(s in steps(1500, 0)) {
        let stack = drive(&config(false, FrontierMode::Shared, GcPolicyName::Greedy), &s)?;
        prop_assert!(stack.ssd().counters().gc_copy_pages > 0, "GC should have copied pages");
    }
}
