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
//! The modules, bottom up: [`files`] (files as extents of LPNs), [`entry`]
//! (what a table stores), [`memtable`], [`wal`], [`bloom`], [`sstable`],
//! [`version`] (levels of tables), [`compaction`] (what to compact, as a pure
//! choice), [`db`] (the engine) and [`stats`].

pub mod bloom;
pub mod compaction;
pub mod config;
pub mod db;
pub mod entry;
pub mod files;
pub mod memtable;
pub mod sstable;
pub mod stats;
pub mod version;
pub mod wal;

pub use config::{LsmConfig, RemapMode};
pub use db::Db;
pub use entry::Value;
pub use files::{FileId, Files};
pub use stats::{LevelStats, LsmStats};
