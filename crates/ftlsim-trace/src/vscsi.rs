//! CloudPhysics / VMware `vscsi` binary traces (the format libCacheSim's
//! vscsi reader reads): fixed-size little-endian records, no header, in one
//! of two versions.
//!
//! ```text
//! version 1, 32 bytes:  sn u32 | len u32 | nSG u32 | cmd u16 | ver u16 | lbn u64 | ts u64
//! version 2, 40 bytes:  cmd u16 | ver u16 | sn u32 | len u32 | nSG u32 | lbn u64 | ts u64 | rt u64
//! ```
//!
//! (The C structs, with their natural alignment: no padding in either.)
//!
//! * `ver`: its high byte is the record version (1 or 2). That is how the
//!   versions are told apart: version 2 is tried first (byte 3 of each
//!   record is 2), then version 1 (byte 15 is 1), on the first records of
//!   the file; every record is then checked to carry the same version, so a
//!   corrupt or misaligned file is an error rather than noise.
//! * `cmd`: the SCSI command opcode: `08`/`28`/`a8`/`88` READ(6/10/12/16),
//!   `0a`/`2a`/`aa`/`8a` WRITE(6/10/12/16), `35`/`91` SYNCHRONIZE
//!   CACHE(10/16) → flush (offset and length 0), `42` UNMAP → trim. Any other
//!   command is a bad record (skipped and counted with `skip_bad_lines`).
//! * `lbn`: logical block number in 512-byte sectors; `len`: bytes.
//! * `ts`: microseconds (libCacheSim divides it by 10^6 to get seconds);
//!   records carry it converted to ns.
//! * `sn` (serial number), `nSG` (scatter-gather entries) and, in version 2,
//!   `rt` (response time) are not used.
//!
//! No device: records have `device == None`. Errors name the record and
//! its byte offset: `FILE: record N (byte B): what`.

use std::io::BufRead;

use crate::error::TraceError;
use crate::libcachesim::scsi_opcode;
use crate::reader::{Format, ReaderOptions, Stream, TraceReader};
use crate::record::{TraceOp, TraceRecord, SECTOR_BYTES};

/// Bytes of a version 1 record.
pub const V1_RECORD_BYTES: usize = 32;
/// Bytes of a version 2 record.
pub const V2_RECORD_BYTES: usize = 40;

/// Records looked at to tell the version (libCacheSim looks at 2; a few
/// more make a chance match of the version byte in the other layout even
/// less likely).
const SNIFF_RECORDS: usize = 4;

/// The two record layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VscsiVersion {
    /// 32-byte records, `ver` at bytes 14-15.
    V1,
    /// 40-byte records, `ver` at bytes 2-3, with a response time.
    V2,
}

impl VscsiVersion {
    /// Record size in bytes.
    pub fn record_bytes(self) -> usize {
        match self {
            VscsiVersion::V1 => V1_RECORD_BYTES,
            VscsiVersion::V2 => V2_RECORD_BYTES,
        }
    }

    /// The version number stored in the high byte of `ver`.
    fn number(self) -> u8 {
        match self {
            VscsiVersion::V1 => 1,
            VscsiVersion::V2 => 2,
        }
    }

    /// Byte of a record holding the high byte of `ver` (little endian).
    fn version_byte(self) -> usize {
        match self {
            VscsiVersion::V1 => 15,
            VscsiVersion::V2 => 3,
        }
    }

    /// Whether the first records in `head` (at least one whole one) all
    /// carry this version.
    fn matches(self, head: &[u8]) -> bool {
        let size = self.record_bytes();
        let whole = (head.len() / size).min(SNIFF_RECORDS);
        whole >= 1
            && head
                .chunks_exact(size)
                .take(whole)
                .all(|r| r[self.version_byte()] == self.number())
    }
}

