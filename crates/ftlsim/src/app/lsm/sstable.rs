//! SSTables: sorted entries in data blocks of at most `block_bytes`, each
//! starting on a page boundary (as RemapCom lays them out, so a block is a
//! whole number of pages that can be remapped), followed by the bloom
//! filter block and the index block (one entry per data block) with the
//! footer. The entries live in memory; the pages hold fingerprints of them.

use super::bloom::Bloom;
use super::entry::{Entry, ENTRY_OVERHEAD_BYTES};
use super::files::{FileId, Files};
use crate::error::SimError;
use crate::hash::splitmix64;
use crate::request::BlockDevice;

/// A data block's fixed cost: the compression type and CRC (5 bytes) and
/// the restart count (4).
pub const BLOCK_TRAILER_BYTES: u64 = 9;
/// One restart point (4 bytes) every this many entries.
pub const RESTART_INTERVAL: u64 = 16;
/// A block handle in the index (offset and size varints).
pub const BLOCK_HANDLE_BYTES: u64 = 6;
/// The table footer.
pub const FOOTER_BYTES: u64 = 48;

/// Bytes of a block holding `entries` entries of `payload_bytes` in all.
pub fn block_bytes(entries: u64, payload_bytes: u64) -> u64 {
    payload_bytes + BLOCK_TRAILER_BYTES + 4 * entries.div_ceil(RESTART_INTERVAL)
}

/// One data block.
#[derive(Clone, Debug)]
pub struct Block {
    pub entries: Vec<Entry>,
    /// Bytes of the block's contents (at most `block_bytes` unless one entry
    /// alone is larger).
    pub size_bytes: u64,
    /// First page of the block in its file.
    pub first_page: u64,
    pub pages: u64,
    /// Hash of the block's bytes: equal blocks hash equal.
    pub content_hash: u64,
}

impl Block {
    fn last_key(&self) -> &[u8] {
        &self.entries.last().expect("blocks are not empty").key
    }
}

/// One SSTable.
#[derive(Clone, Debug)]
pub struct Table {
    pub file: FileId,
    pub blocks: Vec<Block>,
    pub bloom: Bloom,
    /// Pages of the filter and index blocks and footer.
    pub meta_pages: u64,
    /// Bytes of the whole file (its pages).
    pub size_bytes: u64,
}

impl Table {
    pub fn smallest(&self) -> &[u8] {
        &self.blocks[0].entries[0].key
    }

    pub fn largest(&self) -> &[u8] {
        self.blocks.last().expect("tables are not empty").last_key()
    }

    pub fn data_pages(&self) -> u64 {
        self.blocks.iter().map(|b| b.pages).sum()
    }

    pub fn pages(&self) -> u64 {
        self.data_pages() + self.meta_pages
    }

    pub fn entry_count(&self) -> usize {
        self.blocks.iter().map(|b| b.entries.len()).sum()
    }

    /// Whether the table's key range holds `key`.
    pub fn covers(&self, key: &[u8]) -> bool {
        self.smallest() <= key && key <= self.largest()
    }

    /// The block where `key`'s newest version would be: the first block
    /// whose last key is ≥ `key` (the index lookup).
    pub fn block_for(&self, key: &[u8]) -> Option<usize> {
        let i = self.blocks.partition_point(|b| b.last_key() < key);
        (i < self.blocks.len()).then_some(i)
    }

    /// The newest version of `key` in block `block`, if there.
    pub fn find_in_block(&self, block: usize, key: &[u8]) -> Option<&Entry> {
        let entries = &self.blocks[block].entries;
        let i = entries.partition_point(|e| e.key.as_slice() < key);
        entries.get(i).filter(|e| e.key == key)
    }

    /// Reads the pages of block `block`.
    pub fn read_block<D: BlockDevice>(
        &self,
        files: &mut Files<D>,
        block: usize,
    ) -> Result<(), SimError> {
        let b = &self.blocks[block];
        files.read(self.file, b.first_page, b.pages)
    }

