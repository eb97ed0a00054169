//! The timing model through the binary: the config contract (`timing.*` in
//! files and with `--set`), the JSON keys, the table rows, the output files.

use crate::common;
use common::{assert_ok, ftlsim, ok_json, temp_dir};

use std::process::Output;

const SMALL: &[&str] = &[
    "--set",
    "device.blocks=128",
    "--set",
    "device.pages_per_block=256",
    "--set",
    "workload.warmup=1x",
];

fn run(extra: &[&str]) -> Output {
    let mut args = vec!["run"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(extra);
    ftlsim(&args)
}

fn run_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["--json"];
    args.extend_from_slice(extra);
    ok_json(&run(&args))
}

const KEYS: [&str; 5] = [
    "iops",
    "read_latency_us_p99",
    "write_latency_us_p99",
    "write_latency_us_mean",
    "sim_time_ns",
];

#[test]
fn every_contract_key_works_with_set() {
    let v = run_json(&[
        "--set",
        "timing.channels=4",
        "--set",
        "timing.luns_per_channel=2",
        "--set",
        "timing.read_latency_us=50",
        "--set",
        "timing.program_latency_us=300",
        "--set",
        "timing.erase_latency_us=3000",
        "--set",
        "timing.transfer_us_per_page=5",
        "--set",
        "timing.queue_depth=8",
        "--set",
        "timing.mode=closed",
        "--set",
        "workload.read_fraction=0.5",
        "--set",
        "workload.requests=50000",
    ]);
    for key in KEYS {
        assert!(
            v[key].as_f64().is_some_and(|x| x > 0.0),
            "{key} = {}",
            v[key]
        );
    }
    // The slowest write is at least one transfer and one program.
    assert!(v["write_latency_us_max"].as_f64().unwrap() >= 305.0);
}

#[test]
fn timing_keys_are_null_without_a_timing_section() {
    let v = run_json(&[]);
    for key in KEYS {
        assert!(v[key].is_null(), "{key} = {}", v[key]);
    }
}

