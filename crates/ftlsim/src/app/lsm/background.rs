//! Flushes and compactions as background jobs (`lsm.background_threads` ≥ 1
//! with the timing model on). The run's scheduler (`run/lsm/background.rs`)
//! decides when: it switches the memtable when a write finds it full, starts
//! a job on a free background thread, and installs the job when its last
//! device request has completed in simulated time. A job issues all its
//! requests when it starts (the engine never waits for what a request
//! returns), but what it made becomes visible only at install, as LevelDB's
//! background thread applies its version edit when the work is done: until
//! then gets and scans see the immutable memtable and the merge's inputs,
//! so no read reaches a page not yet written, nor one already trimmed.

use super::compaction::{self, Choice};
use super::db::{Db, MAX_COMPACTIONS_PER_FLUSH};
use super::entry::Entry;
use super::files::FileId;
use super::sstable::{Table, TableBuilder, CONTEXT_FLUSH};
use crate::error::SimError;
use crate::request::BlockDevice;

/// A background job whose requests were issued: what it installs.
#[derive(Debug)]
pub enum Job {
    /// The immutable memtable written as `table`; its log `old_wal` is
    /// deleted at install.
    Flush {
        table: Table,
        old_wal: Option<FileId>,
    },
    /// A merge of the tables of files `inputs` (at `level` and `level + 1`)
    /// into `outputs` at `level + 1`.
    Merge {
        level: usize,
        inputs: Vec<FileId>,
        outputs: Vec<Table>,
    },
}

impl Job {
    pub fn is_flush(&self) -> bool {
        matches!(self, Job::Flush { .. })
    }
}

impl<D: BlockDevice> Db<D> {
    /// Flushes and compactions wait for the scheduler (on) or run inline
    /// after the write that filled the memtable (off). Turned on only
    /// between jobs: nothing may be in flight.
    pub fn set_background(&mut self, on: bool) {
        debug_assert!(self.imm.is_none(), "no flush in flight");
        self.background = on;
    }

    /// The memtable is over the write buffer: the next write must make room.
    pub fn memtable_full(&self) -> bool {
        // Never an empty one: an arena's first block alone can exceed a tiny
        // `lsm.memtable_bytes`, and a flush of nothing makes no table (the
        // inline engine checks after an insert, so it never meets one).
        !self.mem.is_empty() && self.mem.memory_bytes() > self.config.memtable_bytes
    }

    /// A memtable is being flushed (LevelDB's `imm_ != nullptr`).
    pub fn has_imm(&self) -> bool {
        self.imm.is_some()
    }

    /// Tables at level 0 in the installed version.
    pub fn l0_files(&self) -> usize {
        self.version.levels[0].len()
    }

    /// Makes the full memtable immutable and starts a new one and a new
    /// log; the old log's last page is written by the writer, here.
    pub fn switch_memtable(&mut self) -> Result<(), SimError> {
        debug_assert!(self.background && self.imm.is_none());
        let before = self.files.counters().write_pages;
        self.imm_wal = self.wal.close(&mut self.files)?;
        self.stats.wal_write_pages += self.files.counters().write_pages - before;
        self.imm = Some(std::mem::take(&mut self.mem));
        Ok(())
    }

    /// Writes the immutable memtable as a table (its requests go to the
    /// device now); the table joins the version at [`Db::install`].
    pub fn start_flush(&mut self) -> Result<Job, SimError> {
        let imm = self.imm.as_ref().expect("a flush has a memtable to write");
        let mut builder = TableBuilder::new(
            self.config.block_bytes,
            self.files.page_bytes(),
            self.config.layout(),
        );
        for (key, seq, value) in imm.range_from(b"") {
            builder.add(Entry {
                key: key.to_vec(),
                seq,
                value,
            });
        }
        let table = builder
            .finish(&mut self.files, CONTEXT_FLUSH)?
            .expect("a full memtable makes a table");
        self.stats.flush_write_pages += table.pages();
        let l0 = &mut self.stats.levels[0];
        l0.compaction_write_pages += table.pages();
        l0.compactions += 1;
        Ok(Job::Flush {
            table,
            old_wal: self.imm_wal.take(),
        })
    }

    /// Starts the next compaction, if any: trivial moves are applied at
    /// once (they move no data), a merge reads its inputs and writes its
    /// outputs now and swaps them into the version at [`Db::install`].
    pub fn start_compaction(&mut self) -> Result<Option<Job>, SimError> {
        for _ in 0..MAX_COMPACTIONS_PER_FLUSH {
            match self.next_compaction() {
                None | Some(Choice::Nothing) => return Ok(None),
                Some(Choice::Move { level, index }) => self.apply_move(level, index),
                Some(Choice::Merge {
                    level,
                    inputs,
                    next_inputs,
                }) => {
                    let tables = &self.version.levels;
                    self.pointers[level] = inputs
                        .iter()
                        .map(|&i| tables[level][i].largest().to_vec())
                        .max();
                    // The inputs stay in the version (readers still see
                    // them): the merge works on copies.
                    let taken: Vec<Table> = inputs
                        .iter()
                        .map(|&i| tables[level][i].clone())
                        .chain(next_inputs.iter().map(|&i| tables[level + 1][i].clone()))
                        .collect();
                    let (outputs, inputs) = self.merge_tables(level + 1, taken)?;
                    return Ok(Some(Job::Merge {
                        level,
                        inputs,
                        outputs,
                    }));
                }
            }
        }
        Err(SimError::Invariant(format!(
            "lsm: {MAX_COMPACTIONS_PER_FLUSH} trivial moves in a row; compaction does not converge"
        )))
    }

    /// Puts what `job` made into the version and deletes what it replaced
    /// (the trims go to the device now). A flush goes as deep as LevelDB
    /// would place it now; while a merge is in flight (`merging`), at level
    /// 0, since the merge's outputs, not yet in the version, could overlap
    /// it deeper down.
    pub fn install(&mut self, job: Job, merging: bool) -> Result<(), SimError> {
        match job {
            Job::Flush { table, old_wal } => {
                let level = if merging {
                    0
                } else {
                    compaction::flush_level(
                        &self.version,
                        &self.config,
                        table.smallest(),
                        table.largest(),
                    )
                };
                self.stats.levels[level].flush_placed_pages += table.pages();
                if level == 0 {
                    self.version.levels[0].push(table);
                } else {
                    self.version.insert_sorted(level, table);
                }
                self.imm = None;
                if let Some(file) = old_wal {
                    self.files.delete(file)?;
                }
            }
            Job::Merge {
                level,
                inputs,
                outputs,
            } => {
                for l in [level, level + 1] {
                    self.version.levels[l].retain(|t| !inputs.contains(&t.file));
                }
                for t in outputs {
                    self.version.insert_sorted(level + 1, t);
                }
                for file in inputs {
                    self.files.delete(file)?;
                }
            }
        }
        Ok(())
    }
}
