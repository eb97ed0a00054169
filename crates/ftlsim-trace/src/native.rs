//! ftlsim's native binary trace format: compact, versioned, fast to read.
//!
//! ```text
//! header   := magic "FTLSIMTR" (8 bytes) | version u16 LE (1 or 2) | flags u16 LE (= 0) | reserved u32 (= 0)
//! record   := tag u8 | [extended] | time | offset | length | [device] | [stream] | [context] | [fingerprints]
//! tag      := bits 0-1 op (0 read, 1 write, 2 trim, 3 flush)
//!             bit 2 device present, bit 3 stream present, bit 4 context present,
//!             bit 5 fingerprints present,
//!             bit 6 extended op (version 2 only; bits 0-1 are then 0), bit 7 zero
//! extended := op u8 (4 remap, 5 clone: the codes of `ftlsim::request::Op`)
//!             | zigzag LEB128 of (src_offset − offset), wrapping i64
//! time     := zigzag LEB128 of (time_ns − previous time_ns), wrapping i64
//! offset   := zigzag LEB128 of (offset − previous record's end), wrapping i64,
//!             where end = offset + length (sequential requests cost one byte)
//! length   := LEB128 bytes
//! device   := LEB128 u32;  stream := LEB128 u16;  context := LEB128 u64
//! fingerprints := LEB128 count | count × 16 bytes (u128 LE), one per 4 KiB page
//! end      := tag 0xFF | LEB128 number of records
//! ```
//!
//! Version 2 only adds the extended op (remap and clone, which need a source
//! range and do not fit the two op bits), so a version 1 file is a valid
//! version 2 file but for its header; this build writes 2 and reads both.
//! The source offset is stored relative to the destination because remaps
//! and clones mostly move data nearby (a defragmenter, a copy-on-write file
//! system), which keeps the delta short.
//!
//! The end marker makes a truncated file an error rather than a silently
//! shorter trace: [`NativeWriter::finish`] must be called. The first record's
//! "previous" time, offset and length are 0.

use std::io::{BufRead, Write};

use crate::error::TraceError;
use crate::reader::{Format, ReaderOptions, Stream, TraceReader};
use crate::record::{TraceOp, TraceRecord, MAX_FINGERPRINTS_PER_RECORD, MAX_REQUEST_BYTES};

/// First 8 bytes of every native trace.
pub const NATIVE_MAGIC: [u8; 8] = *b"FTLSIMTR";
/// The version this build writes. It reads this one and
/// [`NATIVE_MIN_VERSION`].
pub const NATIVE_VERSION: u16 = 2;
/// The oldest version this build reads (no extended ops).
pub const NATIVE_MIN_VERSION: u16 = 1;
/// Header length in bytes.
pub const NATIVE_HEADER_BYTES: usize = 16;

const TAG_DEVICE: u8 = 1 << 2;
const TAG_STREAM: u8 = 1 << 3;
const TAG_CONTEXT: u8 = 1 << 4;
const TAG_FINGERPRINTS: u8 = 1 << 5;
const TAG_EXTENDED: u8 = 1 << 6;
const TAG_OP_BITS: u8 = 0b0000_0011;
/// Bits that must be clear, per version.
const TAG_RESERVED_V1: u8 = 0b1100_0000;
const TAG_RESERVED_V2: u8 = 0b1000_0000;
const TAG_END: u8 = 0xFF;

/// Flush the writer's buffer past this many bytes.
const WRITE_CHUNK_BYTES: usize = 64 * 1024;

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

/// Writes native traces. Call [`NativeWriter::finish`] at the end.
pub struct NativeWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    prev_time: u64,
    prev_end: u64,
    records: u64,
    finished: bool,
}

impl<W: Write> NativeWriter<W> {
    /// Writes the header.
    pub fn new(mut out: W) -> std::io::Result<Self> {
        let mut header = [0u8; NATIVE_HEADER_BYTES];
        header[..8].copy_from_slice(&NATIVE_MAGIC);
        header[8..10].copy_from_slice(&NATIVE_VERSION.to_le_bytes());
        out.write_all(&header)?;
        Ok(NativeWriter {
            out,
            buf: Vec::with_capacity(WRITE_CHUNK_BYTES + 1024),
            prev_time: 0,
            prev_end: 0,
            records: 0,
            finished: false,
        })
    }

