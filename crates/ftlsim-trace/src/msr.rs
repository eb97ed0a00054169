//! MSR Cambridge block traces (SNIA IOTTA), CSV without header:
//!
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`
//!
//! * `Timestamp`: Windows FILETIME, 100 ns ticks since 1601-01-01 → `time_ns = ticks × 100`;
//! * `Type`: `Read` or `Write` (case-insensitive);
//! * `Offset`, `Size`: bytes;
//! * `ResponseTime`: 100 ns ticks, ignored;
//! * device: [`crate::msr_device_id`] of `Hostname` and `DiskNumber`, i.e.
//!   [`crate::device_id`]`("hm_0")` for host `hm`, disk `0`.
//!
//! A first line starting with a letter is taken as a column header and skipped.

use crate::error::{LineError, TraceError};
use crate::reader::ReaderOptions;
use crate::record::{msr_device_id, TraceOp, TraceRecord};
use crate::text::{
    check_count, check_end, check_length, classify_header, looks_like_header, parse_u64, split_sep,
    LineParser, Parsed,
};

/// The header some MSR re-distributions add.
const KNOWN_HEADER: &str = "timestamp,hostname,disknumber,type,offset,size,responsetime";

pub(crate) struct MsrParser;

impl LineParser for MsrParser {
    fn from_options(_opts: &ReaderOptions) -> Result<Self, TraceError> {
        Ok(MsrParser)
    }

    fn parse(
        &mut self,
        line: &str,
        first: bool,
        rec: &mut TraceRecord,
    ) -> Result<Parsed, LineError> {
        if first && looks_like_header(line) {
            return Ok(classify_header(line, KNOWN_HEADER));
        }
        let mut f = [""; 7];
        let n = split_sep(line, ',', &mut f);
        check_count(n, 7, 7)?;
        let ticks = parse_u64(1, "Timestamp", f[0])?;
        rec.time_ns = ticks.checked_mul(100).ok_or(LineError::Absurd {
            field: 1,
            name: "Timestamp",
            value: f[0].to_string(),
            why: "is too large a FILETIME (overflows 64-bit nanoseconds)",
        })?;
        if f[2].is_empty() {
            return Err(LineError::NotANumber {
                field: 3,
                name: "DiskNumber",
                value: String::new(),
            });
        }
        rec.device = Some(msr_device_id(f[1], f[2]));
        rec.op = if f[3].eq_ignore_ascii_case("read") {
            TraceOp::Read
        } else if f[3].eq_ignore_ascii_case("write") {
            TraceOp::Write
        } else {
            return Err(LineError::UnknownOpcode {
                field: 4,
                name: "Type",
                value: crate::error::shorten(f[3]),
                expected: "Read or Write",
            });
        };
        rec.offset_bytes = parse_u64(5, "Offset", f[4])?;
        rec.length_bytes = check_length(6, "Size", f[5], parse_u64(6, "Size", f[5])?)?;
        check_end(5, "Offset", f[4], rec.offset_bytes, rec.length_bytes)?;
        Ok(Parsed::Record)
    }
}
