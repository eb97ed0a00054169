//! `ftlsim capture`: runs a command with the program-context capture
//! library (capture/ftlsim_capture.c, built by build.rs and embedded here)
//! in `LD_PRELOAD`, logging every file write with its PC signatures.
//!
//! The log (text, one record a line):
//! `F dev ino path` the first time a file is written;
//! `E time_ns pid tid op dev ino offset len pc_scan pc_walk` per call;
//! `N time_ns pid tid op pc_scan pc_walk path` for unlink/unlinkat/rename.
//! PCs are hex; each is a sum of 5 (module, offset) values, so the same
//! call path gives the same PC in every run despite ASLR.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitStatus};

use anyhow::{bail, Context, Result};

/// The capture library, as built for this machine.
pub const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libftlsim_capture.so"));

/// The test program with two distinct write paths (tests, docs).
pub fn test_program() -> &'static Path {
    Path::new(concat!(env!("OUT_DIR"), "/pc_paths"))
}

/// Runs `command` with the capture library preloaded, appending its log
/// to `out` (created empty first).
pub fn capture(out: &Path, command: &[OsString]) -> Result<ExitStatus> {
    let Some(program) = command.first() else {
        bail!("capture needs a command after `--`");
    };
    std::fs::write(out, b"").with_context(|| format!("--out {}: cannot create", out.display()))?;
    let out = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let lib = std::env::temp_dir().join(format!("libftlsim_capture-{}.so", std::process::id()));
    std::fs::write(&lib, LIBRARY).with_context(|| format!("cannot write {}", lib.display()))?;
    let status = Command::new(program)
        .args(&command[1..])
        .env("LD_PRELOAD", &lib)
        .env("FTLSIM_CAPTURE_OUT", &out)
        .status()
        .with_context(|| format!("cannot run {}", program.to_string_lossy()));
    let _ = std::fs::remove_file(&lib);
    status
}
