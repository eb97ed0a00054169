//! fio iolog, versions 2 and 3.
//!
//! The first line is `fio version 2 iolog` or `fio version 3 iolog`. Then:
//!
//! * v2: `filename action` (file actions `add`, `open`, `close`: no record)
//!   or `filename action offset length` (offset and length in bytes);
//! * v3: the same, each line prefixed by a timestamp relative to the start
//!   of the run. fio writes it in **microseconds** (`utime_since_now` in
//!   fio's `log_io_u`); `ReaderOptions::time_unit` overrides that.
//!
//! Actions: `read`, `write`, `trim` → records; `sync`, `datasync`,
//! `sync_file_range` → [`TraceOp::Flush`]; `wait` (v2 only) advances time by
//! `offset` microseconds (fio: "relative to the previous wait"), so v2
//! records are timed by the sum of the waits before them. v3 `wait` lines are
//! ignored, as fio does.
//!
//! Device: [`crate::device_id`] of the file name (a hash for paths like
//! `/dev/nvme0n1`).

use crate::error::{shorten, LineError, TraceError};
use crate::reader::{ReaderOptions, TimeUnit};
use crate::record::{device_id, TraceOp, TraceRecord};
use crate::text::{
    check_end, check_length, parse_time_ns, parse_u64, split_ws, LineParser, Parsed,
};

pub(crate) struct FioParser {
    version: u8,
    ns_per_unit: u64,
    /// v2: time accumulated from `wait` actions, in ns.
    wait_ns: u64,
}

const FILE_ACTIONS: &str = "add, open, close";
const IO_ACTIONS: &str = "read, write, trim, sync, datasync, wait";

impl LineParser for FioParser {
    fn from_options(opts: &ReaderOptions) -> Result<Self, TraceError> {
        // fio writes v3 timestamps in microseconds (see the module doc).
        let unit = opts.time_unit.unwrap_or(TimeUnit::Micros);
        Ok(FioParser {
            version: 0,
            ns_per_unit: unit.ns_per_unit(),
            wait_ns: 0,
        })
    }

    fn parse(
        &mut self,
        line: &str,
        first: bool,
        rec: &mut TraceRecord,
    ) -> Result<Parsed, LineError> {
        if first {
            let squashed: Vec<&str> = line.split_ascii_whitespace().collect();
            self.version = match squashed.as_slice() {
                ["fio", "version", "2", "iolog"] => 2,
                ["fio", "version", "3", "iolog"] => 3,
                _ => {
                    return Err(LineError::Other(
                        "missing fio iolog header: the first line must be \
                         `fio version 2 iolog` or `fio version 3 iolog`"
                            .into(),
                    ))
                }
            };
            return Ok(Parsed::KnownHeader);
        }
        let mut f = [""; 5];
        let n = split_ws(line, &mut f);
        // Field index shift: v3 lines start with the timestamp.
        let (time_ns, base) = if self.version == 3 {
            if n < 3 {
                return Err(LineError::Truncated {
                    expected: 3,
                    found: n,
                });
            }
            (
                Some(parse_time_ns(1, "timestamp", f[0], self.ns_per_unit)?),
                1,
            )
        } else {
            (None, 0)
        };
        let args = n.saturating_sub(base);
        let (file, action) = match (f.get(base), f.get(base + 1)) {
            (Some(file), Some(action)) if args >= 2 => (*file, *action),
            _ => {
                return Err(LineError::Truncated {
                    expected: base + 2,
                    found: n,
                })
            }
        };
        if args > 4 {
            return Err(LineError::TooManyFields {
                expected: base + 4,
                found: n,
            });
        }
        let op = match action {
            "add" | "open" | "close" | "unlink" => {
                if args != 2 {
                    return Err(LineError::TooManyFields {
                        expected: base + 2,
                        found: n,
                    });
                }
                return Ok(Parsed::Skip);
            }
            "read" => TraceOp::Read,
            "write" => TraceOp::Write,
            "trim" => TraceOp::Trim,
            "sync" | "datasync" | "sync_file_range" => TraceOp::Flush,
            "wait" => TraceOp::Flush, // handled below
            other => {
                return Err(LineError::UnknownOpcode {
                    field: base + 2,
                    name: "action",
                    value: shorten(other),
                    expected: if args == 2 { FILE_ACTIONS } else { IO_ACTIONS },
                })
            }
        };
        let (offset, length) = if args == 4 {
            let os = f[base + 2];
            let ls = f[base + 3];
            let offset = parse_u64(base + 3, "offset", os)?;
            let length = parse_u64(base + 4, "length", ls)?;
            (Some((offset, os)), Some((length, ls)))
        } else if op == TraceOp::Flush && action != "wait" && args == 2 {
            (None, None)
        } else {
            return Err(LineError::Truncated {
                expected: base + 4,
                found: n,
            });
        };
        if action == "wait" {
            if self.version == 2 {
                let us = offset.map_or(0, |(v, _)| v);
                self.wait_ns = self.wait_ns.saturating_add(us.saturating_mul(1_000));
            }
            return Ok(Parsed::Skip);
        }
        rec.time_ns = time_ns.unwrap_or(self.wait_ns);
        rec.op = op;
        rec.device = Some(device_id(file));
        if op == TraceOp::Flush {
            return Ok(Parsed::Record);
        }
        if let (Some((offset, os)), Some((length, ls))) = (offset, length) {
            rec.offset_bytes = offset;
            rec.length_bytes = check_length(base + 4, "length", ls, length)?;
            check_end(base + 3, "offset", os, offset, length)?;
        }
        Ok(Parsed::Record)
    }
}
