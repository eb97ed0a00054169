//! The LSM engine (`ftlsim::app::lsm`) against a `BTreeMap` reference, on a
//! real `Ssd`: random puts, deletes, gets and scans with tiny memtable,
//! file and level sizes, so that flushes and compactions happen at every
//! level; every answer must equal the reference's, the engine's and the
//! device's invariants must hold, and every page of every live file must
//! hold on the device the content the engine wrote to it. Then the
//! engine's write amplification on a larger load: above 1, and growing as
//! the tree gets more levels.

use std::collections::BTreeMap;

use ftlsim::app::lsm::{Db, Files, LsmConfig, LsmStats, RemapMode, Value};
use ftlsim::config::{Config, GcPolicyName};
use ftlsim::hash::splitmix64;
use ftlsim::{Ssd, SsdOptions};
use proptest::prelude::*;

pub(crate) fn device(page_bytes: u32, blocks: u32) -> (Config, Ssd) {
    device_remapping(page_bytes, blocks, false)
}

/// A device; `remap` turns on `ftl.remap` (many-to-one mapping), which
/// RemapCom's configurations ask for.
fn device_remapping(page_bytes: u32, blocks: u32, remap: bool) -> (Config, Ssd) {
    let mut c = Config::default();
    c.ftl.remap = remap;
    c.device.page_bytes = page_bytes;
    c.device.blocks = blocks;
    c.device.pages_per_block = 32;
    c.device.spare_factor = 0.2;
    c.device.pe_cycle_limit = 0;
    c.ftl.gc_policy = GcPolicyName::Greedy;
    c.validate().unwrap();
    let ssd = Ssd::new(
        &c,
        &SsdOptions {
            track_content: true,
            survival: false,
        },
    )
    .unwrap();
    (c, ssd)
}

/// Sizes small enough that a few hundred operations reach level 4.
fn tiny() -> LsmConfig {
    tiny_with(4, 2)
}

pub(crate) fn tiny_with(l0_trigger: u32, level_ratio: u32) -> LsmConfig {
    LsmConfig {
        // LevelDB counts a memtable's memory in its arena's 4 KiB blocks,
        // the skip list's head node in the first: the smallest memtable
        // is that block's worth of entries, flushed when a second is taken.
        memtable_bytes: 4200,
        block_bytes: 512,
        l0_trigger,
        level_ratio,
        levels: 5,
        l1_bytes: 4096,
        sstable_bytes: 1024,
        ..LsmConfig::default()
    }
}

fn tiny_db(config: &LsmConfig) -> Db<Ssd> {
    let (_, ssd) = device(512, 256);
    Db::new(config, Files::new(ssd, 512)).unwrap()
}

/// Keys of varied lengths (5 to 11 bytes), dense enough to collide often.
pub(crate) fn key(i: u16) -> Vec<u8> {
    let mut k = format!("k{i:04}").into_bytes();
    k.extend(std::iter::repeat_n(b'x', usize::from(i % 7)));
    k
}

#[derive(Clone, Debug)]
pub(crate) enum Step {
    Put(u16, u32, u64),
    Delete(u16),
    Get(u16),
    Scan(u16, usize),
}

pub(crate) fn steps(keys: u16, len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        10 => (0..keys, 1..200u32, any::<u64>()).prop_map(|(k, l, c)| Step::Put(k, l, c)),
        3 => (0..keys).prop_map(Step::Delete),
        4 => (0..keys).prop_map(Step::Get),
        1 => (0..keys, 0..20usize).prop_map(|(k, n)| Step::Scan(k, n)),
    ];
    prop::collection::vec(step, len)
}

/// Device content of every live file page is what was written.
pub(crate) fn check_device(db: &Db<Ssd>) -> Result<(), String> {
    let ssd = db.files().device();
    ssd.check_invariants().map_err(|e| e.to_string())?;
    for (lpn, fp) in db.files().live_pages() {
        if ssd.content_of(lpn) != Some(fp) {
            return Err(format!(
                "LPN {lpn}: device holds {:?}, file wrote {fp}",
                ssd.content_of(lpn)
            ));
        }
    }
    Ok(())
}

