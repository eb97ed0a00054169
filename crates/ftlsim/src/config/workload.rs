//! `[workload]`: the synthetic generator or the trace replayed, and the run's phases.

use serde::{Deserialize, Serialize};

use super::Amount;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadType {
    Uniform,
    HotCold,
    Zipf,
    Sequential,
    /// sysbench-like: `tables` equal regions of the span, a table chosen
    /// uniformly, a row within it from sysbench's Pareto (`pareto_h`).
    Tables,
    /// Replay of a block trace (`workload.trace.*`).
    Trace,
    /// PC-tagged application models (`app/pcapps`): a leveled LSM tree,
    /// a database in WAL mode, repeated builds, a size-tiered store.
    Rocksdb,
    Sqlite,
    Gcc,
    Cassandra,
    /// Several of the application models side by side (`workload.mix`).
    Mix,
    /// YCSB key-value operations through the LSM engine (`[lsm]`) and its
    /// file layer onto the device (`workload.ycsb`, `workload.records`, …).
    Ycsb,
    /// SepBIT's synthetic generator (FAST'22): Zipf(`zipf_alpha`) over a
    /// working set of `working_set_bytes`, whose hot fifth is reshuffled
    /// every `hot_shift_bytes` written (`workload/sepbit.rs`).
    SepbitSynthetic,
}

impl WorkloadType {
    /// Whether this is an application model (or a mix of them).
    pub fn is_app(self) -> bool {
        matches!(
            self,
            WorkloadType::Rocksdb
                | WorkloadType::Sqlite
                | WorkloadType::Gcc
                | WorkloadType::Cassandra
                | WorkloadType::Mix
        )
    }
}

/// The smallest span (pages) an application model runs in (`app/pcapps`).
pub const MIN_REGION_PAGES: u64 = 4096;

/// Where and how to read a trace for `workload.type = "trace"`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TraceConfig {
    pub path: String,
    /// Format name, one of ftlsim-trace's `Format::NAMES` (`ftlsim trace stats
    /// --help` lists them; not copied here, where a new format would leave the
    /// list stale); detected from the content when absent.
    pub format: Option<String>,
    /// Replay only this device or volume (a number, `maj,min`, or a name).
    pub device: Option<String>,
    /// Renumber touched pages densely so a large volume fits the device.
    pub compact: bool,
    /// Passes over the trace.
    pub repeat: u32,
    /// Time unit of formats that need one (s, ms, us, ns).
    pub time_unit: Option<String>,
    /// blkparse event to replay (D by default).
    pub blkparse_action: Option<String>,
    /// Skip unparsable lines (and report how many) instead of stopping.
    pub skip_bad_lines: bool,
    /// Spread each whole second's requests evenly over that second, as
    /// SepBIT does for Tencent CBS's 1-second timestamps. Left out of a
    /// written config when off, so configs written before it read the same.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub spread_seconds: bool,
    /// What the replay does with the trace's trims: `keep` them, or `drop`
    /// them, so that the FTL learns of dead data only when it is
    /// overwritten (a file system mounted without `discard`).
    pub trims: TraceTrims,
}

/// `workload.trace.trims`: whether a replay passes the trace's trims on.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TraceTrims {
    #[default]
    Keep,
    Drop,
}

