//! Placement schemes (`[ftl.placement_scheme]`): each through the device
//! (page by page, and request by request through the stack) against the
//! reference model, the baselines equal to the frontier modes they stand
//! for, determinism, the directions that hold on a skewed workload, and bad
//! keys.

use std::collections::HashMap;

use ftlsim::config::{
    Config, FkLifespanClasses, FrontierMode, GcPolicyName, PlacementSchemeConfig, Regime,
    TworrVictim,
};
use ftlsim::host::Stack;
use ftlsim::request::{BlockDevice, Op, Request};
use ftlsim::{run, RunOptions, Ssd, SsdOptions};
use proptest::prelude::*;

use crate::reference_model::{drive, long_sequence, steps};

/// Every scheme, with the keys that make a small device exercise its
/// machinery: short periods, small chunks, few extents.
fn schemes() -> Vec<PlacementSchemeConfig> {
    use PlacementSchemeConfig::*;
    vec![
        Nosep {},
        Sepgc {},
        Dac { classes: 6 },
        Sfs {
            classes: 6,
            quantization_iterations: 3,
        },
        Multilog { classes: 6 },
        Eti {
            max_extents: 8,
            decay_period_requests: 64,
            hot_count: 2,
            max_count: 3,
        },
        Mq {
            classes: 6,
            chunk_pages: 4,
        },
        Sfr {
            classes: 6,
            chunk_pages: 4,
            decay_period_pages: 64,
        },
        Fadac { classes: 6 },
        Warcip {
            classes: 6,
            split_merge_period_segments: 2,
        },
        Sepbit {
            lifespan_window_segments: 2,
            gc_age_base: 4.0,
        },
        // Driven page by page there is no pre-pass: every write is class 0.
        Fk {
            classes: Some(6),
            lifespan_classes: FkLifespanClasses::Auto,
            span_capacities: None,
        },
        // Epochs of one logical space, every LPN sampled: the model runs
        // and its chain takes victims many times in a test's writes.
        Midas {
            max_groups: 4,
            initial_groups: 3,
            sampling_ratio: 1,
            epoch_capacities: 1.0,
        },
        Tworr {
            min_region_garbage_blocks: 1,
            victim: TworrVictim::Greedy,
        },
        Tworr {
            min_region_garbage_blocks: 1,
            victim: TworrVictim::Fifo,
        },
    ]
}

/// Every scheme with its defaults, as a config names it.
fn defaults() -> Vec<PlacementSchemeConfig> {
    [
        "nosep", "sepgc", "dac", "sfs", "multilog", "eti", "mq", "sfr", "fadac", "warcip",
        "sepbit", "midas", "tworr",
    ]
    .iter()
    .map(|t| toml::from_str(&format!("type = \"{t}\"")).unwrap())
    .collect()
}

/// The defaults whose classes fit `small`'s spare blocks (MiDAS's nine
/// groups do not: it is there with four, in `schemes`).
fn small_defaults() -> impl Iterator<Item = PlacementSchemeConfig> {
    defaults().into_iter().filter(|s| s.classes() <= 6)
}

/// 32 blocks of 8 pages, a quarter spare: room for six class frontiers.
fn small(scheme: PlacementSchemeConfig) -> Config {
    let mut c = Config::default();
    c.device.blocks = 32;
    c.device.pages_per_block = 8;
    c.device.spare_factor = 0.25;
    c.device.pe_cycle_limit = 0;
    c.ftl.placement_scheme = Some(scheme);
    c
}

const LOGICAL: u64 = 192; // 32 blocks x 8 pages x (1 - 0.25)

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn every_scheme_matches_the_model(s in steps(LOGICAL, 3000)) {
        for scheme in schemes() {
            drive(&small(scheme), &s, 1)?;
        }
    }
}

/// Long runs: many GC cycles, so that SepBIT's ℓ is learned and used.
#[test]
fn long_runs_match_the_model_for_every_scheme() {
    let seq = long_sequence(11, 16, 0.7, LOGICAL);
    for scheme in schemes() {
        drive(&small(scheme), &seq, 101).unwrap_or_else(|e| panic!("{scheme:?}: {e}"));
    }
}

/// A request: a write of `pages` pages from an LPN, a trim or a read.
#[derive(Debug, Clone)]
enum Req {
    Write(u64, u32),
    Trim(u64, u32),
    Read(u64, u32),
}

