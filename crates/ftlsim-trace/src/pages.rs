//! From byte requests to page requests.
//!
//! Rules (also in the crate README):
//!
//! * **Unaligned requests** cover every page they touch: first page
//!   `offset / page_bytes`, last page `(offset + length - 1) / page_bytes`.
//!   A 1-byte write in the middle of a page writes the whole page.
//! * **Remap and clone** move or share whole pages, so their offset, source
//!   offset and length must be multiples of the page size (else a line
//!   error); `src_lpn` is the first source page. Compact mapping numbers
//!   source pages like any page (for each page: the source, then the
//!   destination), and a request is split wherever either side stops being
//!   consecutive. The capacity check covers both ranges.
//! * **Zero-length** reads, writes and trims are skipped (and counted, see
//!   [`PageMapper::zero_length_skipped`]); flushes become a
//!   [`PageRequest`] with `pages == 0` and `lpn == 0`.
//! * **Compact mapping** (optional): every page the trace touches (by any
//!   operation) gets a dense number in first-touch order (0, 1, 2, ...), so a
//!   trace of a 2 TB volume that touches 10 GB fits a 10 GB simulated
//!   device. Deterministic: it depends only on the order of requests. A
//!   request whose pages are not consecutive after renumbering is split into
//!   several page requests, one per consecutive run.
//! * **Capacity**: with `logical_pages` set, a request beyond the device
//!   (without compaction), or more distinct pages than the device has (with
//!   compaction), is an error naming the file and line.
//! * **Repeat**: the trace is replayed `repeat` times (the file is reopened);
//!   pass *k* is shifted in time after pass *k − 1* by its span plus its
//!   mean inter-arrival gap. Compact numbering is kept across passes.
//! * **Fingerprints** (per 4 KiB page in records) are passed through for
//!   4 KiB pages, combined with [`crate::combine_fingerprints`] for pages that
//!   are a multiple of 4 KiB, and dropped for other page sizes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};

use crate::error::{LineError, TraceError};
use crate::open::open;
use crate::reader::{ReaderOptions, TraceReader};
use crate::record::{
    combine_fingerprints, page_span, TraceOp, TraceRecord, FINGERPRINT_PAGE_BYTES,
};

/// A fast, deterministic hasher for page numbers and fingerprints (the maps
/// are never iterated into results, so any good mixing will do).
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(MIX);
    }

    #[inline]
    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // Fold the high bits down so both ends of the hash are well mixed.
        self.0 ^ (self.0 >> 29)
    }
}

pub(crate) type FastBuild = BuildHasherDefault<FastHasher>;

/// Appends to `out` the fingerprints of pages `first..first + count` (of
/// `page_bytes`) of `rec`, following the module rules; appends nothing when
/// they are unknown or the page size is not a multiple of 4 KiB.
pub(crate) fn page_fingerprints(
    rec: &TraceRecord,
    page_bytes: u64,
    first: u64,
    count: u64,
    out: &mut Vec<u128>,
) {
    if rec.fingerprints.is_empty() || rec.fingerprints.len() as u64 != rec.fingerprint_pages() {
        return;
    }
    if page_bytes == FINGERPRINT_PAGE_BYTES {
        out.extend_from_slice(&rec.fingerprints);
    } else if page_bytes % FINGERPRINT_PAGE_BYTES == 0 {
        let per_page = page_bytes / FINGERPRINT_PAGE_BYTES;
        let (fp_first, fp_count) =
            page_span(rec.offset_bytes, rec.length_bytes, FINGERPRINT_PAGE_BYTES);
        for page in first..first.saturating_add(count) {
            let lo = page.saturating_mul(per_page).max(fp_first);
            let hi = page
                .saturating_add(1)
                .saturating_mul(per_page)
                .min(fp_first + fp_count)
                .max(lo);
            let group = rec
                .fingerprints
                .get((lo - fp_first) as usize..(hi - fp_first) as usize)
                .unwrap_or(&[]);
            out.push(combine_fingerprints(group));
        }
    }
}

