//! The vocabulary every trace reader shares: the [`Format`] handle, time
//! units ([`TimeUnit`]), reader options ([`ReaderOptions`]), the
//! [`TraceReader`] trait and its [`Records`] iterator, and [`Compression`].
//!
//! This module imports no format module; the format modules, the format
//! table (`formats.rs`) and [`crate::open`](mod@crate::open) import it.

use std::fmt;
use std::io::BufRead;
use std::str::FromStr;

use crate::error::TraceError;
use crate::record::TraceRecord;

/// A trace file format: a handle on its entry in the format table
/// (`formats.rs`), where its name, aliases, description, detection and
/// reader come from. The constants (`Format::Msr`, ...), [`Format::ALL`],
/// [`Format::NAMES`], `name()`, `description()`, `Debug`, `Display` and
/// `FromStr` are defined beside that table; this module only holds the type,
/// so that the format modules can name it without importing the table that
/// imports them. Ordered as [`Format::NAMES`] lists the formats.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Format(
    /// Position in the format table.
    pub(crate) u8,
);

/// A decompressed trace stream, handed to the reader of its format.
pub(crate) struct Stream {
    /// The format being read (what [`TraceReader::format`] reports).
    pub(crate) format: Format,
    /// The decompressed bytes.
    pub(crate) input: Box<dyn BufRead + Send>,
    /// The file name used in messages.
    pub(crate) file: String,
    /// The codec the file was compressed with, for messages; `None` if plain.
    pub(crate) codec: Option<&'static str>,
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
    /// Spread the records of each whole second over that second, as SepBIT
    /// does for Tencent CBS's 1-second timestamps ([`crate::spread`]).
    pub spread_seconds: bool,
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
            spread_seconds: false,
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
