//! The engine: puts and deletes go to the WAL and the memtable; a full
//! memtable is flushed to a table (level 0, or deeper when nothing overlaps
//! it) and then compactions run until every level is within its target.
//! Gets look in the memtable, then level 0 newest first, then one table
//! per level; scans merge every source. There are no snapshots, so each
//! merge keeps only the newest version of a key.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use super::compaction::{self, Choice};
use super::config::LsmConfig;
use super::entry::{self, Entry, Value};
use super::files::{FileId, Files};
use super::memtable::Memtable;
use super::merge_output::MergeOutput;
use super::sstable::{allowed_seeks, Table, TableBuilder, CONTEXT_COMPACTION, CONTEXT_FLUSH};
use super::stats::{LevelStats, LsmStats};
use super::udb::{InputBlock, Tag};
use super::version::Version;
use super::wal::Wal;
use crate::error::{ConfigError, SimError};
use crate::request::BlockDevice;

/// Most compactions one flush may set off: far above what a flush can need
/// (a few per level), so reaching it means compaction is not converging.
pub(super) const MAX_COMPACTIONS_PER_FLUSH: usize = 100_000;

/// A key-value store on the files of `D`.
pub struct Db<D: BlockDevice> {
    pub(super) config: LsmConfig,
    pub(super) files: Files<D>,
    pub(super) mem: Memtable,
    /// The memtable being flushed in the background (`background.rs`),
    /// and the log that covers it, deleted once the flush is installed.
    pub(super) imm: Option<Memtable>,
    pub(super) imm_wal: Option<FileId>,
    pub(super) wal: Wal,
    pub(super) version: Version,
    seq: u64,
    /// Per level, the largest key of its last compaction (round robin).
    pub(super) pointers: Vec<Option<Vec<u8>>>,
    /// The table that ran out of seeks, waiting for a seek compaction.
    pub(super) file_to_compact: Option<(usize, FileId)>,
    pub(super) stats: LsmStats,
    /// Flushes and compactions are background jobs that the run's
    /// scheduler starts and installs (`background.rs`); off, they run
    /// inline after the write that filled the memtable.
    pub(super) background: bool,
}

/// One item of a scan source: key, sequence, value, and the data block it
/// came from (`(level, table, block)`; `None` for the memtable).
type ScanItem<'a> = (&'a [u8], u64, Option<Value>, Option<(usize, usize, usize)>);

/// A scan source's head in the merge heap: smallest key first, then the
/// newest version, then the source.
type ScanHead<'a> = Reverse<(&'a [u8], Reverse<u64>, usize)>;

impl<D: BlockDevice> Db<D> {
    /// An empty store on `files`.
    pub fn new(config: &LsmConfig, mut files: Files<D>) -> Result<Self, ConfigError> {
        config.validate("lsm")?;
        files.set_trims(config.trim);
        let levels = config.levels as usize;
        let stats = LsmStats {
            page_bytes: files.page_bytes(),
            levels: vec![LevelStats::default(); levels],
            ..LsmStats::default()
        };
        Ok(Self {
            config: config.clone(),
            files,
            mem: Memtable::default(),
            imm: None,
            imm_wal: None,
            wal: Wal::default(),
            version: Version::new(levels),
            seq: 0,
            pointers: vec![None; levels],
            file_to_compact: None,
            stats,
            background: false,
        })
    }

    /// Stores `value` under `key`.
    pub fn put(&mut self, key: &[u8], value: Value) -> Result<(), SimError> {
        self.stats.puts += 1;
        self.write(key, Some(value))
    }

    /// Deletes `key` (writes a tombstone).
    pub fn delete(&mut self, key: &[u8]) -> Result<(), SimError> {
        self.stats.deletes += 1;
        self.write(key, None)
    }

