//! Helpers shared by the binary's integration tests.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `ftlsim` binary built for these tests.
pub fn ftlsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ftlsim"))
        .args(args)
        .output()
        .expect("ftlsim runs")
}

/// Asserts that `out` is a successful run, showing its stderr if not.
pub fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The JSON a successful run printed on stdout.
pub fn ok_json(out: &Output) -> serde_json::Value {
    assert_ok(out);
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// A fresh, empty directory for one test (`suite` and `name` keep tests apart).
pub fn temp_dir(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ftlsim-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
