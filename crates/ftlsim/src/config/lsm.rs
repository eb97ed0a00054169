//! `[lsm]`: the LSM engine's keys (the engine: `app/lsm/`). Defaults follow
//! LevelDB 1.23, so the engine's write amplification can be held against
//! LevelDB's.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// What compaction does with unchanged data blocks (RemapCom).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RemapMode {
    /// Rewrite every output block (LevelDB).
    #[default]
    Off,
    /// Remap each unchanged block instead of writing it (RemapCom-Base).
    Base,
    /// `base` plus lazy write-back and UDB retention (full RemapCom).
    Full,
}

impl RemapMode {
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Base => "base",
            Self::Full => "full",
        }
    }
}

/// `[lsm]`: sizes of the memtable, blocks, files and levels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LsmConfig {
    /// Memtable size that triggers a flush to level 0 (LevelDB
    /// `write_buffer_size`), in the memory LevelDB's memtable counts: its
    /// arena's blocks, entries and skip-list nodes (`app/lsm/arena.rs`).
    pub memtable_bytes: u64,
    /// Data block size (LevelDB `block_size`); blocks start on a page boundary.
    pub block_bytes: u32,
    /// Level-0 file count that triggers a level-0 compaction.
    pub l0_trigger: u32,
    /// Size ratio between level L+1 and level L (L ≥ 1).
    pub level_ratio: u32,
    /// Number of levels, level 0 included.
    pub levels: u32,
    /// Target size of level 1.
    pub l1_bytes: u64,
    /// Target size of an SSTable written by compaction (LevelDB `max_file_size`).
    pub sstable_bytes: u64,
    /// RemapCom mode: `off`, `base` or `full`.
    pub remap: RemapMode,
    /// LevelDB's seek compaction: a table that gets probed first by too
    /// many gets that had to probe another table too is compacted into
    /// the next level.
    pub seek_compaction: bool,
    /// Most pages one page-aligned data block may span (RemapCom's layout,
    /// `remap = "base" | "full"`): a block closes at the first page
    /// boundary past `block_bytes` where at most 1/32 of it is padding, or
    /// at this many pages. 1: one page per block, as the paper's 4 KiB
    /// blocks (more unchanged blocks, more padding with large values).
    pub aligned_block_max_pages: u32,
    /// Background threads that run flushes and compactions in simulated
    /// time (timing model on). Unset: 1 (LevelDB's one thread) with a
    /// `[timing]` section, 0 without one; 0: flushes and compactions run
    /// inline after the write that filled the memtable (no write stalls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background_threads: Option<u32>,
    /// Level-0 files at which each write is delayed by 1 ms, once
    /// (LevelDB's `kL0_SlowdownWritesTrigger`; background compaction only).
    pub l0_slowdown: u32,
    /// Level-0 files at which writes wait until compaction brings level 0
    /// below (LevelDB's `kL0_StopWritesTrigger`; background compaction only).
    pub l0_stop: u32,
    /// The file layer trims a deleted file's pages (a file system mounted
    /// with discard); false: the device keeps them valid until they are
    /// written again, so its GC copies dead tables (a stressed device).
    pub trim: bool,
}

impl Default for LsmConfig {
    fn default() -> Self {
        Self {
            memtable_bytes: 4 << 20,
            block_bytes: 4096,
            l0_trigger: 4,
            level_ratio: 10,
            levels: 7,
            l1_bytes: 10 << 20,
            sstable_bytes: 2 << 20,
            remap: RemapMode::Off,
            seek_compaction: false,
            aligned_block_max_pages: 8,
            background_threads: None,
            l0_slowdown: 8,
            l0_stop: 12,
            trim: true,
        }
    }
}

/// Bytes an entry costs beyond its key and value in a data block: LevelDB's
/// three varint lengths (about 3 bytes) and the 8-byte sequence/type tag.
/// (The engine's format, here because `[lsm]`'s keys are checked against
/// it: a block must hold one entry of the run's sizes.)
pub const ENTRY_OVERHEAD_BYTES: u64 = 11;

/// A data block's fixed cost: the compression type and CRC (5 bytes) and
/// the restart count (4).
pub const BLOCK_TRAILER_BYTES: u64 = 9;

/// One restart point (4 bytes) every this many entries.
pub const RESTART_INTERVAL: u64 = 16;

/// Bytes of a block holding `entries` entries of `payload_bytes` in all.
pub fn block_bytes(entries: u64, payload_bytes: u64) -> u64 {
    payload_bytes + BLOCK_TRAILER_BYTES + 4 * entries.div_ceil(RESTART_INTERVAL)
}

/// Most levels the engine accepts: level sizes grow as `level_ratio^L`.
pub const MAX_LEVELS: u32 = 16;

/// Most background threads `background_threads` may ask for.
pub const MAX_BACKGROUND_THREADS: u32 = 16;

/// Most pages `aligned_block_max_pages` may allow.
pub const MAX_ALIGNED_BLOCK_PAGES: u32 = 64;