    fn write(&mut self, key: &[u8], value: Option<Value>) -> Result<(), SimError> {
        self.seq += 1;
        let bytes = entry::entry_bytes(key.len(), value);
        let hash = entry::content_hash(key, self.seq, value);
        let before = self.files.counters().write_pages;
        self.wal.append(&mut self.files, bytes, hash)?;
        self.stats.wal_write_pages += self.files.counters().write_pages - before;
        self.mem.insert(key, self.seq, value);
        self.stats.user_write_bytes +=
            key.len() as u64 + value.map_or(0, |v| u64::from(v.len_bytes));
        // LevelDB switches memtables when the next write finds the arena
        // over `write_buffer_size`: the same memtable as flushing now.
        // In the background the scheduler makes room before the next write
        // (`background.rs`), as LevelDB's `MakeRoomForWrite` does.
        if !self.background && self.mem.memory_bytes() > self.config.memtable_bytes {
            self.flush()?;
        }
        Ok(())
    }

    /// The value stored under `key`, reading the one data block per table
    /// that may hold it (filters and indexes are in memory, as LevelDB's
    /// table cache holds them).
    pub fn get(&mut self, key: &[u8]) -> Result<Option<Value>, SimError> {
        self.stats.gets += 1;
        if let Some(v) = self.mem.get(key) {
            return Ok(v);
        }
        if let Some(v) = self.imm.as_ref().and_then(|imm| imm.get(key)) {
            return Ok(v);
        }
        // LevelDB charges a get that probed more than one table to the
        // first table it probed (filter checks count: they are probes).
        let mut first_probe: Option<(usize, usize)> = None;
        let mut charged: Option<(usize, usize)> = None;
        let mut found = None;
        'levels: for (level, tables) in self.version.levels.iter().enumerate() {
            let candidates: Vec<usize> = if level == 0 {
                (0..tables.len())
                    .rev()
                    .filter(|&i| tables[i].covers(key))
                    .collect()
            } else {
                let i = tables.partition_point(|t| t.largest() < key);
                (i < tables.len() && tables[i].covers(key))
                    .then_some(i)
                    .into_iter()
                    .collect()
            };
            for i in candidates {
                match first_probe {
                    None => first_probe = Some((level, i)),
                    Some(first) if charged.is_none() => charged = Some(first),
                    Some(_) => {}
                }
                let t = &tables[i];
                if !t.bloom.may_contain(key) {
                    self.stats.bloom_skips += 1;
                    continue;
                }
                let Some(block) = t.block_for(key) else {
                    continue;
                };
                t.read_block(&mut self.files, block)?;
                self.stats.lookup_block_reads += 1;
                if let Some(e) = t.find_in_block(block, key) {
                    found = Some(e.value);
                    break 'levels;
                }
            }
        }
        if let (true, Some((level, i))) = (self.config.seek_compaction, charged) {
            self.charge_seek(level, i)?;
        }
        Ok(found.flatten())
    }

    /// Takes one seek from table `index` of `level`; when it has none left,
    /// it is compacted (unless another table already waits for that).
    fn charge_seek(&mut self, level: usize, index: usize) -> Result<(), SimError> {
        let t = &mut self.version.levels[level][index];
        t.allowed_seeks = t.allowed_seeks.saturating_sub(1);
        if t.allowed_seeks > 0 || self.file_to_compact.is_some() {
            return Ok(());
        }
        self.file_to_compact = Some((level, t.file));
        if self.background {
            // The scheduler starts it when the background thread is free.
            return Ok(());
        }
        self.compact()
    }

    /// Up to `limit` live entries with keys ≥ `start`, in key order, reading
    /// every data block the scan passes through.
    pub fn scan(&mut self, start: &[u8], limit: usize) -> Result<Vec<(Vec<u8>, Value)>, SimError> {
        self.stats.scans += 1;
        let mut out = Vec::new();
        let mut blocks: Vec<(usize, usize, usize)> = Vec::new();
        {
            let mut sources: Vec<Box<dyn Iterator<Item = ScanItem<'_>> + '_>> = Vec::new();
            sources.push(Box::new(
                self.mem.range_from(start).map(|(k, s, v)| (k, s, v, None)),
            ));
            if let Some(imm) = &self.imm {
                sources.push(Box::new(
                    imm.range_from(start).map(|(k, s, v)| (k, s, v, None)),
                ));
            }
            for (level, tables) in self.version.levels.iter().enumerate() {
                if level == 0 {
                    for i in 0..tables.len() {
                        sources.push(Box::new(run_from(tables, 0, i, i + 1, start)));
                    }
                } else {
                    let first = tables.partition_point(|t| t.largest() < start);
                    sources.push(Box::new(run_from(
                        tables,
                        level,
                        first,
                        tables.len(),
                        start,
                    )));
                }
            }
            // Each source reads the block its position lands in, as a
            // LevelDB iterator does when it seeks and when it steps on.
            let mut last_block: Vec<Option<(usize, usize, usize)>> = vec![None; sources.len()];
            let mut land = |src: usize, head: &Option<ScanItem<'_>>| {
                let block = head.and_then(|h| h.3);
                if block.is_some() && block != last_block[src] {
                    last_block[src] = block;
                    blocks.extend(block);
                }
            };
            let mut heads: Vec<Option<ScanItem<'_>>> = Vec::with_capacity(sources.len());
            for (src, source) in sources.iter_mut().enumerate() {
                let head = source.next();
                land(src, &head);
                heads.push(head);
            }
            let mut heap: BinaryHeap<ScanHead<'_>> = heads
                .iter()
                .enumerate()
                .filter_map(|(i, h)| h.map(|(k, s, _, _)| Reverse((k, Reverse(s), i))))
                .collect();
            let mut last_key: Option<&[u8]> = None;
            while out.len() < limit {
                let Some(Reverse((key, _, src))) = heap.pop() else {
                    break;
                };
                let (_, _, value, _) = heads[src].expect("a head in the heap");
                heads[src] = sources[src].next();
                land(src, &heads[src]);
                if let Some((k, s, _, _)) = heads[src] {
                    heap.push(Reverse((k, Reverse(s), src)));
                }
                if last_key == Some(key) {
                    continue; // an older version
                }
                last_key = Some(key);
                if let Some(v) = value {
                    out.push((key.to_vec(), v));
                }
            }
        }
        for (level, table, block) in blocks {
            self.version.levels[level][table].read_block(&mut self.files, block)?;
            self.stats.lookup_block_reads += 1;
        }
        Ok(out)
    }

    /// Flushes the memtable (if it holds anything) and compacts until
    /// every level is within its target.
    pub fn flush(&mut self) -> Result<(), SimError> {
        if self.mem.is_empty() {
            return Ok(());
        }
        let before = self.files.counters().write_pages;
        let old_wal = self.wal.close(&mut self.files)?;
        self.stats.wal_write_pages += self.files.counters().write_pages - before;
        let entries = self.mem.take_entries();
        let (lo, hi) = (&entries[0].key, &entries[entries.len() - 1].key);
        let level = compaction::flush_level(&self.version, &self.config, lo, hi);
        let mut builder = TableBuilder::new(
            self.config.block_bytes,
            self.files.page_bytes(),
            self.config.layout(),
        );
        for e in entries {
            builder.add(e);
        }
        let table = builder
            .finish(&mut self.files, CONTEXT_FLUSH)?
            .expect("a non-empty memtable makes a table");
        self.stats.flush_write_pages += table.pages();
        let l0 = &mut self.stats.levels[0];
        l0.compaction_write_pages += table.pages();
        l0.compactions += 1;
        self.stats.levels[level].flush_placed_pages += table.pages();
        if level == 0 {
            self.version.levels[0].push(table);
        } else {
            self.version.insert_sorted(level, table);
        }
        if let Some(file) = old_wal {
            self.files.delete(file)?;
        }
        self.compact()
    }

    pub(super) fn compact(&mut self) -> Result<(), SimError> {
        for _ in 0..MAX_COMPACTIONS_PER_FLUSH {
            match self.next_compaction() {
                None | Some(Choice::Nothing) => return Ok(()),
                Some(Choice::Move { level, index }) => self.apply_move(level, index),
                Some(Choice::Merge {
                    level,
                    inputs,
                    next_inputs,
                }) => self.merge(level, &inputs, &next_inputs)?,
            }
        }
        Err(SimError::Invariant(format!(
            "lsm: {MAX_COMPACTIONS_PER_FLUSH} compactions after one flush; compaction does not converge"
        )))
    }

    /// What to compact next: the pick by size score, else the table that
    /// ran out of seeks (`None`: nothing).
    pub(super) fn next_compaction(&mut self) -> Option<Choice> {
        match compaction::pick(&self.version, &self.config, &self.pointers) {
            Choice::Nothing => {
                let c = self.seek_choice()?;
                self.stats.seek_compactions += 1;
                Some(c)
            }
            c => Some(c),
        }
    }

    /// Moves table `index` of `level` down a level, untouched.
    pub(super) fn apply_move(&mut self, level: usize, index: usize) {
        let mut table = self.version.levels[level].remove(index);
        self.pointers[level] = Some(table.largest().to_vec());
        // LevelDB re-adds a moved file as a new one, with a fresh seek budget.
        table.allowed_seeks = allowed_seeks(table.size_bytes);
        self.version.insert_sorted(level + 1, table);
        self.stats.levels[level + 1].moves += 1;
    }

    /// The seek compaction of the table that ran out of seeks, if it is
    /// still where it was (a compaction since may have taken it).
    pub(super) fn seek_choice(&mut self) -> Option<Choice> {
        let (level, file) = self.file_to_compact.take()?;
        let index = self.version.levels[level]
            .iter()
            .position(|t| t.file == file)?;
        compaction::pick_seek(&self.version, &self.config, level, index)
    }

    /// Merges tables `inputs` of `level` and `next_inputs` of `level + 1`
    /// into new tables of `level + 1`.
    fn merge(
        &mut self,
        level: usize,
        inputs: &[usize],
        next_inputs: &[usize],
    ) -> Result<(), SimError> {
        let out_level = level + 1;
        let mut taken = take(&mut self.version.levels[level], inputs);
        self.pointers[level] = taken.iter().map(|t| t.largest().to_vec()).max();
        taken.extend(take(&mut self.version.levels[out_level], next_inputs));
        let (outputs, files) = self.merge_tables(out_level, taken)?;
        for t in outputs {
            self.version.insert_sorted(out_level, t);
        }
        for file in files {
            self.files.delete(file)?;
        }
        Ok(())
    }

    /// Reads the tables `taken` whole, merges them and writes the output
    /// tables of `out_level`, counting the level's compaction; returns the
    /// outputs and the input files, which the caller puts in the version
    /// and deletes (at once, or when a background merge completes).
    pub(super) fn merge_tables(
        &mut self,
        out_level: usize,
        taken: Vec<Table>,
    ) -> Result<(Vec<Table>, Vec<FileId>), SimError> {
        let mut input_hashes: HashSet<u64> = HashSet::new();
        let mut input_blocks: Vec<InputBlock> = Vec::new();
        let mut runs = Vec::with_capacity(taken.len());
        let mut files = Vec::with_capacity(taken.len());
        for t in taken {
            // A compaction reads its inputs whole.
            self.files.read(t.file, 0, t.pages())?;
            self.stats.levels[out_level].compaction_read_pages += t.pages();
            input_hashes.extend(t.blocks.iter().map(|b| b.content_hash));
            files.push(t.file);
            let mut run = Vec::with_capacity(t.entry_count());
            for b in t.blocks {
                let block = input_blocks.len() as u32;
                input_blocks.push(InputBlock {
                    file: t.file,
                    first_page: b.first_page,
                    pages: b.pages,
                    entries: b.entries.len() as u32,
                });
                run.extend(b.entries.into_iter().enumerate().map(|(i, e)| {
                    (
                        e,
                        Tag {
                            block,
                            index: i as u32,
                        },
                    )
                }));
            }
            runs.push(run);
        }
        let version = &self.version;
        let merged = compaction::merge(runs, |key| version.is_base_level_for(out_level, key));
        let empty: &[Table] = &[];
        let grandparents = self
            .version
            .levels
            .get(out_level + 1)
            .map_or(empty, |v| v.as_slice());
        let remap_before = self.files.counters().remap_pages;
        let write_before = self.files.counters().write_pages;
        let result = MergeOutput::new(
            &self.config,
            self.files.page_bytes(),
            self.config.layout(),
            CONTEXT_COMPACTION + out_level as u64,
            grandparents,
            &input_blocks,
        )
        .run(&mut self.files, merged)?;
        let c = self.files.counters();
        let stats = &mut self.stats.levels[out_level];
        stats.compactions += 1;
        stats.compaction_write_pages += c.write_pages - write_before;
        stats.remapped_pages += c.remap_pages - remap_before;
        stats.remapped_blocks += result.remapped_blocks;
        stats.unchanged_input_blocks += result.unchanged_blocks;
        for t in &result.tables {
            stats.output_blocks += t.blocks.len() as u64;
            stats.udb_blocks += t
                .blocks
                .iter()
                .filter(|b| input_hashes.contains(&b.content_hash))
                .count() as u64;
        }
        Ok((result.tables, files))
    }

    /// The engine's counters, with the current tables and bytes per level.
    pub fn stats(&self) -> LsmStats {
        let mut s = self.stats.clone();
        for (level, l) in s.levels.iter_mut().enumerate() {
            l.tables = self.version.levels[level].len() as u64;
            l.bytes = self.version.level_bytes(level);
        }
        let c = self.files.counters();
        s.file_write_pages = c.write_pages;
        s.file_read_pages = c.read_pages;
        s.file_trim_pages = c.trim_pages;
        s.file_remap_pages = c.remap_pages;
        s
    }

    pub fn config(&self) -> &LsmConfig {
        &self.config
    }

    /// The file layer (and through it the device).
    pub fn files(&self) -> &Files<D> {
        &self.files
    }

    pub fn files_mut(&mut self) -> &mut Files<D> {
        &mut self.files
    }

    /// Checks the engine's invariants: tables well formed and of bounded
    /// size, levels ≥ 1 sorted and disjoint, every level within its target
    /// (compaction has caught up), every live file a table or the WAL, and
    /// the file layer's own invariants.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.version.check(&self.config, self.files.page_bytes())?;
        for (level, score) in compaction::scores(&self.version, &self.config)
            .iter()
            .enumerate()
        {
            if *score >= 1.0 {
                return Err(format!(
                    "level {level} is over its target (score {score:.2}) after compaction"
                ));
            }
        }
        // A flush writes one memtable; a merge cuts its output once its
        // closed blocks reach `sstable_bytes`: either way a table's entries
        // pass the larger of the two by less than its largest block and an
        // entry.
        let cap_bytes = self.config.sstable_bytes.max(self.config.memtable_bytes);
        for (level, tables) in self.version.levels.iter().enumerate() {
            for t in tables {
                let sizes = t
                    .blocks
                    .iter()
                    .flat_map(|b| &b.entries)
                    .map(Entry::size_bytes);
                let (total, largest) = sizes.fold((0, 0), |(t, m), e| (t + e, e.max(m)));
                let block = t.blocks.iter().map(|b| b.size_bytes).max().unwrap_or(0);
                if total >= cap_bytes + block + largest {
                    return Err(format!(
                        "level {level}: table {} holds {total} bytes of entries, \
                         above {cap_bytes} by a block and an entry",
                        t.file.0
                    ));
                }
                if self.files.pages(t.file) != t.pages() {
                    return Err(format!(
                        "level {level}: table {} pages differ from its file",
                        t.file.0
                    ));
                }
            }
        }
        let tables: usize = self.version.levels.iter().map(Vec::len).sum();
        let files = self.files.file_count();
        if files != tables && files != tables + 1 {
            return Err(format!(
                "{files} live files for {tables} tables and at most one WAL"
            ));
        }
        self.files.check_invariants()
    }
}

