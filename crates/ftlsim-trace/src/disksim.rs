//! DiskSim / MQSim ASCII traces, whitespace separated:
//!
//! `time device lba_sector size_sectors type`
//!
//! * `time`: decimal, in the unit given by `ReaderOptions::time_unit`
//!   (default milliseconds, DiskSim's unit; MQSim traces such as
//!   `tpcc-small.trace` are in nanoseconds: use `ns`);
//! * `device`: number; `lba_sector`, `size_sectors`: 512-byte sectors;
//! * `type`: integer flags, bit 0 set = read, clear = write (other bits ignored).
//!
//! A first line starting with a letter is taken as a header and skipped.

use crate::error::{LineError, TraceError};
use crate::reader::{ReaderOptions, TimeUnit};
use crate::record::{TraceOp, TraceRecord};
use crate::text::{
    check_count, check_end, check_length, looks_like_header, parse_time_ns, parse_u32, parse_u64,
    sectors_to_bytes, split_ws, LineParser, Parsed,
};

pub(crate) struct DisksimParser {
    ns_per_unit: u64,
}

impl LineParser for DisksimParser {
    fn from_options(opts: &ReaderOptions) -> Result<Self, TraceError> {
        // DiskSim traces are in milliseconds; MQSim's need `ns`.
        let unit = opts.time_unit.unwrap_or(TimeUnit::Millis);
        Ok(DisksimParser {
            ns_per_unit: unit.ns_per_unit(),
        })
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
        let n = split_ws(line, &mut f);
        check_count(n, 5, 5)?;
        rec.time_ns = parse_time_ns(1, "time", f[0], self.ns_per_unit)?;
        rec.device = Some(parse_u32(2, "device", f[1])?);
        let lba = parse_u64(3, "lba_sector", f[2])?;
        rec.offset_bytes = sectors_to_bytes(3, "lba_sector", f[2], lba)?;
        let sectors = parse_u64(4, "size_sectors", f[3])?;
        rec.length_bytes = check_length(
            4,
            "size_sectors",
            f[3],
            sectors_to_bytes(4, "size_sectors", f[3], sectors)?,
        )?;
        check_end(3, "lba_sector", f[2], rec.offset_bytes, rec.length_bytes)?;
        let flags = parse_u64(5, "type", f[4])?;
        rec.op = if flags & 1 == 1 {
            TraceOp::Read
        } else {
            TraceOp::Write
        };
        Ok(Parsed::Record)
    }
}
