//! The output side of a merge: cuts output tables at `sstable_bytes` and
//! before they overlap too much of the level two below, and applies the
//! RemapCom mode to the entries the merge keeps.
//!
//! * `off`: every output block is written.
//! * `base`: blocks are cut as usual; a block that happens to be one whole
//!   unchanged input block is remapped from the input's pages.
//! * `full`: lazy write-back holds the entries of the candidate input
//!   block back until the state machine ([`super::udb`]) knows its fate;
//!   an unchanged one is retained whole (the open output block is cut
//!   before it and after it, leaving that block short: internal
//!   fragmentation) and remapped, a changed one flows into the output as
//!   its entries would have without RemapCom. An unchanged block shorter
//!   than half of `block_bytes` (a fragment an earlier retention cut left)
//!   is not retained but re-packed with its neighbours, so that fragments
//!   do not pile up in the bottom level merge after merge.

use super::compaction::{Merged, GRANDPARENT_OVERLAP_FILES};
use super::config::{LsmConfig, RemapMode};
use super::entry::Entry;
use super::files::Files;
use super::sstable::{Layout, Table, TableBuilder};
use super::udb::{InputBlock, Step, Tag, UdbState, UdbTracker};
use crate::error::SimError;
use crate::request::BlockDevice;

/// An unchanged input block is retained whole only when it holds at least
/// `block_bytes / RETAIN_MIN_DIVISOR` bytes of entries.
pub const RETAIN_MIN_DIVISOR: u64 = 2;

/// What one merge produced.
#[derive(Debug, Default)]
pub struct MergeResult {
    pub tables: Vec<Table>,
    /// Input blocks the state machine found unchanged.
    pub unchanged_blocks: u64,
    /// Output blocks remapped from an input block.
    pub remapped_blocks: u64,
}

/// Output tables of one merge into a level.
pub struct MergeOutput<'a> {
    config: &'a LsmConfig,
    page_bytes: u32,
    layout: Layout,
    context: u64,
    /// Tables of the level below the output level, sorted.
    grandparents: &'a [Table],
    gp: usize,
    overlap_bytes: u64,
    seen: bool,
    inputs: &'a [InputBlock],
    builder: TableBuilder,
    result: MergeResult,
    /// Full RemapCom's held-back candidate.
    held: Vec<(Entry, Tag)>,
}

impl<'a> MergeOutput<'a> {
    pub fn new(
        config: &'a LsmConfig,
        page_bytes: u32,
        layout: Layout,
        context: u64,
        grandparents: &'a [Table],
        inputs: &'a [InputBlock],
    ) -> Self {
        Self {
            config,
            page_bytes,
            layout,
            context,
            grandparents,
            gp: 0,
            overlap_bytes: 0,
            seen: false,
            inputs,
            builder: TableBuilder::new(config.block_bytes, page_bytes, layout),
            result: MergeResult::default(),
            held: Vec::new(),
        }
    }

    /// Writes the merged entries (in order, dropped ones marked) as tables.
    pub fn run<D: BlockDevice>(
        mut self,
        files: &mut Files<D>,
        merged: Vec<Merged>,
    ) -> Result<MergeResult, SimError> {
        let mode = self.config.remap;
        if mode == RemapMode::Off {
            for m in merged {
                if m.keep {
                    self.add(files, m.entry, None)?;
                } else {
                    // LevelDB checks the grandparent overlap at every input
                    // key, dropped ones too.
                    self.grandparent_cut(files, &m.entry.key)?;
                }
            }
            return self.finish(files);
        }
        let mut udb = UdbTracker::new(self.inputs.iter().map(|b| b.entries).collect());
        for m in merged {
            if !m.keep {
                // As without RemapCom (above), but never cutting a table
                // while entries are held back: they precede this key.
                if self.held.is_empty() {
                    self.grandparent_cut(files, &m.entry.key)?;
                } else {
                    self.advance_grandparents(&m.entry.key);
                }
                udb.kv_dropped(m.tag);
                if mode == RemapMode::Full && udb.state() == UdbState::Changed {
                    self.release_held(files)?;
                }
                continue;
            }
            let step = udb.kv_reserved(m.tag);
            if mode == RemapMode::Base {
                self.add(files, m.entry, Some(m.tag))?;
                continue;
            }
            if let Step::Switched(_) = step {
                // The previous candidate, if still held, was not unchanged.
                self.release_held(files)?;
            }
            match udb.state() {
                UdbState::InProgress => self.held.push((m.entry, m.tag)),
                UdbState::Unchanged => {
                    self.held.push((m.entry, m.tag));
                    self.retain_held(files)?;
                }
                _ => {
                    self.release_held(files)?;
                    self.add(files, m.entry, Some(m.tag))?;
                }
            }
        }
        udb.finish();
        self.release_held(files)?;
        self.result.unchanged_blocks = udb.unchanged_blocks;
        self.finish(files)
    }