/// Removes the tables at `indices` (ascending) from `tables`.
fn take(tables: &mut Vec<Table>, indices: &[usize]) -> Vec<Table> {
    let mut out: Vec<Table> = indices.iter().rev().map(|&i| tables.remove(i)).collect();
    out.reverse();
    out
}

/// The entries of `tables[first..end]` with keys ≥ `start`, in order.
fn run_from<'a>(
    tables: &'a [Table],
    level: usize,
    first: usize,
    end: usize,
    start: &'a [u8],
) -> impl Iterator<Item = ScanItem<'a>> + 'a {
    tables[first..end]
        .iter()
        .enumerate()
        .flat_map(move |(ti, t)| {
            let b0 = t.block_for(start).unwrap_or(t.blocks.len());
            t.blocks[b0..].iter().enumerate().flat_map(move |(bi, b)| {
                b.entries
                    .iter()
                    .filter(move |e| e.key.as_slice() >= start)
                    .map(move |e| {
                        (
                            e.key.as_slice(),
                            e.seq,
                            e.value,
                            Some((level, first + ti, b0 + bi)),
                        )
                    })
            })
        })
}

#[cfg(test)]
mod tests {
    use super::super::files::tests::{mem, MemDevice};
    use super::*;

    /// 4 KiB pages and blocks, 16 KiB files, level 0 compacted at once.
    fn db(memtable_bytes: u64, l1_bytes: u64, level_ratio: u32, levels: u32) -> Db<MemDevice> {
        let config = LsmConfig {
            memtable_bytes,
            l0_trigger: 1,
            l1_bytes,
            level_ratio,
            sstable_bytes: 16 << 10,
            levels,
            ..LsmConfig::default()
        };
        Db::new(&config, Files::new(mem(1 << 14), 4096)).unwrap()
    }

