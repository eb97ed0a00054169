//! libCacheSim block-trace CSV, as in its `cloudPhysicsIO.csv` sample:
//!
//! `version,time,op,size,lbn` (with that header line)
//!
//! Units, worked out from the sample and libCacheSim's vscsi reader (which
//! produced it):
//!
//! * `version`: the vscsi record version (always 1 in the sample), ignored;
//! * `time`: **seconds** — the reader divides the vscsi microsecond
//!   timestamp by 10^6; the sample spans exactly 7,200 s (2 hours) with
//!   113,872 requests, many sharing a second;
//! * `op`: SCSI opcode in hex (`0x` prefix optional): `08`/`28`/`a8`/`88`
//!   READ(6/10/12/16), `0a`/`2a`/`aa`/`8a` WRITE(6/10/12/16),
//!   `35`/`91` SYNCHRONIZE CACHE(10/16) → flush, `42` UNMAP → trim;
//! * `size`: **bytes** (every size in the sample is a multiple of 512);
//! * `lbn`: **512-byte sectors** — consecutive 512-byte requests in the
//!   sample have consecutive `lbn`s (29,558 requests start exactly at the
//!   previous `lbn + size/512`, 3 at `lbn + size/4096`).
//!
//! No device column: records have `device == None`.

use crate::error::{shorten, LineError, TraceError};
use crate::reader::ReaderOptions;
use crate::record::{TraceOp, TraceRecord};
use crate::text::{
    check_count, check_end, check_length, classify_header, looks_like_header, parse_time_ns,
    parse_u64, sectors_to_bytes, split_sep, LineParser, Parsed,
};

pub(crate) struct LibcachesimParser;

fn scsi_op(s: &str) -> Option<TraceOp> {
    let hex = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if hex.is_empty() || hex.len() > 2 {
        return None;
    }
    scsi_opcode(u8::from_str_radix(hex, 16).ok()?)
}

/// The operation of a SCSI command opcode (shared with the binary
/// [`crate::vscsi`] reader); `None` for commands that are not requests.
pub(crate) fn scsi_opcode(code: u8) -> Option<TraceOp> {
    match code {
        0x08 | 0x28 | 0xa8 | 0x88 => Some(TraceOp::Read),
        0x0a | 0x2a | 0xaa | 0x8a => Some(TraceOp::Write),
        0x35 | 0x91 => Some(TraceOp::Flush),
        0x42 => Some(TraceOp::Trim),
        _ => None,
    }
}

impl LineParser for LibcachesimParser {
    fn from_options(_opts: &ReaderOptions) -> Result<Self, TraceError> {
        Ok(LibcachesimParser)
    }

    fn parse(
        &mut self,
        line: &str,
        first: bool,
        rec: &mut TraceRecord,
    ) -> Result<Parsed, LineError> {
        if first && looks_like_header(line) {
            return Ok(classify_header(line, "version,time,op,size,lbn"));
        }
        let mut f = [""; 5];
        let n = split_sep(line, ',', &mut f);
        check_count(n, 5, 5)?;
        parse_u64(1, "version", f[0])?;
        rec.time_ns = parse_time_ns(2, "time", f[1], 1_000_000_000)?;
        rec.op = scsi_op(f[2]).ok_or_else(|| LineError::UnknownOpcode {
            field: 3,
            name: "op",
            value: shorten(f[2]),
            expected: "a SCSI read/write/sync/unmap opcode in hex: 28, 2a, 88, 8a, ...",
        })?;
        let size = check_length(4, "size", f[3], parse_u64(4, "size", f[3])?)?;
        let lbn = parse_u64(5, "lbn", f[4])?;
        let offset = sectors_to_bytes(5, "lbn", f[4], lbn)?;
        check_end(5, "lbn", f[4], offset, size)?;
        if rec.op == TraceOp::Flush {
            // A cache flush has no extent.
            rec.offset_bytes = 0;
            rec.length_bytes = 0;
        } else {
            rec.offset_bytes = offset;
            rec.length_bytes = size;
        }
        Ok(Parsed::Record)
    }
}
