//! One live device: a config fitted to the requested size, the byte store,
//! the handler, the simulation thread and the FUSE session, built together
//! and taken down in order.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ftlsim::config::Config;
use ftlsim::Report;
use ftlsim_trace::{check_not_input, OutputFile};

use crate::error::{IoContext, LiveError, Result};
use crate::fuse::{self, SharedHandler};
use crate::handler::{Handler, HostCounters, LiveRequest};
use crate::notice::Notify;
use crate::sim::{live_config, LiveCounters, SimThread};
use crate::store::PageStore;

/// Parses a device size: bytes, or a number with a binary unit (`KiB`,
/// `MiB`, `GiB`, `TiB`; `K`, `M`, `G`, `T` mean the same).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let shift = match unit.trim() {
        "" | "B" => 0,
        "K" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        "T" | "TiB" => 40,
        _ => {
            return Err(format!(
                "`{s}` is not a size (like 2GiB, 512MiB or 1048576)"
            ))
        }
    };
    let n: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size (like 2GiB, 512MiB or 1048576)"))?;
    let bytes = n * (1u64 << shift) as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < (1u64 << 50) as f64) {
        return Err(format!("`{s}` is not a size between 1 byte and 1 PiB"));
    }
    Ok(bytes as u64)
}

/// Loads the config and sets `device.blocks` so that the top of the host
/// stack offers at least `size_bytes` (a whole number of pages).
pub fn fitted_config(
    config: Option<&Path>,
    sets: &[String],
    size_bytes: u64,
    record: Option<&Path>,
) -> Result<Config> {
    // The recording and the replay config written beside it must not
    // replace the config this device is built from.
    if let (Some(record), Some(config)) = (record, config) {
        for out in [record.to_path_buf(), replay_config_path(record)] {
            check_not_input(&out, &[config])
                .io_context(|| format!("--record {}", record.display()))?;
        }
    }
    let base = ftlsim_run::load::load_config(config, sets)?;
    let page_bytes = u64::from(base.device.page_bytes);
    if size_bytes % page_bytes != 0 {
        return Err(LiveError::Input(format!(
            "--size {size_bytes} bytes is not a whole number of device.page_bytes = {page_bytes}"
        )));
    }
    let want_pages = size_bytes / page_bytes;
    // The fraction of physical pages the top of the stack offers, from the
    // config as given; then a few steps up for rounding.
    let ratio = base.host_pages() as f64 / base.physical_pages() as f64;
    if ratio <= 0.0 {
        return Err(LiveError::Input(
            "the config offers no logical pages at the top of its host stack".into(),
        ));
    }
    let ppb = u64::from(base.device.pages_per_block);
    let mut blocks = ((want_pages as f64 / ratio) / ppb as f64).ceil() as u64;
    let with_blocks = |blocks: u64| {
        let mut s = sets.to_vec();
        s.push(format!("device.blocks={blocks}"));
        ftlsim_run::load::load_config(config, &s)
    };
    for _ in 0..64 {
        let cfg = match with_blocks(blocks) {
            Ok(cfg) => cfg,
            // The config loads as given, so a smaller device is what fails
            // (too few blocks for its spare factor, streams or layers):
            // the size asked for is the culprit, not the key that noticed.
            Err(_) if blocks < u64::from(base.device.blocks) => {
                let smallest = smallest_blocks(blocks, u64::from(base.device.blocks), &|b| {
                    with_blocks(b).is_ok()
                });
                let offered = with_blocks(smallest)
                    .map(|c| c.host_pages() * page_bytes)
                    .unwrap_or(0);
                return Err(LiveError::Input(format!(
                    "--size {size_bytes} bytes is below the smallest device this config allows: \
                     {offered} bytes (device.blocks = {smallest})"
                )));
            }
            Err(e) => return Err(e.into()),
        };
        if cfg.host_pages() >= want_pages {
            return Ok(live_config(cfg, record));
        }
        blocks += 1 + blocks / 1000;
    }
    Err(LiveError::Input(format!(
        "cannot fit device.blocks to --size {size_bytes} bytes"
    )))
}

/// The fewest blocks in (`failing`, `loading`] with which the config
/// loads, by bisection (`loading` does, `failing` does not).
fn smallest_blocks(mut failing: u64, mut loading: u64, loads: &dyn Fn(u64) -> bool) -> u64 {
    while loading - failing > 1 {
        let mid = failing + (loading - failing) / 2;
        if loads(mid) {
            loading = mid;
        } else {
            failing = mid;
        }
    }
    loading
}

/// The largest device whose bytes are kept in memory without `--backing`.
/// The memory store only holds pages written, but a workload that writes
/// a large device full would hold all of them; above this size the bytes
/// go to a file the user names, so that the choice of disk is theirs.
pub const MEMORY_STORE_MAX_BYTES: u64 = 8 << 30;

