//! `ftlsim device run`: a live device, a loop device over it, a file
//! system, the command run inside it, and everything taken down again —
//! also when a signal interrupts any of it (docs/live-device.md,
//! Interruption and recovery).

use std::ffi::OsString;
use std::path::PathBuf;

use ftlsim::config::Config;
use ftlsim::Report;

use crate::capture::Preload;
use crate::command::{self, Ended};
use crate::device::{fitted_config, LiveDevice};
use crate::error::{IoContext, LiveError, Result, StepContext};
use crate::handler::HostCounters;
use crate::interrupt::{Interrupt, Interrupted};
use crate::join::{self, CaptureLog, JoinStats};
use crate::notice::{Notice, Notify};
use crate::stale;
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
    /// How the command ended; `None` when a signal came before it started.
    pub ended: Option<Ended>,
    /// The signal that stopped the run, and the step it stopped. The mounts,
    /// loop device and FUSE mount were taken down all the same, and the
    /// report covers what reached the device until then.
    pub interrupted: Option<Interrupted>,
    /// What the join of the capture found (with `capture`; not after an
    /// interruption).
    pub join: Option<JoinStats>,
}

impl RunOutcome {
    /// The command ran to the end and succeeded, uninterrupted.
    pub fn succeeded(&self) -> bool {
        self.interrupted.is_none() && self.ended.is_some_and(|e| e.status().success())
    }
}

/// Runs the command on a fresh live device and returns the report. When
/// `interrupt` is raised (by a signal, or by another thread), the step
/// under way is stopped — the command gets the signal, then SIGKILL after
/// [`command::GRACE`] — everything done so far is undone, and the outcome
/// says so; a raise before the device exists fails with [`Interrupted`].
/// What the user must know while it runs goes to `notify`.
pub fn run(req: &RunRequest, interrupt: &Interrupt, notify: &Notify) -> Result<RunOutcome> {
    let Some(program) = req.command.first() else {
        return Err(LiveError::Input(
            "device run needs a command after `--`".into(),
        ));
    };
    if req.capture.is_some() {
        if req.record.is_none() {
            return Err(LiveError::Input(
                "--capture needs --record TRACE (the joined, PC-tagged trace is written there)"
                    .into(),
            ));
        }
        if req.fs == FsKind::Btrfs {
            return Err(LiveError::Input(
                "--capture needs --fs ext4 or xfs: btrfs's FIEMAP gives its own logical \
                 addresses, not the device's"
                    .into(),
            ));
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
    check_leftovers(req, notify)?;
    interrupt.check("set-up")?;
    let scratch = ScratchDir::new("live")?;
    let fuse_dir = scratch.sub("fuse")?;
    let device = LiveDevice::start(
        cfg,
        req.size_bytes,
        req.record.as_deref(),
        req.backing.as_deref(),
        &fuse_dir,
        notify,
    )?;
    let preload = req
        .capture
        .as_deref()
        .map(|cap| Preload::new(cap, false))
        .transpose()?;
    let mut log = None;
    // Everything after the FUSE mount is undone by drop (reverse order)
    // if a step fails or a signal stops it; on success each step is undone
    // explicitly, so its errors are reported. The signal is looked at
    // after each step, and throughout the command.
    let host_side = (|| -> Result<Ended> {
        // Each check names the step that was under way when the signal came.
        interrupt.check("the FUSE mount")?;
        let lo = LoopDevice::attach(
            &LiveDevice::disk_path(&fuse_dir),
            device.cfg.device.page_bytes,
            notify,
        )?;
        interrupt.check("losetup")?;
        system::mkfs(req.fs, &lo.path)?;
        interrupt.check("mkfs")?;
        let mount_dir = match &req.mount {
            Some(d) => {
                std::fs::create_dir_all(d)
                    .io_context(|| format!("--mount {}: cannot create", d.display()))?;
                d.clone()
            }
            None => scratch.sub("mnt")?,
        };
        let mounted = Mounted::mount(req.fs, &lo.path, &mount_dir, req.discard, notify)?;
        interrupt.check("the mount")?;
        let ended = command::run_in(
            program,
            &req.command[1..],
            mounted.dir(),
            preload.as_ref(),
            interrupt,
        )?;
        let stopped = matches!(ended, Ended::Stopped { .. });
        if let (Some(cap), false) = (&req.capture, stopped) {
            // Every file's data on the device before the last look at its extents.
            // SAFETY: sync(2) takes no arguments and cannot fail.
            unsafe { libc::sync() };
            let text = std::fs::read_to_string(cap)
                .io_context(|| format!("--capture {}: cannot read", cap.display()))?;
            let mut parsed =
                CaptureLog::parse(&text).step_context(|| format!("--capture {}", cap.display()))?;
            let last = join::final_extents(&parsed, join::monotonic_ns());
            parsed.extents.extend(last);
            log = Some(parsed);
        }
        mounted.unmount()?;
        drop(lo);
        Ok(ended)
    })();
    let (ended, interrupted) = match host_side {
        Ok(ended @ Ended::Stopped { signal, .. }) => (
            Some(ended),
            Some(Interrupted {
                signal,
                during: "the command",
            }),
        ),
        // The command had finished when the signal came: the run is whole.
        Ok(ended) => (Some(ended), interrupt.check("the unmount").err()),
        // Stopped before the command: the drops above undid the steps.
        Err(e) => match e.interrupted() {
            Some(i) => (None, Some(*i)),
            None => return Err(e),
        },
    };
    let cfg = device.cfg.clone();
    let started_ns = device.started_monotonic_ns();
    let (report, host) = device.stop()?;
    let join = match (log, &req.record) {
        (Some(log), Some(trace)) => Some(
            join::join(trace, log, started_ns, u64::from(cfg.device.page_bytes))
                .step_context(|| "--capture: the join to the recorded trace".into())?,
        ),
        _ => None,
    };
    Ok(RunOutcome {
        cfg,
        report,
        host,
        ended,
        interrupted,
        join,
    })
}

/// Looks for what killed live devices left behind (a SIGKILLed run): one
/// warning naming it and `ftlsim device cleanup`, and the run goes on,
/// unless a leftover is in its way — a mount on `--mount DIR`, or (for
/// btrfs, whose mkfs stats every mount and fails on a dead FUSE one) a
/// dead FUSE mount anywhere; then it stops with the same advice.
fn check_leftovers(req: &RunRequest, notify: &Notify) -> Result<()> {
    let found = stale::find();
    if found.is_empty() {
        return Ok(());
    }
    let in_the_way = found.iter().any(|left| {
        let on_mount_dir = req.mount.as_ref().is_some_and(|d| {
            // mountinfo's paths are absolute; --mount may be relative.
            let d = std::path::absolute(d).unwrap_or_else(|_| d.clone());
            left.mounts.iter().any(|m| m.dir == d) || left.fuse_dir == d
        });
        on_mount_dir || (req.fs == FsKind::Btrfs && left.fuse_mounted)
    });
    if in_the_way {
        return Err(LiveError::Input(format!(
            "{}; it is in this run's way",
            stale::warning(&found)
        )));
    }
    notify(Notice::Leftovers(stale::warning(&found)));
    Ok(())
}
