//! Placement schemes (`[ftl.placement_scheme]`): each through the device
//! against the reference model, the baselines equal to the frontier modes
//! they stand for, SepBIT's direction on a skewed workload, and bad keys.

use ftlsim::config::{Config, FrontierMode, GcPolicyName, PlacementSchemeConfig, Regime};
use ftlsim::{run, RunOptions};
use proptest::prelude::*;

use crate::reference_model::{drive, long_sequence, steps};

fn schemes() -> [PlacementSchemeConfig; 5] {
    [
        PlacementSchemeConfig::Nosep {},
        PlacementSchemeConfig::Sepgc {},
        PlacementSchemeConfig::Dac { classes: 6 },
        PlacementSchemeConfig::Sepbit {
            lifespan_window_segments: 2,
            gc_age_base: 4.0,
        },
        // Driven page by page there is no pre-pass: every write is class 0.
        PlacementSchemeConfig::Fk { classes: 6 },
    ]
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

/// Future knowledge as SepBIT defines it (a class per block's worth of
/// remaining lifespan, six classes) separates only data that dies within
/// six blocks of host writes: below the schemes that do not separate user
/// writes on a skewed workload, but not a lower bound on a device whose
/// blocks are small against its space (docs/placement.md).
#[test]
fn fk_writes_less_than_the_baselines_on_skew() {
    let fk = zipf(
        Some(PlacementSchemeConfig::Fk { classes: 6 }),
        FrontierMode::Shared,
    );
    let nosep = zipf(Some(PlacementSchemeConfig::Nosep {}), FrontierMode::Shared);
    let sepgc = zipf(Some(PlacementSchemeConfig::Sepgc {}), FrontierMode::Shared);
    assert!(
        fk < sepgc && sepgc < nosep,
        "fk {fk}, sepgc {sepgc}, nosep {nosep}"
    );
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
    let text = format!(
        r#"
        [device]
        blocks = 256
        pages_per_block = 32
        spare_factor = 0.3
        [ftl]
        regime = "log"
        [ftl.placement_scheme]
        type = "{scheme}"
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
    for scheme in ["nosep", "sepbit", "fk"] {
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
