//! One volume of a multi-volume Alibaba or Tencent trace (hand-made
//! snippets in tests/data/), and Tencent's whole-second timestamps spread
//! over their second as SepBIT spreads them.

use std::path::PathBuf;

use ftlsim_trace::{Format, PageOptions, PageRequest, PageStream, ReaderOptions, TraceOp};

use crate::common::read_all;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn volume(format: Format, device: u32, spread: bool) -> ReaderOptions {
    ReaderOptions {
        format: Some(format),
        device: Some(device),
        spread_seconds: spread,
        ..ReaderOptions::default()
    }
}

/// Tencent volume 7: its records only, sectors in bytes; with spreading, the
/// three of second 1538326800 at 0, 1/3 and 2/3 of it, the lone ones of
/// the next seconds at their start.
#[test]
fn tencent_volume_with_spread_seconds() {
    let path = data("tencent-two-volumes.csv");
    let plain = read_all(&path, &volume(Format::Tencent, 7, false)).unwrap();
    let spread = read_all(&path, &volume(Format::Tencent, 7, true)).unwrap();
    let base = 1_538_326_800u64 * 1_000_000_000;
    let offsets: Vec<(TraceOp, u64, u64)> = plain
        .iter()
        .map(|r| (r.op, r.offset_bytes, r.length_bytes))
        .collect();
    assert_eq!(
        offsets,
        vec![
            (TraceOp::Write, 0, 4096),
            (TraceOp::Read, 8192, 4096),
            (TraceOp::Write, 12288, 8192),
            (TraceOp::Write, 16384, 4096),
            (TraceOp::Write, 0, 4096),
        ]
    );
    assert!(plain.iter().all(|r| r.device == Some(7)));
    let plain_times: Vec<u64> = plain.iter().map(|r| r.time_ns - base).collect();
    assert_eq!(plain_times, vec![0, 0, 0, 1_000_000_000, 2_000_000_000]);
    let times: Vec<u64> = spread.iter().map(|r| r.time_ns - base).collect();
    assert_eq!(
        times,
        vec![0, 333_333_333, 666_666_666, 1_000_000_000, 2_000_000_000]
    );
    // Spreading moves times only.
    for (a, b) in plain.iter().zip(&spread) {
        assert_eq!(
            (a.op, a.offset_bytes, a.length_bytes),
            (b.op, b.offset_bytes, b.length_bytes)
        );
    }
}

/// Volume 9 holds one record per second: nothing to spread.
#[test]
fn tencent_lone_records_keep_their_second() {
    let path = data("tencent-two-volumes.csv");
    let spread = read_all(&path, &volume(Format::Tencent, 9, true)).unwrap();
    let secs: Vec<u64> = spread.iter().map(|r| r.time_ns).collect();
    assert_eq!(
        secs,
        vec![1_538_326_800_000_000_000, 1_538_326_801_000_000_000]
    );
}

/// Alibaba volume 5 replayed alone: its page requests, nothing of volume 3.
#[test]
fn alibaba_volume_as_page_requests() {
    let path = data("alibaba-two-volumes.csv");
    let mut s = PageStream::open(
        &path,
        &volume(Format::Alibaba, 5, false),
        &PageOptions::default(),
    )
    .unwrap();
    let mut req = PageRequest::default();
    let mut got = Vec::new();
    while s.next_request(&mut req).unwrap() {
        got.push((req.op, req.lpn, req.pages, req.time_ns));
    }
    // Times are rebased to the volume's first request.
    assert_eq!(
        got,
        vec![(TraceOp::Write, 0, 2, 0), (TraceOp::Write, 1, 1, 3_000)]
    );
    let three = read_all(&path, &volume(Format::Alibaba, 3, false)).unwrap();
    assert_eq!(three.len(), 3);
}
