//! Page bytes in a sparse file (`--backing FILE`), for devices whose data
//! would not fit in memory.
//!
//! The file is cut into page-sized slots. Without dedup, LPN n lives in
//! slot n, so the file is a byte image of the device (it can be attached
//! with `losetup` after the run). With dedup, identical pages share one
//! slot: slots are handed out from a free list, counted by how many LPNs
//! map to them, and keyed by fingerprint, confirmed byte for byte as the
//! memory store does. A slot no LPN maps to any more (a trim, or the last
//! overwrite) has its bytes released with `fallocate(PUNCH_HOLE)`, so the
//! file's disk use follows the live data. Which LPNs hold data is kept in
//! memory (4 bytes a page); an unmapped page reads as zeros without
//! touching the file.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// "No slot": the LPN holds no data.
const NONE: u32 = u32::MAX;

/// Page bytes by logical page number, in a sparse file.
pub struct FilePages {
    file: File,
    path: PathBuf,
    page_bytes: usize,
    /// LPN → slot, or `NONE`.
    slot_of: Vec<u32>,
    /// With dedup: LPNs mapped to each slot, the slot's fingerprint, the
    /// fingerprint index and the slots free for reuse (lowest last, so
    /// the file fills from its start).
    dedup: Option<Slots>,
    /// Slots holding bytes now.
    stored_pages: u64,
    /// Whether the file system under the file punches holes; when it does
    /// not, a released slot just keeps its stale bytes (never read: no LPN
    /// maps to it).
    punch: bool,
    /// A page of scratch for byte-for-byte dedup checks.
    scratch: Vec<u8>,
}

struct Slots {
    refs: Vec<u32>,
    fp: Vec<u64>,
    index: HashMap<u64, u32>,
    free: Vec<u32>,
}

