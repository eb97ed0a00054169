//! `ftlsim device serve`: a live device kept up until interrupted, its
//! file at `DIR/dev/disk` (attach it with `losetup`, make and mount file
//! systems on it as often as wanted), its statistics in `DIR/stats.json`,
//! rewritten every second.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ftlsim::{Config, Report};
use serde::Serialize;

use crate::device::{fitted_config, LiveDevice};
use crate::error::{IoContext, LiveError, Result};
use crate::handler::HostCounters;
use crate::interrupt::Interrupt;
use crate::notice::{Notice, Notify};
use crate::stale;

/// What `ftlsim device serve` was asked to do.
pub struct ServeRequest {
    pub config: Option<PathBuf>,
    pub sets: Vec<String>,
    pub size_bytes: u64,
    pub record: Option<PathBuf>,
    /// Keep the device's bytes in this sparse file (in memory otherwise).
    pub backing: Option<PathBuf>,
    pub dir: PathBuf,
}

/// What a served device did, once stopped.
pub struct ServeOutcome {
    /// The config it ran (fitted to the size).
    pub cfg: Config,
    pub report: Report,
    pub host: HostCounters,
    /// What the user left on the device and the stop took down (file
    /// systems unmounted, loop devices detached), one line each.
    pub took_down: Vec<String>,
}

/// One `stats.json`.
#[derive(Serialize)]
struct Stats {
    elapsed_s: f64,
    size_bytes: u64,
    /// What the host sent, exact.
    host: HostCounters,
    /// The simulated device's counters, as of its last progress update
    /// (every 4096 requests and at each WAF sample: they may trail the
    /// host by that much).
    device: ftlsim::metrics::Counters,
    waf: Option<f64>,
}

/// Where the device file of a served device is.
pub fn disk_path(dir: &Path) -> PathBuf {
    LiveDevice::disk_path(&dir.join("dev"))
}

/// Serves until `stop` is raised (the CLI raises it on SIGINT, SIGTERM or
/// SIGHUP), then takes down the file systems and loop devices the user left
/// on the device (synced by umount while the device still answers),
/// unmounts FUSE and returns the report. Needs root and /dev/fuse. What
/// the user must know while it runs goes to `notify`.
pub fn serve(req: &ServeRequest, stop: &Interrupt, notify: &Notify) -> Result<ServeOutcome> {
    let cfg = fitted_config(
        req.config.as_deref(),
        &req.sets,
        req.size_bytes,
        req.record.as_deref(),
    )?;
    let fuse_dir = req.dir.join("dev");
    let found = stale::find();
    // mountinfo's paths are absolute; DIR may be relative.
    let absolute = std::path::absolute(&fuse_dir).unwrap_or_else(|_| fuse_dir.clone());
    if found.iter().any(|left| left.fuse_dir == absolute) {
        return Err(LiveError::Input(format!(
            "{}; it is in the way of {}",
            stale::warning(&found),
            fuse_dir.display()
        )));
    }
    if !found.is_empty() {
        notify(Notice::Leftovers(stale::warning(&found)));
    }
    stop.check("set-up")?;
    std::fs::create_dir_all(&fuse_dir)
        .io_context(|| format!("cannot create {}", fuse_dir.display()))?;
    let device = LiveDevice::start(
        cfg.clone(),
        req.size_bytes,
        req.record.as_deref(),
        req.backing.as_deref(),
        &fuse_dir,
        notify,
    )?;
    let started = Instant::now();
    let stats_path = req.dir.join("stats.json");
    let tmp_path = req.dir.join(".stats.json.tmp");
    loop {
        let device_counters = *device.device_counters().lock().expect("not poisoned");
        let stats = Stats {
            elapsed_s: started.elapsed().as_secs_f64(),
            size_bytes: req.size_bytes,
            host: device.host_counters(),
            device: device_counters,
            waf: (device_counters.host_write_pages > 0).then(|| device_counters.waf()),
        };
        // Written aside and renamed, so a reader never sees half a file.
        std::fs::write(&tmp_path, serde_json::to_vec_pretty(&stats)?)
            .and_then(|()| std::fs::rename(&tmp_path, &stats_path))
            .io_context(|| format!("cannot write {}", stats_path.display()))?;
        if stop.signal().is_some() {
            break;
        }
        // Checked ten times a second; written once a second.
        for _ in 0..10 {
            std::thread::sleep(Duration::from_millis(100));
            if stop.signal().is_some() {
                break;
            }
        }
    }
    // The FUSE unmount fails as busy while a loop device holds the file.
    let took_down = stale::take_down(&stale::users_of(&fuse_dir), false);
    let (report, host) = device.stop()?;
    Ok(ServeOutcome {
        cfg,
        report,
        host,
        took_down,
    })
}