impl Default for TraceConfig {
    fn default() -> Self {
        Self {
            path: String::new(),
            format: None,
            device: None,
            compact: false,
            repeat: 1,
            time_unit: None,
            blkparse_action: None,
            skip_bad_lines: false,
            spread_seconds: false,
            trims: TraceTrims::Keep,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Precondition {
    None,
    SequentialFill,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadConfig {
    #[serde(rename = "type")]
    pub kind: WorkloadType,
    /// Host page writes in the measured window. Exclusive with `requests`.
    pub writes: Option<Amount>,
    /// Requests of every kind in the measured window (for read/write/trim mixes).
    pub requests: Option<u64>,
    /// Host page writes run after preconditioning and excluded from the
    /// measurement. Default: 2x for synthetic workloads, none for traces.
    pub warmup: Option<Amount>,
    pub seed: u64,
    /// r: fraction of writes that go to the hot region.
    pub hot_write_fraction: f64,
    /// f: fraction of the addressed space that is hot.
    pub hot_space_fraction: f64,
    pub zipf_theta: f64,
    pub read_fraction: f64,
    pub trim_fraction: f64,
    pub precondition: Precondition,
    /// Pages per request (aligned to this size for random workloads).
    pub request_pages: u32,
    /// Mixed request sizes: when set, each request's size is drawn
    /// uniformly from [request_pages, request_pages_max] pages (requests
    /// start on request_pages boundaries and are cut at the span's end).
    pub request_pages_max: Option<u32>,
    /// Logical pages the workload addresses, from LPN 0. Default: all of them.
    pub span: Option<Amount>,
    /// Share of written pages whose content repeats an earlier write's
    /// (fio's dedupe_percentage / 100). 0 = every page unique.
    pub dedup_fraction: f64,
    /// Duplicates repeat one of this many most recent unique contents
    /// (fio's dedupe working set). Default: 1/100 of the addressed span.
    pub dedup_working_set: Option<Amount>,
    /// Tables pattern: number of equal regions ("tables") of the span.
    pub tables: u32,
    /// Tables pattern: sysbench's `rand-pareto-h`: a share 1 − h of the
    /// accesses goes to a share h of each table's rows (0.2: 80/20).
    pub pareto_h: f64,
    /// `type = "mix"`: the application models that run side by side, each
    /// in an equal share of the span (e.g. `["rocksdb", "gcc"]`).
    pub mix: Vec<WorkloadType>,
    #[serde(deserialize_with = "super::table::table")]
    pub trace: TraceConfig,
    /// YCSB: which workload (`load`, or `a` to `f` after the load).
    pub ycsb: YcsbWorkload,
    /// YCSB: records the load inserts.
    pub records: u64,
    /// YCSB: operations of workload `a` to `f` after the load.
    pub operations: u64,
    /// YCSB: bytes of a key (`user` and the hashed record number).
    pub key_bytes: u32,
    /// YCSB: bytes of a value.
    pub value_bytes: u32,
    /// YCSB: request distribution; default the workload's own (latest for
    /// D, zipfian otherwise).
    pub ycsb_distribution: Option<YcsbDistribution>,
    /// sepbit-synthetic: the Zipf exponent α over the working set's pages
    /// (0 = uniform; SepBIT's paper sweeps 0 to 1). Required there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zipf_alpha: Option<f64>,
    /// sepbit-synthetic: bytes addressed, from LPN 0, a whole number of
    /// pages (default: the whole logical space). Replaces `span`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub working_set_bytes: Option<u64>,
    /// sepbit-synthetic: the hot fifth of the working set is reshuffled
    /// after every this many bytes written, a whole number of pages
    /// (SepBIT: 512 MiB). Absent: the hot set never moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_shift_bytes: Option<u64>,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        Self {
            kind: WorkloadType::Uniform,
            writes: None,
            requests: None,
            warmup: None,
            seed: 42,
            hot_write_fraction: 0.9,
            hot_space_fraction: 0.1,
            zipf_theta: 0.99,
            read_fraction: 0.0,
            trim_fraction: 0.0,
            precondition: Precondition::SequentialFill,
            request_pages: 1,
            request_pages_max: None,
            span: None,
            dedup_fraction: 0.0,
            dedup_working_set: None,
            trace: TraceConfig::default(),
            tables: 1,
            pareto_h: 0.2,
            mix: Vec::new(),
            ycsb: YcsbWorkload::Load,
            records: 100_000,
            operations: 100_000,
            key_bytes: 16,
            value_bytes: 1024,
            ycsb_distribution: None,
            zipf_alpha: None,
            working_set_bytes: None,
            hot_shift_bytes: None,
        }
    }
}

/// Which YCSB workload.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum YcsbWorkload {
    /// Insert every record (YCSB's load phase) and measure that.
    Load,
    /// 50 % reads, 50 % updates, zipfian.
    A,
    /// 95 % reads, 5 % updates, zipfian.
    B,
    /// Reads only, zipfian.
    C,
    /// 95 % reads, 5 % inserts, latest.
    D,
    /// 95 % scans (1 to 100 records), 5 % inserts, zipfian.
    E,
    /// 50 % reads, 50 % read-modify-writes, zipfian.
    F,
}

impl YcsbWorkload {
    pub fn name(self) -> &'static str {
        match self {
            Self::Load => "load",
            Self::A => "a",
            Self::B => "b",
            Self::C => "c",
            Self::D => "d",
            Self::E => "e",
            Self::F => "f",
        }
    }

    /// YCSB's request distribution for the workload.
    pub fn default_distribution(self) -> YcsbDistribution {
        match self {
            Self::D => YcsbDistribution::Latest,
            _ => YcsbDistribution::Zipfian,
        }
    }
}

/// Which record an operation picks.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum YcsbDistribution {
    Zipfian,
    Latest,
    Uniform,
}
