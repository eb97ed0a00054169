//! The report's `lsm` section: the engine's counters over the measured
//! window, and the latency of its operations when they were timed.

use serde::Serialize;

use super::LsmSource;
use crate::app::lsm::LsmStats;
use crate::metrics::LayerStats;

impl LsmSource {
    /// The engine's counters over the measured window, and now.
    fn measured(&self) -> (LsmStats, LsmStats) {
        let now = self.db.stats();
        let start = self.stats_at_start.clone().unwrap_or_else(|| LsmStats {
            page_bytes: now.page_bytes,
            levels: vec![Default::default(); now.levels.len()],
            ..LsmStats::default()
        });
        (now.since(&start), now)
    }

    /// The engine as the top row of the report's `layers` (so that `tcwa`
    /// counts it), over the measured window. Its `wa` is the `lsm`
    /// section's `engine_wa`, exact in bytes; `write_pages_in` is the user
    /// bytes rounded up to pages. Compactions are its cleaning: pages they
    /// wrote below level 0 are its GC copies, each compaction a pass.
    pub fn layer_row(&self) -> LayerStats {
        let (s, _) = self.measured();
        let page_bytes = u64::from(s.page_bytes.max(1));
        LayerStats {
            name: "lsm".to_string(),
            write_pages_in: s.user_write_bytes.div_ceil(page_bytes),
            write_pages_out: s.file_write_pages,
            read_pages_out: s.file_read_pages,
            trim_pages_out: s.file_trim_pages,
            gc_copy_pages: s
                .levels
                .iter()
                .skip(1)
                .map(|l| l.compaction_write_pages)
                .sum(),
            gc_count: s.levels.iter().map(|l| l.compactions).sum(),
            wa: (s.user_write_bytes > 0).then(|| s.engine_wa()),
            ..LayerStats::default()
        }
    }

    /// The `lsm` section of the report: the measured window's counters.
    pub fn report(&mut self, waf: Option<f64>, sim_time_ns: Option<u64>) -> LsmReport {
        let (s, now) = self.measured();
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
        let kv_ops_per_sec = sim_time_ns
            .filter(|&t| t > 0)
            .map(|t| self.measured_ops as f64 * 1e9 / t as f64);
        // With background threads the writer's operations end before the
        // compactions they left behind: throughput is theirs, as a
        // benchmark client measures it. Inline, they are the same.
        let (throughput_ops_per_s, stall_us) = match (&self.bg, sim_time_ns) {
            (Some(bg), _) => (
                (bg.writer_done_ns > 0)
                    .then(|| self.measured_ops as f64 * 1e9 / bg.writer_done_ns as f64),
                Some(bg.stall_ns as f64 / 1e3),
            ),
            (None, Some(_)) => (kv_ops_per_sec, Some(0.0)),
            (None, None) => (None, None),
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
            kv_ops_per_sec,
            throughput_ops_per_s,
            stall_us,
            background_threads: sim_time_ns.map(|_| self.threads),
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
    /// Operations per simulated second (timing model on), to the end of
    /// the window (background work left behind included).
    pub kv_ops_per_sec: Option<f64>,
    /// Operations per simulated second to the completion of the last one
    /// (timing model on; the same as `kv_ops_per_sec` with inline compaction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_ops_per_s: Option<f64>,
    /// Simulated time writes waited: the 1 ms slowdowns at
    /// `lsm.l0_slowdown`, full memtables, `lsm.l0_stop` (timing model on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stall_us: Option<f64>,
    /// Background threads of the window (timing model on; 0: inline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_threads: Option<u32>,
    /// Simulated latency of an operation, first request's arrival to last
    /// request's completion (timing model on).
    pub kv_latency_p50_ns: Option<u64>,
    pub kv_latency_p99_ns: Option<u64>,
    pub kv_latency_p999_ns: Option<u64>,
    pub levels: Vec<LsmLevelReport>,
}
