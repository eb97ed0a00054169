//! Alibaba block traces (Alibaba Cloud EBS, 2020), CSV without header:
//!
//! `device_id,opcode,offset,length,timestamp`
//!
//! * `device_id`: number → device;
//! * `opcode`: `R` read, `W` write (case-insensitive);
//! * `offset`, `length`: bytes;
//! * `timestamp`: microseconds (Unix epoch).
//!
//! A first line starting with a letter is taken as a header and skipped.

use crate::error::{LineError, TraceError};
use crate::reader::ReaderOptions;
use crate::record::TraceRecord;
use crate::text::{
    check_count, check_end, check_length, classify_header, looks_like_header, parse_time_ns,
    parse_u32, parse_u64, read_or_write, split_sep, LineParser, Parsed,
};

pub(crate) struct AlibabaParser;

impl LineParser for AlibabaParser {
    fn from_options(_opts: &ReaderOptions) -> Result<Self, TraceError> {
        Ok(AlibabaParser)
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
                "device_id,opcode,offset,length,timestamp",
            ));
        }
        let mut f = [""; 5];
        let n = split_sep(line, ',', &mut f);
        check_count(n, 5, 5)?;
        rec.device = Some(parse_u32(1, "device_id", f[0])?);
        rec.op = read_or_write(2, "opcode", f[1], "R or W")?;
        rec.offset_bytes = parse_u64(3, "offset", f[2])?;
        rec.length_bytes = check_length(4, "length", f[3], parse_u64(4, "length", f[3])?)?;
        check_end(3, "offset", f[2], rec.offset_bytes, rec.length_bytes)?;
        rec.time_ns = parse_time_ns(5, "timestamp", f[4], 1_000)?;
        Ok(Parsed::Record)
    }
}