impl FilePages {
    /// Creates (or truncates) `path` as a sparse file of `pages` pages of
    /// `page_bytes`; `dedup` keeps identical pages once.
    pub fn create(path: &Path, pages: u64, page_bytes: u32, dedup: bool) -> io::Result<Self> {
        let slots = u32::try_from(pages)
            .ok()
            .filter(|&n| n < NONE)
            .ok_or_else(|| io::Error::other("a backing file holds fewer than 2^32 - 1 pages"))?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        file.set_len(pages * u64::from(page_bytes))?;
        Ok(Self {
            file,
            path: path.to_path_buf(),
            page_bytes: page_bytes as usize,
            slot_of: vec![NONE; pages as usize],
            dedup: dedup.then(|| Slots {
                refs: vec![0; slots as usize],
                fp: vec![0; slots as usize],
                index: HashMap::new(),
                free: (0..slots).rev().collect(),
            }),
            stored_pages: 0,
            punch: true,
            scratch: vec![0; page_bytes as usize],
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn pages(&self) -> u64 {
        self.slot_of.len() as u64
    }

    pub fn page_bytes(&self) -> usize {
        self.page_bytes
    }

    pub fn stored_pages(&self) -> u64 {
        self.stored_pages
    }

    pub fn holds(&self, lpn: u64) -> bool {
        self.slot_of[lpn as usize] != NONE
    }

    fn offset(&self, slot: u32, in_page: usize) -> u64 {
        u64::from(slot) * self.page_bytes as u64 + in_page as u64
    }

    /// Copies the bytes of `lpn` from `in_page_start` on into `dst`;
    /// `false` (and `dst` untouched) when the LPN holds no data.
    pub fn read_into(&self, lpn: u64, in_page_start: usize, dst: &mut [u8]) -> io::Result<bool> {
        let slot = self.slot_of[lpn as usize];
        if slot == NONE {
            return Ok(false);
        }
        self.file
            .read_exact_at(dst, self.offset(slot, in_page_start))?;
        Ok(true)
    }

    /// Stores `bytes` (one whole page) at `lpn`, whose fingerprint is `fp`.
    pub fn put(&mut self, lpn: u64, bytes: &[u8], fp: u64) -> io::Result<()> {
        debug_assert_eq!(bytes.len(), self.page_bytes);
        self.remove(lpn)?;
        let slot = match self.dedup.as_ref().and_then(|d| d.index.get(&fp).copied()) {
            // A 64-bit fingerprint match is confirmed byte for byte: a
            // collision must not hand back another page's data.
            Some(slot) if self.same_bytes(slot, bytes)? => {
                self.dedup.as_mut().expect("indexed").refs[slot as usize] += 1;
                slot
            }
            hit => {
                let slot = match self.dedup.as_mut() {
                    None => lpn as u32,
                    Some(d) => {
                        let slot = d.free.pop().expect("no more slots in use than LPNs");
                        d.refs[slot as usize] = 1;
                        d.fp[slot as usize] = fp;
                        // A collision's twin is not indexed: the first
                        // page with that fingerprint keeps the entry.
                        if hit.is_none() {
                            d.index.insert(fp, slot);
                        }
                        slot
                    }
                };
                self.file.write_all_at(bytes, self.offset(slot, 0))?;
                self.stored_pages += 1;
                slot
            }
        };
        self.slot_of[lpn as usize] = slot;
        Ok(())
    }

    fn same_bytes(&mut self, slot: u32, bytes: &[u8]) -> io::Result<bool> {
        let off = self.offset(slot, 0);
        self.file.read_exact_at(&mut self.scratch, off)?;
        Ok(self.scratch == bytes)
    }

    /// Drops the data of `lpn` (a trim): it reads as zeros again; its
    /// slot's bytes are released when no LPN maps to it any more.
    pub fn remove(&mut self, lpn: u64) -> io::Result<()> {
        let slot = std::mem::replace(&mut self.slot_of[lpn as usize], NONE);
        if slot == NONE {
            return Ok(());
        }
        if let Some(d) = self.dedup.as_mut() {
            d.refs[slot as usize] -= 1;
            if d.refs[slot as usize] > 0 {
                return Ok(());
            }
            let fp = d.fp[slot as usize];
            if d.index.get(&fp) == Some(&slot) {
                d.index.remove(&fp);
            }
            d.free.push(slot);
        }
        self.stored_pages -= 1;
        self.punch_hole(slot)
    }

    fn punch_hole(&mut self, slot: u32) -> io::Result<()> {
        if !self.punch {
            return Ok(());
        }
        let len = self.page_bytes as libc::off_t;
        let off = self.offset(slot, 0) as libc::off_t;
        // SAFETY: a valid open descriptor; fallocate only changes the file.
        let rc = unsafe {
            libc::fallocate(
                self.file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                off,
                len,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EOPNOTSUPP) {
            // The LPN is recorded as unmapped either way; only disk space
            // is not given back.
            self.punch = false;
            return Ok(());
        }
        Err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("ftlsim-backing-{}-{name}", std::process::id()))
    }

    #[test]
    fn dedup_keeps_identical_pages_once_and_reuses_slots() {
        let path = temp("dedup");
        let mut s = FilePages::create(&path, 8, 4096, true).unwrap();
        let (a, b) = ([1u8; 4096], [2u8; 4096]);
        s.put(0, &a, 10).unwrap();
        s.put(1, &a, 10).unwrap();
        assert_eq!(s.stored_pages(), 1);
        // Same fingerprint, other bytes: a collision, stored apart.
        s.put(2, &b, 10).unwrap();
        assert_eq!(s.stored_pages(), 2);
        let mut buf = [0u8; 4096];
        assert!(s.read_into(2, 0, &mut buf).unwrap());
        assert_eq!(buf, b);
        s.remove(0).unwrap();
        assert_eq!(s.stored_pages(), 2);
        assert!(s.read_into(1, 0, &mut buf).unwrap());
        assert_eq!(buf, a);
        s.remove(1).unwrap();
        s.remove(2).unwrap();
        assert_eq!(s.stored_pages(), 0);
        assert!(!s.read_into(1, 0, &mut buf).unwrap());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn file_is_sparse_and_trims_punch_holes() {
        let path = temp("sparse");
        let pages = 256u64;
        let mut s = FilePages::create(&path, pages, 4096, false).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.len(), pages * 4096, "the device's whole size");
        let empty_blocks = meta.blocks();
        for lpn in 0..64 {
            s.put(lpn, &[lpn as u8 + 1; 4096], 0).unwrap();
        }
        // Without dedup the file is the device's image: LPN n at n pages.
        let mut buf = [0u8; 16];
        std::fs::File::open(&path)
            .unwrap()
            .read_exact_at(&mut buf, 5 * 4096)
            .unwrap();
        assert_eq!(buf, [6u8; 16]);
        let full = std::fs::metadata(&path).unwrap().blocks();
        assert!(full >= empty_blocks + 64 * 8, "{full} blocks of 512 bytes");
        for lpn in 0..64 {
            s.remove(lpn).unwrap();
        }
        assert_eq!(s.stored_pages(), 0);
        if s.punch {
            let after = std::fs::metadata(&path).unwrap().blocks();
            assert!(after < full, "holes punched: {after} of {full} blocks left");
        }
        let _ = std::fs::remove_file(&path);
    }
}
