//! What to compact, as pure functions of the levels (LevelDB's
//! `VersionSet::PickCompaction`), and the merge of the chosen tables'
//! entries. The engine ([`super::db`]) carries the choice out.
//!
//! Each level gets a score: level 0 its table count over `l0_trigger`,
//! level L ≥ 1 its bytes over its target. The level with the highest score
//! ≥ 1 is compacted: the first table after the level's compaction pointer
//! (round robin over the key space; level 0's tables in order of their
//! smallest key, as LevelDB keeps them), at level 0 with every level-0
//! table that overlaps it (transitively), together with the tables of
//! level L + 1 that overlap them, and then with the tables of level L that
//! fit in that range without taking more of level L + 1. A single table
//! with nothing under it and little overlap two levels down is moved
//! instead.

use super::config::LsmConfig;
use super::entry::Entry;
use super::udb::Tag;
use super::version::Version;

/// Overlap with level L + 2 beyond which a compaction output file is cut,
/// and beyond which a single table is not moved, in `sstable_bytes`
/// (LevelDB's `MaxGrandParentOverlapBytes`: 10 files).
pub const GRANDPARENT_OVERLAP_FILES: u64 = 10;

/// Bytes, in `sstable_bytes`, under which a compaction's inputs at the
/// picked level may grow to the tables that fit in its key range
/// (LevelDB's `ExpandedCompactionByteSizeLimit`: 25 files).
pub const EXPANDED_COMPACTION_FILES: u64 = 25;

/// What to do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// No level is over its target.
    Nothing,
    /// Move table `index` of `level` to `level + 1` as it is.
    Move { level: usize, index: usize },
    /// Merge tables `inputs` of `level` with `next_inputs` of `level + 1`
    /// into `level + 1`.
    Merge {
        level: usize,
        inputs: Vec<usize>,
        next_inputs: Vec<usize>,
    },
}

/// Each level's score; the last level has none (it is never compacted).
pub fn scores(version: &Version, config: &LsmConfig) -> Vec<f64> {
    let last = version.levels.len() - 1;
    (0..last)
        .map(|level| {
            if level == 0 {
                version.levels[0].len() as f64 / f64::from(config.l0_trigger)
            } else {
                version.level_bytes(level) as f64 / config.level_target_bytes(level) as f64
            }
        })
        .collect()
}

/// The next compaction. `pointers[level]` is the largest key of the last
/// compaction at that level.
pub fn pick(version: &Version, config: &LsmConfig, pointers: &[Option<Vec<u8>>]) -> Choice {
    let scores = scores(version, config);
    let Some((level, _)) = scores
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s >= 1.0)
        // The first of equal scores wins, so the choice is deterministic.
        .fold(None, |best: Option<(usize, f64)>, (l, &s)| match best {
            Some((_, b)) if b >= s => best,
            _ => Some((l, s)),
        })
    else {
        return Choice::Nothing;
    };
    let tables = &version.levels[level];
    // LevelDB keeps every level, level 0 too, in order of smallest key
    // (then file number) and takes the first table past the pointer.
    let mut order: Vec<usize> = (0..tables.len()).collect();
    if level == 0 {
        order.sort_by(|&a, &b| {
            (tables[a].smallest(), tables[a].file.0).cmp(&(tables[b].smallest(), tables[b].file.0))
        });
    }
    let pointer = pointers[level].as_deref();
    let first = order
        .iter()
        .copied()
        .find(|&i| pointer.is_none_or(|p| tables[i].largest() > p))
        .unwrap_or(order[0]);
    choose(version, config, level, first)
}

/// The compaction of table `index` of `level` that ran out of seeks
/// (LevelDB's seek compaction, done when no level is over its target):
/// the table, with its overlapping level-0 tables at level 0, into
/// `level + 1`. `None` at the last level, which is never compacted.
pub fn pick_seek(
    version: &Version,
    config: &LsmConfig,
    level: usize,
    index: usize,
) -> Option<Choice> {
    (level + 1 < version.levels.len() && index < version.levels[level].len())
        .then(|| choose(version, config, level, index))
}