fn requests(logical: u64, len: usize) -> impl Strategy<Value = Vec<Req>> {
    // Sequential runs, a hot eighth and scattered pages, so that chunk and
    // extent schemes see both kinds of request.
    let req = prop_oneof![
        5 => (0..logical, 1..9u32).prop_map(|(l, p)| Req::Write(l, p)),
        3 => (0..logical / 8, 1..3u32).prop_map(|(l, p)| Req::Write(l, p)),
        1 => (0..logical, 1..5u32).prop_map(|(l, p)| Req::Trim(l, p)),
        2 => (0..logical, 1..9u32).prop_map(|(l, p)| Req::Read(l, p)),
    ];
    prop::collection::vec(req, len)
}

/// Submits the requests at the top of a stack of no layers over the
/// device (the run's path: each request whole, with an arrival), against
/// a map LPN → content; checks every read and, at the end, every page.
fn drive_requests(cfg: &Config, reqs: &[Req]) -> Result<(), TestCaseError> {
    let options = SsdOptions {
        track_content: true,
        survival: true,
    };
    let ssd = Ssd::new(cfg, &options).expect("valid config");
    let mut stack = Stack::new(cfg, ssd).expect("no layers");
    let logical = stack.logical_pages();
    let mut model: HashMap<u64, u64> = HashMap::new();
    let mut req = Request::default();
    let mut tag = 0u64;
    for (i, r) in reqs.iter().enumerate() {
        let (op, lpn, pages) = match *r {
            Req::Write(l, p) => (Op::Write, l, p),
            Req::Trim(l, p) => (Op::Trim, l, p),
            Req::Read(l, p) => (Op::Read, l, p),
        };
        let pages = pages.min((logical - lpn) as u32);
        req.set(op, lpn, pages);
        // Arrivals 3 µs apart, some requests together.
        req.arrival_ns = Some(i as u64 / 2 * 3_000);
        if op == Op::Write {
            req.fingerprints
                .extend((0..u64::from(pages)).map(|k| tag + k + 1));
        }
        stack
            .submit(&req)
            .map_err(|e| TestCaseError::fail(format!("request {i}: {e}")))?;
        for k in 0..u64::from(pages) {
            match op {
                Op::Write => {
                    model.insert(lpn + k, tag + k + 1);
                }
                Op::Trim => {
                    model.remove(&(lpn + k));
                }
                _ => {
                    let got = stack
                        .ssd_mut()
                        .read_page(lpn + k)
                        .unwrap()
                        .map(|p| p.content);
                    prop_assert_eq!(got, model.get(&(lpn + k)).copied(), "request {}", i);
                }
            }
        }
        tag += u64::from(pages);
    }
    let ssd = stack.ssd_mut();
    ssd.check_invariants()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    for lpn in 0..logical {
        let got = ssd.read_page(lpn).unwrap().map(|p| p.content);
        prop_assert_eq!(got, model.get(&lpn).copied(), "final read of LPN {}", lpn);
    }
    prop_assert!(
        ssd.counters().gc_count > 0 || reqs.len() < 500,
        "the requests should have exercised GC"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn every_scheme_matches_the_model_request_by_request(r in requests(LOGICAL, 1500)) {
        for scheme in schemes().into_iter().chain(small_defaults()) {
            drive_requests(&small(scheme), &r)?;
        }
    }
}

/// Long runs of requests: many GC cycles, so that every scheme's learning
/// (quantisation, splits and merges, decays, ℓ) runs and is used.
#[test]
fn long_request_runs_match_the_model_for_every_scheme() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(29);
    let reqs: Vec<Req> = (0..40_000)
        .map(|_| {
            let hot = rng.random_bool(0.7);
            let lpn = if hot {
                rng.random_range(0..24)
            } else {
                rng.random_range(0..LOGICAL)
            };
            let pages = rng.random_range(1..5);
            match rng.random_range(0..10) {
                0 => Req::Trim(lpn, pages),
                1..=2 => Req::Read(lpn, pages),
                _ => Req::Write(lpn, pages),
            }
        })
        .collect();
    for scheme in schemes().into_iter().chain(small_defaults()) {
        drive_requests(&small(scheme), &reqs).unwrap_or_else(|e| panic!("{scheme:?}: {e}"));
    }
}