/// One step on the engine and on the reference; a read must answer as the
/// reference does.
pub(crate) fn apply(
    db: &mut Db<Ssd>,
    model: &mut BTreeMap<Vec<u8>, Value>,
    i: usize,
    step: &Step,
) -> Result<(), TestCaseError> {
    match *step {
        Step::Put(k, len_bytes, checksum) => {
            let v = Value {
                len_bytes,
                checksum,
            };
            db.put(&key(k), v).unwrap();
            model.insert(key(k), v);
        }
        Step::Delete(k) => {
            db.delete(&key(k)).unwrap();
            model.remove(&key(k));
        }
        Step::Get(k) => {
            let got = db.get(&key(k)).unwrap();
            prop_assert_eq!(got, model.get(&key(k)).copied(), "step {}: get {:?}", i, k);
        }
        Step::Scan(k, limit) => {
            let got = db.scan(&key(k), limit).unwrap();
            let want: Vec<(Vec<u8>, Value)> = model
                .range(key(k)..)
                .take(limit)
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            prop_assert_eq!(got, want, "step {}: scan from {:?}", i, k);
        }
    }
    Ok(())
}

fn run(db: &mut Db<Ssd>, steps: &[Step]) -> Result<(), TestCaseError> {
    let mut model: BTreeMap<Vec<u8>, Value> = BTreeMap::new();
    for (i, step) in steps.iter().enumerate() {
        apply(db, &mut model, i, step)?;
        db.check_invariants()
            .map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
        if i % 64 == 0 {
            check_device(db).map_err(|e| TestCaseError::fail(format!("step {i}: {e}")))?;
        }
    }
    check_final(db, &model)
}

/// Every key, present or not, and one scan over everything, answer as the
/// reference does; then the device's invariants hold.
pub(crate) fn check_final(
    db: &mut Db<Ssd>,
    model: &BTreeMap<Vec<u8>, Value>,
) -> Result<(), TestCaseError> {
    for k in 0..600 {
        prop_assert_eq!(
            db.get(&key(k)).unwrap(),
            model.get(&key(k)).copied(),
            "final get {}",
            k
        );
    }
    let all = db.scan(b"", usize::MAX).unwrap();
    prop_assert_eq!(all.len(), model.len());
    prop_assert!(all
        .iter()
        .zip(model)
        .all(|(a, b)| a.0 == *b.0 && a.1 == *b.1));
    check_device(db).map_err(TestCaseError::fail)?;
    Ok(())
}

fn tiny_remap_db(config: &LsmConfig) -> Db<Ssd> {
    let (_, ssd) = device_remapping(512, 256, true);
    Db::new(config, Files::new(ssd, 512)).unwrap()
}

