//! A YCSB run (`workload.type = "ycsb"`): key-value operations through the
//! LSM engine (`app::lsm`) and its file layer onto the SSD. The engine
//! issues its own block requests, so this loop drives operations rather
//! than requests: the device under the engine ([`LsmDevice`]) times each
//! request when the timing model is on, and the loop samples the WAF
//! series and reports progress between operations.

use serde::Serialize;

use super::recorder::Recorder;
use super::Progress;
use crate::app::lsm::{Db, Files, LsmStats, Value};
use crate::config::Config;
use crate::error::SimError;
use crate::ftl::Ssd;
use crate::hash::splitmix64;
use crate::metrics::{LayerStats, Phase};
use crate::request::{BlockDevice, Completion, Hint, Request};
use crate::timing::Timer;
use crate::workload::ycsb::{key_of, KvOp, Ycsb, YcsbDistribution, YcsbWorkload};

/// The SSD under the engine, with the timer while requests are timed.
pub struct LsmDevice {
    pub ssd: Ssd,
    pub timer: Option<Timer>,
    /// Earliest arrival and latest completion of the requests of the
    /// operation under way (timed only).
    op_first_ns: u64,
    op_last_ns: u64,
}

impl LsmDevice {
    fn new(ssd: Ssd) -> Self {
        Self {
            ssd,
            timer: None,
            op_first_ns: u64::MAX,
            op_last_ns: 0,
        }
    }
}

impl BlockDevice for LsmDevice {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        let Some(timer) = self.timer.as_mut() else {
            return self.ssd.submit(req);
        };
        let ticket = timer.begin(&mut self.ssd, req.op, req.pages, None)?;
        let result = self.ssd.submit(req);
        let done = timer.finish(&mut self.ssd, ticket, result.is_err());
        self.op_first_ns = self.op_first_ns.min(done.arrival_at);
        self.op_last_ns = self.op_last_ns.max(done.done_at);
        result
    }

    fn logical_pages(&self) -> u64 {
        u64::from(self.ssd.logical_pages())
    }

    fn layer_stats(&self, out: &mut Vec<LayerStats>) {
        self.ssd.layer_stats(out)
    }

    fn hint(&mut self, hint: Hint) {
        self.ssd.hint(hint)
    }

    fn begin_batch(&mut self) {
        if let Some(t) = self.timer.as_mut() {
            t.begin_batch();
        }
    }

    fn end_batch(&mut self) {
        if let Some(t) = self.timer.as_mut() {
            t.end_batch();
        }
    }
}

/// The engine and the operations of one YCSB run.
pub struct LsmRun {
    pub db: Db<LsmDevice>,
    workload: YcsbWorkload,
    ycsb: Ycsb,
    key_bytes: u32,
    value_bytes: u32,
    key: Vec<u8>,
    /// Operations issued so far (each value's checksum is drawn from it).
    ops: u64,
    /// The engine's counters when the measured window began.
    stats_at_start: Option<LsmStats>,
    measured_ops: u64,
    /// Simulated latency of each measured operation (timed runs).
    latencies_ns: Vec<u64>,
}

/// Progress is reported every this many operations.
const PROGRESS_EVERY_OPS: u64 = 4096;

impl LsmRun {
    pub fn new(cfg: &Config, ssd: Ssd) -> Result<Self, SimError> {
        let page_bytes = cfg.device.page_bytes;
        let db = Db::new(&cfg.lsm, Files::new(LsmDevice::new(ssd), page_bytes))?;
        let w = &cfg.workload;
        let distribution = w.ycsb_distribution.unwrap_or(w.ycsb.default_distribution());
        Ok(Self {
            db,
            workload: w.ycsb,
            ycsb: Ycsb::new(w.ycsb, distribution, w.records, w.seed),
            key_bytes: w.key_bytes,
            value_bytes: w.value_bytes,
            key: Vec::new(),
            ops: 0,
            stats_at_start: None,
            measured_ops: 0,
            latencies_ns: Vec::new(),
        })
    }

    pub fn ssd(&self) -> &Ssd {
        &self.db.files().device().ssd
    }

    pub fn ssd_mut(&mut self) -> &mut Ssd {
        &mut self.db.files_mut().device_mut().ssd
    }