    /// Entries in internal key order, the table consumed.
    pub fn into_entries(self) -> impl Iterator<Item = Entry> {
        self.blocks.into_iter().flat_map(|b| b.entries)
    }

    /// Entries sorted in internal key order, blocks within the page
    /// ranges they claim, sizes as built.
    pub fn check(&self, block_bytes: u64) -> Result<(), String> {
        let mut page = 0;
        let mut prev: Option<&Entry> = None;
        for (i, b) in self.blocks.iter().enumerate() {
            if b.entries.is_empty() {
                return Err(format!("table {}: block {i} is empty", self.file.0));
            }
            if b.first_page != page {
                return Err(format!(
                    "table {}: block {i} not where its predecessor ends",
                    self.file.0
                ));
            }
            page += b.pages;
            if b.entries.len() > 1 && b.size_bytes > block_bytes {
                return Err(format!(
                    "table {}: block {i} of {} entries holds {} bytes > block_bytes {block_bytes}",
                    self.file.0,
                    b.entries.len(),
                    b.size_bytes
                ));
            }
            for e in &b.entries {
                if let Some(p) = prev {
                    if super::entry::internal_cmp(&p.key, p.seq, &e.key, e.seq).is_ge() {
                        return Err(format!("table {}: entries out of order", self.file.0));
                    }
                }
                prev = Some(e);
            }
        }
        Ok(())
    }
}

/// Program-context tag of memtable flush writes.
pub const CONTEXT_FLUSH: u64 = 2;
/// Program-context tag of compaction writes into level L: `CONTEXT_COMPACTION + L`.
pub const CONTEXT_COMPACTION: u64 = 16;

/// Builds a table from entries given in internal key order.
#[derive(Debug)]
pub struct TableBuilder {
    block_bytes: u64,
    page_bytes: u64,
    blocks: Vec<Block>,
    pending: Vec<Entry>,
    pending_payload_bytes: u64,
    data_pages: u64,
    index_bytes: u64,
}

impl TableBuilder {
    pub fn new(block_bytes: u32, page_bytes: u32) -> Self {
        Self {
            block_bytes: u64::from(block_bytes),
            page_bytes: u64::from(page_bytes),
            blocks: Vec::new(),
            pending: Vec::new(),
            pending_payload_bytes: 0,
            data_pages: 0,
            index_bytes: 0,
        }
    }

    /// Adds the next entry, closing the block first if the entry would not fit.
    pub fn add(&mut self, entry: Entry) {
        let size = entry.size_bytes();
        let n = self.pending.len() as u64;
        if n > 0 && block_bytes(n + 1, self.pending_payload_bytes + size) > self.block_bytes {
            self.close_block();
        }
        self.pending_payload_bytes += size;
        self.pending.push(entry);
    }

    fn close_block(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let entries = std::mem::take(&mut self.pending);
        let size_bytes = block_bytes(entries.len() as u64, self.pending_payload_bytes);
        let content_hash = entries.iter().fold(entries.len() as u64, |h, e| {
            splitmix64(h ^ e.content_hash())
        });
        let pages = size_bytes.div_ceil(self.page_bytes);
        let last_key_len = entries.last().map_or(0, |e| e.key.len() as u64);
        self.index_bytes += last_key_len + ENTRY_OVERHEAD_BYTES + BLOCK_HANDLE_BYTES;
        self.blocks.push(Block {
            entries,
            size_bytes,
            first_page: self.data_pages,
            pages,
            content_hash,
        });
        self.data_pages += pages;
        self.pending_payload_bytes = 0;
    }

    /// Bytes of the file so far (whole data pages and the open block).
    pub fn estimated_bytes(&self) -> u64 {
        self.data_pages * self.page_bytes + self.pending_payload_bytes
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty() && self.pending.is_empty()
    }

