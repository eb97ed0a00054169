//! The fallback join: a capture log laid out on ftlsim's own file layer
//! (`app::lsm::Files`) instead of a real file system, for captures taken
//! without the live device (`ftlsim trace layout`). Each captured file gets
//! extents of logical pages from the file layer's first-fit allocator; a
//! write past the end of a file appends pages (holes included: the layer
//! has no sparse files), a write inside it rewrites the pages it already
//! has; a file removed (unlink, rename over it) is deleted and its pages
//! trimmed, `ftruncate` to 0 deletes its pages too, and a punched hole trims
//! the pages wholly inside it. Every write carries the PC of its call.
//!
//! What this cannot show, and the FIEMAP join does: the real file system's
//! placement, its journal and metadata writes, delayed allocation, and
//! partial truncates (counted in [`LayoutStats::partial_truncates`], not
//! applied).

use std::collections::{BTreeSet, HashMap};
use std::io::BufWriter;
use std::path::Path;

use crate::error::{IoContext, LiveError, Result};
use ftlsim::app::lsm::{FileId, Files};
use ftlsim::error::SimError;
use ftlsim::metrics::LayerStats;
use ftlsim::request::{BlockDevice, Completion, Op, Request};
use ftlsim_trace::{NativeWriter, OutputFile, TraceOp, TraceRecord};

use crate::join::{CaptureLog, FileChange, FileKey};

/// What the layout did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayoutStats {
    pub files: u64,
    pub write_records: u64,
    pub write_pages: u64,
    /// Pages written past a file's end that no write covered (holes).
    pub hole_pages: u64,
    pub trim_pages: u64,
    pub files_removed: u64,
    /// Truncates to a length above 0, which the layer cannot apply.
    pub partial_truncates: u64,
    /// Distinct PCs on the written pages.
    pub pcs: u64,
}

/// The device below the file layer: writes each request as a trace record
/// at the time of the call being laid out.
struct TraceSink {
    out: NativeWriter<BufWriter<OutputFile>>,
    logical_pages: u64,
    page_bytes: u64,
    time_ns: u64,
    write_pages: u64,
    trim_pages: u64,
    pcs: BTreeSet<u64>,
}

impl BlockDevice for TraceSink {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        let op = match req.op {
            Op::Write => {
                self.write_pages += u64::from(req.pages);
                if req.context != 0 {
                    self.pcs.insert(req.context);
                }
                TraceOp::Write
            }
            Op::Trim => {
                self.trim_pages += u64::from(req.pages);
                TraceOp::Trim
            }
            // The file layer only reads for an engine, and remaps for RemapCom.
            other => return Err(SimError::BadRequest(format!("{other:?} in a layout"))),
        };
        let rec = TraceRecord {
            time_ns: self.time_ns,
            op,
            offset_bytes: req.lpn * self.page_bytes,
            length_bytes: u64::from(req.pages) * self.page_bytes,
            context: (req.context != 0).then_some(req.context),
            ..TraceRecord::default()
        };
        self.out
            .write(&rec)
            .map_err(|e| SimError::Source(format!("cannot write the trace: {e}")))?;
        Ok(Completion::default())
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages
    }

    fn layer_stats(&self, _out: &mut Vec<LayerStats>) {}
}

/// Sends `op` for the file's pages `pages` (all held), one request per run
/// of contiguous LPNs, tagged with `context`.
fn submit_runs(
    files: &mut Files<TraceSink>,
    file: FileId,
    pages: std::ops::Range<u64>,
    op: Op,
    context: u64,
) -> Result<(), SimError> {
    let runs = files.runs_of(file, pages.clone());
    debug_assert_eq!(
        runs.iter().map(|r| r.1).sum::<u64>(),
        pages.end - pages.start,
        "every page held"
    );
    for (lpn, run) in runs {
        let mut req = Request::default();
        req.set(op, lpn, run as u32);
        req.context = context;
        files.device_mut().submit(&req)?;
    }
    Ok(())
}

/// One call of the log, in time order.
enum Step {
    Write {
        offset_bytes: u64,
        len_bytes: u64,
        pc: u64,
    },
    Change(FileChange),
}