/// The vscsi version of a file starting with `head` (decompressed), or
/// `None` when it is not a vscsi trace. Text never matches: the version
/// bytes 1 and 2 are control characters.
pub(crate) fn sniff(head: &[u8]) -> Option<VscsiVersion> {
    [VscsiVersion::V2, VscsiVersion::V1]
        .into_iter()
        .find(|v| v.matches(head))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Decodes one record of `version` into `rec`; the error is in words.
fn decode(version: VscsiVersion, b: &[u8], rec: &mut TraceRecord) -> Result<(), String> {
    let at = version.version_byte();
    if b[at] != version.number() {
        return Err(format!(
            "version byte (byte {at} of the record) is {}, not {} like the records before it \
             (corrupt or misaligned file?)",
            b[at],
            version.number()
        ));
    }
    // Field offsets of the two layouts: (cmd, len, lbn, ts).
    let (cmd, len, lbn, ts) = match version {
        VscsiVersion::V1 => (u16_at(b, 12), u32_at(b, 4), u64_at(b, 16), u64_at(b, 24)),
        VscsiVersion::V2 => (u16_at(b, 0), u32_at(b, 8), u64_at(b, 16), u64_at(b, 24)),
    };
    let op = u8::try_from(cmd)
        .ok()
        .and_then(scsi_opcode)
        .ok_or_else(|| {
            format!("SCSI opcode {cmd:#04x} is not a read, write, synchronize cache or unmap")
        })?;
    let time_ns = ts
        .checked_mul(1_000)
        .ok_or_else(|| format!("timestamp {ts} µs overflows 64-bit nanoseconds"))?;
    let offset = lbn
        .checked_mul(SECTOR_BYTES)
        .ok_or_else(|| format!("lbn {lbn} overflows a 64-bit byte address"))?;
    let length = u64::from(len);
    if offset.checked_add(length).is_none() {
        return Err(format!(
            "lbn {lbn} and length {len} put the request end beyond 2^64 bytes"
        ));
    }
    rec.reset();
    rec.time_ns = time_ns;
    rec.op = op;
    // A cache flush has no extent (as in the libCacheSim CSV reader).
    if op != TraceOp::Flush {
        rec.offset_bytes = offset;
        rec.length_bytes = length;
    }
    Ok(())
}

/// Opens the reader of a vscsi trace: the format table's `open` of this
/// format.
pub(crate) fn open(
    stream: Stream,
    opts: &ReaderOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    Ok(Box::new(VscsiReader::new(stream, opts)))
}

/// Reads vscsi traces (see the module docs).
pub struct VscsiReader {
    input: Box<dyn BufRead + Send>,
    format: Format,
    file: String,
    codec: Option<&'static str>,
    device: Option<u32>,
    skip_bad_lines: bool,
    /// How the user skips bad records, named in a record error.
    skip_option: &'static str,
    /// Known after the first call.
    version: Option<VscsiVersion>,
    buf: [u8; V2_RECORD_BYTES],
    /// Records decoded or rejected so far (the 1-based index of the last).
    index: u64,
    records: u64,
    skipped: u64,
    first_skipped: Option<TraceError>,
    done: bool,
}

impl VscsiReader {
    fn new(stream: Stream, opts: &ReaderOptions) -> Self {
        VscsiReader {
            input: stream.input,
            format: stream.format,
            file: stream.file,
            codec: stream.codec,
            device: opts.device,
            skip_bad_lines: opts.skip_bad_lines,
            skip_option: opts.skip_option,
            version: None,
            buf: [0; V2_RECORD_BYTES],
            index: 0,
            records: 0,
            skipped: 0,
            first_skipped: None,
            done: false,
        }
    }

    /// An error about record `index` (1-based) of `size`-byte records.
    fn bad(&self, index: u64, size: usize, what: impl Into<String>) -> TraceError {
        TraceError::Binary {
            file: self.file.clone(),
            record: index,
            byte: (index - 1).saturating_mul(size as u64),
            what: what.into(),
        }
    }

    fn io_error(&self, source: std::io::Error) -> TraceError {
        match self.codec {
            Some(codec) => TraceError::Decompress {
                file: self.file.clone(),
                line: self.index + 1,
                codec,
                source,
            },
            None => TraceError::Io {
                file: self.file.clone(),
                source,
            },
        }
    }

    /// Tells the version from the first buffered bytes.
    fn find_version(&mut self) -> Result<VscsiVersion, TraceError> {
        let head = loop {
            match self.input.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.io_error(e)),
            }
        };
        if head.is_empty() {
            return Err(TraceError::Empty {
                file: self.file.clone(),
                skipped: 0,
                filtered_out: 0,
            });
        }
        if let Some(v) = sniff(head) {
            return Ok(v);
        }
        let what = if head.len() < V1_RECORD_BYTES {
            format!(
                "file of {} bytes is shorter than one vscsi record ({V1_RECORD_BYTES} bytes \
                 in version 1, {V2_RECORD_BYTES} in version 2)",
                head.len()
            )
        } else {
            format!(
                "not a vscsi trace: the `ver` field holds neither version 2 (byte 3 is {}) \
                 nor version 1 (byte 15 is {})",
                head[3], head[15]
            )
        };
        Err(self.bad(1, V1_RECORD_BYTES, what))
    }

    /// Reads the next `size` bytes into `buf`; `Ok(false)` at a clean end.
    fn read_record(&mut self, size: usize) -> Result<bool, TraceError> {
        let mut have = 0;
        while have < size {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.io_error(e)),
            };
            if chunk.is_empty() {
                if have == 0 {
                    return Ok(false);
                }
                return Err(self.bad(
                    self.index + 1,
                    size,
                    format!(
                        "truncated record at end of file: {have} of {size} bytes \
                         (a vscsi version {} record is {size} bytes)",
                        self.version.map_or(0, VscsiVersion::number)
                    ),
                ));
            }
            let n = chunk.len().min(size - have);
            self.buf[have..have + n].copy_from_slice(&chunk[..n]);
            self.input.consume(n);
            have += n;
        }
        Ok(true)
    }
}

