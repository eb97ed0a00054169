//! Tencent CBS block traces (SNIA IOTTA, 2018), CSV without header:
//!
//! `Timestamp,Offset,Size,IOType,VolumeID`
//!
//! * `Timestamp`: seconds (Unix epoch, decimal accepted);
//! * `Offset`, `Size`: 512-byte sectors;
//! * `IOType`: `0` read, `1` write;
//! * `VolumeID`: number → device.
//!
//! A first line starting with a letter is taken as a header and skipped.

use crate::error::{shorten, LineError, TraceError};
use crate::reader::ReaderOptions;
use crate::record::{TraceOp, TraceRecord};
use crate::text::{
    check_count, check_end, check_length, classify_header, looks_like_header, parse_time_ns,
    parse_u32, parse_u64, sectors_to_bytes, split_sep, LineParser, Parsed,
};

pub(crate) struct TencentParser;

impl LineParser for TencentParser {
    fn from_options(_opts: &ReaderOptions) -> Result<Self, TraceError> {
        Ok(TencentParser)
    }

    fn parse(
        &mut self,
        line: &str,
        first: bool,
        rec: &mut TraceRecord,
    ) -> Result<Parsed, LineError> {
        if first && looks_like_header(line) {
            return Ok(classify_header(
                line,
                "timestamp,offset,size,iotype,volumeid",
            ));
        }
        let mut f = [""; 5];
        let n = split_sep(line, ',', &mut f);
        check_count(n, 5, 5)?;
        rec.time_ns = parse_time_ns(1, "Timestamp", f[0], 1_000_000_000)?;
        let offset = parse_u64(2, "Offset", f[1])?;
        rec.offset_bytes = sectors_to_bytes(2, "Offset", f[1], offset)?;
        let size = parse_u64(3, "Size", f[2])?;
        rec.length_bytes = check_length(3, "Size", f[2], sectors_to_bytes(3, "Size", f[2], size)?)?;
        check_end(2, "Offset", f[1], rec.offset_bytes, rec.length_bytes)?;
        rec.op = match f[3] {
            "0" => TraceOp::Read,
            "1" => TraceOp::Write,
            other => {
                return Err(LineError::UnknownOpcode {
                    field: 4,
                    name: "IOType",
                    value: shorten(other),
                    expected: "0 (read) or 1 (write)",
                })
            }
        };
        rec.device = Some(parse_u32(5, "VolumeID", f[4])?);
        Ok(Parsed::Record)
    }
}
