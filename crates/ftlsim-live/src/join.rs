//! The join of a capture log (file writes with PCs, [`crate::capture`]) to
//! the live device's recorded trace (block writes): `ftlsim device run
//! --capture`. Which file page a device page held, and when, comes from
//! FIEMAP: the library's `X` lines (after each fsync, before each unlink or
//! rename) and one last look at every captured file after the command,
//! once synced ([`final_extents`]). A device write at time `t` of page `p`
//! belongs to the owner of `p` in the first extent snapshot taken at or
//! after `t`; its PC is that of the newest application write to that file
//! page issued at or before `t`. Pages with no owner (journal, metadata,
//! data of files deleted before any snapshot) carry no PC.
//!
//! Each trace record gets one context, its pages' most common PC (ties:
//! the smallest), so the joined trace has exactly the recorded requests
//! and replays to the same counts.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::BufWriter;
use std::os::fd::AsRawFd;
use std::path::Path;

use crate::error::{IoContext, LiveError, Result, StepContext};
use ftlsim_trace::{NativeWriter, OutputFile, ReaderOptions, TraceOp, TraceRecord};

/// A file by (device, inode), as the capture log names it.
pub type FileKey = (u64, u64);

/// One application write from the log (`E` lines that write data).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileWrite {
    pub time_ns: u64,
    pub file: FileKey,
    pub offset_bytes: u64,
    pub len_bytes: u64,
    /// The stack-scan PC (0: none found).
    pub pc: u64,
}

/// One extent of a file at a moment (`X` lines, [`final_extents`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extent {
    pub time_ns: u64,
    pub file: FileKey,
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub len_bytes: u64,
}

/// What a call other than a write did to a file's pages (for the file-layer
/// layout, [`crate::layout`]; the FIEMAP join sees its effect on the device).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileChange {
    /// `ftruncate` to this many bytes.
    Truncate { len_bytes: u64 },
    /// `fallocate` with a mode (punch hole) over this range.
    Punch { offset_bytes: u64, len_bytes: u64 },
    /// `unlink`, `unlinkat`, or a `rename` over the file: its name is gone.
    Remove,
}

/// One [`FileChange`] from the log, with when and to which file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEvent {
    pub time_ns: u64,
    pub file: FileKey,
    pub change: FileChange,
}

/// A capture log, parsed.
#[derive(Debug, Default)]
pub struct CaptureLog {
    /// Path of each file when first written.
    pub paths: BTreeMap<FileKey, String>,
    pub writes: Vec<FileWrite>,
    pub extents: Vec<Extent>,
    /// Truncates, punched holes and removals, in log order.
    pub changes: Vec<FileEvent>,
}

fn num(f: &[&str], i: usize, line: usize) -> Result<u64> {
    f.get(i)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| LiveError::CaptureLog {
            line,
            what: format!("field {} is not a number", i + 1),
        })
}

fn hex(f: &[&str], i: usize, line: usize) -> Result<u64> {
    f.get(i)
        .and_then(|s| u64::from_str_radix(s, 16).ok())
        .ok_or_else(|| LiveError::CaptureLog {
            line,
            what: format!("field {} is not hex", i + 1),
        })
}

