//! Bad input: every error class, with its `FILE:LINE: message`.

use crate::common;

use common::{error_of, opts, read_all, TempDir};
use ftlsim_trace::{open, Format, ReaderOptions, TraceError, TraceRecord};

const MSR_OK: &str = "128166372003061629,hm,1,Read,383496192,32768,3186\n";

fn msr_error(dir: &TempDir, bad_line: &str) -> String {
    let text = format!("{MSR_OK}\n{bad_line}\n{MSR_OK}");
    error_of(dir, "trace.csv", &text, Some(Format::Msr))
}

#[test]
fn truncated_and_wrong_field_count() {
    let dir = TempDir::new("count");
    let msg = msr_error(&dir, "128166372003061629,hm,1,Read,383496192");
    assert!(
        msg.ends_with("trace.csv:3: truncated line: expected 7 fields, found 5"),
        "{msg}"
    );
    let msg = msr_error(&dir, "128166372003061629,hm,1,Read,383496192,32768,3186,99");
    assert!(
        msg.ends_with("trace.csv:3: wrong field count: expected 7 fields, found 8"),
        "{msg}"
    );
    // Whitespace formats too.
    let msg = error_of(&dir, "t.ascii", "0 1 2 3 1\n0 1 2\n", Some(Format::Disksim));
    assert!(
        msg.ends_with("t.ascii:2: truncated line: expected 5 fields, found 3"),
        "{msg}"
    );
    let msg = error_of(&dir, "t.ascii", "0 1 2 3 1 7\n", Some(Format::Disksim));
    assert!(
        msg.ends_with("t.ascii:1: wrong field count: expected 5 fields, found 6"),
        "{msg}"
    );
}

#[test]
fn not_a_number_negative_absurd() {
    let dir = TempDir::new("numbers");
    let msg = msr_error(&dir, "128166372003061629,hm,1,Read,383496192,abc,3186");
    assert!(
        msg.ends_with("trace.csv:3: field 6 (Size): `abc` is not a number"),
        "{msg}"
    );
    let msg = msr_error(&dir, "128166372003061629,hm,1,Read,383496192,-512,3186");
    assert!(
        msg.ends_with("trace.csv:3: field 6 (Size): `-512` is negative"),
        "{msg}"
    );
    let msg = msr_error(
        &dir,
        "128166372003061629,hm,1,Read,383496192,1099511627777,3186",
    );
    assert!(
        msg.ends_with("trace.csv:3: field 6 (Size): `1099511627777` is an absurd request size (more than 1 TiB)"),
        "{msg}"
    );
    let msg = msr_error(
        &dir,
        "128166372003061629,hm,1,Read,18446744073709551615,4096,3186",
    );
    assert!(msg.contains("trace.csv:3: field 5 (Offset)"), "{msg}");
    assert!(msg.contains("beyond 2^64"), "{msg}");
    // Sector formats: size in sectors beyond 1 TiB.
    let msg = error_of(
        &dir,
        "t.ascii",
        "0 1 2 3000000000 1\n",
        Some(Format::Disksim),
    );
    assert!(msg.contains("t.ascii:1: field 4 (size_sectors)"), "{msg}");
    assert!(msg.contains("absurd"), "{msg}");
    // Times.
    let msg = error_of(&dir, "t.spc", "0,1,512,r,-0.5\n", Some(Format::Spc));
    assert!(
        msg.ends_with("t.spc:1: field 5 (Timestamp): `-0.5` is negative"),
        "{msg}"
    );
    let msg = error_of(&dir, "t.spc", "0,1,512,r,soon\n", Some(Format::Spc));
    assert!(
        msg.ends_with("t.spc:1: field 5 (Timestamp): `soon` is not a number"),
        "{msg}"
    );
}

