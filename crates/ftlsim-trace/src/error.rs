//! Errors. Every error that comes from a file names it; errors on a text
//! line are displayed as `FILE:LINE: what is wrong`.

use std::fmt;

/// What is wrong with one line (or one binary record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineError {
    /// Fewer fields than the format needs.
    Truncated {
        /// Fields the format needs.
        expected: usize,
        /// Fields found.
        found: usize,
    },
    /// More fields than the format allows.
    TooManyFields {
        /// Fields the format allows.
        expected: usize,
        /// Fields found.
        found: usize,
    },
    /// A field that must be a number is not one.
    NotANumber {
        /// 1-based field index.
        field: usize,
        /// Field name as the format documents it.
        name: &'static str,
        /// The text found (shortened).
        value: String,
    },
    /// A field that must be non-negative is negative.
    Negative {
        /// 1-based field index.
        field: usize,
        /// Field name.
        name: &'static str,
        /// The text found.
        value: String,
    },
    /// A size or address beyond what any real request has.
    Absurd {
        /// 1-based field index.
        field: usize,
        /// Field name.
        name: &'static str,
        /// The text found.
        value: String,
        /// Why it is absurd.
        why: &'static str,
    },
    /// An operation code the format does not define.
    UnknownOpcode {
        /// 1-based field index.
        field: usize,
        /// Field name.
        name: &'static str,
        /// The text found.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// The line is not valid UTF-8 (binary garbage in a text trace).
    InvalidUtf8,
    /// Anything else, in words.
    Other(String),
}

/// Shortens a field for an error message (at most 40 characters).
pub(crate) fn shorten(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(MAX).collect();
        out.push('…');
        out
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::Truncated { expected, found } => write!(
                f,
                "truncated line: expected {expected} fields, found {found}"
            ),
            LineError::TooManyFields { expected, found } => write!(
                f,
                "wrong field count: expected {expected} fields, found {found}"
            ),
            LineError::NotANumber { field, name, value } => {
                write!(f, "field {field} ({name}): `{value}` is not a number")
            }
            LineError::Negative { field, name, value } => {
                write!(f, "field {field} ({name}): `{value}` is negative")
            }
            LineError::Absurd {
                field,
                name,
                value,
                why,
            } => write!(f, "field {field} ({name}): `{value}` {why}"),
            LineError::UnknownOpcode {
                field,
                name,
                value,
                expected,
            } => write!(
                f,
                "field {field} ({name}): unknown opcode `{value}` (expected {expected})"
            ),
            LineError::InvalidUtf8 => f.write_str("invalid UTF-8: binary garbage in a text trace?"),
            LineError::Other(msg) => f.write_str(msg),
        }
    }
}

/// Every error this crate returns.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// File name as given.
        file: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A bad text line: `FILE:LINE: what`.
    #[error("{file}:{line}: {error}")]
    Line {
        /// File name as given.
        file: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        error: LineError,
    },
    /// A bad record in a native (binary) trace.
    #[error("{file}: record {record} (byte {byte}): {what}")]
    Binary {
        /// File name as given.
        file: String,
        /// 1-based index of the record being decoded.
        record: u64,
        /// Byte offset (in the decompressed stream) where the record starts.
        byte: u64,
        /// What is wrong.
        what: String,
    },
    /// The gzip or zstd stream is corrupt or truncated.
    #[error("{file}:{line}: {codec} stream is corrupt or truncated: {source}")]
    Decompress {
        /// File name as given.
        file: String,
        /// Line (text) or record (native) being read when it failed.
        line: u64,
        /// `gzip` or `zstd`.
        codec: &'static str,
        /// The decoder's error.
        #[source]
        source: std::io::Error,
    },
    /// The file holds no record (or none of the selected device).
    #[error("{file}: no records (empty file, or only headers, comments and skipped lines{}{})",
        if *skipped > 0 { format!("; {skipped} bad lines skipped") } else { String::new() },
        if *filtered_out > 0 {
            format!("; {filtered_out} records of other devices filtered out")
        } else {
            String::new()
        })]
    Empty {
        /// File name as given.
        file: String,
        /// Bad lines skipped (with `skip_bad_lines`).
        skipped: u64,
        /// Records dropped by the device filter.
        filtered_out: u64,
    },
    /// The format could not be detected, or detection was ambiguous.
    #[error("{file}: {reason}")]
    Detect {
        /// File name as given.
        file: String,
        /// Why, with the candidates.
        reason: String,
    },
    /// The trace does not fit the simulated device.
    #[error("{file}:{line}: {what}")]
    Capacity {
        /// File name as given.
        file: String,
        /// Line (or record) of the offending request.
        line: u64,
        /// Explanation.
        what: String,
    },
    /// The trace holds an operation the command cannot handle (a remap
    /// in a lifespan annotation).
    #[error("{file}: {what}")]
    Unsupported {
        /// File name as given.
        file: String,
        /// What, and why.
        what: String,
    },
    /// An option has an invalid value (bad format name, page size 0, ...).
    #[error("invalid option: {0}")]
    Option(String),
}

impl TraceError {
    /// The file the error is about, when there is one.
    pub fn file(&self) -> Option<&str> {
        match self {
            TraceError::Io { file, .. }
            | TraceError::Line { file, .. }
            | TraceError::Binary { file, .. }
            | TraceError::Decompress { file, .. }
            | TraceError::Empty { file, .. }
            | TraceError::Detect { file, .. }
            | TraceError::Capacity { file, .. }
            | TraceError::Unsupported { file, .. } => Some(file),
            TraceError::Option(_) => None,
        }
    }

    /// True for errors confined to one line or record, which
    /// `skip_bad_lines` skips. I/O and decompression errors are never skipped.
    pub fn is_line_error(&self) -> bool {
        matches!(self, TraceError::Line { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_and_line() {
        let e = TraceError::Line {
            file: "trace.csv".into(),
            line: 17,
            error: LineError::NotANumber {
                field: 5,
                name: "Size",
                value: "abc".into(),
            },
        };
        assert_eq!(
            e.to_string(),
            "trace.csv:17: field 5 (Size): `abc` is not a number"
        );
        let e = TraceError::Empty {
            file: "x".into(),
            skipped: 3,
            filtered_out: 2,
        };
        assert!(e.to_string().contains("3 bad lines skipped"), "{e}");
        assert!(e.to_string().contains("2 records of other devices"), "{e}");
    }

    #[test]
    fn shorten_long_values() {
        let long = "x".repeat(100);
        assert!(shorten(&long).chars().count() <= 41);
        assert_eq!(shorten("abc"), "abc");
    }
}
