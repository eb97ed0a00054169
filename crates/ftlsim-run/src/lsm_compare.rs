//! `ftlsim lsm-compare`: one key-value load through ftlsim's LSM engine and
//! through a real LevelDB 1.23 (`tools/leveldb-ref/leveldb_ref`, built
//! against Debian's libleveldb-dev), with their compaction bytes per level
//! and engine write amplification side by side.
//!
//! ftlsim draws the operations (the YCSB generator's keys and picks, the
//! config's key and value sizes) once; the engine runs them over a device
//! that keeps nothing ([`Sink`]: its choices do not depend on the device),
//! and the reference program reads the same operations as text on its
//! standard input. LevelDB prints its compaction bytes per level in whole
//! MiB (`leveldb.stats`), where a flushed table counts at the level it was
//! placed at: ftlsim's level 0 counts every flush, so its rows are put in
//! LevelDB's terms here (`flush_placed_pages`). The engines' totals are
//! exact bytes (the reference counts what LevelDB appends to its files).

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ftlsim::app::lsm::sink::Sink;
use ftlsim::app::lsm::{Db, Files, LsmStats, RemapMode, Value};
use ftlsim::config::Config;
use ftlsim::hash::splitmix64;
use ftlsim::workload::ycsb::{key_of, KvOp, Ycsb, YcsbDistribution, YcsbWorkload};
use serde::{Deserialize, Serialize};

use crate::error::{Context, Result, RunError};

/// What LevelDB 1.23 hard-codes (`db/dbformat.h`, `db/version_set.cc`):
/// a config must match them to be compared.
pub const LEVELDB_L0_TRIGGER: u32 = 4;
pub const LEVELDB_LEVEL_RATIO: u32 = 10;
pub const LEVELDB_LEVELS: u32 = 7;
pub const LEVELDB_L1_BYTES: u64 = 10 << 20;

const MIB: f64 = 1_048_576.0;

/// The loads both engines run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CompareLoad {
    /// `records` inserts in YCSB's hashed key order, then `ops` updates of
    /// records drawn zipfian (0.99, scrambled).
    InsertsUpdates,
    /// YCSB's load: `records` inserts.
    YcsbLoad,
    /// YCSB's load, then `ops` operations of workload A (half reads, half
    /// updates, zipfian).
    YcsbA,
}

impl CompareLoad {
    pub const NAMES: [&'static str; 3] = ["inserts-updates", "ycsb-load", "ycsb-a"];

    pub fn name(self) -> &'static str {
        match self {
            Self::InsertsUpdates => Self::NAMES[0],
            Self::YcsbLoad => Self::NAMES[1],
            Self::YcsbA => Self::NAMES[2],
        }
    }

    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "inserts-updates" => Ok(Self::InsertsUpdates),
            "ycsb-load" => Ok(Self::YcsbLoad),
            "ycsb-a" => Ok(Self::YcsbA),
            _ => Err(RunError::Input(format!(
                "--load `{name}`: expected one of {}",
                Self::NAMES.join(", ")
            ))),
        }
    }
}

/// How to run a comparison.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    pub load: CompareLoad,
    /// Records inserted first.
    pub records: u64,
    /// Operations after the inserts (ignored by `ycsb-load`).
    pub ops: u64,
    /// The reference program.
    pub reference: PathBuf,
    /// Where LevelDB's database goes (made, destroyed after).
    pub db_dir: PathBuf,
    /// Let LevelDB compact in its background thread as it does in
    /// production, instead of waiting for it after each operation.
    pub background: bool,
}

/// Where the reference program is built by `scripts/build-leveldb-ref.sh`.
pub const DEFAULT_REFERENCE: &str = "target/leveldb-ref/leveldb_ref";

/// One level, both engines, MiB.
#[derive(Debug, Clone, Serialize)]
pub struct LevelCompare {
    pub level: usize,
    pub ours_read_mib: f64,
    pub ours_write_mib: f64,
    pub leveldb_read_mib: f64,
    pub leveldb_write_mib: f64,
    /// Our writes relative to LevelDB's, `(ours − leveldb) / leveldb`
    /// (`None` where LevelDB wrote nothing).
    pub write_rel_diff: Option<f64>,
    pub read_rel_diff: Option<f64>,
    /// LevelDB's share of all its table writes at this level.
    pub leveldb_write_share: f64,
    /// Merges into this level and tables moved into it (flushes are not
    /// counted), and compactions from it whose inputs grew to the tables
    /// inside the range of the whole compaction (LevelDB's "Expanding").
    pub ours_merges: u64,
    pub ours_moves: u64,
    pub leveldb_merges: u64,
    pub leveldb_moves: u64,
    pub leveldb_expansions: u64,
}

