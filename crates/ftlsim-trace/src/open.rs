//! Opening traces: format names, reader options, the [`TraceReader`] trait,
//! compression detection (by magic bytes) and format auto-detection.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::str::FromStr;

use crate::error::TraceError;
use crate::record::TraceRecord;
use crate::text::TextReader;
use crate::{
    alibaba, blkparse, detect, disksim, fio, fiu, libcachesim, msr, native, spc, tencent, vscsi,
};

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
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            format: None,
            time_unit: None,
            blkparse_action: 'D',
            skip_bad_lines: false,
            device: None,
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

    fn codec(self) -> Option<&'static str> {
        match self {
            Compression::None => None,
            Compression::Gzip => Some("gzip"),
            Compression::Zstd => Some("zstd"),
        }
    }
}

/// Bytes of decompressed data looked at to detect the format.
const DETECT_PREFIX_BYTES: usize = 64 * 1024;
/// Read buffer of the readers.
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// Opens a trace file (plain, gzip or zstd; format given or detected).
pub fn open(path: &Path, opts: &ReaderOptions) -> Result<Box<dyn TraceReader>, TraceError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|source| TraceError::Io {
        file: name.clone(),
        source,
    })?;
    open_stream(Box::new(file), &name, opts)
}

/// Opens a trace from any byte stream (stdin, a socket, memory). `name` is
/// used in error messages.
pub fn open_stream(
    input: Box<dyn Read + Send>,
    name: &str,
    opts: &ReaderOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let (mut stream, compression) = decompressed(input, name)?;
    let codec = compression.codec();
    // Look at the beginning of the decompressed data to detect the format,
    // then put it back in front of the stream.
    let mut prefix = Vec::with_capacity(4096);
    let (at_eof, stream) = match read_prefix(&mut stream, &mut prefix, DETECT_PREFIX_BYTES) {
        Ok(at_eof) => (at_eof, stream),
        // Nothing decoded at all: report now.
        Err(source) if prefix.is_empty() => {
            return Err(match codec {
                Some(codec) => TraceError::Decompress {
                    file: name.to_string(),
                    line: 1,
                    codec,
                    source,
                },
                None => TraceError::Io {
                    file: name.to_string(),
                    source,
                },
            })
        }
        // Some data, then an error (a truncated gzip file): detect from what
        // was decoded and let the reader report the error at its line.
        Err(source) => (
            false,
            Box::new(FailingReader(Some(source))) as Box<dyn Read + Send>,
        ),
    };
    let format = match opts.format {
        Some(f) => f,
        None => detect::detect_format(&prefix, at_eof, opts).map_err(|failure| match failure {
            detect::DetectFailure::NoData => TraceError::Empty {
                file: name.to_string(),
                skipped: 0,
                filtered_out: 0,
            },
            detect::DetectFailure::Failed(reason) => TraceError::Detect {
                file: name.to_string(),
                reason: match codec {
                    Some(codec) => format!("{reason} (looked at the {codec}-decompressed data)"),
                    None => reason,
                },
            },
        })?,
    };
    let chained = Cursor::new(prefix).chain(stream);
    let input: Box<dyn BufRead + Send> =
        Box::new(BufReader::with_capacity(READ_BUFFER_BYTES, chained));
    reader_for(format, input, name.to_string(), codec, opts)
}

/// Wraps `input` in the decoder its magic bytes call for.
fn decompressed(
    mut input: Box<dyn Read + Send>,
    name: &str,
) -> Result<(Box<dyn Read + Send>, Compression), TraceError> {
    let mut head = Vec::with_capacity(4);
    read_prefix(&mut input, &mut head, 4).map_err(|source| TraceError::Io {
        file: name.to_string(),
        source,
    })?;
    let compression = Compression::from_magic(&head);
    let raw = Cursor::new(head).chain(input);
    let stream: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(raw)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(raw).map_err(|source| {
            TraceError::Decompress {
                file: name.to_string(),
                line: 1,
                codec: "zstd",
                source,
            }
        })?),
    };
    Ok((stream, compression))
}

/// A reader that fails once with a stored error, then reports end of file.
struct FailingReader(Option<std::io::Error>);

impl Read for FailingReader {
    fn read(&mut self, _buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.take() {
            Some(e) => Err(e),
            None => Ok(0),
        }
    }
}

/// Reads up to `max` bytes into `out`; returns whether the end was reached.
fn read_prefix(input: &mut dyn Read, out: &mut Vec<u8>, max: usize) -> std::io::Result<bool> {
    let mut chunk = [0u8; 8192];
    while out.len() < max {
        let want = (max - out.len()).min(chunk.len());
        let n = match input.read(&mut chunk[..want]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(true);
        }
        out.extend_from_slice(&chunk[..n]);
    }
    Ok(false)
}

/// Builds the reader of `format` over an already decompressed stream.
pub(crate) fn reader_for(
    format: Format,
    input: Box<dyn BufRead + Send>,
    file: String,
    codec: Option<&'static str>,
    opts: &ReaderOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let dev = opts.device;
    let skip = opts.skip_bad_lines;
    macro_rules! text {
        ($parser:expr) => {
            Box::new(TextReader::new(input, file, codec, $parser, dev, skip))
        };
    }
    let reader: Box<dyn TraceReader> = match format {
        Format::Msr => text!(msr::MsrParser::new()),
        Format::Fiu => text!(fiu::FiuParser::new()),
        Format::Blkparse => text!(blkparse::BlkparseParser::new(opts.blkparse_action)?),
        Format::Disksim => text!(disksim::DisksimParser::new(
            opts.time_unit.unwrap_or(TimeUnit::Millis)
        )),
        Format::Spc => text!(spc::SpcParser::new()),
        Format::Alibaba => text!(alibaba::AlibabaParser::new()),
        Format::Tencent => text!(tencent::TencentParser::new()),
        Format::Fio => text!(fio::FioParser::new(
            opts.time_unit.unwrap_or(TimeUnit::Micros)
        )),
        Format::Libcachesim => text!(libcachesim::LibcachesimParser::new()),
        Format::Native => Box::new(native::NativeReader::new(input, file, codec, dev)),
        Format::Vscsi => Box::new(vscsi::VscsiReader::new(input, file, codec, dev, skip)),
    };
    Ok(reader)
}

/// Detects the format of a file without opening a reader.
pub fn detect_file(path: &Path) -> Result<Format, TraceError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|source| TraceError::Io {
        file: name.clone(),
        source,
    })?;
    let (mut stream, compression) = decompressed(Box::new(file), &name)?;
    let mut prefix = Vec::new();
    let at_eof = read_prefix(&mut stream, &mut prefix, DETECT_PREFIX_BYTES).map_err(|source| {
        TraceError::Decompress {
            file: name.clone(),
            line: 1,
            codec: compression.codec().unwrap_or("plain"),
            source,
        }
    })?;
    detect::detect_format(&prefix, at_eof, &ReaderOptions::default()).map_err(|failure| {
        match failure {
            detect::DetectFailure::NoData => TraceError::Empty {
                file: name,
                skipped: 0,
                filtered_out: 0,
            },
            detect::DetectFailure::Failed(reason) => TraceError::Detect { file: name, reason },
        }
    })
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
