//! Stacked log layers over the device against a reference model LPN →
//! content: random multi-page writes, reads, trims, remaps and clones go in
//! at the top of two or three logs with small segments, so that every layer
//! cleans (and trims, and writes its metadata) many times; every read must
//! return the last write, found through every layer's mapping down to the
//! device page, and every layer's invariants must hold after every step.

use std::collections::HashMap;

use ftlsim::config::{Config, GcPolicyName};
use ftlsim::host::log::{Coordination, LogConfig, Separation};
use ftlsim::host::{LayerConfig, Stack};
use ftlsim::request::{BlockDevice, Op, Request};
use ftlsim::{SimError, Ssd, SsdOptions};
use proptest::prelude::*;

fn config(layers: &[LogConfig]) -> Config {
    let mut c = Config::default();
    c.device.page_bytes = 512; // 128 mapping entries per metadata page
    c.device.blocks = 64;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.25;
    c.device.pe_cycle_limit = 0;
    c.ftl.gc_policy = GcPolicyName::Greedy;
    c.ftl.gc_low_watermark = 2;
    c.ftl.gc_high_watermark = 4;
    c.ftl.streams = 2;
    c.host.layers = layers.iter().cloned().map(LayerConfig::Log).collect();
    c.validate().unwrap();
    c
}

fn layer(ratio: f64, segment: u32, f: impl FnOnce(&mut LogConfig)) -> LogConfig {
    let mut l = LogConfig {
        capacity_ratio: ratio,
        segment_pages: segment,
        checkpoint_pages: 64,
        ..LogConfig::default()
    };
    f(&mut l);
    l
}

#[derive(Debug, Clone)]
enum Step {
    /// Write `pages` pages, contents `content`, `content + 1`, …, on a stream.
    Write(u32, u64, u16),
    Read(u32),
    Trim(u32),
    Remap(u64, u32),
    Clone(u64, u32),
}

