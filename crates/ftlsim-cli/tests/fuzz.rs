//! Fuzzing the `ftlsim` binary through its real entry points (docs/fuzzing.md).
//!
//! * `fuzz_regressions`: replays every case in `tests/fuzz_regressions/`.
//! * `fuzz_random_cases`: FTLSIM_FUZZ_CASES random cases (default 3000,
//!   about a minute on two cores) of seed FTLSIM_FUZZ_SEED (default
//!   20261126), FTLSIM_FUZZ_JOBS at a time; each failure is shrunk and
//!   written as a regression file, and the test fails. FTLSIM_FUZZ_CASE=N runs case N alone and prints it.
//!
//! FTLSIM_FUZZ_VERBOSE=1 prints every case's outcome.
//!
//! A long campaign: `scripts/fuzz.sh CASES [SEED]`.

use crate::fuzzing;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fuzzing::exec::{run, Limits};
use fuzzing::oracle::{judge, Failure};
use fuzzing::{generate, reduce, regressions, Body, Case};

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| {
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: expected a number"))
    })
}

fn show(case: &Case) -> String {
    let mut s = format!("ftlsim {}", case.argv().join(" "));
    for f in &case.files {
        match &f.body {
            Body::Toml(doc) => s.push_str(&format!("\n--- {}:\n{}", f.name, doc.render())),
            Body::Bytes(b) => s.push_str(&format!("\n--- {}: {} bytes", f.name, b.len())),
        }
    }
    s
}

fn jobs() -> u64 {
    env_u64("FTLSIM_FUZZ_JOBS")
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get() as u64))
        .max(1)
}

#[test]
fn fuzz_regressions() {
    // A shrunk case runs in milliseconds: 10 s tells a hang as well as 20.
    let limits = Limits {
        timeout: Duration::from_secs(env_u64("FTLSIM_FUZZ_REPLAY_TIMEOUT_S").unwrap_or(10)),
        ..Limits::from_env()
    };
    let strict = std::env::var("FTLSIM_FUZZ_STRICT").is_ok_and(|v| v == "1");
    let all = regressions::load_all();
    let next = AtomicU64::new(0);
    let verdicts = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs() {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                let Some(r) = all.get(i) else { break };
                let out = run(&r.case, &limits);
                let verdict = judge(&r.case, &out, limits.timeout.as_secs());
                verdicts.lock().unwrap().push((i, verdict));
            });
        }
    });
    let mut verdicts = verdicts.into_inner().unwrap();
    verdicts.sort_by_key(|v| v.0);
    let (mut failed, mut open_failing, mut open_fixed, mut passed) = (vec![], vec![], vec![], 0);
    for (i, verdict) in verdicts {
        let r = &all[i];
        match (verdict, &r.open) {
            (None, None) => passed += 1,
            (None, Some(_)) => open_fixed.push(r.name.clone()),
            (Some(f), Some(why)) if !strict => open_failing.push(format!(
                "{}: {}: {} [open: {why}]",
                r.name, f.class, f.detail
            )),
            (Some(f), _) => failed.push(format!("{}: {}: {}", r.name, f.class, f.detail)),
        }
    }
    eprintln!(
        "fuzz regressions: {} replayed, {passed} pass, {} open and failing, {} open but passing",
        all.len(),
        open_failing.len(),
        open_fixed.len()
    );
    for line in &open_failing {
        eprintln!("  known, still open: {line}");
    }
    for name in &open_fixed {
        eprintln!("  open but now passing (delete its `# open:` line): {name}");
    }
    assert!(
        failed.is_empty(),
        "fuzz regressions failing:\n{}",
        failed.join("\n")
    );
}

/// A finished case: its index and, if it failed, how.
type Finding = (u64, Case, Failure);

