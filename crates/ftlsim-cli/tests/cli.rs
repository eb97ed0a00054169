//! The `ftlsim` binary end to end: outputs, determinism, and bad input.

use crate::common;
use common::{ftlsim, temp_dir};

const SMALL: &[&str] = &[
    "--set",
    "device.blocks=128",
    "--set",
    "device.pages_per_block=32",
    "--set",
    "workload.writes=1x",
    "--set",
    "workload.warmup=1x",
];

fn run_json(extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec!["run", "--json"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(extra);
    let out = ftlsim(&args);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    (serde_json::from_str(&text).unwrap(), text)
}

#[test]
fn json_has_the_contract_keys_and_is_deterministic() {
    let (v, text) = run_json(&[]);
    for key in [
        "host_write_pages",
        "host_read_pages",
        "host_trim_pages",
        "nand_write_pages",
        "gc_copy_pages",
        "waf",
        "gc_count",
        "erase_count",
        "erase_max",
        "erase_mean",
        "seed",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(v["seed"], 42);
    let (_, again) = run_json(&[]);
    assert_eq!(text, again, "same seed, same bytes");
    let (other, _) = run_json(&["--set", "workload.seed=7"]);
    assert_eq!(other["seed"], 7);
}

#[test]
fn example_config_runs_and_out_writes_every_file() {
    let dir = temp_dir("cli", "out");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/basic.toml");
    let mut args = vec!["run", example, "--check", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(SMALL);
    let out = ftlsim(&args);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("WAF"), "{table}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("seed"),
        "the seed is printed"
    );
    for f in ["summary.json", "summary.csv", "timeseries.csv", "waf.svg"] {
        let len = std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 100, "{f} missing or empty");
    }
    let svg = std::fs::read_to_string(dir.join("waf.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("WAF"));
    // One labelled line where each phase begins.
    for phase in ["precondition", "warm-up", "measure"] {
        assert_eq!(
            svg.matches(&format!(">\n{phase}\n</text>")).count(),
            1,
            "waf.svg labels {phase} once:\n{svg}"
        );
    }
}

/// Each bad input: exit status 2, a one-line message naming the problem, no panic.
fn assert_rejected(args: &[&str], needle: &str) {
    let out = ftlsim(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: stderr {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    let msg: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(
        msg.len(),
        1,
        "{args:?}: expected one error line, got {stderr}"
    );
    assert!(
        msg[0].contains(needle),
        "{args:?}: `{}` does not name `{needle}`",
        msg[0]
    );
}

#[test]
fn bad_config_values_are_named() {
    assert_rejected(&["run", "--set", "device.blockz=3"], "blockz");
    assert_rejected(&["run", "--set", "device.blocks=many"], "device.blocks");
    assert_rejected(
        &["run", "--set", "device.spare_factor=1.2"],
        "device.spare_factor",
    );
    assert_rejected(
        &["run", "--set", "device.spare_factor=0"],
        "device.spare_factor",
    );
    assert_rejected(&["run", "--set", "device.blocks=0"], "device.blocks");
    assert_rejected(
        &["run", "--set", "device.page_bytes=3"],
        "device.page_bytes",
    );
    // Planes that cannot stripe a block are an error untimed too.
    assert_rejected(
        &["run", "--set", "device.planes_per_lun=3"],
        "device.planes_per_lun",
    );
    assert_rejected(
        &["run", "--set", "device.pages_per_block=0"],
        "device.pages_per_block",
    );
    assert_rejected(&["run", "--set", "workload.span=2x"], "workload.span");
    assert_rejected(&["run", "--set", "ftl.gc_policy=lru"], "ftl.gc_policy");
    assert_rejected(&["run", "--set", "workload.type=bursty"], "workload.type");
    assert_rejected(&["run", "--set", "workload.writes=-5"], "workload.writes");
    assert_rejected(
        &[
            "run",
            "--set",
            "workload.hot_write_fraction=2",
            "--set",
            "workload.type=hot-cold",
        ],
        "hot_write_fraction",
    );
    // A device whose state would not fit in memory (about 300 GiB with dedup):
    // refused up front instead of aborting in an allocation.
    assert_rejected(
        &[
            "run",
            "--set",
            "device.blocks=16700000",
            "--set",
            "ftl.dedup=true",
        ],
        "memory available",
    );
    // A device whose spare space cannot hold one reclaimable block.
    assert_rejected(
        &[
            "run",
            "--set",
            "device.blocks=64",
            "--set",
            "device.spare_factor=0.01",
        ],
        "no reclaimable block",
    );
}

/// The DFTL mapping cache (docs/dftl.md): more entries than logical pages,
/// or a combination it does not model, is refused naming its key.
#[test]
fn bad_mapping_cache_configs_are_named() {
    assert_rejected(
        &["run", "--set", "ftl.mapping_cache_entries=100000000"],
        "ftl.mapping_cache_entries",
    );
    assert_rejected(
        &[
            "run",
            "--set",
            "ftl.mapping_cache_entries=1000",
            "--set",
            "ftl.checkpoint_interval_pages=1000",
        ],
        "ftl.mapping_cache_entries",
    );
    assert_rejected(
        &["run", "--set", "ftl.mapping_cache_entries=-1"],
        "ftl.mapping_cache_entries",
    );
}

/// FDP (docs/fdp.md): reclaim units that do not divide the device, modes
/// that place data their own way, unknown isolation types.
#[test]
fn bad_fdp_configs_are_named() {
    let fdp = |extra: &[&'static str]| {
        let mut args = vec![
            "run",
            "--set",
            "ftl.fdp=true",
            "--set",
            "device.blocks=1024",
        ];
        for e in extra {
            args.extend(["--set", e]);
        }
        args
    };
    assert_rejected(
        &fdp(&["ftl.fdp_handles=2", "ftl.fdp_ru_blocks=3"]),
        "ftl.fdp_ru_blocks",
    );
    assert_rejected(&fdp(&["ftl.fdp_isolation=sometimes"]), "ftl.fdp_isolation");
    assert_rejected(
        &fdp(&["device.zoned=true", "device.zone_blocks=4"]),
        "ftl.fdp",
    );
    assert_rejected(
        &fdp(&["ftl.placement=coldmap", "ftl.dedup=true"]),
        "ftl.fdp",
    );
    assert_rejected(&fdp(&["ftl.fdp_handles=0"]), "ftl.fdp_handles");
    assert_rejected(&fdp(&["ftl.streams=2"]), "ftl.streams");
    // 1024 one-block units do not split into 3 equal reclaim groups.
    assert_rejected(
        &fdp(&["ftl.fdp_reclaim_groups=3"]),
        "ftl.fdp_reclaim_groups",
    );
}

#[test]
fn bench_refuses_zero_segments() {
    assert_rejected(&["bench", "--quick", "--segments", "0"], "--segments");
}

#[test]
fn bench_only_placement_times_every_scheme() {
    let out = ftlsim(&[
        "bench",
        "--quick",
        "--only",
        "placement",
        "--segments",
        "1",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let runs = v["runs"].as_array().expect("runs");
    let names: Vec<&str> = runs.iter().map(|r| r["scheme"].as_str().unwrap()).collect();
    let mut expected = vec!["none".to_string()];
    expected.extend(ftlsim::ftl::scheme_names());
    assert_eq!(names, expected);
    for r in runs {
        assert!(r["host_writes_per_sec"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["waf"].as_f64().unwrap() >= 1.0, "{r}");
    }
    // nosep is the FTL's shared frontier with one stream: the same device.
    assert_eq!(runs[0]["waf"], runs[1]["waf"]);
}

#[test]
fn bad_files_are_named() {
    let dir = temp_dir("cli", "bad");
    let path = dir.join("broken.toml");
    std::fs::write(&path, "[device]\nblocks = 16\npages_per_block = [\n").unwrap();
    assert_rejected(&["run", path.to_str().unwrap()], "broken.toml:");
    let path = dir.join("typo.toml");
    std::fs::write(&path, "[devcie]\nblocks = 16\n").unwrap();
    assert_rejected(&["run", path.to_str().unwrap()], "devcie");
    assert_rejected(
        &["run", dir.join("missing.toml").to_str().unwrap()],
        "missing.toml",
    );
    assert_rejected(&["run", "--set", "noequals"], "KEY=VALUE");
}

#[test]
fn validate_quick_passes_and_reports_json() {
    let out = ftlsim(&["validate", "--quick", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 6);
    assert!(cases.iter().all(|c| c["pass"] == true));
}

#[test]
fn bad_stack_input_is_named() {
    let dir = temp_dir("cli", "stack");
    let write = |name: &str, layers: &str| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                "[device]\nblocks = 128\npages_per_block = 32\n[ftl]\nstreams = 2\n[workload]\nwrites = \"1x\"\nwarmup = \"1x\"\n{layers}"
            ),
        )
        .unwrap();
        path.to_str().unwrap().to_string()
    };
    let unknown = write("unknown.toml", "[[host.layers]]\ntype = \"zfs\"\n");
    assert_rejected(&["run", &unknown], "host.layers");
    let wrong_type = write(
        "wrong.toml",
        "[[host.layers]]\ntype = \"lba-streams\"\nranges = \"all\"\n",
    );
    assert_rejected(&["run", &wrong_type], "host.layers[0]");
    let stream = write(
        "stream.toml",
        "[[host.layers]]\ntype = \"lba-streams\"\nranges = [[0, 10, 5]]\n",
    );
    assert_rejected(&["run", &stream], "ftl.streams = 2");
    let outside = write(
        "outside.toml",
        "[[host.layers]]\ntype = \"lba-streams\"\nranges = [[0, 1000000, 1]]\n",
    );
    assert_rejected(&["run", &outside], "host.layers[0].ranges[0]");
    let manual = write(
        "manual.toml",
        "[[host.layers]]\ntype = \"manual\"\nmap = [[7, 1], [8, 3]]\n",
    );
    assert_rejected(&["run", &manual], "host.layers[0].map[1]");
    // A context may be a hex string (captured PCs exceed TOML's i64), but
    // only a hex number.
    let hex = write(
        "hex.toml",
        "[[host.layers]]\ntype = \"manual\"\nmap = [[1, 1], [\"0x12g\", 1]]\n",
    );
    assert_rejected(&["run", &hex], "host.layers[0]`: map[1]");
    assert_rejected(&["run", &hex], "\"0x12g\"");
    assert_rejected(
        &[
            "run",
            "--set",
            "ftl.internal_streams=true",
            "--set",
            "ftl.dedup=true",
            "--set",
            "ftl.placement=coldmap",
        ],
        "ftl.internal_streams",
    );
    assert_rejected(&["run", "--set", "ftl.streams=0"], "ftl.streams");
    assert_rejected(&["run", "--set", "metrics.window=0x"], "metrics.window");
}

#[test]
fn stack_runs_and_reports_layers_and_streams() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/streams.toml");
    let out = ftlsim(&[
        "run",
        example,
        "--json",
        "--set",
        "device.blocks=256",
        "--set",
        "host.layers=[{type=\"lba-streams\", ranges=[[0, 1474, 1]]}]",
    ]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let layers = v["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 2);
    assert_eq!(layers[0]["name"], "lba-streams");
    assert_eq!(layers[1]["name"], "ssd");
    assert_eq!(v["tcwa"], v["waf"]);
    let streams = v["streams"].as_array().unwrap();
    assert_eq!(streams.len(), 2);
    assert!(streams[1]["host_write_pages"].as_u64().unwrap() > 0);
}

#[test]
fn set_requests_replaces_writes_and_empty_windows_say_why() {
    let (v, _) = run_json(&["--set", "workload.requests=1000"]);
    assert!(v["waf"].as_f64().is_some());
    let (v, _) = run_json(&["--set", "workload.writes=0"]);
    assert!(v["waf"].is_null(), "an empty window has no WAF: {v}");
    assert!(
        v["waf_null_reason"].as_str().unwrap().contains("empty"),
        "{v}"
    );
}

#[test]
fn bad_log_layer_input_is_named() {
    let log = "examples/log.toml";
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let path = format!("{root}{log}");
    let run = |sets: &[&str], needle: &str| {
        let mut args = vec!["run", path.as_str()];
        for s in sets {
            args.extend(["--set", s]);
        }
        assert_rejected(&args, needle);
    };
    run(
        &["host.layers[0].segment_bytes=1000"],
        "host.layers[0].segment_bytes",
    );
    run(
        &["host.layers[0].capacity_ratio=1.0"],
        "host.layers[0].capacity_ratio",
    );
    run(
        &["host.layers[0].capacity_ratio=0"],
        "host.layers[0].capacity_ratio",
    );
    run(
        &["host.layers[0].capacity_ratio=-0.5"],
        "host.layers[0].capacity_ratio",
    );
    run(
        &["host.layers[0].append_streams=7"],
        "host.layers[0].append_streams",
    );
    run(
        &["device.zoned=true", "device.max_open_zones=0"],
        "device.max_open_zones",
    );
    run(&["host.layers[0].separation=\"lfs\""], "host.layers");
    run(&["host.layers[5].type=\"log\""], "host.layers");
    // A zoned device under a run with no log layer on top of it.
    assert_rejected(&["run", "--set", "device.zoned=true"], "device.zoned");
}

#[test]
fn a_log_over_the_ftl_reports_each_layer() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/log.toml");
    let (json, _) = run_json(&[
        path,
        "--set",
        "device.blocks=512",
        "--set",
        "workload.warmup=\"1x\"",
        "--set",
        "workload.writes=\"1x\"",
    ]);
    let layers = json["layers"].as_array().expect("layers");
    assert_eq!(layers.len(), 2);
    assert_eq!(layers[0]["name"], "log");
    for key in [
        "wa",
        "gc_count",
        "gc_copy_pages",
        "metadata_pages",
        "trim_pages_out",
    ] {
        assert!(layers[0].get(key).is_some(), "layers[0] lacks `{key}`");
    }
    let tcwa = json["tcwa"].as_f64().expect("tcwa");
    let product = layers[0]["wa"].as_f64().unwrap() * layers[1]["wa"].as_f64().unwrap();
    assert!((tcwa - product).abs() < 1e-9, "{tcwa} vs {product}");
    assert!(layers[0]["gc_count"].as_u64().unwrap() > 0);
}

#[test]
fn a_stack_writes_each_layers_wa_over_time() {
    let dir = temp_dir("cli", "log-series");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/log.toml");
    let out_dir = dir.join("out");
    let mut args = vec!["run", path];
    args.extend_from_slice(SMALL);
    args.extend(["--out", out_dir.to_str().unwrap()]);
    let out = ftlsim(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(out_dir.join("layers_timeseries.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("phase,host_write_pages,layer,name,window_write_pages_in,window_write_pages_out,window_wa")
    );
    let rows: Vec<&str> = lines.collect();
    assert!(rows
        .iter()
        .any(|r| r.starts_with("measure,") && r.contains(",0,log,")));
    assert!(rows.iter().any(|r| r.contains(",1,ssd,")));
    let svg = std::fs::read_to_string(out_dir.join("waf.svg")).unwrap();
    assert!(
        svg.contains("layer 0 (log) window WA"),
        "the WAF plot shows the log's WA"
    );
}

/// Issue 15: the timing half of `validate --quick` runs in CI: the M/D/1
/// cases within 5 %, channel waits within the derived bound, no backlog
/// growth, saturation at the busier resource's bound.
#[test]
fn validate_quick_checks_timing_against_queueing_theory() {
    let out = ftlsim(&["validate", "--quick", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = v["timing_cases"].as_array().unwrap();
    let md1: Vec<&serde_json::Value> = cases
        .iter()
        .filter(|c| c["model"] == "M/D/1 + transfer")
        .collect();
    assert_eq!(md1.len(), 6, "3 utilisations x (1 and 4 LUNs per channel)");
    for c in cases {
        assert!(c["pass"] == true, "{c}");
    }
    for c in md1 {
        assert!(c["relative_error"].as_f64().unwrap().abs() <= 0.05, "{c}");
    }
    assert!(out.status.success());
}

#[test]
fn bad_ycsb_input_is_named() {
    let ex = "examples/remapcom.toml";
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/remapcom.toml");
    let cfg = if std::path::Path::new(ex).is_file() {
        ex
    } else {
        root
    };
    let bad = [
        ("workload.value_bytes=0", "workload.value_bytes"),
        ("workload.value_bytes=8000", "workload.value_bytes"),
        ("workload.records=0", "workload.records"),
        ("workload.ycsb=\"g\"", "workload.ycsb"),
        ("lsm.level_ratio=1", "lsm.level_ratio"),
        ("ftl.remap=false", "lsm.remap"),
        ("lsm.remap=\"partial\"", "lsm.remap"),
        ("lsm.seek_compaction=3", "lsm.seek_compaction"),
        (
            "lsm.aligned_block_max_pages=0",
            "lsm.aligned_block_max_pages",
        ),
        ("lsm.l0_stop=8", "lsm.l0_stop"),
        ("lsm.background_threads=17", "lsm.background_threads"),
    ];
    for (set, key) in bad {
        assert_rejected(&["run", cfg, "--set", set], key);
    }
}

/// `device run --discard` takes on or off only, checked before anything is
/// mounted (so this needs no root).
#[test]
fn device_run_rejects_an_unknown_discard_mode() {
    assert_rejected(
        &[
            "device",
            "run",
            "--size",
            "64MiB",
            "--fs",
            "ext4",
            "--discard",
            "maybe",
            "--",
            "true",
        ],
        "--discard",
    );
}

/// `device serve [CONFIG] DIR`: one path is the directory (the built-in
/// config), so a bad size is what gets named, checked before anything is
/// mounted (no root needed); three paths are one too many.
#[test]
fn device_serve_takes_an_optional_config_before_its_directory() {
    let dir = temp_dir("cli", "serve-args");
    let dir = dir.to_str().unwrap();
    assert_rejected(&["device", "serve", "--size", "64XB", dir], "--size");
    assert_rejected(
        &["device", "serve", "--size", "64MiB", "a.toml", dir, "extra"],
        "extra",
    );
}
