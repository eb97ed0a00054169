//! Shrinking a failing case: drop removable arguments, config entries and
//! sections, and chunks of trace lines, one at a time, keeping each drop
//! after which the case still fails the same way (same failure class).
//! Greedy, under a time budget, with a 4 s budget per run (a small valid
//! case takes well under a second); the result is checked once more with
//! the full limits.

use std::time::{Duration, Instant};

use super::exec::{run, Limits};
use super::oracle::{judge, Failure};
use super::{Body, Case};

/// Entries never dropped: without them the device falls back to the
/// built-in 4 GiB one, and a case that failed by its budget would go on
/// failing for a different reason (a valid run that takes a while).
fn protected(section: &str, key: &str) -> bool {
    section == "device" && (key == "blocks" || key == "pages_per_block")
}

/// Every case one step smaller than `case`.
fn candidates(case: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    for (i, arg) in case.args.iter().enumerate() {
        if arg.removable {
            let mut c = case.clone();
            c.args.remove(i);
            out.push(c);
        }
    }
    for (fi, file) in case.files.iter().enumerate() {
        match &file.body {
            Body::Toml(doc) => {
                for si in 0..doc.sections.len() {
                    let section = &doc.sections[si];
                    if !section
                        .entries
                        .iter()
                        .any(|e| protected(&section.name, &e.key))
                    {
                        let mut c = case.clone();
                        if let Body::Toml(d) = &mut c.files[fi].body {
                            d.sections.remove(si);
                        }
                        out.push(c);
                    }
                    for ei in 0..section.entries.len() {
                        if protected(&section.name, &section.entries[ei].key) {
                            continue;
                        }
                        let mut c = case.clone();
                        if let Body::Toml(d) = &mut c.files[fi].body {
                            d.sections[si].entries.remove(ei);
                        }
                        out.push(c);
                    }
                }
                for ti in 0..doc.top.len() {
                    let mut c = case.clone();
                    if let Body::Toml(d) = &mut c.files[fi].body {
                        d.top.remove(ti);
                    }
                    out.push(c);
                }
            }
            Body::Bytes(bytes) => {
                let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
                // Halves, quarters, eighths; single lines only in short files
                // (each candidate is a copy of the file).
                let mut chunk = lines.len() / 2;
                let smallest = if lines.len() <= 64 {
                    1
                } else {
                    lines.len() / 8
                };
                while chunk >= smallest.max(1) {
                    for start in (0..lines.len()).step_by(chunk) {
                        let mut c = case.clone();
                        let kept: Vec<u8> = lines
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| *i < start || *i >= start + chunk)
                            .flat_map(|(_, l)| l.iter().copied())
                            .collect();
                        c.files[fi].body = Body::Bytes(kept);
                        out.push(c);
                    }
                    chunk /= 2;
                }
            }
        }
    }
    out
}

/// The smallest case found within `budget` that fails like `failure`.
pub fn reduce(case: &Case, failure: &Failure, limits: &Limits, budget: Duration) -> Case {
    let started = Instant::now();
    let quick = Limits {
        timeout: limits.timeout.min(Duration::from_secs(4)),
        ..limits.clone()
    };
    let timeout_s = quick.timeout.as_secs();
    let same = |c: &Case, l: &Limits, t: u64| {
        judge(c, &run(c, l), t).is_some_and(|f| f.class == failure.class)
    };
    let mut best = case.clone();
    'outer: while started.elapsed() < budget {
        for c in candidates(&best) {
            if started.elapsed() >= budget {
                break 'outer;
            }
            if same(&c, &quick, timeout_s) {
                best = c;
                continue 'outer;
            }
        }
        break;
    }
    if best != *case && !same(&best, limits, limits.timeout.as_secs()) {
        return case.clone();
    }
    best
}
