//! Shared machinery of the line-oriented formats: a streaming, constant-memory
//! line reader (one reused buffer, bounded line length), the generic
//! [`TextReader`] that turns a [`LineParser`] into a [`TraceReader`], the two
//! functions a text format's entry in the format table points to ([`open`]
//! and [`score`], detection's trial of a parser), and the field parsing
//! helpers that produce the uniform error messages.

use std::io::BufRead;

use crate::error::{shorten, LineError, TraceError};
use crate::reader::{Format, ReaderOptions, Stream, TraceReader};
use crate::record::{TraceOp, TraceRecord, MAX_REQUEST_BYTES, SECTOR_BYTES};

/// Longest accepted line: 4 MiB (an FIU line with per-sector MD5s for a
/// 64 MiB request). Longer lines are reported as errors, not buffered.
pub(crate) const MAX_LINE_BYTES: usize = 4 << 20;

/// The UTF-8 byte order mark some tools (Excel, PowerShell) put at the
/// start of a text file; skipped before line 1 is parsed.
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What a parser made of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parsed {
    /// The record was filled.
    Record,
    /// A valid line of this format that carries no request (fio `open`,
    /// blkparse event with another action, ...).
    Skip,
    /// A column header line of unknown spelling (first line only).
    Header,
    /// The exact header this format is known to use (strong evidence when
    /// detecting the format).
    KnownHeader,
    /// A line that is not of this format but that the format tolerates
    /// (blkparse per-CPU summary blocks).
    Foreign,
}

/// One line format. `parse` sees a trimmed, non-blank, non-comment line.
pub(crate) trait LineParser: Send {
    /// A parser for a new file, set up from the reader options it heeds
    /// (time unit, blkparse action); fails on options it cannot use.
    fn from_options(opts: &ReaderOptions) -> Result<Self, TraceError>
    where
        Self: Sized;
    /// Parses one line into `rec` (already reset). `first` is true for the
    /// first non-blank, non-comment line of the file.
    fn parse(
        &mut self,
        line: &str,
        first: bool,
        rec: &mut TraceRecord,
    ) -> Result<Parsed, LineError>;
    /// Records a line produced in addition to the one it returned (blkparse
    /// preflush/FUA flushes). Called before each new line is read.
    fn take_pending(&mut self, _rec: &mut TraceRecord) -> bool {
        false
    }
}

/// Outcome of reading one raw line.
enum RawLine {
    Eof,
    Line,
    TooLong,
}

/// A reader of any [`LineParser`] format.
pub(crate) struct TextReader<P: LineParser> {
    input: Box<dyn BufRead + Send>,
    buf: Vec<u8>,
    format: Format,
    file: String,
    codec: Option<&'static str>,
    parser: P,
    device: Option<u32>,
    skip_bad_lines: bool,
    line_no: u64,
    record_line: u64,
    seen_data_line: bool,
    records: u64,
    filtered_out: u64,
    skipped: u64,
    first_skipped: Option<TraceError>,
    done: bool,
}

/// Opens a text format's reader: the table's `open` for a text format, one
/// instance per parser type so that [`LineParser::parse`] is called
/// statically on every line (only the choice of reader, once per file, goes
/// through a function pointer).
pub(crate) fn open<P: LineParser + 'static>(
    stream: Stream,
    opts: &ReaderOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let parser = P::from_options(opts)?;
    Ok(Box::new(TextReader::new(stream, parser, opts)))
}

impl<P: LineParser> TextReader<P> {
    fn new(stream: Stream, parser: P, opts: &ReaderOptions) -> Self {
        TextReader {
            input: stream.input,
            buf: Vec::with_capacity(256),
            format: stream.format,
            file: stream.file,
            codec: stream.codec,
            parser,
            device: opts.device,
            skip_bad_lines: opts.skip_bad_lines,
            line_no: 0,
            record_line: 0,
            seen_data_line: false,
            records: 0,
            filtered_out: 0,
            skipped: 0,
            first_skipped: None,
            done: false,
        }
    }

