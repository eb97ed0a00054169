//! Lifespans of written pages: for each page a trace writes, in the order
//! written, how many pages are written from it until its content dies.
//!
//! Write ids count written pages from 0 (reads, flushes and trims take
//! none). The page written with id `w` dies when the same logical page is
//! written again, with id `w'` (lifespan `w' − w`, so 1 when the very next
//! page written overwrites it), or trimmed after `t` pages have been written
//! in all (lifespan `t − w`: the trim comes before write `t`). A page never
//! overwritten nor trimmed has an infinite lifespan ([`INFINITE`]). These
//! are SepBIT's units (its `annotate_future_knowledge`: access ids of
//! written 4 KiB blocks), with trims added; its traces have none.
//!
//! Two outputs, written in write order as lifespans become known:
//!
//! * SepBIT's oracle ([`SepbitOracleWriter`]): text, one decimal per line,
//!   infinite as `18446744073709551615` (`UINT64_MAX`), the file its FK
//!   placement reads as `ORACLE_DIR/VOLUME.oracle`. Its blocks are 4 KiB:
//!   annotate with 4096-byte pages for it.
//! * ftlsim's sidecar ([`LifespanWriter`], read by [`LifespanReader`]): the
//!   8 bytes `FTLSLIFE`, a `u32` version (1) and a `u32` page size in bytes,
//!   then one little-endian `u64` per written page, `u64::MAX` for
//!   infinite. The `i`-th value belongs to the `i`-th page the trace writes
//!   when replayed in one pass with that page size (`PageStream` order).
//!
//! Memory: one map entry per live logical page, and the lifespans not yet
//! known that lie between the oldest unresolved write and the newest.
//! `window_pages` bounds the latter: a write still unresolved when
//! `window_pages` more pages have been written after it is given out as
//! infinite and counted in [`LifespanSummary::cut_pages`] (SepBIT's
//! annotator does the same beyond 8 TiB of writes).

use std::collections::{HashMap, VecDeque};
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use crate::error::TraceError;
use crate::output_file::{check_not_input, OutputFile};
use crate::pages::{FastBuild, PageOptions, PageRequest, PageStream};
use crate::reader::ReaderOptions;
use crate::record::TraceOp;

/// The lifespan of a page never overwritten nor trimmed.
pub const INFINITE: u64 = u64::MAX;

/// The first bytes of ftlsim's lifespan sidecar.
pub const LIFESPAN_MAGIC: &[u8; 8] = b"FTLSLIFE";

/// The sidecar's format version.
pub const LIFESPAN_VERSION: u32 = 1;

/// The default bound on unresolved writes: 2^27 pages (512 GiB of 4 KiB
/// writes, 1 GiB of memory at most).
pub const DEFAULT_WINDOW_PAGES: u64 = 1 << 27;

/// What an annotation counted, in pages.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LifespanSummary {
    /// Pages written (lifespans given out).
    pub written_pages: u64,
    /// Written pages that died by a later write.
    pub overwritten_pages: u64,
    /// Written pages that died by a trim.
    pub trimmed_pages: u64,
    /// Written pages that never died (infinite).
    pub infinite_pages: u64,
    /// Of those, pages given out as infinite because they outlived the
    /// window unresolved (their true lifespan is at least the window).
    pub cut_pages: u64,
}

/// The annotator: feed it the trace's writes and trims in order.
pub struct Lifespans {
    /// Write id of each logical page's live content.
    live: HashMap<u64, u64, FastBuild>,
    /// Lifespans of writes `head..next`, [`INFINITE`] while unknown.
    pending: VecDeque<u64>,
    head: u64,
    next: u64,
    window_pages: u64,
    summary: LifespanSummary,
}

impl Lifespans {
    /// An annotator that holds at most `window_pages` (≥ 1) unresolved writes.
    pub fn new(window_pages: u64) -> Self {
        Lifespans {
            live: HashMap::default(),
            pending: VecDeque::new(),
            head: 0,
            next: 0,
            window_pages: window_pages.max(1),
            summary: LifespanSummary::default(),
        }
    }

    /// Ends the life of write `id` at the current write count.
    fn resolve(&mut self, id: u64) {
        // A write given out already (cut by the window) stays infinite.
        if id >= self.head {
            self.pending[(id - self.head) as usize] = self.next - id;
        }
    }