    fn key(i: u32) -> Vec<u8> {
        format!("key{i:06}").into_bytes()
    }

    fn value(len_bytes: u32, checksum: u64) -> Value {
        Value {
            len_bytes,
            checksum,
        }
    }

    fn tables(db: &Db<MemDevice>) -> Vec<u64> {
        db.stats().levels.iter().map(|l| l.tables).collect()
    }

    #[test]
    fn a_merge_into_the_bottom_level_drops_tombstones() {
        let mut db = db(64 << 10, 64 << 10, 10, 2);
        for i in 0..200 {
            db.put(&key(i), value(100, 1)).unwrap();
        }
        db.flush().unwrap();
        assert_eq!(
            tables(&db),
            vec![0, 1],
            "the flushed table moved to level 1"
        );
        for i in 0..200 {
            db.delete(&key(i)).unwrap();
        }
        db.flush().unwrap();
        db.check_invariants().unwrap();
        // Tombstones and values met at the bottom: nothing is left, not a file.
        assert_eq!(tables(&db), vec![0, 0]);
        assert_eq!(db.files().file_count(), 0);
        assert_eq!(db.get(&key(7)).unwrap(), None);
        assert!(db.scan(b"", 10).unwrap().is_empty());
    }

    #[test]
    fn a_merge_above_older_values_keeps_tombstones() {
        // Level targets 4, 8, 16 KiB; bottom level 3.
        let mut db = db(64 << 10, 4 << 10, 2, 4);
        for i in 0..200 {
            db.put(&key(i), value(100, 1)).unwrap();
        }
        db.flush().unwrap();
        assert_eq!(
            tables(&db),
            vec![0, 0, 0, 1],
            "flushed to level 2, moved to 3"
        );
        for round in 0..2 {
            for i in 0..200 {
                db.delete(&key(i)).unwrap();
            }
            db.flush().unwrap();
            db.check_invariants().unwrap();
            if round == 0 {
                assert_eq!(
                    tables(&db),
                    vec![0, 0, 1, 1],
                    "tombstones flushed to level 2"
                );
            }
        }
        // The second round's tombstones merged into level 2 over the values
        // at level 3: they must stay there, or the values would come back.
        let s = db.stats();
        assert_eq!(s.levels[2].compactions, 1, "{s:?}");
        assert_eq!(tables(&db), vec![0, 0, 1, 1]);
        assert!(s.levels[2].bytes > 200 * 20, "the tombstones' table: {s:?}");
        assert_eq!(db.get(&key(7)).unwrap(), None);
        assert!(db.scan(b"", 10).unwrap().is_empty());
    }