fn zipf(scheme: Option<PlacementSchemeConfig>, frontiers: FrontierMode) -> f64 {
    let mut c: Config = toml::from_str(
        r#"
        [device]
        blocks = 512
        pages_per_block = 32
        spare_factor = 0.1
        [workload]
        type = "zipf"
        zipf_theta = 0.99
        writes = "4x"
        warmup = "2x"
        "#,
    )
    .unwrap();
    c.ftl.placement_scheme = scheme;
    c.ftl.frontiers = frontiers;
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    r.window.waf.unwrap()
}

/// NoSep and SepGC are the shared and separate frontier modes of one
/// stream: the same device, byte for byte.
#[test]
fn nosep_and_sepgc_are_the_frontier_modes() {
    use PlacementSchemeConfig::{Nosep, Sepgc};
    let shared = zipf(None, FrontierMode::Shared);
    assert_eq!(zipf(Some(Nosep {}), FrontierMode::Shared), shared);
    let separate = zipf(None, FrontierMode::Separate);
    assert_eq!(zipf(Some(Sepgc {}), FrontierMode::Shared), separate);
    assert!(separate < shared, "{separate} vs {shared}");
}

/// On a skewed workload SepBIT writes less than NoSep and SepGC (FAST'22,
/// §5: below every baseline on skewed traces).
#[test]
fn sepbit_beats_the_baselines_on_skew() {
    let sepbit = zipf(
        Some(PlacementSchemeConfig::Sepbit {
            lifespan_window_segments: 16,
            gc_age_base: 4.0,
        }),
        FrontierMode::Shared,
    );
    let nosep = zipf(Some(PlacementSchemeConfig::Nosep {}), FrontierMode::Shared);
    let sepgc = zipf(Some(PlacementSchemeConfig::Sepgc {}), FrontierMode::Shared);
    assert!(
        sepbit < sepgc && sepgc < nosep,
        "sepbit {sepbit}, sepgc {sepgc}, nosep {nosep}"
    );
}

/// Every scheme with its defaults, fk last, as a config names it.
fn every_default() -> Vec<PlacementSchemeConfig> {
    let mut all = defaults();
    all.push(toml::from_str("type = \"fk\"").unwrap());
    all
}

/// On ftlsim's SSD (512 blocks of 32 pages, 10 % spare, Zipf 0.99) fk's
/// default there, geometric lifespan classes, writes no more than any
/// scheme (2026-11-27: fk 1.200 against fadac's 3.688, the lowest of the
/// others); SepBIT's FK, a class per block's worth of lifespan, sees six
/// blocks ahead of a space of 460 and measured 3.989 here, above dac and
/// fadac.
#[test]
fn fk_is_at_or_below_every_scheme_on_a_skewed_ssd() {
    let mut was = Vec::new();
    for scheme in every_default() {
        was.push((scheme.name(), zipf(Some(scheme), FrontierMode::Shared)));
    }
    let (_, fk) = *was.last().unwrap();
    for (name, waf) in &was {
        assert!(fk <= *waf, "fk {fk} above {name} {waf}: {was:?}");
    }
    let auto = zipf(
        Some(toml::from_str("type = \"fk\"\nlifespan_classes = \"geometric\"").unwrap()),
        FrontierMode::Shared,
    );
    assert_eq!(auto, fk, "auto is geometric on the SSD");
}

/// The WA of `log_zipf`'s window.
fn log_zipf_waf(scheme: &str) -> f64 {
    let window: serde_json::Value = serde_json::from_str(&log_zipf(scheme, 7)).unwrap();
    window["waf"].as_f64().unwrap()
}

/// In SepBIT's log regime (Zipf 0.9, the hot set moving) fk's default
/// there is SepBIT's FK, byte for byte, and it writes no more than any
/// scheme (2026-11-27: fk 2.158 against dac's 2.699 and sepbit's 2.731).
#[test]
fn fk_is_at_or_below_every_scheme_in_the_skewed_log_regime() {
    let fk = log_zipf_waf("fk");
    for scheme in every_default() {
        let name = scheme.name();
        let waf = log_zipf_waf(name);
        assert!(fk <= waf, "fk {fk} above {name} {waf}");
    }
    let segments = log_zipf_keys("type = \"fk\"\nlifespan_classes = \"segments\"", 7);
    assert_eq!(log_zipf("fk", 7), segments, "auto is segments in the log");
}

