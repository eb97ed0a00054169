//! The file layer: SSTables and WAL files as lists of extents of logical
//! pages on the device below. Appending to a file allocates pages (first
//! fit over the free extents) and writes them, with one content fingerprint
//! per page; deleting a file trims its pages; reading a range of a file
//! reads its pages. [`Files::lpn_of`] is RemapCom's `getLPN`.

use std::collections::BTreeMap;

use crate::error::SimError;
use crate::request::{BlockDevice, Op, Request};

/// In [`Files::append_remapping`]'s sources: write the page.
pub const WRITE: u64 = u64::MAX;

/// A file's number; numbers are never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u64);

#[derive(Debug, Default)]
struct FileMeta {
    /// `(first LPN, pages)`, in file order; adjacent extents are merged.
    extents: Vec<(u64, u64)>,
    /// The content fingerprint written to each page, in file order.
    fingerprints: Vec<u64>,
}

/// Page counts the file layer issued to the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileCounters {
    pub write_pages: u64,
    /// Pages appended by remapping a page of another file instead of
    /// writing (RemapCom).
    pub remap_pages: u64,
    pub read_pages: u64,
    pub trim_pages: u64,
    pub files_created: u64,
    pub files_deleted: u64,
}

/// Free logical pages as extents `first → pages`, coalesced.
#[derive(Debug)]
struct ExtentAllocator {
    free: BTreeMap<u64, u64>,
    free_pages: u64,
}

impl ExtentAllocator {
    fn new(pages: u64) -> Self {
        let mut free = BTreeMap::new();
        if pages > 0 {
            free.insert(0, pages);
        }
        Self {
            free,
            free_pages: pages,
        }
    }

    /// `pages` pages, first fit from the lowest address; `None` (and nothing
    /// taken) when fewer are free.
    fn allocate(&mut self, pages: u64, out: &mut Vec<(u64, u64)>) -> Option<()> {
        if pages > self.free_pages {
            return None;
        }
        let mut left = pages;
        while left > 0 {
            let (&first, &len) = self.free.iter().next().expect("free pages counted");
            self.free.remove(&first);
            let take = len.min(left);
            if take < len {
                self.free.insert(first + take, len - take);
            }
            push_extent(out, first, take);
            left -= take;
        }
        self.free_pages -= pages;
        Some(())
    }

    fn release(&mut self, first: u64, pages: u64) {
        let (mut first, mut pages) = (first, pages);
        self.free_pages += pages;
        if let Some((&before, &len)) = self.free.range(..first).next_back() {
            debug_assert!(before + len <= first, "double free at LPN {first}");
            if before + len == first {
                self.free.remove(&before);
                first = before;
                pages += len;
            }
        }
        if let Some(&len) = self.free.get(&(first + pages)) {
            self.free.remove(&(first + pages));
            pages += len;
        }
        self.free.insert(first, pages);
    }
}

fn push_extent(extents: &mut Vec<(u64, u64)>, first: u64, pages: u64) {
    match extents.last_mut() {
        Some((f, p)) if *f + *p == first => *p += pages,
        _ => extents.push((first, pages)),
    }
}

/// A device borrowed as `&mut dyn BlockDevice` (a layer's view of the
/// layer below it), so that [`Files`] can sit on it for a while.
pub struct Borrowed<'a>(pub &'a mut dyn BlockDevice);

impl BlockDevice for Borrowed<'_> {
    fn submit(&mut self, req: &Request) -> Result<crate::request::Completion, SimError> {
        self.0.submit(req)
    }

    fn logical_pages(&self) -> u64 {
        self.0.logical_pages()
    }

    fn layer_stats(&self, out: &mut Vec<crate::metrics::LayerStats>) {
        self.0.layer_stats(out)
    }

    fn hint(&mut self, hint: crate::request::Hint) {
        self.0.hint(hint)
    }

    fn prefetch(&self, lpn: u64) {
        self.0.prefetch(lpn)
    }
}

/// Files on a block device. Owns the device so that the engine above can
/// be handed one object; [`Files::device`] reaches it.
pub struct Files<D: BlockDevice> {
    device: D,
    page_bytes: u32,
    alloc: ExtentAllocator,
    files: BTreeMap<FileId, FileMeta>,
    next_id: u64,
    counters: FileCounters,
    req: Request,
    scratch: Vec<(u64, u64)>,
    /// A deleted file's pages are trimmed (else only freed for reuse).
    trims: bool,
}