    #[test]
    fn a_moved_table_gets_a_fresh_seek_budget() {
        // Level targets 4, 8, 16 KiB; the flushed table lands at level 3.
        let mut db = db(64 << 10, 4 << 10, 2, 4);
        for i in 0..200 {
            db.put(&key(i), value(100, 1)).unwrap();
        }
        db.flush().unwrap();
        assert_eq!(tables(&db), vec![0, 0, 0, 1]);
        // Put it back at level 2 with its seeks spent: level 2 is over its
        // target and the table has nothing under it, so it moves.
        let mut t = db.version.levels[3].remove(0);
        t.allowed_seeks = 0;
        db.version.insert_sorted(2, t);
        db.compact().unwrap();
        assert_eq!(tables(&db), vec![0, 0, 0, 1]);
        let t = &db.version.levels[3][0];
        assert_eq!(t.allowed_seeks, allowed_seeks(t.size_bytes));
    }

    #[test]
    fn unchanged_blocks_of_a_merge_are_counted() {
        // Flushed tables move to the bottom (level 2) one by one. A 16 KiB
        // memtable (4 KiB of it LevelDB's arena block for the skip list's
        // head) makes tables of a few blocks.
        let mut db = db(16 << 10, 128, 10, 3);
        for i in 0..2000 {
            db.put(&key(i), value(100, 1)).unwrap();
        }
        db.flush().unwrap();
        assert_eq!(db.stats().levels[2].compactions, 0, "no merge yet");
        // One new version of one key, of the same size: the merge into
        // level 2 rewrites the block holding it, and copies the table's
        // other blocks byte for byte.
        db.put(&key(1500), value(100, 2)).unwrap();
        db.flush().unwrap();
        db.check_invariants().unwrap();
        let s = db.stats();
        let l2 = &s.levels[2];
        assert_eq!(l2.compactions, 1, "{s:?}");
        assert_eq!(l2.udb_blocks + 1, l2.output_blocks, "{l2:?}");
        assert!(l2.output_blocks > 1, "{l2:?}");
        assert_eq!(db.get(&key(1500)).unwrap(), Some(value(100, 2)));
        assert_eq!(db.get(&key(1499)).unwrap(), Some(value(100, 1)));
    }