/// One engine's totals.
#[derive(Debug, Clone, Serialize)]
pub struct EngineTotals {
    pub user_write_bytes: u64,
    /// Flushes and compaction outputs.
    pub table_write_bytes: u64,
    pub wal_write_bytes: u64,
    /// Table bytes over user bytes (the WAL excluded).
    pub engine_wa: f64,
    /// Table and WAL bytes over user bytes.
    pub engine_wa_with_wal: f64,
}

/// The result of `ftlsim lsm-compare`.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub load: CompareLoad,
    pub records: u64,
    pub ops: u64,
    pub key_bytes: u32,
    pub value_bytes: u32,
    pub seed: u64,
    pub leveldb_version: String,
    pub leveldb_background: bool,
    pub levels: Vec<LevelCompare>,
    pub ours: EngineTotals,
    pub leveldb: EngineTotals,
    /// `(ours − leveldb) / leveldb` of the engine WA, WAL excluded.
    pub engine_wa_rel_diff: f64,
    pub engine_wa_with_wal_rel_diff: f64,
    /// What differs between the two runs by construction.
    pub notes: Vec<String>,
}

/// The reference program's JSON (what it prints, the fields used here).
#[derive(Debug, Deserialize)]
struct Reference {
    leveldb_version: String,
    user_write_bytes: u64,
    log_write_bytes: u64,
    table_write_bytes: u64,
    levels: Vec<ReferenceLevel>,
}

#[derive(Debug, Deserialize)]
struct ReferenceLevel {
    level: usize,
    read_mib: f64,
    write_mib: f64,
    merges: u64,
    moves: u64,
    expansions: u64,
}

/// Refuses a config LevelDB cannot be set up like: the keys LevelDB
/// hard-codes must have its values, and RemapCom has no counterpart.
pub fn check_config(cfg: &Config) -> Result<()> {
    let l = &cfg.lsm;
    let fixed: [(&str, u64, u64); 4] = [
        (
            "lsm.l0_trigger",
            u64::from(l.l0_trigger),
            u64::from(LEVELDB_L0_TRIGGER),
        ),
        (
            "lsm.level_ratio",
            u64::from(l.level_ratio),
            u64::from(LEVELDB_LEVEL_RATIO),
        ),
        ("lsm.levels", u64::from(l.levels), u64::from(LEVELDB_LEVELS)),
        ("lsm.l1_bytes", l.l1_bytes, LEVELDB_L1_BYTES),
    ];
    for (key, ours, leveldb) in fixed {
        if ours != leveldb {
            return Err(RunError::Input(format!(
                "{key} = {ours}: LevelDB 1.23 hard-codes {leveldb}, so lsm-compare needs it"
            )));
        }
    }
    if l.remap != RemapMode::Off {
        return Err(RunError::Input(format!(
            "lsm.remap = \"{}\": LevelDB has no RemapCom; lsm-compare needs \"off\"",
            l.remap.name()
        )));
    }
    Ok(())
}

/// The load's operations, drawn once from `seed`.
pub fn operations(load: CompareLoad, records: u64, ops: u64, seed: u64) -> Vec<KvOp> {
    let after = if load == CompareLoad::YcsbLoad {
        0
    } else {
        ops
    };
    let mut out = Vec::with_capacity((records + after) as usize);
    let mut loader = Ycsb::new(YcsbWorkload::Load, YcsbDistribution::Uniform, 0, 0);
    out.extend((0..records).map(|_| loader.next_op()));
    match load {
        CompareLoad::YcsbLoad => {}
        CompareLoad::InsertsUpdates => {
            let mut y = Ycsb::new(YcsbWorkload::A, YcsbDistribution::Zipfian, records, seed);
            out.extend((0..ops).map(|_| y.next_update()));
        }
        CompareLoad::YcsbA => {
            let mut y = Ycsb::new(YcsbWorkload::A, YcsbDistribution::Zipfian, records, seed);
            out.extend((0..ops).map(|_| y.next_op()));
        }
    }
    out
}

