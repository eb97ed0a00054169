//! SPC traces (UMass Trace Repository: Financial, WebSearch), CSV:
//!
//! `ASU,LBA,Size,Opcode,Timestamp[,extra...]`
//!
//! * `ASU`: application storage unit number → device;
//! * `LBA`: 512-byte sectors; `Size`: bytes;
//! * `Opcode`: `r`/`R` read, `w`/`W` write;
//! * `Timestamp`: seconds (decimal) since the start of the trace.
//!
//! Extra trailing fields are ignored. A first line starting with a letter
//! is taken as a header and skipped.

use crate::error::{LineError, TraceError};
use crate::reader::ReaderOptions;
use crate::record::TraceRecord;
use crate::text::{
    check_count, check_end, check_length, looks_like_header, parse_time_ns, parse_u32, parse_u64,
    read_or_write, sectors_to_bytes, split_sep, LineParser, Parsed,
};

pub(crate) struct SpcParser;

impl LineParser for SpcParser {
    fn from_options(_opts: &ReaderOptions) -> Result<Self, TraceError> {
        Ok(SpcParser)
    }

    fn parse(
        &mut self,
        line: &str,
        first: bool,
        rec: &mut TraceRecord,
    ) -> Result<Parsed, LineError> {
        if first && looks_like_header(line) {
            return Ok(Parsed::Header);
        }
        let mut f = [""; 5];
        let n = split_sep(line, ',', &mut f);
        check_count(n, 5, usize::MAX)?;
        rec.device = Some(parse_u32(1, "ASU", f[0])?);
        let lba = parse_u64(2, "LBA", f[1])?;
        rec.offset_bytes = sectors_to_bytes(2, "LBA", f[1], lba)?;
        rec.length_bytes = check_length(3, "Size", f[2], parse_u64(3, "Size", f[2])?)?;
        check_end(2, "LBA", f[1], rec.offset_bytes, rec.length_bytes)?;
        rec.op = read_or_write(4, "Opcode", f[3], "r or w")?;
        rec.time_ns = parse_time_ns(5, "Timestamp", f[4], 1_000_000_000)?;
        Ok(Parsed::Record)
    }
}
