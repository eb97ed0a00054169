//! The vocabulary every trace reader shares: format names ([`Format`]),
//! time units ([`TimeUnit`]), reader options ([`ReaderOptions`]), the
//! [`TraceReader`] trait and its [`Records`] iterator, and [`Compression`].
//!
//! This module imports no format module; the format modules and
//! [`crate::open`](mod@crate::open), which constructs their readers, import it.

use std::fmt;
use std::str::FromStr;

use crate::error::TraceError;
use crate::record::TraceRecord;

/// A trace file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    Msr,
    /// FIU: `time_ns pid process lba_sector size_sectors R/W major minor md5...`.
    Fiu,
    /// blkparse default text output.
    Blkparse,
    /// DiskSim / MQSim ASCII: `time device lba_sector size_sectors type`.
    Disksim,
    /// SPC / UMass: `ASU,LBA,Size,Opcode,Timestamp`.
    Spc,
    /// Alibaba block traces: `device_id,opcode,offset,length,timestamp`.
    Alibaba,
    /// Tencent CBS: `Timestamp,Offset,Size,IOType,VolumeID`.
    Tencent,
    /// fio iolog version 2 or 3.
    Fio,
    /// libCacheSim block CSV (`version,time,op,size,lbn`, CloudPhysics).
    Libcachesim,
    /// ftlsim's own binary format (see [`crate::native`]).
    Native,
    /// CloudPhysics / VMware vscsi binary records, versions 1 and 2 (see
    /// [`crate::vscsi`]).
    Vscsi,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 11] = [
        Format::Native,
        Format::Vscsi,
        Format::Fio,
        Format::Msr,
        Format::Fiu,
        Format::Blkparse,
        Format::Disksim,
        Format::Spc,
        Format::Alibaba,
        Format::Tencent,
        Format::Libcachesim,
    ];

    /// Every format name, for CLI help: `msr, fiu, blkparse, ...`.
    pub const NAMES: [&'static str; 11] = [
        "msr",
        "fiu",
        "blkparse",
        "disksim",
        "spc",
        "alibaba",
        "tencent",
        "fio",
        "libcachesim",
        "native",
        "vscsi",
    ];

    /// The name accepted by [`Format::from_str`].
    pub fn name(self) -> &'static str {
        match self {
            Format::Msr => "msr",
            Format::Fiu => "fiu",
            Format::Blkparse => "blkparse",
            Format::Disksim => "disksim",
            Format::Spc => "spc",
            Format::Alibaba => "alibaba",
            Format::Tencent => "tencent",
            Format::Fio => "fio",
            Format::Libcachesim => "libcachesim",
            Format::Native => "native",
            Format::Vscsi => "vscsi",
        }
    }

    /// One line about the format and its units, for CLI help.
    pub fn description(self) -> &'static str {
        match self {
            Format::Msr => "MSR Cambridge CSV: FILETIME 100 ns ticks, byte offset and size",
            Format::Fiu => "FIU: ns, 512 B sectors, MD5 per sector or per 4 KiB page",
            Format::Blkparse => "blkparse text: seconds, 512 B sectors; replays one action (D)",
            Format::Disksim => {
                "DiskSim/MQSim ASCII: time (--time-unit, default ms), sectors, type bit 0 = read"
            }
            Format::Spc => "SPC: ASU, LBA in 512 B sectors, size bytes, r/w, seconds",
            Format::Alibaba => {
                "Alibaba block CSV: device, R/W, byte offset and length, microseconds"
            }
            Format::Tencent => {
                "Tencent CBS CSV: seconds, sector offset and size, 0 read/1 write, volume"
            }
            Format::Fio => "fio iolog v2/v3: bytes; v3 timestamps in microseconds (--time-unit)",
            Format::Libcachesim => {
                "libCacheSim block CSV: seconds, SCSI opcode hex, size bytes, lbn in 512 B"
            }
            Format::Native => "ftlsim native binary trace",
            Format::Vscsi => {
                "CloudPhysics/VMware vscsi binary, v1 or v2: microseconds, lbn in 512 B, len bytes, SCSI opcode"
            }
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let f = match lower.as_str() {
            "msr" => Format::Msr,
            "fiu" => Format::Fiu,
            "blkparse" | "blktrace" => Format::Blkparse,
            "disksim" | "mqsim" | "ascii" => Format::Disksim,
            "spc" | "umass" => Format::Spc,
            "alibaba" | "ali" => Format::Alibaba,
            "tencent" | "cbs" => Format::Tencent,
            "fio" | "iolog" => Format::Fio,
            "libcachesim" | "cloudphysics" => Format::Libcachesim,
            "native" | "ftlsim" => Format::Native,
            "vscsi" => Format::Vscsi,
            _ => {
                return Err(TraceError::Option(format!(
                    "unknown trace format `{s}` (expected one of: {})",
                    Format::NAMES.join(", ")
                )))
            }
        };
        Ok(f)
    }
}

/// Unit of a time column whose unit the format leaves open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

impl TimeUnit {
    /// Nanoseconds in one unit.
    pub fn ns_per_unit(self) -> u64 {
        match self {
            TimeUnit::Seconds => 1_000_000_000,
            TimeUnit::Millis => 1_000_000,
            TimeUnit::Micros => 1_000,
            TimeUnit::Nanos => 1,
        }
    }

