//! blkparse default text output:
//!
//! `maj,min cpu seq time pid action rwbs [sector + n] [process]`
//!
//! * `time`: seconds (decimal); `sector`, `n`: 512-byte sectors;
//! * only events whose `action` is the chosen one (default `D`, issued to the
//!   driver; `Q` or `C` are common alternatives) become records;
//! * `rwbs`: the first of `R`/`W`/`D`/`N` gives the data direction: `R` read,
//!   `W` write, `D` discard → [`TraceOp::Trim`], `N` no data. An `F` before it
//!   is a preflush: a [`TraceOp::Flush`] record *before* the data record; an
//!   `F` after it is FUA: a flush record *after* it. `F` alone (or `FN`) is a
//!   pure flush. Events with `N` and no `F` (packet commands like
//!   `D N 0 (00 ..)`) and zero-sector data events are not records;
//! * device: `maj,min` → [`crate::mkdev`]; context: FNV-1a 64 of the
//!   `[process]` name when present;
//! * lines that are not events (per-CPU and total summaries, `Throughput`,
//!   `Events`, `Skips`, ...) are ignored; lines that start like an event
//!   (`maj,min` first) but are malformed are errors.

use crate::error::{shorten, LineError, TraceError};
use crate::reader::ReaderOptions;
use crate::record::{device_id, fnv1a64, TraceOp, TraceRecord};
use crate::text::{
    check_end, check_length, parse_time_ns, parse_u64, sectors_to_bytes, split_ws, LineParser,
    Parsed,
};

/// A flush queued behind the record just returned (FUA).
#[derive(Clone, Copy)]
struct PendingFlush {
    time_ns: u64,
    device: Option<u32>,
    context: Option<u64>,
}

pub(crate) struct BlkparseParser {
    action: String,
    /// Records still to return for the last line, in order.
    pending: [Option<PendingData>; 2],
}

/// A record queued by a line that produces more than one.
#[derive(Clone, Copy)]
enum PendingData {
    Flush(PendingFlush),
    Data {
        base: PendingFlush,
        op: TraceOp,
        offset_bytes: u64,
        length_bytes: u64,
    },
}

/// `maj,min` with both sides decimal.
fn is_dev_token(s: &str) -> bool {
    match s.split_once(',') {
        Some((a, b)) => {
            !a.is_empty()
                && !b.is_empty()
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
        }
        None => false,
    }
}

impl LineParser for BlkparseParser {
    fn from_options(opts: &ReaderOptions) -> Result<Self, TraceError> {
        let action = opts.blkparse_action;
        if !action.is_ascii_alphabetic() {
            return Err(TraceError::Option(format!(
                "blkparse action `{action}` is not a letter (expected e.g. D, Q or C)"
            )));
        }
        Ok(BlkparseParser {
            action: action.to_string(),
            pending: [None, None],
        })
    }