/// Lays `log` out on a file layer over `logical_bytes` of `page_bytes`
/// pages and writes the block trace to `out` (native format, times as
/// captured, PCs as contexts).
pub fn layout(
    log: &CaptureLog,
    out: &Path,
    logical_bytes: u64,
    page_bytes: u64,
) -> Result<LayoutStats> {
    if !(page_bytes > 0 && logical_bytes >= page_bytes) {
        return Err(LiveError::Input("the device holds no page".into()));
    }
    let mut steps: Vec<(u64, FileKey, Step)> = log
        .writes
        .iter()
        .map(|w| {
            let step = Step::Write {
                offset_bytes: w.offset_bytes,
                len_bytes: w.len_bytes,
                pc: w.pc,
            };
            (w.time_ns, w.file, step)
        })
        .chain(
            log.changes
                .iter()
                .map(|c| (c.time_ns, c.file, Step::Change(c.change))),
        )
        .collect();
    // Threads buffer their lines, so the log is not in time order; a stable
    // sort keeps one thread's calls at the same nanosecond in order.
    steps.sort_by_key(|s| s.0);

    // Renamed into place once whole: an error half-way leaves no torn trace.
    let file =
        OutputFile::create(out, &[]).io_context(|| format!("cannot create {}", out.display()))?;
    let sink = TraceSink {
        out: NativeWriter::new(BufWriter::new(file))?,
        logical_pages: logical_bytes / page_bytes,
        page_bytes,
        time_ns: 0,
        write_pages: 0,
        trim_pages: 0,
        pcs: BTreeSet::new(),
    };
    let mut files = Files::new(sink, page_bytes as u32);
    let mut open: HashMap<FileKey, FileId> = HashMap::new();
    let mut stats = LayoutStats::default();
    let mut fingerprints = Vec::new();
    for (time_ns, key, step) in steps {
        files.device_mut().time_ns = time_ns;
        let at = |error: SimError| LiveError::Layout {
            time_ns,
            file: key,
            error,
        };
        match step {
            Step::Write {
                offset_bytes,
                len_bytes,
                pc,
            } => {
                if len_bytes == 0 {
                    continue;
                }
                stats.write_records += 1;
                let id = *open.entry(key).or_insert_with(|| {
                    stats.files += 1;
                    files.create()
                });
                let first = offset_bytes / page_bytes;
                let end = (offset_bytes + len_bytes).div_ceil(page_bytes);
                let held = files.pages(id);
                // Pages the file already has: rewrite them in place.
                submit_runs(&mut files, id, first..end.min(held), Op::Write, pc).map_err(at)?;
                // Past the end: append, holes first.
                if end > held {
                    stats.hole_pages += first.saturating_sub(held);
                    fingerprints.clear();
                    fingerprints.extend(held..end);
                    files.append(id, &fingerprints, pc).map_err(at)?;
                }
            }
            Step::Change(change) => {
                let Some(&id) = open.get(&key) else {
                    continue;
                };
                match change {
                    FileChange::Remove => {
                        files.delete(id).map_err(at)?;
                        open.remove(&key);
                        stats.files_removed += 1;
                    }
                    FileChange::Truncate { len_bytes: 0 } => {
                        // The same file, empty: its pages go back to the layer.
                        files.delete(id).map_err(at)?;
                        open.insert(key, files.create());
                    }
                    FileChange::Truncate { .. } => stats.partial_truncates += 1,
                    FileChange::Punch {
                        offset_bytes,
                        len_bytes,
                    } => {
                        let first = offset_bytes.div_ceil(page_bytes);
                        let end = ((offset_bytes + len_bytes) / page_bytes).min(files.pages(id));
                        submit_runs(&mut files, id, first..end, Op::Trim, 0).map_err(at)?;
                    }
                }
            }
        }
    }
    let sink = files.into_device();
    stats.write_pages = sink.write_pages;
    stats.trim_pages = sink.trim_pages;
    stats.pcs = sink.pcs.len() as u64;
    sink.out
        .finish()
        .and_then(|w| w.into_inner().map_err(|e| e.into_error()))
        .and_then(OutputFile::commit)
        .io_context(|| format!("cannot write {}", out.display()))?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ftlsim_trace::ReaderOptions;

    fn records(path: &Path) -> Vec<TraceRecord> {
        let mut r = ftlsim_trace::open(path, &ReaderOptions::default()).unwrap();
        let (mut out, mut rec) = (Vec::new(), TraceRecord::default());
        while r.next_record(&mut rec).unwrap() {
            out.push(rec.clone());
        }
        out
    }

    #[test]
    fn files_get_extents_overwrites_stay_and_removals_trim() {
        // File a: 2 pages appended (PC 0xa), its page 1 rewritten (PC 0xb);
        // file b: one page at offset 2 pages (a hole before it); a removed;
        // b truncated to 0 and written again; a partial truncate of b.
        // Lines out of time order, as threads buffer them.
        let text = "F 1 10 /m/a\nF 1 11 /m/b\n\
            E 300 1 2 pwrite 1 10 4096 100 000000000000000b 0\n\
            E 100 1 1 write 1 10 0 8192 000000000000000a 0\n\
            E 200 1 1 pwrite 1 11 8192 4096 000000000000000c 0\n\
            N 400 1 1 unlink 1 10 0 0 /m/a\n\
            E 500 1 1 ftruncate 1 11 0 0 0 0\n\
            E 600 1 1 write 1 11 0 4096 000000000000000c 0\n\
            E 700 1 1 ftruncate 1 11 100 0 0 0\n";
        let log = CaptureLog::parse(text).unwrap();
        let dir = std::env::temp_dir().join(format!("ftlsim-layout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("t.trace");
        let stats = layout(&log, &out, 64 * 4096, 4096).unwrap();
        let recs = records(&out);
        std::fs::remove_dir_all(&dir).unwrap();
        let summary: Vec<(u64, TraceOp, u64, u64, Option<u64>)> = recs
            .iter()
            .map(|r| {
                (
                    r.time_ns,
                    r.op,
                    r.offset_bytes / 4096,
                    r.length_bytes / 4096,
                    r.context,
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (100, TraceOp::Write, 0, 2, Some(0xa)),
                // b: pages 0..3, the first two a hole, at LPNs 2..5.
                (200, TraceOp::Write, 2, 3, Some(0xc)),
                (300, TraceOp::Write, 1, 1, Some(0xb)),
                (400, TraceOp::Trim, 0, 2, None),
                (500, TraceOp::Trim, 2, 3, None),
                // First fit: a's freed pages.
                (600, TraceOp::Write, 0, 1, Some(0xc)),
            ]
        );
        assert_eq!(
            stats,
            LayoutStats {
                files: 2,
                write_records: 4,
                write_pages: 7,
                hole_pages: 2,
                trim_pages: 5,
                files_removed: 1,
                partial_truncates: 1,
                pcs: 3,
            }
        );
    }

    #[test]
    fn a_punched_hole_trims_the_whole_pages_inside_it() {
        // 4 pages, then a hole from the middle of page 0 to the end of page 2.
        let text = "E 1 1 1 write 1 10 0 16384 000000000000000a 0\n\
            E 2 1 1 fallocate-punch 1 10 100 12188 0 0\n";
        let log = CaptureLog::parse(text).unwrap();
        let out = std::env::temp_dir().join(format!("ftlsim-layout-punch-{}", std::process::id()));
        let stats = layout(&log, &out, 64 * 4096, 4096).unwrap();
        let recs = records(&out);
        std::fs::remove_file(&out).unwrap();
        let trims: Vec<(u64, u64)> = recs
            .iter()
            .filter(|r| r.op == TraceOp::Trim)
            .map(|r| (r.offset_bytes / 4096, r.length_bytes / 4096))
            .collect();
        assert_eq!(trims, vec![(1, 2)], "pages 1 and 2, in one request");
        assert_eq!(stats.trim_pages, 2);
    }

    #[test]
    fn a_full_layer_names_the_call() {
        let text = "E 5 1 1 write 1 10 0 40960 000000000000000a 0\n";
        let log = CaptureLog::parse(text).unwrap();
        let out = std::env::temp_dir().join(format!("ftlsim-layout-full-{}", std::process::id()));
        let err = layout(&log, &out, 4 * 4096, 4096).unwrap_err().to_string();
        let _ = std::fs::remove_file(&out);
        assert!(
            err.contains("at 5 ns, file 1:10") && err.contains("full"),
            "{err}"
        );
    }
}
