//! Trace statistics in one streaming pass.
//!
//! Memory is O(footprint): a map from written page to write count, a set of
//! read pages and, with content hashes, a set of seen contents. Pages follow
//! the unaligned rule of [`crate::pages`] at the chosen page size; the
//! footprint counts pages read or written (trims hold no data and are not
//! counted).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::error::TraceError;
use crate::pages::{page_fingerprints, FastBuild};
use crate::reader::TraceReader;
use crate::record::{TraceOp, TraceRecord};

/// Requests whose size falls in one power-of-two bucket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SizeBucket {
    /// Smallest size in the bucket, bytes.
    pub min_bytes: u64,
    /// Largest size in the bucket, bytes (a power of two).
    pub max_bytes: u64,
    /// Data requests (reads, writes, trims) in the bucket.
    pub requests: u64,
}

/// Share of page writes that land on the hottest written pages.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WriteSkew {
    /// Share of page writes on the hottest 1% of written pages.
    pub top_1_percent: f64,
    /// ... hottest 10%.
    pub top_10_percent: f64,
    /// ... hottest 20%.
    pub top_20_percent: f64,
}

/// Statistics of a trace. Serialized to JSON by the CLI (`--json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TraceStats {
    /// Page size used for page counts, bytes.
    pub page_bytes: u32,
    /// All records (reads + writes + trims + flushes + remaps + clones).
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Trim (discard) requests.
    pub trims: u64,
    /// Flush requests.
    pub flushes: u64,
    /// Remap requests (data moves from a source range, which is unmapped).
    pub remaps: u64,
    /// Clone requests (a destination range shares a source range's data).
    pub clones: u64,
    /// Reads, writes and trims of length 0 (they touch no page).
    pub zero_length_requests: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Bytes trimmed.
    pub trim_bytes: u64,
    /// Pages read (with repetitions; unaligned requests count every page touched).
    pub read_pages: u64,
    /// Pages written (with repetitions).
    pub write_pages: u64,
    /// Pages trimmed (with repetitions).
    pub trim_pages: u64,
    /// Destination pages of remaps (with repetitions).
    pub remap_pages: u64,
    /// Destination pages of clones (with repetitions).
    pub clone_pages: u64,
    /// Smallest record time, ns.
    pub first_time_ns: Option<u64>,
    /// Largest record time, ns.
    pub last_time_ns: Option<u64>,
    /// `last_time_ns − first_time_ns`.
    pub duration_ns: u64,
    /// Distinct pages read or written.
    pub footprint_pages: u64,
    /// Distinct pages written.
    pub footprint_write_pages: u64,
    /// Distinct pages read.
    pub footprint_read_pages: u64,
    /// One past the highest page touched by any data request, remap and
    /// clone sources included (the device size, in pages, needed without
    /// compact mapping).
    pub address_span_pages: u64,
    /// Distinct devices seen (records without a device are not counted).
    pub devices: u64,
    /// Request sizes in power-of-two buckets (non-empty buckets only).
    pub size_histogram: Vec<SizeBucket>,
    /// Share of page writes that hit a page written before. `None` without writes.
    pub overwrite_ratio: Option<f64>,
    /// Write skew. `None` without writes.
    pub write_skew: Option<WriteSkew>,
    /// Written pages that carry a content fingerprint.
    pub fingerprinted_write_pages: u64,
    /// Share of fingerprinted written pages whose content appeared in an
    /// earlier write. `None` (JSON `null`) when the trace has no fingerprints.
    pub duplicate_write_ratio: Option<f64>,
    /// Distinct contents written. `None` without fingerprints.
    pub distinct_contents: Option<u64>,
    /// Bad lines the reader skipped (set by [`TraceStats::from_reader`]).
    pub skipped_bad_lines: u64,
}