/// How records become page requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageOptions {
    /// Mapping unit in bytes (default 4096).
    pub page_bytes: u32,
    /// Dense first-touch renumbering of pages.
    pub compact: bool,
    /// Logical pages of the simulated device, for the capacity check.
    pub logical_pages: Option<u64>,
    /// Number of passes over the trace (default 1).
    pub repeat: u32,
    /// Subtract the first record's time so the replay starts at 0 (default true).
    pub rebase_time: bool,
}

impl Default for PageOptions {
    fn default() -> Self {
        PageOptions {
            page_bytes: 4096,
            compact: false,
            logical_pages: None,
            repeat: 1,
            rebase_time: true,
        }
    }
}

/// One request on logical pages: the vocabulary of the simulator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageRequest {
    /// Arrival time in ns (rebased and shifted per pass, see [`PageOptions`]).
    pub time_ns: u64,
    /// Operation.
    pub op: TraceOp,
    /// First logical page.
    pub lpn: u64,
    /// Number of pages (0 for flushes).
    pub pages: u32,
    /// First source page of a remap or clone (`src_lpn..src_lpn + pages`
    /// moves or is shared to `lpn..`); 0 for every other operation.
    pub src_lpn: u64,
    /// Device id of the source record.
    pub device: Option<u32>,
    /// Stream id of the source record.
    pub stream: Option<u16>,
    /// Program-context tag of the source record.
    pub context: Option<u64>,
    /// One content fingerprint per page, or empty when unknown.
    pub fingerprints: Vec<u128>,
}

/// Why a record cannot become page requests.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// The request does not fit the simulated device.
    #[error("{0}")]
    Capacity(String),
    /// The record itself is unusable (an unaligned remap or clone).
    #[error("{0}")]
    Request(String),
}

/// Turns records into page requests (see the module docs for the rules).
///
/// Push one record with [`PageMapper::push`], then call
/// [`PageMapper::next_request`] until it returns `Ok(false)`.
pub struct PageMapper {
    page_bytes: u64,
    compact: bool,
    logical_pages: Option<u64>,
    map: HashMap<u64, u64, FastBuild>,
    next_compact: u64,
    // The record being split.
    time_ns: u64,
    op: TraceOp,
    device: Option<u32>,
    stream: Option<u16>,
    context: Option<u64>,
    first_page: u64,
    cursor: u64,
    end: u64,
    /// Source page matching `first_page` (remap and clone only).
    src_first_page: u64,
    fingerprints: Vec<u128>,
    flush_pending: bool,
    zero_length_skipped: u64,
}

impl PageMapper {
    /// A mapper; fails if `page_bytes` is 0.
    pub fn new(opts: &PageOptions) -> Result<Self, TraceError> {
        if opts.page_bytes == 0 {
            return Err(TraceError::Option(
                "page size must be at least 1 byte".into(),
            ));
        }
        Ok(PageMapper {
            page_bytes: u64::from(opts.page_bytes),
            compact: opts.compact,
            logical_pages: opts.logical_pages,
            map: HashMap::default(),
            next_compact: 0,
            time_ns: 0,
            op: TraceOp::Read,
            device: None,
            stream: None,
            context: None,
            first_page: 0,
            cursor: 0,
            end: 0,
            src_first_page: 0,
            fingerprints: Vec::new(),
            flush_pending: false,
            zero_length_skipped: 0,
        })
    }

