//! The simulated device behind the live one: a `Simulation` on its own
//! thread whose request source is a channel fed by the FUSE handler, so
//! the report is the one `ftlsim run` prints, built by the same loop.
//!
//! The FUSE thread never waits for the simulator beyond a full channel:
//! the simulator keeps pace with the host or the host waits, and which of
//! the two limits throughput is visible in `docs/live-device.md`.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use ftlsim::config::{Config, Precondition, WorkloadType};
use ftlsim::metrics::Counters;
use ftlsim::request::{Request, RequestSource};
use ftlsim::{Report, RunOptions, SimError, Simulation};
use ftlsim_trace::{NativeWriter, TraceRecord};

use crate::error::{IoContext, LiveError, Result};
use crate::handler::{LiveRequest, RequestSink};
use crate::notice::{Notice, Notify};

/// Requests in flight between the FUSE handler and the simulator: enough
/// to ride out a GC burst, bounded so memory is too.
pub const CHANNEL_REQUESTS: usize = 4096;

impl RequestSink for SyncSender<LiveRequest> {
    fn send(&mut self, req: LiveRequest) -> bool {
        SyncSender::send(self, req).is_ok()
    }
}

/// The config of a live run: the device, FTL and host layers as given; the
/// workload is whatever the host does, all of it measured (no
/// preconditioning, no warm-up, no page or request budget), exactly as
/// `ftlsim run` replays the recorded trace.
pub fn live_config(mut cfg: Config, record: Option<&Path>) -> Config {
    cfg.workload.kind = WorkloadType::Trace;
    // What `ftlsim run` needs to replay the run; without a recording the
    // path only names where the requests came from.
    cfg.workload.trace.path = match record {
        Some(p) => std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string(),
        None => "(live device)".to_string(),
    };
    cfg.workload.trace.format = Some("native".to_string());
    cfg.workload.precondition = Precondition::None;
    cfg.workload.warmup = None;
    cfg.workload.writes = None;
    cfg.workload.requests = None;
    cfg
}

/// Requests from the channel; each is also written to the recorded trace
/// as the simulator takes it, so the trace holds exactly what it saw.
struct ChannelSource {
    rx: Receiver<LiveRequest>,
    record: Option<Recording>,
    /// Where a recording error is left for the caller (the run stops too).
    record_error: Arc<Mutex<Option<String>>>,
}

struct Recording {
    writer: NativeWriter<BufWriter<File>>,
    rec: TraceRecord,
    page_bytes: u64,
    path: PathBuf,
}

impl Recording {
    fn write(&mut self, req: &Request, hashes: &[u128]) -> std::io::Result<()> {
        let r = &mut self.rec;
        r.reset();
        r.time_ns = req.arrival_ns.unwrap_or(0);
        r.op = req.op;
        r.offset_bytes = req.lpn * self.page_bytes;
        r.length_bytes = u64::from(req.pages) * self.page_bytes;
        if req.context != 0 {
            r.context = Some(req.context);
        }
        r.fingerprints.extend_from_slice(hashes);
        self.writer.write(r)
    }
}

impl RequestSource for ChannelSource {
    fn next_request(&mut self, out: &mut Request) -> Result<bool, SimError> {
        let Ok(LiveRequest { req, hashes }) = self.rx.recv() else {
            if let Some(r) = self.record.take() {
                let path = r.path.clone();
                r.writer
                    .finish()
                    .map_err(|e| self.fail(format!("{}: {e}", path.display())))?;
            }
            return Ok(false);
        };
        if let Some(r) = self.record.as_mut() {
            if let Err(e) = r.write(&req, &hashes) {
                let msg = format!("{}: {e}", r.path.display());
                return Err(self.fail(msg));
            }
        }
        *out = req;
        Ok(true)
    }
}

impl ChannelSource {
    fn fail(&self, msg: String) -> SimError {
        *self.record_error.lock().expect("not poisoned") = Some(msg.clone());
        SimError::Source(msg)
    }
}

/// The newest counters the simulator reported (every few thousand
/// requests and at each WAF sample), for live statistics.
pub type LiveCounters = Arc<Mutex<Counters>>;

/// The simulation thread.
pub struct SimThread {
    handle: JoinHandle<Result<Report>>,
    pub counters: LiveCounters,
}

impl SimThread {
    /// Starts the simulator on `cfg` (a [`live_config`]), recording to
    /// `record` if given; an error that stops it is told to `notify` at
    /// once. Returns the thread and the handler's sink.
    pub fn spawn(
        cfg: Config,
        record: Option<&Path>,
        notify: Notify,
    ) -> Result<(Self, SyncSender<LiveRequest>)> {
        let (tx, rx) = std::sync::mpsc::sync_channel(CHANNEL_REQUESTS);
        let record = match record {
            Some(path) => {
                let file = File::create(path)
                    .io_context(|| format!("--record {}: cannot create", path.display()))?;
                let writer = NativeWriter::new(BufWriter::new(file))
                    .io_context(|| format!("--record {}", path.display()))?;
                Some(Recording {
                    writer,
                    rec: TraceRecord::default(),
                    page_bytes: u64::from(cfg.device.page_bytes),
                    path: path.to_path_buf(),
                })
            }
            None => None,
        };
        let counters: LiveCounters = Arc::default();
        let shared = Arc::clone(&counters);
        let handle = std::thread::Builder::new()
            .name("ftlsim-sim".into())
            .spawn(move || -> Result<Report> {
                let result = (|| -> Result<Report> {
                    let record_error = Arc::new(Mutex::new(None));
                    let source = ChannelSource {
                        rx,
                        record,
                        record_error: Arc::clone(&record_error),
                    };
                    let mut sim =
                        Simulation::with_source(&cfg, &RunOptions::default(), Box::new(source))?;
                    let mut progress = |p: ftlsim::Progress| {
                        *shared.lock().expect("not poisoned") = p.counters;
                    };
                    sim.run_phases(&mut progress)?;
                    if let Some(e) = record_error.lock().expect("not poisoned").take() {
                        return Err(LiveError::Recording(e));
                    }
                    Ok(sim.finish()?)
                })();
                // Said at once: the host sees only EIO from here on.
                if let Err(e) = &result {
                    notify(Notice::SimulationStopped(e.one_line()));
                }
                result
            })
            .io_context(|| "cannot start the simulation thread".into())?;
        Ok((Self { handle, counters }, tx))
    }

    /// Waits for the simulator to drain its input (every sender dropped)
    /// and returns its report.
    pub fn join(self) -> Result<Report> {
        self.handle
            .join()
            .map_err(|_| LiveError::SimulationPanicked)?
    }
}