/// Accumulates [`TraceStats`] record by record.
pub struct StatsCollector {
    page_bytes: u64,
    stats: TraceStats,
    written: HashMap<u64, u32, FastBuild>,
    read: HashSet<u64, FastBuild>,
    contents: HashSet<u128, FastBuild>,
    devices: HashSet<u32, FastBuild>,
    /// Bucket i holds sizes in (2^(i-1), 2^i]; bucket 0 holds size 1.
    buckets: [u64; 65],
    overwrites: u64,
    duplicates: u64,
    fps: Vec<u128>,
}

impl StatsCollector {
    /// A collector counting pages of `page_bytes` (0 is treated as 1).
    pub fn new(page_bytes: u32) -> Self {
        let page_bytes = page_bytes.max(1);
        StatsCollector {
            page_bytes: u64::from(page_bytes),
            stats: TraceStats {
                page_bytes,
                ..TraceStats::default()
            },
            written: HashMap::default(),
            read: HashSet::default(),
            contents: HashSet::default(),
            devices: HashSet::default(),
            buckets: [0; 65],
            overwrites: 0,
            duplicates: 0,
            fps: Vec::new(),
        }
    }

    /// Adds one record.
    pub fn add(&mut self, rec: &TraceRecord) {
        let s = &mut self.stats;
        s.requests += 1;
        s.first_time_ns = Some(s.first_time_ns.map_or(rec.time_ns, |t| t.min(rec.time_ns)));
        s.last_time_ns = Some(s.last_time_ns.map_or(rec.time_ns, |t| t.max(rec.time_ns)));
        if let Some(d) = rec.device {
            self.devices.insert(d);
        }
        if rec.op == TraceOp::Flush {
            s.flushes += 1;
            return;
        }
        let (first, count) = rec.page_span(self.page_bytes);
        if rec.length_bytes == 0 {
            s.zero_length_requests += 1;
        } else {
            // The size histogram is of data requests; remaps and clones
            // move no data through the host.
            if !rec.op.has_source() {
                let bucket = 64 - (rec.length_bytes - 1).leading_zeros() as usize;
                self.buckets[bucket.min(64)] += 1;
            }
            s.address_span_pages = s.address_span_pages.max(first.saturating_add(count));
        }
        match rec.op {
            TraceOp::Remap | TraceOp::Clone => {
                if rec.op == TraceOp::Remap {
                    s.remaps += 1;
                    s.remap_pages += count;
                } else {
                    s.clones += 1;
                    s.clone_pages += count;
                }
                if count > 0 {
                    let (src_first, src_count) = crate::record::page_span(
                        rec.src_offset_bytes,
                        rec.length_bytes,
                        self.page_bytes,
                    );
                    s.address_span_pages = s
                        .address_span_pages
                        .max(src_first.saturating_add(src_count));
                }
            }
            TraceOp::Read => {
                s.reads += 1;
                s.read_bytes = s.read_bytes.saturating_add(rec.length_bytes);
                s.read_pages += count;
                for page in first..first.saturating_add(count) {
                    self.read.insert(page);
                }
            }
            TraceOp::Trim => {
                s.trims += 1;
                s.trim_bytes = s.trim_bytes.saturating_add(rec.length_bytes);
                s.trim_pages += count;
            }
            TraceOp::Write => {
                s.writes += 1;
                s.write_bytes = s.write_bytes.saturating_add(rec.length_bytes);
                s.write_pages += count;
                for page in first..first.saturating_add(count) {
                    let n = self.written.entry(page).or_insert(0);
                    if *n > 0 {
                        self.overwrites += 1;
                    }
                    *n = n.saturating_add(1);
                }
                self.fps.clear();
                page_fingerprints(rec, self.page_bytes, first, count, &mut self.fps);
                for &fp in &self.fps {
                    s.fingerprinted_write_pages += 1;
                    if !self.contents.insert(fp) {
                        self.duplicates += 1;
                    }
                }
            }
            TraceOp::Flush => {}
        }
    }

