//! Golden results: the safety net of the architecture redesign (issue 26),
//! whose rule is that results do not change. Every example config (shrunk
//! with `--set` where it is slow), each feature's variants, the crash test,
//! `validate --quick` and every `reproduce --quick` grid run through the
//! release binary, and what they print (and, for some, the files they write
//! with `--out`) must equal, byte for byte, what the binary built from commit
//! 7773518 printed.
//!
//! The recorded outputs live in `tests/golden/expected/`: `CASE.json` is a
//! case's stdout exactly; a case that also writes files has a folder
//! `CASE/` holding `stdout.json` (or `stdout.txt`) and each file under its
//! own name, gzipped (`NAME.gz`) when it is over 64 KiB. The cases are listed
//! in `tests/golden/cases.rs`.
//!
//! To re-record after a change that is meant to change results (say why in
//! the commit):
//!
//! ```text
//! FTLSIM_BLESS=1 cargo test --release -p ftlsim-cli --test integration golden:: -- --include-ignored
//! ```
//!
//! Blessing runs each case twice and refuses to record a case whose two runs
//! differ. Without `FTLSIM_BLESS` a difference fails the test, naming the case,
//! the file and the first differing JSON key (or line). Cases that need the
//! third-party traces in `../shared/traces` are skipped, with a message, on a
//! checkout without them. The three slowest quick grids are `#[ignore]`d (see
//! their tests); run them with `--include-ignored` before merging a step of
//! the redesign.
//!
//! Nothing is normalised: every field of these outputs was found to be
//! deterministic (each case run twice gives the same bytes), and none holds
//! a wall-clock time, a rate per wall-clock second, a host name, a version or
//! an absolute path. `NOT_DETERMINISTIC` is where such a field would be named.

mod case;
mod cases;
mod compare;
mod traces;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use self::case::{Case, Out};

/// JSON keys removed from every output before it is compared, because their
/// value differs between two runs of the same command. None so far: see the
/// module comment.
const NOT_DETERMINISTIC: &[&str] = &[];

/// Files of `run --out` that are compared: the numbers. `index.html` and the
/// SVG charts render those numbers (and index.html the command line, with
/// its temporary `--out` path), so they are left out.
const RUN_FILES: &[&str] = &[
    "summary.json",
    "summary.csv",
    "layers.csv",
    "streams.csv",
    "timeseries.csv",
    "layers_timeseries.csv",
    "latency.csv",
    "luns.csv",
    "channels.csv",
];

/// Files of `reproduce --out` that are compared (results.json is stdout's
/// JSON again, pretty-printed).
const REPRODUCE_FILES: &[&str] = &["results.csv", "summary.txt"];

/// Outputs over this many bytes are stored gzipped.
const GZIP_OVER_BYTES: usize = 64 * 1024;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

fn expected_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/expected")
}