    /// Appends one record.
    pub fn write(&mut self, rec: &TraceRecord) -> std::io::Result<()> {
        if rec.fingerprints.len() > MAX_FINGERPRINTS_PER_RECORD {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "record has {} fingerprints, more than the {MAX_FINGERPRINTS_PER_RECORD} allowed",
                    rec.fingerprints.len()
                ),
            ));
        }
        // Ops past the two tag bits (remap, clone) carry a source: extended.
        let extended = rec.op.code() > TAG_OP_BITS;
        let mut tag = if extended {
            TAG_EXTENDED
        } else {
            rec.op.code()
        };
        if rec.device.is_some() {
            tag |= TAG_DEVICE;
        }
        if rec.stream.is_some() {
            tag |= TAG_STREAM;
        }
        if rec.context.is_some() {
            tag |= TAG_CONTEXT;
        }
        if !rec.fingerprints.is_empty() {
            tag |= TAG_FINGERPRINTS;
        }
        let buf = &mut self.buf;
        buf.push(tag);
        if extended {
            buf.push(rec.op.code());
            put_varint(
                buf,
                zigzag(rec.src_offset_bytes.wrapping_sub(rec.offset_bytes) as i64),
            );
        }
        put_varint(buf, zigzag(rec.time_ns.wrapping_sub(self.prev_time) as i64));
        put_varint(
            buf,
            zigzag(rec.offset_bytes.wrapping_sub(self.prev_end) as i64),
        );
        put_varint(buf, rec.length_bytes);
        if let Some(d) = rec.device {
            put_varint(buf, u64::from(d));
        }
        if let Some(s) = rec.stream {
            put_varint(buf, u64::from(s));
        }
        if let Some(c) = rec.context {
            put_varint(buf, c);
        }
        if !rec.fingerprints.is_empty() {
            put_varint(buf, rec.fingerprints.len() as u64);
            for fp in &rec.fingerprints {
                buf.extend_from_slice(&fp.to_le_bytes());
            }
        }
        self.prev_time = rec.time_ns;
        self.prev_end = rec.offset_bytes.wrapping_add(rec.length_bytes);
        self.records += 1;
        if self.buf.len() >= WRITE_CHUNK_BYTES {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Writes the end marker, flushes and returns the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.finish_in_place()?;
        Ok(self.out)
    }

    pub(crate) fn finish_in_place(&mut self) -> std::io::Result<()> {
        if !self.finished {
            self.buf.push(TAG_END);
            put_varint(&mut self.buf, self.records);
            self.out.write_all(&self.buf)?;
            self.buf.clear();
            self.out.flush()?;
            self.finished = true;
        }
        Ok(())
    }
}

/// Why a decode stopped.
enum Decode {
    /// Need more bytes than are buffered.
    More,
    /// Corrupt data.
    Bad(String),
}

/// Whether a (decompressed) file starting with `head` is a native trace:
/// the format table's detection of this format.
pub(crate) fn sniff(head: &[u8]) -> bool {
    head.starts_with(&NATIVE_MAGIC)
}

/// Opens the reader of a native trace: the format table's `open` of this
/// format.
pub(crate) fn open(
    stream: Stream,
    opts: &ReaderOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    Ok(Box::new(NativeReader::new(stream, opts.device)))
}

/// Reads native traces (see the module docs for the layout).
pub struct NativeReader {
    input: Box<dyn BufRead + Send>,
    format: Format,
    file: String,
    codec: Option<&'static str>,
    device: Option<u32>,
    /// Unconsumed bytes: `buf[pos..]`.
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    header_done: bool,
    /// Version from the header (valid once `header_done`).
    version: u16,
    done: bool,
    /// Byte offset of `buf[0]` in the stream.
    buf_base: u64,
    prev_time: u64,
    prev_end: u64,
    /// Records decoded (before the device filter).
    decoded: u64,
    records: u64,
}

impl NativeReader {
    fn new(stream: Stream, device: Option<u32>) -> Self {
        NativeReader {
            input: stream.input,
            format: stream.format,
            file: stream.file,
            codec: stream.codec,
            device,
            buf: Vec::with_capacity(256 * 1024),
            pos: 0,
            eof: false,
            header_done: false,
            version: NATIVE_VERSION,
            done: false,
            buf_base: 0,
            prev_time: 0,
            prev_end: 0,
            decoded: 0,
            records: 0,
        }
    }

    fn bad(&self, what: impl Into<String>) -> TraceError {
        TraceError::Binary {
            file: self.file.clone(),
            record: self.decoded + 1,
            byte: self.buf_base + self.pos as u64,
            what: what.into(),
        }
    }