    /// Short name: `s`, `ms`, `us`, `ns`.
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "s",
            TimeUnit::Millis => "ms",
            TimeUnit::Micros => "us",
            TimeUnit::Nanos => "ns",
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TimeUnit {
    type Err = TraceError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "s" | "sec" | "seconds" => Ok(TimeUnit::Seconds),
            "ms" | "msec" | "milliseconds" => Ok(TimeUnit::Millis),
            "us" | "µs" | "usec" | "microseconds" => Ok(TimeUnit::Micros),
            "ns" | "nsec" | "nanoseconds" => Ok(TimeUnit::Nanos),
            _ => Err(TraceError::Option(format!(
                "unknown time unit `{s}` (expected s, ms, us or ns)"
            ))),
        }
    }
}

/// How to open a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderOptions {
    /// The format; `None` detects it from the content.
    pub format: Option<Format>,
    /// Time unit of formats whose unit is not fixed: DiskSim (default
    /// milliseconds, use `ns` for MQSim traces such as tpcc-small.trace) and
    /// fio iolog v3 (default microseconds, what fio writes). Ignored by the
    /// other formats, whose units are fixed.
    pub time_unit: Option<TimeUnit>,
    /// blkparse action to replay: `D` (issued to the driver, default), `Q`
    /// (queued), `C` (completed), ...
    pub blkparse_action: char,
    /// Skip and count bad lines instead of stopping at the first one.
    pub skip_bad_lines: bool,
    /// Keep only the records of this device id (see [`crate::device_id`]).
    /// Records without a device never match.
    pub device: Option<u32>,
    /// How the user chooses the format, for the advice in a detection
    /// error ("choose one with ..."): `--format` on the command line,
    /// `workload.trace.format` in a config.
    pub format_option: &'static str,
    /// How the user skips bad records, for the advice in a record error:
    /// `--skip-bad-lines` on the command line, `workload.trace.skip_bad_lines`
    /// in a config.
    pub skip_option: &'static str,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            format: None,
            time_unit: None,
            blkparse_action: 'D',
            skip_bad_lines: false,
            device: None,
            format_option: "--format",
            skip_option: "--skip-bad-lines",
        }
    }
}

/// A streaming trace reader. Memory is constant in the trace length.
///
/// ```no_run
/// use ftlsim_trace::{open, ReaderOptions, TraceRecord};
/// let mut reader = open("trace.csv".as_ref(), &ReaderOptions::default())?;
/// let mut rec = TraceRecord::default();
/// while reader.next_record(&mut rec)? {
///     // rec.time_ns, rec.op, rec.offset_bytes, rec.length_bytes ...
/// }
/// # Ok::<(), ftlsim_trace::TraceError>(())
/// ```
pub trait TraceReader: Send {
    /// Reads the next record into `rec`. `Ok(false)` at the end. A file with
    /// no record at all gives [`TraceError::Empty`] instead of `Ok(false)`.
    fn next_record(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceError>;
    /// The format being read.
    fn format(&self) -> Format;
    /// The file name used in messages.
    fn name(&self) -> &str;
    /// Line (text formats) or record number (native) of the last record
    /// returned; 0 before the first.
    fn position(&self) -> u64;
    /// Records returned so far.
    fn records_read(&self) -> u64;
    /// Bad lines skipped so far (only with `skip_bad_lines`).
    fn skipped_bad_lines(&self) -> u64;
    /// The first skipped bad line's error, to show as an example.
    fn first_skipped_error(&self) -> Option<&TraceError>;
}

impl dyn TraceReader + '_ {
    /// An iterator over owned records (allocates per record with fingerprints;
    /// use [`TraceReader::next_record`] on hot paths).
    pub fn records(&mut self) -> Records<'_> {
        Records {
            reader: self,
            done: false,
        }
    }
}

/// Iterator returned by `records()`; stops after the first error.
pub struct Records<'a> {
    reader: &'a mut dyn TraceReader,
    done: bool,
}

impl Iterator for Records<'_> {
    type Item = Result<TraceRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut rec = TraceRecord::default();
        match self.reader.next_record(&mut rec) {
            Ok(true) => Some(Ok(rec)),
            Ok(false) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Compression of a trace file, detected from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (`1f 8b`), possibly multi-member.
    Gzip,
    /// zstd (`28 b5 2f fd`).
    Zstd,
}

impl Compression {
    /// Detects the compression from the first bytes of a file.
    pub fn from_magic(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    /// The codec name used in messages; `None` when not compressed.
    pub(crate) fn codec(self) -> Option<&'static str> {
        match self {
            Compression::None => None,
            Compression::Gzip => Some("gzip"),
            Compression::Zstd => Some("zstd"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for name in Format::NAMES {
            let f: Format = name.parse().unwrap();
            assert_eq!(f.name(), name);
            assert!(Format::ALL.contains(&f));
        }
        let err = "nope".parse::<Format>().unwrap_err().to_string();
        assert!(err.contains("msr, fiu"), "{err}");
    }

    #[test]
    fn time_units() {
        assert_eq!("ms".parse::<TimeUnit>().unwrap(), TimeUnit::Millis);
        assert_eq!(TimeUnit::Micros.ns_per_unit(), 1000);
        assert!("lightyears".parse::<TimeUnit>().is_err());
    }

    #[test]
    fn compression_magic() {
        assert_eq!(Compression::from_magic(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(
            Compression::from_magic(&[0x28, 0xb5, 0x2f, 0xfd]),
            Compression::Zstd
        );
        assert_eq!(Compression::from_magic(b"1,2"), Compression::None);
        assert_eq!(Compression::from_magic(&[]), Compression::None);
    }
}
