//! Per-PC lifetimes of a PC-tagged block trace (the joined trace of
//! `device run --capture`): how many pages each program context wrote and
//! how long they lived, as PCStream assumes that one PC's data die at
//! about the same age. A page's lifetime is the number of host page
//! writes (device-wide) between its write and the next write or trim of
//! the same LBA; pages still live at the end have none.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::error::{Result, StepContext};
use ftlsim_trace::stats::MAX_DATA_REQUEST_PAGES;
use ftlsim_trace::{ReaderOptions, TraceOp, TraceRecord};
use serde::Serialize;

/// One PC (or the untagged writes, `pc: None`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PcLifetimes {
    pub pc: Option<u64>,
    pub pages: u64,
    /// Pages overwritten or trimmed before the end (those with a lifetime).
    pub died_pages: u64,
    /// Lifetime percentiles, in host page writes (0 when none died).
    pub p10_pages: u64,
    pub p50_pages: u64,
    pub p90_pages: u64,
    /// p90 / p10 (1 = every page died at the same age; 0 when none died).
    pub spread: f64,
}

fn percentile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// The lifetimes per PC of the trace at `path` (page size `page_bytes`),
/// most pages first.
pub fn pc_lifetimes(path: &Path, page_bytes: u64) -> Result<Vec<PcLifetimes>> {
    // Program contexts are only in the native format: read it as that, so
    // another file is named as not native rather than sent to detection
    // (whose advice, a --format flag, `trace pcs` does not have).
    let opts = ReaderOptions {
        format: Some(ftlsim_trace::Format::Native),
        ..ReaderOptions::default()
    };
    let mut reader = ftlsim_trace::open(path, &opts)
        .step_context(|| format!("cannot read {}", path.display()))?;
    let mut rec = TraceRecord::default();
    // LBA → (host page writes before its write, its PC).
    let mut live: HashMap<u64, (u64, Option<u64>)> = HashMap::new();
    let mut ages: BTreeMap<Option<u64>, Vec<u64>> = BTreeMap::new();
    let mut pages: BTreeMap<Option<u64>, u64> = BTreeMap::new();
    let mut clock = 0u64;
    while reader.next_record(&mut rec)? {
        let (first, span_pages) = rec.page_span(page_bytes);
        // Writes and trims are walked page by page: a request longer than
        // any block layer issues (readers accept up to 1 TiB) would be a
        // walk of hundreds of millions of pages, and as many map entries.
        if matches!(rec.op, TraceOp::Write | TraceOp::Trim) && span_pages > MAX_DATA_REQUEST_PAGES {
            let error = ftlsim_trace::LineError::Other(format!(
                "a {} of {} bytes ({span_pages} pages): trace pcs walks at most {MAX_DATA_REQUEST_PAGES} pages per write or trim",
                if rec.op == TraceOp::Write { "write" } else { "trim" },
                rec.length_bytes
            ));
            return Err(ftlsim_trace::TraceError::Line {
                file: reader.name().to_string(),
                line: reader.position(),
                error,
            }
            .into());
        }
        let end = first + span_pages;
        match rec.op {
            TraceOp::Write => {
                for lpn in first..end {
                    if let Some((born, pc)) = live.insert(lpn, (clock, rec.context)) {
                        ages.entry(pc).or_default().push(clock - born);
                    }
                    *pages.entry(rec.context).or_default() += 1;
                    clock += 1;
                }
            }
            TraceOp::Trim => {
                for lpn in first..end {
                    if let Some((born, pc)) = live.remove(&lpn) {
                        ages.entry(pc).or_default().push(clock - born);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out: Vec<PcLifetimes> = pages
        .into_iter()
        .map(|(pc, pages)| {
            let mut a = ages.remove(&pc).unwrap_or_default();
            a.sort_unstable();
            let (p10, p90) = (percentile(&a, 0.1), percentile(&a, 0.9));
            PcLifetimes {
                pc,
                pages,
                died_pages: a.len() as u64,
                p10_pages: p10,
                p50_pages: percentile(&a, 0.5),
                p90_pages: p90,
                spread: if a.is_empty() {
                    0.0
                } else {
                    p90 as f64 / p10.max(1) as f64
                },
            }
        })
        .collect();
    out.sort_by(|a, b| b.pages.cmp(&a.pages).then(a.pc.cmp(&b.pc)));
    Ok(out)
}

/// A table of [`pc_lifetimes`], one PC a line.
pub fn table(rows: &[PcLifetimes]) -> String {
    let mut s = format!(
        "{:<18} {:>9} {:>9} {:>10} {:>10} {:>10} {:>8}\n",
        "pc", "pages", "died", "p10", "p50", "p90", "p90/p10"
    );
    for r in rows {
        let pc = r.pc.map_or("(none)".to_string(), |p| format!("{p:016x}"));
        s += &format!(
            "{pc:<18} {:>9} {:>9} {:>10} {:>10} {:>10} {:>8.1}\n",
            r.pages, r.died_pages, r.p10_pages, r.p50_pages, r.p90_pages, r.spread
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ftlsim_trace::NativeWriter;

    #[test]
    fn lifetimes_per_pc() {
        let path = std::env::temp_dir().join(format!("ftlsim-pclife-{}.trace", std::process::id()));
        let mut w = NativeWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
        let mut rec = TraceRecord::default();
        // PC 1 writes LBA 0 and 1; PC 2 overwrites LBA 0 (age 2), then a
        // trim of LBA 1 (age 2 as well: one write in between... 3 - 1).
        for (op, lba, pc) in [
            (TraceOp::Write, 0, Some(1)),
            (TraceOp::Write, 1, Some(1)),
            (TraceOp::Write, 0, Some(2)),
            (TraceOp::Trim, 1, None),
        ] {
            rec.reset();
            rec.op = op;
            rec.offset_bytes = lba * 4096;
            rec.length_bytes = 4096;
            rec.context = pc;
            w.write(&rec).unwrap();
        }
        w.finish().unwrap();
        let rows = pc_lifetimes(&path, 4096).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].pc, rows[0].pages, rows[0].died_pages),
            (Some(1), 2, 2)
        );
        assert_eq!((rows[0].p10_pages, rows[0].p90_pages), (2, 2));
        assert_eq!(
            (rows[1].pc, rows[1].pages, rows[1].died_pages),
            (Some(2), 1, 0)
        );
    }
}