    /// Loads a record, to be split by [`PageMapper::next_request`]. `time_ns`
    /// is the time to give its page requests. Any unfinished record is dropped.
    /// Fails (leaving nothing to split) for a remap or clone that is not
    /// page-aligned.
    pub fn push(&mut self, rec: &TraceRecord, time_ns: u64) -> Result<(), MapError> {
        self.time_ns = time_ns;
        self.op = rec.op;
        self.device = rec.device;
        self.stream = rec.stream;
        self.context = rec.context;
        self.fingerprints.clear();
        self.flush_pending = false;
        self.cursor = 0;
        self.end = 0;
        self.src_first_page = 0;
        if rec.op == TraceOp::Flush {
            self.flush_pending = true;
            return Ok(());
        }
        if rec.op.has_source() {
            let pb = self.page_bytes;
            if rec.offset_bytes % pb != 0
                || rec.src_offset_bytes % pb != 0
                || rec.length_bytes % pb != 0
            {
                return Err(MapError::Request(format!(
                    "{} of {} bytes from byte {} to byte {} is not aligned to the {pb}-byte \
                     page (a remap or clone moves whole pages)",
                    rec.op, rec.length_bytes, rec.src_offset_bytes, rec.offset_bytes
                )));
            }
        }
        let (first, count) = rec.page_span(self.page_bytes);
        if count == 0 {
            self.zero_length_skipped += 1;
            return Ok(());
        }
        self.first_page = first;
        self.cursor = first;
        self.end = first.saturating_add(count);
        if rec.op.has_source() {
            self.src_first_page = rec.src_offset_bytes / self.page_bytes;
        } else {
            page_fingerprints(rec, self.page_bytes, first, count, &mut self.fingerprints);
        }
        Ok(())
    }

    /// Compact number of `page`, assigning the next one on first touch.
    fn compact_lpn(&mut self, page: u64) -> Result<u64, MapError> {
        if let Some(&lpn) = self.map.get(&page) {
            return Ok(lpn);
        }
        if let Some(limit) = self.logical_pages {
            if self.next_compact >= limit {
                return Err(MapError::Capacity(format!(
                    "the trace touches more distinct pages than the device's {limit} logical \
                     pages, even with compact mapping"
                )));
            }
        }
        let lpn = self.next_compact;
        self.map.insert(page, lpn);
        self.next_compact += 1;
        Ok(lpn)
    }

    /// The next page request of the pushed record; `Ok(false)` when done.
    /// The error is a capacity error, in words.
    pub fn next_request(&mut self, out: &mut PageRequest) -> Result<bool, MapError> {
        if self.flush_pending {
            self.flush_pending = false;
            self.fill_header(out);
            out.lpn = 0;
            out.pages = 0;
            out.src_lpn = 0;
            out.fingerprints.clear();
            return Ok(true);
        }
        if self.cursor >= self.end {
            return Ok(false);
        }
        let start = self.cursor;
        let max_run = (self.end - start).min(u64::from(u32::MAX));
        let has_source = self.op.has_source();
        // Source page of destination page `page`.
        let (src_first, first_page) = (self.src_first_page, self.first_page);
        let src_of = move |page: u64| src_first.saturating_add(page - first_page);
        let (lpn, src_lpn, run) = if self.compact {
            // Source first: the data is read there before it lands.
            let src0 = if has_source {
                self.compact_lpn(src_of(start))?
            } else {
                0
            };
            let lpn0 = self.compact_lpn(start)?;
            let mut run = 1;
            while run < max_run {
                if has_source {
                    let next_src = self.compact_lpn(src_of(start + run))?;
                    if Some(next_src) != src0.checked_add(run) {
                        break;
                    }
                }
                let next = self.compact_lpn(start + run)?;
                if Some(next) != lpn0.checked_add(run) {
                    break;
                }
                run += 1;
            }
            (lpn0, src0, run)
        } else {
            let src_start = if has_source { src_of(start) } else { 0 };
            if let Some(limit) = self.logical_pages {
                let touched_end = if has_source {
                    (start + max_run).max(src_start.saturating_add(max_run))
                } else {
                    start + max_run
                };
                if touched_end > limit {
                    return Err(MapError::Capacity(format!(
                        "the request touches page {} but the device has {limit} logical pages \
                         (use compact mapping, or a larger device)",
                        touched_end - 1
                    )));
                }
            }
            (start, src_start, max_run)
        };
        self.fill_header(out);
        out.lpn = lpn;
        out.src_lpn = src_lpn;
        out.pages = run as u32; // run ≤ u32::MAX
        out.fingerprints.clear();
        if !self.fingerprints.is_empty() {
            let lo = (start - self.first_page) as usize;
            if let Some(fps) = self.fingerprints.get(lo..lo + run as usize) {
                out.fingerprints.extend_from_slice(fps);
            }
        }
        self.cursor = start + run;
        Ok(true)
    }