    /// The statistics so far (sorts the write counts for the skew: O(n log n)
    /// in the written footprint).
    pub fn finish(&self) -> TraceStats {
        let mut s = self.stats.clone();
        s.duration_ns = match (s.first_time_ns, s.last_time_ns) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        };
        s.devices = self.devices.len() as u64;
        s.footprint_write_pages = self.written.len() as u64;
        s.footprint_read_pages = self.read.len() as u64;
        let read_only = self
            .read
            .iter()
            .filter(|p| !self.written.contains_key(p))
            .count() as u64;
        s.footprint_pages = s.footprint_write_pages + read_only;
        s.size_histogram = self
            .buckets
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, &n)| {
                let max_bytes = if i >= 64 { u64::MAX } else { 1u64 << i };
                let min_bytes = if i == 0 { 1 } else { (1u64 << (i - 1)) + 1 };
                SizeBucket {
                    min_bytes,
                    max_bytes,
                    requests: n,
                }
            })
            .collect();
        if s.write_pages > 0 {
            s.overwrite_ratio = Some(self.overwrites as f64 / s.write_pages as f64);
            let mut counts: Vec<u32> = self.written.values().copied().collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
            let share = |percent: u64| {
                let k = (counts.len() as u64 * percent).div_ceil(100).max(1) as usize;
                let top: u64 = counts.iter().take(k).map(|&c| u64::from(c)).sum();
                top as f64 / total.max(1) as f64
            };
            s.write_skew = Some(WriteSkew {
                top_1_percent: share(1),
                top_10_percent: share(10),
                top_20_percent: share(20),
            });
        }
        if s.fingerprinted_write_pages > 0 {
            s.duplicate_write_ratio =
                Some(self.duplicates as f64 / s.fingerprinted_write_pages as f64);
            s.distinct_contents = Some(self.contents.len() as u64);
        }
        s
    }
}

/// The largest read or write `trace stats` counts page by page: 2^20
/// pages, 4 GiB at 4 KiB pages, far above what any block layer issues in
/// one request (trims, counted without a walk, have no such bound).
pub const MAX_DATA_REQUEST_PAGES: u64 = 1 << 20;

impl TraceStats {
    /// Reads a whole trace and computes its statistics.
    pub fn from_reader(
        reader: &mut dyn TraceReader,
        page_bytes: u32,
    ) -> Result<TraceStats, TraceError> {
        let mut collector = StatsCollector::new(page_bytes);
        let mut rec = TraceRecord::default();
        while reader.next_record(&mut rec)? {
            // The footprint is counted page by page; a read or write larger
            // than any device queue takes (readers accept up to 1 TiB) would
            // make that a walk of hundreds of millions of pages per request.
            let (_, pages) = rec.page_span(u64::from(page_bytes));
            if matches!(rec.op, TraceOp::Read | TraceOp::Write) && pages > MAX_DATA_REQUEST_PAGES {
                return Err(TraceError::Line {
                    file: reader.name().to_string(),
                    line: reader.position(),
                    error: crate::LineError::Other(format!(
                        "a {} of {} bytes ({pages} pages): trace stats counts at most {MAX_DATA_REQUEST_PAGES} pages per read or write",
                        if rec.op == TraceOp::Read { "read" } else { "write" },
                        rec.length_bytes
                    )),
                });
            }
            collector.add(&rec);
        }
        let mut stats = collector.finish();
        stats.skipped_bad_lines = reader.skipped_bad_lines();
        Ok(stats)
    }

