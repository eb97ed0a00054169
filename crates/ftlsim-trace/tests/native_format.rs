//! Native format: round trip with every optional field, convert, and errors.

mod common;

use common::{opts, read_all, TempDir};
use ftlsim_trace::{
    convert, convert_file, open, Format, NativeWriter, OutputFormat, ReaderOptions, TimeUnit,
    TraceError, TraceOp, TraceRecord, NATIVE_MAGIC,
};

fn sample_records() -> Vec<TraceRecord> {
    let mut recs = Vec::new();
    // Plain, sequential.
    for i in 0..100u64 {
        recs.push(TraceRecord {
            time_ns: 1_000 * i,
            op: TraceOp::Write,
            offset_bytes: 4096 * i,
            length_bytes: 4096,
            ..TraceRecord::default()
        });
    }
    // Every optional field, extreme values, time going backwards.
    recs.push(TraceRecord {
        time_ns: u64::MAX,
        op: TraceOp::Trim,
        offset_bytes: u64::MAX - (1 << 40),
        length_bytes: 1 << 40,
        device: Some(u32::MAX),
        stream: Some(u16::MAX),
        context: Some(u64::MAX),
        fingerprints: vec![u128::MAX, 0, 1],
    });
    recs.push(TraceRecord {
        time_ns: 5,
        op: TraceOp::Flush,
        device: Some(0),
        ..TraceRecord::default()
    });
    recs.push(TraceRecord {
        time_ns: 6,
        op: TraceOp::Read,
        offset_bytes: 7,
        length_bytes: 9000,
        stream: Some(3),
        context: Some(0xdead_beef),
        fingerprints: vec![11, 12, 13],
        ..TraceRecord::default()
    });
    recs
}

fn write_native(records: &[TraceRecord]) -> Vec<u8> {
    let mut w = NativeWriter::new(Vec::new()).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn round_trip_with_all_extras() {
    let dir = TempDir::new("native");
    let recs = sample_records();
    let bytes = write_native(&recs);
    assert!(bytes.starts_with(&NATIVE_MAGIC));
    // Sequential 4 KiB writes cost a few bytes each.
    assert!(bytes.len() < 100 * 6 + 200, "{} bytes", bytes.len());
    let p = dir.write("t.ftl", &bytes);
    assert_eq!(read_all(&p, &opts(None)).unwrap(), recs);
    assert_eq!(read_all(&p, &opts(Some(Format::Native))).unwrap(), recs);
    // Compressed native files too.
    let gz = dir.write_gz("t.ftl.gz", &bytes);
    assert_eq!(read_all(&gz, &opts(None)).unwrap(), recs);
    let zst = dir.write_zst("t.ftl.zst", &bytes);
    assert_eq!(read_all(&zst, &opts(None)).unwrap(), recs);
    // Device filter.
    let o = ReaderOptions {
        device: Some(0),
        ..ReaderOptions::default()
    };
    let only = read_all(&p, &o).unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].op, TraceOp::Flush);
}

