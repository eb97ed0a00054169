//! Reads the real sample traces in ../shared/traces (skipped when absent).

use crate::common;

use common::{opts, read_all, real_trace};
use ftlsim_trace::{
    detect_file, open, Format, ReaderOptions, TimeUnit, TraceOp, TraceRecord, TraceStats,
};

fn count_ops(recs: &[TraceRecord]) -> [usize; 4] {
    let mut c = [0; 4];
    for r in recs {
        c[r.op.code() as usize] += 1;
    }
    c
}

#[test]
fn disksim_mqsim_traces() {
    for (name, requests, unit) in [
        ("tpcc-small.trace", 6_999, TimeUnit::Nanos),
        ("wsrch-small.trace", 24_783, TimeUnit::Nanos),
        ("MSN-FS-30s-ms", 149_999, TimeUnit::Millis),
    ] {
        let Some(p) = real_trace(name) else { continue };
        assert_eq!(detect_file(&p).unwrap(), Format::Disksim, "{name}");
        let o = ReaderOptions {
            time_unit: Some(unit),
            ..ReaderOptions::default()
        };
        let recs = read_all(&p, &o).unwrap();
        assert_eq!(recs.len(), requests, "{name}");
        eprintln!("{name}: ops {:?}", count_ops(&recs));
    }
}

#[test]
fn disksim_times_and_fields() {
    let Some(p) = real_trace("MSN-FS-30s-ms") else {
        return;
    };
    let o = ReaderOptions {
        time_unit: Some(TimeUnit::Millis),
        ..ReaderOptions::default()
    };
    let recs = read_all(&p, &o).unwrap();
    // First line: 0.000 5 174224064 16 1; last: 143068.077 5 175985024 16 1.
    assert_eq!(recs[0].time_ns, 0);
    assert_eq!(recs[0].device, Some(5));
    assert_eq!(recs[0].offset_bytes, 174_224_064 * 512);
    assert_eq!(recs[0].length_bytes, 16 * 512);
    assert_eq!(recs[0].op, TraceOp::Read);
    assert_eq!(recs[1].time_ns, 221_000);
    assert_eq!(recs.last().unwrap().time_ns, 143_068_077_000);
}

#[test]
fn fiu_traces() {
    let Some(p) = real_trace("homes.replay.0") else {
        return;
    };
    assert_eq!(detect_file(&p).unwrap(), Format::Fiu);
    let recs = read_all(&p, &opts(None)).unwrap();
    assert_eq!(recs.len(), 1_000);
    // Every homes request is 8 sectors, 4 KiB aligned: one page fingerprint
    // combining 8 sector MD5s.
    assert!(recs
        .iter()
        .all(|r| r.fingerprints.len() as u64 == r.fingerprint_pages()));
    let mut reader = open(&p, &opts(None)).unwrap();
    let stats = TraceStats::from_reader(reader.as_mut(), 4096).unwrap();
    assert_eq!(stats.requests, 1_000);
    assert!(stats.duplicate_write_ratio.is_some());
    eprintln!("homes: {}", stats.render_text());

    let Some(p) = real_trace("mail.replay.0") else {
        return;
    };
    let recs = read_all(&p, &opts(None)).unwrap();
    assert_eq!(recs.len(), 122);
    // One line is a 16-sector request with two per-4 KiB MD5s.
    let big = recs.iter().find(|r| r.length_bytes == 8192).unwrap();
    assert_eq!(big.fingerprints.len(), 2);
    assert_eq!(big.fingerprints[0], 0xb5e9f4e5ab62a4fff5313a606b0ad4e3);
    assert_eq!(recs[0].fingerprints, [0xb5e9f4e5ab62a4fff5313a606b0ad4e3]);
    assert_eq!(recs[0].time_ns, 89_966_527_996_712);
    assert_eq!(recs[0].device, Some(6 << 20));
}

#[test]
fn blkparse_traces() {
    let Some(p) = real_trace("blkparse-output.txt") else {
        return;
    };
    assert_eq!(detect_file(&p).unwrap(), Format::Blkparse);
    let recs = read_all(&p, &opts(None)).unwrap();
    // 677 D events: 4 `D N` packet commands (not requests), 161 reads, 512 writes.
    assert_eq!(count_ops(&recs), [161, 512, 0, 0]);
    assert_eq!(recs[0].offset_bytes, 540_544 * 512);
    assert_eq!(recs[0].time_ns, 1_368_096);
    assert_eq!(recs[0].device, Some((8 << 20) | 33));

    let Some(p) = real_trace("blktrace-java-cfq.txt") else {
        return;
    };
    assert_eq!(detect_file(&p).unwrap(), Format::Blkparse);
    let by_action = |a: char| {
        let o = ReaderOptions {
            blkparse_action: a,
            ..ReaderOptions::default()
        };
        count_ops(&read_all(&p, &o).unwrap())
    };
    // D: 78 R, 86 W + 6 WS; C: 78 R, 86 W + 7 WS, one of which
    // (`C WS 1950885322 [0]`) has no `+ n` extent and is not a request;
    // Q: 80 R, 15174 W + 268 WS + 2 WBS.
    assert_eq!(by_action('D'), [78, 92, 0, 0]);
    assert_eq!(by_action('C'), [78, 92, 0, 0]);
    assert_eq!(by_action('Q'), [80, 15_444, 0, 0]);
}

#[test]
fn cloudphysics_libcachesim() {
    let Some(p) = real_trace("cloudPhysicsIO.csv") else {
        return;
    };
    assert_eq!(detect_file(&p).unwrap(), Format::Libcachesim);
    let recs = read_all(&p, &opts(None)).unwrap();
    assert_eq!(recs.len(), 113_872);
    assert_eq!(count_ops(&recs), [46_974, 66_898, 0, 0]);
    // 1,5633898,2a,512,42932745
    assert_eq!(recs[0].time_ns, 5_633_898_000_000_000);
    assert_eq!(recs[0].offset_bytes, 42_932_745 * 512);
    assert_eq!(recs[0].length_bytes, 512);
    let span = recs.last().unwrap().time_ns - recs[0].time_ns;
    assert_eq!(span, 7_200 * 1_000_000_000);
}