/// The device's byte store: the sparse file `backing`, or memory (only up
/// to [`MEMORY_STORE_MAX_BYTES`]).
fn page_store(
    pages: u64,
    page_bytes: u32,
    dedup: bool,
    backing: Option<&Path>,
) -> Result<PageStore> {
    let size_bytes = pages * u64::from(page_bytes);
    match backing {
        Some(path) => PageStore::file(path, pages, page_bytes, dedup)
            .io_context(|| format!("--backing {}", path.display())),
        None if size_bytes > MEMORY_STORE_MAX_BYTES => Err(LiveError::Input(format!(
            "--size: a device over {} GiB keeps its bytes in a sparse file: pass --backing FILE \
             (on a disk with room for the data written)",
            MEMORY_STORE_MAX_BYTES >> 30
        ))),
        None => Ok(PageStore::new(pages, page_bytes, dedup)),
    }
}

/// A live device up and mounted through FUSE (the file `DIR/disk`).
pub struct LiveDevice {
    pub cfg: Config,
    pub handler: SharedHandler<std::sync::mpsc::SyncSender<LiveRequest>>,
    session: Option<fuser::BackgroundSession>,
    sim: SimThread,
}

impl LiveDevice {
    /// Builds the device of `cfg` (from [`fitted_config`]) exposing
    /// `size_bytes`, records to `record` when given, keeps its bytes in
    /// the sparse file `backing` when given (in memory otherwise), and
    /// mounts its FUSE file system at `dir`. What the user must know while
    /// it runs (the simulation stopped, the backing file failed) goes to
    /// `notify`.
    pub fn start(
        cfg: Config,
        size_bytes: u64,
        record: Option<&Path>,
        backing: Option<&Path>,
        dir: &Path,
        notify: &Notify,
    ) -> Result<Self> {
        ftlsim_run::check_memory(&cfg)?;
        if let Some(path) = record {
            write_replay_config(&cfg, path)?;
        }
        let page_bytes = cfg.device.page_bytes;
        let pages = size_bytes / u64::from(page_bytes);
        let dedup = cfg.ftl.dedup;
        let store = page_store(pages, page_bytes, dedup, backing)?;
        let (sim, tx) = SimThread::spawn(cfg.clone(), record, Arc::clone(notify))?;
        let handler = Arc::new(Mutex::new(Handler::new(
            store,
            size_bytes,
            tx,
            dedup || record.is_some(),
        )));
        let session = fuse::mount(Arc::clone(&handler), dir, Arc::clone(notify))
            .io_context(|| format!("cannot mount the FUSE file system at {}", dir.display()))?;
        Ok(Self {
            cfg,
            handler,
            session: Some(session),
            sim,
        })
    }

    /// The device file.
    pub fn disk_path(dir: &Path) -> std::path::PathBuf {
        dir.join(fuse::DISK_NAME)
    }

    /// When the recorded trace's times start, on `CLOCK_MONOTONIC` (ns).
    pub fn started_monotonic_ns(&self) -> u64 {
        self.handler
            .lock()
            .expect("not poisoned")
            .started_monotonic_ns()
    }

    pub fn host_counters(&self) -> HostCounters {
        self.handler.lock().expect("not poisoned").counters()
    }

    pub fn device_counters(&self) -> LiveCounters {
        Arc::clone(&self.sim.counters)
    }

    /// Unmounts the FUSE file system, lets the simulator drain what the
    /// host sent and returns its report and the host-side counters.
    pub fn stop(mut self) -> Result<(Report, HostCounters)> {
        if let Some(s) = self.session.take() {
            s.umount_and_join()
                .io_context(|| "cannot unmount the FUSE file system".into())?;
        }
        let host = self.host_counters();
        // The last handle on the sender: dropping it ends the simulator's input.
        drop(self.handler);
        let report = self.sim.join()?;
        Ok((report, host))
    }
}

/// Where the config that replays a recorded trace is written: next to it,
/// `TRACE.toml`.
pub fn replay_config_path(trace: &Path) -> PathBuf {
    let mut name = trace.as_os_str().to_owned();
    name.push(".toml");
    PathBuf::from(name)
}

/// Writes the live device's whole config (the fitted device, the trace as
/// its workload), so that `ftlsim run TRACE.toml` replays the run.
fn write_replay_config(cfg: &Config, trace: &Path) -> Result<()> {
    let text = toml::to_string(cfg).map_err(LiveError::Toml)?;
    let path = replay_config_path(trace);
    OutputFile::write_all_to(&path, &[], text.as_bytes())
        .io_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_device_without_a_backing_file_is_refused() {
        let pages = (MEMORY_STORE_MAX_BYTES >> 12) + 1;
        let err = page_store(pages, 4096, false, None).err().expect("refused");
        assert!(err.to_string().contains("pass --backing FILE"), "{err}");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("1.5KiB"), Ok(1536));
        assert!(parse_size("2GB").is_err());
        assert!(parse_size("").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn fitted_device_offers_the_size() {
        let cfg = fitted_config(None, &[], 64 << 20, None).unwrap();
        assert!(cfg.host_pages() >= (64 << 20) / 4096);
        assert!(
            cfg.host_pages() < (66 << 20) / 4096,
            "not far above the size"
        );
        let err = fitted_config(None, &[], 1000, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("page_bytes"), "{err}");
    }
}