impl LsmConfig {
    /// Checks every key; the error names it as `{prefix}.key`.
    pub fn validate(&self, prefix: &str) -> Result<(), ConfigError> {
        let key = |k: &str| format!("{prefix}.{k}");
        if self.memtable_bytes == 0 {
            return Err(ConfigError::new(key("memtable_bytes"), "must be above 0"));
        }
        if self.block_bytes < 64 {
            return Err(ConfigError::new(
                key("block_bytes"),
                format!(
                    "{} is below the smallest block of 64 bytes",
                    self.block_bytes
                ),
            ));
        }
        if self.l0_trigger == 0 {
            return Err(ConfigError::new(key("l0_trigger"), "must be at least 1"));
        }
        if self.level_ratio < 2 {
            return Err(ConfigError::new(
                key("level_ratio"),
                format!("{} is below 2: levels would not grow", self.level_ratio),
            ));
        }
        if !(2..=MAX_LEVELS).contains(&self.levels) {
            return Err(ConfigError::new(
                key("levels"),
                format!("{} is outside 2..={MAX_LEVELS}", self.levels),
            ));
        }
        if self.l1_bytes == 0 {
            return Err(ConfigError::new(key("l1_bytes"), "must be above 0"));
        }
        if !(1..=MAX_ALIGNED_BLOCK_PAGES).contains(&self.aligned_block_max_pages) {
            return Err(ConfigError::new(
                key("aligned_block_max_pages"),
                format!(
                    "{} is outside 1..={MAX_ALIGNED_BLOCK_PAGES}",
                    self.aligned_block_max_pages
                ),
            ));
        }
        if let Some(n) = self
            .background_threads
            .filter(|&n| n > MAX_BACKGROUND_THREADS)
        {
            return Err(ConfigError::new(
                key("background_threads"),
                format!("{n} is above {MAX_BACKGROUND_THREADS}"),
            ));
        }
        if self.l0_slowdown == 0 {
            return Err(ConfigError::new(key("l0_slowdown"), "must be at least 1"));
        }
        if self.l0_stop <= self.l0_slowdown {
            return Err(ConfigError::new(
                key("l0_stop"),
                format!(
                    "{} is not above lsm.l0_slowdown = {}: writes would stop before they slow down",
                    self.l0_stop, self.l0_slowdown
                ),
            ));
        }
        if self.sstable_bytes < u64::from(self.block_bytes) {
            return Err(ConfigError::new(
                key("sstable_bytes"),
                format!(
                    "{} is below one block (block_bytes = {})",
                    self.sstable_bytes, self.block_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Background threads of a run with (`timed`) or without the timing
    /// model: unset is LevelDB's one thread when timed and inline
    /// compaction (0) when not. Asking for threads without timing is an
    /// error naming the key: there is no time for them to run in.
    pub fn threads(&self, timed: bool) -> Result<u32, ConfigError> {
        match (self.background_threads, timed) {
            (None, true) => Ok(1),
            (None, false) | (Some(0), _) => Ok(0),
            (Some(n), true) => Ok(n),
            (Some(n), false) => Err(ConfigError::new(
                "lsm.background_threads",
                format!("{n} background threads need the timing model: add a [timing] section, or set 0 (inline compaction)"),
            )),
        }
    }

    /// Target size of level `level` ≥ 1: `l1_bytes × level_ratio^(level − 1)`.
    pub fn level_target_bytes(&self, level: usize) -> u64 {
        debug_assert!(level >= 1);
        let mut bytes = self.l1_bytes;
        for _ in 1..level {
            bytes = bytes.saturating_mul(u64::from(self.level_ratio));
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_leveldb_1_23_and_valid() {
        let c = LsmConfig::default();
        assert_eq!(c.memtable_bytes, 4 << 20);
        assert_eq!(c.sstable_bytes, 2 << 20);
        assert_eq!(c.l1_bytes, 10 << 20);
        assert_eq!((c.level_ratio, c.l0_trigger, c.levels), (10, 4, 7));
        c.validate("lsm").unwrap();
        assert_eq!(c.level_target_bytes(3), 1000 << 20);
    }

    #[test]
    fn bad_values_name_their_key() {
        let c = LsmConfig {
            level_ratio: 1,
            ..LsmConfig::default()
        };
        let e = c.validate("lsm").unwrap_err();
        assert_eq!(e.key, "lsm.level_ratio");
    }

    #[test]
    fn keys_parse_by_name_and_unknown_keys_are_refused() {
        let c: LsmConfig =
            serde_json::from_str(r#"{"remap": "full", "l0_trigger": 8, "block_bytes": 8192}"#)
                .unwrap();
        assert_eq!(c.remap, RemapMode::Full);
        assert_eq!((c.l0_trigger, c.block_bytes), (8, 8192));
        assert_eq!(c.levels, 7, "unset keys keep their defaults");
        assert!(serde_json::from_str::<LsmConfig>(r#"{"remap": "partial"}"#).is_err());
        assert!(serde_json::from_str::<LsmConfig>(r#"{"memtable_size": 1}"#).is_err());
    }
}
