//! `ftlsim reproduce`: the coldmap experiment's JSON structure, its numbers
//! against a stored run, the paper's direction on the fio-like workload
//! (docs/coldmap.md), and experiments given by path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

const VARIANTS: [&str; 5] = [
    "baseline",
    "remap",
    "coldmap",
    "coldmap-age",
    "remap-separate",
];

fn ftlsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .args(args)
        .output()
        .expect("run ftlsim")
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("`{key}` is not a number: {}", v[key]))
}

/// The shared traces folder, when this checkout has it: the real trace is
/// third-party data outside the repository, absent on a fresh clone.
fn traces_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    if dir.join("homes.replay.0").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "skipping the homes workload: {} not found",
            dir.join("homes.replay.0").display()
        );
        None
    }
}

/// `reproduce coldmap --quick --json`, run once for all the tests that read it.
/// No `--traces`: the experiment finds `homes` in ../shared/traces and its
/// real-content workloads in the committed corpus by itself (`--traces`
/// would replace both folders).
fn coldmap_quick() -> &'static Value {
    static RUN: OnceLock<Value> = OnceLock::new();
    RUN.get_or_init(|| {
        let out = ftlsim(&["reproduce", "coldmap", "--quick", "--json"]);
        assert!(
            out.status.success(),
            "stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
    })
}

/// Every key of `stored` is in `new` with exactly the same value; `new`
/// may have more keys. Returns the paths that differ.
fn differences(stored: &Value, new: &Value, path: &str, out: &mut Vec<String>) {
    match (stored, new) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    Some(w) => differences(v, w, &format!("{path}/{k}"), out),
                    None => out.push(format!("{path}/{k}: missing")),
                }
            }
        }
        (a, b) if a != b => out.push(format!("{path}: stored {a}, now {b}")),
        _ => {}
    }
}