/// The zipf config's report, whole, as JSON.
fn zipf_report(scheme: PlacementSchemeConfig) -> String {
    let mut c: Config = toml::from_str(
        r#"
        [device]
        blocks = 256
        pages_per_block = 32
        spare_factor = 0.1
        [workload]
        type = "zipf"
        zipf_theta = 0.99
        writes = "2x"
        warmup = "1x"
        "#,
    )
    .unwrap();
    c.ftl.placement_scheme = Some(scheme);
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    serde_json::to_string(&r).unwrap()
}

/// Same config and seed, same report, byte for byte: MultiLog's draws come
/// from the seed, and nothing else draws.
#[test]
fn every_scheme_is_deterministic() {
    for scheme in defaults() {
        assert_eq!(zipf_report(scheme), zipf_report(scheme), "{scheme:?}");
    }
}

/// fk's three lifespan rules, each deterministic, and each separating
/// enough on Zipf 0.99 to write less than NoSep.
#[test]
fn fk_rules_are_deterministic() {
    let nosep = zipf(Some(PlacementSchemeConfig::Nosep {}), FrontierMode::Shared);
    for rule in ["segments", "geometric", "death-time"] {
        let scheme: PlacementSchemeConfig =
            toml::from_str(&format!("type = \"fk\"\nlifespan_classes = \"{rule}\"")).unwrap();
        assert_eq!(zipf_report(scheme), zipf_report(scheme), "{rule}");
        let waf = zipf(Some(scheme), FrontierMode::Shared);
        assert!(waf < nosep, "{rule} {waf} against nosep {nosep}");
    }
}

/// On Zipf 0.99 every scheme that separates user writes by what it has
/// seen of them writes less than NoSep (by 19 % to 41 % on this device,
/// 2026-11-27), and SepBIT less than SFR (the issue's must-show, as
/// SepBIT's paper reports on skewed traces). MQ and SFR stay above SepGC
/// here: their chunks of 1 and 2 MiB mix the scattered hot pages of a
/// Zipf law with cold ones.
#[test]
fn hot_cold_separators_beat_nosep_on_skew() {
    let nosep = zipf(Some(PlacementSchemeConfig::Nosep {}), FrontierMode::Shared);
    let mut sfr = 0.0;
    let mut sepbit = 0.0;
    for scheme in defaults() {
        let name = scheme.name();
        // tworr and midas place user writes in one class (their own test
        // is below).
        if matches!(name, "nosep" | "sepgc" | "tworr" | "midas") {
            continue;
        }
        let waf = zipf(Some(scheme), FrontierMode::Shared);
        assert!(waf < 0.9 * nosep, "{name} {waf} against nosep {nosep}");
        match name {
            "sfr" => sfr = waf,
            "sepbit" => sepbit = waf,
            _ => {}
        }
    }
    assert!(sepbit < sfr, "sepbit {sepbit}, sfr {sfr}");
}

/// 2R and MiDAS, which put every user write in one class and choose GC's
/// victims, write less than NoSep on Zipf 0.99 (2026-11-27: tworr 4.20, 33 %
/// below nosep's 6.24 and below sepgc's 4.87; midas 4.69, 25 % below).
#[test]
fn victim_choosing_schemes_beat_nosep_on_skew() {
    let nosep = zipf(Some(PlacementSchemeConfig::Nosep {}), FrontierMode::Shared);
    for name in ["tworr", "midas"] {
        let scheme: PlacementSchemeConfig = toml::from_str(&format!("type = \"{name}\"")).unwrap();
        let waf = zipf(Some(scheme), FrontierMode::Shared);
        assert!(waf < nosep, "{name} {waf} against nosep {nosep}");
    }
}