impl<D: BlockDevice> Files<D> {
    /// A file layer over all of `device`'s logical pages of `page_bytes` bytes.
    pub fn new(device: D, page_bytes: u32) -> Self {
        assert!(page_bytes > 0, "page_bytes must be above 0");
        let pages = device.logical_pages();
        Self {
            device,
            page_bytes,
            alloc: ExtentAllocator::new(pages),
            files: BTreeMap::new(),
            next_id: 1,
            counters: FileCounters::default(),
            req: Request::default(),
            scratch: Vec::new(),
            trims: true,
        }
    }

    /// Whether deleting a file trims its pages on the device (on by
    /// default); off, they stay mapped until written again.
    pub fn set_trims(&mut self, on: bool) {
        self.trims = on;
    }

    pub fn page_bytes(&self) -> u32 {
        self.page_bytes
    }

    pub fn device(&self) -> &D {
        &self.device
    }

    pub fn device_mut(&mut self) -> &mut D {
        &mut self.device
    }

    /// The device, once the files are no longer needed.
    pub fn into_device(self) -> D {
        self.device
    }

    pub fn counters(&self) -> FileCounters {
        self.counters
    }

    /// Logical pages not held by any file.
    pub fn free_pages(&self) -> u64 {
        self.alloc.free_pages
    }

    /// A new, empty file.
    pub fn create(&mut self) -> FileId {
        let id = FileId(self.next_id);
        self.next_id += 1;
        self.files.insert(id, FileMeta::default());
        self.counters.files_created += 1;
        id
    }

    /// Pages the file holds.
    pub fn pages(&self, file: FileId) -> u64 {
        self.files
            .get(&file)
            .map_or(0, |m| m.fingerprints.len() as u64)
    }

    /// Appends one page per fingerprint to `file` and writes them, one write
    /// request per contiguous extent, `context` tagging the requests.
    pub fn append(
        &mut self,
        file: FileId,
        fingerprints: &[u64],
        context: u64,
    ) -> Result<(), SimError> {
        self.append_remapping(file, fingerprints, &[], context)
    }