impl CaptureLog {
    pub fn parse(text: &str) -> Result<Self> {
        let mut log = Self::default();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let f: Vec<&str> = line.split(' ').collect();
            match f[0] {
                "F" => {
                    let key = (num(&f, 1, n)?, num(&f, 2, n)?);
                    log.paths.entry(key).or_insert_with(|| f[3..].join(" "));
                }
                "E" => {
                    let op = f.get(4).copied().unwrap_or("");
                    let change = match op {
                        "ftruncate" => Some(FileChange::Truncate {
                            len_bytes: num(&f, 7, n)?,
                        }),
                        "fallocate-punch" => Some(FileChange::Punch {
                            offset_bytes: num(&f, 7, n)?,
                            len_bytes: num(&f, 8, n)?,
                        }),
                        _ => None,
                    };
                    if let Some(change) = change {
                        log.changes.push(FileEvent {
                            time_ns: num(&f, 1, n)?,
                            file: (num(&f, 5, n)?, num(&f, 6, n)?),
                            change,
                        });
                    }
                    if !matches!(op, "write" | "pwrite" | "writev" | "pwritev") {
                        continue;
                    }
                    let offset: i64 = f.get(7).and_then(|s| s.parse().ok()).ok_or_else(|| {
                        LiveError::CaptureLog {
                            line: n,
                            what: "bad offset".into(),
                        }
                    })?;
                    log.writes.push(FileWrite {
                        time_ns: num(&f, 1, n)?,
                        file: (num(&f, 5, n)?, num(&f, 6, n)?),
                        // lseek failed (a pipe would not be here): offset 0.
                        offset_bytes: offset.max(0) as u64,
                        len_bytes: num(&f, 8, n)?,
                        pc: hex(&f, 9, n)?,
                    });
                }
                "X" => log.extents.push(Extent {
                    time_ns: num(&f, 1, n)?,
                    file: (num(&f, 2, n)?, num(&f, 3, n)?),
                    logical_bytes: num(&f, 4, n)?,
                    physical_bytes: num(&f, 5, n)?,
                    len_bytes: num(&f, 6, n)?,
                }),
                "N" => {
                    // A plain rename keeps the inode under a new name.
                    if matches!(
                        f.get(4).copied(),
                        Some("unlink" | "unlinkat" | "rename-over")
                    ) {
                        log.changes.push(FileEvent {
                            time_ns: num(&f, 1, n)?,
                            file: (num(&f, 5, n)?, num(&f, 6, n)?),
                            change: FileChange::Remove,
                        });
                    }
                }
                "" => {}
                other => {
                    return Err(LiveError::CaptureLog {
                        line: n,
                        what: format!("unknown record `{other}`"),
                    })
                }
            }
        }
        Ok(log)
    }
}

/// `CLOCK_MONOTONIC` in ns: the capture library's clock.
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// struct fiemap with room for 64 extents (linux/fiemap.h).
#[repr(C)]
struct Fiemap {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
    extents: [FiemapExtent; 64],
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct FiemapExtent {
    logical: u64,
    physical: u64,
    length: u64,
    reserved64: [u64; 2],
    flags: u32,
    reserved: [u32; 3],
}

/// `_IOWR('f', 11, struct fiemap)`.
const FS_IOC_FIEMAP: libc::c_ulong = 0xC020_660B;
const EXTENT_LAST: u32 = 0x1;
/// Unknown, delayed allocation, encoded, inline, not aligned: no place on
/// the device to join with.
const EXTENT_NO_PLACE: u32 = 0x2 | 0x4 | 0x8 | 0x200 | 0x100;

/// The extents of `file` with a known place on the device.
pub fn fiemap(file: &File) -> std::io::Result<Vec<(u64, u64, u64)>> {
    let mut out = Vec::new();
    let mut start = 0u64;
    loop {
        let mut fm = Fiemap {
            start,
            length: u64::MAX - start,
            flags: 0,
            mapped_extents: 0,
            extent_count: 64,
            reserved: 0,
            extents: [FiemapExtent::default(); 64],
        };
        // SAFETY: `fm` is a struct fiemap with room for `extent_count` extents.
        let r = unsafe { libc::ioctl(file.as_raw_fd(), FS_IOC_FIEMAP as _, &mut fm) };
        if r != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if fm.mapped_extents == 0 {
            return Ok(out);
        }
        let mut last = false;
        for x in &fm.extents[..fm.mapped_extents as usize] {
            last |= x.flags & EXTENT_LAST != 0;
            start = x.logical + x.length;
            if x.flags & EXTENT_NO_PLACE == 0 {
                out.push((x.logical, x.physical, x.length));
            }
        }
        if last {
            return Ok(out);
        }
    }
}

/// The extents, now, of every captured file that still exists (the same
/// inode at its first path), as of `time_ns`. Call after a sync.
pub fn final_extents(log: &CaptureLog, time_ns: u64) -> Vec<Extent> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    for (&key, path) in &log.paths {
        let Ok(file) = File::open(path) else { continue };
        let Ok(meta) = file.metadata() else { continue };
        if (meta.dev(), meta.ino()) != key || !meta.is_file() {
            continue;
        }
        for (logical, physical, len) in fiemap(&file).unwrap_or_default() {
            out.push(Extent {
                time_ns,
                file: key,
                logical_bytes: logical,
                physical_bytes: physical,
                len_bytes: len,
            });
        }
    }
    out
}