/// MiDAS on the SSD with a moving hot set (SepBIT's synthetic workload at
/// alpha 1, the hot fifth reshuffled every 2 MiB, 20 x a 192 MiB space
/// written from empty): at or below NoSep. Its model once applied chains
/// whose FIFO groups held pages far past what its update intervals had
/// seen, on an extrapolated tail (2026-11-27: WA 3.164 against nosep's
/// 1.864); bounded as MiDAS bounds them, 1.627 (sepgc 1.693).
#[test]
fn midas_is_no_worse_than_nosep_with_a_moving_hot_set() {
    let waf = |scheme: &str| {
        let text = format!(
            r#"
            [device]
            blocks = 256
            pages_per_block = 256
            spare_factor = 0.25
            [ftl.placement_scheme]
            type = "{scheme}"
            [workload]
            type = "sepbit-synthetic"
            zipf_alpha = 1.0
            hot_shift_bytes = 2097152
            precondition = "none"
            warmup = 0
            writes = "20x"
            seed = 42
            "#
        );
        let c: Config = toml::from_str(&text).unwrap();
        let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
        r.window.waf.unwrap()
    };
    let (midas, nosep) = (waf("midas"), waf("nosep"));
    assert!(midas <= nosep, "midas {midas} against nosep {nosep}");
}

fn refused(toml_text: &str) -> (String, String) {
    let c: Result<Config, _> = toml::from_str(toml_text);
    match c {
        Err(e) => ("toml".into(), e.to_string()),
        Ok(c) => {
            let e = c.validate().unwrap_err();
            (e.key, e.message)
        }
    }
}

#[test]
fn bad_scheme_keys_are_refused_by_name() {
    let (key, msg) = refused("[ftl.placement_scheme]\ntype = \"nope\"\n");
    assert!(key == "toml" && msg.contains("unknown variant"), "{msg}");
    let (_, msg) = refused("[ftl.placement_scheme]\ntype = \"nosep\"\nclasses = 2\n");
    assert!(msg.contains("unknown field"), "{msg}");
    let (_, msg) = refused("[ftl.placement_scheme]\ntype = \"dac\"\nclasses = \"six\"\n");
    assert!(msg.contains("invalid type"), "{msg}");
    let (key, _) = refused("[ftl.placement_scheme]\ntype = \"dac\"\nclasses = 0\n");
    assert_eq!(key, "ftl.placement_scheme.classes");
    let (key, _) = refused("[ftl.placement_scheme]\ntype = \"sepbit\"\ngc_age_base = 1.0\n");
    assert_eq!(key, "ftl.placement_scheme.gc_age_base");
    let (key, msg) = refused("[ftl]\nstreams = 2\n[ftl.placement_scheme]\ntype = \"sepbit\"\n");
    assert_eq!(key, "ftl.streams");
    assert!(msg.contains("sepbit"), "{msg}");
    let (key, _) = refused("[ftl]\ndedup = true\n[ftl.placement_scheme]\ntype = \"sepgc\"\n");
    assert_eq!(key, "ftl.dedup");
    // Each new scheme's keys: a wrong type is refused by serde (the CLI
    // names the table, `ftl.placement_scheme`, and the value: serde's
    // internally tagged enums do not tell which field), a value out of
    // range by the key's path.
    for (scheme, key, bad_type, out_of_range) in [
        ("sfs", "classes", "\"6\"", "0"),
        ("sfs", "quantization_iterations", "1.5", "0"),
        ("multilog", "classes", "true", "65"),
        ("eti", "max_extents", "\"many\"", "2"),
        ("eti", "decay_period_requests", "-1", "0"),
        ("eti", "hot_count", "4.0", "16"),
        ("eti", "max_count", "[15]", "256"),
        ("mq", "classes", "\"x\"", "1"),
        ("mq", "chunk_pages", "1.0", "0"),
        ("sfr", "classes", "2.5", "1"),
        ("sfr", "chunk_pages", "\"512\"", "0"),
        ("sfr", "decay_period_pages", "false", "0"),
        ("fadac", "classes", "\"six\"", "0"),
        ("warcip", "classes", "{}", "1"),
        ("warcip", "split_merge_period_segments", "\"256\"", "0"),
        ("midas", "max_groups", "\"9\"", "1"),
        ("midas", "initial_groups", "true", "0"),
        ("midas", "sampling_ratio", "1.5", "0"),
        ("midas", "epoch_capacities", "\"4\"", "0.0"),
        ("tworr", "min_region_garbage_blocks", "[1]", "0"),
    ] {
        let head = format!("[ftl.placement_scheme]\ntype = \"{scheme}\"\n");
        let (where_, msg) = refused(&format!("{head}{key} = {bad_type}\n"));
        assert!(
            where_ == "toml" && (msg.contains("invalid type") || msg.contains("invalid value")),
            "{scheme}.{key} = {bad_type}: {msg}"
        );
        let (path, msg) = refused(&format!("{head}{key} = {out_of_range}\n"));
        let u16_overflow = path == "toml" && msg.contains("expected u16");
        assert!(
            u16_overflow || path == format!("ftl.placement_scheme.{key}"),
            "{scheme}.{key} = {out_of_range}: {path}: {msg}"
        );
        // Another scheme's key is not this one's.
        let (_, msg) = refused(&format!("{head}gc_age_base = 4.0\n"));
        assert!(msg.contains("unknown field"), "{scheme}: {msg}");
    }
    let fk = "[ftl.placement_scheme]\ntype = \"fk\"\n";
    let (where_, msg) = refused(&format!("{fk}lifespan_classes = \"nope\"\n"));
    assert!(where_ == "toml" && msg.contains("unknown variant"), "{msg}");
    for bad in ["0.0", "-1.0", "1025.0", "nan"] {
        let (key, msg) = refused(&format!("{fk}span_capacities = {bad}\n"));
        assert_eq!(key, "ftl.placement_scheme.span_capacities", "{bad}: {msg}");
    }
    let (key, msg) = refused(&format!(
        "{fk}lifespan_classes = \"segments\"\nspan_capacities = 2.0\n"
    ));
    assert_eq!(key, "ftl.placement_scheme.span_capacities", "{msg}");
    let (key, _) = refused(&format!("{fk}classes = 65\n"));
    assert_eq!(key, "ftl.placement_scheme.classes");
    // tworr's victim rule: a name it knows, of the right type.
    let head = "[ftl.placement_scheme]\ntype = \"tworr\"\n";
    for (bad, says) in [("1", "invalid type"), ("\"lifo\"", "unknown variant")] {
        let (where_, msg) = refused(&format!("{head}victim = {bad}\n"));
        assert!(
            where_ == "toml" && msg.contains(says),
            "victim = {bad}: {msg}"
        );
    }
    let layered = "[ftl]\nstreams = 4\n[ftl.placement_scheme]\ntype = \"fk\"\n[[host.layers]]\ntype = \"autostream\"\n";
    let (key, msg) = refused(layered);
    assert!(key.starts_with("host.layers"), "{key}: {msg}");
}