#[test]
fn unknown_opcodes_in_every_format() {
    let dir = TempDir::new("opcodes");
    let cases: [(&str, &str, Format, &str); 9] = [
        (
            "m.csv",
            "1,hm,0,Erase,0,512,1\n",
            Format::Msr,
            "m.csv:1: field 4 (Type): unknown opcode `Erase`",
        ),
        (
            "f.txt",
            "1 2 p 3 8 X 6 0\n",
            Format::Fiu,
            "f.txt:1: field 6 (R/W): unknown opcode `X`",
        ),
        (
            "s.spc",
            "0,1,512,x,0.1\n",
            Format::Spc,
            "s.spc:1: field 4 (Opcode): unknown opcode `x`",
        ),
        (
            "a.csv",
            "1,D,0,4096,5\n",
            Format::Alibaba,
            "a.csv:1: field 2 (opcode): unknown opcode `D`",
        ),
        (
            "t.csv",
            "1,0,8,2,5\n",
            Format::Tencent,
            "t.csv:1: field 4 (IOType): unknown opcode `2`",
        ),
        (
            "l.csv",
            "version,time,op,size,lbn\n1,5,12,512,0\n",
            Format::Libcachesim,
            "l.csv:2: field 3 (op): unknown opcode `12`",
        ),
        (
            "v2.log",
            "fio version 2 iolog\n/dev/sda add\n/dev/sda erase 0 4096\n",
            Format::Fio,
            "v2.log:3: field 2 (action): unknown opcode `erase`",
        ),
        (
            "v3.log",
            "fio version 3 iolog\n5 /dev/sda rename\n",
            Format::Fio,
            "v3.log:2: field 3 (action): unknown opcode `rename`",
        ),
        (
            "b.txt",
            "  8,0 1 1 0.5 9 D W 8 + x [p]\n",
            Format::Blkparse,
            "b.txt:1: field 10 (sectors): `x` is not a number",
        ),
    ];
    for (name, text, format, want) in cases {
        let msg = error_of(&dir, name, text, Some(format));
        assert!(
            msg.ends_with(want) || msg.contains(want),
            "{format}: {msg}\nwant: {want}"
        );
    }
}

#[test]
fn fiu_hash_errors() {
    let dir = TempDir::new("fiuhash");
    let msg = error_of(&dir, "f.txt", "1 2 p 8 8 W 6 0 abc\n", Some(Format::Fiu));
    assert!(msg.contains("f.txt:1: field 9 (md5)"), "{msg}");
    let bad_hex = "z".repeat(32);
    let msg = error_of(
        &dir,
        "f.txt",
        &format!("1 2 p 8 8 W 6 0 {bad_hex}\n"),
        Some(Format::Fiu),
    );
    assert!(msg.contains("not hexadecimal"), "{msg}");
    // 3 hashes for 8 sectors touching 1 page.
    let three = "0".repeat(96);
    let msg = error_of(
        &dir,
        "f.txt",
        &format!("1 2 p 8 8 W 6 0 {three}\n"),
        Some(Format::Fiu),
    );
    assert!(
        msg.contains("3 hashes for a 8-sector request touching 1"),
        "{msg}"
    );
}

#[test]
fn fio_header_required() {
    let dir = TempDir::new("fiohdr");
    let msg = error_of(&dir, "x.log", "/dev/sda write 0 4096\n", Some(Format::Fio));
    assert!(msg.contains("x.log:1: missing fio iolog header"), "{msg}");
}

#[test]
fn invalid_utf8_and_binary_garbage() {
    let dir = TempDir::new("utf8");
    let mut bytes = MSR_OK.as_bytes().to_vec();
    bytes.extend_from_slice(b"1,h\xff\xfe,0,Read,0,512,1\n");
    let p = dir.write("bin.csv", &bytes);
    let msg = read_all(&p, &opts(Some(Format::Msr)))
        .unwrap_err()
        .to_string();
    assert!(
        msg.ends_with("bin.csv:2: invalid UTF-8: binary garbage in a text trace?"),
        "{msg}"
    );
    // Detection on garbage.
    let p = dir.write("garbage.bin", &[0u8, 159, 146, 150, 7, 1, 2, 3, 255, 10, 1]);
    let err = read_all(&p, &opts(None)).unwrap_err();
    assert!(matches!(err, TraceError::Detect { .. }), "{err}");
    assert!(
        err.to_string()
            .starts_with(&format!("{}: cannot detect", p.display())),
        "{err}"
    );
    // NUL bytes inside text given a format: a bad line, not a panic.
    let p = dir.write("nul.csv", b"1,hm,0,Read,0,5\x0012,1\n");
    let msg = read_all(&p, &opts(Some(Format::Msr)))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("nul.csv:1: field 6 (Size)"), "{msg}");
}

#[test]
fn detection_errors_list_candidates() {
    let dir = TempDir::new("detect");
    let p = dir.write("amb.csv", b"5,1,28,1,2\n");
    let msg = read_all(&p, &opts(None)).unwrap_err().to_string();
    assert!(msg.contains("ambiguous"), "{msg}");
    assert!(
        msg.contains("tencent, libcachesim") || msg.contains("libcachesim, tencent"),
        "{msg}"
    );
    let p = dir.write("what.txt", b"hello there\ngeneral kenobi\n");
    let msg = read_all(&p, &opts(None)).unwrap_err().to_string();
    assert!(msg.contains("cannot detect the trace format"), "{msg}");
    assert!(msg.contains("--format"), "{msg}");
}