#[test]
fn open_loop_from_a_file_with_table_and_outputs() {
    let dir = temp_dir("timing", "open");
    let config = dir.join("open.toml");
    std::fs::write(
        &config,
        "[timing]\nmode = \"open\"\narrival_rate_iops = 20000.0\nqueue_depth = 64\nseries_window = 1000\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = run(&[config.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]);
    assert_ok(&out);
    let table = String::from_utf8(out.stdout).unwrap();
    for row in [
        "timing model",
        "open loop",
        "IOPS",
        "write latency (us)",
        "GC share of LUN time",
        "LUN busy",
    ] {
        assert!(table.contains(row), "missing {row}:\n{table}");
    }
    let latency = std::fs::read_to_string(out_dir.join("latency.csv")).unwrap();
    assert!(latency.starts_with("requests,time_ns,iops,"), "{latency}");
    assert!(latency.lines().count() > 10);
    let luns = std::fs::read_to_string(out_dir.join("luns.csv")).unwrap();
    assert_eq!(luns.lines().count(), 1 + 32, "a header and one row per LUN");
    assert!(out_dir.join("latency.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_timing_values_name_the_key() {
    for (set, key) in [
        ("timing.queue_depth=0", "timing.queue_depth"),
        ("timing.read_latency_us=-40", "timing.read_latency_us"),
        ("timing.mode=sideways", "timing.mode"),
        ("timing.channel=4", "channel"),
        ("timing.mode=open", "timing.arrival_rate_iops"),
    ] {
        let out = run(&["--set", set]);
        assert_eq!(out.status.code(), Some(2), "{set}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(key), "{set}: {err}");
    }
}

/// The y-axis tick labels of an SVG chart from plotters: (value, y pixel),
/// the right-aligned numeric texts left of the plot area.
fn y_ticks(svg: &str) -> Vec<(f64, f64)> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        let len = tag[start..].find('"')?;
        Some(tag[start..start + len].to_string())
    };
    let mut ticks: Vec<(f64, f64)> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| {
            let (tag, rest) = t.split_once('>')?;
            let text = rest.split("</text>").next()?.trim();
            if attr(tag, "text-anchor")? != "end" {
                return None;
            }
            Some((text.parse().ok()?, attr(tag, "y")?.parse().ok()?))
        })
        .collect();
    ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
    ticks.dedup();
    ticks
}

#[test]
fn latency_plot_has_a_log_axis_and_waf_plot_marks_phases() {
    let dir = temp_dir("timing", "plots");
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/timing.toml");
    let out = run(&[
        example,
        "--set",
        "timing.series_window=1000",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_ok(&out);
    let svg = std::fs::read_to_string(dir.join("latency.svg")).unwrap();
    // Two panels of 500 px: latency (log) on top, offered and served IOPS
    // (linear) below; the log axis is the top one's.
    assert!(svg.contains("Offered and served IOPS"));
    let ticks: Vec<(f64, f64)> = y_ticks(&svg).into_iter().filter(|t| t.1 < 500.0).collect();
    assert!(ticks.len() >= 3, "{ticks:?}");
    // Powers of ten at both ends: the axis spans at least a decade.
    let (low, high) = (ticks[0].0, ticks[ticks.len() - 1].0);
    assert!(high / low >= 10.0, "{ticks:?}");
    for v in [low, high] {
        assert_eq!(v.log10().fract(), 0.0, "{v} is not a power of ten");
    }
    // Log scale: pixel height is linear in log(value), not in value.
    let px_per_decade = (ticks[0].1 - ticks[ticks.len() - 1].1) / (high / low).log10();
    for &(v, y) in &ticks {
        let expected_y = ticks[0].1 - px_per_decade * (v / low).log10();
        assert!(
            (y - expected_y).abs() <= 1.5,
            "tick {v} at y {y}, log scale puts it at {expected_y}: {ticks:?}"
        );
    }
    // The last, partial window stays in latency.csv, marked as such
    // (`window_requests`; columns added later, like `offered_iops`, follow it).
    let csv = std::fs::read_to_string(dir.join("latency.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = header
        .iter()
        .position(|&c| c == "window_requests")
        .unwrap_or_else(|| panic!("{csv}"));
    assert_eq!(header[column - 1], "gc_time_share", "{csv}");
    let last: u64 = csv
        .lines()
        .last()
        .unwrap()
        .split(',')
        .nth(column)
        .unwrap()
        .parse()
        .unwrap();
    assert!(last <= 1000, "{csv}");
    let waf = std::fs::read_to_string(dir.join("waf.svg")).unwrap();
    for phase in ["precondition", "warm-up", "measure"] {
        assert!(
            waf.contains(&format!(">\n{phase}\n</text>")),
            "waf.svg lacks {phase}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The TPC-C replay of issue 15 (8 channels x 4 LUNs, open loop in trace
/// time), shortened to 50 repeats, with `channels` x `luns_per_channel`.
fn tpcc_replay(trace: &std::path::Path, channels: u32, luns_per_channel: u32) -> serde_json::Value {
    let dir = temp_dir("timing", &format!("tpcc-{channels}x{luns_per_channel}"));
    let config = dir.join("tpcc.toml");
    std::fs::write(
        &config,
        format!(
            "[device]\npage_bytes = 4096\npages_per_block = 8192\nblocks = 256\n\
             spare_factor = 0.125\npe_cycle_limit = 0\nchannels = {channels}\n\
             luns_per_channel = {luns_per_channel}\n\
             [ftl]\ngc_policy = \"greedy\"\ngc_low_watermark = 11\ngc_high_watermark = 11\n\
             [workload]\ntype = \"trace\"\nprecondition = \"sequential-fill\"\n\
             [workload.trace]\npath = {:?}\nformat = \"disksim\"\ntime_unit = \"ns\"\n\
             compact = true\nrepeat = 50\n\
             [timing]\nread_latency_us = 40.0\nprogram_latency_us = 200.0\n\
             erase_latency_us = 2000.0\ntransfer_us_per_page = 10.24\nmode = \"open\"\n\
             speedup = 1.0\nqueue_depth = 512\n",
            trace.display().to_string()
        ),
    )
    .unwrap();
    let out = ftlsim(&["run", config.to_str().unwrap(), "--json"]);
    assert_ok(&out);
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Issue 15: with the channel reserved in issue order, a transfer that
/// waited for a busy LUN held its channel, and the 8 x 4 replay read 13x
/// slower than the same 32 LUNs as 32 x 1 (1.9 ms against 145 us). With
/// transfers placed when their LUN is ready, sharing a channel among 4 LUNs
/// (channels 19 % busy) costs little, and the device keeps up with the trace.
#[test]
fn tpcc_replay_on_shared_channels_reads_almost_as_fast_as_on_private_ones() {
    let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/traces/tpcc-small.trace");
    if !trace.exists() {
        eprintln!("skipping: {} not found", trace.display());
        return;
    }
    let shared = tpcc_replay(&trace, 8, 4);
    let private = tpcc_replay(&trace, 32, 1);
    let mean = |v: &serde_json::Value| v["read_latency_us_mean"].as_f64().unwrap();
    let iops = |v: &serde_json::Value| v["iops"].as_f64().unwrap();
    eprintln!(
        "read mean 8 x 4 {:.1} us, 32 x 1 {:.1} us; IOPS {:.0} / {:.0}",
        mean(&shared),
        mean(&private),
        iops(&shared),
        iops(&private)
    );
    assert!(
        mean(&shared) <= 1.5 * mean(&private),
        "8 x 4 reads {} us, 32 x 1 {} us",
        mean(&shared),
        mean(&private)
    );
    // Keeping up: the run lasts as long as the trace (served = offered IOPS),
    // as on private channels, and latency does not grow over the run.
    assert!(
        (iops(&shared) / iops(&private) - 1.0).abs() < 0.005,
        "IOPS {} vs {}",
        iops(&shared),
        iops(&private)
    );
    assert!(shared["read_latency_us_max"].as_f64().unwrap() < 20_000.0);
}

/// Issue 15: program/erase suspend without its overheads is a one-line
/// error naming the missing key, exit 2.
#[test]
fn suspend_without_overheads_names_the_key() {
    for (sets, key) in [
        (vec!["timing.suspend=true"], "timing.suspend_overhead_us"),
        (
            vec!["timing.suspend=true", "timing.suspend_overhead_us=5"],
            "timing.resume_overhead_us",
        ),
        (
            vec!["timing.resume_overhead_us=5"],
            "timing.resume_overhead_us",
        ),
    ] {
        let mut args = Vec::new();
        for set in &sets {
            args.extend(["--set", set]);
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{sets:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(key), "{sets:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
}

/// Issue 15: with timing on, planes that do not divide the block layout
/// are a one-line error naming the key, exit 2 (128 blocks x 256 pages over
/// 32 LUNs: an 8-page slice per LUN).
#[test]
fn planes_that_do_not_divide_the_layout_name_the_key() {
    let out = run(&[
        "--set",
        "timing.queue_depth=4",
        "--set",
        "device.planes_per_lun=3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("device.planes_per_lun"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

/// `FTLSIM_PIPELINE=0` keeps the timer on the run's thread; the output is
/// the same bytes as with the timer on a thread of its own (the default on
/// two cores). Another value is a one-line error naming the variable.
#[test]
fn one_thread_or_two_the_output_is_the_same() {
    let mut args = vec!["run", "--json"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(&[
        "--set",
        "workload.read_fraction=0.3",
        "--set",
        "workload.requests=20000",
        "--set",
        "timing.queue_depth=16",
    ]);
    let run = |pipeline: Option<&str>| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_ftlsim"));
        cmd.args(&args);
        match pipeline {
            Some(v) => cmd.env("FTLSIM_PIPELINE", v),
            None => cmd.env_remove("FTLSIM_PIPELINE"),
        };
        cmd.output().expect("ftlsim runs")
    };
    let two = run(None);
    let v = ok_json(&two);
    assert!(v["iops"].as_f64().is_some_and(|x| x > 0.0), "timed: {v}");
    let one = run(Some("0"));
    assert_ok(&one);
    assert_eq!(two.stdout, one.stdout);
    let bad = run(Some("off"));
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("FTLSIM_PIPELINE") && err.contains("\"off\""),
        "{err}"
    );
    assert_eq!(
        err.lines().filter(|l| l.contains("error")).count(),
        1,
        "one line: {err}"
    );
}