    fn parse(
        &mut self,
        line: &str,
        _first: bool,
        rec: &mut TraceRecord,
    ) -> Result<Parsed, LineError> {
        let mut f = [""; 12];
        let n = split_ws(line, &mut f);
        if n == 0 || !is_dev_token(f[0]) {
            return Ok(Parsed::Foreign);
        }
        if n < 7 {
            return Err(LineError::Truncated {
                expected: 7,
                found: n,
            });
        }
        parse_u64(2, "cpu", f[1])?;
        parse_u64(3, "sequence", f[2])?;
        let time_ns = parse_time_ns(4, "time", f[3], 1_000_000_000)?;
        parse_u64(5, "pid", f[4])?;
        let action = f[5];
        if action.is_empty() || !action.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(LineError::Other(format!(
                "field 6 (action): `{}` is not a blktrace action",
                shorten(action)
            )));
        }
        let rwbs = f[6];
        if rwbs.is_empty() || !rwbs.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(LineError::Other(format!(
                "field 7 (rwbs): `{}` is not an RWBS string",
                shorten(rwbs)
            )));
        }
        if action != self.action {
            return Ok(Parsed::Skip);
        }

        // Data direction and flush flags.
        let bytes = rwbs.as_bytes();
        let data_pos = bytes
            .iter()
            .position(|b| matches!(b, b'R' | b'W' | b'D' | b'N'));
        let (data, preflush, fua) = match data_pos {
            Some(p) => (
                Some(bytes[p]),
                bytes[..p].contains(&b'F'),
                bytes[p + 1..].contains(&b'F'),
            ),
            None => (None, bytes.contains(&b'F'), false),
        };
        let op = match data {
            Some(b'R') => Some(TraceOp::Read),
            Some(b'W') => Some(TraceOp::Write),
            Some(b'D') => Some(TraceOp::Trim),
            _ => None,
        };

        // Optional `sector + n`.
        let mut extent = None;
        if n >= 10 && f[8] == "+" {
            let sector = parse_u64(8, "sector", f[7])?;
            let count = parse_u64(10, "sectors", f[9])?;
            let offset = sectors_to_bytes(8, "sector", f[7], sector)?;
            let length = check_length(
                10,
                "sectors",
                f[9],
                sectors_to_bytes(10, "sectors", f[9], count)?,
            )?;
            check_end(8, "sector", f[7], offset, length)?;
            extent = Some((offset, length));
        }

        // Process name: the last token when it is `[name]`.
        let last = if n <= f.len() { f[n - 1] } else { "" };
        let context = last
            .strip_prefix('[')
            .and_then(|s| s.strip_suffix(']'))
            .map(|name| fnv1a64(name.as_bytes()));
        let base = PendingFlush {
            time_ns,
            device: Some(device_id(f[0])),
            context,
        };

        let data_record = match (op, extent) {
            (Some(op), Some((offset_bytes, length_bytes))) if length_bytes > 0 => {
                Some(PendingData::Data {
                    base,
                    op,
                    offset_bytes,
                    length_bytes,
                })
            }
            _ => None,
        };
        // Order: preflush, data, FUA flush. A line without data but with any
        // F is one flush; without data and without F it is not a request.
        let mut queue: [Option<PendingData>; 3] = [None, None, None];
        let mut q = 0;
        match data_record {
            None => {
                if bytes.contains(&b'F') {
                    queue[q] = Some(PendingData::Flush(base));
                    q += 1;
                }
            }
            Some(d) => {
                if preflush {
                    queue[q] = Some(PendingData::Flush(base));
                    q += 1;
                }
                queue[q] = Some(d);
                q += 1;
                if fua {
                    queue[q] = Some(PendingData::Flush(base));
                    q += 1;
                }
            }
        }
        if q == 0 {
            return Ok(Parsed::Skip);
        }
        let [first, second, third] = queue;
        self.pending = [second, third];
        match first {
            Some(p) => {
                fill(rec, p);
                Ok(Parsed::Record)
            }
            None => Ok(Parsed::Skip),
        }
    }

    fn take_pending(&mut self, rec: &mut TraceRecord) -> bool {
        let next = self.pending[0].take();
        self.pending[0] = self.pending[1].take();
        match next {
            Some(p) => {
                rec.reset();
                fill(rec, p);
                true
            }
            None => false,
        }
    }
}

fn fill(rec: &mut TraceRecord, p: PendingData) {
    match p {
        PendingData::Flush(base) => {
            rec.time_ns = base.time_ns;
            rec.op = TraceOp::Flush;
            rec.offset_bytes = 0;
            rec.length_bytes = 0;
            rec.device = base.device;
            rec.context = base.context;
        }
        PendingData::Data {
            base,
            op,
            offset_bytes,
            length_bytes,
        } => {
            rec.time_ns = base.time_ns;
            rec.op = op;
            rec.offset_bytes = offset_bytes;
            rec.length_bytes = length_bytes;
            rec.device = base.device;
            rec.context = base.context;
        }
    }
}
