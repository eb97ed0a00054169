//! The levels: level 0 holds flushed tables whose key ranges may overlap
//! (newest last); each level ≥ 1 holds tables sorted by key with disjoint
//! ranges, so a key is in at most one table per level.

use super::config::LsmConfig;
use super::sstable::Table;

#[derive(Debug)]
pub struct Version {
    pub levels: Vec<Vec<Table>>,
}

impl Version {
    pub fn new(levels: usize) -> Self {
        Self {
            levels: (0..levels).map(|_| Vec::new()).collect(),
        }
    }

    /// Bytes of the files at `level`.
    pub fn level_bytes(&self, level: usize) -> u64 {
        self.levels[level].iter().map(|t| t.size_bytes).sum()
    }

    /// Indices of the tables at `level` whose key range meets `[lo, hi]`.
    pub fn overlapping(&self, level: usize, lo: &[u8], hi: &[u8]) -> Vec<usize> {
        let tables = &self.levels[level];
        if level == 0 {
            return (0..tables.len())
                .filter(|&i| tables[i].smallest() <= hi && lo <= tables[i].largest())
                .collect();
        }
        let first = tables.partition_point(|t| t.largest() < lo);
        let end = tables.partition_point(|t| t.smallest() <= hi);
        (first..end.max(first)).collect()
    }

    /// Bytes of the tables at `level` whose key range meets `[lo, hi]`.
    pub fn overlapping_bytes(&self, level: usize, lo: &[u8], hi: &[u8]) -> u64 {
        if level >= self.levels.len() {
            return 0;
        }
        self.overlapping(level, lo, hi)
            .into_iter()
            .map(|i| self.levels[level][i].size_bytes)
            .sum()
    }

    /// Whether no level below `level` can hold `key` (LevelDB's
    /// `IsBaseLevelForKey`): a tombstone written to `level` may then go.
    pub fn is_base_level_for(&self, level: usize, key: &[u8]) -> bool {
        self.levels[level + 1..].iter().all(|tables| {
            let i = tables.partition_point(|t| t.largest() < key);
            tables.get(i).is_none_or(|t| t.smallest() > key)
        })
    }

    /// Inserts a table into level `level` ≥ 1 at its place by key.
    pub fn insert_sorted(&mut self, level: usize, table: Table) {
        let tables = &mut self.levels[level];
        let at = tables.partition_point(|t| t.smallest() < table.smallest());
        tables.insert(at, table);
    }

    /// Every table well formed; levels ≥ 1 sorted with disjoint key ranges.
    pub fn check(&self, config: &LsmConfig, page_bytes: u32) -> Result<(), String> {
        for (level, tables) in self.levels.iter().enumerate() {
            for t in tables {
                t.check(
                    u64::from(config.block_bytes),
                    u64::from(page_bytes),
                    config.layout(),
                )
                .map_err(|e| format!("level {level}: {e}"))?;
            }
            if level == 0 {
                continue;
            }
            for pair in tables.windows(2) {
                if pair[0].largest() >= pair[1].smallest() {
                    return Err(format!(
                        "level {level}: tables {} and {} overlap or are out of order",
                        pair[0].file.0, pair[1].file.0
                    ));
                }
            }
        }
        Ok(())
    }
}