#[test]
fn corrupt_and_truncated_compressed_streams() {
    let dir = TempDir::new("corrupt");
    let mut text = String::new();
    for i in 0..20_000u64 {
        text.push_str(&format!("{i},hm,0,Write,{},4096,1\n", i * 4096));
    }
    // Truncated gzip.
    let gz = dir.write_gz("t.csv.gz", text.as_bytes());
    let bytes = std::fs::read(&gz).unwrap();
    let cut = dir.write("cut.gz", &bytes[..bytes.len() / 2]);
    let msg = read_all(&cut, &opts(None)).unwrap_err().to_string();
    assert!(
        msg.contains("cut.gz:") && msg.contains("gzip stream is corrupt"),
        "{msg}"
    );
    // Bad CRC: every line decodes, the error comes at the end.
    let mut bad_crc = bytes.clone();
    let n = bad_crc.len();
    bad_crc[n - 8] ^= 0xff;
    let p = dir.write("crc.gz", &bad_crc);
    let msg = read_all(&p, &opts(None)).unwrap_err().to_string();
    assert!(msg.starts_with(&format!("{}:", p.display())), "{msg}");
    assert!(msg.contains("gzip stream is corrupt"), "{msg}");
    // Garbled gzip body: deflate may decode garbage before it notices, so
    // the error is a corrupt stream, a bad line or a failed detection, but
    // always an error naming the file.
    let mut garbled = bytes.clone();
    for b in garbled.iter_mut().skip(100).take(200) {
        *b ^= 0x5a;
    }
    let p = dir.write("garbled.gz", &garbled);
    for format in [None, Some(Format::Msr)] {
        let msg = read_all(&p, &opts(format)).unwrap_err().to_string();
        assert!(msg.contains("garbled.gz:"), "{msg}");
        if format.is_none() && msg.contains("cannot detect") {
            assert!(msg.contains("gzip-decompressed"), "{msg}");
        }
    }
    // Truncated and garbled zstd.
    let zst = std::fs::read(dir.write_zst("t.zst", text.as_bytes())).unwrap();
    let p = dir.write("cut.zst", &zst[..zst.len() / 2]);
    let msg = read_all(&p, &opts(None)).unwrap_err().to_string();
    assert!(
        msg.contains("cut.zst:") && msg.contains("zstd stream is corrupt"),
        "{msg}"
    );
    let mut garbled = zst.clone();
    for b in garbled.iter_mut().skip(50).take(100) {
        *b ^= 0xa5;
    }
    let p = dir.write("garbled.zst", &garbled);
    let msg = read_all(&p, &opts(Some(Format::Msr)))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("garbled.zst:"), "{msg}");
    // A small truncated gzip (all of it fits the detection prefix): the
    // error still comes at the line where the data stops, after the records.
    let small: String = text.lines().take(2000).map(|l| format!("{l}\n")).collect();
    let small_gz = std::fs::read(dir.write_gz("small.gz", small.as_bytes())).unwrap();
    let p = dir.write("small-cut.gz", &small_gz[..small_gz.len() * 3 / 4]);
    let mut reader = ftlsim_trace::open(&p, &opts(None)).unwrap();
    let mut rec = TraceRecord::default();
    let mut n = 0;
    let err = loop {
        match reader.next_record(&mut rec) {
            Ok(true) => n += 1,
            Ok(false) => panic!("truncated gzip read to the end"),
            Err(e) => break e,
        }
    };
    assert!(n > 100, "{n} records before the error");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("small-cut.gz:{}: gzip stream is corrupt", n + 1)),
        "{msg}"
    );
    // Just the magic bytes.
    let p = dir.write("magic.gz", &[0x1f, 0x8b]);
    let msg = read_all(&p, &opts(None)).unwrap_err().to_string();
    assert!(msg.contains("gzip stream is corrupt"), "{msg}");
}

#[test]
fn empty_files() {
    let dir = TempDir::new("empty");
    for (name, content, format) in [
        ("zero.csv", "", None),
        ("zero-msr.csv", "", Some(Format::Msr)),
        ("blank.csv", "\n\n   \n", None),
        ("comments.csv", "# nothing\n# here\n", Some(Format::Msr)),
        (
            "header.csv",
            "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
            Some(Format::Msr),
        ),
        (
            "fio.log",
            "fio version 2 iolog\n/dev/sda add\n/dev/sda open\n",
            None,
        ),
        (
            "summary.txt",
            "CPU0 (8,0):\n Reads Queued: 0, 0KiB\n",
            Some(Format::Blkparse),
        ),
    ] {
        let msg = error_of(&dir, name, content, format);
        assert!(msg.contains(": no records"), "{name}: {msg}");
    }
    // A device filter that matches nothing says so.
    let p = dir.write("one.csv", MSR_OK.as_bytes());
    let o = ReaderOptions {
        device: Some(12345),
        ..ReaderOptions::default()
    };
    let msg = read_all(&p, &o).unwrap_err().to_string();
    assert!(
        msg.contains("no records") && msg.contains("1 records of other devices filtered out"),
        "{msg}"
    );
    let p = dir.write_gz("empty.gz", b"");
    let err = read_all(&p, &opts(None)).unwrap_err();
    assert!(matches!(err, TraceError::Empty { .. }), "{err}");
}