#[test]
fn convert_text_to_native_and_back() {
    let dir = TempDir::new("convert");
    let h = |i: u32| format!("{:032x}", u128::from(i) * 7919);
    let mut fiu = String::new();
    for i in 0..50u32 {
        fiu.push_str(&format!(
            "{} 1 proc{} {} 8 {} 6 {} {}\n",
            1000 + u64::from(i) * 10,
            i % 3,
            u64::from(i) * 8,
            if i % 4 == 0 { "R" } else { "W" },
            i % 2,
            h(i % 10)
        ));
    }
    let src = dir.write("fiu.txt", fiu.as_bytes());
    let want = read_all(&src, &opts(None)).unwrap();
    let out = dir.path("fiu.ftl");
    let summary = convert_file(&src, &opts(None), &out, OutputFormat::Native).unwrap();
    assert_eq!(summary.records_read, 50);
    assert_eq!(summary.records_written, 50);
    let got = read_all(&out, &opts(None)).unwrap();
    assert_eq!(got, want);
    assert!(got
        .iter()
        .all(|r| r.fingerprints.len() == 1 && r.context.is_some()));

    // To DiskSim ASCII (ns) and back: same requests, without hashes/context.
    let ascii = dir.path("fiu.ascii");
    convert_file(
        &out,
        &opts(None),
        &ascii,
        OutputFormat::Disksim(TimeUnit::Nanos),
    )
    .unwrap();
    let o = ReaderOptions {
        time_unit: Some(TimeUnit::Nanos),
        ..ReaderOptions::default()
    };
    let back = read_all(&ascii, &o).unwrap();
    assert_eq!(back.len(), 50);
    for (a, b) in want.iter().zip(&back) {
        assert_eq!(
            (a.time_ns, a.op, a.offset_bytes, a.length_bytes, a.device),
            (b.time_ns, b.op, b.offset_bytes, b.length_bytes, b.device)
        );
    }
}

#[test]
fn convert_counts_left_out_records() {
    let recs = sample_records();
    let dir = TempDir::new("leftout");
    let p = dir.write("t.ftl", &write_native(&recs));
    let mut reader = open(&p, &opts(None)).unwrap();
    let mut w = ftlsim_trace::DisksimWriter::new(Vec::new(), TimeUnit::Micros);
    let s = convert(reader.as_mut(), &mut w, "out.ascii").unwrap();
    assert_eq!(s.records_read, recs.len() as u64);
    assert_eq!(s.records_left_out, 2); // the trim and the flush
    let text = String::from_utf8(w.into_inner()).unwrap();
    assert!(text.starts_with("0.000 0 0 8 0\n1.000 0 8 8 0\n"), "{text}");
}

#[test]
fn native_errors() {
    let dir = TempDir::new("nativeerr");
    let bytes = write_native(&sample_records());
    let check = |name: &str, data: &[u8], want: &str| {
        let p = dir.write(name, data);
        let err = read_all(&p, &opts(Some(Format::Native))).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with(&format!("{}:", p.display())), "{msg}");
        assert!(msg.contains(want), "{name}: {msg}\nwant: {want}");
        err
    };
    // Truncated in the middle of a record, and without end marker.
    check("cut.ftl", &bytes[..bytes.len() - 40], "truncated");
    check("noend.ftl", &bytes[..bytes.len() - 2], "missing end marker");
    // Header problems.
    check("short.ftl", &bytes[..10], "truncated header");
    let mut v = bytes.clone();
    v[8] = 9;
    check("version.ftl", &v, "unsupported native trace version 9");
    let mut v = bytes.clone();
    v[0] = b'X';
    check("magic.ftl", &v, "bad magic");
    // Garbage tag right after the header.
    let mut v = bytes[..16].to_vec();
    v.extend_from_slice(&[0x40, 0, 0, 0]);
    let err = check("tag.ftl", &v, "invalid record tag 0x40");
    assert!(
        matches!(
            err,
            TraceError::Binary {
                record: 1,
                byte: 16,
                ..
            }
        ),
        "{err:?}"
    );
    // Wrong count in the end marker.
    let mut v = bytes.clone();
    let n = v.len();
    v[n - 1] ^= 1;
    check("count.ftl", &v, "end marker says");
    // Data after the end.
    let mut v = bytes.clone();
    v.push(0);
    check("trailing.ftl", &v, "data after the end marker");
    // Only a header and an end marker: an empty trace.
    let empty = NativeWriter::new(Vec::new()).unwrap().finish().unwrap();
    let p = dir.write("empty.ftl", &empty);
    let err = read_all(&p, &opts(None)).unwrap_err();
    assert!(matches!(err, TraceError::Empty { .. }), "{err}");
    // Absurd length.
    let mut v = bytes[..16].to_vec();
    v.extend_from_slice(&[
        1, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ]);
    check("len.ftl", &v, "absurd request length");
}
