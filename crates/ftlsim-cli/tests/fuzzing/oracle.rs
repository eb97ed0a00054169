//! The oracle: what every run must do, whatever its input.
//!
//! * exit 0, or 2 with exactly one error line; 1 only where documented
//!   (`crash-test` when a cut fails); never a panic (`panicked at`, exit
//!   101), a signal (abort, out of memory) or the wall-clock budget;
//! * on exit 2, stderr ends with the one line `ftlsim: error: ...`, and
//!   every other line is an `ftlsim: ` status line;
//! * an error that names a config key (`config key `a.b``) or a flag
//!   (`--flag`) names one that exists or that the input itself wrote;
//! * input files are unchanged;
//! * input of a type no key takes (a section given as an array, an unknown
//!   key, a string for a count) is refused with exit 2;
//! * `--json` on success prints one JSON document.

use super::config::is_known_key;
use super::exec::Outcome;
use super::Case;

/// A failed case: `class` groups failures of one kind (for reduction and
/// for naming regression files), `detail` says what happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub class: String,
    pub detail: String,
}

fn fail(class: impl Into<String>, detail: impl Into<String>) -> Option<Failure> {
    Some(Failure {
        class: class.into(),
        detail: detail.into(),
    })
}

/// The panic's location (`crates/x/src/y.rs`, without line) and message.
fn panic_site(stderr: &str) -> Option<(String, String)> {
    let at = stderr.find("panicked at ")?;
    let rest = &stderr[at + "panicked at ".len()..];
    let loc = rest.split(':').next().unwrap_or("?").to_string();
    let msg = rest.lines().take(2).collect::<Vec<_>>().join(" ");
    Some((loc, msg))
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Keys and flags an error line names that neither exist nor came from
/// the input.
fn invented_names(case: &Case, line: &str) -> Vec<String> {
    let input = case.input_text();
    let mut out = Vec::new();
    for (i, _) in line.match_indices("config key `") {
        let rest = &line[i + "config key `".len()..];
        let key = rest.split('`').next().unwrap_or("");
        let last = key.rsplit('.').next().unwrap_or(key);
        let last = last.split('[').next().unwrap_or(last);
        if !is_known_key(key) && !has_word(&input, last) {
            out.push(format!("config key `{key}`"));
        }
    }
    for (i, _) in line.match_indices("--") {
        let flag: String = line[i..]
            .chars()
            .skip(2)
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        if flag.is_empty() || !flag.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        let flag = format!("--{flag}");
        let known = case.flags.contains(&flag) || case.argv().contains(&flag);
        if !known && !input.contains(&flag) {
            out.push(flag);
        }
    }
    out
}

/// Judges one run; `None` when it passed.
pub fn judge(case: &Case, out: &Outcome, timeout_s: u64) -> Option<Failure> {
    let stderr = out.stderr.trim_end();
    let tail = stderr.lines().last().unwrap_or("");
    if out.timed_out {
        return fail(
            format!("timeout {}", case.command),
            format!("no exit within {timeout_s} s; last stderr line: {tail}"),
        );
    }
    if let Some((loc, msg)) = panic_site(stderr) {
        return fail(format!("panic {loc}"), msg);
    }
    if let Some(sig) = out.signal {
        let class = if stderr.contains("memory allocation of") {
            "abort: allocation failed".to_string()
        } else if sig == libc::SIGXFSZ {
            "signal: output file over 256 MiB".to_string()
        } else {
            format!("signal {sig}")
        };
        return fail(class, format!("killed by signal {sig}; {tail}"));
    }
    let code = out.code.unwrap_or(-1);
    let exit_one_ok = case.command == "crash-test";
    if !(code == 0 || code == 2 || (code == 1 && exit_one_ok)) {
        return fail(format!("exit {code}"), tail.to_string());
    }
    if !out.inputs_changed.is_empty() {
        return fail(
            format!("input file changed by {}", case.command),
            format!("{} changed; exit {code}", out.inputs_changed.join(", ")),
        );
    }
    let rejects = case.rejects();
    if code != 2 && !rejects.is_empty() {
        return fail(
            "invalid input accepted",
            format!("exit {code} for {}", rejects.join("; ")),
        );
    }
    if code == 2 {
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let errors = lines
            .iter()
            .filter(|l| l.starts_with("ftlsim: error:"))
            .count();
        let stray = lines[..lines.len().saturating_sub(1)]
            .iter()
            .any(|l| !l.starts_with("ftlsim: ") || l.starts_with("ftlsim: error:"));
        if errors != 1 || !tail.starts_with("ftlsim: error:") || stray {
            return fail(
                "error is not one line",
                format!("stderr: {}", stderr.chars().take(400).collect::<String>()),
            );
        }
        let invented = invented_names(case, tail);
        if !invented.is_empty() {
            return fail(
                format!(
                    "error names a key or flag that does not exist: {}",
                    invented.join(", ")
                ),
                tail.to_string(),
            );
        }
    }
    if code == 0
        && case.argv().iter().any(|a| a == "--json")
        && serde_json::from_slice::<serde_json::Value>(&out.stdout).is_err()
    {
        return fail(
            "--json output is not JSON",
            String::from_utf8_lossy(&out.stdout)
                .chars()
                .take(200)
                .collect::<String>(),
        );
    }
    None
}