/// Runs the operations through ftlsim's engine over a [`Sink`].
pub fn run_engine(cfg: &Config, ops: &[KvOp]) -> Result<LsmStats> {
    let files = Files::new(Sink, cfg.device.page_bytes);
    let mut db = Db::new(&cfg.lsm, files).map_err(|error| RunError::Config {
        origin: "lsm-compare".into(),
        error,
    })?;
    let (key_bytes, value_bytes) = (cfg.workload.key_bytes, cfg.workload.value_bytes);
    let mut key = Vec::new();
    for (i, &op) in ops.iter().enumerate() {
        let value = Value {
            len_bytes: value_bytes,
            checksum: splitmix64(i as u64),
        };
        match op {
            KvOp::Insert(r) | KvOp::Update(r) => {
                key_of(r, key_bytes, &mut key);
                db.put(&key, value)?;
            }
            KvOp::Read(r) => {
                key_of(r, key_bytes, &mut key);
                db.get(&key)?;
            }
            KvOp::ReadModifyWrite(r) => {
                key_of(r, key_bytes, &mut key);
                db.get(&key)?;
                db.put(&key, value)?;
            }
            KvOp::Scan(r, len) => {
                key_of(r, key_bytes, &mut key);
                db.scan(&key, len)?;
            }
        }
    }
    Ok(db.stats())
}

/// The operations as the reference program reads them.
pub fn write_operations(
    out: &mut impl Write,
    ops: &[KvOp],
    key_bytes: u32,
    value_bytes: u32,
) -> std::io::Result<()> {
    let mut key = Vec::new();
    for &op in ops {
        let r = match op {
            KvOp::Insert(r)
            | KvOp::Update(r)
            | KvOp::Read(r)
            | KvOp::ReadModifyWrite(r)
            | KvOp::Scan(r, _) => r,
        };
        key_of(r, key_bytes, &mut key);
        let key = std::str::from_utf8(&key).expect("YCSB keys are ASCII");
        match op {
            KvOp::Insert(_) | KvOp::Update(_) => writeln!(out, "P {key} {value_bytes}")?,
            KvOp::ReadModifyWrite(_) => {
                writeln!(out, "G {key}")?;
                writeln!(out, "P {key} {value_bytes}")?;
            }
            KvOp::Scan(_, len) => writeln!(out, "S {key} {len}")?,
            KvOp::Read(_) => writeln!(out, "G {key}")?,
        }
    }
    out.flush()
}

