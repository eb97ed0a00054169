//! Opening traces: compression detection (by magic bytes), format
//! auto-detection, and construction of the format's reader (by its entry in
//! the format table, `formats.rs`).
//!
//! The shared types ([`Format`], [`TimeUnit`], [`ReaderOptions`],
//! [`TraceReader`], [`Records`], [`Compression`]) live in [`crate::reader`]
//! and are re-exported here so that `ftlsim_trace::open::Format` and the like
//! keep working.

use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

use crate::detect;
use crate::error::TraceError;
use crate::reader::Stream;

pub use crate::reader::{Compression, Format, ReaderOptions, Records, TimeUnit, TraceReader};

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

/// Builds the reader of `format` over an already decompressed stream, with
/// the `open` of its entry in the format table.
pub(crate) fn reader_for(
    format: Format,
    input: Box<dyn BufRead + Send>,
    file: String,
    codec: Option<&'static str>,
    opts: &ReaderOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let open = format.spec().reading.open();
    let reader = open(
        Stream {
            format,
            input,
            file,
            codec,
        },
        opts,
    )?;
    Ok(if opts.spread_seconds {
        Box::new(crate::spread::SpreadSeconds::new(reader))
    } else {
        reader
    })
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
