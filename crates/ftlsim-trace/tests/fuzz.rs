//! Property tests: no reader panics on arbitrary bytes or arbitrary text
//! lines, and the native format round-trips arbitrary records.

use std::io::Cursor;

use ftlsim_trace::{
    open_stream, Format, NativeWriter, PageOptions, PageRequest, PageStream, ReaderOptions,
    StatsCollector, TraceOp, TraceRecord,
};
use proptest::prelude::*;

/// Reads everything `data` yields as `format` (or detected), through the
/// record API, the page API and the stats, with and without skipping bad
/// lines. Only checks that nothing panics and that reading terminates.
fn exercise(data: &[u8]) {
    let formats = std::iter::once(None).chain(Format::ALL.iter().copied().map(Some));
    for format in formats {
        for skip in [false, true] {
            let o = ReaderOptions {
                format,
                skip_bad_lines: skip,
                ..ReaderOptions::default()
            };
            let Ok(mut reader) = open_stream(Box::new(Cursor::new(data.to_vec())), "fuzz", &o)
            else {
                continue;
            };
            let mut rec = TraceRecord::default();
            let mut stats = StatsCollector::new(4096);
            for _ in 0..100_000 {
                match reader.next_record(&mut rec) {
                    // Stats are O(pages): keep fuzzed 1 TiB requests out.
                    Ok(true) if rec.length_bytes <= 64 << 20 => stats.add(&rec),
                    Ok(true) => {}
                    Ok(false) | Err(_) => break,
                }
            }
            let _ = stats.finish().render_text();
            // Pages, compact with a small device.
            let Ok(reader) = open_stream(Box::new(Cursor::new(data.to_vec())), "fuzz", &o) else {
                continue;
            };
            let popts = PageOptions {
                compact: true,
                logical_pages: Some(1 << 16),
                page_bytes: 8192,
                ..PageOptions::default()
            };
            let mut pages = PageStream::from_reader(reader, &popts).unwrap();
            let mut req = PageRequest::default();
            for _ in 0..100_000 {
                match pages.next_request(&mut req) {
                    Ok(true) => {}
                    Ok(false) | Err(_) => break,
                }
            }
        }
    }
}

const TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "8",
    "16",
    "-1",
    "-0.5",
    "0.000001",
    "1e308",
    "nan",
    "inf",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "1099511627776",
    "4294967296",
    "R",
    "W",
    "r",
    "w",
    "Read",
    "Write",
    "read",
    "write",
    "trim",
    "sync",
    "wait",
    "add",
    "open",
    "close",
    "2a",
    "28",
    "0x8a",
    "35",
    "42",
    "+",
    "8,0",
    "8,16",
    "D",
    "Q",
    "C",
    "A",
    "FWS",
    "WFS",
    "FN",
    "N",
    "RA",
    "DS",
    "[proc]",
    "(00",
    "..)",
    "hm",
    "/dev/sda",
    "kjournald",
    "fio",
    "version",
    "iolog",
    "3",
    "CPU0",
    "Total",
    "(8,0):",
    "b5e9f4e5ab62a4fff5313a606b0ad4e3",
    "b5e9f4e5ab62a4fff5313a606b0ad4e3b5e9f4e5ab62a4fff5313a606b0ad4e3",
    "zz",
    "",
    "#",
    "é",
    "\t",
];

fn line() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(prop::sample::select(TOKENS), 0..12),
        prop::sample::select(&[",", " ", "  ", ", "][..]),
    )
        .prop_map(|(tokens, sep)| tokens.join(sep))
}

fn header() -> impl Strategy<Value = String> {
    prop::sample::select(
        &[
            "",
            "fio version 2 iolog\n",
            "fio version 3 iolog\n",
            "version,time,op,size,lbn\n",
            "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
            "FTLSIMTR",
            "FTLSIMTR\x01\x00\x00\x00\x00\x00\x00\x00",
        ][..],
    )
    .prop_map(str::to_string)
}

fn record() -> impl Strategy<Value = TraceRecord> {
    (
        any::<u64>(),
        0..TraceOp::ALL.len(),
        any::<u64>(),
        0u64..=(1 << 40),
        any::<u64>(),
        any::<Option<u32>>(),
        any::<Option<u16>>(),
        any::<Option<u64>>(),
        prop::collection::vec(any::<u128>(), 0..5),
    )
        .prop_map(
            |(time_ns, op, offset, length, src, device, stream, context, fingerprints)| {
                let op = TraceOp::ALL[op];
                TraceRecord {
                    time_ns,
                    op,
                    offset_bytes: offset.min(u64::MAX - length),
                    length_bytes: length,
                    // Only remaps and clones have a source.
                    src_offset_bytes: if op.has_source() {
                        src.min(u64::MAX - length)
                    } else {
                        0
                    },
                    device,
                    stream,
                    context,
                    fingerprints,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..2048)) {
        exercise(&data);
    }

    #[test]
    fn arbitrary_lines_never_panic(head in header(), lines in prop::collection::vec(line(), 0..24)) {
        let text = format!("{head}{}", lines.join("\n"));
        exercise(text.as_bytes());
    }

    #[test]
    fn compressed_arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..512), zstd_codec: bool) {
        let packed = if zstd_codec {
            zstd::encode_all(&data[..], 1).unwrap()
        } else {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&data).unwrap();
            e.finish().unwrap()
        };
        exercise(&packed);
        // And a damaged copy.
        let mut damaged = packed.clone();
        let n = damaged.len();
        if n > 12 {
            damaged[n / 2] ^= 0x55;
            damaged.truncate(n - 3);
        }
        exercise(&damaged);
    }

    #[test]
    fn native_round_trips(recs in prop::collection::vec(record(), 1..40)) {
        let mut w = NativeWriter::new(Vec::new()).unwrap();
        for r in &recs {
            w.write(r).unwrap();
        }
        let bytes = w.finish().unwrap();
        let o = ReaderOptions::default();
        let mut reader = open_stream(Box::new(Cursor::new(bytes.clone())), "rt", &o).unwrap();
        let mut got = Vec::new();
        let mut rec = TraceRecord::default();
        while reader.next_record(&mut rec).unwrap() {
            got.push(rec.clone());
        }
        prop_assert_eq!(got, recs);
        // Any truncation is an error, never a shorter trace.
        for cut in [bytes.len() - 1, bytes.len() / 2, 17] {
            if cut < bytes.len() {
                let mut reader = open_stream(
                    Box::new(Cursor::new(bytes[..cut].to_vec())),
                    "cut",
                    &ReaderOptions { format: Some(Format::Native), ..o.clone() },
                ).unwrap();
                let mut result = Ok(true);
                while let Ok(true) = result {
                    result = reader.next_record(&mut rec);
                }
                prop_assert!(result.is_err());
            }
        }
    }
}