    /// Like [`Files::append`], but page `i` of the appended pages whose
    /// `sources[i]` is not [`WRITE`] takes the data of that LPN (a page of
    /// another live file holding the same fingerprint) by a `remap` request
    /// instead of being written; the source LPN reads as unmapped after, so
    /// its file must be deleted before it is read again. An empty `sources`
    /// writes every page. Runs of pages with contiguous sources go as one
    /// remap request.
    pub fn append_remapping(
        &mut self,
        file: FileId,
        fingerprints: &[u64],
        sources: &[u64],
        context: u64,
    ) -> Result<(), SimError> {
        let pages = fingerprints.len() as u64;
        if pages == 0 {
            return Ok(());
        }
        assert!(
            sources.is_empty() || sources.len() == fingerprints.len(),
            "one source per page"
        );
        let mut got = std::mem::take(&mut self.scratch);
        got.clear();
        if self.alloc.allocate(pages, &mut got).is_none() {
            self.scratch = got;
            return Err(SimError::BadRequest(format!(
                "file layer full: {pages} pages asked for, {} free of {}",
                self.alloc.free_pages,
                self.device.logical_pages()
            )));
        }
        let meta = self.files.get_mut(&file).expect("append to a live file");
        let mut at = 0usize;
        let mut remapped = 0u64;
        let mut failed = None;
        // The runs are one file's writeback (the writer syncs the whole
        // file): they enter the device together rather than one by one.
        self.device.begin_batch();
        'extents: for &(first, len) in &got {
            push_extent(&mut meta.extents, first, len);
            // Split the extent into runs: pages written, or pages remapped
            // from a contiguous source range.
            let end = at + len as usize;
            let mut i = at;
            while i < end {
                let src = sources.get(i).copied().unwrap_or(WRITE);
                let mut j = i + 1;
                while j < end {
                    let next = sources.get(j).copied().unwrap_or(WRITE);
                    let same_run = if src == WRITE {
                        next == WRITE
                    } else {
                        next != WRITE && next == src + (j - i) as u64
                    };
                    if !same_run {
                        break;
                    }
                    j += 1;
                }
                let lpn = first + (i - at) as u64;
                let n = (j - i) as u32;
                if src == WRITE {
                    self.req.set(Op::Write, lpn, n);
                    self.req.fingerprints.extend_from_slice(&fingerprints[i..j]);
                } else {
                    self.req.set(Op::Remap, lpn, n);
                    self.req.src_lpn = src;
                    remapped += u64::from(n);
                }
                self.req.context = context;
                if let Err(e) = self.device.submit(&self.req) {
                    failed = Some(e);
                    break 'extents;
                }
                i = j;
            }
            at = end;
        }
        self.device.end_batch();
        meta.fingerprints.extend_from_slice(fingerprints);
        if let Some(e) = failed {
            self.scratch = got;
            return Err(e);
        }
        self.counters.write_pages += pages - remapped;
        self.counters.remap_pages += remapped;
        self.scratch = got;
        Ok(())
    }

    /// Reads the file's pages `first_page..first_page + pages`.
    pub fn read(&mut self, file: FileId, first_page: u64, pages: u64) -> Result<(), SimError> {
        let meta = self.files.get(&file).expect("read of a live file");
        let (mut page, end) = (first_page, first_page + pages);
        assert!(
            end <= meta.fingerprints.len() as u64,
            "read past the end of a file"
        );
        let mut start_of_extent = 0u64;
        for &(first, len) in &meta.extents {
            let extent_end = start_of_extent + len;
            if page < extent_end && page < end {
                let n = extent_end.min(end) - page;
                self.req
                    .set(Op::Read, first + (page - start_of_extent), n as u32);
                let done = self.device.submit(&self.req)?;
                if u64::from(done.mapped_pages) != n {
                    return Err(SimError::Invariant(format!(
                        "file {} pages {page}..{}: {} of {n} pages unmapped on the device",
                        file.0,
                        page + n,
                        done.unmapped_pages
                    )));
                }
                page += n;
            }
            start_of_extent = extent_end;
        }
        self.counters.read_pages += pages;
        Ok(())
    }

    /// Deletes the file: trims its pages and frees them.
    pub fn delete(&mut self, file: FileId) -> Result<(), SimError> {
        let meta = self.files.remove(&file).expect("delete of a live file");
        for &(first, len) in &meta.extents {
            if self.trims {
                self.req.set(Op::Trim, first, len as u32);
                self.device.submit(&self.req)?;
                self.counters.trim_pages += len;
            }
            self.alloc.release(first, len);
        }
        self.counters.files_deleted += 1;
        Ok(())
    }

    /// The LPN that holds byte `offset_bytes` of `file` (RemapCom's
    /// `getLPN`); `None` past the end or for a deleted file.
    pub fn lpn_of(&self, file: FileId, offset_bytes: u64) -> Option<u64> {
        let meta = self.files.get(&file)?;
        let mut page = offset_bytes / u64::from(self.page_bytes);
        for &(first, len) in &meta.extents {
            if page < len {
                return Some(first + page);
            }
            page -= len;
        }
        None
    }

    /// The runs of contiguous LPNs that hold pages `pages` of `file`, in
    /// file order, as `(first LPN, pages)`: one pass over the extents, where
    /// asking [`Files::lpn_of`] page by page would pass them once per page.
    /// Empty for a deleted file; stops at the file's end.
    pub fn runs_of(&self, file: FileId, pages: std::ops::Range<u64>) -> Vec<(u64, u64)> {
        let mut runs = Vec::new();
        let Some(meta) = self.files.get(&file) else {
            return runs;
        };
        let mut extent_start = 0;
        for &(first, len) in &meta.extents {
            let extent_end = extent_start + len;
            let from = pages.start.max(extent_start);
            let to = pages.end.min(extent_end);
            if from < to {
                runs.push((first + (from - extent_start), to - from));
            }
            if extent_end >= pages.end {
                break;
            }
            extent_start = extent_end;
        }
        runs
    }

    /// The fingerprint written to page `page` of `file`; `None` past the
    /// end or for a deleted file.
    pub fn fingerprint_of(&self, file: FileId, page: u64) -> Option<u64> {
        self.files
            .get(&file)?
            .fingerprints
            .get(page as usize)
            .copied()
    }

    /// Every page of every live file as `(LPN, fingerprint written)`, so a
    /// test can hold the device's content against what was written.
    pub fn live_pages(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.files.values().flat_map(|m| {
            m.extents
                .iter()
                .flat_map(|&(first, len)| first..first + len)
                .zip(m.fingerprints.iter().copied())
        })
    }

    /// Live files.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Free + held pages add up to the device; no page is held twice.
    pub fn check_invariants(&self) -> Result<(), String> {
        let held: u64 = self
            .files
            .values()
            .map(|m| m.fingerprints.len() as u64)
            .sum();
        if held + self.alloc.free_pages != self.device.logical_pages() {
            return Err(format!(
                "file layer: {held} held + {} free pages != {} device pages",
                self.alloc.free_pages,
                self.device.logical_pages()
            ));
        }
        let mut all: Vec<(u64, u64)> = self
            .files
            .values()
            .flat_map(|m| m.extents.iter().copied())
            .chain(self.alloc.free.iter().map(|(&f, &p)| (f, p)))
            .collect();
        all.sort_unstable();
        for w in all.windows(2) {
            if w[0].0 + w[0].1 > w[1].0 {
                return Err(format!(
                    "file layer: extents {:?} and {:?} overlap",
                    w[0], w[1]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::error::SimError;
    use crate::metrics::LayerStats;
    use crate::request::Completion;
    use std::collections::HashMap;

    /// A device that remembers each LPN's fingerprint.
    #[derive(Default)]
    pub struct MemDevice {
        pub pages: u64,
        pub content: HashMap<u64, u64>,
        pub writes: u64,
    }

    impl BlockDevice for MemDevice {
        fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
            let mut done = Completion::default();
            for (i, lpn) in req.lpns().enumerate() {
                assert!(lpn < self.pages);
                match req.op {
                    Op::Write => {
                        self.writes += 1;
                        self.content.insert(lpn, req.fingerprints[i]);
                    }
                    Op::Trim => {
                        self.content.remove(&lpn);
                    }
                    Op::Remap => {
                        let src = req.src_lpn + i as u64;
                        let fp = self.content.remove(&src).expect("remap of a mapped page");
                        self.content.insert(lpn, fp);
                    }
                    Op::Read if self.content.contains_key(&lpn) => done.mapped_pages += 1,
                    Op::Read => done.unmapped_pages += 1,
                    _ => unreachable!(),
                }
            }
            Ok(done)
        }
        fn logical_pages(&self) -> u64 {
            self.pages
        }
        fn layer_stats(&self, _out: &mut Vec<LayerStats>) {}
    }

    pub fn mem(pages: u64) -> MemDevice {
        MemDevice {
            pages,
            ..MemDevice::default()
        }
    }

    #[test]
    fn files_sit_on_a_borrowed_device() {
        let mut device = mem(8);
        {
            let below: &mut dyn BlockDevice = &mut device;
            let mut f = Files::new(Borrowed(below), 4096);
            let a = f.create();
            f.append(a, &[11, 12], 0).unwrap();
        }
        assert_eq!(device.content.get(&1), Some(&12));
    }

    #[test]
    fn files_map_pages_and_trim_on_delete() {
        let mut f = Files::new(mem(16), 4096);
        let a = f.create();
        let b = f.create();
        f.append(a, &[1, 2, 3], 0).unwrap();
        f.append(b, &[4, 5], 0).unwrap();
        f.append(a, &[6], 0).unwrap();
        assert_eq!(f.lpn_of(a, 0), Some(0));
        assert_eq!(f.lpn_of(a, 3 * 4096), Some(5), "a's 4th page follows b");
        assert_eq!(f.lpn_of(a, 4 * 4096), None);
        f.read(a, 1, 3).unwrap();
        f.delete(b).unwrap();
        assert!(!f.device().content.contains_key(&3));
        let c = f.create();
        f.append(c, &[7, 8, 9], 0).unwrap();
        // First fit: the hole b left, then past a.
        assert_eq!(f.lpn_of(c, 0), Some(3));
        assert_eq!(f.lpn_of(c, 2 * 4096), Some(6));
        for (lpn, fp) in f.live_pages() {
            assert_eq!(f.device().content.get(&lpn), Some(&fp));
        }
        f.check_invariants().unwrap();
        assert!(f.append(c, &[0; 20], 0).is_err());
        f.check_invariants().unwrap();
        f.delete(a).unwrap();
        f.delete(c).unwrap();
        assert_eq!(f.free_pages(), 16);
        assert_eq!(f.alloc.free.len(), 1, "free space coalesced");
        assert_eq!(f.counters().write_pages, 9);
        assert_eq!(f.counters().read_pages, 3);
    }

    #[test]
    fn runs_of_agrees_with_lpn_of_page_by_page() {
        // a: pages 0-2, then 5 (after b's 3-4), then 8-9 (after c's 6-7):
        // three extents.
        let mut f = Files::new(mem(16), 4096);
        let (a, b, c) = (f.create(), f.create(), f.create());
        f.append(a, &[1, 2, 3], 0).unwrap();
        f.append(b, &[4, 5], 0).unwrap();
        f.append(a, &[6], 0).unwrap();
        f.append(c, &[7, 8], 0).unwrap();
        f.append(a, &[9, 10], 0).unwrap();
        assert_eq!(f.runs_of(a, 0..6), vec![(0, 3), (5, 1), (8, 2)]);
        for from in 0..6 {
            for to in from..=6 {
                let runs = f.runs_of(a, from..to);
                let pages: Vec<u64> = runs.iter().flat_map(|&(l, n)| l..l + n).collect();
                let one_by_one: Vec<u64> =
                    (from..to).map(|p| f.lpn_of(a, p * 4096).unwrap()).collect();
                assert_eq!(pages, one_by_one, "pages {from}..{to}");
            }
        }
        assert_eq!(f.runs_of(a, 4..9), vec![(8, 2)], "stops at the end");
        f.delete(a).unwrap();
        assert!(f.runs_of(a, 0..2).is_empty());
    }
}