    fn io_error(&self, source: std::io::Error) -> TraceError {
        match self.codec {
            Some(codec) => TraceError::Decompress {
                file: self.file.clone(),
                line: self.line_no + 1,
                codec,
                source,
            },
            None => TraceError::Io {
                file: self.file.clone(),
                source,
            },
        }
    }

    /// Reads one line into `self.buf` without its line ending, never storing
    /// more than [`MAX_LINE_BYTES`].
    fn read_raw_line(&mut self) -> Result<RawLine, TraceError> {
        self.buf.clear();
        let mut any = false;
        let mut too_long = false;
        loop {
            let available = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.io_error(e)),
            };
            if available.is_empty() {
                break;
            }
            any = true;
            let (chunk, used, found_newline) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], i + 1, true),
                None => (available, available.len(), false),
            };
            if !too_long {
                if self.buf.len() + chunk.len() > MAX_LINE_BYTES {
                    too_long = true;
                    self.buf.clear();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            self.input.consume(used);
            if found_newline {
                break;
            }
        }
        if !any {
            return Ok(RawLine::Eof);
        }
        if too_long {
            return Ok(RawLine::TooLong);
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        Ok(RawLine::Line)
    }

    /// Handles a bad line: error, or count and continue.
    fn bad_line(&mut self, error: LineError) -> Result<(), TraceError> {
        let err = TraceError::Line {
            file: self.file.clone(),
            line: self.line_no,
            error,
        };
        if self.skip_bad_lines {
            self.skipped += 1;
            if self.first_skipped.is_none() {
                self.first_skipped = Some(err);
            }
            Ok(())
        } else {
            Err(err)
        }
    }

    fn wanted(&self, rec: &TraceRecord) -> bool {
        match self.device {
            None => true,
            Some(d) => rec.device == Some(d),
        }
    }
}

