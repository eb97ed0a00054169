//! `ftlsim device`: the simulated SSD as a live block device (ftlsim-live).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use clap::Subcommand;
use ftlsim_live::command::Ended;

#[derive(Subcommand)]
pub enum DeviceCommand {
    /// Make a file system on a live simulated device, run COMMAND in it,
    /// unmount and print the report (docs/live-device.md). Needs root,
    /// /dev/fuse and the file system's tools. SIGINT, SIGTERM or SIGHUP stop
    /// the command (SIGKILL after 3 s), take everything down, print the
    /// report and exit 128 + the signal's number (130, 143, 129).
    Run {
        /// TOML config (device, ftl, host layers); omitted, the built-in defaults.
        config: Option<PathBuf>,
        /// Override a config key (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// Device size, e.g. 2GiB (device.blocks is fitted to it).
        #[arg(long)]
        size: String,
        /// File system to make: ext4, btrfs or xfs.
        #[arg(long, default_value = "ext4")]
        fs: String,
        /// Write a native trace of everything the device saw (`ftlsim run` replays it).
        #[arg(long, value_name = "TRACE")]
        record: Option<PathBuf>,
        /// Keep the device's bytes in this sparse file (created or
        /// truncated; trimmed pages become holes) instead of memory; needed
        /// above 8 GiB. Without ftl.dedup it is left behind as the device's image.
        #[arg(long, value_name = "FILE")]
        backing: Option<PathBuf>,
        /// Mount the file system here (a scratch directory otherwise).
        #[arg(long, value_name = "DIR")]
        mount: Option<PathBuf>,
        /// `on`: mount with `discard`, so deletions reach the FTL as trims;
        /// `off`: mount `nodiscard`, so the FTL learns of them only on
        /// overwrite (mkfs still discards the whole device first).
        #[arg(long, default_value = "on", value_name = "on|off")]
        discard: String,
        /// Run the command under the capture library (log CAP) and tag the
        /// recorded trace's writes with their PCs (needs --record; ext4 or xfs).
        #[arg(long, value_name = "CAP")]
        capture: Option<PathBuf>,
        /// Print the report as one JSON object, as `run --json` does.
        #[arg(long)]
        json: bool,
        /// The command to run in the mounted file system (after `--`).
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<OsString>,
    },
    /// Keep a live simulated device up until interrupted (Ctrl-C, SIGTERM,
    /// SIGHUP): its file is DIR/dev/disk (attach it with losetup), its
    /// statistics DIR/stats.json, rewritten every second. At the end it
    /// unmounts and detaches what is left on the file and prints the report.
    #[command(override_usage = "ftlsim device serve [OPTIONS] --size <SIZE> [CONFIG] <DIR>")]
    Serve {
        /// `[CONFIG] DIR`: the TOML config (device, ftl, host layers; the
        /// built-in defaults when only DIR is given), and the directory for
        /// dev/disk and stats.json (created if missing).
        #[arg(num_args = 1..=2, required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Override a config key (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// Device size, e.g. 2GiB (device.blocks is fitted to it).
        #[arg(long)]
        size: String,
        /// Write a native trace of everything the device saw.
        #[arg(long, value_name = "TRACE")]
        record: Option<PathBuf>,
        /// Keep the device's bytes in this sparse file (created or
        /// truncated; trimmed pages become holes) instead of memory; needed
        /// above 8 GiB. Without ftl.dedup it is left behind as the device's image.
        #[arg(long, value_name = "FILE")]
        backing: Option<PathBuf>,
        /// Print the report as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Remove what live devices killed without cleaning up (SIGKILL, a
    /// crash) left behind: file systems mounted from their loop devices,
    /// the loop devices, dead FUSE mounts, scratch directories. Prints what
    /// it removed; exits 0 when there is nothing (left) to remove.
    Cleanup,
}

/// Writes to stdout or stderr without the panic of `println!` on a failed
/// write: after SIGHUP the terminal may be gone, and a run that was
/// interrupted must still reach its exit status.
macro_rules! say {
    (out, $($arg:tt)*) => {{ let _ = writeln!(std::io::stdout(), $($arg)*); }};
    (err, $($arg:tt)*) => {{ let _ = writeln!(std::io::stderr(), $($arg)*); }};
}

/// A live device's teardown must not die of a closed pipe (`... | head`)
/// half-way: the writes fail instead, and `say!` ignores that.
fn ignore_sigpipe() {
    // SAFETY: sets the disposition of SIGPIPE to ignore; no handler runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// What the live device tells while it runs, on stderr as `ftlsim: ...`
/// (through `say!`: the teardown must go on when stderr is gone).
fn notify() -> ftlsim_live::Notify {
    std::sync::Arc::new(|n| say!(err, "ftlsim: {n}"))
}

/// The report as `ftlsim run` prints it (table or one JSON object).
fn print_report(json: bool, cfg: &ftlsim::Config, report: &ftlsim::Report) -> Result<()> {
    if json {
        say!(out, "{}", serde_json::to_string(report)?);
    } else {
        let _ = write!(
            std::io::stdout(),
            "{}",
            ftlsim_run::output::summary_table(cfg, report)
        );
    }
    let _ = std::io::stdout().flush();
    Ok(())
}

pub fn run_device_command(cmd: DeviceCommand) -> Result<ExitCode> {
    match cmd {
        DeviceCommand::Run {
            config,
            sets,
            size,
            fs,
            record,
            backing,
            mount,
            discard,
            capture,
            json,
            command,
        } => {
            let discard = match discard.as_str() {
                "on" => true,
                "off" => false,
                other => bail!("--discard: `{other}` is not on or off"),
            };
            let size_bytes = ftlsim_live::parse_size(&size).map_err(|e| anyhow!("--size: {e}"))?;
            let fs = fs
                .parse::<ftlsim_live::FsKind>()
                .map_err(|e| anyhow!("--fs: {e}"))?;
            let req = ftlsim_live::RunRequest {
                config,
                sets,
                size_bytes,
                fs,
                record: record.clone(),
                backing,
                mount,
                discard,
                capture,
                command,
            };
            ignore_sigpipe();
            let interrupt = ftlsim_live::Interrupt::install()?;
            let out = match ftlsim_live::run(&req, &interrupt, &notify()) {
                Ok(out) => out,
                Err(e) => return Ok(failed(e, &interrupt)),
            };
            let h = out.host;
            say!(err,
                "ftlsim: host sent {} writes ({} bytes), {} reads ({} bytes), {} discards ({} bytes), {} flushes",
                h.write_requests,
                h.write_bytes,
                h.read_requests,
                h.read_bytes,
                h.discard_requests,
                h.discard_bytes,
                h.flush_requests
            );
            if let Some(path) = &record {
                say!(
                    err,
                    "ftlsim: recorded {}; replay with: ftlsim run {}",
                    path.display(),
                    ftlsim_live::replay_config_path(path).display()
                );
            }
            if let Some(j) = &out.join {
                say!(err,
                    "ftlsim: joined the capture: {} of {} written pages ({} of {} write requests) tagged with a PC; {} distinct PCs",
                    j.tagged_pages, j.write_pages, j.tagged_records, j.write_records, j.pcs
                );
            }
            print_report(json, &out.cfg, &out.report)?;
            if let Some(i) = out.interrupted {
                say!(err, "ftlsim: {i}: {}", interrupted_how(out.ended));
                return Ok(ExitCode::from(i.exit_status()));
            }
            match out.ended {
                Some(e) if e.status().success() => Ok(ExitCode::SUCCESS),
                Some(e) => {
                    say!(
                        err,
                        "ftlsim: the command failed ({})",
                        ftlsim_live::command::describe(e.status())
                    );
                    // Killed by a signal of its own (Ctrl-C at the terminal
                    // goes to the command): 128 + N, as a shell reports it.
                    use std::os::unix::process::ExitStatusExt;
                    let code = e.status().signal().map_or(1, |s| (128 + s).min(255) as u8);
                    Ok(ExitCode::from(code))
                }
                None => Ok(ExitCode::from(1)),
            }
        }
        DeviceCommand::Serve {
            mut paths,
            sets,
            size,
            record,
            backing,
            json,
        } => {
            // One path is DIR; two are CONFIG DIR (clap gives 1 or 2).
            let dir = paths.pop().expect("clap requires DIR");
            let config = paths.pop();
            let size_bytes = ftlsim_live::parse_size(&size).map_err(|e| anyhow!("--size: {e}"))?;
            ftlsim_live::system::require_device()?;
            ignore_sigpipe();
            let interrupt = ftlsim_live::Interrupt::install()?;
            let req = ftlsim_live::serve::ServeRequest {
                config,
                sets,
                size_bytes,
                record,
                backing,
                dir: dir.clone(),
            };
            say!(
                err,
                "ftlsim: serving {} (statistics in {}); Ctrl-C to stop",
                ftlsim_live::serve::disk_path(&dir).display(),
                dir.join("stats.json").display()
            );
            let out = match ftlsim_live::serve::serve(&req, &interrupt, &notify()) {
                Ok(out) => out,
                Err(e) => return Ok(failed(e, &interrupt)),
            };
            for line in &out.took_down {
                say!(err, "ftlsim: {line}");
            }
            print_report(json, &out.cfg, &out.report)?;
            // A signal is how a served device is meant to stop: success.
            Ok(ExitCode::SUCCESS)
        }
        DeviceCommand::Cleanup => {
            ftlsim_live::system::require_device()?;
            let found = ftlsim_live::stale::find();
            let pending = ftlsim_live::stale::pending();
            if found.is_empty() {
                say!(err, "ftlsim: nothing to clean up");
            }
            for l in &pending {
                say!(
                    err,
                    "ftlsim: {} is detached already; the kernel frees it once the processes \
                     still using its lazily unmounted file system exit",
                    l.dev
                );
            }
            let mut failed = false;
            for left in &found {
                for line in ftlsim_live::stale::take_down(left, true) {
                    failed |= line.starts_with("could not");
                    say!(out, "{line}");
                }
            }
            Ok(if failed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

/// What became of the command of an interrupted run, and what was undone.
fn interrupted_how(ended: Option<Ended>) -> String {
    let command = match ended {
        None => {
            return "the command never started; what was set up was taken down; the report \
                    covers what reached the device"
                .into()
        }
        Some(Ended::Stopped { status, killed, .. }) => format!(
            "the command was passed the signal and ended ({}){}",
            ftlsim_live::command::describe(status),
            if killed {
                "; what was left of its process group was killed after the grace period"
            } else {
                ""
            }
        ),
        Some(Ended::Exited(status)) => format!(
            "the command had ended ({})",
            ftlsim_live::command::describe(status)
        ),
    };
    format!(
        "{command}; the file system was unmounted, the loop device and the FUSE mount removed; \
         the report covers what reached the device"
    )
}

/// A live command that failed: the error, and the exit status: 128 + the
/// signal's number when a signal had asked it to stop (the error is then
/// most likely what the stop did to the step under way), 2 otherwise.
fn failed(e: ftlsim_live::LiveError, interrupt: &ftlsim_live::Interrupt) -> ExitCode {
    if let Some(i) = e.interrupted() {
        say!(err, "ftlsim: {i}; everything done so far was undone");
        return ExitCode::from(i.exit_status());
    }
    // With its causes, as main prints every other error.
    let e = anyhow::Error::from(e);
    say!(err, "ftlsim: error: {e:#}");
    match interrupt.check("") {
        Err(i) => ExitCode::from(i.exit_status()),
        Ok(()) => ExitCode::from(2),
    }
}