#[test]
fn skip_bad_lines_counts_and_continues() {
    let dir = TempDir::new("skip");
    let text =
        format!("{MSR_OK}garbage\n1,hm,0,Read,0,abc,1\n{MSR_OK}1,hm,0,Erase,0,1,1\n{MSR_OK}");
    let p = dir.write("s.csv", text.as_bytes());
    let o = ReaderOptions {
        format: Some(Format::Msr),
        skip_bad_lines: true,
        ..ReaderOptions::default()
    };
    let mut reader = open(&p, &o).unwrap();
    let mut rec = TraceRecord::default();
    let mut n = 0;
    while reader.next_record(&mut rec).unwrap() {
        n += 1;
    }
    assert_eq!(n, 3);
    assert_eq!(reader.skipped_bad_lines(), 3);
    let first = reader.first_skipped_error().unwrap().to_string();
    assert!(
        first.ends_with("s.csv:2: truncated line: expected 7 fields, found 1"),
        "{first}"
    );
    // Invalid UTF-8 is skippable too.
    let mut raw = MSR_OK.as_bytes().to_vec();
    raw.extend_from_slice(b"\xff\xfe\n");
    raw.extend_from_slice(MSR_OK.as_bytes());
    let p = dir.write("raw.csv", &raw);
    let mut reader = open(&p, &o).unwrap();
    let mut n = 0;
    while reader.next_record(&mut rec).unwrap() {
        n += 1;
    }
    assert_eq!((n, reader.skipped_bad_lines()), (2, 1));
    // All lines bad: an empty-trace error that mentions the skipped lines.
    let p = dir.write("allbad.csv", b"1,2\n3,4\n");
    let err = read_all(&p, &o).unwrap_err().to_string();
    assert!(
        err.contains("no records") && err.contains("2 bad lines skipped"),
        "{err}"
    );
}

#[test]
fn missing_file() {
    let err = open(
        "/nonexistent/ftlsim/trace.csv".as_ref(),
        &ReaderOptions::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.starts_with("/nonexistent/ftlsim/trace.csv: "), "{err}");
}

#[test]
fn overlong_line_is_an_error_not_a_buffer() {
    let dir = TempDir::new("long");
    let mut text = MSR_OK.to_string();
    text.push_str(&"9".repeat(5 << 20));
    text.push('\n');
    let p = dir.write("long.csv", text.as_bytes());
    let msg = read_all(&p, &opts(Some(Format::Msr)))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("long.csv:2: line longer than 4 MiB"), "{msg}");
}

#[test]
fn detection_failure_after_a_header_says_so() {
    let dir = TempDir::new("header");
    // A CSV export with its own column names: line 1 looks like a header.
    let p = dir.write(
        "export.csv",
        b"\xEF\xBB\xBFTime;Op;Offset;Size\n0.5;R;0;4096\n0.6;W;4096;4096\n",
    );
    let msg = read_all(&p, &opts(None)).unwrap_err().to_string();
    assert!(!msg.contains('\n'), "one line: {msg}");
    assert!(
        msg.starts_with(&format!(
            "{}: cannot detect the trace format: tried ",
            p.display()
        )),
        "{msg}"
    );
    for name in ["msr", "fiu", "disksim", "spc", "tencent", "libcachesim"] {
        assert!(msg.contains(name), "{name} missing: {msg}");
    }
    assert!(
        msg.contains("line 1 looks like a column header (`Time;Op;Offset;Size`)"),
        "{msg}"
    );
    assert!(msg.contains("--format"), "{msg}");
    // Without a header line the message does not claim one.
    let p = dir.write("noheader.csv", b"0.5;R;0;4096\n");
    let msg = read_all(&p, &opts(None)).unwrap_err().to_string();
    assert!(!msg.contains("column header"), "{msg}");
    assert!(
        msg.contains("no format (") && msg.contains("line 1: `0.5;R;0;4096`"),
        "{msg}"
    );
}