#[test]
fn fuzz_random_cases() {
    let seed = env_u64("FTLSIM_FUZZ_SEED").unwrap_or(20_261_126);
    let limits = Limits::from_env();
    let timeout_s = limits.timeout.as_secs();
    if let Some(index) = env_u64("FTLSIM_FUZZ_CASE") {
        let case = generate::case(seed, index);
        eprintln!("seed {seed} case {index}:\n{}", show(&case));
        let out = run(&case, &limits);
        eprintln!(
            "exit {:?} signal {:?} timed out {} in {:.2} s\nstderr:\n{}",
            out.code,
            out.signal,
            out.timed_out,
            out.elapsed.as_secs_f64(),
            out.stderr
        );
        let verdict = judge(&case, &out, timeout_s);
        assert!(verdict.is_none(), "{verdict:?}");
        return;
    }
    let cases = env_u64("FTLSIM_FUZZ_CASES").unwrap_or(3000);
    let jobs = jobs();
    eprintln!(
        "fuzz: seed {seed}, {cases} cases, {jobs} at a time, {timeout_s} s each (replay: FTLSIM_FUZZ_SEED={seed} FTLSIM_FUZZ_CASE=N)"
    );
    let verbose = std::env::var("FTLSIM_FUZZ_VERBOSE").is_ok_and(|v| v == "1");
    let started = Instant::now();
    let next = AtomicU64::new(0);
    let findings: Mutex<Vec<Finding>> = Mutex::new(Vec::new());
    let tally: Mutex<BTreeMap<String, u64>> = Mutex::new(BTreeMap::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= cases {
                    break;
                }
                let case = generate::case(seed, i);
                let out = run(&case, &limits);
                let verdict = judge(&case, &out, timeout_s);
                let key = format!(
                    "{:<14} {}",
                    case.command,
                    match (&verdict, out.code) {
                        (Some(_), _) => "FAIL".to_string(),
                        (None, Some(c)) => format!("exit {c}"),
                        (None, None) => "?".to_string(),
                    }
                );
                if verbose {
                    let tail = out.stderr.trim_end().lines().last().unwrap_or("");
                    eprintln!(
                        "fuzz: case {i}: {key} {:.2} s: {tail}",
                        out.elapsed.as_secs_f64()
                    );
                }
                *tally.lock().unwrap().entry(key).or_default() += 1;
                if let Some(f) = verdict {
                    eprintln!("fuzz: case {i} FAILS: {}: {}", f.class, f.detail);
                    findings.lock().unwrap().push((i, case, f));
                }
                if i % 100 == 99 {
                    eprintln!(
                        "fuzz: {} cases, {:.0} s",
                        i + 1,
                        started.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    let elapsed = started.elapsed().as_secs_f64();
    eprintln!("fuzz: {cases} cases in {elapsed:.1} s");
    for (k, n) in tally.into_inner().unwrap() {
        eprintln!("  {k:<24} {n}");
    }
    let mut findings = findings.into_inner().unwrap();
    findings.sort_by_key(|f| f.0);
    // One regression per failure class and shrunk case, at most
    // FTLSIM_FUZZ_KEEP (3) per class in one run.
    let reduce_s = env_u64("FTLSIM_FUZZ_REDUCE_S").unwrap_or(60);
    let keep = env_u64("FTLSIM_FUZZ_KEEP").unwrap_or(3) as u32;
    let mut per_class: BTreeMap<String, u32> = BTreeMap::new();
    let mut kept: Vec<String> = Vec::new();
    let mut report = Vec::new();
    for (i, case, failure) in &findings {
        let n = per_class.entry(failure.class.clone()).or_default();
        *n += 1;
        if *n > keep {
            report.push(format!(
                "case {i}: {}: {} (not kept: class seen)",
                failure.class, failure.detail
            ));
            continue;
        }
        let small = reduce::reduce(case, failure, &limits, Duration::from_secs(reduce_s));
        let text = show(&small);
        if kept.contains(&text) {
            continue;
        }
        let name = regressions::write(&small, failure, seed, *i).expect("write a regression");
        report.push(format!(
            "case {i}: {}: {}\n  kept as {name}\n  {}",
            failure.class,
            failure.detail,
            text.replace('\n', "\n  ")
        ));
        kept.push(text);
    }
    assert!(
        findings.is_empty(),
        "fuzz: seed {seed}: {} of {cases} cases failed:\n{}",
        findings.len(),
        report.join("\n")
    );
}