fn blessing() -> bool {
    std::env::var_os("FTLSIM_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// One output of a case: its file name in the golden folder and its bytes.
type Output = (String, Vec<u8>);

/// Runs `case` once from the repository root (the examples name traces
/// relative to it) and returns its outputs, stdout first.
fn run_case(case: &Case, scratch: &Path, attempt: u32) -> Result<Vec<Output>, String> {
    let mut args = case.args.clone();
    let out_dir = scratch.join(format!("{}-{attempt}", case.name));
    if case.out != Out::Stdout {
        let _ = std::fs::remove_dir_all(&out_dir);
        args.push("--out".into());
        args.push(out_dir.to_str().expect("UTF-8 temp path").into());
    }
    let output = Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .current_dir(repo_root())
        .args(&args)
        .envs(case.env.iter().copied())
        .output()
        .map_err(|e| format!("{}: cannot start ftlsim: {e}", case.name))?;
    if !output.status.success() {
        return Err(format!(
            "{}: ftlsim {} failed ({}):\n{}",
            case.name,
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout_name = if output.stdout.starts_with(b"{") {
        "stdout.json"
    } else {
        "stdout.txt"
    };
    let mut outputs = vec![(
        stdout_name.to_string(),
        compare::normalise(output.stdout, NOT_DETERMINISTIC),
    )];
    let files = match case.out {
        Out::Stdout => &[][..],
        Out::RunFiles => RUN_FILES,
        Out::ReproduceFiles => REPRODUCE_FILES,
    };
    for name in files {
        // A run writes latency.csv and the like only with timing on.
        if let Ok(bytes) = std::fs::read(out_dir.join(name)) {
            outputs.push((
                name.to_string(),
                compare::normalise(bytes, NOT_DETERMINISTIC),
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    Ok(outputs)
}

/// Where each output of `case` is stored: `CASE.json` for a case with
/// stdout only, else `CASE/NAME` (or `CASE/NAME.gz`, see `GZIP_OVER_BYTES`).
fn golden_path(case: &Case, name: &str) -> PathBuf {
    if case.out == Out::Stdout {
        let ext = Path::new(name).extension().expect("stdout.EXT");
        return expected_dir().join(format!("{}.{}", case.name, ext.to_str().unwrap()));
    }
    expected_dir().join(case.name.as_str()).join(name)
}

/// The names of the files recorded in a case's folder (`.gz` dropped).
fn recorded_names(case: &Case) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(expected_dir().join(case.name.as_str())) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().into_string().expect("UTF-8 name"))
        .map(|n| n.strip_suffix(".gz").map_or(n.clone(), str::to_string))
        .collect();
    names.sort();
    names
}

/// Checks (or, blessing, records) one case; `Err` says what differs.
fn check_case(case: &Case, scratch: &Path) -> Result<(), String> {
    let outputs = run_case(case, scratch, 0)?;
    if blessing() {
        let again = run_case(case, scratch, 1)?;
        if let Some(diff) = compare::first_difference(&outputs, &again) {
            return Err(format!(
                "{}: two runs of the same command differ, not recorded: {diff}",
                case.name
            ));
        }
        return record(case, &outputs);
    }
    if case.out != Out::Stdout {
        let mut names: Vec<String> = outputs.iter().map(|(n, _)| n.clone()).collect();
        names.sort();
        let recorded = recorded_names(case);
        if names != recorded {
            return Err(format!(
                "{}: recorded files {recorded:?}, now {names:?}",
                case.name
            ));
        }
    }
    let mut stored = Vec::new();
    for (name, _) in &outputs {
        let path = golden_path(case, name);
        let bytes = compare::read_stored(&path).map_err(|e| {
            format!(
                "{}: no golden file {} ({e}); record it with FTLSIM_BLESS=1",
                case.name,
                path.display()
            )
        })?;
        stored.push((name.clone(), bytes));
    }
    match compare::first_difference(&stored, &outputs) {
        None => Ok(()),
        Some(diff) => Err(format!(
            "{}: differs from tests/golden/expected: {diff}",
            case.name
        )),
    }
}

fn record(case: &Case, outputs: &[Output]) -> Result<(), String> {
    let dir = expected_dir();
    // A case's old files go first, so a file it no longer writes, or one
    // that crossed the gzip size, leaves nothing stale behind.
    let _ = std::fs::remove_dir_all(dir.join(case.name.as_str()));
    for ext in ["json", "txt"] {
        let _ = std::fs::remove_file(dir.join(format!("{}.{ext}", case.name)));
    }
    for (name, bytes) in outputs {
        let mut path = golden_path(case, name);
        if bytes.len() > GZIP_OVER_BYTES {
            path.set_extension(format!(
                "{}.gz",
                path.extension().unwrap().to_str().unwrap()
            ));
        }
        compare::write_stored(&path, bytes)
            .map_err(|e| format!("{}: cannot write {}: {e}", case.name, path.display()))?;
    }
    Ok(())
}

/// Checks `cases` on a few threads (each case is a process of its own) and
/// fails with every difference found.
fn check_all(cases: Vec<Case>) {
    let root = repo_root();
    // A folder per call: the tests of this file run at once, and each
    // removes its own folder at the end.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let scratch = std::env::temp_dir().join(format!(
        "ftlsim-golden-{}-{}",
        std::process::id(),
        CALLS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut runnable = Vec::new();
    for case in cases {
        match case.needs.iter().find(|f| !root.join(f).is_file()) {
            Some(missing) => eprintln!("skipping golden case {}: {missing} not found", case.name),
            None => runnable.push(case),
        }
    }
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = runnable.get(i) else { break };
                if let Err(e) = check_case(case, &scratch) {
                    failures.lock().unwrap().push(e);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&scratch);
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} golden case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Every example config, each feature's variants, the crash test and
/// `validate --quick`, shrunk to run in seconds.
#[test]
fn runs_match_the_golden_files() {
    let traces = traces::Generated::new();
    check_all(cases::runs(&traces));
}

#[test]
fn log_on_log_quick_grid_matches_the_golden_files() {
    check_all(vec![case::grid("log-on-log", &[])]);
}

/// Ignored: 15 to 30 s on a shared 2-core machine; the runs above cover its
/// workloads and variants at a smaller size.
#[test]
#[ignore = "slow (about 30 s): run with --include-ignored before merging a redesign step"]
fn coldmap_quick_grid_matches_the_golden_files() {
    check_all(vec![
        case::grid("coldmap", &["--only", "fio,tpcc,sysbench,ycsb"]),
        case::grid_with_trace("coldmap", "homes", "homes.replay.0"),
    ]);
}

/// The corpus captures replayed under Coldmap's variants: about 2 s, so
/// not ignored; the stand-ins' files above are unchanged by them.
#[test]
fn coldmap_real_content_grid_matches_the_golden_files() {
    check_all(vec![case::coldmap_real()]);
}

/// Ignored for its time, like the coldmap grid.
#[test]
#[ignore = "slow (about 20 s): run with --include-ignored before merging a redesign step"]
fn pcstream_quick_grid_matches_the_golden_files() {
    check_all(vec![case::grid("pcstream", &[])]);
}

/// Ignored for its time, like the coldmap grid.
#[test]
#[ignore = "slow (about 17 s): run with --include-ignored before merging a redesign step"]
fn remapcom_quick_grid_matches_the_golden_files() {
    check_all(vec![case::grid("remapcom", &[])]);
}

/// The golden folder holds only files of the cases above, so a renamed or
/// dropped case cannot leave a file that nothing checks.
#[test]
fn every_golden_file_belongs_to_a_case() {
    let traces = traces::Generated::names_only();
    let mut names: Vec<String> = cases::runs(&traces).into_iter().map(|c| c.name).collect();
    names.extend(case::grid_names());
    let mut stray = Vec::new();
    for entry in std::fs::read_dir(expected_dir()).expect("tests/golden/expected") {
        let file = entry
            .unwrap()
            .file_name()
            .into_string()
            .expect("UTF-8 name");
        let case = file
            .strip_suffix(".json")
            .or_else(|| file.strip_suffix(".txt"))
            .unwrap_or(&file);
        if !names.iter().any(|n| n == case) {
            stray.push(file);
        }
    }
    assert!(
        stray.is_empty(),
        "files in tests/golden/expected that no case writes: {stray:?}"
    );
}