/// Compacts table `first` of `level` (and at level 0 the tables meeting
/// it) with what overlaps it at `level + 1`, or moves it when it may.
/// Like LevelDB's `SetupOtherInputs`, the level's inputs then grow to every
/// table inside the key range of the whole compaction, if that takes no
/// more table of `level + 1` and keeps the inputs under
/// [`EXPANDED_COMPACTION_FILES`] files' bytes.
fn choose(version: &Version, config: &LsmConfig, level: usize, first: usize) -> Choice {
    let table = &version.levels[level][first];
    let (mut inputs, mut lo, mut hi) = if level == 0 {
        level0_inputs(version, table.smallest(), table.largest())
    } else {
        (vec![first], table.smallest(), table.largest())
    };
    let mut next_inputs = version.overlapping(level + 1, lo, hi);
    if let (Some(&a), Some(&b)) = (next_inputs.first(), next_inputs.last()) {
        let next = &version.levels[level + 1];
        let all_lo = lo.min(next[a].smallest());
        let all_hi = hi.max(next[b].largest());
        let (expanded, new_lo, new_hi) = if level == 0 {
            level0_inputs(version, all_lo, all_hi)
        } else {
            let e = version.overlapping(level, all_lo, all_hi);
            let tables = &version.levels[level];
            let (lo, hi) = (tables[e[0]].smallest(), tables[e[e.len() - 1]].largest());
            (e, lo, hi)
        };
        let bytes = |level: usize, tables: &[usize]| -> u64 {
            tables
                .iter()
                .map(|&i| version.levels[level][i].size_bytes)
                .sum()
        };
        if expanded.len() > inputs.len()
            && bytes(level + 1, &next_inputs) + bytes(level, &expanded)
                < EXPANDED_COMPACTION_FILES * config.sstable_bytes
        {
            let expanded_next = version.overlapping(level + 1, new_lo, new_hi);
            if expanded_next.len() == next_inputs.len() {
                (inputs, next_inputs, lo, hi) = (expanded, expanded_next, new_lo, new_hi);
            }
        }
    }
    let grandparent_bytes = version.overlapping_bytes(level + 2, lo, hi);
    if inputs.len() == 1
        && next_inputs.is_empty()
        && grandparent_bytes <= GRANDPARENT_OVERLAP_FILES * config.sstable_bytes
    {
        return Choice::Move {
            level,
            index: inputs[0],
        };
    }
    Choice::Merge {
        level,
        inputs,
        next_inputs,
    }
}

/// Every level-0 table meeting `[lo, hi]`, the range growing by each table
/// found until it stops (level-0 tables overlap one another, LevelDB's
/// `GetOverlappingInputs`), and the key range of the tables found.
fn level0_inputs<'v>(
    version: &'v Version,
    mut lo: &'v [u8],
    mut hi: &'v [u8],
) -> (Vec<usize>, &'v [u8], &'v [u8]) {
    let tables = &version.levels[0];
    loop {
        let inputs = version.overlapping(0, lo, hi);
        let found_lo = inputs.iter().map(|&i| tables[i].smallest()).min();
        let found_hi = inputs.iter().map(|&i| tables[i].largest()).max();
        let (Some(found_lo), Some(found_hi)) = (found_lo, found_hi) else {
            return (inputs, lo, hi);
        };
        if found_lo >= lo && found_hi <= hi {
            return (inputs, found_lo, found_hi);
        }
        (lo, hi) = (found_lo.min(lo), found_hi.max(hi));
    }
}

/// The level a flushed memtable of keys `[lo, hi]` goes to: level 0, or up
/// to level 2 when nothing there or above overlaps it and it would not
/// overlap much two levels further down (LevelDB's
/// `PickLevelForMemTableOutput`).
pub fn flush_level(version: &Version, config: &LsmConfig, lo: &[u8], hi: &[u8]) -> usize {
    const MAX_FLUSH_LEVEL: usize = 2;
    let mut level = 0;
    if !version.overlapping(0, lo, hi).is_empty() {
        return 0;
    }
    let last = version.levels.len() - 1;
    while level < MAX_FLUSH_LEVEL && level + 1 < last {
        if !version.overlapping(level + 1, lo, hi).is_empty() {
            break;
        }
        if version.overlapping_bytes(level + 2, lo, hi)
            > GRANDPARENT_OVERLAP_FILES * config.sstable_bytes
        {
            break;
        }
        level += 1;
    }
    level
}

/// One entry of a merge, in internal key order: where it came from, and
/// whether it is kept (`false`: an older version of a key, or a tombstone
/// dropped).
#[derive(Clone, Debug)]
pub struct Merged {
    pub entry: Entry,
    pub tag: Tag,
    pub keep: bool,
}

