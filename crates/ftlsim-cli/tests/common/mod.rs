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

/// A fresh, empty directory for one test (`suite` and `name` keep tests apart).
pub fn temp_dir(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ftlsim-{suite}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
