//! Regression files: a failing case kept in `tests/fuzz_regressions/` as
//! `NAME.args` (comments, then the command line, one argument a line) and
//! `NAME.FILE` for each input file `FILE`. Every run replays them all.
//!
//! ```text
//! # found: FTLSIM_FUZZ_SEED=20261126 FTLSIM_FUZZ_CASE=17
//! # failure: panic crates/ftlsim/src/timing/channel.rs: ...
//! # command: run
//! # flags: --set --json --out --check
//! # file: config.toml
//! # must-reject: section `device` given as `[...]`, not a table
//! # open: issue 24 (not fixed on this branch): reported, not failed
//! run
//! config.toml
//! ```
//!
//! A case with an `# open:` line is a known defect whose fix has not landed:
//! the replay lists it and goes on (FTLSIM_FUZZ_STRICT=1 fails on it too).
//! Delete the line when the fix lands.

use std::path::{Path, PathBuf};

use super::oracle::Failure;
use super::{Arg, Body, Case, FileSpec};

/// The folder of regression files (FTLSIM_FUZZ_REGRESSIONS overrides it).
pub fn dir() -> PathBuf {
    std::env::var_os("FTLSIM_FUZZ_REGRESSIONS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions"))
}

/// A kept case and what its file says about it.
pub struct Regression {
    pub name: String,
    pub case: Case,
    /// Why the defect is known and still open, if it is.
    pub open: Option<String>,
}

fn slug(text: &str) -> String {
    let mut s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    let s: String = s.trim_matches('-').chars().take(48).collect();
    s.trim_end_matches('-').to_string()
}

/// Writes `case` as a regression; returns its name.
pub fn write(case: &Case, failure: &Failure, seed: u64, index: u64) -> std::io::Result<String> {
    let dir = dir();
    std::fs::create_dir_all(&dir)?;
    let class = failure.class.rsplit('/').next().unwrap_or(&failure.class);
    let name = format!(
        "{}-s{seed}-c{index}",
        slug(&format!("{}-{class}", case.command))
    );
    let mut text = format!(
        "# found: FTLSIM_FUZZ_SEED={seed} FTLSIM_FUZZ_CASE={index}\n# failure: {}: {}\n# command: {}\n# flags: {}\n",
        failure.class,
        failure.detail.replace('\n', " "),
        case.command,
        case.flags.join(" ")
    );
    for f in &case.files {
        text.push_str(&format!("# file: {}\n", f.name));
        std::fs::write(dir.join(format!("{name}.{}", f.name)), f.bytes())?;
    }
    for r in case.rejects() {
        text.push_str(&format!("# must-reject: {}\n", r.replace('\n', " ")));
    }
    for a in case.argv() {
        text.push_str(&a);
        text.push('\n');
    }
    std::fs::write(dir.join(format!("{name}.args")), text)?;
    Ok(name)
}

/// Reads every regression, by name.
pub fn load_all() -> Vec<Regression> {
    let dir = dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".args")
                .map(str::to_string)
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(format!("{name}.args")))
                .expect("read a regression");
            parse(&dir, &name, &text)
        })
        .collect()
}

fn parse(dir: &Path, name: &str, text: &str) -> Regression {
    let mut case = Case {
        command: String::new(),
        args: Vec::new(),
        files: Vec::new(),
        flags: Vec::new(),
    };
    let mut open = None;
    let mut rejects = Vec::new();
    for line in text.lines() {
        let Some(comment) = line.strip_prefix('#') else {
            case.args.push(Arg::fixed(&[line]));
            continue;
        };
        let comment = comment.trim();
        if let Some(c) = comment.strip_prefix("command:") {
            case.command = c.trim().to_string();
        } else if let Some(f) = comment.strip_prefix("flags:") {
            case.flags = f.split_whitespace().map(str::to_string).collect();
        } else if let Some(f) = comment.strip_prefix("file:") {
            let file = f.trim().to_string();
            let bytes = std::fs::read(dir.join(format!("{name}.{file}")))
                .unwrap_or_else(|e| panic!("regression {name}: {name}.{file}: {e}"));
            case.files.push(FileSpec {
                name: file,
                body: Body::Bytes(bytes),
            });
        } else if let Some(r) = comment.strip_prefix("must-reject:") {
            rejects.push(r.trim().to_string());
        } else if let Some(o) = comment.strip_prefix("open:") {
            open = Some(o.trim().to_string());
        }
    }
    if !rejects.is_empty() {
        case.args.push(Arg {
            words: Vec::new(),
            removable: false,
            reject: Some(rejects.join("; ")),
        });
    }
    Regression {
        name: name.to_string(),
        case,
        open,
    }
}
