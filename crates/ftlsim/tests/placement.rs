//! Placement schemes (`[ftl.placement_scheme]`): each through the device
//! against the reference model, the baselines equal to the frontier modes
//! they stand for, SepBIT's direction on a skewed workload, and bad keys.

use ftlsim::config::{Config, FrontierMode, PlacementSchemeConfig};
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
