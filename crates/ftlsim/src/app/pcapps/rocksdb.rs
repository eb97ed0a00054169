//! `rocksdb`: a leveled LSM tree (program 1), shaped after RocksDB's
//! `db_bench` on ext4 as a capture of it shows (docs/pcstream.md, "The
//! rocksdb model and real RocksDB", has the measurements).
//!
//! * The memtable and every SST are one extent of F pages, F = region/600.
//! * A step fills the memtable: its WAL file (PC `WAL`, manual stream 1),
//!   then the flush of the memtable to an L0 SST (PC `FLUSH`, manual 2),
//!   and the WAL file is deleted.
//! * Four L0 files are merged with all of L1 into L1 (inputs deleted);
//!   L1 holds 4 files and L2 40: each file over a level's size is merged,
//!   oldest first, with the 10 files of the level below it that its keys
//!   overlap (the oldest there), and the merge writes those 11 files back
//!   to the level below. The last level (L3, 450 files, bulk-loaded at the
//!   start with PC `LOAD`) absorbs: a merge into it writes 10 files, since
//!   the newer keys replace older ones.
//! * Every compaction output has the same PC (`COMPACT`) whatever its
//!   level, while lifetimes grow with the level: L1 data lives about one
//!   L0 merge, L2 about four, L3 about 40. The manual map knows the level
//!   (manual streams 3, 4, 5 for L1, L2, L3).
//!
//! Threads ([`Emit`]): the application's thread writes the WAL (thread 0),
//! the flush thread the L0 files (1: RocksDB's high-priority pool), and the
//! compaction pool (threads 2.., [`COMPACTION_THREADS`]) every merge: as in
//! RocksDB, any pool thread runs a compaction of any level, each merge on
//! the pool's next thread. `db_bench`'s default (`max_background_jobs` = 2)
//! is one flush and one compaction thread, and so is the capture: one
//! thread wrote every compaction output, at every level, another every
//! flush. The tree occupies about 83 % of its region (98 % at the peak of
//! a step, when a step's inputs are deleted).
//!
//! How the files reach the device (page-cache writeback on ext4; in the
//! capture, and what the model does):
//!
//! * The WAL is written back like any other file (`db_bench` writes it
//!   without sync by default), in requests of [`BULK_PAGES`]: 99 % of the
//!   capture's written pages came in requests of 128 KiB or more.
//! * A file reaches the device in sequential runs of up to
//!   [`WRITEBACK_RUN_PAGES`] that no other thread's writes interrupt: 91 %
//!   of the capture's pages came in sequential runs of 4 MiB or more (the
//!   page-weighted median run, 1888 pages, is about a whole 7.4 MiB file).
//! * Freed space is reused scattered, not first in, first out
//!   ([`Extents::scattered`]): ext4 allocates near a goal, and in the
//!   capture a file written into freed space took the space freed longest
//!   ago 5 times in 89, and 25 of the 89 took space a file of the other
//!   kind (WAL or SST) had held.

use std::collections::VecDeque;

use super::{tag, Emit, Extents, File, Model, BULK_PAGES, WRITEBACK_RUN_PAGES};
use crate::rng;

const PROGRAM: u32 = 1;
const WAL: u32 = 1;
const FLUSH: u32 = 2;
const COMPACT: u32 = 3;
const LOAD: u32 = 4;

/// Files per level (L1, L2, L3) and the overlap of a merge.
const LEVEL_FILES: [usize; 3] = [4, 40, 450];
const L0_TRIGGER: usize = 4;
const OVERLAP: usize = 10;

/// Threads of the compaction pool (`db_bench`'s default: one).
const COMPACTION_THREADS: usize = 1;
/// The pool's first thread (0 writes the WAL, 1 flushes).
const FIRST_COMPACTION_THREAD: usize = 2;

pub struct Rocksdb {
    space: Extents,
    /// L0 and L1..L3, each oldest first.
    levels: [VecDeque<File>; 4],
    loaded: bool,
    /// Threads of the compaction pool ([`COMPACTION_THREADS`]).
    pool: usize,
    /// Merges started so far: the next one runs on pool thread
    /// `merges % pool`.
    merges: usize,
}

impl Rocksdb {
    pub fn new(base: u64, region_pages: u64, seed: u64) -> Self {
        let file_pages = (region_pages / 600).max(1);
        Self {
            space: Extents::scattered(
                base,
                region_pages,
                file_pages,
                rng::stream(seed, "rocksdb-extents"),
            ),
            levels: Default::default(),
            loaded: false,
            pool: COMPACTION_THREADS,
            merges: 0,
        }
    }

    fn write_file(&mut self, site: u32, manual: u8, emit: &mut Emit) -> File {
        File::write(
            &mut self.space,
            1,
            tag(PROGRAM, site, manual),
            BULK_PAGES,
            WRITEBACK_RUN_PAGES,
            emit,
        )
    }

    /// Merges `inputs` into level `to` (1..=3) with `overlap` of its files,
    /// on the compaction pool's next thread.
    fn merge(&mut self, inputs: Vec<File>, to: usize, overlap: usize, emit: &mut Emit) {
        emit.on(FIRST_COMPACTION_THREAD + self.merges % self.pool);
        self.merges += 1;
        let below: Vec<File> = (0..overlap.min(self.levels[to].len()))
            .filter_map(|_| self.levels[to].pop_front())
            .collect();
        let outputs = if to == 3 {
            below.len().max(1)
        } else {
            inputs.len() + below.len()
        };
        for _ in 0..outputs {
            let f = self.write_file(COMPACT, 2 + to as u8, emit);
            self.levels[to].push_back(f);
        }
        for f in inputs.into_iter().chain(below) {
            f.delete(&mut self.space, emit);
        }
    }
}

impl Model for Rocksdb {
    fn step(&mut self, emit: &mut Emit) {
        self.space.settle();
        if !self.loaded {
            // Bulk load of the last level, so the tree starts in steady state.
            for _ in 0..LEVEL_FILES[2] {
                let f = self.write_file(LOAD, 5, emit);
                self.levels[3].push_back(f);
            }
            self.loaded = true;
            return;
        }
        // The WAL writer (thread 0) runs beside the flush and compactions.
        emit.on(0);
        let wal = self.write_file(WAL, 1, emit);
        emit.on(1);
        let l0 = self.write_file(FLUSH, 2, emit);
        wal.delete(&mut self.space, emit);
        self.levels[0].push_back(l0);
        if self.levels[0].len() >= L0_TRIGGER {
            let inputs: Vec<File> = self.levels[0].drain(..).collect();
            let all_l1 = self.levels[1].len();
            self.merge(inputs, 1, all_l1, emit);
        }
        for level in 1..3 {
            while self.levels[level].len() > LEVEL_FILES[level - 1] {
                let f = self.levels[level].pop_front().expect("over size");
                self.merge(vec![f], level + 1, OVERLAP, emit);
            }
        }
    }
}