    #[test]
    fn gets_and_scans_read_the_blocks_they_touch() {
        let mut db = db(64 << 10, 64 << 10, 10, 2);
        for i in 0..200 {
            db.put(&key(i), value(100, u64::from(i))).unwrap();
        }
        db.flush().unwrap();
        // 120 bytes an entry: 34 entries a block (LevelDB closes a block
        // once it reaches 4 KiB).
        assert_eq!(db.get(&key(50)).unwrap(), Some(value(100, 50)));
        let s = db.stats();
        assert_eq!(
            (s.lookup_block_reads, s.file_read_pages),
            (1, 2),
            "block 1 straddles pages 1 and 2"
        );
        // An absent key in the table's range: the filter or the block says so.
        assert_eq!(db.get(b"key000050x").unwrap(), None);
        let s = db.stats();
        assert_eq!(s.lookup_block_reads + s.bloom_skips, 2);
        // 100 entries from key 0, landing on entry 100 at the end: blocks 0, 1, 2.
        let got = db.scan(&key(0), 100).unwrap();
        assert_eq!(got.len(), 100);
        assert_eq!(got[99].1, value(100, 99));
        assert_eq!(db.stats().lookup_block_reads - s.lookup_block_reads, 3);
    }

    #[test]
    fn bad_config_is_refused_with_its_key() {
        let config = LsmConfig {
            levels: 1,
            ..LsmConfig::default()
        };
        let e = Db::new(&config, Files::new(mem(16), 4096)).err().unwrap();
        assert_eq!(e.key, "lsm.levels");
    }
}