/// What the join found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JoinStats {
    pub write_records: u64,
    pub write_pages: u64,
    /// Device pages written whose PC was found.
    pub tagged_pages: u64,
    /// Write records given a context.
    pub tagged_records: u64,
    /// Distinct PCs among the tagged pages.
    pub pcs: u64,
}

/// Who held each device page, over time: `(valid until, file, file page)`
/// per device page, in time order.
struct Owners {
    by_page: HashMap<u64, Vec<(u64, FileKey, u64)>>,
}

impl Owners {
    fn new(extents: &mut [Extent], page_bytes: u64) -> Self {
        extents.sort_by_key(|e| e.time_ns);
        let mut by_page: HashMap<u64, Vec<(u64, FileKey, u64)>> = HashMap::new();
        for e in extents.iter() {
            let pages = e.len_bytes / page_bytes;
            for k in 0..pages {
                let dev_page = e.physical_bytes / page_bytes + k;
                let owner = (e.file, e.logical_bytes / page_bytes + k);
                let v = by_page.entry(dev_page).or_default();
                // The same owner again: its ownership lasts at least until now.
                match v.last_mut() {
                    Some(last) if (last.1, last.2) == owner => last.0 = e.time_ns,
                    _ => v.push((e.time_ns, owner.0, owner.1)),
                }
            }
        }
        Self { by_page }
    }

    /// The owner of `dev_page` in the first snapshot at or after `t`.
    fn at(&self, dev_page: u64, t: u64) -> Option<(FileKey, u64)> {
        let v = self.by_page.get(&dev_page)?;
        let i = v.partition_point(|&(until, _, _)| until < t);
        v.get(i).map(|&(_, f, p)| (f, p))
    }
}

/// The PCs of each file page's writes, `(time, pc)` in time order.
struct PcHistory {
    by_page: HashMap<(FileKey, u64), Vec<(u64, u64)>>,
}

impl PcHistory {
    fn new(writes: &mut [FileWrite], page_bytes: u64) -> Self {
        writes.sort_by_key(|w| w.time_ns);
        let mut by_page: HashMap<(FileKey, u64), Vec<(u64, u64)>> = HashMap::new();
        for w in writes.iter().filter(|w| w.len_bytes > 0 && w.pc != 0) {
            let first = w.offset_bytes / page_bytes;
            let end = (w.offset_bytes + w.len_bytes).div_ceil(page_bytes);
            for p in first..end {
                by_page
                    .entry((w.file, p))
                    .or_default()
                    .push((w.time_ns, w.pc));
            }
        }
        Self { by_page }
    }

    /// The PC of the newest write issued at or before `t` (the oldest if
    /// every write came later: the clocks of two processes).
    fn at(&self, file: FileKey, page: u64, t: u64) -> Option<u64> {
        let v = self.by_page.get(&(file, page))?;
        let i = v.partition_point(|&(time, _)| time <= t);
        Some(v[i.saturating_sub(1)].1)
    }
}