    /// Lazy write-back, the candidate turned out changed: its entries go
    /// out as they would have without RemapCom.
    fn release_held<D: BlockDevice>(&mut self, files: &mut Files<D>) -> Result<(), SimError> {
        for (e, tag) in std::mem::take(&mut self.held) {
            self.add(files, e, Some(tag))?;
        }
        Ok(())
    }

    /// UDB retention: the unchanged candidate becomes one output block of
    /// its own, in one table.
    fn retain_held<D: BlockDevice>(&mut self, files: &mut Files<D>) -> Result<(), SimError> {
        let held = std::mem::take(&mut self.held);
        let Some((first, _)) = held.first() else {
            return Ok(());
        };
        let held_bytes: u64 = held.iter().map(|(e, _)| e.size_bytes()).sum();
        if held_bytes * RETAIN_MIN_DIVISOR < u64::from(self.config.block_bytes) {
            // A fragment: its entries go out as they would have without
            // RemapCom (a block that then happens to match is still remapped).
            for (e, tag) in held {
                self.add(files, e, Some(tag))?;
            }
            return Ok(());
        }
        self.grandparent_cut(files, &first.key.clone())?;
        // The block goes whole into one table: if it would take the table
        // past its target size, the table ends before it.
        if !self.builder.is_empty()
            && self.builder.estimated_bytes() + held_bytes >= self.config.sstable_bytes
        {
            self.finish_table(files)?;
        }
        self.builder.cut_block();
        for (e, tag) in held {
            self.advance_grandparents(&e.key);
            self.builder.add_from(e, Some(tag));
        }
        self.builder.cut_block();
        self.size_cut(files)
    }

    fn add<D: BlockDevice>(
        &mut self,
        files: &mut Files<D>,
        e: Entry,
        tag: Option<Tag>,
    ) -> Result<(), SimError> {
        self.grandparent_cut(files, &e.key)?;
        self.builder.add_from(e, tag);
        self.size_cut(files)
    }

    /// Steps past the grandparent tables wholly before `key`, counting the
    /// bytes of those the output has overlapped.
    fn advance_grandparents(&mut self, key: &[u8]) {
        let gps = self.grandparents;
        while self.gp < gps.len() && key > gps[self.gp].largest() {
            if self.seen {
                self.overlap_bytes += gps[self.gp].size_bytes;
            }
            self.gp += 1;
        }
        self.seen = true;
    }

    /// Cuts the output before `key` once it overlaps too much of the level
    /// below, so that a later compaction of it does not rewrite a large
    /// part of that level.
    fn grandparent_cut<D: BlockDevice>(
        &mut self,
        files: &mut Files<D>,
        key: &[u8],
    ) -> Result<(), SimError> {
        self.advance_grandparents(key);
        if self.overlap_bytes > GRANDPARENT_OVERLAP_FILES * self.config.sstable_bytes {
            self.overlap_bytes = 0;
            if !self.builder.is_empty() {
                self.finish_table(files)?;
            }
        }
        Ok(())
    }

    /// Ends the table once the blocks it has written reach `sstable_bytes`
    /// (LevelDB's `TableBuilder::FileSize`, which leaves out the open block).
    fn size_cut<D: BlockDevice>(&mut self, files: &mut Files<D>) -> Result<(), SimError> {
        if self.builder.written_bytes() >= self.config.sstable_bytes {
            self.finish_table(files)?;
        }
        Ok(())
    }

    fn finish_table<D: BlockDevice>(&mut self, files: &mut Files<D>) -> Result<(), SimError> {
        let fresh = TableBuilder::new(self.config.block_bytes, self.page_bytes, self.layout);
        let done = std::mem::replace(&mut self.builder, fresh);
        if let Some((table, remapped)) = done.finish_remapping(files, self.context, self.inputs)? {
            self.result.remapped_blocks += remapped;
            self.result.tables.push(table);
        }
        Ok(())
    }

    fn finish<D: BlockDevice>(mut self, files: &mut Files<D>) -> Result<MergeResult, SimError> {
        self.finish_table(files)?;
        Ok(self.result)
    }
}