impl<P: LineParser> TraceReader for TextReader<P> {
    fn next_record(&mut self, rec: &mut TraceRecord) -> Result<bool, TraceError> {
        loop {
            if self.parser.take_pending(rec) {
                if self.wanted(rec) {
                    self.records += 1;
                    return Ok(true);
                }
                self.filtered_out += 1;
                continue;
            }
            if self.done {
                return if self.records == 0 {
                    Err(TraceError::Empty {
                        file: self.file.clone(),
                        skipped: self.skipped,
                        filtered_out: self.filtered_out,
                    })
                } else {
                    Ok(false)
                };
            }
            match self.read_raw_line()? {
                RawLine::Eof => {
                    self.done = true;
                    continue;
                }
                RawLine::TooLong => {
                    self.line_no += 1;
                    self.bad_line(LineError::Other(format!(
                        "line longer than {} MiB",
                        MAX_LINE_BYTES >> 20
                    )))?;
                    continue;
                }
                RawLine::Line => self.line_no += 1,
            }
            if self.line_no == 1 && self.buf.starts_with(UTF8_BOM) {
                self.buf.drain(..UTF8_BOM.len());
            }
            let parsed = match std::str::from_utf8(&self.buf) {
                Err(_) => Err(LineError::InvalidUtf8),
                Ok(line) => {
                    let line = line.trim();
                    if line.is_empty() || line.starts_with('#') {
                        continue;
                    }
                    let first = !self.seen_data_line;
                    self.seen_data_line = true;
                    rec.reset();
                    self.parser.parse(line, first, rec)
                }
            };
            match parsed {
                Ok(Parsed::Record) => {
                    if self.wanted(rec) {
                        self.record_line = self.line_no;
                        self.records += 1;
                        return Ok(true);
                    }
                    self.filtered_out += 1;
                }
                Ok(_) => {}
                Err(e) => self.bad_line(e)?,
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
        self.record_line
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

/// How a text format's parser fares on the sample lines detection looks at.
#[derive(Default)]
pub(crate) struct Score {
    /// Lines it read as its own (records and lines it skips on purpose).
    pub(crate) matched: usize,
    /// Lines it tolerates as not its own ([`Parsed::Foreign`]).
    pub(crate) foreign: usize,
    /// It saw its own exact column header.
    pub(crate) known_header: bool,
    /// First rejection: (line number, message).
    pub(crate) error: Option<(u64, String)>,
}

/// Scores the sample `lines` (line number, trimmed text; no blank or
/// comment line) with a fresh `P`: the table's `score` for a text format.
/// `None` when `P` cannot be set up with `opts` (a blkparse action that is
/// not a letter): the format is then not a candidate at all.
pub(crate) fn score<P: LineParser>(lines: &[(u64, &str)], opts: &ReaderOptions) -> Option<Score> {
    let mut parser = P::from_options(opts).ok()?;
    let mut s = Score::default();
    let mut rec = TraceRecord::default();
    for (i, (line_no, line)) in lines.iter().enumerate() {
        rec.reset();
        match parser.parse(line, i == 0, &mut rec) {
            Ok(Parsed::Record) | Ok(Parsed::Skip) => s.matched += 1,
            Ok(Parsed::KnownHeader) => s.known_header = true,
            Ok(Parsed::Header) => {}
            Ok(Parsed::Foreign) => s.foreign += 1,
            Err(e) => {
                s.error = Some((*line_no, e.to_string()));
                return Some(s);
            }
        }
        while parser.take_pending(&mut rec) {}
    }
    Some(s)
}

// ---------------------------------------------------------------------------
// Field helpers. Field numbers in messages are 1-based.

/// Splits `line` on `sep` into `out`, trimming each field; returns the total
/// number of fields (which may exceed `N`; extra fields are not stored).
pub(crate) fn split_sep<'a, const N: usize>(
    line: &'a str,
    sep: char,
    out: &mut [&'a str; N],
) -> usize {
    let mut n = 0;
    for field in line.split(sep) {
        if let Some(slot) = out.get_mut(n) {
            *slot = field.trim();
        }
        n += 1;
    }
    n
}

/// Splits `line` on ASCII whitespace into `out`; returns the total count.
pub(crate) fn split_ws<'a, const N: usize>(line: &'a str, out: &mut [&'a str; N]) -> usize {
    let mut n = 0;
    for field in line.split_ascii_whitespace() {
        if let Some(slot) = out.get_mut(n) {
            *slot = field;
        }
        n += 1;
    }
    n
}

/// A one-letter read/write opcode, either case (`R`/`r`, `W`/`w`).
/// `expected` is how the format spells it in the error message.
pub(crate) fn read_or_write(
    field: usize,
    name: &'static str,
    value: &str,
    expected: &'static str,
) -> Result<TraceOp, LineError> {
    match value {
        "R" | "r" => Ok(TraceOp::Read),
        "W" | "w" => Ok(TraceOp::Write),
        other => Err(LineError::UnknownOpcode {
            field,
            name,
            value: shorten(other),
            expected,
        }),
    }
}

/// Checks the field count: at least `min`, at most `max`.
pub(crate) fn check_count(found: usize, min: usize, max: usize) -> Result<(), LineError> {
    if found < min {
        Err(LineError::Truncated {
            expected: min,
            found,
        })
    } else if found > max {
        Err(LineError::TooManyFields {
            expected: max,
            found,
        })
    } else {
        Ok(())
    }
}

fn number_error(field: usize, name: &'static str, s: &str) -> LineError {
    let value = shorten(s);
    if let Some(rest) = s.strip_prefix('-') {
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return LineError::Negative { field, name, value };
        }
    }
    LineError::NotANumber { field, name, value }
}

/// Parses a non-negative decimal integer.
pub(crate) fn parse_u64(field: usize, name: &'static str, s: &str) -> Result<u64, LineError> {
    let bytes = s.as_bytes();
    if !bytes.is_empty() && bytes.len() <= 19 {
        let mut v: u64 = 0;
        let mut ok = true;
        for &b in bytes {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                ok = false;
                break;
            }
            v = v * 10 + u64::from(d);
        }
        if ok {
            return Ok(v);
        }
    } else if bytes.len() > 19 && bytes.iter().all(|b| b.is_ascii_digit()) {
        return s.parse::<u64>().map_err(|_| LineError::Absurd {
            field,
            name,
            value: shorten(s),
            why: "does not fit in 64 bits",
        });
    }
    Err(number_error(field, name, s))
}

/// Parses a non-negative decimal integer that must fit in u32.
pub(crate) fn parse_u32(field: usize, name: &'static str, s: &str) -> Result<u32, LineError> {
    let v = parse_u64(field, name, s)?;
    u32::try_from(v).map_err(|_| LineError::Absurd {
        field,
        name,
        value: shorten(s),
        why: "does not fit in 32 bits",
    })
}

/// Parses a non-negative decimal time (`123`, `0.000031865`, `1.5e-3`) given
/// in a unit of `ns_per_unit` nanoseconds, into nanoseconds. Plain decimals
/// are converted exactly (truncating below 1 ns); exponent notation goes
/// through f64.
pub(crate) fn parse_time_ns(
    field: usize,
    name: &'static str,
    s: &str,
    ns_per_unit: u64,
) -> Result<u64, LineError> {
    let too_big = || LineError::Absurd {
        field,
        name,
        value: shorten(s),
        why: "is too large a time (overflows 64-bit nanoseconds)",
    };
    let (int_part, frac_part) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    let plain = !(int_part.is_empty() && frac_part.is_empty())
        && int_part.bytes().all(|b| b.is_ascii_digit())
        && frac_part.bytes().all(|b| b.is_ascii_digit());
    if plain {
        let int_ns = if int_part.is_empty() {
            0
        } else {
            parse_u64(field, name, int_part)?
                .checked_mul(ns_per_unit)
                .ok_or_else(too_big)?
        };
        // Only the first 19 fractional digits can matter for any unit ≤ 1 s.
        let frac = frac_part.get(..frac_part.len().min(19)).unwrap_or("");
        let mut frac_ns: u128 = 0;
        if !frac.is_empty() {
            let mut num: u128 = 0;
            let mut den: u128 = 1;
            for b in frac.bytes() {
                num = num * 10 + u128::from(b - b'0');
                den *= 10;
            }
            frac_ns = num * u128::from(ns_per_unit) / den;
        }
        let frac_ns = u64::try_from(frac_ns).map_err(|_| too_big())?;
        return int_ns.checked_add(frac_ns).ok_or_else(too_big);
    }
    // Exponent notation or garbage.
    if s.starts_with('-') {
        return Err(LineError::Negative {
            field,
            name,
            value: shorten(s),
        });
    }
    let looks_numeric = s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    let v: f64 = match s.parse() {
        Ok(v) if looks_numeric => v,
        _ => return Err(number_error(field, name, s)),
    };
    if !v.is_finite() {
        return Err(number_error(field, name, s));
    }
    let ns = v * ns_per_unit as f64;
    if ns < 0.0 {
        return Err(LineError::Negative {
            field,
            name,
            value: shorten(s),
        });
    }
    if ns >= u64::MAX as f64 {
        return Err(too_big());
    }
    Ok(ns.round() as u64)
}

/// Checks a request length in bytes against [`MAX_REQUEST_BYTES`].
pub(crate) fn check_length(
    field: usize,
    name: &'static str,
    s: &str,
    bytes: u64,
) -> Result<u64, LineError> {
    if bytes > MAX_REQUEST_BYTES {
        Err(LineError::Absurd {
            field,
            name,
            value: shorten(s),
            why: "is an absurd request size (more than 1 TiB)",
        })
    } else {
        Ok(bytes)
    }
}

/// Converts a sector count or sector address to bytes, checking overflow.
pub(crate) fn sectors_to_bytes(
    field: usize,
    name: &'static str,
    s: &str,
    sectors: u64,
) -> Result<u64, LineError> {
    sectors
        .checked_mul(SECTOR_BYTES)
        .ok_or_else(|| LineError::Absurd {
            field,
            name,
            value: shorten(s),
            why: "overflows a 64-bit byte address",
        })
}

/// Checks that `offset + length` fits in 64 bits.
pub(crate) fn check_end(
    field: usize,
    name: &'static str,
    s: &str,
    offset: u64,
    length: u64,
) -> Result<(), LineError> {
    if offset.checked_add(length).is_none() {
        Err(LineError::Absurd {
            field,
            name,
            value: shorten(s),
            why: "puts the request end beyond 2^64 bytes",
        })
    } else {
        Ok(())
    }
}

/// True for a first line that is a column header rather than data: it
/// starts with an ASCII letter (every data line of the CSV-like formats
/// starts with a number).
/// A first line that looks like a header: the format's own header (spaces
/// ignored, any case), or some other header line.
pub(crate) fn classify_header(line: &str, known: &str) -> Parsed {
    let squashed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    if squashed.eq_ignore_ascii_case(known) {
        Parsed::KnownHeader
    } else {
        Parsed::Header
    }
}

pub(crate) fn looks_like_header(line: &str) -> bool {
    line.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
}

/// Decodes a hex string of exactly 32 digits (one MD5) into a u128.
pub(crate) fn hex128(s: &[u8]) -> Option<u128> {
    if s.len() != 32 {
        return None;
    }
    let mut v: u128 = 0;
    for &b in s {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return None,
        };
        v = (v << 4) | u128::from(d);
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_u64(1, "x", "0"), Ok(0));
        assert_eq!(parse_u64(1, "x", "18446744073709551615"), Ok(u64::MAX));
        assert!(matches!(
            parse_u64(1, "x", "18446744073709551616"),
            Err(LineError::Absurd { .. })
        ));
        assert!(matches!(
            parse_u64(2, "x", "-5"),
            Err(LineError::Negative { field: 2, .. })
        ));
        assert!(matches!(
            parse_u64(2, "x", "abc"),
            Err(LineError::NotANumber { .. })
        ));
        assert!(matches!(
            parse_u64(2, "x", ""),
            Err(LineError::NotANumber { .. })
        ));
        assert!(matches!(
            parse_u64(2, "x", "+5"),
            Err(LineError::NotANumber { .. })
        ));
    }

