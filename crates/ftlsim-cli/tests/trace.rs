//! `ftlsim trace` and trace replay through `ftlsim run`.

use crate::common;
use common::{ftlsim, temp_dir};

use std::path::{Path, PathBuf};

/// An MSR Cambridge trace: 4 KiB writes cycling over 64 pages, and reads.
fn write_msr(dir: &Path) -> PathBuf {
    let mut text = String::new();
    for i in 0..2000u64 {
        let (op, page) = if i % 4 == 3 {
            ("Read", i % 50)
        } else {
            ("Write", (i * 7) % 64)
        };
        text += &format!(
            "{},hm,0,{op},{},4096,100\n",
            128166372000000000u64 + i * 10_000,
            page * 4096
        );
    }
    let path = dir.join("small.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn small_device() -> Vec<&'static str> {
    vec![
        "--set",
        "device.blocks=32",
        "--set",
        "device.pages_per_block=16",
        "--set",
        "device.spare_factor=0.2",
    ]
}

#[test]
fn stats_json_has_the_contract_keys() {
    let dir = temp_dir("trace-cli", "stats");
    let path = write_msr(&dir);
    let out = ftlsim(&["trace", "stats", path.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["requests"], 2000);
    assert_eq!(v["reads"], 500);
    assert_eq!(v["writes"], 1500);
    assert_eq!(v["trims"], 0);
    assert_eq!(v["write_bytes"], 1500 * 4096);
    assert_eq!(v["read_bytes"], 500 * 4096);
    let touched: std::collections::BTreeSet<u64> = (0..2000u64)
        .map(|i| if i % 4 == 3 { i % 50 } else { (i * 7) % 64 })
        .collect();
    assert_eq!(v["footprint_pages"], touched.len() as u64);
    assert!(v["duplicate_write_ratio"].is_null());
}

#[test]
fn replay_runs_and_converted_native_trace_gives_the_same_result() {
    let dir = temp_dir("trace-cli", "replay");
    let path = write_msr(&dir);
    let native = dir.join("small.ftlt");
    let out = ftlsim(&[
        "trace",
        "convert",
        path.to_str().unwrap(),
        native.to_str().unwrap(),
        "--to",
        "native",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = |trace: &Path| {
        let path_set = format!("workload.trace.path={}", trace.display());
        let mut args = vec![
            "run",
            "--json",
            "--check",
            "--set",
            "workload.type=trace",
            "--set",
            &path_set,
        ];
        args.extend(small_device());
        args.extend(["--set", "workload.trace.repeat=20"]);
        let out = ftlsim(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let a = run(&path);
    let b = run(&native);
    assert_eq!(a["host_write_pages"], 20 * 1500);
    assert_eq!(a["host_read_pages"], 20 * 500);
    assert!(
        a["gc_count"].as_u64().unwrap() > 0,
        "the replay should age the device"
    );
    assert_eq!(a, b, "native replay must match the text replay");
}

#[test]
fn bad_traces_name_file_and_line() {
    let dir = temp_dir("trace-cli", "bad");
    let path = dir.join("bad.csv");
    std::fs::write(
        &path,
        "128166372000000000,hm,0,Write,0,4096,10\n128166372000000001,hm,0,Write,abc,4096,10\n",
    )
    .unwrap();
    let out = ftlsim(&["trace", "stats", path.to_str().unwrap(), "--format", "msr"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.csv:2:"), "{err}");
    assert!(!err.contains("panicked"));
    let out = ftlsim(&[
        "trace",
        "stats",
        path.to_str().unwrap(),
        "--format",
        "msr",
        "--skip-bad-lines",
    ]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped 1 bad lines"));
    // Through run: the same message, exit 2.
    let path_set = format!("workload.trace.path={}", path.display());
    let mut args = vec!["run", "--set", "workload.type=trace", "--set", &path_set];
    args.extend(small_device());
    args.extend(["--set", "workload.trace.format=msr"]);
    let out = ftlsim(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.csv:2:"), "{err}");
    args.extend(["--set", "workload.trace.format=bogus"]);
    let out = ftlsim(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("workload.trace.format"), "{err}");
    // Unknown format, missing file, empty file.
    let out = ftlsim(&["trace", "stats", path.to_str().unwrap(), "--format", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    let out = ftlsim(&["trace", "stats", dir.join("missing.csv").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let out = ftlsim(&["trace", "stats", empty.to_str().unwrap(), "--format", "msr"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty.csv"));
    let out = ftlsim(&["run", "--set", "workload.type=trace"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("workload.trace.path"));
}

#[test]
fn footprint_larger_than_the_device_is_an_error_unless_compacted() {
    let dir = temp_dir("trace-cli", "footprint");
    let path = dir.join("far.csv");
    // Offsets far beyond a small device.
    let text: String = (0..100u64)
        .map(|i| {
            format!(
                "{},hm,0,Write,{},4096,10\n",
                128166372000000000u64 + i,
                (1u64 << 40) + i * 4096
            )
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    let path_set = format!("workload.trace.path={}", path.display());
    let mut args = vec!["run", "--set", "workload.type=trace", "--set", &path_set];
    args.extend(small_device());
    let out = ftlsim(&args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    args.extend(["--set", "workload.trace.compact=true", "--json"]);
    let out = ftlsim(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["host_write_pages"], 100);
}

/// The real traces in ../shared/traces, when present.
#[test]
fn real_traces_replay_when_present() {
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    if !traces.exists() {
        eprintln!("skipping: {} not found", traces.display());
        return;
    }
    let tpcc = traces.join("tpcc-small.trace");
    let out = ftlsim(&[
        "trace",
        "stats",
        tpcc.to_str().unwrap(),
        "--format",
        "disksim",
        "--time-unit",
        "ns",
        "--json",
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["requests"], 6999);
    // The example config replays the TPC-C sample (its path is relative to the repository root).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .args(["run", "examples/trace.toml", "--json"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["host_write_pages"], 20 * 7995);
    let homes = traces.join("homes.replay.0");
    let path_set = format!("workload.trace.path={}", homes.display());
    let out = ftlsim(&[
        "run",
        "--json",
        "--set",
        "workload.type=trace",
        "--set",
        &path_set,
        "--set",
        "workload.trace.compact=true",
        "--set",
        "ftl.dedup=true",
        "--set",
        "device.blocks=64",
        "--set",
        "device.pages_per_block=16",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["host_write_pages"], 998);
    assert!(
        v["dedup_hit_pages"].as_u64().unwrap() > 0,
        "FIU homes has duplicate content"
    );
}

#[test]
fn disksim_conversion_reads_back_with_the_same_requests() {
    let dir = temp_dir("trace-cli", "disksim-rt");
    let msr = write_msr(&dir);
    let ascii = dir.join("small.ascii");
    let out = ftlsim(&[
        "trace",
        "convert",
        msr.to_str().unwrap(),
        ascii.to_str().unwrap(),
        "--to",
        "disksim",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("2000 written") && stderr.contains("0 left out"),
        "{stderr}"
    );
    let stats = |path: &Path| {
        let out = ftlsim(&["trace", "stats", path.to_str().unwrap(), "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let (a, b) = (stats(&msr), stats(&ascii));
    // Same ops, extents and times (MSR FILETIME ns, written in DiskSim's ms).
    for key in [
        "requests",
        "reads",
        "writes",
        "read_bytes",
        "write_bytes",
        "first_time_ns",
        "last_time_ns",
        "footprint_pages",
        "address_span_pages",
        "size_histogram",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    assert_eq!(b["requests"], 2000);
}

/// `trace layout`: a capture log laid out on the file layer replays, and
/// bad input (an unreadable log line, a device too small) exits 2 with a
/// line that says where.
#[test]
fn trace_layout_writes_a_replayable_pc_tagged_trace() {
    let dir = temp_dir("trace", "layout");
    let cap = dir.join("cap");
    std::fs::write(
        &cap,
        "F 1 10 /m/a\nE 100 1 1 write 1 10 0 8192 000000000000000a 0\n\
         E 200 1 1 pwrite 1 10 4096 4096 000000000000000b 0\nN 300 1 1 unlink 1 10 0 0 /m/a\n",
    )
    .unwrap();
    let trace = dir.join("t.trace");
    let (c, t) = (cap.to_str().unwrap(), trace.to_str().unwrap());
    let out = ftlsim(&["trace", "layout", c, "-o", t, "--size", "1MiB"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("1 files, 2 write calls -> 3 pages written"),
        "{text}"
    );
    assert!(
        text.contains("2 trimmed") && text.contains("2 PCs"),
        "{text}"
    );
    let pcs = ftlsim(&["trace", "pcs", t, "--json"]);
    let rows = String::from_utf8_lossy(&pcs.stdout);
    assert!(
        pcs.status.success() && rows.contains("\"pages\":2"),
        "{rows}"
    );

    let small = ftlsim(&["trace", "layout", c, "-o", t, "--size", "4KiB"]);
    let err = String::from_utf8_lossy(&small.stderr);
    assert_eq!(small.status.code(), Some(2), "{err}");
    assert!(
        err.contains("at 100 ns, file 1:10") && err.contains("full"),
        "{err}"
    );

    std::fs::write(&cap, "E 1 1 1 write 1 10 0 x 00 0\n").unwrap();
    let bad = ftlsim(&["trace", "layout", c, "-o", t]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(err.contains("line 1"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--page-bytes 0` is refused by every trace command that takes it.
#[test]
fn trace_commands_refuse_zero_page_bytes() {
    for args in [
        &["trace", "pcs", "missing.trace", "--page-bytes", "0"][..],
        &[
            "trace",
            "layout",
            "missing.cap",
            "-o",
            "x.trace",
            "--page-bytes",
            "0",
        ][..],
    ] {
        let out = ftlsim(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--page-bytes must be at least 1"),
            "{args:?}: {err}"
        );
    }
}