/// The log regime on the small device: half spare, so that the log has
/// room at 15 % garbage beside six open classes (the plan's check).
fn small_log(scheme: PlacementSchemeConfig, cost_benefit: bool) -> Config {
    let mut c = small(scheme);
    c.device.spare_factor = 0.5;
    c.ftl.regime = Regime::Log;
    if cost_benefit {
        c.ftl.gc_policy = GcPolicyName::CostBenefit;
    }
    c
}

const LOG_LOGICAL: u64 = 128; // 32 blocks x 8 pages x (1 - 0.5)

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Every scheme in the log regime, greedy and cost-benefit, reads what
    /// the reference model holds and keeps the invariants.
    #[test]
    fn every_scheme_matches_the_model_in_the_log_regime(s in steps(LOG_LOGICAL, 3000)) {
        for scheme in schemes() {
            for cb in [false, true] {
                drive(&small_log(scheme, cb), &s, 1)?;
            }
        }
    }
}

/// Long log-regime runs: many GCs, SepBIT's ℓ learned.
#[test]
fn long_log_regime_runs_match_the_model() {
    let seq = long_sequence(13, 16, 0.7, LOG_LOGICAL);
    for scheme in schemes() {
        for cb in [false, true] {
            drive(&small_log(scheme, cb), &seq, 101)
                .unwrap_or_else(|e| panic!("{scheme:?} cost-benefit {cb}: {e}"));
        }
    }
}

fn log_zipf(scheme: &str, seed: u64) -> String {
    log_zipf_keys(&format!("type = \"{scheme}\""), seed)
}

