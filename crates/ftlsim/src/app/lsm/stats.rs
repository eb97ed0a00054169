//! What the engine counts: user bytes, WAL and flush pages, and per level
//! the pages compaction read and wrote, from which the engine's write
//! amplification follows.

/// One level's counters. Compaction into level L counts at L (reads of
/// both input levels, writes of the outputs); level 0's writes are the
/// memtable flushes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelStats {
    pub compaction_read_pages: u64,
    pub compaction_write_pages: u64,
    /// Merges into this level (flushes, for level 0).
    pub compactions: u64,
    /// Pages of the memtable flushes whose table was placed at this level
    /// (LevelDB counts a flush's bytes there; here level 0's
    /// `compaction_write_pages` holds every flush).
    pub flush_placed_pages: u64,
    /// Tables moved into this level without being rewritten.
    pub moves: u64,
    /// Data blocks written into this level by merges.
    pub output_blocks: u64,
    /// Of those, blocks byte-identical to a block of the merge's inputs
    /// (RemapCom's unchanged data blocks in the output).
    pub udb_blocks: u64,
    /// Input blocks RemapCom's state machine found unchanged (all their
    /// entries kept, in a row); 0 with `lsm.remap = "off"`, where it does
    /// not run.
    pub unchanged_input_blocks: u64,
    /// Output blocks and pages remapped from an input block instead of
    /// being written (not in `compaction_write_pages`).
    pub remapped_blocks: u64,
    pub remapped_pages: u64,
    /// Tables and bytes at the level now.
    pub tables: u64,
    pub bytes: u64,
}

impl LevelStats {
    /// The counters since `start` (tables and bytes stay the current ones).
    pub fn since(&self, start: &LevelStats) -> LevelStats {
        LevelStats {
            compaction_read_pages: self.compaction_read_pages - start.compaction_read_pages,
            compaction_write_pages: self.compaction_write_pages - start.compaction_write_pages,
            compactions: self.compactions - start.compactions,
            flush_placed_pages: self.flush_placed_pages - start.flush_placed_pages,
            moves: self.moves - start.moves,
            output_blocks: self.output_blocks - start.output_blocks,
            udb_blocks: self.udb_blocks - start.udb_blocks,
            unchanged_input_blocks: self.unchanged_input_blocks - start.unchanged_input_blocks,
            remapped_blocks: self.remapped_blocks - start.remapped_blocks,
            remapped_pages: self.remapped_pages - start.remapped_pages,
            tables: self.tables,
            bytes: self.bytes,
        }
    }

    /// Share of the data blocks merged into this level that were unchanged
    /// (0 before any merge).
    pub fn udb_ratio(&self) -> f64 {
        if self.output_blocks == 0 {
            return 0.0;
        }
        self.udb_blocks as f64 / self.output_blocks as f64
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LsmStats {
    pub page_bytes: u32,
    /// Key and value bytes of every put and delete.
    pub user_write_bytes: u64,
    pub puts: u64,
    pub deletes: u64,
    pub gets: u64,
    pub scans: u64,
    pub wal_write_pages: u64,
    pub flush_write_pages: u64,
    /// Data blocks read by gets and scans.
    pub lookup_block_reads: u64,
    /// Table probes a get skipped because the bloom filter ruled the key out.
    pub bloom_skips: u64,
    /// Compactions of a table that ran out of seeks (`lsm.seek_compaction`).
    pub seek_compactions: u64,
    pub levels: Vec<LevelStats>,
    /// Pages the file layer wrote, read and trimmed (everything above included).
    pub file_write_pages: u64,
    /// Pages the file layer remapped instead of writing (RemapCom).
    pub file_remap_pages: u64,
    pub file_read_pages: u64,
    pub file_trim_pages: u64,
}

impl LsmStats {
    /// The counters since `start`, a snapshot of the same engine.
    pub fn since(&self, start: &LsmStats) -> LsmStats {
        LsmStats {
            page_bytes: self.page_bytes,
            user_write_bytes: self.user_write_bytes - start.user_write_bytes,
            puts: self.puts - start.puts,
            deletes: self.deletes - start.deletes,
            gets: self.gets - start.gets,
            scans: self.scans - start.scans,
            wal_write_pages: self.wal_write_pages - start.wal_write_pages,
            flush_write_pages: self.flush_write_pages - start.flush_write_pages,
            lookup_block_reads: self.lookup_block_reads - start.lookup_block_reads,
            bloom_skips: self.bloom_skips - start.bloom_skips,
            seek_compactions: self.seek_compactions - start.seek_compactions,
            levels: self
                .levels
                .iter()
                .zip(&start.levels)
                .map(|(now, then)| now.since(then))
                .collect(),
            file_write_pages: self.file_write_pages - start.file_write_pages,
            file_remap_pages: self.file_remap_pages - start.file_remap_pages,
            file_read_pages: self.file_read_pages - start.file_read_pages,
            file_trim_pages: self.file_trim_pages - start.file_trim_pages,
        }
    }

    /// Bytes written to the file layer over user bytes written (0 before
    /// any write).
    pub fn engine_wa(&self) -> f64 {
        self.per_user_byte(self.file_write_pages)
    }

    /// Level `level`'s share of the engine WA: the bytes written into it
    /// (flushes for level 0, merges below) over user bytes. The WAL's share
    /// ([`LsmStats::wal_wa`]) and the levels' add up to [`LsmStats::engine_wa`].
    pub fn level_wa(&self, level: usize) -> f64 {
        self.per_user_byte(self.levels[level].compaction_write_pages)
    }

    /// The WAL's share of the engine WA.
    pub fn wal_wa(&self) -> f64 {
        self.per_user_byte(self.wal_write_pages)
    }

    fn per_user_byte(&self, pages: u64) -> f64 {
        if self.user_write_bytes == 0 {
            return 0.0;
        }
        (pages * u64::from(self.page_bytes)) as f64 / self.user_write_bytes as f64
    }

    /// Pages compaction wrote into levels ≥ 1.
    pub fn compaction_write_pages(&self) -> u64 {
        self.levels
            .iter()
            .skip(1)
            .map(|l| l.compaction_write_pages)
            .sum()
    }

    /// Pages compaction remapped instead of writing, all levels.
    pub fn remapped_pages(&self) -> u64 {
        self.levels.iter().map(|l| l.remapped_pages).sum()
    }

    /// Unchanged data blocks in merge outputs, all levels.
    pub fn udb_blocks(&self) -> u64 {
        self.levels.iter().map(|l| l.udb_blocks).sum()
    }

    /// Levels that hold tables.
    pub fn levels_in_use(&self) -> usize {
        self.levels.iter().filter(|l| l.tables > 0).count()
    }
}