    /// Closes the table and writes it to a new file: data blocks, then the
    /// filter block, then the index block and footer. `None` when empty.
    pub fn finish<D: BlockDevice>(
        mut self,
        files: &mut Files<D>,
        context: u64,
    ) -> Result<Option<Table>, SimError> {
        self.close_block();
        if self.blocks.is_empty() {
            return Ok(None);
        }
        let key_count = self.blocks.iter().map(|b| b.entries.len()).sum();
        let bloom = Bloom::build(
            self.blocks
                .iter()
                .flat_map(|b| b.entries.iter().map(|e| e.key.as_slice())),
            key_count,
        );
        let meta_bytes = bloom.size_bytes()
            + BLOCK_TRAILER_BYTES
            + block_bytes(self.blocks.len() as u64, self.index_bytes)
            + FOOTER_BYTES;
        let meta_pages = meta_bytes.div_ceil(self.page_bytes);
        let mut fingerprints = Vec::with_capacity((self.data_pages + meta_pages) as usize);
        for b in &self.blocks {
            fingerprints.extend((0..b.pages).map(|p| splitmix64(b.content_hash ^ p)));
        }
        // The index names each block's position, so it differs per file.
        let index_hash = self.blocks.iter().fold(bloom.content_hash(), |h, b| {
            splitmix64(h ^ b.content_hash ^ b.first_page.rotate_left(40))
        });
        fingerprints.extend((0..meta_pages).map(|p| splitmix64(index_hash ^ p)));
        let file = files.create();
        files.append(file, &fingerprints, context)?;
        let pages = fingerprints.len() as u64;
        Ok(Some(Table {
            file,
            blocks: self.blocks,
            bloom,
            meta_pages,
            size_bytes: pages * self.page_bytes,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::entry::Value;
    use super::super::files::tests::mem;
    use super::*;

    fn entry(i: u32, value_bytes: u32) -> Entry {
        Entry {
            key: format!("key{i:06}").into_bytes(),
            seq: u64::from(i),
            value: Some(Value {
                len_bytes: value_bytes,
                checksum: u64::from(i),
            }),
        }
    }

    #[test]
    fn blocks_fill_to_block_bytes_and_lookups_find_keys() {
        let mut files = Files::new(mem(1024), 4096);
        let mut b = TableBuilder::new(4096, 4096);
        // 100 + 9 + 11 = 120 bytes per entry: 33 per block with the trailer and restarts.
        for i in 0..1000 {
            b.add(entry(i * 2, 100));
        }
        let t = b.finish(&mut files, 0).unwrap().unwrap();
        t.check(4096).unwrap();
        assert_eq!(t.blocks[0].entries.len(), 33);
        assert!(t.blocks.iter().all(|b| b.pages == 1));
        assert_eq!(t.data_pages(), 1000u64.div_ceil(33));
        assert_eq!(t.pages(), files.pages(t.file));
        assert_eq!(t.smallest(), b"key000000");
        assert_eq!(t.largest(), b"key001998");
        let at = t.block_for(b"key000500").unwrap();
        assert_eq!(t.find_in_block(at, b"key000500").unwrap().seq, 500);
        let at = t.block_for(b"key000501").unwrap();
        assert!(t.find_in_block(at, b"key000501").is_none());
        assert!(t.block_for(b"key002000").is_none());
        assert!(t.bloom.may_contain(b"key001000"));
        // Two tables of the same entries have the same data block fingerprints.
        let mut b2 = TableBuilder::new(4096, 4096);
        for i in 0..1000 {
            b2.add(entry(i * 2, 100));
        }
        let t2 = b2.finish(&mut files, 0).unwrap().unwrap();
        assert_eq!(t.blocks[3].content_hash, t2.blocks[3].content_hash);
    }

    #[test]
    fn an_entry_larger_than_a_block_gets_a_block_of_its_own() {
        let mut files = Files::new(mem(64), 4096);
        let mut b = TableBuilder::new(4096, 4096);
        b.add(entry(1, 100));
        b.add(entry(2, 10_000));
        b.add(entry(3, 100));
        let t = b.finish(&mut files, 0).unwrap().unwrap();
        t.check(4096).unwrap();
        assert_eq!(t.blocks.len(), 3);
        assert_eq!(t.blocks[1].pages, 3);
        assert_eq!(t.blocks[2].first_page, 4);
    }
}
