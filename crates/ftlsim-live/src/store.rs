//! The bytes the live device holds: one slot per logical page, filled only
//! where something was written (a sparse store in memory, or a sparse
//! file with `--backing`, [`crate::backing`]), and with `ftl.dedup`
//! identical pages held once, as the simulated device holds them.
//!
//! The simulated `Ssd` decides where pages go and what it costs; it keeps
//! 16 bytes per physical page, not the data. This store keeps the data so
//! that a real file system reads back what it wrote.

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::backing::FilePages;

/// A page's content fingerprint: MurmurHash3 x64-128 of its bytes (the
/// trace format keeps all 128 bits; the FTL keys pages by their 64-bit fold,
/// `ftlsim::hash::fold128`, which is `ftlsim::ftl::sharing::fingerprint_of_bytes`).
pub fn page_hash128(bytes: &[u8]) -> u128 {
    murmur3::murmur3_x64_128(&mut std::io::Cursor::new(bytes), 0)
        .expect("reading from memory cannot fail")
}

/// Page bytes by logical page number, in memory or in a backing file.
pub enum PageStore {
    Memory(MemoryPages),
    File(FilePages),
}

impl PageStore {
    /// An empty store in memory of `pages` pages of `page_bytes` bytes;
    /// `dedup` keeps identical pages once.
    pub fn new(pages: u64, page_bytes: u32, dedup: bool) -> Self {
        PageStore::Memory(MemoryPages::new(pages, page_bytes, dedup))
    }

    /// An empty store in the sparse file `path` (created or truncated).
    pub fn file(path: &Path, pages: u64, page_bytes: u32, dedup: bool) -> io::Result<Self> {
        FilePages::create(path, pages, page_bytes, dedup).map(PageStore::File)
    }

    pub fn page_bytes(&self) -> usize {
        match self {
            PageStore::Memory(m) => m.page_bytes(),
            PageStore::File(f) => f.page_bytes(),
        }
    }

    pub fn pages(&self) -> u64 {
        match self {
            PageStore::Memory(m) => m.pages(),
            PageStore::File(f) => f.pages(),
        }
    }

    /// Distinct pages of bytes held now.
    pub fn stored_pages(&self) -> u64 {
        match self {
            PageStore::Memory(m) => m.stored_pages(),
            PageStore::File(f) => f.stored_pages(),
        }
    }

    /// Whether `lpn` holds data (otherwise it reads as zeros).
    pub fn holds(&self, lpn: u64) -> bool {
        match self {
            PageStore::Memory(m) => m.get(lpn).is_some(),
            PageStore::File(f) => f.holds(lpn),
        }
    }

    /// Copies the bytes of `lpn` from `in_page_start` on into `dst`;
    /// `false` (and `dst` untouched) when the LPN holds no data.
    pub fn read_into(&self, lpn: u64, in_page_start: usize, dst: &mut [u8]) -> io::Result<bool> {
        match self {
            PageStore::Memory(m) => Ok(m
                .get(lpn)
                .map(|b| dst.copy_from_slice(&b[in_page_start..in_page_start + dst.len()]))
                .is_some()),
            PageStore::File(f) => f.read_into(lpn, in_page_start, dst),
        }
    }

    /// Stores `bytes` (one whole page) at `lpn`, whose fingerprint is `fp`.
    pub fn put(&mut self, lpn: u64, bytes: &[u8], fp: u64) -> io::Result<()> {
        match self {
            PageStore::Memory(m) => {
                m.put(lpn, bytes, fp);
                Ok(())
            }
            PageStore::File(f) => f.put(lpn, bytes, fp),
        }
    }

    /// Drops the data of `lpn` (a trim): it reads as zeros again.
    pub fn remove(&mut self, lpn: u64) -> io::Result<()> {
        match self {
            PageStore::Memory(m) => {
                m.remove(lpn);
                Ok(())
            }
            PageStore::File(f) => f.remove(lpn),
        }
    }
}

/// Page bytes by logical page number, in memory.
pub struct MemoryPages {
    page_bytes: usize,
    pages: Vec<Option<Arc<[u8]>>>,
    /// Fingerprint (64-bit fold) → a live page with that content, when
    /// identical pages are kept once. Entries whose page died are dropped
    /// when the last LPN leaves it.
    shared: Option<HashMap<u64, Arc<[u8]>>>,
    /// Pages held (distinct allocations).
    stored_pages: u64,
}

