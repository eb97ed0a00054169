//! Bad input from the command line (issue 24): each case exits 2 with one
//! line naming the key, flag or file, quickly, and leaves its input files
//! as they were. Never a panic, a hang or a silent wrong answer.

use crate::common;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use common::{assert_ok, ftlsim, temp_dir};

/// Runs `args`, which must fail with exit 2 and one line on stderr holding
/// every one of `needles`, within 30 s. Returns the line.
fn refused(args: &[&str], needles: &[&str]) -> String {
    let started = Instant::now();
    let out: Output = ftlsim(args);
    let took = started.elapsed();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(took < Duration::from_secs(30), "{args:?} took {took:?}");
    // The seed line of `run` may come first; the error is the last line.
    let line = err.lines().last().unwrap_or_default().to_string();
    assert!(line.starts_with("ftlsim: error: "), "{args:?}: {err}");
    assert_eq!(
        err.lines().filter(|l| l.contains("error")).count(),
        1,
        "{args:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for needle in needles {
        assert!(line.contains(needle), "{args:?}: `{needle}` not in {line}");
    }
    line
}

/// A small timed device (examples/timing.toml on 64 blocks).
const TIMED: [&str; 4] = ["examples/timing.toml", "--set", "device.blocks=64", "--set"];

fn timed(extra: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut args = vec!["run".to_string(), root.join(TIMED[0]).display().to_string()];
    args.extend(TIMED[1..].iter().map(|s| s.to_string()));
    args.push("timing.mode=open".into());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// An MSR Cambridge trace: `ticks` are its 100 ns timestamps.
fn msr_trace(dir: &Path, ticks: &[u64]) -> String {
    let text: String = ticks
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t},hm,0,Write,{},4096,100\n", i * 4096))
        .collect();
    let path = dir.join("t.csv");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn open_loop_time_past_the_horizon_names_the_key() {
    let args = timed(&["--set", "timing.arrival_rate_iops=1e-12"]);
    refused(&strs(&args), &["timing.arrival_rate_iops", "2^62 ns"]);
}

#[test]
fn a_trace_stretched_or_jumping_past_the_horizon_names_the_file_and_line() {
    let dir = temp_dir("robust", "horizon");
    // One second apart: 10^9 ns, 10^21 ns once divided by 1e-12.
    let t0 = 128166372003061629;
    let trace = msr_trace(&dir, &[t0, t0 + 10_000_000, t0 + 20_000_000]);
    let set_trace = ["--set", "workload.type=trace", "--set"];
    let path = format!("workload.trace.path={trace}");
    let mut args = timed(&set_trace);
    args.extend([path.clone(), "--set".into(), "timing.speedup=1e-12".into()]);
    refused(
        &strs(&args),
        &["t.csv: line 2", "timing.speedup", "2^62 ns"],
    );
    // Times that jump by centuries: line 3 is about 1.8e19 ns after line 1.
    let trace = msr_trace(&dir, &[1, 2, 180_000_000_000_000_000]);
    let mut args = timed(&set_trace);
    args.push(format!("workload.trace.path={trace}"));
    refused(&strs(&args), &["t.csv: line 3", "2^62 ns"]);
}

#[test]
fn work_without_bound_is_refused_with_the_bound() {
    let d_choices = [
        "--set",
        "ftl.gc_policy=d-choices",
        "--set",
        "ftl.gc_choices=4000000000",
    ];
    refused(
        &[&["run"][..], &d_choices[..]].concat(),
        &["ftl.gc_choices", "1024"],
    );
    refused(
        &["run", "--set", "workload.writes=1e300x"],
        &["workload.writes", "1099511627776"],
    );
    refused(
        &["run", "--set", "workload.warmup=1000000000000000000"],
        &["workload.warmup", "1099511627776"],
    );
    refused(
        &[
            "run",
            "--set",
            "workload.requests=1000000000000000000",
            "--set",
            "workload.read_fraction=0.5",
        ],
        &["workload.requests", "1099511627776"],
    );
    let dir = temp_dir("robust", "repeat");
    let trace = msr_trace(&dir, &[128166372003061629]);
    let path = format!("workload.trace.path={trace}");
    refused(
        &[
            "run",
            "--set",
            "workload.type=trace",
            "--set",
            &path,
            "--set",
            "workload.trace.repeat=4000000000",
        ],
        &["workload.trace.repeat", "100000"],
    );
    refused(
        &["run", "--set", "ftl.write_buffer_pages=4000000000"],
        &["ftl.write_buffer_pages", "larger than the device"],
    );
}

#[test]
fn a_trace_repeated_the_most_times_allowed_ends_quickly() {
    let dir = temp_dir("robust", "empty-repeat");
    let trace = msr_trace(&dir, &[128166372003061629, 128166372003061700]);
    let path = format!("workload.trace.path={trace}");
    let started = Instant::now();
    let out = ftlsim(&[
        "run",
        "--json",
        "--set",
        "workload.type=trace",
        "--set",
        &path,
        "--set",
        "workload.trace.repeat=100000",
        "--set",
        "device.blocks=64",
    ]);
    assert_ok(&out);
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn trace_convert_never_writes_over_its_input() {
    let dir = temp_dir("robust", "convert");
    let trace = msr_trace(&dir, &[128166372003061629, 128166372003061700]);
    let before = std::fs::read(&trace).unwrap();
    refused(&["trace", "convert", &trace, &trace], &["t.csv", "input"]);
    // The same file by another path.
    let other = dir.join(".").join("t.csv").display().to_string();
    refused(&["trace", "convert", &trace, &other], &["input"]);
    assert_eq!(std::fs::read(&trace).unwrap(), before);
    // A good conversion leaves no temporary file behind.
    let out = dir.join("t.bin").display().to_string();
    assert_ok(&ftlsim(&["trace", "convert", &trace, &out]));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
}

#[test]
fn run_out_never_writes_over_its_config() {
    let dir = temp_dir("robust", "run-out");
    let config = dir.join("summary.json");
    let text = "[device]\nblocks = 64\npages_per_block = 32\n";
    std::fs::write(&config, text).unwrap();
    let dir_arg = dir.display().to_string();
    refused(
        &["run", &config.display().to_string(), "--out", &dir_arg],
        &["summary.json", "input"],
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
}

#[test]
fn trace_generate_checks_its_sizes() {
    let dir = temp_dir("robust", "generate");
    let out = dir.join("g.bin").display().to_string();
    refused(
        &["trace", "generate", &out, "--page-bytes", "0"],
        &["--page-bytes"],
    );
    refused(
        &[
            "trace",
            "generate",
            &out,
            "--logical-pages",
            "18446744073709551615",
        ],
        &["--logical-pages", "2^64"],
    );
    assert!(!Path::new(&out).exists());
}

#[test]
fn a_section_given_as_an_array_is_refused() {
    let dir = temp_dir("robust", "array");
    let config = dir.join("c.toml");
    std::fs::write(&config, "device = [4096, 16, 64]\n").unwrap();
    refused(
        &["run", &config.display().to_string()],
        &["device", "expected a table"],
    );
}

#[test]
fn end_of_life_is_not_an_unbounded_lifetime() {
    let out = ftlsim(&[
        "run",
        "--set",
        "device.pe_cycle_limit=1",
        "--set",
        "device.blocks=64",
        "--set",
        "device.pages_per_block=32",
    ]);
    assert_ok(&out);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("end of life") && table.contains("yes"),
        "{table}"
    );
    assert!(!table.contains("unbounded"), "{table}");
    assert!(table.contains("before end of life"), "{table}");
}

#[test]
fn errors_name_the_key_or_flag_the_user_gave() {
    let dir = temp_dir("robust", "names");
    let trace = msr_trace(&dir, &[128166372003061629]);
    let path = format!("workload.trace.path={trace}");
    refused(
        &[
            "run",
            "--set",
            "workload.type=trace",
            "--set",
            &path,
            "--set",
            "workload.trace.blkparse_action=ZZZ",
        ],
        &["workload.trace.blkparse_action"],
    );
    refused(
        &["trace", "stats", &trace, "--time-unit", "weeks"],
        &["--time-unit"],
    );
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "hello world\n").unwrap();
    let junk_path = format!("workload.trace.path={}", junk.display());
    let line = refused(
        &["run", "--set", "workload.type=trace", "--set", &junk_path],
        &["choose one with workload.trace.format"],
    );
    assert!(!line.contains("--format"), "{line}");
    refused(
        &["device", "run", "--size", "4KiB", "--", "true"],
        &["--size", "smallest device", "device.blocks ="],
    );
}