    /// Moves the timer under the engine for the measured window.
    pub fn attach_timer(&mut self, timer: Option<Timer>) {
        self.db.files_mut().device_mut().timer = timer;
    }

    pub fn detach_timer(&mut self) -> Option<Timer> {
        self.db.files_mut().device_mut().timer.take()
    }

    /// Starts the measured window: the engine's counters from here on.
    pub fn start_measuring(&mut self) {
        self.stats_at_start = Some(self.db.stats());
        self.measured_ops = 0;
        self.latencies_ns.clear();
    }

    fn value(&mut self) -> Value {
        self.ops += 1;
        Value {
            len_bytes: self.value_bytes,
            checksum: splitmix64(self.ops),
        }
    }

    fn apply(&mut self, op: KvOp) -> Result<(), SimError> {
        let record = match op {
            KvOp::Insert(r)
            | KvOp::Read(r)
            | KvOp::Update(r)
            | KvOp::ReadModifyWrite(r)
            | KvOp::Scan(r, _) => r,
        };
        let mut key = std::mem::take(&mut self.key);
        key_of(record, self.key_bytes, &mut key);
        let result = match op {
            KvOp::Insert(_) | KvOp::Update(_) => {
                let v = self.value();
                self.db.put(&key, v)
            }
            KvOp::Read(_) => self.db.get(&key).map(|_| ()),
            KvOp::ReadModifyWrite(_) => self.db.get(&key).and_then(|_| {
                let v = self.value();
                self.db.put(&key, v)
            }),
            KvOp::Scan(_, len) => self.db.scan(&key, len).map(|_| ()),
        };
        self.key = key;
        result
    }