    /// A human-readable table.
    pub fn render_text(&self) -> String {
        let mut t = String::new();
        let pb = u64::from(self.page_bytes);
        let pct = |r: f64| format!("{:.1}%", r * 100.0);
        let _ = writeln!(t, "requests          {:>14}", self.requests);
        let _ = writeln!(
            t,
            "  reads           {:>14}   {:>12}   {:>12} pages",
            self.reads,
            human_bytes(self.read_bytes),
            self.read_pages
        );
        let _ = writeln!(
            t,
            "  writes          {:>14}   {:>12}   {:>12} pages",
            self.writes,
            human_bytes(self.write_bytes),
            self.write_pages
        );
        let _ = writeln!(
            t,
            "  trims           {:>14}   {:>12}   {:>12} pages",
            self.trims,
            human_bytes(self.trim_bytes),
            self.trim_pages
        );
        let _ = writeln!(t, "  flushes         {:>14}", self.flushes);
        // Only traces that have them show remaps and clones, so the table
        // of the usual read/write traces stays as it was.
        if self.remaps > 0 {
            let _ = writeln!(
                t,
                "  remaps          {:>14}   {:>12}   {:>12} pages",
                self.remaps, "", self.remap_pages
            );
        }
        if self.clones > 0 {
            let _ = writeln!(
                t,
                "  clones          {:>14}   {:>12}   {:>12} pages",
                self.clones, "", self.clone_pages
            );
        }
        if self.zero_length_requests > 0 {
            let _ = writeln!(t, "  zero-length     {:>14}", self.zero_length_requests);
        }
        let _ = writeln!(
            t,
            "duration          {:>14}",
            human_duration(self.duration_ns)
        );
        let _ = writeln!(t, "page size         {:>14}", human_bytes(pb));
        let _ = writeln!(
            t,
            "footprint         {:>14} pages ({})",
            self.footprint_pages,
            human_bytes(self.footprint_pages.saturating_mul(pb))
        );
        let _ = writeln!(
            t,
            "  written         {:>14} pages",
            self.footprint_write_pages
        );
        let _ = writeln!(
            t,
            "  read            {:>14} pages",
            self.footprint_read_pages
        );
        let _ = writeln!(
            t,
            "address span      {:>14} pages ({})",
            self.address_span_pages,
            human_bytes(self.address_span_pages.saturating_mul(pb))
        );
        let _ = writeln!(t, "devices           {:>14}", self.devices);
        let _ = writeln!(
            t,
            "overwrite ratio   {:>14}",
            self.overwrite_ratio.map_or("n/a".into(), pct)
        );
        match &self.write_skew {
            Some(w) => {
                let _ = writeln!(
                    t,
                    "write skew        hottest 1%: {}, 10%: {}, 20%: {} of page writes",
                    pct(w.top_1_percent),
                    pct(w.top_10_percent),
                    pct(w.top_20_percent)
                );
            }
            None => {
                let _ = writeln!(t, "write skew        {:>14}", "n/a");
            }
        }
        match (self.duplicate_write_ratio, self.distinct_contents) {
            (Some(r), Some(d)) => {
                let _ = writeln!(
                    t,
                    "duplicate writes  {:>14}   ({d} distinct contents in {} fingerprinted page writes)",
                    pct(r),
                    self.fingerprinted_write_pages
                );
            }
            _ => {
                let _ = writeln!(t, "duplicate writes  {:>14}   (no content hashes)", "n/a");
            }
        }
        if self.skipped_bad_lines > 0 {
            let _ = writeln!(t, "skipped bad lines {:>14}", self.skipped_bad_lines);
        }
        if !self.size_histogram.is_empty() {
            let _ = writeln!(t, "request sizes");
            let max = self
                .size_histogram
                .iter()
                .map(|b| b.requests)
                .max()
                .unwrap_or(1)
                .max(1);
            for b in &self.size_histogram {
                let bar = "#".repeat(((b.requests * 40).div_ceil(max)) as usize);
                let _ = writeln!(
                    t,
                    "  <= {:>10} {:>14}  {bar}",
                    human_bytes(b.max_bytes),
                    b.requests
                );
            }
        }
        t
    }
}

/// `4 KiB`, `1.5 GiB`, `512 B`.
fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut v = b as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.2} {}", UNITS[unit])
    }
}