    /// Moves unconsumed bytes to the front and reads more. Returns false at EOF.
    fn refill(&mut self) -> Result<bool, TraceError> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.buf_base += self.pos as u64;
            self.pos = 0;
        }
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(match self.codec {
                        Some(codec) => TraceError::Decompress {
                            file: self.file.clone(),
                            line: self.decoded + 1,
                            codec,
                            source,
                        },
                        None => TraceError::Io {
                            file: self.file.clone(),
                            source,
                        },
                    })
                }
            };
            if chunk.is_empty() {
                self.eof = true;
                return Ok(false);
            }
            let n = chunk.len();
            self.buf.extend_from_slice(chunk);
            self.input.consume(n);
            return Ok(true);
        }
    }

    fn read_header(&mut self) -> Result<(), TraceError> {
        while self.buf.len() - self.pos < NATIVE_HEADER_BYTES {
            if !self.refill()? {
                return Err(self.bad("truncated header (file shorter than 16 bytes)"));
            }
        }
        let h = &self.buf[self.pos..self.pos + NATIVE_HEADER_BYTES];
        if h[..8] != NATIVE_MAGIC {
            return Err(self.bad("not an ftlsim native trace (bad magic)"));
        }
        let version = u16::from_le_bytes([h[8], h[9]]);
        if !(NATIVE_MIN_VERSION..=NATIVE_VERSION).contains(&version) {
            return Err(self.bad(format!(
                "unsupported native trace version {version} (this build reads versions \
                 {NATIVE_MIN_VERSION} to {NATIVE_VERSION})"
            )));
        }
        self.version = version;
        let flags = u16::from_le_bytes([h[10], h[11]]);
        if flags != 0 || h[12..16] != [0, 0, 0, 0] {
            return Err(self.bad(format!(
                "unknown header flags {flags:#x} (written by a newer ftlsim?)"
            )));
        }
        self.pos += NATIVE_HEADER_BYTES;
        self.header_done = true;
        Ok(())
    }

    /// Decodes one record from `buf[pos..]` without consuming on failure.
    /// Returns the number of bytes used, or `None` for the end marker.
    fn decode(&self, rec: &mut TraceRecord) -> Result<Option<usize>, Decode> {
        let data = self.buf.get(self.pos..).unwrap_or(&[]);
        let mut cur = Cursor { data, at: 0 };
        let tag = cur.byte()?;
        if tag == TAG_END {
            let count = cur.varint()?;
            if count != self.decoded {
                return Err(Decode::Bad(format!(
                    "end marker says {count} records, but {} were read",
                    self.decoded
                )));
            }
            return Ok(None);
        }
        let reserved = if self.version >= 2 {
            TAG_RESERVED_V2
        } else {
            TAG_RESERVED_V1
        };
        if tag & reserved != 0 {
            return Err(Decode::Bad(format!(
                "invalid record tag {tag:#04x} for a version {} trace",
                self.version
            )));
        }
        let (op, src_delta) = if tag & TAG_EXTENDED != 0 {
            if tag & TAG_OP_BITS != 0 {
                return Err(Decode::Bad(format!(
                    "invalid record tag {tag:#04x}: an extended op leaves the op bits 0"
                )));
            }
            let code = cur.byte()?;
            let op = match TraceOp::from_code(code) {
                Some(op) if op.has_source() => op,
                Some(op) => {
                    return Err(Decode::Bad(format!(
                        "extended op code {code} ({op}) takes no source; only remap (4) and \
                         clone (5) are extended"
                    )))
                }
                None => {
                    return Err(Decode::Bad(format!(
                        "unknown op code {code} (known: 0 read, 1 write, 2 trim, 3 flush, \
                         4 remap, 5 clone)"
                    )))
                }
            };
            (op, Some(unzigzag(cur.varint()?)))
        } else {
            let code = tag & TAG_OP_BITS;
            let op = TraceOp::from_code(code)
                .ok_or_else(|| Decode::Bad(format!("unknown op code {code}")))?;
            (op, None)
        };
        let time = self.prev_time.wrapping_add(unzigzag(cur.varint()?) as u64);
        let offset = self.prev_end.wrapping_add(unzigzag(cur.varint()?) as u64);
        let length = cur.varint()?;
        if length > MAX_REQUEST_BYTES {
            return Err(Decode::Bad(format!(
                "absurd request length {length} (more than 1 TiB)"
            )));
        }
        if offset.checked_add(length).is_none() {
            return Err(Decode::Bad("request end beyond 2^64 bytes".into()));
        }
        let src = match src_delta {
            Some(delta) => {
                let src = offset.wrapping_add(delta as u64);
                if src.checked_add(length).is_none() {
                    return Err(Decode::Bad("source range end beyond 2^64 bytes".into()));
                }
                src
            }
            None => 0,
        };
        rec.reset();
        rec.time_ns = time;
        rec.op = op;
        rec.offset_bytes = offset;
        rec.length_bytes = length;
        rec.src_offset_bytes = src;
        if tag & TAG_DEVICE != 0 {
            let d = cur.varint()?;
            rec.device = Some(
                u32::try_from(d).map_err(|_| Decode::Bad(format!("device id {d} exceeds u32")))?,
            );
        }
        if tag & TAG_STREAM != 0 {
            let s = cur.varint()?;
            rec.stream = Some(
                u16::try_from(s).map_err(|_| Decode::Bad(format!("stream id {s} exceeds u16")))?,
            );
        }
        if tag & TAG_CONTEXT != 0 {
            rec.context = Some(cur.varint()?);
        }
        if tag & TAG_FINGERPRINTS != 0 {
            let count = cur.varint()?;
            if count == 0 || count > MAX_FINGERPRINTS_PER_RECORD as u64 {
                return Err(Decode::Bad(format!("invalid fingerprint count {count}")));
            }
            let bytes = cur.take(count as usize * 16)?;
            rec.fingerprints.extend(bytes.chunks_exact(16).map(|c| {
                let mut a = [0u8; 16];
                a.copy_from_slice(c);
                u128::from_le_bytes(a)
            }));
        }
        Ok(Some(cur.at))
    }
}

