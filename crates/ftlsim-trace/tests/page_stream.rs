//! Page requests from traces: device filter, compact mapping, capacity, repeat.

use crate::common;

use common::{opts, TempDir};
use ftlsim_trace::{
    device_id, open, PageOptions, PageRequest, PageStream, ReaderOptions, TraceError, TraceOp,
    TraceStats,
};

fn collect(stream: &mut PageStream) -> Result<Vec<PageRequest>, TraceError> {
    let mut out = Vec::new();
    let mut req = PageRequest::default();
    while stream.next_request(&mut req)? {
        out.push(req.clone());
    }
    Ok(out)
}

const TRACE: &str = "\
1000,hm,0,Write,2199023255552,8192,1
2000,hm,0,Read,2199023255553,4096,1
3000,hm,1,Write,0,4096,1
4000,hm,0,Write,4096,0,1
5000,hm,0,Write,2199023251456,12288,1
";

#[test]
fn pages_compact_filter_repeat() {
    let dir = TempDir::new("pages");
    let p = dir.write("hm.csv", TRACE.as_bytes());

    // Plain: byte offsets at 2 TiB map to page numbers at 2 TiB / 4 KiB.
    let mut s = PageStream::open(&p, &opts(None), &PageOptions::default()).unwrap();
    let reqs = collect(&mut s).unwrap();
    let base = 2_199_023_255_552 / 4096;
    let got: Vec<(u64, TraceOp, u64, u32)> = reqs
        .iter()
        .map(|r| (r.time_ns, r.op, r.lpn, r.pages))
        .collect();
    assert_eq!(
        got,
        [
            (0, TraceOp::Write, base, 2),
            // Unaligned: 1 byte past a page boundary, 4096 bytes → 2 pages.
            // MSR times are 100 ns ticks.
            (100_000, TraceOp::Read, base, 2),
            (200_000, TraceOp::Write, 0, 1),
            (400_000, TraceOp::Write, base - 1, 3),
        ]
    );
    assert_eq!(s.zero_length_skipped(), 1);

    // Device filter + compact: first-touch order numbering.
    let ropts = ReaderOptions {
        device: Some(device_id("hm_0")),
        ..ReaderOptions::default()
    };
    let popts = PageOptions {
        compact: true,
        logical_pages: Some(16),
        ..PageOptions::default()
    };
    let mut s = PageStream::open(&p, &ropts, &popts).unwrap();
    let reqs = collect(&mut s).unwrap();
    let got: Vec<(u64, u32)> = reqs.iter().map(|r| (r.lpn, r.pages)).collect();
    // base → 0, base+1 → 1; the last request touches base-1 (new: 2), base, base+1.
    assert_eq!(got, [(0, 2), (0, 2), (2, 1), (0, 2)]);
    assert_eq!(s.compact_pages(), 3);
    assert!(reqs.iter().all(|r| r.device == Some(device_id("hm_0"))));

    // Repeat 3: numbering is kept, time keeps going.
    let popts = PageOptions {
        compact: true,
        repeat: 3,
        ..PageOptions::default()
    };
    let mut s = PageStream::open(&p, &ropts, &popts).unwrap();
    let reqs = collect(&mut s).unwrap();
    assert_eq!(reqs.len(), 12);
    assert_eq!(s.passes_done(), 3);
    assert_eq!(s.compact_pages(), 3);
    let times: Vec<u64> = reqs.iter().map(|r| r.time_ns).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // Pass 1 starts after pass 0's span (400 us) plus its mean gap: 4 hm_0
    // records (one of length 0), so 400/3 us.
    assert_eq!(times[4], 533_333);
    assert_eq!(times[8], 1_066_666);
    // from_reader refuses repeat.
    let reader = open(&p, &opts(None)).unwrap();
    assert!(PageStream::from_reader(reader, &popts).is_err());
}

#[test]
fn capacity_error_names_file_and_line() {
    let dir = TempDir::new("cap");
    let p = dir.write("hm.csv", TRACE.as_bytes());
    let popts = PageOptions {
        logical_pages: Some(1 << 20),
        ..PageOptions::default()
    };
    let mut s = PageStream::open(&p, &opts(None), &popts).unwrap();
    let err = collect(&mut s).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}:1: ", p.display())), "{err}");
    assert!(err.contains("compact"), "{err}");
    // With compaction the 3 distinct pages of hm_0 plus page 0 of hm_1 fit
    // in 4 (the last request splits in two: its first page is new)...
    let popts = PageOptions {
        logical_pages: Some(4),
        compact: true,
        ..PageOptions::default()
    };
    let mut s = PageStream::open(&p, &opts(None), &popts).unwrap();
    let got: Vec<(u64, u32)> = collect(&mut s)
        .unwrap()
        .iter()
        .map(|r| (r.lpn, r.pages))
        .collect();
    assert_eq!(got, [(0, 2), (0, 2), (2, 1), (3, 1), (0, 2)]);
    // ...but not in 3.
    let popts = PageOptions {
        logical_pages: Some(3),
        compact: true,
        ..PageOptions::default()
    };
    let mut s = PageStream::open(&p, &opts(None), &popts).unwrap();
    let err = collect(&mut s).unwrap_err().to_string();
    assert!(
        err.contains("hm.csv:5: ") && err.contains("distinct pages"),
        "{err}"
    );
}

#[test]
fn skipped_lines_are_reported_over_passes() {
    let dir = TempDir::new("skipp");
    let p = dir.write(
        "s.csv",
        b"1,hm,0,Write,0,4096,1\nbad line\n2,hm,0,Write,0,4096,1\n",
    );
    let ropts = ReaderOptions {
        skip_bad_lines: true,
        format: Some(ftlsim_trace::Format::Msr),
        ..ReaderOptions::default()
    };
    let popts = PageOptions {
        repeat: 2,
        ..PageOptions::default()
    };
    let mut s = PageStream::open(&p, &ropts, &popts).unwrap();
    assert_eq!(collect(&mut s).unwrap().len(), 4);
    assert_eq!(s.skipped_bad_lines(), 2);
}

#[test]
fn stats_json_keys() {
    let dir = TempDir::new("stats");
    let p = dir.write("hm.csv", TRACE.as_bytes());
    let mut reader = open(&p, &opts(None)).unwrap();
    let stats = TraceStats::from_reader(reader.as_mut(), 4096).unwrap();
    assert_eq!((stats.requests, stats.reads, stats.writes), (5, 1, 4));
    assert_eq!(stats.write_bytes, 8192 + 4096 + 12288);
    assert_eq!(stats.zero_length_requests, 1);
    assert_eq!(stats.footprint_pages, 4);
    assert_eq!(stats.devices, 2);
    assert_eq!(stats.duration_ns, 400_000);
    let json = serde_json::to_string(&stats).unwrap();
    for key in [
        "\"requests\":5",
        "\"reads\":1",
        "\"writes\":4",
        "\"trims\":0",
        "\"read_bytes\":4096",
        "\"write_bytes\":24576",
        "\"footprint_pages\":4",
        "\"duplicate_write_ratio\":null",
    ] {
        assert!(json.contains(key), "{key} missing in {json}");
    }
}
