//! `ftlsim device run`: a live device, a loop device over it, a file
//! system, the command run inside it, and everything taken down again.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};

use anyhow::{bail, Context, Result};
use ftlsim::config::Config;
use ftlsim::Report;

use crate::capture::Preload;
use crate::device::{fitted_config, LiveDevice};
use crate::handler::HostCounters;
use crate::join::{self, CaptureLog, JoinStats};
use crate::system::{self, FsKind, LoopDevice, Mounted, ScratchDir};

/// What `ftlsim device run` was asked to do.
pub struct RunRequest {
    pub config: Option<PathBuf>,
    pub sets: Vec<String>,
    pub size_bytes: u64,
    pub fs: FsKind,
    pub record: Option<PathBuf>,
    /// Where to mount the file system (a scratch directory otherwise).
    pub mount: Option<PathBuf>,
    /// Mount with `discard` (deletes reach the FTL as trims) or without
    /// (`--discard off`: the FTL learns of deletions only on overwrite).
    pub discard: bool,
    /// Keep the device's bytes in this sparse file (in memory otherwise).
    pub backing: Option<PathBuf>,
    /// Run the command under the capture library, logging here, and join
    /// its file writes to the recorded trace (needs `record`).
    pub capture: Option<PathBuf>,
    /// The command and its arguments (run in the mounted file system).
    pub command: Vec<OsString>,
}

/// What a live run produced.
pub struct RunOutcome {
    pub cfg: Config,
    pub report: Report,
    pub host: HostCounters,
    /// How the command ended.
    pub status: ExitStatus,
    /// What the join of the capture found (with `capture`).
    pub join: Option<JoinStats>,
}

/// Runs the command on a fresh live device and returns the report.
pub fn run(req: &RunRequest) -> Result<RunOutcome> {
    let Some(program) = req.command.first() else {
        bail!("device run needs a command after `--`");
    };
    if req.capture.is_some() {
        if req.record.is_none() {
            bail!("--capture needs --record TRACE (the joined, PC-tagged trace is written there)");
        }
        if req.fs == FsKind::Btrfs {
            bail!("--capture needs --fs ext4 or xfs: btrfs's FIEMAP gives its own logical addresses, not the device's");
        }
    }
    // The config and --size first: a bad input is named wherever it runs,
    // before the checks of root, FUSE and mkfs.
    let cfg = fitted_config(
        req.config.as_deref(),
        &req.sets,
        req.size_bytes,
        req.record.as_deref(),
    )?;
    system::require(req.fs)?;
    let scratch = ScratchDir::new("live")?;
    let fuse_dir = scratch.sub("fuse")?;
    let device = LiveDevice::start(
        cfg,
        req.size_bytes,
        req.record.as_deref(),
        req.backing.as_deref(),
        &fuse_dir,
    )?;
    let preload = req
        .capture
        .as_deref()
        .map(|cap| Preload::new(cap, false))
        .transpose()?;
    let mut log = None;
    // Everything after the FUSE mount is undone by drop (reverse order)
    // if a step fails; on success each step is undone explicitly, so its
    // errors are reported.
    let status = {
        let lo = LoopDevice::attach(
            &LiveDevice::disk_path(&fuse_dir),
            device.cfg.device.page_bytes,
        )?;
        system::mkfs(req.fs, &lo.path)?;
        let mount_dir = match &req.mount {
            Some(d) => {
                std::fs::create_dir_all(d)
                    .with_context(|| format!("--mount {}: cannot create", d.display()))?;
                d.clone()
            }
            None => scratch.sub("mnt")?,
        };
        let mounted = Mounted::mount(req.fs, &lo.path, &mount_dir, req.discard)?;
        let status = run_in(program, &req.command[1..], mounted.dir(), preload.as_ref())?;
        if let Some(cap) = &req.capture {
            // Every file's data on the device before the last look at its extents.
            // SAFETY: sync(2) takes no arguments and cannot fail.
            unsafe { libc::sync() };
            let text = std::fs::read_to_string(cap)
                .with_context(|| format!("--capture {}: cannot read", cap.display()))?;
            let mut parsed =
                CaptureLog::parse(&text).with_context(|| format!("--capture {}", cap.display()))?;
            let last = join::final_extents(&parsed, join::monotonic_ns());
            parsed.extents.extend(last);
            log = Some(parsed);
        }
        mounted.unmount()?;
        drop(lo);
        status
    };
    let cfg = device.cfg.clone();
    let started_ns = device.started_monotonic_ns();
    let (report, host) = device.stop()?;
    let join = match (log, &req.record) {
        (Some(log), Some(trace)) => Some(
            join::join(trace, log, started_ns, u64::from(cfg.device.page_bytes))
                .context("--capture: the join to the recorded trace")?,
        ),
        _ => None,
    };
    Ok(RunOutcome {
        cfg,
        report,
        host,
        status,
        join,
    })
}

/// Runs the command with the mount as its working directory, and its path
/// in `FTLSIM_MOUNT`; under the capture library when `preload` is given.
fn run_in(
    program: &OsString,
    args: &[OsString],
    dir: &Path,
    preload: Option<&Preload>,
) -> Result<ExitStatus> {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(dir).env("FTLSIM_MOUNT", dir);
    if let Some(p) = preload {
        p.apply(&mut cmd);
    }
    cmd.status()
        .with_context(|| format!("cannot run {}", program.to_string_lossy()))
}
