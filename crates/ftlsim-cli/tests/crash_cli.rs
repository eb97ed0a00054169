//! `ftlsim crash-test` end to end: the JSON contract, exit codes, bad input.

use crate::common;
use common::ftlsim;

const SMALL: &[&str] = &[
    "--set",
    "device.blocks=64",
    "--set",
    "device.pages_per_block=16",
    "--set",
    "workload.warmup=1x",
    "--set",
    "workload.requests=8000",
    "--set",
    "workload.trim_fraction=0.1",
];

fn crash(extra: &[&str]) -> std::process::Output {
    let mut args = vec!["crash-test", "--json"];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(extra);
    ftlsim(&args)
}

#[test]
fn json_has_the_contract_keys_and_no_failures() {
    let out = crash(&["--cuts", "40"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "cuts",
        "failures",
        "lost_pages",
        "resurrected_pages",
        "recovery_ns_p50",
        "recovery_ns_p99",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(v["cuts"], 40);
    assert_eq!(v["failures"], 0);
    assert!(v["recovery_ns_p50"].as_u64().unwrap() > 0);
    let again = crash(&["--cuts", "40"]);
    assert_eq!(out.stdout, again.stdout, "same seed, same bytes");
}

#[test]
fn a_broken_recovery_fails_with_exit_1() {
    let out = crash(&["--cuts", "40", "--broken-recovery", "ignore-journal"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["failures"].as_u64().unwrap() > 0);
}

fn assert_rejected(args: &[&str], needle: &str) {
    let out = ftlsim(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: stderr {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(
        lines.len(),
        1,
        "{args:?}: expected one error line, got {stderr}"
    );
    assert!(
        lines[0].contains(needle),
        "{args:?}: `{}` does not name `{needle}`",
        lines[0]
    );
}

#[test]
fn bad_power_loss_input_is_named() {
    assert_rejected(&["crash-test", "--cuts", "0"], "--cuts");
    assert_rejected(
        &["crash-test", "--cuts", "5", "--set", "ftl.journal_batch=0"],
        "ftl.journal_batch",
    );
    assert_rejected(
        &["run", "--set", "ftl.journal_batch=0"],
        "ftl.journal_batch",
    );
    assert_rejected(
        &["run", "--set", "ftl.checkpoint_interval_pages=999999999"],
        "ftl.checkpoint_interval_pages",
    );
    assert_rejected(
        &[
            "crash-test",
            "--cuts",
            "5",
            "--set",
            "ftl.checkpoint_interval_pages=999999999",
        ],
        "ftl.checkpoint_interval_pages",
    );
    assert_rejected(
        &["crash-test", "--cuts", "5", "--remap-fraction", "2"],
        "--remap-fraction",
    );
}

/// Found so (issue 24): `--cuts` near u64::MAX overflowed and then named the
/// wrong thing; rocksdb and ycsb workloads silently ran uniform writes; FDP
/// reported no failures for a model that does not exist; a device too big
/// for memory aborted on allocation. Each is now a one-line refusal.
#[test]
fn what_the_crash_test_cannot_model_is_refused() {
    assert_rejected(&["crash-test", "--cuts", "18446744073709551615"], "--cuts");
    assert_rejected(&["crash-test", "--cuts", "1000001"], "--cuts");
    for workload in ["rocksdb", "ycsb", "cassandra", "gcc"] {
        let set = format!("workload.type={workload}");
        assert_rejected(
            &["crash-test", "--cuts", "5", "--set", &set],
            "workload.type",
        );
    }
    assert_rejected(
        &["crash-test", "--cuts", "5", "--set", "ftl.fdp=true"],
        "ftl.fdp",
    );
    assert_rejected(
        &[
            "crash-test",
            "--cuts",
            "5",
            "--set",
            "device.blocks=400000000",
            "--set",
            "device.pages_per_block=1024",
        ],
        "device.blocks",
    );
}

/// The policies that lost acknowledged pages before the durability rule
/// (docs/power-loss.md), through the CLI with its exit status.
#[test]
fn fifo_and_random_lose_nothing_acknowledged() {
    for policy in ["fifo", "random"] {
        let set = format!("ftl.gc_policy={policy}");
        let out = crash(&["--cuts", "60", "--set", &set]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{policy}: {stderr}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["failures"], 0, "{policy}: {v}");
        assert_eq!(v["lost_pages"], 0, "{policy}: {v}");
        assert_eq!(v["unsafe_reclaims"], 0, "{policy}: {v}");
    }
}

/// The must-show of issue 24 at CI size: examples/power-loss.toml with every
/// GC policy, and with dedup and remap traffic, 100 cuts each, loses nothing
/// (docs/power-loss.md has the 1000-cut runs).
#[test]
fn power_loss_example_loses_nothing_under_every_policy() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/power-loss.toml"
    );
    let mut cases: Vec<Vec<&str>> = [
        "ftl.gc_policy=greedy",
        "ftl.gc_policy=cost-benefit",
        "ftl.gc_policy=fifo",
        "ftl.gc_policy=random",
        "ftl.gc_policy=d-choices",
    ]
    .iter()
    .map(|set| vec!["--set", set])
    .collect();
    cases.push(vec!["--set", "ftl.dedup=true", "--remap-fraction", "0.05"]);
    for extra in cases {
        let mut args = vec!["crash-test", example, "--cuts", "100", "--json"];
        args.extend_from_slice(&extra);
        let out = ftlsim(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{extra:?}: {stderr}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for key in [
            "failures",
            "lost_pages",
            "resurrected_pages",
            "foreign_pages",
            "unsafe_reclaims",
        ] {
            assert_eq!(v[key], 0, "{extra:?}: {key} in {v}");
        }
        assert_eq!(v["cuts"], 100, "{extra:?}: {v}");
    }
}