    #[test]
    fn times() {
        assert_eq!(
            parse_time_ns(1, "t", "0.000031865", 1_000_000_000),
            Ok(31_865)
        );
        assert_eq!(
            parse_time_ns(1, "t", "9.378427223", 1_000_000_000),
            Ok(9_378_427_223)
        );
        assert_eq!(
            parse_time_ns(1, "t", "143066.750", 1_000_000),
            Ok(143_066_750_000)
        );
        assert_eq!(parse_time_ns(1, "t", "12", 1000), Ok(12_000));
        assert_eq!(parse_time_ns(1, "t", ".5", 1000), Ok(500));
        assert_eq!(parse_time_ns(1, "t", "5.", 1000), Ok(5000));
        assert_eq!(
            parse_time_ns(1, "t", "1.5e-3", 1_000_000_000),
            Ok(1_500_000)
        );
        assert!(matches!(
            parse_time_ns(1, "t", "-1.5", 1),
            Err(LineError::Negative { .. })
        ));
        assert!(matches!(
            parse_time_ns(1, "t", "nan", 1),
            Err(LineError::NotANumber { .. })
        ));
        assert!(matches!(
            parse_time_ns(1, "t", "inf", 1),
            Err(LineError::NotANumber { .. })
        ));
        assert!(matches!(
            parse_time_ns(1, "t", ".", 1),
            Err(LineError::NotANumber { .. })
        ));
        assert!(matches!(
            parse_time_ns(1, "t", "99999999999999999999", 1_000_000_000),
            Err(LineError::Absurd { .. })
        ));
        assert!(matches!(
            parse_time_ns(1, "t", "1e300", 1),
            Err(LineError::Absurd { .. })
        ));
    }

    #[test]
    fn splitting() {
        let mut f = [""; 3];
        assert_eq!(split_sep(" a , b,c,d", ',', &mut f), 4);
        assert_eq!(f, ["a", "b", "c"]);
        let mut f = [""; 2];
        assert_eq!(split_ws("  x \t y  ", &mut f), 2);
        assert_eq!(f, ["x", "y"]);
    }

    #[test]
    fn hex() {
        assert_eq!(hex128(b"000000000000000000000000000000ff"), Some(255));
        assert_eq!(hex128(b"0000000000000000000000000000+0ff"), None);
        assert_eq!(hex128(b"ff"), None);
    }
}