/// `log_zipf` with the scheme's table given whole.
fn log_zipf_keys(scheme_keys: &str, seed: u64) -> String {
    let text = format!(
        r#"
        [device]
        blocks = 256
        pages_per_block = 32
        spare_factor = 0.3
        [ftl]
        regime = "log"
        [ftl.placement_scheme]
        {scheme_keys}
        [workload]
        type = "sepbit-synthetic"
        zipf_alpha = 0.9
        hot_shift_bytes = 1048576
        precondition = "none"
        warmup = 0
        writes = "6x"
        seed = {seed}
        "#
    );
    let c: Config = toml::from_str(&text).unwrap();
    let r = run(&c, &RunOptions::default(), &mut |_| {}).unwrap();
    serde_json::to_string(&r.window).unwrap()
}

/// Same config and seed, same bytes; another seed, another run.
#[test]
fn the_log_regime_is_deterministic() {
    for scheme in ["nosep", "sepbit", "fk", "midas", "tworr"] {
        assert_eq!(log_zipf(scheme, 7), log_zipf(scheme, 7), "{scheme}");
        assert_ne!(log_zipf(scheme, 7), log_zipf(scheme, 8), "{scheme}");
    }
}

#[test]
fn bad_regime_keys_are_refused_by_name() {
    let scheme = "[ftl.placement_scheme]\ntype = \"sepbit\"\n";
    let roomy = "[device]\nspare_factor = 0.4\n";
    let (key, msg) = refused(&format!("[ftl]\nregime = \"lsm\"\n{scheme}"));
    assert!(key == "toml" && msg.contains("unknown variant"), "{msg}");
    for bad in ["0.0", "1.0", "1.5", "-0.1", "nan"] {
        let (key, msg) = refused(&format!(
            "{roomy}[ftl]\nregime = \"log\"\nlog_gc_garbage_threshold = {bad}\n{scheme}"
        ));
        assert_eq!(key, "ftl.log_gc_garbage_threshold", "{bad}: {msg}");
        assert!(msg.contains("outside (0, 1)"), "{msg}");
    }
    let (key, _) = refused(&format!(
        "{roomy}[ftl]\nlog_gc_garbage_threshold = 0.2\n{scheme}"
    ));
    assert_eq!(key, "ftl.log_gc_garbage_threshold");
    let (key, _) = refused(&format!("{roomy}[ftl]\nregime = \"log\"\n"));
    assert_eq!(key, "ftl.regime");
    let (key, msg) = refused(&format!(
        "{roomy}[ftl]\nregime = \"log\"\ngc_policy = \"fifo\"\n{scheme}"
    ));
    assert_eq!(key, "ftl.gc_policy");
    assert!(msg.contains("fifo"), "{msg}");
    let (key, _) = refused(&format!(
        "{roomy}[ftl]\nregime = \"log\"\ngc_low_watermark = 2\ngc_high_watermark = 2\n{scheme}"
    ));
    assert_eq!(key, "ftl.gc_low_watermark");
    // The default 7 % spare cannot hold a log at 15 % garbage.
    let (key, _) = refused(&format!("[ftl]\nregime = \"log\"\n{scheme}"));
    assert_eq!(key, "device.spare_factor");
    let (key, _) = refused(&format!(
        "{roomy}[ftl]\nregime = \"log\"\ndedup = true\n{scheme}"
    ));
    assert_eq!(key, "ftl.dedup");
}

#[test]
fn a_foreseen_run_refuses_a_second_measured_window() {
    // fk's pre-pass foresees the config's phases once; a second window
    // would place every write as if it never died.
    let cfg = small(toml::from_str("type = \"fk\"\nclasses = 6").unwrap());
    let mut sim = ftlsim::Simulation::new(&cfg, &RunOptions::default()).expect("builds");
    sim.precondition(&mut |_| {}).expect("fills");
    sim.warm_up(&mut |_| {}).expect("warms up");
    sim.measure(&mut |_| {}).expect("the foreseen window runs");
    let e = sim
        .measure(&mut |_| {})
        .expect_err("a second window is refused");
    assert!(
        e.to_string().contains("foreseen for one measured window"),
        "{e}"
    );
    // Without foresight, windows repeat freely.
    let cfg = small(PlacementSchemeConfig::Nosep {});
    let mut sim = ftlsim::Simulation::new(&cfg, &RunOptions::default()).expect("builds");
    sim.precondition(&mut |_| {}).expect("fills");
    sim.measure(&mut |_| {}).expect("first window");
    sim.measure(&mut |_| {}).expect("second window");
}