    /// Pages `lpn..lpn + pages` are written; `out` receives every lifespan
    /// that became known in write order.
    pub fn write(
        &mut self,
        lpn: u64,
        pages: u64,
        out: &mut dyn FnMut(u64) -> io::Result<()>,
    ) -> io::Result<()> {
        for page in lpn..lpn.saturating_add(pages) {
            if let Some(old) = self.live.insert(page, self.next) {
                self.summary.overwritten_pages += 1;
                self.resolve(old);
            }
            self.pending.push_back(INFINITE);
            self.next += 1;
            if self.pending.len() as u64 > self.window_pages {
                self.summary.cut_pages += u64::from(self.pending[0] == INFINITE);
                self.give_out(out)?;
            }
            while self.pending.front().is_some_and(|&v| v != INFINITE) {
                self.give_out(out)?;
            }
        }
        Ok(())
    }

    /// Pages `lpn..lpn + pages` are trimmed: their live contents die now.
    pub fn trim(&mut self, lpn: u64, pages: u64) {
        let end = lpn.saturating_add(pages);
        let mut dead = Vec::new();
        if pages > self.live.len() as u64 {
            // A trim wider than what is live (a whole-device discard): walk
            // the live pages, not the range. The order found does not
            // matter: each death is set on its own.
            self.live.retain(|&page, &mut id| {
                let inside = (lpn..end).contains(&page);
                if inside {
                    dead.push(id);
                }
                !inside
            });
        } else {
            dead.extend((lpn..end).filter_map(|page| self.live.remove(&page)));
        }
        self.summary.trimmed_pages += dead.len() as u64;
        for id in dead {
            self.resolve(id);
        }
    }

    /// Gives out the oldest pending lifespan.
    fn give_out(&mut self, out: &mut dyn FnMut(u64) -> io::Result<()>) -> io::Result<()> {
        let v = self
            .pending
            .pop_front()
            .expect("called with a pending write");
        self.head += 1;
        if v == INFINITE {
            self.summary.infinite_pages += 1;
        }
        self.summary.written_pages += 1;
        out(v)
    }

    /// The end of the trace: every write still pending lives forever.
    pub fn finish(
        mut self,
        out: &mut dyn FnMut(u64) -> io::Result<()>,
    ) -> io::Result<LifespanSummary> {
        while !self.pending.is_empty() {
            self.give_out(out)?;
        }
        Ok(self.summary)
    }
}

/// SepBIT's oracle format: one decimal lifespan per line.
pub struct SepbitOracleWriter<W: Write> {
    out: W,
}

impl<W: Write> SepbitOracleWriter<W> {
    /// A writer over `out` (buffer it).
    pub fn new(out: W) -> Self {
        SepbitOracleWriter { out }
    }

    /// One lifespan ([`INFINITE`] prints as `UINT64_MAX`, as SepBIT's does).
    pub fn write(&mut self, lifespan: u64) -> io::Result<()> {
        writeln!(self.out, "{lifespan}")
    }

    /// Flushes and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// ftlsim's lifespan sidecar (see the module docs).
pub struct LifespanWriter<W: Write> {
    out: W,
}

impl<W: Write> LifespanWriter<W> {
    /// Writes the header for pages of `page_bytes`.
    pub fn new(mut out: W, page_bytes: u32) -> io::Result<Self> {
        out.write_all(LIFESPAN_MAGIC)?;
        out.write_all(&LIFESPAN_VERSION.to_le_bytes())?;
        out.write_all(&page_bytes.to_le_bytes())?;
        Ok(LifespanWriter { out })
    }

    /// One lifespan, in write order.
    pub fn write(&mut self, lifespan: u64) -> io::Result<()> {
        self.out.write_all(&lifespan.to_le_bytes())
    }

    /// Flushes and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads a lifespan sidecar back, one lifespan per written page.
pub struct LifespanReader<R: Read> {
    input: R,
    page_bytes: u32,
}

impl<R: Read> LifespanReader<R> {
    /// Checks the header; an error says what is wrong with it.
    pub fn new(mut input: R) -> io::Result<Self> {
        let mut header = [0u8; 16];
        input
            .read_exact(&mut header)
            .map_err(|_| bad("shorter than its 16-byte header"))?;
        if &header[..8] != LIFESPAN_MAGIC {
            return Err(bad("not an ftlsim lifespan file (no FTLSLIFE magic)"));
        }
        let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
        if version != LIFESPAN_VERSION {
            return Err(bad(&format!(
                "version {version}; this ftlsim reads {LIFESPAN_VERSION}"
            )));
        }
        let page_bytes = u32::from_le_bytes(header[12..16].try_into().expect("4 bytes"));
        Ok(LifespanReader { input, page_bytes })
    }

