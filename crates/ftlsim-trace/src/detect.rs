//! Format auto-detection from the first lines of a (decompressed) file.
//!
//! Formats are tried in [`Format::ALL`] order, walking the format table
//! (`formats.rs`), binary formats first. A binary format recognises its own
//! first bytes (the native format its magic, vscsi the version byte of its
//! first records, see [`crate::vscsi`]). For text, every text format's own
//! parser reads the first non-blank, non-comment lines (up to
//! [`SAMPLE_LINES`]); a format is a candidate when it accepts all of them and
//! recognises at least one as its own. One candidate wins; among several, the
//! only one whose exact column header was seen wins; otherwise detection is
//! ambiguous and the error lists the candidates.

use crate::error::shorten;
use crate::formats::Reading;
use crate::reader::{Format, ReaderOptions};
use crate::text::{looks_like_header, Score, UTF8_BOM};

/// Lines looked at.
pub const SAMPLE_LINES: usize = 64;

/// Why detection failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DetectFailure {
    /// Only blank and comment lines: an empty trace.
    NoData,
    /// No format, or several, match; in words.
    Failed(String),
}

/// Detects the format of a file from its first bytes (after decompression).
/// `at_eof` tells whether `prefix` is the whole file (so its last line is
/// complete even without a newline).
pub(crate) fn detect_format(
    prefix: &[u8],
    at_eof: bool,
    opts: &ReaderOptions,
) -> Result<Format, DetectFailure> {
    // Binary formats first, on the raw bytes: the text checks below stop at
    // the first control character, which binary data is full of.
    for format in Format::ALL {
        if let Reading::Binary { sniff, .. } = format.spec().reading {
            if sniff(prefix) {
                return Ok(format);
            }
        }
    }
    // A UTF-8 byte order mark (Windows tools write one) is not part of line 1.
    let prefix = prefix.strip_prefix(UTF8_BOM).unwrap_or(prefix);
    // Only complete lines, unless the whole file is here.
    let text = if at_eof {
        prefix
    } else {
        match prefix.iter().rposition(|&b| b == b'\n') {
            Some(i) => &prefix[..i],
            None => prefix,
        }
    };
    let mut lines: Vec<(u64, &str)> = Vec::new();
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        if lines.len() >= SAMPLE_LINES {
            break;
        }
        let line = match std::str::from_utf8(raw) {
            Ok(l) => l.trim(),
            Err(_) => {
                return Err(DetectFailure::Failed(format!(
                    "cannot detect the trace format: line {} is not UTF-8 text, and the file \
                     is not a native ftlsim trace (binary garbage, or an unknown compression?)",
                    i + 1
                )))
            }
        };
        if line.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
            return Err(DetectFailure::Failed(format!(
                "cannot detect the trace format: line {} holds control characters (binary data?)",
                i + 1
            )));
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        lines.push((i as u64 + 1, line));
    }
    if lines.is_empty() {
        return Err(DetectFailure::NoData);
    }

    let mut candidates: Vec<(Format, Score)> = Vec::new();
    let mut rejected: Vec<(Format, Score)> = Vec::new();
    for format in Format::ALL {
        let Reading::Text { score, .. } = format.spec().reading else {
            continue;
        };
        let Some(s) = score(&lines, opts) else {
            continue;
        };
        if s.error.is_none() && s.matched >= 1 && s.matched > s.foreign {
            candidates.push((format, s));
        } else {
            rejected.push((format, s));
        }
    }
    if candidates.len() == 1 {
        return Ok(candidates[0].0);
    }
    let names = |v: &[(Format, Score)]| {
        v.iter()
            .map(|(f, _)| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if candidates.len() > 1 {
        let with_header: Vec<Format> = candidates
            .iter()
            .filter(|(_, s)| s.known_header)
            .map(|(f, _)| *f)
            .collect();
        if with_header.len() == 1 {
            return Ok(with_header[0]);
        }
        return Err(DetectFailure::Failed(format!(
            "ambiguous trace format: the first {} lines are valid as {}; choose one with {}",
            lines.len(),
            names(&candidates),
            opts.format_option
        )));
    }
    // No candidate: show the closest one's complaint.
    let closest = rejected
        .iter()
        .filter(|(_, s)| s.error.is_some())
        .max_by_key(|(_, s)| s.matched);
    let first_line = lines.first().map(|(_, l)| shorten(l)).unwrap_or_default();
    let hint = match closest {
        Some((
            f,
            Score {
                error: Some((line, msg)),
                matched,
                ..
            },
        )) if *matched > 0 => format!("; closest is {f}, which fails at line {line}: {msg}"),
        _ => String::new(),
    };
    let first_no = lines.first().map_or(1, |(n, _)| *n);
    if lines.first().is_some_and(|(_, l)| looks_like_header(l)) {
        // The usual cause: a CSV export with its own column names. Say so,
        // rather than quote each parser's complaint about a word.
        return Err(DetectFailure::Failed(format!(
            "cannot detect the trace format: tried {}; line {first_no} looks like a column \
             header (`{first_line}`) that no format knows, and no format accepts the lines \
             after it{hint}; choose one with {}",
            names(&rejected),
            opts.format_option
        )));
    }
    Err(DetectFailure::Failed(format!(
        "cannot detect the trace format: no format ({}) accepts the first lines (line {}: `{}`){}; \
         choose one with {}",
        names(&rejected),
        first_no,
        first_line,
        hint,
        opts.format_option
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(s: &str) -> Result<Format, DetectFailure> {
        detect_format(s.as_bytes(), true, &ReaderOptions::default())
    }

    #[test]
    fn detects_each_text_format() {
        let cases = [
            (
                "128166372003061629,hm,1,Read,383496192,32768,3186\n",
                Format::Msr,
            ),
            (
                "89966527996712 4253 nfsd 680 8 W 6 0 b5e9f4e5ab62a4fff5313a606b0ad4e3\n",
                Format::Fiu,
            ),
            (
                "  8,33  30  1  0.001368096  5025  D   R 540544 + 8 [systemd-udevd]\n",
                Format::Blkparse,
            ),
            (
                "938513000 4 264719034 16 0\n938828000 3 197570570 16 1\n",
                Format::Disksim,
            ),
            (
                "0,303567,3584,w,0.000000\n1,55590,3072,r,0.016\n",
                Format::Spc,
            ),
            ("419,W,8792838144,4096,1577808000000010\n", Format::Alibaba),
            (
                "1538323200,1012240,16,1,1283\n1538323201,1012250,8,0,1283\n",
                Format::Tencent,
            ),
            ("fio version 2 iolog\n/dev/sda add\n", Format::Fio),
            (
                "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n",
                Format::Libcachesim,
            ),
        ];
        for (text, want) in cases {
            assert_eq!(detect(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn native_magic() {
        assert_eq!(detect("FTLSIMTR\x01\x00"), Ok(Format::Native));
    }

    #[test]
    fn failures() {
        assert_eq!(detect(""), Err(DetectFailure::NoData));
        assert_eq!(
            detect("\n  \n# just a comment\n"),
            Err(DetectFailure::NoData)
        );
        let Err(DetectFailure::Failed(msg)) = detect("hello world\n") else {
            panic!("expected failure")
        };
        assert!(msg.contains("cannot detect"), "{msg}");
        assert!(msg.contains("msr"), "{msg}");
        // Ambiguous: libCacheSim (op 0x28) or Tencent (IOType 1) without header.
        let Err(DetectFailure::Failed(msg)) = detect("5,1,28,1,2\n") else {
            panic!("expected ambiguity")
        };
        assert!(msg.contains("ambiguous"), "{msg}");
        assert!(
            msg.contains("tencent") && msg.contains("libcachesim"),
            "{msg}"
        );
        let Err(DetectFailure::Failed(msg)) =
            detect_format(&[0xff, 0xfe, 0x00, 0x01], true, &ReaderOptions::default())
        else {
            panic!("expected binary failure")
        };
        assert!(msg.contains("UTF-8"), "{msg}");
    }
}
