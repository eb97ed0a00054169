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
//! level-0 flushes placed as deep as level 2 when nothing overlaps, the
//! compaction pick by size score with round-robin pointers, trivial moves,
//! output files cut at `sstable_bytes` or at ten files' overlap two levels
//! down, tombstones dropped where no deeper level holds the key, bloom
//! filters of 10 bits per key. Where it does not: no snapshots (a merge
//! keeps only the newest version of a key), no key prefix compression or
//! block compression, no block cache (a get reads its data block; filters
//! and indexes are in memory as in LevelDB's table cache), no seek-triggered
//! compaction, and compactions run at once after a flush rather than in a
//! background thread (so there are no write stalls to model).
//!
//! The modules, bottom up: [`files`] (files as extents of LPNs), [`entry`]
//! (what a table stores), [`memtable`], [`wal`], [`bloom`], [`sstable`],
//! [`version`] (levels of tables), [`compaction`] (what to compact, as a pure
//! choice), [`db`] (the engine) and [`stats`]; [`sink`], a device that keeps
//! nothing, runs the engine alone.

pub mod arena;
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

pub use config::{LsmConfig, RemapMode};
pub use db::Db;
pub use entry::Value;
pub use files::{Borrowed, FileId, Files};
pub use sink::Sink;
pub use stats::{LevelStats, LsmStats};