    /// The page size the lifespans count.
    pub fn page_bytes(&self) -> u32 {
        self.page_bytes
    }

    /// The next lifespan; `None` at the end (a torn last value is an error).
    pub fn next_lifespan(&mut self) -> io::Result<Option<u64>> {
        let mut buf = [0u8; 8];
        let mut got = 0;
        while got < 8 {
            match self.input.read(&mut buf[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => return Err(bad("ends inside a lifespan")),
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Some(u64::from_le_bytes(buf)))
    }
}

/// Where [`annotate_file`] writes: SepBIT's oracle, ftlsim's sidecar, or both.
#[derive(Clone, Copy, Debug, Default)]
pub struct LifespanOutputs<'a> {
    /// SepBIT's oracle (text).
    pub sepbit: Option<&'a Path>,
    /// ftlsim's sidecar (binary).
    pub native: Option<&'a Path>,
}

/// Annotates the trace at `input` (one pass, pages of `page_bytes`) into
/// `outputs`, each written beside its place and renamed in when complete.
/// A remap or clone is refused: it moves contents without writing them, so
/// a lifespan counted in pages written would not say when they die.
pub fn annotate_file(
    input: &Path,
    ropts: &ReaderOptions,
    page_bytes: u32,
    window_pages: u64,
    outputs: LifespanOutputs<'_>,
) -> Result<LifespanSummary, TraceError> {
    let io_at = |path: &Path| {
        let file = path.display().to_string();
        move |source| TraceError::Io {
            file: file.clone(),
            source,
        }
    };
    for path in [outputs.sepbit, outputs.native].into_iter().flatten() {
        check_not_input(path, &[input]).map_err(io_at(path))?;
    }
    if let (Some(a), Some(b)) = (outputs.sepbit, outputs.native) {
        if a == b {
            return Err(TraceError::Option(format!(
                "{} is named for both outputs",
                a.display()
            )));
        }
    }
    let popts = PageOptions {
        page_bytes,
        ..PageOptions::default()
    };
    let mut stream = PageStream::open(input, ropts, &popts)?;
    let open = |path: &Path| -> Result<BufWriter<OutputFile>, TraceError> {
        let file = OutputFile::create(path, &[input]).map_err(io_at(path))?;
        Ok(BufWriter::with_capacity(256 * 1024, file))
    };
    let mut sepbit = match outputs.sepbit {
        Some(p) => Some(SepbitOracleWriter::new(open(p)?)),
        None => None,
    };
    let mut native = match outputs.native {
        Some(p) => Some(LifespanWriter::new(open(p)?, page_bytes).map_err(io_at(p))?),
        None => None,
    };
    // Which output failed, for the error's file name.
    let mut failed: Option<&Path> = None;
    let mut sink = |v: u64| -> io::Result<()> {
        if let Some(w) = sepbit.as_mut() {
            w.write(v).inspect_err(|_| failed = outputs.sepbit)?;
        }
        if let Some(w) = native.as_mut() {
            w.write(v).inspect_err(|_| failed = outputs.native)?;
        }
        Ok(())
    };
    let mut annotator = Lifespans::new(window_pages);
    let mut req = PageRequest::default();
    let stopped = (|| -> Result<(), Stop> {
        while stream.next_request(&mut req).map_err(Stop::Trace)? {
            match req.op {
                TraceOp::Write => annotator
                    .write(req.lpn, u64::from(req.pages), &mut sink)
                    .map_err(Stop::Output)?,
                TraceOp::Trim => annotator.trim(req.lpn, u64::from(req.pages)),
                TraceOp::Read | TraceOp::Flush => {}
                TraceOp::Remap | TraceOp::Clone => {
                    return Err(Stop::Trace(TraceError::Unsupported {
                        file: input.display().to_string(),
                        what: format!(
                            "a {} of {} pages: lifespans are defined for writes and trims only",
                            req.op, req.pages
                        ),
                    }))
                }
            }
        }
        Ok(())
    })();
    let summary = stopped.and_then(|()| annotator.finish(&mut sink).map_err(Stop::Output));
    let summary = summary.map_err(|stop| match stop {
        Stop::Trace(e) => e,
        Stop::Output(source) => TraceError::Io {
            file: failed.map_or_else(String::new, |p| p.display().to_string()),
            source,
        },
    })?;
    if let (Some(w), Some(p)) = (sepbit, outputs.sepbit) {
        let out = w.finish().map_err(io_at(p))?;
        out.into_inner()
            .map_err(|e| io_at(p)(e.into_error()))?
            .commit()
            .map_err(io_at(p))?;
    }
    if let (Some(w), Some(p)) = (native, outputs.native) {
        let out = w.finish().map_err(io_at(p))?;
        out.into_inner()
            .map_err(|e| io_at(p)(e.into_error()))?
            .commit()
            .map_err(io_at(p))?;
    }
    Ok(summary)
}

/// Why an annotation stopped: the trace, or an output's write.
enum Stop {
    Trace(TraceError),
    Output(io::Error),
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(window: u64, ops: &[(char, u64, u64)]) -> (Vec<u64>, LifespanSummary) {
        let mut a = Lifespans::new(window);
        let mut got = Vec::new();
        for &(op, lpn, pages) in ops {
            match op {
                'w' => a
                    .write(lpn, pages, &mut |v| {
                        got.push(v);
                        Ok(())
                    })
                    .unwrap(),
                't' => a.trim(lpn, pages),
                _ => unreachable!(),
            }
        }
        let s = a
            .finish(&mut |v| {
                got.push(v);
                Ok(())
            })
            .unwrap();
        (got, s)
    }