fn drive(cfg: &Config, steps: &[(u64, Step)]) -> Result<Stack, TestCaseError> {
    let ssd = Ssd::new(
        cfg,
        &SsdOptions {
            track_content: true,
            survival: true,
        },
    )
    .unwrap();
    let mut stack = Stack::new(cfg, ssd).unwrap();
    let logical = stack.logical_pages();
    prop_assert_eq!(logical, cfg.host_pages());
    let mut model: HashMap<u64, u64> = HashMap::new();
    let mut req = Request::default();
    let fail = |i: usize, e: SimError| TestCaseError::fail(format!("step {i}: {e}"));
    let read_content = |stack: &mut Stack, lpn: u64| {
        let device_lpn = stack.device_lpn(lpn)?;
        stack
            .ssd_mut()
            .read_page(device_lpn)
            .unwrap()
            .map(|r| r.content)
    };
    for (i, (at, step)) in steps.iter().enumerate() {
        // Steps carry a position in a unit space, scaled to the stack's size.
        let lpn = at % logical;
        match *step {
            Step::Write(pages, content, stream) => {
                let pages = pages.min((logical - lpn) as u32);
                req.set(Op::Write, lpn, pages);
                req.stream = stream;
                req.fingerprints
                    .extend((0..u64::from(pages)).map(|k| content + k));
                stack.submit(&req).map_err(|e| fail(i, e))?;
                for k in 0..u64::from(pages) {
                    model.insert(lpn + k, content + k);
                }
            }
            Step::Read(pages) => {
                let pages = pages.min((logical - lpn) as u32);
                req.set(Op::Read, lpn, pages);
                let done = stack.submit(&req).map_err(|e| fail(i, e))?;
                let mapped = (lpn..lpn + u64::from(pages))
                    .filter(|l| model.contains_key(l))
                    .count() as u32;
                prop_assert_eq!(done.mapped_pages, mapped, "step {}: mapped pages", i);
                for l in lpn..lpn + u64::from(pages) {
                    let got = read_content(&mut stack, l);
                    prop_assert_eq!(got, model.get(&l).copied(), "step {}: LPN {}", i, l);
                }
            }
            Step::Trim(pages) => {
                let pages = pages.min((logical - lpn) as u32);
                req.set(Op::Trim, lpn, pages);
                stack.submit(&req).map_err(|e| fail(i, e))?;
                for l in lpn..lpn + u64::from(pages) {
                    model.remove(&l);
                }
            }
            Step::Remap(dst, pages) | Step::Clone(dst, pages) => {
                let (src, dst) = (lpn, dst % (logical + 4));
                let remap = matches!(step, Step::Remap(..));
                req.set(if remap { Op::Remap } else { Op::Clone }, dst, pages);
                req.src_lpn = src;
                let len = u64::from(pages);
                let valid = src + len <= logical
                    && dst + len <= logical
                    && !(src < dst + len && dst < src + len)
                    && (src..src + len).all(|l| model.contains_key(&l));
                match stack.submit(&req) {
                    Ok(_) => {
                        prop_assert!(valid, "step {}: an invalid request succeeded", i);
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
    }
    for lpn in 0..logical {
        let got = read_content(&mut stack, lpn);
        prop_assert_eq!(got, model.get(&lpn).copied(), "final read of LPN {}", lpn);
    }
    Ok(stack)
}

fn steps(len: usize) -> impl Strategy<Value = Vec<(u64, Step)>> {
    let at = 0..1u64 << 32;
    let step = prop_oneof![
        10 => (1..5u32, 0..60u64, 0..7u16).prop_map(|(n, c, s)| Step::Write(n, c, s)),
        4 => (1..5u32, 1000..100_000u64, 0..7u16).prop_map(|(n, c, s)| Step::Write(n, c, s)),
        3 => (1..5u32).prop_map(Step::Read),
        1 => (1..4u32).prop_map(Step::Trim),
        1 => (0..1u64 << 32, 1..5u32).prop_map(|(d, n)| Step::Remap(d, n)),
        1 => (0..1u64 << 32, 1..5u32).prop_map(|(d, n)| Step::Clone(d, n)),
    ];
    prop::collection::vec((at, step), len)
}

fn gc_ran(stack: &Stack, layers: usize) -> Result<(), TestCaseError> {
    let mut stats = Vec::new();
    stack.layer_stats(&mut stats);
    prop_assert_eq!(stats.len(), layers + 1);
    for (i, s) in stats.iter().take(layers).enumerate() {
        prop_assert!(s.gc_count > 0, "layer {} never cleaned: {:?}", i, s);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn two_logs_over_the_device_match_the_model(s in steps(1500)) {
        let cfg = config(&[
            layer(0.6, 8, |l| {
                l.append_streams = 3;
                l.separation = Separation::F2fs;
                l.metadata = true;
            }),
            layer(0.85, 8, |l| {
                l.trim = false;
                l.gc_policy = GcPolicyName::CostBenefit;
                l.coordination = Coordination::DeferLower;
                l.lower_streams = true;
                l.append_streams = 2;
                l.separation = Separation::HotCold;
            }),
        ]);
        let stack = drive(&cfg, &s)?;
        gc_ran(&stack, 2)?;
    }

    #[test]
    fn three_logs_over_the_device_match_the_model(s in steps(1500)) {
        let cfg = config(&[
            layer(0.85, 2, |l| l.gc_policy = GcPolicyName::Fifo),
            layer(0.85, 4, |l| {
                l.gc_policy = GcPolicyName::DChoices;
                l.gc_choices = 3;
                l.free_segments_low = 1;
                l.free_segments_high = 2;
            }),
            layer(0.9, 8, |l| l.gc_policy = GcPolicyName::Random),
        ]);
        let stack = drive(&cfg, &s)?;
        gc_ran(&stack, 3)?;
    }

    #[test]
    fn a_log_on_a_zoned_device_matches_the_model(s in steps(1200)) {
        let mut cfg = config(&[layer(0.7, 8, |l| l.append_streams = 2)]);
        cfg.device.zoned = true;
        cfg.device.max_open_zones = 2;
        cfg.ftl.gc_low_watermark = 0;
        cfg.ftl.gc_high_watermark = 0;
        cfg.validate().unwrap();
        let stack = drive(&cfg, &s)?;
        gc_ran(&stack, 1)?;
        prop_assert_eq!(stack.ssd().counters().gc_copy_pages, 0);
        prop_assert_eq!(stack.ssd().counters().nand_write_pages, stack.ssd().counters().host_write_pages);
    }
}
