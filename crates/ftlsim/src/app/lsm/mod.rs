//! A LevelDB-like LSM-tree key-value engine over a file layer on a
//! [`BlockDevice`](crate::request::BlockDevice).
//!
//! Keys are real bytes; values are represented by their length and a
//! checksum ([`Value`]) so that memory stays small while every size that
//! drives the engine (memtable, data blocks, files, levels) is the real one.
//! The engine keeps what LevelDB keeps on disk in memory (the entries of
//! each SSTable) and issues the block requests LevelDB's I/O would cause
//! through [`Files`]: WAL appends, flushes and compaction outputs as writes,
//! deleted files as trims, data block lookups and compaction inputs as reads.
//!
//! Where it follows LevelDB 1.23: the sizes and their defaults, the WAL,
//! a memtable flushed when its arena's memory (as LevelDB counts it,
//! [`arena`]) passes the write buffer, level-0 flushes placed as deep as
//! level 2 when nothing overlaps, the compaction pick by size score with
//! round-robin pointers (level 0's too), inputs grown to the tables inside
//! the compaction's range, trivial moves, output files cut at
//! `sstable_bytes` of closed blocks or at ten files' overlap two levels
//! down, tombstones dropped where no deeper level holds the key, bloom
//! filters of 10 bits per key, seek compaction (`lsm.seek_compaction`,
//! off by default, where LevelDB always does it). `ftlsim lsm-compare`
//! holds its compaction bytes per level against a real LevelDB's. Where it
//! does not: no snapshots (a merge keeps only the newest version of a key),
//! no key prefix compression or block compression, no block cache (a get
//! reads its data block; filters and indexes are in memory as in LevelDB's
//! table cache). Flushes and compactions run inline after the write that
//! filled the memtable, or, with the timing model on, as background jobs
//! in simulated time with LevelDB's write stalls ([`background`]).

//! The modules, bottom up: [`files`] (files as extents of LPNs), [`entry`]
//! (what a table stores), [`memtable`] (and its [`arena`]), [`wal`], [`bloom`], [`sstable`],
//! [`version`] (levels of tables), [`compaction`] (what to compact, as a pure
//! choice), [`db`] (the engine) and [`stats`]; [`sink`], a device that keeps
//! nothing, runs the engine alone.

pub mod arena;
pub mod background;
pub mod bloom;
pub mod compaction;
pub mod config;
pub mod db;
pub mod entry;
pub mod files;
pub mod memtable;
pub mod merge_output;
pub mod sink;
pub mod sstable;
pub mod stats;
pub mod udb;
pub mod version;
pub mod wal;

pub use background::Job;
pub use config::{LsmConfig, RemapMode};
pub use db::Db;
pub use entry::Value;
pub use files::{Borrowed, FileId, Files};
pub use sink::Sink;
pub use stats::{LevelStats, LsmStats};