/// Runs the reference program on the operations and reads its JSON.
fn run_reference(cfg: &Config, opts: &CompareOptions, ops: &[KvOp]) -> Result<Reference> {
    let program = &opts.reference;
    if !program.is_file() {
        return Err(RunError::Input(format!(
            "--reference {}: no such program; build it with scripts/build-leveldb-ref.sh \
             (needs libleveldb-dev)",
            program.display()
        )));
    }
    let l = &cfg.lsm;
    let mut cmd = Command::new(program);
    cmd.arg("--db")
        .arg(&opts.db_dir)
        .args(["--write-buffer-size", &l.memtable_bytes.to_string()])
        .args(["--max-file-size", &l.sstable_bytes.to_string()])
        .args(["--block-size", &l.block_bytes.to_string()])
        .args(["--bloom-bits", "10"])
        .arg(if opts.background {
            "--background"
        } else {
            "--settle"
        })
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let what = || format!("run the LevelDB reference {}", program.display());
    let mut child = cmd.spawn().with_context(what)?;
    let stdin = child.stdin.take().expect("stdin is piped");
    let (key_bytes, value_bytes) = (cfg.workload.key_bytes, cfg.workload.value_bytes);
    let mut stdout = child.stdout.take().expect("stdout is piped");
    // The program reads while it writes nothing until the end: feed it from
    // a thread of its own while this one waits for its answer.
    let (json, fed) = std::thread::scope(|s| {
        let feeder = s.spawn(move || {
            let mut w = BufWriter::with_capacity(1 << 16, stdin);
            write_operations(&mut w, ops, key_bytes, value_bytes)
        });
        let mut json = String::new();
        let read = stdout.read_to_string(&mut json);
        (
            read.map(|_| json),
            feeder.join().expect("the feeder does not panic"),
        )
    });
    let output = child.wait_with_output().with_context(what)?;
    if !output.status.success() {
        return Err(RunError::Reference(format!(
            "{} exited with {}: {}",
            program.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    fed.with_context(|| format!("feed operations to {}", program.display()))?;
    let json = json.with_context(|| format!("read the output of {}", program.display()))?;
    serde_json::from_str(&json)
        .map_err(|e| RunError::Reference(format!("{}: unreadable output: {e}", program.display())))
}

fn rel_diff(ours: f64, reference: f64) -> Option<f64> {
    (reference > 0.0).then(|| (ours - reference) / reference)
}

fn totals(user: u64, table: u64, wal: u64) -> EngineTotals {
    let per_user = |b: u64| {
        if user == 0 {
            0.0
        } else {
            b as f64 / user as f64
        }
    };
    EngineTotals {
        user_write_bytes: user,
        table_write_bytes: table,
        wal_write_bytes: wal,
        engine_wa: per_user(table),
        engine_wa_with_wal: per_user(table + wal),
    }
}

/// Runs the load through both engines.
pub fn compare(cfg: &Config, opts: &CompareOptions) -> Result<Comparison> {
    check_config(cfg)?;
    let w = &cfg.workload;
    let ops = operations(opts.load, opts.records, opts.ops, w.seed);
    let stats = run_engine(cfg, &ops)?;
    let reference = run_reference(cfg, opts, &ops)?;
    if reference.user_write_bytes != stats.user_write_bytes {
        return Err(RunError::Internal(format!(
            "lsm-compare: LevelDB was written {} user bytes, ftlsim {}: the loads differ",
            reference.user_write_bytes, stats.user_write_bytes
        )));
    }
    let page = f64::from(stats.page_bytes);
    let ldb_total_mib: f64 = reference.levels.iter().map(|l| l.write_mib).sum();
    let mut levels = Vec::new();
    for (level, s) in stats.levels.iter().enumerate() {
        // LevelDB's terms: a flush counts where its table went.
        let flushed_elsewhere = if level == 0 {
            s.compaction_write_pages - s.flush_placed_pages
        } else {
            0
        };
        let ours_write = s.compaction_write_pages - flushed_elsewhere
            + if level == 0 { 0 } else { s.flush_placed_pages };
        let ours_write_mib = ours_write as f64 * page / MIB;
        let ours_read_mib = s.compaction_read_pages as f64 * page / MIB;
        let r = reference.levels.iter().find(|r| r.level == level);
        let (lr, lw) = r.map_or((0.0, 0.0), |r| (r.read_mib, r.write_mib));
        let counts = r.map_or((0, 0, 0), |r| (r.merges, r.moves, r.expansions));
        if ours_write == 0 && s.compaction_read_pages == 0 && r.is_none() {
            continue;
        }
        levels.push(LevelCompare {
            level,
            ours_read_mib,
            ours_write_mib,
            leveldb_read_mib: lr,
            leveldb_write_mib: lw,
            write_rel_diff: rel_diff(ours_write_mib, lw),
            read_rel_diff: rel_diff(ours_read_mib, lr),
            leveldb_write_share: if ldb_total_mib > 0.0 {
                lw / ldb_total_mib
            } else {
                0.0
            },
            // Level 0's `compactions` are the flushes.
            ours_merges: if level == 0 { 0 } else { s.compactions },
            ours_moves: s.moves,
            leveldb_merges: counts.0,
            leveldb_moves: counts.1,
            leveldb_expansions: counts.2,
        });
    }
    let table_pages: u64 = stats.levels.iter().map(|l| l.compaction_write_pages).sum();
    let ours = totals(
        stats.user_write_bytes,
        table_pages * u64::from(stats.page_bytes),
        stats.wal_write_pages * u64::from(stats.page_bytes),
    );
    let leveldb = totals(
        reference.user_write_bytes,
        reference.table_write_bytes,
        reference.log_write_bytes,
    );
    let mut notes = vec![
        "LevelDB's per-level MiB are rounded to whole MiB (leveldb.stats); totals are exact"
            .to_string(),
    ];
    if ops
        .iter()
        .any(|o| matches!(o, KvOp::Read(_) | KvOp::ReadModifyWrite(_) | KvOp::Scan(..)))
        && !cfg.lsm.seek_compaction
    {
        notes.push(
            "LevelDB always compacts tables that run out of seeks; lsm.seek_compaction is off here"
                .to_string(),
        );
    }
    Ok(Comparison {
        load: opts.load,
        records: opts.records,
        ops: if opts.load == CompareLoad::YcsbLoad {
            0
        } else {
            opts.ops
        },
        key_bytes: w.key_bytes,
        value_bytes: w.value_bytes,
        seed: w.seed,
        leveldb_version: reference.leveldb_version,
        leveldb_background: opts.background,
        engine_wa_rel_diff: rel_diff(ours.engine_wa, leveldb.engine_wa).unwrap_or(0.0),
        engine_wa_with_wal_rel_diff: rel_diff(ours.engine_wa_with_wal, leveldb.engine_wa_with_wal)
            .unwrap_or(0.0),
        levels,
        ours,
        leveldb,
        notes,
    })
}

fn pct(d: Option<f64>) -> String {
    d.map_or("-".into(), |d| format!("{:+.1}%", d * 100.0))
}

/// The comparison as a table.
pub fn render(c: &Comparison) -> String {
    let mut s = format!(
        "lsm-compare: {} of {} records ({} B keys, {} B values){}, seed {}; LevelDB {} ({})\n\n",
        c.load.name(),
        c.records,
        c.key_bytes,
        c.value_bytes,
        if c.ops > 0 {
            format!(" then {} operations", c.ops)
        } else {
            String::new()
        },
        c.seed,
        c.leveldb_version,
        if c.leveldb_background {
            "compacting in the background"
        } else {
            "settled after each operation"
        },
    );
    s.push_str("level  read MiB ours  leveldb    diff  write MiB ours  leveldb    diff  share\n");
    for l in &c.levels {
        s.push_str(&format!(
            "{:>5}  {:>13.0}  {:>7.0}  {:>6}  {:>14.0}  {:>7.0}  {:>6}  {:>4.0}%\n",
            l.level,
            l.ours_read_mib,
            l.leveldb_read_mib,
            pct(l.read_rel_diff),
            l.ours_write_mib,
            l.leveldb_write_mib,
            pct(l.write_rel_diff),
            l.leveldb_write_share * 100.0
        ));
    }
    s.push_str(&format!(
        "\nengine WA (WAL excluded): ours {:.3}, LevelDB {:.3} ({})\n",
        c.ours.engine_wa,
        c.leveldb.engine_wa,
        pct(Some(c.engine_wa_rel_diff))
    ));
    s.push_str(&format!(
        "engine WA with the WAL:   ours {:.3}, LevelDB {:.3} ({})\n",
        c.ours.engine_wa_with_wal,
        c.leveldb.engine_wa_with_wal,
        pct(Some(c.engine_wa_with_wal_rel_diff))
    ));
    for n in &c.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// A fresh directory for LevelDB's database under `parent`.
pub fn default_db_dir(parent: &Path) -> PathBuf {
    parent.join(format!("ftlsim-leveldb-ref-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_are_their_operations_and_the_same_for_one_seed() {
        let ops = operations(CompareLoad::InsertsUpdates, 100, 50, 7);
        assert_eq!(ops.len(), 150);
        assert!(ops[..100]
            .iter()
            .enumerate()
            .all(|(i, op)| *op == KvOp::Insert(i as u64)));
        assert!(ops[100..]
            .iter()
            .all(|op| matches!(op, KvOp::Update(r) if *r < 100)));
        assert_eq!(ops, operations(CompareLoad::InsertsUpdates, 100, 50, 7));
        assert_ne!(ops, operations(CompareLoad::InsertsUpdates, 100, 50, 8));
        assert_eq!(operations(CompareLoad::YcsbLoad, 100, 50, 7).len(), 100);
        let a = operations(CompareLoad::YcsbA, 100, 1000, 7);
        let reads = a.iter().filter(|o| matches!(o, KvOp::Read(_))).count();
        assert!((400..600).contains(&reads), "{reads}");
    }

    #[test]
    fn the_reference_reads_one_operation_a_line() {
        let ops = [
            KvOp::Insert(3),
            KvOp::Read(3),
            KvOp::Scan(3, 7),
            KvOp::ReadModifyWrite(3),
        ];
        let mut text = Vec::new();
        write_operations(&mut text, &ops, 16, 100).unwrap();
        let mut key = Vec::new();
        key_of(3, 16, &mut key);
        let k = String::from_utf8(key).unwrap();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            format!("P {k} 100\nG {k}\nS {k} 7\nG {k}\nP {k} 100\n")
        );
    }

    #[test]
    fn configs_leveldb_hard_codes_otherwise_are_refused() {
        let mut cfg = Config::default();
        check_config(&cfg).unwrap();
        cfg.lsm.level_ratio = 8;
        let e = check_config(&cfg).unwrap_err().to_string();
        assert!(e.starts_with("lsm.level_ratio = 8"), "{e}");
    }
}
