//! `ftlsim capture`: runs a command with the program-context capture
//! library (capture/ftlsim_capture.c, built by build.rs and embedded here)
//! in `LD_PRELOAD`, logging every file write with its PC signatures.
//!
//! The log (text, one record a line; lines of different threads are not
//! in time order, as each thread buffers its own):
//! `F dev ino path` the first time a file is written;
//! `E time_ns pid tid op dev ino offset len pc_scan pc_walk` per call;
//! `N time_ns pid tid op dev ino pc_scan pc_walk path` for unlink, unlinkat,
//! rename (`rename-over` for the name a rename replaces);
//! `X time_ns dev ino logical_bytes physical_bytes length_bytes`: the
//! file's extents after each fsync/fdatasync and before unlink or rename.
//! PCs are hex; each is a sum of 5 (module, offset) values, so the same
//! call path gives the same PC in every run despite ASLR. `pc_walk` is 0
//! unless the frame walk is asked for (it costs microseconds per call).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use crate::error::{IoContext, LiveError, Result};

/// The capture library, as built for this machine.
pub const LIBRARY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libftlsim_capture.so"));

/// The test program with two distinct write paths (tests, docs).
pub fn test_program() -> &'static Path {
    Path::new(concat!(env!("OUT_DIR"), "/pc_paths"))
}

/// The library written out for one command's `LD_PRELOAD`, removed on drop.
pub struct Preload {
    lib: PathBuf,
    out: PathBuf,
    walk: bool,
}

impl Preload {
    /// Writes the library out; the log `out` is created empty.
    pub fn new(out: &Path, walk: bool) -> Result<Self> {
        std::fs::write(out, b"")
            .io_context(|| format!("--out {}: cannot create", out.display()))?;
        let out = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
        let lib = std::env::temp_dir().join(format!("libftlsim_capture-{}.so", std::process::id()));
        std::fs::write(&lib, LIBRARY).io_context(|| format!("cannot write {}", lib.display()))?;
        Ok(Self { lib, out, walk })
    }

    /// Sets the command's environment so that the library logs to `out`.
    pub fn apply<'a>(&self, cmd: &'a mut Command) -> &'a mut Command {
        cmd.env("LD_PRELOAD", &self.lib)
            .env("FTLSIM_CAPTURE_OUT", &self.out)
            .env("FTLSIM_CAPTURE_WALK", if self.walk { "1" } else { "0" })
    }
}

impl Drop for Preload {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.lib);
    }
}

/// Runs `command` with the capture library preloaded, writing its log to
/// `out` (created empty first); `walk` adds the frame-walk signature.
pub fn capture(out: &Path, command: &[OsString], walk: bool) -> Result<ExitStatus> {
    let Some(program) = command.first() else {
        return Err(LiveError::Input(
            "capture needs a command after `--`".into(),
        ));
    };
    let preload = Preload::new(out, walk)?;
    let mut cmd = Command::new(program);
    cmd.args(&command[1..]);
    preload
        .apply(&mut cmd)
        .status()
        .io_context(|| format!("cannot run {}", OsStr::new(program).to_string_lossy()))
}