impl MemoryPages {
    /// An empty store of `pages` pages of `page_bytes` bytes; `dedup` keeps
    /// identical pages once.
    pub fn new(pages: u64, page_bytes: u32, dedup: bool) -> Self {
        Self {
            page_bytes: page_bytes as usize,
            pages: vec![None; pages as usize],
            shared: dedup.then(HashMap::new),
            stored_pages: 0,
        }
    }

    pub fn page_bytes(&self) -> usize {
        self.page_bytes
    }

    pub fn pages(&self) -> u64 {
        self.pages.len() as u64
    }

    /// Distinct pages of bytes held now (fewer than the written LPNs when
    /// identical pages are shared).
    pub fn stored_pages(&self) -> u64 {
        self.stored_pages
    }

    /// The bytes of `lpn`; `None` when it holds no data (reads as zeros).
    pub fn get(&self, lpn: u64) -> Option<&[u8]> {
        self.pages[lpn as usize].as_deref()
    }

    /// Stores `bytes` (one whole page) at `lpn`, whose fingerprint is `fp`.
    pub fn put(&mut self, lpn: u64, bytes: &[u8], fp: u64) {
        debug_assert_eq!(bytes.len(), self.page_bytes);
        self.remove(lpn);
        let page = match self.shared.as_mut() {
            Some(index) => match index.get(&fp) {
                // A 64-bit fingerprint match is confirmed byte for byte: a
                // collision must not hand back another page's data.
                Some(p) if **p == *bytes => Arc::clone(p),
                Some(_) => {
                    self.stored_pages += 1;
                    Arc::from(bytes)
                }
                None => {
                    let p: Arc<[u8]> = Arc::from(bytes);
                    index.insert(fp, Arc::clone(&p));
                    self.stored_pages += 1;
                    p
                }
            },
            None => {
                self.stored_pages += 1;
                Arc::from(bytes)
            }
        };
        self.pages[lpn as usize] = Some(page);
    }

    /// Drops the data of `lpn` (a trim): it reads as zeros again.
    pub fn remove(&mut self, lpn: u64) {
        let Some(old) = self.pages[lpn as usize].take() else {
            return;
        };
        match self.shared.as_mut() {
            None => self.stored_pages -= 1,
            Some(index) => {
                // Held by this LPN and maybe the index: 2 means the last
                // mapper left an indexed page, 1 a page that was not indexed
                // (a collision's twin).
                let count = Arc::strong_count(&old);
                if count == 1 {
                    self.stored_pages -= 1;
                } else if count == 2 {
                    let fp = ftlsim::hash::fold128(page_hash128(&old));
                    if index.get(&fp).is_some_and(|p| Arc::ptr_eq(p, &old)) {
                        index.remove(&fp);
                        self.stored_pages -= 1;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_the_ftls() {
        let page = vec![7u8; 4096];
        assert_eq!(
            ftlsim::hash::fold128(page_hash128(&page)),
            ftlsim::ftl::sharing::fingerprint_of_bytes(&page)
        );
    }

    #[test]
    fn dedup_keeps_identical_pages_once() {
        let mut s = MemoryPages::new(8, 16, true);
        let a = [1u8; 16];
        let fp = ftlsim::hash::fold128(page_hash128(&a));
        s.put(0, &a, fp);
        s.put(1, &a, fp);
        assert_eq!(s.stored_pages(), 1);
        s.remove(0);
        assert_eq!(s.stored_pages(), 1);
        assert_eq!(s.get(1), Some(&a[..]));
        s.remove(1);
        assert_eq!(s.stored_pages(), 0);
        assert_eq!(s.get(1), None);
    }

    #[test]
    fn without_dedup_every_page_is_its_own() {
        let mut s = MemoryPages::new(4, 16, false);
        let a = [1u8; 16];
        s.put(0, &a, 0);
        s.put(1, &a, 0);
        s.put(1, &a, 0);
        assert_eq!(s.stored_pages(), 2);
        s.remove(3);
        s.remove(0);
        assert_eq!(s.stored_pages(), 1);
    }
}