fn remap_mode() -> impl Strategy<Value = RemapMode> {
    prop_oneof![Just(RemapMode::Base), Just(RemapMode::Full)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// RemapCom: compaction remaps unchanged blocks; answers stay the
    /// reference's and every live file page still holds what was written
    /// to it (or remapped into it), through GC.
    #[test]
    fn engine_with_remap_matches_btreemap(
        steps in steps(300, 200..1500),
        l0_trigger in 1..6u32,
        level_ratio in 2..5u32,
        remap in remap_mode(),
    ) {
        let mut db = tiny_remap_db(&LsmConfig { remap, ..tiny_with(l0_trigger, level_ratio) });
        run(&mut db, &steps)?;
    }

    #[test]
    fn engine_with_remap_matches_btreemap_on_few_keys(
        steps in steps(24, 200..1200),
        l0_trigger in 1..6u32,
        remap in remap_mode(),
    ) {
        let mut db = tiny_remap_db(&LsmConfig { remap, ..tiny_with(l0_trigger, 2) });
        run(&mut db, &steps)?;
    }

    /// Level 0 holds up to `l0_trigger - 1` overlapping tables between
    /// operations, so gets and scans see several of them.
    #[test]
    fn engine_matches_btreemap(
        steps in steps(300, 200..1500),
        l0_trigger in 1..6u32,
        level_ratio in 2..5u32,
    ) {
        let mut db = tiny_db(&tiny_with(l0_trigger, level_ratio));
        run(&mut db, &steps)?;
    }

    /// A small key space: many versions and tombstones of the same keys meet in merges.
    #[test]
    fn engine_matches_btreemap_on_few_keys(steps in steps(24, 200..1200), l0_trigger in 1..6u32) {
        let mut db = tiny_db(&tiny_with(l0_trigger, 2));
        run(&mut db, &steps)?;
    }
}

/// Steps of a get-heavy run: 300 puts, then 95 % gets and 5 % puts.
fn get_heavy_steps(seed: u64, gets: usize) -> Vec<Step> {
    let mut steps: Vec<Step> = (0..300u16)
        .map(|k| Step::Put(k, 40, u64::from(k)))
        .collect();
    for i in 0..gets as u64 {
        let r = splitmix64(seed ^ i);
        let k = (r % 300) as u16;
        steps.push(if r.is_multiple_of(20) {
            Step::Put(k, 40, r)
        } else {
            Step::Get(k)
        });
    }
    steps
}

/// Seek compaction (LevelDB's `allowed_seeks`): a get-heavy run sets off
/// seek compactions (none when off), and the answers, the engine's and the
/// device's invariants and the device content stay right, remap on or off.
#[test]
fn seek_compaction_runs_on_a_get_heavy_load_and_keeps_the_reference() {
    let steps = get_heavy_steps(7, 20_000);
    let mut seeks = Vec::new();
    for (seek_compaction, remap) in [
        (false, RemapMode::Off),
        (true, RemapMode::Off),
        (true, RemapMode::Full),
    ] {
        let config = LsmConfig {
            seek_compaction,
            remap,
            ..tiny_with(4, 4)
        };
        let mut db = tiny_remap_db(&config);
        run(&mut db, &steps).unwrap();
        seeks.push(db.stats().seek_compactions);
    }
    assert_eq!(seeks[0], 0, "off: no seek compaction");
    assert!(seeks[1] > 0 && seeks[2] > 0, "{seeks:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Random steps with seek compaction on: the reference holds.
    #[test]
    fn engine_with_seek_compaction_matches_btreemap(
        steps in steps(300, 500..2500),
        l0_trigger in 1..6u32,
        remap in prop_oneof![Just(RemapMode::Off), Just(RemapMode::Full)],
    ) {
        let mut db = tiny_remap_db(&LsmConfig {
            seek_compaction: true,
            remap,
            ..tiny_with(l0_trigger, 3)
        });
        run(&mut db, &steps)?;
    }
}

/// A fixed long sequence reaches every level, with merges into each.
#[test]
fn long_run_compacts_into_every_level() {
    let mut db = tiny_db(&tiny());
    let steps: Vec<Step> = (0..20_000u64)
        .map(|i| {
            let r = splitmix64(i);
            let k = (r % 500) as u16;
            match r >> 60 {
                0..=9 => Step::Put(k, 1 + (r >> 20) as u32 % 150, r),
                10..=12 => Step::Delete(k),
                13..=14 => Step::Get(k),
                _ => Step::Scan(k, 10),
            }
        })
        .collect();
    run(&mut db, &steps).unwrap();
    let s = db.stats();
    for (level, l) in s.levels.iter().enumerate().skip(1) {
        assert!(l.compactions > 0, "no merge into level {level}: {s:?}");
    }
    assert!(s.levels[4].tables > 0, "nothing reached the last level");
}

/// The long sequence with remapping on: remaps happen, the device keeps
/// every live page's content, and the counters add up.
#[test]
fn long_run_with_remap_remaps_and_keeps_content() {
    for remap in [RemapMode::Base, RemapMode::Full] {
        let mut db = tiny_remap_db(&LsmConfig { remap, ..tiny() });
        let steps: Vec<Step> = (0..20_000u64)
            .map(|i| {
                let r = splitmix64(i);
                let k = (r % 500) as u16;
                match r >> 60 {
                    0..=9 => Step::Put(k, 1 + (r >> 20) as u32 % 150, r),
                    10..=12 => Step::Delete(k),
                    13..=14 => Step::Get(k),
                    _ => Step::Scan(k, 10),
                }
            })
            .collect();
        run(&mut db, &steps).unwrap();
        let s = db.stats();
        assert!(s.remapped_pages() > 0, "{remap:?}: nothing remapped: {s:?}");
        assert_eq!(s.file_remap_pages, s.remapped_pages());
        for l in &s.levels {
            assert!(l.remapped_blocks <= l.udb_blocks, "{remap:?}: {l:?}");
            assert!(
                l.remapped_blocks <= l.unchanged_input_blocks,
                "{remap:?}: {l:?}"
            );
        }
        assert_eq!(
            s.file_write_pages,
            s.wal_write_pages + s.flush_write_pages + s.compaction_write_pages()
        );
    }
}

/// Uniform random puts of 100-byte values over a keyspace the size of the
/// load, with sizes 1/64 of LevelDB's.
fn load(puts: u64) -> (LsmStats, Db<Ssd>) {
    load_with(puts, RemapMode::Off)
}

fn load_with(puts: u64, remap: RemapMode) -> (LsmStats, Db<Ssd>) {
    let (_, ssd) = device_remapping(4096, 1024, remap != RemapMode::Off);
    let config = LsmConfig {
        memtable_bytes: 64 << 10,
        sstable_bytes: 32 << 10,
        l1_bytes: 160 << 10,
        remap,
        ..LsmConfig::default()
    };
    let mut db = Db::new(&config, Files::new(ssd, 4096)).unwrap();
    for i in 0..puts {
        let k = splitmix64(i) % puts;
        let v = Value {
            len_bytes: 100,
            checksum: i,
        };
        db.put(format!("user{k:012}").as_bytes(), v).unwrap();
    }
    (db.stats(), db)
}

#[test]
fn engine_wa_is_above_one_and_grows_with_levels() {
    let (small, _) = load(20_000);
    let (large, mut db) = load(200_000);
    db.check_invariants().unwrap();
    check_device(&db).unwrap();
    let (ws, wl) = (small.engine_wa(), large.engine_wa());
    eprintln!(
        "engine WA {ws:.2} with {} levels in use, {wl:.2} with {}",
        small.levels_in_use(),
        large.levels_in_use()
    );
    for l in &large.levels {
        eprintln!("{l:?}");
    }
    assert!(ws > 1.0, "{small:?}");
    assert!(large.levels_in_use() > small.levels_in_use(), "{large:?}");
    assert!(wl > ws + 1.0, "WA {wl} with more levels is not above {ws}");
    // The file layer's writes are exactly WAL + flush + compaction writes.
    assert_eq!(
        large.file_write_pages,
        large.wal_write_pages + large.flush_write_pages + large.compaction_write_pages()
    );
    let shares = large.wal_wa()
        + (0..large.levels.len())
            .map(|l| large.level_wa(l))
            .sum::<f64>();
    assert!(
        (shares - wl).abs() < 1e-9,
        "WAL and level shares {shares} != engine WA {wl}"
    );
    assert!(
        large.level_wa(3) > 1.0,
        "deep levels carry the growth: {large:?}"
    );
    // A last get of a key written last.
    let k = splitmix64(199_999) % 200_000;
    let got = db.get(format!("user{k:012}").as_bytes()).unwrap().unwrap();
    assert_eq!(got.checksum, 199_999);
}

/// RemapCom-Base writes fewer compaction pages than LevelDB at every level
/// ≥ 2 on the same load, full keeps more blocks whole than base; what is
/// remapped still reads back.
#[test]
fn remapping_writes_fewer_compaction_pages() {
    let (off, _) = load_with(100_000, RemapMode::Off);
    let (base, db_base) = load_with(100_000, RemapMode::Base);
    let (full, mut db_full) = load_with(100_000, RemapMode::Full);
    check_device(&db_base).unwrap();
    check_device(&db_full).unwrap();
    db_full.check_invariants().unwrap();
    for (level, ((o, b), f)) in off
        .levels
        .iter()
        .zip(&base.levels)
        .zip(&full.levels)
        .enumerate()
    {
        eprintln!(
            "L{level}: written off {} base {} full {}; remapped base {} full {}; udb ratio off {:.3} base {:.3} full {:.3}",
            o.compaction_write_pages,
            b.compaction_write_pages,
            f.compaction_write_pages,
            b.remapped_pages,
            f.remapped_pages,
            o.udb_ratio(),
            b.udb_ratio(),
            f.udb_ratio()
        );
    }
    eprintln!(
        "engine WA off {:.3} base {:.3} full {:.3}",
        off.engine_wa(),
        base.engine_wa(),
        full.engine_wa()
    );
    for level in 2..off.levels.len() {
        if off.levels[level].compactions == 0 {
            continue;
        }
        let (o, b, f) = (&off.levels[level], &base.levels[level], &full.levels[level]);
        assert!(
            b.compaction_write_pages < o.compaction_write_pages,
            "L{level}: {b:?} vs {o:?}"
        );
        assert!(
            f.udb_ratio() > b.udb_ratio(),
            "retention keeps more blocks whole"
        );
    }
    // Full is not below base here: with tables this small, retention's
    // short blocks grow the bottom level more than its remaps save
    // (docs/remapcom.md); tests/ycsb.rs checks full ≤ base on YCSB.
    assert!(base.engine_wa() < off.engine_wa());
    let k = splitmix64(99_999) % 100_000;
    let got = db_full
        .get(format!("user{k:012}").as_bytes())
        .unwrap()
        .unwrap();
    assert_eq!(got.checksum, 99_999);
}

/// Same operations, same bytes: the engine's counters and every file page's
/// place and content are equal across two runs.
#[test]
fn runs_are_deterministic() {
    let (a, db_a) = load(30_000);
    let (b, db_b) = load(30_000);
    assert_eq!(a, b);
    let pages = |db: &Db<Ssd>| db.files().live_pages().collect::<Vec<_>>();
    assert_eq!(pages(&db_a), pages(&db_b));
    assert!(a.levels.iter().any(|l| l.udb_blocks > 0), "{a:?}");
}

/// The size of the speed case, to be timed by hand (no wall-clock
/// assertion): `cargo test --release -p ftlsim --test integration lsm_model:: -- --ignored --nocapture`.
#[test]
#[ignore]
fn load_of_a_million_1_kib_records() {
    let mut c = Config::default();
    c.device.blocks = 3840;
    c.device.spare_factor = 0.2;
    c.device.pe_cycle_limit = 0;
    c.validate().unwrap();
    let ssd = Ssd::new(&c, &SsdOptions::default()).unwrap();
    let mut db = Db::new(&LsmConfig::default(), Files::new(ssd, 4096)).unwrap();
    let n = 1_000_000u64;
    let started = std::time::Instant::now();
    for i in 0..n {
        let k = splitmix64(i) % n;
        let v = Value {
            len_bytes: 1000,
            checksum: i,
        };
        db.put(format!("user{k:016}").as_bytes(), v).unwrap();
    }
    let s = db.stats();
    eprintln!(
        "{n} puts in {:.2} s; engine WA {:.2}",
        started.elapsed().as_secs_f64(),
        s.engine_wa()
    );
    for (level, l) in s.levels.iter().enumerate() {
        eprintln!("L{level}: {l:?} udb ratio {:.3}", l.udb_ratio());
    }
    db.check_invariants().unwrap();
    db.files().device().check_invariants().unwrap();
}