#[test]
fn coldmap_quick_numbers_match_the_stored_run() {
    let stored: Value =
        serde_json::from_str(include_str!("data/coldmap_quick.json")).expect("stored JSON");
    let mut stored = stored;
    if traces_dir().is_none() {
        stored["workloads"]
            .as_object_mut()
            .expect("workloads")
            .remove("homes");
    }
    let mut diffs = Vec::new();
    differences(&stored, coldmap_quick(), "", &mut diffs);
    assert!(
        diffs.is_empty(),
        "{} values differ from tests/data/coldmap_quick.json:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

#[test]
fn coldmap_quick_has_the_structure_and_the_papers_direction() {
    let v = coldmap_quick();
    let top: Vec<&String> = v.as_object().expect("an object").keys().collect();
    assert_eq!(top, ["experiment", "workloads"]);
    assert_eq!(v["experiment"], "coldmap");
    let workloads = v["workloads"].as_object().expect("workloads is an object");
    let mut expected = vec!["fio", "sysbench", "tpcc", "ycsb"];
    if traces_dir().is_some() {
        expected.push("homes");
    }
    // The captures of real content, shipped in traces/real.
    let spec = ftlsim_run::reproduce::load("coldmap").unwrap().spec;
    expected.extend(
        spec.workloads
            .iter()
            .filter(|w| w.traces.is_some())
            .map(|w| w.name.as_str()),
    );
    expected.sort_unstable();
    let mut names: Vec<&str> = workloads.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, expected);

    for (name, w) in workloads {
        for variant in VARIANTS {
            let r = &w[variant];
            assert!(r.is_object(), "{name}: no variant {variant}");
            for key in ["gc_count", "waf", "erase_count", "host_write_pages", "iops"] {
                num(r, key);
            }
            let dedup = variant != "baseline";
            for key in ["survival_single_mean", "survival_multi_mean", "dedup_ratio"] {
                assert_eq!(
                    r[key].is_number(),
                    dedup,
                    "{name}/{variant}: `{key}` = {}",
                    r[key]
                );
            }
        }
        // Every variant sees the same workload.
        let host = num(&w["baseline"], "host_write_pages");
        for variant in VARIANTS {
            assert_eq!(
                num(&w[variant], "host_write_pages"),
                host,
                "{name}/{variant}"
            );
        }
    }

    let fio = &workloads["fio"];
    let (b, r, c) = (&fio["baseline"], &fio["remap"], &fio["coldmap"]);
    let dedup = num(r, "dedup_ratio");
    assert!((dedup - 0.3).abs() < 0.01, "fio duplicates {dedup}");
    // The paper's direction. Coldmap's margin over remap is thin here (about
    // 0.4 % of GC count and WAF, consistent over seeds): under uniform random
    // overwrites a multi-mapped page outlives a single-mapped one by only
    // ~1.3x, so the cold zone separates little (docs/coldmap.md).
    for key in ["gc_count", "waf", "erase_count"] {
        assert!(
            num(c, key) < num(r, key) && num(r, key) < num(b, key),
            "{key}: coldmap {} remap {} baseline {}",
            c[key],
            r[key],
            b[key]
        );
    }
    let life = |x: &Value| num(x, "lifetime_host_write_bytes");
    assert!(
        life(c) > life(r) && life(r) > life(b),
        "lifetime: coldmap {} remap {} baseline {}",
        life(c),
        life(r),
        life(b)
    );
    for variant in ["remap", "coldmap"] {
        let x = &fio[variant];
        assert!(
            num(x, "survival_multi_mean") > num(x, "survival_single_mean"),
            "{variant}: multi-mapped pages should outlive single-mapped ones: {} vs {}",
            x["survival_multi_mean"],
            x["survival_single_mean"]
        );
    }
}

#[test]
fn coldmap_rejects_an_unknown_workload() {
    let out = ftlsim(&["reproduce", "coldmap", "--quick", "--only", "tpc-d"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tpc-d") && err.contains("sysbench"), "{err}");
}

#[test]
fn help_lists_every_built_in_experiment_with_its_title() {
    let long = ftlsim(&["reproduce", "--help"]);
    let short = ftlsim(&["reproduce", "-h"]);
    let (long, short) = (
        String::from_utf8_lossy(&long.stdout),
        String::from_utf8_lossy(&short.stdout),
    );
    for b in ftlsim_run::reproduce::BUILT_IN {
        let title = ftlsim_run::reproduce::load(b.name).unwrap().spec.title;
        assert!(
            long.lines()
                .any(|l| l.split_whitespace().next() == Some(b.name) && l.contains(&title)),
            "`{}` and its title missing from reproduce --help:\n{long}",
            b.name
        );
        assert!(short.contains(b.name), "{short}");
    }
}

#[test]
fn an_unknown_experiment_lists_the_built_in_ones() {
    let out = ftlsim(&["reproduce", "coldmapp", "--quick"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("coldmapp") && err.contains("coldmap"), "{err}");
}

#[test]
fn a_missing_traces_folder_is_one_line_and_exit_2() {
    let out = ftlsim(&[
        "reproduce",
        "coldmap",
        "--quick",
        "--traces",
        "/nonexistent/traces",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--traces") && err.contains("/nonexistent/traces"),
        "{err}"
    );
}

const TINY: &str = r#"
name = "tiny"
title = "a tiny experiment"
baseline = "greedy"
csv_config_keys = ["ftl.gc_policy"]
[sizes.full]
[sizes.quick]
sets = ["device.blocks=64"]
window_logical_capacities = 0.5
[[workloads]]
name = "uniform"
title = "uniform random writes"
config = "configs/small.toml"
[[variants]]
name = "greedy"
sets = ["ftl.gc_policy=greedy"]
[[variants]]
name = "fifo"
sets = ["ftl.gc_policy=fifo"]
[[metrics]]
name = "waf"
label = "WAF"
field = "waf"
column = "WAF"
decimals = 3
normalized = "WAF/g"
chart = true
[[claims]]
workload = "uniform"
label = "greedy collects less than fifo"
metric = "waf"
increasing = ["greedy", "fifo"]
"#;

const SMALL_CONFIG: &str =
    "[device]\nblocks = 128\npages_per_block = 32\n[workload]\ntype = \"uniform\"\n";

/// An experiment file in a fresh folder, its config in a subfolder.
fn tiny_experiment(dir_name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir_name);
    std::fs::create_dir_all(dir.join("configs")).unwrap();
    std::fs::write(dir.join("configs/small.toml"), SMALL_CONFIG).unwrap();
    let path = dir.join("tiny.toml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_experiment_file_runs_with_configs_relative_to_it() {
    let path = tiny_experiment("reproduce-tiny", TINY);
    let out_dir = path.parent().unwrap().join("out");
    // From another working directory: config paths follow the file.
    let out = Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .current_dir("/")
        .args(["reproduce", path.to_str().unwrap(), "--quick", "--json"])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .expect("run ftlsim");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["experiment"], "tiny");
    let w = &v["workloads"]["uniform"];
    let logical = num(&w["greedy"], "logical_pages");
    for variant in ["greedy", "fifo"] {
        assert_eq!(device_blocks(&w[variant]), 64.0, "quick size applied");
        assert_eq!(
            num(&w[variant], "host_write_pages"),
            (logical * 0.5).round()
        );
    }
    let csv = std::fs::read_to_string(out_dir.join("results.csv")).unwrap();
    assert!(
        csv.starts_with("workload,variant,gc_policy,waf_vs_greedy,"),
        "{csv}"
    );
    assert!(out_dir.join("waf.svg").is_file());
    let summary = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
    assert!(
        summary.contains("WAF/g") && summary.contains("greedy collects less"),
        "{summary}"
    );
}

/// Blocks of the run's device, from its physical pages (32 per block here).
fn device_blocks(report: &Value) -> f64 {
    num(report, "physical_pages") / 32.0
}

#[test]
fn a_bad_experiment_file_names_the_key() {
    let cases = [
        (TINY.replace("config = ", "confg = "), "confg"),
        (
            TINY.replace(
                "increasing = [\"greedy\", \"fifo\"]",
                "increasing = [\"greedy\", \"lru\"]",
            ),
            "claims[0].increasing",
        ),
        (
            TINY.replace("field = \"waf\"", "field = \"wa\""),
            "metrics[0].field",
        ),
        (
            TINY.replace("\"device.blocks=64\"", "\"device.blocks=many\""),
            "device.blocks",
        ),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        let path = tiny_experiment(&format!("reproduce-bad-{i}"), text);
        let out = ftlsim(&["reproduce", path.to_str().unwrap(), "--quick"]);
        assert_eq!(out.status.code(), Some(2), "{key}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(key), "{key}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        if i < 3 {
            // Errors in the experiment file itself are one line.
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        }
    }
}

/// `[workloads.sizes]`: a workload's own overrides apply at their size,
/// after the experiment's, and a bad one names its key.
#[test]
fn a_workloads_own_sizes_apply_at_their_size() {
    let own = TINY.replace(
        "config = \"configs/small.toml\"\n",
        "config = \"configs/small.toml\"\n[workloads.sizes]\nquick = [\"device.blocks=96\"]\n",
    );
    let path = tiny_experiment("reproduce-workload-sizes", &own);
    let out = ftlsim(&["reproduce", path.to_str().unwrap(), "--quick", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // The experiment's quick size says 64 blocks; the workload's own wins.
    assert_eq!(device_blocks(&v["workloads"]["uniform"]["greedy"]), 96.0);

    // Not KEY=VALUE: refused where the file says it.
    let bad = own.replace("device.blocks=96", "device.blocks");
    let path = tiny_experiment("reproduce-workload-sizes-bad", &bad);
    let p = path.to_str().unwrap();
    let out = ftlsim(&["reproduce", p, "--quick"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("workloads[0].sizes.quick"), "{err}");
    let unknown = own.replace("quick = [", "fast = [");
    let path = tiny_experiment("reproduce-workload-sizes-unknown", &unknown);
    refused_in_one_line(&["reproduce", path.to_str().unwrap(), "--quick"], &["fast"]);
}

/// Runs `args`: exit 2 and one line holding every one of `needles`.
fn refused_in_one_line(args: &[&str], needles: &[&str]) {
    let out = ftlsim(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // `error:`, not `error`: a path may hold the word (a checkout in `wt-errors/`).
    let errors: Vec<&str> = err.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    for needle in needles {
        assert!(errors[0].contains(needle), "`{needle}` not in {err}");
    }
}

#[test]
fn decimals_are_bounded() {
    let path = tiny_experiment(
        "reproduce-decimals",
        &TINY.replace("decimals = 3", "decimals = 100000"),
    );
    let p = path.to_str().unwrap();
    refused_in_one_line(
        &["reproduce", p, "--quick"],
        &["metrics[0].decimals", "17", "tiny.toml"],
    );
}

#[test]
fn an_experiment_whose_traces_are_all_missing_is_an_error() {
    let text = TINY.replace(
        "config = \"configs/small.toml\"",
        "config = \"configs/small.toml\"\ntrace = \"absent.trace\"",
    );
    let path = tiny_experiment("reproduce-no-traces", &text);
    let traces = path.parent().unwrap().join("configs");
    let (p, t) = (path.to_str().unwrap(), traces.to_str().unwrap());
    refused_in_one_line(
        &["reproduce", p, "--quick", "--traces", t],
        &["absent.trace", "tiny.toml"],
    );
}

#[test]
fn reproduce_out_never_writes_over_the_experiment_file() {
    let dir = tiny_experiment("reproduce-out-input", TINY)
        .parent()
        .unwrap()
        .to_path_buf();
    // An experiment file named like one of the outputs, in the output folder.
    let path = dir.join("summary.txt");
    std::fs::write(&path, TINY).unwrap();
    let (p, d) = (path.to_str().unwrap(), dir.to_str().unwrap());
    refused_in_one_line(
        &["reproduce", p, "--quick", "--out", d],
        &["summary.txt", "input"],
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), TINY);
}

#[test]
fn tables_pattern_checks_its_keys() {
    let out = ftlsim(&[
        "run",
        "--set",
        "workload.type=tables",
        "--set",
        "workload.tables=0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("workload.tables"), "{err}");
    let out = ftlsim(&[
        "run",
        "--set",
        "workload.type=tables",
        "--set",
        "workload.pareto_h=1.5",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("workload.pareto_h"), "{err}");
}

/// `reproduce log-on-log --quick`: every part of the experiment shows the
/// direction docs/log-on-log.md reports.
#[test]
fn log_on_log_quick_shows_the_papers_directions() {
    let out = ftlsim(&["reproduce", "log-on-log", "--quick", "--json"]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let w = &json["workloads"];
    let tcwa = |workload: &str, variant: &str| num(&w[workload][variant], "tcwa");
    // (a) flat while the lower segment is at most the upper, rising past it.
    for workload in ["uniform-90", "uniform-70", "skewed-90"] {
        let t = |l: u32| tcwa(workload, &format!("u16-l{l}"));
        assert!(
            (t(8) - t(16)).abs() < 1e-9,
            "{workload}: {} vs {}",
            t(8),
            t(16)
        );
        assert!(
            t(16) < t(32) && t(32) < t(64) && t(64) < t(256),
            "{workload}"
        );
        let u = |l: u32| tcwa(workload, &format!("u64-l{l}"));
        assert!((u(8) - u(64)).abs() < 1e-9 && u(64) < u(128) && u(128) < u(256));
    }
    // (b) six append streams with metadata write more than two.
    assert!(tcwa("streams", "streams-6") > tcwa("streams", "streams-2"));
    let meta = |v: &str| {
        w["streams"][v]["layers"][0]["metadata_pages"]
            .as_u64()
            .unwrap()
    };
    assert!(meta("streams-6") > meta("streams-2"));
    // (c) TRIM off raises TCWA.
    assert!(tcwa("trim", "trim-off") > tcwa("trim", "trim-on"));
    // (d) uncoordinated cleaning costs more device GC.
    let gc = |v: &str| num(&w["coordination"][v], "gc_count");
    assert!(gc("coord-none") > gc("coord-defer"));
    // (e) the zoned stack: device WAF 1 and lower TCWA.
    assert_eq!(num(&w["zoned"]["on-zones"], "waf"), 1.0);
    assert!(tcwa("zoned", "on-zones") < tcwa("zoned", "over-ftl"));
}

/// `reproduce remapcom --quick`: on Load and A at every value size of the
/// grid, full RemapCom's total WA (NAND bytes per user byte) is below
/// LevelDB-like compaction's, RemapCom-Base's and full's are within 1 % of
/// the order full ≤ base ≤ off, and at every level ≥ 2 that carries at
/// least 1 % of the baseline's engine WA each remapping mode writes fewer
/// pages than the baseline; pages are remapped and the UDB ratio reported.
/// (With compaction on the background thread, issue 28 item 3, the load at
/// 1 KiB puts one table, 68 pages, at level 3 in every mode: 0.2 % of its
/// writes, the same in all three.) The 1 %: since the engine compacts as LevelDB does
/// (issue 28: grown inputs, LevelDB's memtable accounting), these 20 k-record
/// trees put base 0.5 % above off on A at 256 B and full 0.05 % above base
/// on Load at 100 B (docs/remapcom.md, "Quick grid").
#[test]
fn remapcom_quick_grid_keeps_the_papers_direction() {
    let out = ftlsim(&["reproduce", "remapcom", "--quick", "--json"]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    for w in ["load", "a"] {
        for size in [100, 256, 1024] {
            let lsm = |mode: &str| &v["workloads"][w][format!("{mode}-{size}")]["lsm"];
            let (off, base, full) = (lsm("off"), lsm("base"), lsm("full"));
            for l in [off, base, full] {
                assert!(l["levels"][2]["udb_ratio"].is_number(), "{w} {size}");
            }
            let (wo, wb, wf) = (num(off, "tcwa"), num(base, "tcwa"), num(full, "tcwa"));
            assert!(
                wf < wo && wf <= wb * 1.01 && wb <= wo * 1.01,
                "{w} {size} B: total WA full {wf} base {wb} off {wo}"
            );
            assert!(num(full, "remapped_pages") > 0.0, "{w} {size}");
            let levels = off["levels"].as_array().expect("levels");
            let mut deep_levels = 0;
            for level in 2..levels.len() {
                let pages = |l: &Value| num(&l["levels"][level], "compaction_write_pages");
                if num(&off["levels"][level], "wa") < 0.01 * num(off, "engine_wa") {
                    continue;
                }
                deep_levels += 1;
                for (mode, l) in [("base", base), ("full", full)] {
                    assert!(
                        pages(l) < pages(off),
                        "{w} {size} B level {level}: {mode} writes {} pages, off {}",
                        pages(l),
                        pages(off)
                    );
                }
            }
            assert!(deep_levels > 0, "{w} {size} B: compaction reached level 2");
        }
    }
    // The stressed device (issue 28 item 4): A at 1 KiB on a device the
    // database fills to two thirds, trims on and off. LevelDB's compaction
    // drives the device WAF above 1.3; full RemapCom programs fewer pages
    // (1.631 / 1.536 and 1.930 / 1.703 when this was written).
    for w in ["a-near-full", "a-no-trim"] {
        let waf = |mode: &str| {
            num(
                &v["workloads"][w][format!("{mode}-1024")]["lsm"],
                "device_waf",
            )
        };
        let (off, full) = (waf("off"), waf("full"));
        assert!(off > 1.3, "{w}: device WAF off {off}");
        assert!(full < off, "{w}: device WAF full {full} vs off {off}");
    }
}
