//! The write-ahead log: every put and delete is appended as a record before
//! it enters the memtable. A page is written when it fills; the partial
//! last page is written when the log is closed at a memtable switch, after
//! which the log file is deleted once the memtable is flushed.

use super::files::{FileId, Files};
use crate::error::SimError;
use crate::hash::splitmix64;
use crate::request::BlockDevice;

/// Bytes a record costs beyond its entry: LevelDB's 7-byte log record
/// header and the 12-byte write batch header.
pub const WAL_RECORD_OVERHEAD_BYTES: u64 = 19;

/// Program-context tag of WAL writes.
pub const CONTEXT_WAL: u64 = 1;

#[derive(Debug, Default)]
pub struct Wal {
    file: Option<FileId>,
    /// Bytes in the page not yet written.
    pending_bytes: u64,
    /// Hash of the records since the start of the log: the content of the
    /// page being filled.
    running_hash: u64,
    pages: u64,
}

impl Wal {
    /// Appends a record of `entry_bytes` (plus the record overhead) whose
    /// content hashes to `hash`, writing each page it fills.
    pub fn append<D: BlockDevice>(
        &mut self,
        files: &mut Files<D>,
        entry_bytes: u64,
        hash: u64,
    ) -> Result<(), SimError> {
        let file = *self.file.get_or_insert_with(|| files.create());
        let page_bytes = u64::from(files.page_bytes());
        self.running_hash = splitmix64(self.running_hash ^ hash);
        self.pending_bytes += entry_bytes + WAL_RECORD_OVERHEAD_BYTES;
        while self.pending_bytes >= page_bytes {
            self.pending_bytes -= page_bytes;
            let fp = splitmix64(self.running_hash ^ self.pages);
            files.append(file, &[fp], CONTEXT_WAL)?;
            self.pages += 1;
        }
        Ok(())
    }

    /// Writes the partial last page and hands back the log's file (to be
    /// deleted once the memtable it covers is flushed); the next append
    /// starts a new log.
    pub fn close<D: BlockDevice>(
        &mut self,
        files: &mut Files<D>,
    ) -> Result<Option<FileId>, SimError> {
        if let (Some(file), true) = (self.file, self.pending_bytes > 0) {
            let fp = splitmix64(self.running_hash ^ self.pages);
            files.append(file, &[fp], CONTEXT_WAL)?;
        }
        let file = self.file.take();
        *self = Self::default();
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    use super::super::files::tests::mem;
    use super::*;

    #[test]
    fn pages_are_written_as_they_fill_and_the_tail_on_close() {
        let mut files = Files::new(mem(64), 4096);
        let mut wal = Wal::default();
        // 100 records of 1000 + 19 bytes: 101 900 bytes, 24 full pages.
        for i in 0..100 {
            wal.append(&mut files, 1000, i).unwrap();
        }
        assert_eq!(files.counters().write_pages, 24);
        let file = wal.close(&mut files).unwrap().unwrap();
        assert_eq!(files.pages(file), 25);
        assert_eq!(wal.close(&mut files).unwrap(), None);
        files.delete(file).unwrap();
        assert_eq!(files.free_pages(), 64);
    }
}