impl TraceReader for VscsiReader {
    fn next_record(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceError> {
        let version = match self.version {
            Some(v) => v,
            None => {
                let v = self.find_version()?;
                self.version = Some(v);
                v
            }
        };
        let size = version.record_bytes();
        loop {
            if self.done || !self.read_record(size)? {
                self.done = true;
                return if self.records == 0 {
                    Err(TraceError::Empty {
                        file: self.file.clone(),
                        skipped: self.skipped,
                        filtered_out: self.index - self.skipped,
                    })
                } else {
                    Ok(false)
                };
            }
            self.index += 1;
            if let Err(what) = decode(version, &self.buf[..size], rec) {
                let what = format!("{what} (skip such records with {})", self.skip_option);
                let err = self.bad(self.index, size, what);
                // Structure problems (wrong version byte) are never skipped:
                // everything after them would be garbage.
                let structural = self.buf[version.version_byte()] != version.number();
                if !self.skip_bad_lines || structural {
                    return Err(err);
                }
                self.skipped += 1;
                if self.first_skipped.is_none() {
                    self.first_skipped = Some(err);
                }
                continue;
            }
            // No device in vscsi records: a device filter keeps nothing.
            if self.device.is_none() {
                self.records += 1;
                return Ok(true);
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
        self.index
    }

    fn records_read(&self) -> u64 {
        self.records
    }

    fn skipped_bad_lines(&self) -> u64 {
        self.skipped
    }

    fn first_skipped_error(&self) -> Option<&TraceError> {
        self.first_skipped.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_tells_versions_apart() {
        let mut v1 = vec![0u8; 2 * V1_RECORD_BYTES];
        v1[15] = 1;
        v1[32 + 15] = 1;
        assert_eq!(sniff(&v1), Some(VscsiVersion::V1));
        let mut v2 = vec![0u8; 2 * V2_RECORD_BYTES];
        v2[3] = 2;
        v2[40 + 3] = 2;
        assert_eq!(sniff(&v2), Some(VscsiVersion::V2));
        // Less than a record, text, native: not vscsi.
        assert_eq!(sniff(&v2[..20]), None);
        assert_eq!(
            sniff(b"0,303567,3584,w,0.000000\n1,55590,3072,r,0.016\n"),
            None
        );
        assert_eq!(
            sniff(b"FTLSIMTR\x02\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"),
            None
        );
    }
}
