//! vscsi binary traces: both record versions built byte by byte, detection,
//! and corrupt files.

use crate::common;

use common::{opts, read_all, TempDir};
use ftlsim_trace::{detect_file, open, Format, ReaderOptions, TraceError, TraceOp};

/// One vscsi version 1 record (32 bytes, little endian):
/// sn u32 | len u32 | nSG u32 | cmd u16 | ver u16 | lbn u64 | ts u64.
fn v1(sn: u32, cmd: u16, len: u32, lbn: u64, ts_us: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(32);
    b.extend_from_slice(&sn.to_le_bytes());
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes()); // nSG
    b.extend_from_slice(&cmd.to_le_bytes());
    b.extend_from_slice(&0x0100u16.to_le_bytes()); // version 1 in the high byte
    b.extend_from_slice(&lbn.to_le_bytes());
    b.extend_from_slice(&ts_us.to_le_bytes());
    assert_eq!(b.len(), 32);
    b
}

/// One vscsi version 2 record (40 bytes, little endian):
/// cmd u16 | ver u16 | sn u32 | len u32 | nSG u32 | lbn u64 | ts u64 | rt u64.
fn v2(sn: u32, cmd: u16, len: u32, lbn: u64, ts_us: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(40);
    b.extend_from_slice(&cmd.to_le_bytes());
    b.extend_from_slice(&0x0200u16.to_le_bytes()); // version 2 in the high byte
    b.extend_from_slice(&sn.to_le_bytes());
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(&2u32.to_le_bytes()); // nSG
    b.extend_from_slice(&lbn.to_le_bytes());
    b.extend_from_slice(&ts_us.to_le_bytes());
    b.extend_from_slice(&250u64.to_le_bytes()); // response time, unused
    assert_eq!(b.len(), 40);
    b
}

type Rec = fn(u32, u16, u32, u64, u64) -> Vec<u8>;

/// A small trace: READ(10), WRITE(10), WRITE(16), SYNC CACHE, UNMAP, READ(16).
fn sample(rec: Rec) -> Vec<u8> {
    [
        rec(1, 0x28, 4096, 8, 1_000),
        rec(2, 0x2a, 512, 100, 1_500),
        rec(3, 0x8a, 65536, 1 << 33, 2_000_000),
        rec(4, 0x35, 0, 77, 2_000_001),
        rec(5, 0x42, 8192, 16, 3_000_000),
        rec(6, 0x88, 1024, 0, 3_000_002),
    ]
    .concat()
}

fn check_sample(path: &std::path::Path, format: Option<Format>) {
    let recs = read_all(path, &opts(format)).unwrap();
    let got: Vec<(u64, TraceOp, u64, u64, Option<u32>)> = recs
        .iter()
        .map(|r| (r.time_ns, r.op, r.offset_bytes, r.length_bytes, r.device))
        .collect();
    assert_eq!(
        got,
        [
            (1_000_000, TraceOp::Read, 8 * 512, 4096, None),
            (1_500_000, TraceOp::Write, 100 * 512, 512, None),
            (2_000_000_000, TraceOp::Write, (1 << 33) * 512, 65536, None),
            // A cache flush has no extent.
            (2_000_001_000, TraceOp::Flush, 0, 0, None),
            (3_000_000_000, TraceOp::Trim, 16 * 512, 8192, None),
            (3_000_002_000, TraceOp::Read, 0, 1024, None),
        ]
    );
}

#[test]
fn both_versions_read_and_detect() {
    let dir = TempDir::new("vscsi");
    for (name, rec) in [("w01.vscsi1", v1 as Rec), ("w02.vscsi2", v2 as Rec)] {
        let bytes = sample(rec);
        let p = dir.write(name, &bytes);
        assert_eq!(detect_file(&p).unwrap(), Format::Vscsi, "{name}");
        check_sample(&p, None);
        check_sample(&p, Some(Format::Vscsi));
        // Compressed, as the published traces are.
        let gz = dir.write_gz(&format!("{name}.gz"), &bytes);
        check_sample(&gz, None);
        let reader = open(&p, &opts(None)).unwrap();
        assert_eq!(reader.format(), Format::Vscsi);
    }
    // One record is enough to tell the version.
    let p = dir.write("one.vscsi", &v1(9, 0x28, 4096, 1, 5));
    assert_eq!(read_all(&p, &opts(None)).unwrap().len(), 1);
    assert_eq!("vscsi".parse::<Format>().unwrap(), Format::Vscsi);
}

#[test]
fn truncated_and_corrupt_files() {
    let dir = TempDir::new("vscsibad");
    let check = |name: &str, data: &[u8], format: Option<Format>, want: &str| {
        let p = dir.write(name, data);
        let msg = read_all(&p, &opts(format)).unwrap_err().to_string();
        assert!(msg.starts_with(&format!("{}:", p.display())), "{msg}");
        assert!(msg.contains(want), "{name}: {msg}\nwant: {want}");
        assert!(!msg.contains('\n'), "one line: {msg}");
    };
    // Cut in the middle of the third record.
    let bytes = sample(v2);
    check(
        "cut.vscsi",
        &bytes[..2 * 40 + 17],
        None,
        "record 3 (byte 80): truncated record at end of file: 17 of 40 bytes",
    );
    // A record whose version byte changed: misaligned or corrupt.
    let mut v = sample(v1);
    v[4 * 32 + 15] = 7;
    check("ver.vscsi", &v, None, "record 5 (byte 128): version byte");
    // An opcode that is not a request.
    let bad_op = [v2(1, 0x28, 512, 0, 1), v2(2, 0x12, 36, 0, 2)].concat();
    check(
        "op.vscsi",
        &bad_op,
        None,
        "record 2 (byte 40): SCSI opcode 0x12",
    );
    // Forced format on something that is not vscsi.
    check(
        "text.vscsi",
        b"0,303567,3584,w,0.000000\n1,55590,3072,r,0.016\n",
        Some(Format::Vscsi),
        "not a vscsi trace",
    );
    check(
        "tiny.vscsi",
        &[1, 2, 3],
        Some(Format::Vscsi),
        "shorter than one vscsi record",
    );
    // Timestamp overflow.
    let p = dir.write("ts.vscsi", &v1(1, 0x28, 512, 0, u64::MAX));
    let err = read_all(&p, &opts(None)).unwrap_err();
    assert!(matches!(err, TraceError::Binary { record: 1, .. }), "{err}");
    assert!(err.to_string().contains("overflows"), "{err}");
}

#[test]
fn skip_bad_lines_skips_unknown_commands() {
    let dir = TempDir::new("vscsiskip");
    let data = [
        v2(1, 0x28, 512, 0, 1),
        v2(2, 0x00, 0, 0, 2), // TEST UNIT READY
        v2(3, 0x2a, 512, 1, 3),
    ]
    .concat();
    let p = dir.write("skip.vscsi", &data);
    let o = ReaderOptions {
        skip_bad_lines: true,
        ..ReaderOptions::default()
    };
    let mut reader = open(&p, &o).unwrap();
    let mut rec = ftlsim_trace::TraceRecord::default();
    let mut ops = Vec::new();
    while reader.next_record(&mut rec).unwrap() {
        ops.push(rec.op);
    }
    assert_eq!(ops, [TraceOp::Read, TraceOp::Write]);
    assert_eq!(reader.skipped_bad_lines(), 1);
    let first = reader.first_skipped_error().unwrap().to_string();
    assert!(first.contains("record 2"), "{first}");
}
