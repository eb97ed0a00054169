//! What the live device does with a byte-addressed read, write or discard,
//! apart from FUSE: keep the bytes (`PageStore`) and tell the simulated
//! device, as whole-page `Request`s, what the host did.
//!
//! Kept free of FUSE so that a property test can drive it against a plain
//! byte array (tests/handler_model.rs).

use std::time::Instant;

use ftlsim::request::{Op, Request};

use serde::Serialize;

use crate::store::{page_hash128, PageStore};

/// A request for the simulated device plus the full 128-bit MurmurHash3 of
/// each page it writes (the recorded trace keeps them; the simulator keys
/// pages by their 64-bit fold, already in `req.fingerprints`).
#[derive(Debug, Clone, Default)]
pub struct LiveRequest {
    pub req: Request,
    pub hashes: Vec<u128>,
}

/// Where the handler's requests go: the simulation thread, or a test.
pub trait RequestSink {
    /// Hands one request on; `false` when nobody takes requests any more
    /// (the simulation stopped), which fails the operation with EIO.
    fn send(&mut self, req: LiveRequest) -> bool;
}

/// A sink that keeps everything (tests).
impl RequestSink for Vec<LiveRequest> {
    fn send(&mut self, req: LiveRequest) -> bool {
        self.push(req);
        true
    }
}

/// What the host asked for, as it arrived (bytes) and as the device saw it
/// (pages), for the live statistics.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct HostCounters {
    pub read_requests: u64,
    pub write_requests: u64,
    pub discard_requests: u64,
    pub flush_requests: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub discard_bytes: u64,
    /// Writes that did not cover whole pages (the handler merged them with
    /// the page's old bytes).
    pub partial_page_writes: u64,
    /// Distinct pages of bytes held now.
    pub stored_pages: u64,
}

/// Why an operation failed (mapped to an errno by the FUSE glue, which
/// also tells the user about a backing-file error: the host sees only EIO).
#[derive(Debug)]
pub enum IoError {
    /// Past the end of the device.
    OutOfRange,
    /// The simulation stopped (an error, or the device's end of life).
    DeviceGone,
    /// The backing file failed (`--backing`): a read, write or hole punch.
    Backing(std::io::Error),
}

impl From<std::io::Error> for IoError {
    fn from(e: std::io::Error) -> Self {
        IoError::Backing(e)
    }
}

/// The live device's data path.
pub struct Handler<S: RequestSink> {
    store: PageStore,
    size_bytes: u64,
    sink: S,
    /// Whether writes carry content fingerprints (dedup, or a recorded trace).
    fingerprints: bool,
    started: Instant,
    /// `started` on `CLOCK_MONOTONIC` in ns: the capture library's clock,
    /// so that the join can place file writes against device writes.
    started_monotonic_ns: u64,
    counters: HostCounters,
    scratch: Vec<u8>,
}

impl<S: RequestSink> Handler<S> {
    /// A device of `size_bytes` (a whole number of pages) over `store`.
    pub fn new(store: PageStore, size_bytes: u64, sink: S, fingerprints: bool) -> Self {
        assert!(
            size_bytes <= store.pages() * store.page_bytes() as u64,
            "the store must hold the whole device"
        );
        let page_bytes = store.page_bytes();
        Self {
            store,
            size_bytes,
            sink,
            fingerprints,
            started: Instant::now(),
            started_monotonic_ns: crate::join::monotonic_ns(),
            counters: HostCounters::default(),
            scratch: vec![0; page_bytes],
        }
    }

    pub fn size_bytes(&self) -> u64 {
        self.size_bytes
    }

    /// When request times start, on `CLOCK_MONOTONIC` (ns).
    pub fn started_monotonic_ns(&self) -> u64 {
        self.started_monotonic_ns
    }

