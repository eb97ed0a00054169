//! `ftlsim device`: the simulated SSD as a live block device (ftlsim-live).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Result};
use clap::Subcommand;

#[derive(Subcommand)]
pub enum DeviceCommand {
    /// Make a file system on a live simulated device, run COMMAND in it,
    /// unmount and print the report (docs/live-device.md). Needs root,
    /// /dev/fuse and the file system's tools.
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
    /// Keep a live simulated device up until interrupted (Ctrl-C): its file
    /// is DIR/dev/disk (attach it with losetup), its statistics
    /// DIR/stats.json, rewritten every second. Prints the report at the end.
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
            let out = ftlsim_live::run(&req)?;
            let h = out.host;
            eprintln!(
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
                eprintln!(
                    "ftlsim: recorded {}; replay with: ftlsim run {}",
                    path.display(),
                    ftlsim_live::replay_config_path(path).display()
                );
            }
            if let Some(j) = &out.join {
                eprintln!(
                    "ftlsim: joined the capture: {} of {} written pages ({} of {} write requests) tagged with a PC; {} distinct PCs",
                    j.tagged_pages, j.write_pages, j.tagged_records, j.write_records, j.pcs
                );
            }
            if json {
                println!("{}", serde_json::to_string(&out.report)?);
            } else {
                print!(
                    "{}",
                    ftlsim_run::output::summary_table(&out.cfg, &out.report)
                );
            }
            if out.status.success() {
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("ftlsim: the command failed ({})", out.status);
                Ok(ExitCode::from(1))
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
            let req = ftlsim_live::serve::ServeRequest {
                config,
                sets,
                size_bytes,
                record,
                backing,
                dir: dir.clone(),
            };
            eprintln!(
                "ftlsim: serving {} (statistics in {}); Ctrl-C to stop",
                ftlsim_live::serve::disk_path(&dir).display(),
                dir.join("stats.json").display()
            );
            let never = std::sync::atomic::AtomicBool::new(false);
            let out = ftlsim_live::serve::serve(&req, &never)?;
            if json {
                println!("{}", serde_json::to_string(&out.report)?);
            } else {
                print!(
                    "{}",
                    ftlsim_run::output::summary_table(&out.cfg, &out.report)
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
