//! The LSM engine with flushes and compactions as background jobs
//! (`app::lsm::background`) against a `BTreeMap` reference, on a real
//! `Ssd`. The test plays the run's scheduler: a write that finds the
//! memtable full waits for the flush in flight (installing it), switches
//! memtables and starts the flush; between operations, drawn ticks start a
//! compaction or install a finished job, flush or merge first, so gets and
//! scans run while an immutable memtable and a merge's inputs are what
//! readers must see. Every answer must equal the reference's; at the end,
//! with every job installed and compaction caught up, the engine's and the
//! device's invariants hold and every live file page holds what was
//! written. (The device-level hazards of running jobs beside reads, remaps
//! included, are the scheduler's, checked by the timed YCSB runs in
//! `ycsb.rs`: there every read must find its pages.)

use std::collections::{BTreeMap, VecDeque};

use ftlsim::app::lsm::{Db, Files, Job, LsmConfig, Value};
use ftlsim::Ssd;
use proptest::prelude::*;

use super::lsm_model::{apply, check_device, check_final, device, steps, tiny_with, Step};

/// Jobs in flight, oldest first; at most one flush and one merge.
#[derive(Default)]
struct Jobs {
    flush: Option<Job>,
    merges: VecDeque<Job>,
}

impl Jobs {
    fn install_flush(&mut self, db: &mut Db<Ssd>) {
        if let Some(job) = self.flush.take() {
            db.install(job, !self.merges.is_empty()).unwrap();
        }
    }

    fn install_merge(&mut self, db: &mut Db<Ssd>) {
        if let Some(job) = self.merges.pop_front() {
            db.install(job, false).unwrap();
        }
    }

    fn start_merge(&mut self, db: &mut Db<Ssd>) -> bool {
        if !self.merges.is_empty() {
            return false;
        }
        match db.start_compaction().unwrap() {
            Some(job) => {
                self.merges.push_back(job);
                true
            }
            None => false,
        }
    }
}

fn run_background(db: &mut Db<Ssd>, steps: &[Step], ticks: &[u8]) -> Result<(), TestCaseError> {
    db.set_background(true);
    let mut jobs = Jobs::default();
    let mut model: BTreeMap<Vec<u8>, Value> = BTreeMap::new();
    for (i, step) in steps.iter().enumerate() {
        let tick = ticks[i % ticks.len()];
        if tick & 1 != 0 {
            jobs.start_merge(db);
        }
        match tick >> 1 & 3 {
            1 => jobs.install_flush(db),
            2 => jobs.install_merge(db),
            3 => {
                jobs.install_merge(db);
                jobs.install_flush(db);
            }
            _ => {}
        }
        let writes = matches!(step, Step::Put(..) | Step::Delete(_));
        if writes && db.memtable_full() {
            // The writer waits for the flush in flight, then switches.
            jobs.install_flush(db);
            db.switch_memtable().unwrap();
            jobs.flush = Some(db.start_flush().unwrap());
        }
        apply(db, &mut model, i, step)?;
        if i % 64 == 0 {
            check_device(db).map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
        }
    }
    // Drain: every job installed, then compaction until nothing is left.
    jobs.install_flush(db);
    jobs.install_merge(db);
    while jobs.start_merge(db) {
        jobs.install_merge(db);
    }
    db.check_invariants().map_err(TestCaseError::fail)?;
    check_final(db, &model)
}

fn tiny_db(config: &LsmConfig) -> Db<Ssd> {
    let (_, ssd) = device(512, 256);
    Db::new(config, Files::new(ssd, 512)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn background_engine_matches_btreemap(
        steps in steps(300, 200..1500),
        ticks in prop::collection::vec(any::<u8>(), 1..64),
        l0_trigger in 1..6u32,
        level_ratio in 2..5u32,
    ) {
        let mut db = tiny_db(&tiny_with(l0_trigger, level_ratio));
        run_background(&mut db, &steps, &ticks)?;
    }

    /// Many versions and tombstones of a few keys, seek compaction on.
    #[test]
    fn background_engine_matches_btreemap_on_few_keys(
        steps in steps(24, 200..1200),
        ticks in prop::collection::vec(any::<u8>(), 1..64),
        l0_trigger in 1..6u32,
    ) {
        let config = LsmConfig { seek_compaction: true, ..tiny_with(l0_trigger, 2) };
        let mut db = tiny_db(&config);
        run_background(&mut db, &steps, &ticks)?;
    }
}