    pub fn counters(&self) -> HostCounters {
        HostCounters {
            stored_pages: self.store.stored_pages(),
            ..self.counters
        }
    }

    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Gives the sink back (closing a channel ends the simulation's input).
    pub fn into_sink(self) -> S {
        self.sink
    }

    fn page_bytes(&self) -> u64 {
        self.store.page_bytes() as u64
    }

    fn request(&self, op: Op, lpn: u64, pages: u64) -> LiveRequest {
        let mut req = Request::default();
        req.set(
            op,
            lpn,
            u32::try_from(pages).expect("a FUSE request is far below 2^32 pages"),
        );
        req.arrival_ns = Some(self.started.elapsed().as_nanos() as u64);
        LiveRequest {
            req,
            hashes: Vec::new(),
        }
    }

    fn send(&mut self, req: LiveRequest) -> Result<(), IoError> {
        if self.sink.send(req) {
            Ok(())
        } else {
            Err(IoError::DeviceGone)
        }
    }

    /// `len` bytes at `offset` lie inside the device.
    fn check_range(&self, offset: u64, len: u64) -> Result<(), IoError> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size_bytes => Ok(()),
            _ => Err(IoError::OutOfRange),
        }
    }

    /// Pages `first..end` touched by `len` bytes at `offset`.
    fn span(&self, offset: u64, len: u64) -> (u64, u64) {
        let p = self.page_bytes();
        (offset / p, (offset + len).div_ceil(p))
    }

    /// Reads up to `len` bytes at `offset` (fewer at the end of the device);
    /// never-written and discarded bytes read as zeros.
    pub fn read(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, IoError> {
        if offset > self.size_bytes {
            return Err(IoError::OutOfRange);
        }
        let len = len.min(self.size_bytes - offset);
        let mut out = vec![0u8; len as usize];
        if len == 0 {
            return Ok(out);
        }
        let p = self.page_bytes();
        let (first, end) = self.span(offset, len);
        for lpn in first..end {
            let (in_page, in_buf) = clip(lpn, p, offset, len);
            // An LPN without data leaves its zeros.
            self.store.read_into(lpn, in_page.start, &mut out[in_buf])?;
        }
        self.counters.read_requests += 1;
        self.counters.read_bytes += len;
        let req = self.request(Op::Read, first, end - first);
        self.send(req)?;
        Ok(out)
    }

    /// Writes `data` at `offset`: whole pages to the device, a partly
    /// covered page merged with its old bytes first.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> Result<(), IoError> {
        let len = data.len() as u64;
        self.check_range(offset, len)?;
        if len == 0 {
            return Ok(());
        }
        let p = self.page_bytes();
        let (first, end) = self.span(offset, len);
        let mut req = self.request(Op::Write, first, end - first);
        for lpn in first..end {
            let (in_page, in_buf) = clip(lpn, p, offset, len);
            let src = &data[in_buf];
            let page: &[u8] = if src.len() as u64 == p {
                src
            } else {
                self.counters.partial_page_writes += 1;
                if !self.store.read_into(lpn, 0, &mut self.scratch)? {
                    self.scratch.fill(0);
                }
                self.scratch[in_page].copy_from_slice(src);
                &self.scratch
            };
            let fp = if self.fingerprints {
                let hash = page_hash128(page);
                let fp = ftlsim::hash::fold128(hash);
                req.req.fingerprints.push(fp);
                req.hashes.push(hash);
                fp
            } else {
                0
            };
            self.store.put(lpn, page, fp)?;
        }
        self.counters.write_requests += 1;
        self.counters.write_bytes += len;
        self.send(req)
    }

    /// Discards `len` bytes at `offset`: the whole pages inside the range
    /// are trimmed on the device; the bytes of a partly covered page are
    /// zeroed (a write, when that page held data), since a discarded range
    /// must read back as zeros (`fallocate(PUNCH_HOLE)` semantics).
    pub fn discard(&mut self, offset: u64, len: u64) -> Result<(), IoError> {
        self.check_range(offset, len)?;
        if len == 0 {
            return Ok(());
        }
        let p = self.page_bytes();
        let end_bytes = offset + len;
        let whole_first = offset.div_ceil(p);
        let whole_end = end_bytes / p;
        // Partly covered pages at either end (one page may be both).
        let mut partial: Vec<(u64, u64)> = Vec::new();
        if whole_first > whole_end {
            partial.push((offset, end_bytes));
        } else {
            if offset % p != 0 {
                partial.push((offset, whole_first * p));
            }
            if end_bytes % p != 0 {
                partial.push((whole_end * p, end_bytes));
            }
        }
        for (from, to) in partial {
            if self.store.holds(from / p) {
                let zeros = vec![0u8; (to - from) as usize];
                self.write(from, &zeros)?;
                // Counted as part of the discard, not as a host write.
                self.counters.write_requests -= 1;
                self.counters.write_bytes -= to - from;
            }
        }
        if whole_first < whole_end {
            for lpn in whole_first..whole_end {
                self.store.remove(lpn)?;
            }
            let req = self.request(Op::Trim, whole_first, whole_end - whole_first);
            self.send(req)?;
        }
        self.counters.discard_requests += 1;
        self.counters.discard_bytes += len;
        Ok(())
    }

    /// An fsync: everything acknowledged becomes durable.
    pub fn flush(&mut self) -> Result<(), IoError> {
        self.counters.flush_requests += 1;
        let req = self.request(Op::Flush, 0, 0);
        self.send(req)
    }
}

/// The part of page `lpn` (of `page_bytes`) that `len` bytes at `offset`
/// cover: as a range in the page and as a range in the request's buffer.
fn clip(
    lpn: u64,
    page_bytes: u64,
    offset: u64,
    len: u64,
) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let page_start = lpn * page_bytes;
    let from = offset.max(page_start);
    let to = (offset + len).min(page_start + page_bytes);
    (
        (from - page_start) as usize..(to - page_start) as usize,
        (from - offset) as usize..(to - offset) as usize,
    )
}