/// `1.234 s`, `2.5 ms`, `3 h 2 min`.
fn human_duration(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if ns < 1_000 {
        format!("{ns} ns")
    } else if ns < 1_000_000 {
        format!("{:.3} us", ns as f64 / 1e3)
    } else if ns < 1_000_000_000 {
        format!("{:.3} ms", ns as f64 / 1e6)
    } else if s < 3600.0 {
        format!("{s:.3} s")
    } else {
        format!("{:.2} h", s / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(offset: u64, len: u64, fps: &[u128]) -> TraceRecord {
        TraceRecord {
            op: TraceOp::Write,
            offset_bytes: offset,
            length_bytes: len,
            fingerprints: fps.to_vec(),
            ..TraceRecord::default()
        }
    }

    #[test]
    fn counts_overwrites_skew_and_dedup() {
        let mut c = StatsCollector::new(4096);
        c.add(&w(0, 8192, &[1, 2])); // pages 0,1
        c.add(&w(0, 4096, &[1])); // page 0 again, same content
        c.add(&w(4096 * 9, 4096, &[3])); // page 9
        c.add(&TraceRecord {
            op: TraceOp::Read,
            offset_bytes: 4096 * 20 + 1,
            length_bytes: 4096,
            ..TraceRecord::default()
        }); // pages 20, 21
        c.add(&TraceRecord {
            op: TraceOp::Flush,
            time_ns: 50,
            ..TraceRecord::default()
        });
        let s = c.finish();
        assert_eq!((s.requests, s.writes, s.reads, s.flushes), (5, 3, 1, 1));
        assert_eq!(s.write_pages, 4);
        assert_eq!(s.read_pages, 2);
        assert_eq!(s.footprint_write_pages, 3);
        assert_eq!(s.footprint_read_pages, 2);
        assert_eq!(s.footprint_pages, 5);
        assert_eq!(s.address_span_pages, 22);
        assert_eq!(s.overwrite_ratio, Some(0.25));
        // Hottest 1% (1 page): page 0 with 2 of 4 writes.
        assert_eq!(s.write_skew.as_ref().map(|w| w.top_1_percent), Some(0.5));
        assert_eq!(s.duplicate_write_ratio, Some(0.25));
        assert_eq!(s.distinct_contents, Some(3));
        assert_eq!(s.duration_ns, 50);
        let sizes: Vec<(u64, u64)> = s
            .size_histogram
            .iter()
            .map(|b| (b.max_bytes, b.requests))
            .collect();
        assert_eq!(sizes, [(4096, 3), (8192, 1)]);
        let text = s.render_text();
        assert!(text.contains("duplicate writes"), "{text}");
        assert!(text.contains("25.0%"), "{text}");
    }

    #[test]
    fn counts_remaps_and_clones() {
        let mut c = StatsCollector::new(4096);
        c.add(&w(0, 8192, &[]));
        c.add(&TraceRecord {
            op: TraceOp::Remap,
            offset_bytes: 4096 * 10,
            src_offset_bytes: 0,
            length_bytes: 8192,
            ..TraceRecord::default()
        });
        c.add(&TraceRecord {
            op: TraceOp::Clone,
            offset_bytes: 0,
            src_offset_bytes: 4096 * 30,
            length_bytes: 4096,
            ..TraceRecord::default()
        });
        let s = c.finish();
        assert_eq!((s.requests, s.writes, s.remaps, s.clones), (3, 1, 1, 1));
        assert_eq!((s.remap_pages, s.clone_pages), (2, 1));
        // The clone's source (page 30) is the highest page touched.
        assert_eq!(s.address_span_pages, 31);
        // Neither moves data: no reads, writes or histogram entries.
        assert_eq!(s.footprint_pages, 2);
        assert_eq!(s.size_histogram.len(), 1);
        let text = s.render_text();
        assert!(text.contains("remaps") && text.contains("clones"), "{text}");
    }

    #[test]
    fn no_hashes_gives_null() {
        let mut c = StatsCollector::new(4096);
        c.add(&w(0, 4096, &[]));
        let s = c.finish();
        assert_eq!(s.duplicate_write_ratio, None);
        assert!(s.render_text().contains("no content hashes"));
    }

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(4096), "4 KiB");
        assert_eq!(human_bytes(1536 * 1024), "1.50 MiB");
        assert_eq!(human_duration(1_500_000_000), "1.500 s");
    }
}