    /// A window of 2 cuts a write that outlives it: given out as infinite
    /// and counted, while the others keep their exact lifespans.
    #[test]
    fn window_cuts_long_lives() {
        // ids: 0:p0 1:p1 2:p2 3:p0 (p0 of id 0 dies at 3, beyond the window)
        let (got, s) = run(2, &[('w', 0, 3), ('w', 0, 1)]);
        assert_eq!(got, vec![INFINITE, INFINITE, INFINITE, INFINITE]);
        assert_eq!(s.cut_pages, 2);
        let (got, _) = run(8, &[('w', 0, 3), ('w', 0, 1)]);
        assert_eq!(got, vec![3, INFINITE, INFINITE, INFINITE]);
    }

    /// A trim wider than the live set walks the set, with the same result
    /// as a narrow one.
    #[test]
    fn wide_trim_equals_narrow_trim() {
        let ops = [('w', 5, 2), ('w', 100, 1)];
        let (wide, _) = run(64, &[ops[0], ops[1], ('t', 0, 1 << 40), ('w', 5, 1)]);
        let (narrow, _) = run(
            64,
            &[ops[0], ops[1], ('t', 5, 2), ('t', 100, 1), ('w', 5, 1)],
        );
        assert_eq!(wide, narrow);
        assert_eq!(wide, vec![3, 2, 1, INFINITE]);
    }

    #[test]
    fn sidecar_round_trip_and_bad_headers() {
        let mut w = LifespanWriter::new(Vec::new(), 4096).unwrap();
        for v in [1, 7, INFINITE] {
            w.write(v).unwrap();
        }
        let bytes = w.finish().unwrap();
        let mut r = LifespanReader::new(&bytes[..]).unwrap();
        assert_eq!(r.page_bytes(), 4096);
        let mut back = Vec::new();
        while let Some(v) = r.next_lifespan().unwrap() {
            back.push(v);
        }
        assert_eq!(back, vec![1, 7, INFINITE]);
        assert!(LifespanReader::new(&bytes[..10]).is_err());
        assert!(LifespanReader::new(&b"NOTLIFE!\x01\0\0\0\0\x10\0\0"[..]).is_err());
        let mut torn = LifespanReader::new(&bytes[..bytes.len() - 3]).unwrap();
        assert_eq!(torn.next_lifespan().unwrap(), Some(1));
        assert_eq!(torn.next_lifespan().unwrap(), Some(7));
        assert!(
            torn.next_lifespan().is_err(),
            "a torn last value is an error"
        );
    }
}
