//! `ftlsim reproduce placement` (docs/placement.md): a piece of its quick
//! grid, its structure (a variant per placement scheme the code lists, the
//! WA and GC count of each), and the directions that hold: in SepBIT's log
//! regime fk is at or below every scheme, and sepbit, tworr and midas below
//! nosep on skew.
//! On ftlsim's SSD fk's default is geometric lifespan classes, at or below
//! every scheme as well. fk's keys, bad: exit 2, one line naming the key.

use std::process::Command;

use serde_json::Value;

use crate::common::ftlsim;

const LOG_WORKLOADS: [&str; 3] = ["a0-log-greedy", "a1.0-log-greedy", "a1.0-log-cb"];

/// Workloads where fk must be at or below every scheme: the log ones and
/// the SSD one.
const FK_LOWEST: [&str; 4] = [
    "a0-log-greedy",
    "a1.0-log-greedy",
    "a1.0-log-cb",
    "a1.0-ssd-greedy",
];

fn placement_quick() -> Value {
    let only = format!("{},a1.0-ssd-greedy", LOG_WORKLOADS.join(","));
    let args = [
        "reproduce",
        "placement",
        "--quick",
        "--json",
        "--only",
        &only,
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .args(args)
        .output()
        .expect("run ftlsim");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

fn wa(w: &Value, scheme: &str) -> f64 {
    w[scheme]["waf"]
        .as_f64()
        .unwrap_or_else(|| panic!("{scheme}: no WA"))
}

#[test]
fn placement_quick_has_every_scheme_and_the_oracle_below_them() {
    let v = placement_quick();
    assert_eq!(v["experiment"], "placement");
    let workloads = v["workloads"].as_object().expect("workloads");
    assert_eq!(workloads.len(), 4);
    let schemes = ftlsim::ftl::scheme_names();
    for (name, w) in workloads {
        let variants: Vec<&String> = w.as_object().expect("variants").keys().collect();
        assert_eq!(variants.len(), schemes.len(), "{name}: {variants:?}");
        for s in &schemes {
            assert!(wa(w, s) >= 1.0, "{name}/{s}");
            assert!(
                w[s]["gc_count"].as_u64().expect("gc count") > 0,
                "{name}/{s}"
            );
        }
    }
    for name in FK_LOWEST {
        let w = &workloads[name];
        let fk = wa(w, "fk");
        for s in &schemes {
            assert!(fk <= wa(w, s), "{name}: fk {fk} above {s} {}", wa(w, s));
        }
    }
    for name in LOG_WORKLOADS {
        let w = &workloads[name];
        if name.starts_with("a1.0") {
            for s in ["sepbit", "tworr", "midas"] {
                assert!(wa(w, s) < wa(w, "nosep"), "{name}: {s}");
            }
        }
    }
}

/// fk's keys, bad: an unknown `lifespan_classes`, a span outside (0, 1024]
/// or given to `segments`: exit 2, one error line naming the key.
#[test]
fn bad_fk_keys_are_named() {
    for (sets, key) in [
        (
            &["lifespan_classes=\"nope\""][..],
            "ftl.placement_scheme.lifespan_classes",
        ),
        (
            &["span_capacities=0.0"][..],
            "ftl.placement_scheme.span_capacities",
        ),
        (
            &["lifespan_classes=\"segments\"", "span_capacities=2.0"][..],
            "ftl.placement_scheme.span_capacities",
        ),
    ] {
        let mut args = vec![
            "run".to_string(),
            "--set".into(),
            "ftl.placement_scheme.type=\"fk\"".into(),
        ];
        for s in sets {
            args.push("--set".into());
            args.push(format!("ftl.placement_scheme.{s}"));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ftlsim(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {stderr}");
        assert!(errors[0].contains(key), "{args:?}: {}", errors[0]);
    }
}
