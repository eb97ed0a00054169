//! `rocksdb`: a leveled LSM tree (program 1).
//!
//! * The memtable and every SST are one extent of F pages, F = region/600.
//! * A step fills the memtable: F one-page WAL appends (PC `WAL`, manual
//!   stream 1), then flushes it to an L0 SST (PC `FLUSH`, manual 2) and
//!   deletes the WAL file.
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
//! The WAL writer, the flush with the merge into L1, and the merges into
//! L2 and L3 are four threads (`Emit`): their writes interleave. The tree
//! occupies about 83 % of its region (98 % at the peak of a step, when a
//! step's inputs are deleted).

use std::collections::VecDeque;

use super::{tag, Emit, Extents, File, Model, BULK_PAGES};

const PROGRAM: u32 = 1;
const WAL: u32 = 1;
const FLUSH: u32 = 2;
const COMPACT: u32 = 3;
const LOAD: u32 = 4;

/// Files per level (L1, L2, L3) and the overlap of a merge.
const LEVEL_FILES: [usize; 3] = [4, 40, 450];
const L0_TRIGGER: usize = 4;
const OVERLAP: usize = 10;

pub struct Rocksdb {
    space: Extents,
    /// L0 and L1..L3, each oldest first.
    levels: [VecDeque<File>; 4],
    loaded: bool,
}

impl Rocksdb {
    pub fn new(base: u64, region_pages: u64, _seed: u64) -> Self {
        let file_pages = (region_pages / 600).max(1);
        Self {
            space: Extents::new(base, region_pages, file_pages),
            levels: Default::default(),
            loaded: false,
        }
    }

    fn write_file(&mut self, site: u32, manual: u8, emit: &mut Emit) -> File {
        let per = if site == WAL { 1 } else { BULK_PAGES };
        File::write(&mut self.space, 1, tag(PROGRAM, site, manual), per, emit)
    }

    /// Merges `inputs` into level `to` (1..=3) with `overlap` of its files,
    /// in compaction thread `to` (merges into different levels run side by side).
    fn merge(&mut self, inputs: Vec<File>, to: usize, overlap: usize, emit: &mut Emit) {
        emit.on(to);
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
