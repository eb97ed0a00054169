//! `sqlite`: a database in WAL mode (program 2).
//!
//! * The database file: 60 % of the region, table pages updated in place.
//!   Updates are skewed by key, and keys are clustered: a tenth of the
//!   table (the first pages) takes 80 % of the updates, the rest share 20 %.
//! * A transaction updates 4 table pages: it appends them plus a commit
//!   page to the WAL (one-page writes, PC `WAL`, manual stream 1), a small
//!   region (1 % of the region) overwritten in place from its start.
//! * When the WAL is full, a checkpoint writes every table page dirtied
//!   since the last one back to the database file, in address order (PC
//!   `CHECKPOINT`, manual stream 2 for hot pages, 3 for the rest).
//!
//! One PC writes hot and cold table pages alike, so PCStream cannot tell
//! them apart, while an address-based assigner can: the paper's exception.

use std::collections::BTreeSet;

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{tag, Emit, Model};
use crate::rng;

const PROGRAM: u32 = 2;
const WAL: u32 = 1;
const CHECKPOINT: u32 = 2;
const HOT_SHARE: f64 = 0.10;
const HOT_UPDATES: f64 = 0.80;
const PAGES_PER_TRANSACTION: u32 = 4;

pub struct Sqlite {
    table_base: u64,
    table_pages: u64,
    hot_pages: u64,
    wal_base: u64,
    wal_pages: u64,
    wal_at: u64,
    dirty: BTreeSet<u64>,
    rng: Xoshiro256PlusPlus,
}

impl Sqlite {
    pub fn new(base: u64, region_pages: u64, seed: u64) -> Self {
        let wal_pages = (region_pages / 100).max(8);
        let table_pages = region_pages * 6 / 10;
        Self {
            table_base: base + wal_pages,
            table_pages,
            hot_pages: ((table_pages as f64 * HOT_SHARE) as u64).max(1),
            wal_base: base,
            wal_pages,
            wal_at: 0,
            dirty: BTreeSet::new(),
            rng: rng::stream(seed, "sqlite"),
        }
    }

    /// In thread 1, beside the WAL appends of thread 0.
    fn checkpoint(&mut self, emit: &mut Emit) {
        emit.on(1);
        // Runs of consecutive dirty pages become one request each.
        let pages: Vec<u64> = std::mem::take(&mut self.dirty).into_iter().collect();
        let mut i = 0;
        while i < pages.len() {
            let mut j = i + 1;
            while j < pages.len() && pages[j] == pages[j - 1] + 1 && j - i < 32 {
                j += 1;
            }
            let hot = pages[i] < self.hot_pages;
            let manual = if hot { 2 } else { 3 };
            emit.write(
                self.table_base + pages[i],
                (j - i) as u64,
                tag(PROGRAM, CHECKPOINT, manual),
                32,
            );
            i = j;
        }
    }
}

impl Model for Sqlite {
    fn step(&mut self, emit: &mut Emit) {
        for _ in 0..PAGES_PER_TRANSACTION {
            let page = if self.rng.random_bool(HOT_UPDATES) {
                self.rng.random_range(0..self.hot_pages)
            } else {
                self.rng.random_range(self.hot_pages..self.table_pages)
            };
            self.dirty.insert(page);
        }
        for _ in 0..=PAGES_PER_TRANSACTION {
            emit.on(0);
            emit.write(self.wal_base + self.wal_at, 1, tag(PROGRAM, WAL, 1), 1);
            self.wal_at += 1;
            if self.wal_at == self.wal_pages {
                self.wal_at = 0;
                self.checkpoint(emit);
            }
        }
    }
}