/// Merges sorted runs of entries into one in internal key order, keeping
/// only the newest version of each key (there are no snapshots) and
/// dropping a tombstone when `drop_tombstone(key)` says no older version
/// can exist below the output level. Dropped entries stay in the result,
/// marked, so that RemapCom's state machine sees them where they fall.
pub fn merge(
    runs: Vec<Vec<(Entry, Tag)>>,
    mut drop_tombstone: impl FnMut(&[u8]) -> bool,
) -> Vec<Merged> {
    let mut all: Vec<(Entry, Tag)> = runs.into_iter().flatten().collect();
    all.sort_unstable_by(|a, b| a.0.key.cmp(&b.0.key).then(b.0.seq.cmp(&a.0.seq)));
    let mut out: Vec<Merged> = Vec::with_capacity(all.len());
    for (i, (entry, tag)) in all.into_iter().enumerate() {
        // An older version of the key just handled goes.
        let older = i > 0 && out[i - 1].entry.key == entry.key;
        let keep = !(older || (entry.value.is_none() && drop_tombstone(&entry.key)));
        out.push(Merged { entry, tag, keep });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::entry::Value;
    use super::super::files::tests::{mem, MemDevice};
    use super::super::files::Files;
    use super::super::sstable::{Layout, Table, TableBuilder};
    use super::*;

    /// A table of keys `key{i}` for `i` in `keys`, 100-byte values.
    fn table(files: &mut Files<MemDevice>, keys: std::ops::Range<u32>) -> Table {
        let mut b = TableBuilder::new(4096, 4096, Layout::Packed);
        for i in keys {
            b.add(Entry {
                key: format!("key{i:05}").into_bytes(),
                seq: u64::from(i),
                value: Some(Value {
                    len_bytes: 100,
                    checksum: 0,
                }),
            });
        }
        b.finish(files, 0).unwrap().unwrap()
    }

    fn config() -> LsmConfig {
        LsmConfig {
            l0_trigger: 4,
            l1_bytes: 64 << 10,
            sstable_bytes: 16 << 10,
            levels: 4,
            ..LsmConfig::default()
        }
    }

    #[test]
    fn level_0_at_its_trigger_merges_every_overlapping_table() {
        let mut files = Files::new(mem(1 << 16), 4096);
        let mut v = Version::new(4);
        // 0 and 1 overlap each other only through 2; 3 stands apart.
        v.levels[0].push(table(&mut files, 0..100));
        v.levels[0].push(table(&mut files, 500..600));
        v.levels[0].push(table(&mut files, 90..510));
        assert_eq!(
            pick(&v, &config(), &[None, None, None, None]),
            Choice::Nothing
        );
        v.levels[0].push(table(&mut files, 2000..2100));
        v.levels[1].push(table(&mut files, 550..700));
        v.levels[1].push(table(&mut files, 1000..1100));
        assert_eq!(
            pick(&v, &config(), &[None, None, None, None]),
            Choice::Merge {
                level: 0,
                inputs: vec![0, 1, 2],
                next_inputs: vec![0],
            }
        );
    }

    #[test]
    fn an_oversized_level_compacts_round_robin_and_moves_lone_tables() {
        let mut files = Files::new(mem(1 << 16), 4096);
        let mut v = Version::new(4);
        // Level 1: 5 tables of 16 pages (64 KiB + meta each) > 64 KiB.
        for t in 0..5 {
            v.levels[1].push(table(&mut files, t * 1000..t * 1000 + 500));
        }
        v.levels[2].push(table(&mut files, 1200..1300));
        let none = vec![None; 4];
        // The first table has nothing under it: moved.
        assert_eq!(
            pick(&v, &config(), &none),
            Choice::Move { level: 1, index: 0 }
        );
        // After key00499 the next table, which overlaps level 2: merged.
        let mut pointers = none.clone();
        pointers[1] = Some(b"key00499".to_vec());
        assert_eq!(
            pick(&v, &config(), &pointers),
            Choice::Merge {
                level: 1,
                inputs: vec![1],
                next_inputs: vec![0],
            }
        );
        // Past the last table: wraps to the first.
        pointers[1] = Some(b"key99999".to_vec());
        assert_eq!(
            pick(&v, &config(), &pointers),
            Choice::Move { level: 1, index: 0 }
        );
        assert!(scores(&v, &config())[1] > 1.0);
    }

    #[test]
    fn inputs_grow_to_the_tables_inside_the_range_when_the_next_level_keeps_its_share() {
        let mut files = Files::new(mem(1 << 16), 4096);
        let mut v = Version::new(4);
        for t in 0..6 {
            v.levels[1].push(table(&mut files, t * 100..t * 100 + 50));
        }
        v.levels[2].push(table(&mut files, 0..250));
        v.levels[2].push(table(&mut files, 400..530));
        // Level 1 (six tables of about 6 KiB) over its 16 KiB target.
        let c = LsmConfig {
            l1_bytes: 16 << 10,
            ..config()
        };
        let none = vec![None; 4];
        // Table 0 meets level 2's first table, whose range holds level 1's
        // tables 1 and 2 as well, and no more of level 2: all three go.
        assert_eq!(
            pick(&v, &c, &none),
            Choice::Merge {
                level: 1,
                inputs: vec![0, 1, 2],
                next_inputs: vec![0],
            }
        );
        // After the pointer, table 3 meets nothing at level 2: it moves.
        let mut pointers = none.clone();
        pointers[1] = Some(b"key00250".to_vec());
        assert_eq!(pick(&v, &c, &pointers), Choice::Move { level: 1, index: 3 });
        // Table 4 meets level 2's second table, whose range holds table 5
        // too, and tables 4 and 5 take no more of level 2: both go.
        pointers[1] = Some(b"key00350".to_vec());
        assert_eq!(
            pick(&v, &c, &pointers),
            Choice::Merge {
                level: 1,
                inputs: vec![4, 5],
                next_inputs: vec![1],
            }
        );
    }

    #[test]
    fn growing_stops_where_it_would_take_more_of_the_next_level() {
        let mut files = Files::new(mem(1 << 16), 4096);
        let mut v = Version::new(4);
        for t in 0..6 {
            v.levels[1].push(table(&mut files, t * 100..t * 100 + 50));
        }
        // 0..120 holds table 1's start; grown to 0..150, level 2's second
        // table (140..145) would join: not grown.
        v.levels[2].push(table(&mut files, 0..120));
        v.levels[2].push(table(&mut files, 140..145));
        let c = LsmConfig {
            l1_bytes: 16 << 10,
            ..config()
        };
        assert_eq!(
            pick(&v, &c, &[None, None, None, None]),
            Choice::Merge {
                level: 1,
                inputs: vec![0],
                next_inputs: vec![0],
            }
        );
    }

    #[test]
    fn level_0_is_picked_by_smallest_key_after_its_pointer() {
        let mut files = Files::new(mem(1 << 16), 4096);
        let mut v = Version::new(4);
        let c = LsmConfig {
            l0_trigger: 2,
            ..config()
        };
        // The older table holds the larger keys; nothing overlaps.
        v.levels[0].push(table(&mut files, 500..600));
        v.levels[0].push(table(&mut files, 0..100));
        let mut pointers = vec![None; 4];
        assert_eq!(pick(&v, &c, &pointers), Choice::Move { level: 0, index: 1 });
        pointers[0] = Some(b"key00099".to_vec());
        assert_eq!(pick(&v, &c, &pointers), Choice::Move { level: 0, index: 0 });
    }

    #[test]
    fn a_flush_goes_below_level_0_only_where_nothing_overlaps() {
        let mut files = Files::new(mem(1 << 16), 4096);
        let mut v = Version::new(4);
        assert_eq!(flush_level(&v, &config(), b"key00010", b"key00020"), 2);
        v.levels[2].push(table(&mut files, 0..100));
        assert_eq!(flush_level(&v, &config(), b"key00010", b"key00020"), 1);
        v.levels[0].push(table(&mut files, 15..16));
        assert_eq!(flush_level(&v, &config(), b"key00010", b"key00020"), 0);
        assert_eq!(flush_level(&v, &config(), b"key00200", b"key00300"), 2);
    }

    fn e(key: &str, seq: u64, live: bool) -> Entry {
        Entry {
            key: key.as_bytes().to_vec(),
            seq,
            value: live.then_some(Value {
                len_bytes: 1,
                checksum: seq,
            }),
        }
    }

    #[test]
    fn merge_keeps_newest_and_drops_tombstones_only_when_asked() {
        let tag = |block, index| Tag { block, index };
        let runs = vec![
            vec![(e("a", 5, true), tag(0, 0)), (e("c", 6, false), tag(0, 1))],
            vec![
                (e("a", 1, true), tag(1, 0)),
                (e("b", 2, true), tag(1, 1)),
                (e("c", 3, true), tag(2, 0)),
                (e("d", 4, false), tag(2, 1)),
            ],
        ];
        let kept = |out: &[Merged]| -> Vec<(Vec<u8>, u64)> {
            out.iter()
                .filter(|m| m.keep)
                .map(|m| (m.entry.key.clone(), m.entry.seq))
                .collect()
        };
        let out = merge(runs.clone(), |_| false);
        assert_eq!(
            kept(&out),
            vec![
                (b"a".to_vec(), 5),
                (b"b".to_vec(), 2),
                (b"c".to_vec(), 6),
                (b"d".to_vec(), 4)
            ]
        );
        // Dropped entries stay in order with their tags.
        assert_eq!(out.len(), 6);
        assert_eq!((out[1].tag, out[1].keep), (tag(1, 0), false));
        let out = merge(runs, |k| k == b"c");
        let keys: Vec<Vec<u8>> = kept(&out).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec![b"a".to_vec(), b"b".to_vec(), b"d".to_vec()]);
    }
}