    /// Runs `count` operations: the load's inserts (`load`), or the
    /// workload's operations.
    #[allow(clippy::too_many_arguments)]
    pub fn drive(
        &mut self,
        load: bool,
        count: u64,
        recorder: &mut Recorder,
        phase: Phase,
        done_before: u64,
        total: u64,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(), SimError> {
        let measuring = self.stats_at_start.is_some();
        let mut loader =
            load.then(|| Ycsb::new(YcsbWorkload::Load, YcsbDistribution::Uniform, 0, 0));
        for i in 0..count {
            let op = match &mut loader {
                Some(l) => l.next_op(),
                None => self.ycsb.next_op(),
            };
            {
                let dev = self.db.files_mut().device_mut();
                dev.op_first_ns = u64::MAX;
                dev.op_last_ns = 0;
            }
            self.apply(op)?;
            if measuring {
                self.measured_ops += 1;
                let dev = self.db.files().device();
                if dev.timer.is_some() && dev.op_first_ns != u64::MAX {
                    self.latencies_ns.push(dev.op_last_ns - dev.op_first_ns);
                }
            }
            let ssd = &self.db.files().device().ssd;
            let sampled = recorder.due(ssd);
            if sampled {
                recorder.sample(ssd, phase)?;
            }
            if sampled || (i + 1) % PROGRESS_EVERY_OPS == 0 || i + 1 == count {
                progress(Progress {
                    phase,
                    done: done_before + i + 1,
                    total,
                    counters: ssd.counters,
                });
                if recorder.cancelled() {
                    return Err(SimError::Interrupted);
                }
            }
        }
        Ok(())
    }

    /// Checks the engine's, the file layer's and the device's invariants.
    pub fn check_invariants(&self) -> Result<(), SimError> {
        self.db.check_invariants().map_err(SimError::Invariant)?;
        self.ssd().check_invariants()
    }

    /// The `lsm` section of the report: the measured window's counters.
    pub fn report(&mut self, waf: Option<f64>, sim_time_ns: Option<u64>) -> LsmReport {
        let now = self.db.stats();
        let start = self.stats_at_start.clone().unwrap_or_else(|| LsmStats {
            page_bytes: now.page_bytes,
            levels: vec![Default::default(); now.levels.len()],
            ..LsmStats::default()
        });
        let s = now.since(&start);
        let engine_wa = s.engine_wa();
        let levels = s
            .levels
            .iter()
            .enumerate()
            .map(|(level, l)| LsmLevelReport {
                compaction_write_pages: l.compaction_write_pages,
                compaction_read_pages: l.compaction_read_pages,
                wa: s.level_wa(level),
                udb_ratio: l.udb_ratio(),
                udb_blocks: l.udb_blocks,
                output_blocks: l.output_blocks,
                remapped_pages: l.remapped_pages,
                compactions: l.compactions,
                tables: now.levels[level].tables,
                bytes: now.levels[level].bytes,
            })
            .collect();
        self.latencies_ns.sort_unstable();
        let pct = |p: f64| -> Option<u64> {
            let n = self.latencies_ns.len();
            (n > 0).then(|| self.latencies_ns[((n as f64 * p) as usize).min(n - 1)])
        };
        LsmReport {
            ycsb: self.workload.name().to_string(),
            remap: self.db.config().remap.name().to_string(),
            kv_operations: self.measured_ops,
            user_write_bytes: s.user_write_bytes,
            engine_wa,
            device_waf: waf,
            tcwa: waf.map(|w| w * engine_wa),
            wal_write_pages: s.wal_write_pages,
            flush_write_pages: s.flush_write_pages,
            file_write_pages: s.file_write_pages,
            file_read_pages: s.file_read_pages,
            udb_blocks: s.udb_blocks(),
            udb_ratio: {
                let out: u64 = s.levels.iter().map(|l| l.output_blocks).sum();
                if out == 0 {
                    0.0
                } else {
                    s.udb_blocks() as f64 / out as f64
                }
            },
            unchanged_input_blocks: s.levels.iter().map(|l| l.unchanged_input_blocks).sum(),
            remapped_blocks: s.levels.iter().map(|l| l.remapped_blocks).sum(),
            remapped_pages: s.remapped_pages(),
            seek_compactions: s.seek_compactions,
            kv_ops_per_sec: sim_time_ns
                .filter(|&t| t > 0)
                .map(|t| self.measured_ops as f64 * 1e9 / t as f64),
            kv_latency_p50_ns: pct(0.50),
            kv_latency_p99_ns: pct(0.99),
            kv_latency_p999_ns: pct(0.999),
            levels,
        }
    }
}

/// One level in the report's `lsm` section, over the measured window.
#[derive(Debug, Clone, Serialize)]
pub struct LsmLevelReport {
    /// Pages written into the level (memtable flushes at level 0), not
    /// counting pages remapped.
    pub compaction_write_pages: u64,
    pub compaction_read_pages: u64,
    /// The level's share of the engine WA: its bytes written per user byte.
    pub wa: f64,
    /// Share of the data blocks merged into the level that were unchanged.
    pub udb_ratio: f64,
    pub udb_blocks: u64,
    pub output_blocks: u64,
    pub remapped_pages: u64,
    pub compactions: u64,
    /// Tables and bytes at the level at the end.
    pub tables: u64,
    pub bytes: u64,
}

/// The report's `lsm` section (YCSB runs), over the measured window.
#[derive(Debug, Clone, Serialize)]
pub struct LsmReport {
    pub ycsb: String,
    pub remap: String,
    pub kv_operations: u64,
    /// Key and value bytes of every put and delete.
    pub user_write_bytes: u64,
    /// Bytes written to the file layer per user byte.
    pub engine_wa: f64,
    /// The device's WAF over the window (as `waf`).
    pub device_waf: Option<f64>,
    /// NAND bytes programmed per user byte: `engine_wa × device_waf`.
    pub tcwa: Option<f64>,
    pub wal_write_pages: u64,
    pub flush_write_pages: u64,
    pub file_write_pages: u64,
    pub file_read_pages: u64,
    /// Output data blocks identical to an input block of their merge.
    pub udb_blocks: u64,
    pub udb_ratio: f64,
    /// Input blocks RemapCom's state machine found unchanged.
    pub unchanged_input_blocks: u64,
    pub remapped_blocks: u64,
    pub remapped_pages: u64,
    /// Compactions of tables that ran out of seeks (`lsm.seek_compaction`).
    pub seek_compactions: u64,
    /// Operations per simulated second (timing model on).
    pub kv_ops_per_sec: Option<f64>,
    /// Simulated latency of an operation, first request's arrival to last
    /// request's completion (timing model on).
    pub kv_latency_p50_ns: Option<u64>,
    pub kv_latency_p99_ns: Option<u64>,
    pub kv_latency_p999_ns: Option<u64>,
    pub levels: Vec<LsmLevelReport>,
}