    fn fill_header(&self, out: &mut PageRequest) {
        out.time_ns = self.time_ns;
        out.op = self.op;
        out.device = self.device;
        out.stream = self.stream;
        out.context = self.context;
    }

    /// Zero-length data requests skipped so far.
    pub fn zero_length_skipped(&self) -> u64 {
        self.zero_length_skipped
    }

    /// Distinct pages numbered so far (compact mapping only; 0 otherwise).
    pub fn compact_pages(&self) -> u64 {
        self.next_compact
    }
}

/// Opens a fresh reader for each pass of a repeated replay.
pub type ReaderOpener = Box<dyn FnMut() -> Result<Box<dyn TraceReader>, TraceError> + Send>;

/// A stream of page requests from a trace, with device filter (through
/// [`ReaderOptions::device`]), compact mapping and repeat.
///
/// ```no_run
/// use ftlsim_trace::{PageOptions, PageRequest, PageStream, ReaderOptions};
/// let popts = PageOptions { compact: true, repeat: 2, ..PageOptions::default() };
/// let mut pages = PageStream::open("trace.csv".as_ref(), &ReaderOptions::default(), &popts)?;
/// let mut req = PageRequest::default();
/// while pages.next_request(&mut req)? {
///     // req.op, req.lpn, req.pages, req.fingerprints ...
/// }
/// eprintln!("skipped {} bad lines", pages.skipped_bad_lines());
/// # Ok::<(), ftlsim_trace::TraceError>(())
/// ```
pub struct PageStream {
    opener: Option<ReaderOpener>,
    reader: Box<dyn TraceReader>,
    mapper: PageMapper,
    rec: TraceRecord,
    repeat: u32,
    pass: u32,
    rebase: bool,
    first_time: Option<u64>,
    pass_first: u64,
    pass_last: u64,
    pass_records: u64,
    pass_offset_ns: u64,
    skipped_done: u64,
    done: bool,
}

impl PageStream {
    /// Page requests of the trace at `path` (reopened for each pass).
    pub fn open(
        path: &Path,
        ropts: &ReaderOptions,
        popts: &PageOptions,
    ) -> Result<Self, TraceError> {
        let path: PathBuf = path.to_path_buf();
        let ropts = ropts.clone();
        let opener: ReaderOpener = Box::new(move || open(&path, &ropts));
        Self::with_opener(opener, popts)
    }

    /// Page requests from readers made by `opener` (called once per pass).
    pub fn with_opener(mut opener: ReaderOpener, popts: &PageOptions) -> Result<Self, TraceError> {
        if popts.repeat == 0 {
            return Err(TraceError::Option("repeat must be at least 1".into()));
        }
        let reader = opener()?;
        let mut s = Self::from_reader(
            reader,
            &PageOptions {
                repeat: 1,
                ..popts.clone()
            },
        )?;
        s.repeat = popts.repeat;
        s.opener = Some(opener);
        Ok(s)
    }

    /// Page requests from one reader. `repeat` must be 1 (a reader cannot
    /// be rewound); use [`PageStream::open`] or [`PageStream::with_opener`].
    pub fn from_reader(
        reader: Box<dyn TraceReader>,
        popts: &PageOptions,
    ) -> Result<Self, TraceError> {
        if popts.repeat != 1 {
            return Err(TraceError::Option(
                "repeat needs a way to reopen the trace: use PageStream::open".into(),
            ));
        }
        Ok(PageStream {
            opener: None,
            reader,
            mapper: PageMapper::new(popts)?,
            rec: TraceRecord::default(),
            repeat: 1,
            pass: 0,
            rebase: popts.rebase_time,
            first_time: None,
            pass_first: 0,
            pass_last: 0,
            pass_records: 0,
            pass_offset_ns: 0,
            skipped_done: 0,
            done: false,
        })
    }

