//! The trace tools of issue 29 through the binary: `trace synth` writes the
//! stream a run draws (a replay of it gives the run's numbers), `trace
//! lifespans` annotates it consistently, `trace convert --to alibaba` writes
//! SepBIT's input, and bad input is one line and exit 2.

use crate::common;
use common::{assert_ok, ftlsim, ok_json, temp_dir};

use std::path::Path;

const DEVICE: &str =
    "[device]\npage_bytes = 4096\npages_per_block = 32\nblocks = 64\nspare_factor = 0.2\n";

fn config(dir: &Path, workload: &str) -> String {
    // A name per content: a test may hold several configs at once.
    let path = dir.join(format!(
        "c{:016x}.toml",
        ftlsim_trace::fnv1a64(workload.as_bytes())
    ));
    std::fs::write(&path, format!("{DEVICE}[workload]\n{workload}")).unwrap();
    path.display().to_string()
}

const SEPBIT: &str = "type = \"sepbit-synthetic\"\nzipf_alpha = 1.0\nworking_set_bytes = 4096000\nhot_shift_bytes = 409600\nprecondition = \"none\"\nwarmup = 0\nwrites = 20000\n";

/// A run of the config and a replay of its synthesized trace on the same
/// device see the same writes: the same NAND writes, page for page.
#[test]
fn synth_replays_as_the_run() {
    let dir = temp_dir("sepbit-traces", "replay");
    let cfg = config(&dir, SEPBIT);
    let trace = dir.join("s.ftlt");
    assert_ok(&ftlsim(&["trace", "synth", &cfg, trace.to_str().unwrap()]));
    let run = ok_json(&ftlsim(&["run", &cfg, "--json"]));
    let replay_cfg = dir.join("r.toml");
    std::fs::write(
        &replay_cfg,
        format!(
            "{DEVICE}[workload]\ntype = \"trace\"\nprecondition = \"none\"\n[workload.trace]\npath = {:?}\n",
            trace.display().to_string()
        ),
    )
    .unwrap();
    let replay = ok_json(&ftlsim(&["run", replay_cfg.to_str().unwrap(), "--json"]));
    assert_eq!(run["host_write_pages"], 20000);
    assert_eq!(replay["host_write_pages"], run["host_write_pages"]);
    assert_eq!(replay["nand_write_pages"], run["nand_write_pages"]);
    assert!(
        run["gc_copy_pages"].as_u64().unwrap() > 0,
        "the run did no GC: {run}"
    );
}

/// Lifespans of a write-only trace: every page written is overwritten or
/// lives forever, and the pages that live forever are the distinct pages
/// written (each one's last write). With trims, some die by trim.
#[test]
fn lifespans_count_every_written_page() {
    let dir = temp_dir("sepbit-traces", "lifespans");
    let cfg = config(&dir, SEPBIT);
    let trace = dir.join("s.ftlt");
    assert_ok(&ftlsim(&["trace", "synth", &cfg, trace.to_str().unwrap()]));
    let stats = ok_json(&ftlsim(&[
        "trace",
        "stats",
        trace.to_str().unwrap(),
        "--json",
    ]));
    let oracle = dir.join("0.oracle");
    let s = ok_json(&ftlsim(&[
        "trace",
        "lifespans",
        trace.to_str().unwrap(),
        "--sepbit",
        oracle.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(s["written_pages"], 20000);
    assert_eq!(s["trimmed_pages"], 0);
    assert_eq!(s["infinite_pages"], stats["footprint_write_pages"]);
    assert_eq!(
        s["overwritten_pages"].as_u64().unwrap() + s["infinite_pages"].as_u64().unwrap(),
        20000
    );
    let lines = std::fs::read_to_string(&oracle).unwrap();
    assert_eq!(lines.lines().count(), 20000);
    assert!(lines
        .lines()
        .all(|l| l.parse::<u64>().is_ok_and(|v| v >= 1)));

    let mix = "type = \"sepbit-synthetic\"\nzipf_alpha = 0.8\nworking_set_bytes = 4096000\nprecondition = \"none\"\nwarmup = 0\nrequests = 20000\ntrim_fraction = 0.1\n";
    let cfg = config(&dir, mix);
    assert_ok(&ftlsim(&["trace", "synth", &cfg, trace.to_str().unwrap()]));
    let life = dir.join("s.life");
    let s = ok_json(&ftlsim(&[
        "trace",
        "lifespans",
        trace.to_str().unwrap(),
        "--out",
        life.to_str().unwrap(),
        "--json",
    ]));
    let n = |k: &str| s[k].as_u64().unwrap();
    assert!(n("trimmed_pages") > 0, "{s}");
    assert_eq!(
        n("overwritten_pages") + n("trimmed_pages") + n("infinite_pages"),
        n("written_pages")
    );
    let bytes = std::fs::metadata(&life).unwrap().len();
    assert_eq!(
        bytes,
        16 + 8 * n("written_pages"),
        "header and a u64 per page"
    );
}

#[test]
fn convert_to_alibaba_writes_sepbit_input() {
    let dir = temp_dir("sepbit-traces", "alibaba");
    let cfg = config(&dir, SEPBIT);
    let trace = dir.join("s.ftlt");
    assert_ok(&ftlsim(&["trace", "synth", &cfg, trace.to_str().unwrap()]));
    let csv = dir.join("0.csv");
    assert_ok(&ftlsim(&[
        "trace",
        "convert",
        trace.to_str().unwrap(),
        csv.to_str().unwrap(),
        "--to",
        "alibaba",
    ]));
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 20000);
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!((f[0], f[1], f[3]), ("0", "W", "4096"), "{line}");
        assert_eq!(f[4], (i + 1).to_string(), "1 µs apart from 1 µs: {line}");
        assert!(
            f[2].parse::<u64>().unwrap() < 4_096_000,
            "inside the working set: {line}"
        );
    }
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = temp_dir("sepbit-traces", "bad");
    let trace = dir.join("s.ftlt");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "trace".into(),
                "synth".into(),
                config(&dir, "type = \"trace\"\n[workload.trace]\npath = \"x\"\n"),
                trace.display().to_string(),
            ],
            "workload.type",
        ),
        (
            vec![
                "trace".into(),
                "synth".into(),
                config(&dir, "type = \"sepbit-synthetic\"\nzipf_alpha = -1\n"),
                trace.display().to_string(),
            ],
            "workload.zipf_alpha",
        ),
        (
            vec![
                "trace".into(),
                "lifespans".into(),
                trace.display().to_string(),
            ],
            "--sepbit",
        ),
    ];
    for (args, names) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ftlsim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
    }
}

/// SepBIT's per-volume Tencent preparation in one command: volume 7 of a
/// two-volume snippet, its seconds spread, in the CSV SepBIT reads.
#[test]
fn tencent_volume_spread_to_alibaba() {
    let dir = temp_dir("sepbit-traces", "tencent");
    let snippet = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ftlsim-trace/tests/data/tencent-two-volumes.csv"
    );
    let csv = dir.join("7.csv");
    assert_ok(&ftlsim(&[
        "trace",
        "convert",
        snippet,
        csv.to_str().unwrap(),
        "--format",
        "tencent",
        "--device",
        "7",
        "--spread-seconds",
        "--to",
        "alibaba",
    ]));
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "7,W,0,4096,1538326800000000\n\
         7,R,8192,4096,1538326800333333\n\
         7,W,12288,8192,1538326800666666\n\
         7,W,16384,4096,1538326801000000\n\
         7,W,0,4096,1538326802000000\n"
    );
}