/// A bounds-checked reader over a byte slice.
struct Cursor<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    #[inline]
    fn byte(&mut self) -> Result<u8, Decode> {
        let b = *self.data.get(self.at).ok_or(Decode::More)?;
        self.at += 1;
        Ok(b)
    }

    #[inline]
    fn varint(&mut self) -> Result<u64, Decode> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let b = self.byte()?;
            if i == 9 && b > 1 {
                return Err(Decode::Bad("varint overflows 64 bits".into()));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(Decode::Bad("varint longer than 10 bytes".into()))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Decode> {
        let end = self.at.checked_add(n).ok_or(Decode::More)?;
        let s = self.data.get(self.at..end).ok_or(Decode::More)?;
        self.at = end;
        Ok(s)
    }
}

impl TraceReader for NativeReader {
    fn next_record(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceError> {
        if !self.header_done {
            self.read_header()?;
        }
        loop {
            if self.done {
                return if self.records == 0 {
                    Err(TraceError::Empty {
                        file: self.file.clone(),
                        skipped: 0,
                        filtered_out: self.decoded - self.records,
                    })
                } else {
                    Ok(false)
                };
            }
            match self.decode(rec) {
                Ok(Some(used)) => {
                    self.pos += used;
                    self.prev_time = rec.time_ns;
                    self.prev_end = rec.offset_bytes.wrapping_add(rec.length_bytes);
                    self.decoded += 1;
                    if self.device.is_none() || rec.device == self.device {
                        self.records += 1;
                        return Ok(true);
                    }
                }
                Ok(None) => {
                    // End marker: nothing may follow it.
                    let mut cur = Cursor {
                        data: self.buf.get(self.pos..).unwrap_or(&[]),
                        at: 1,
                    };
                    let used = cur.varint().map(|_| cur.at).unwrap_or(1);
                    self.pos += used;
                    while self.pos >= self.buf.len() {
                        if !self.refill()? {
                            break;
                        }
                    }
                    if self.pos < self.buf.len() {
                        return Err(self.bad("data after the end marker"));
                    }
                    self.done = true;
                }
                Err(Decode::More) => {
                    if !self.refill()? {
                        if self.pos >= self.buf.len() {
                            return Err(self.bad(
                                "truncated trace: missing end marker (writer not finished?)",
                            ));
                        }
                        return Err(self.bad("truncated record at end of file"));
                    }
                }
                Err(Decode::Bad(what)) => return Err(self.bad(what)),
            }
        }
    }

    fn format(&self) -> Format {
        self.format
    }

    fn name(&self) -> &str {
        &self.file
    }

    fn position(&self) -> u64 {
        self.decoded
    }

    fn records_read(&self) -> u64 {
        self.records
    }

    fn skipped_bad_lines(&self) -> u64 {
        0
    }

    fn first_skipped_error(&self) -> Option<&TraceError> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_round_trip() {
        for v in [0i64, 1, -1, 63, -64, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(0), 0);
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
    }

    #[test]
    fn varint_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u64::MAX] {
            let mut buf = Vec::new();
            put_varint(&mut buf, v);
            let mut cur = Cursor { data: &buf, at: 0 };
            assert_eq!(cur.varint().ok(), Some(v));
            assert_eq!(cur.at, buf.len());
        }
        let bad = [0xffu8; 11];
        let mut cur = Cursor { data: &bad, at: 0 };
        assert!(matches!(cur.varint(), Err(Decode::Bad(_))));
    }
}
