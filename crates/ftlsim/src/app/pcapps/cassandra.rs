//! `cassandra`: a commit log and size-tiered compaction (program 4).
//!
//! * Extents of F pages, F = region/360: a memtable's worth.
//! * A step appends F one-page commit-log records (PC `COMMIT_LOG`, manual
//!   stream 1), flushes the memtable to a tier-0 SSTable of F pages (PC
//!   `FLUSH`, manual 2) and deletes the log segment.
//! * Size-tiered compaction: four tables of tier t (4^t F pages) merge into
//!   one of tier t + 1 (PC `COMPACT`, the same at every tier; manual 3
//!   below the top tier, 4 for it). The top tier (tier 3, 64 F) holds at
//!   most three tables: a merge into it replaces the oldest (its keys are
//!   overwritten), so the data set stays the same size.
//! * Lifetimes grow four-fold per tier: about 4, 16, 64 and 192 flushes.
//!
//! At most about 340 F (95 % of the region) is live during a merge.

use std::collections::VecDeque;

use super::{tag, Emit, Extents, File, Model, BULK_PAGES};

const PROGRAM: u32 = 4;
const COMMIT_LOG: u32 = 1;
const FLUSH: u32 = 2;
const COMPACT: u32 = 3;
const TOP: usize = 3;
const FAN_IN: usize = 4;
const TOP_TABLES: usize = 3;

pub struct Cassandra {
    space: Extents,
    tiers: [VecDeque<File>; TOP + 1],
}

impl Cassandra {
    pub fn new(base: u64, region_pages: u64, _seed: u64) -> Self {
        let file_pages = (region_pages / 360).max(1);
        Self {
            space: Extents::new(base, region_pages, file_pages),
            tiers: Default::default(),
        }
    }
}

impl Model for Cassandra {
    fn step(&mut self, emit: &mut Emit) {
        self.space.settle();
        // Commit log (thread 0), flush (1) and compaction (2) run side by side.
        emit.on(0);
        let log = File::write(&mut self.space, 1, tag(PROGRAM, COMMIT_LOG, 1), 1, 0, emit);
        let table = File::write(
            &mut self.space,
            1,
            tag(PROGRAM, FLUSH, 2),
            BULK_PAGES,
            0,
            emit,
        );
        log.delete(&mut self.space, emit);
        self.tiers[0].push_back(table);
        emit.on(2);
        for t in 0..TOP {
            if self.tiers[t].len() < FAN_IN {
                break;
            }
            let manual = if t + 1 == TOP { 4 } else { 3 };
            let extents = (FAN_IN as u64).pow(t as u32 + 1);
            let merged = File::write(
                &mut self.space,
                extents,
                tag(PROGRAM, COMPACT, manual),
                BULK_PAGES,
                0,
                emit,
            );
            for f in self.tiers[t].drain(..) {
                f.delete(&mut self.space, emit);
            }
            self.tiers[t + 1].push_back(merged);
        }
        if self.tiers[TOP].len() > TOP_TABLES {
            let oldest = self.tiers[TOP].pop_front().expect("over size");
            oldest.delete(&mut self.space, emit);
        }
    }
}