/// Rewrites the native trace at `trace` (recorded by the live device, its
/// times in ns after `device_start_ns` on `CLOCK_MONOTONIC`) with the PC of
/// each write record as its context.
pub fn join(
    trace: &Path,
    mut log: CaptureLog,
    device_start_ns: u64,
    page_bytes: u64,
) -> Result<JoinStats> {
    let owners = Owners::new(&mut log.extents, page_bytes);
    let pcs = PcHistory::new(&mut log.writes, page_bytes);
    let mut reader = ftlsim_trace::open(trace, &ReaderOptions::default())
        .step_context(|| format!("cannot read {}", trace.display()))?;
    let mut records = Vec::new();
    let mut rec = TraceRecord::default();
    while reader.next_record(&mut rec)? {
        records.push(rec.clone());
    }
    drop(reader);
    let mut stats = JoinStats::default();
    let mut seen_pcs = std::collections::BTreeSet::new();
    let mut votes: BTreeMap<u64, u64> = BTreeMap::new();
    for r in records.iter_mut().filter(|r| r.op == TraceOp::Write) {
        stats.write_records += 1;
        let t = device_start_ns + r.time_ns;
        votes.clear();
        let first = r.offset_bytes / page_bytes;
        for p in first..first + r.length_bytes / page_bytes {
            stats.write_pages += 1;
            let pc = owners
                .at(p, t)
                .and_then(|(file, fpage)| pcs.at(file, fpage, t));
            if let Some(pc) = pc {
                stats.tagged_pages += 1;
                seen_pcs.insert(pc);
                *votes.entry(pc).or_default() += 1;
            }
        }
        // The most pages; among equals the smallest PC (BTreeMap order).
        if let Some((&pc, _)) = votes.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) {
            r.context = Some(pc);
            stats.tagged_records += 1;
        }
    }
    stats.pcs = seen_pcs.len() as u64;
    // Rewritten beside itself and renamed over: a failure half-way leaves
    // the recorded trace whole.
    let rewrite = || -> std::io::Result<()> {
        let mut w = NativeWriter::new(BufWriter::new(OutputFile::create(trace, &[])?))?;
        for r in &records {
            w.write(r)?;
        }
        w.finish()?
            .into_inner()
            .map_err(|e| e.into_error())?
            .commit()
    };
    rewrite().io_context(|| format!("cannot rewrite {}", trace.display()))?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_log() {
        let text = "F 1 2 /m/a b\nE 100 7 7 pwrite 1 2 4096 8192 00000000000000ff 0000000000000000\n\
                    E 101 7 7 fsync 1 2 0 0 00000000000000ff 0000000000000000\n\
                    X 102 1 2 0 65536 8192\nN 103 7 7 unlink 1 2 00000000000000aa 0000000000000000 /m/a b\n";
        let log = CaptureLog::parse(text).unwrap();
        assert_eq!(log.paths[&(1, 2)], "/m/a b");
        assert_eq!(
            log.writes,
            vec![FileWrite {
                time_ns: 100,
                file: (1, 2),
                offset_bytes: 4096,
                len_bytes: 8192,
                pc: 0xff
            }]
        );
        assert_eq!(log.extents.len(), 1);
        assert_eq!(
            log.changes,
            vec![FileEvent {
                time_ns: 103,
                file: (1, 2),
                change: FileChange::Remove
            }]
        );
        assert!(CaptureLog::parse("Q 1\n").is_err());
    }

    #[test]
    fn owner_is_the_first_snapshot_after_the_write() {
        let f = (1, 1);
        let g = (1, 2);
        let mut extents = vec![
            // Device page 10 held file f page 0 at 100, then file g page 3 at 300.
            Extent {
                time_ns: 100,
                file: f,
                logical_bytes: 0,
                physical_bytes: 10 * 4096,
                len_bytes: 4096,
            },
            Extent {
                time_ns: 300,
                file: g,
                logical_bytes: 3 * 4096,
                physical_bytes: 10 * 4096,
                len_bytes: 4096,
            },
        ];
        let owners = Owners::new(&mut extents, 4096);
        assert_eq!(owners.at(10, 50), Some((f, 0)));
        assert_eq!(owners.at(10, 100), Some((f, 0)));
        assert_eq!(owners.at(10, 200), Some((g, 3)));
        assert_eq!(owners.at(10, 301), None);
        assert_eq!(owners.at(11, 50), None);
        let mut writes = vec![
            FileWrite {
                time_ns: 10,
                file: g,
                offset_bytes: 3 * 4096,
                len_bytes: 100,
                pc: 7,
            },
            FileWrite {
                time_ns: 20,
                file: g,
                offset_bytes: 3 * 4096 + 100,
                len_bytes: 100,
                pc: 8,
            },
        ];
        let pcs = PcHistory::new(&mut writes, 4096);
        assert_eq!(pcs.at(g, 3, 15), Some(7));
        assert_eq!(pcs.at(g, 3, 25), Some(8));
        assert_eq!(pcs.at(g, 3, 5), Some(7), "before every write: the first");
        assert_eq!(pcs.at(g, 4, 25), None);
    }
}