    /// The next page request; `Ok(false)` at the end of the last pass.
    pub fn next_request(&mut self, out: &mut PageRequest) -> Result<bool, TraceError> {
        loop {
            match self.mapper.next_request(out) {
                Ok(true) => return Ok(true),
                Ok(false) => {}
                Err(e) => return Err(self.map_error(e)),
            }
            if self.done {
                return Ok(false);
            }
            if self.reader.next_record(&mut self.rec)? {
                let t = self.rec.time_ns;
                let first = *self.first_time.get_or_insert(t);
                if self.pass_records == 0 {
                    self.pass_first = t;
                    self.pass_last = t;
                }
                self.pass_first = self.pass_first.min(t);
                self.pass_last = self.pass_last.max(t);
                self.pass_records += 1;
                let base = if self.rebase {
                    t.saturating_sub(first)
                } else {
                    t
                };
                let Some(time) = base.checked_add(self.pass_offset_ns) else {
                    return Err(TraceError::Option(format!(
                        "{}: line {}: replaying it {} times takes the request times past 2^64 ns \
                         (pass {}); repeat it fewer times",
                        self.reader.name(),
                        self.reader.position(),
                        self.repeat,
                        self.pass + 1
                    )));
                };
                if let Err(e) = self.mapper.push(&self.rec, time) {
                    return Err(self.map_error(e));
                }
                continue;
            }
            // End of a pass.
            self.pass += 1;
            self.skipped_done += self.reader.skipped_bad_lines();
            // A pass that gave no record (an empty trace, or a device filter
            // that matches nothing) would give none again: reopening the
            // file `repeat` times would only spin.
            let Some(opener) = self
                .opener
                .as_mut()
                .filter(|_| self.pass < self.repeat && self.pass_records > 0)
            else {
                self.done = true;
                continue;
            };
            let span = self.pass_last - self.pass_first;
            let gap = if self.pass_records > 1 {
                span / (self.pass_records - 1)
            } else {
                0
            };
            // Saturating would pin every later request to the same time:
            // a silent wrong answer for the timing model. Refuse instead.
            self.pass_offset_ns = self
                .pass_offset_ns
                .checked_add(span)
                .and_then(|t| t.checked_add(gap.max(1)))
                .ok_or_else(|| {
                    TraceError::Option(format!(
                        "{}: replaying it {} times takes the request times past 2^64 ns \
                         (pass {}); repeat it fewer times",
                        self.reader.name(),
                        self.repeat,
                        self.pass + 1
                    ))
                })?;
            self.pass_records = 0;
            self.reader = opener()?;
        }
    }

    /// A mapper error as a trace error naming the file and line of the
    /// record being mapped.
    fn map_error(&self, e: MapError) -> TraceError {
        let file = self.reader.name().to_string();
        let line = self.reader.position();
        match e {
            MapError::Capacity(what) => TraceError::Capacity { file, line, what },
            MapError::Request(what) => TraceError::Line {
                file,
                line,
                error: LineError::Other(what),
            },
        }
    }

    /// Passes completed.
    pub fn passes_done(&self) -> u32 {
        self.pass
    }

    /// Bad lines skipped, over all passes so far.
    pub fn skipped_bad_lines(&self) -> u64 {
        let current = if self.done {
            0
        } else {
            self.reader.skipped_bad_lines()
        };
        self.skipped_done + current
    }

    /// The current reader (format, name, first skipped error...).
    pub fn reader(&self) -> &dyn TraceReader {
        self.reader.as_ref()
    }

    /// Zero-length data requests skipped.
    pub fn zero_length_skipped(&self) -> u64 {
        self.mapper.zero_length_skipped()
    }

    /// Distinct pages numbered by compact mapping (0 without it).
    pub fn compact_pages(&self) -> u64 {
        self.mapper.compact_pages()
    }
}

impl Iterator for PageStream {
    type Item = Result<PageRequest, TraceError>;

    /// Allocating convenience; stops after the first error.
    fn next(&mut self) -> Option<Self::Item> {
        let mut req = PageRequest::default();
        match self.next_request(&mut req) {
            Ok(true) => Some(Ok(req)),
            Ok(false) => None,
            Err(e) => {
                self.done = true;
                self.mapper.cursor = self.mapper.end;
                self.mapper.flush_pending = false;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
#[path = "pages_tests.rs"]
mod tests;
