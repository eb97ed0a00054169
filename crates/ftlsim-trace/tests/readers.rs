//! Every reader on small files written from the format's spec, including
//! headers, blank lines, comments, unusual opcodes, huge offsets (> 2^40)
//! and gzip / zstd input.

use crate::common;

use common::{opts, read_all, TempDir};
use ftlsim_trace::{
    combine_fingerprints, detect_file, device_id, fnv1a64, mkdev, msr_device_id, open, Format,
    ReaderOptions, TimeUnit, TraceOp, TraceRecord,
};

const HUGE: u64 = 5 << 40; // 5 TiB offset, beyond 2^40

fn ops(recs: &[TraceRecord]) -> Vec<TraceOp> {
    recs.iter().map(|r| r.op).collect()
}

/// Reads `content` three ways (plain, gzip, zstd), with the format given and
/// detected, and checks all agree.
fn read_every_way(dir: &TempDir, name: &str, content: &str, format: Format) -> Vec<TraceRecord> {
    read_every_way_with(dir, name, content, format, ReaderOptions::default())
}

fn read_every_way_with(
    dir: &TempDir,
    name: &str,
    content: &str,
    format: Format,
    base: ReaderOptions,
) -> Vec<TraceRecord> {
    let plain = dir.write(name, content.as_bytes());
    let gz = dir.write_gz(&format!("{name}.gz"), content.as_bytes());
    // No extension on purpose: detection is by magic bytes.
    let zst = dir.write_zst(&format!("{name}-zstd"), content.as_bytes());
    let given = ReaderOptions {
        format: Some(format),
        ..base.clone()
    };
    let want = read_all(&plain, &given).unwrap();
    for path in [&plain, &gz, &zst] {
        assert_eq!(read_all(path, &given).unwrap(), want, "{}", path.display());
        let reader = open(path, &base).unwrap();
        assert_eq!(
            reader.format(),
            format,
            "detected format of {}",
            path.display()
        );
        assert_eq!(read_all(path, &base).unwrap(), want, "{}", path.display());
    }
    want
}

#[test]
fn msr() {
    let dir = TempDir::new("msr");
    let text = "\
Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
128166372003061629,hm,1,Read,383496192,32768,3186

# a comment
128166372016382155,hm,1,write,5497558138880,4096,2203\r
128166372026382245,src1,0,WRITE,0,512,100
";
    let recs = read_every_way(&dir, "hm_1.csv", text, Format::Msr);
    assert_eq!(recs.len(), 3);
    assert_eq!(ops(&recs), [TraceOp::Read, TraceOp::Write, TraceOp::Write]);
    assert_eq!(recs[0].time_ns, 12_816_637_200_306_162_900);
    assert_eq!(recs[0].offset_bytes, 383_496_192);
    assert_eq!(recs[0].length_bytes, 32_768);
    assert_eq!(recs[0].device, Some(msr_device_id("hm", "1")));
    assert_eq!(recs[0].device, Some(device_id("hm_1")));
    assert_eq!(recs[1].offset_bytes, 5_497_558_138_880);
    assert!(recs[1].offset_bytes > 1 << 40);
    assert_eq!(recs[2].device, Some(device_id("src1_0")));
    // Device filter by name.
    let o = ReaderOptions {
        device: Some(device_id("src1_0")),
        ..ReaderOptions::default()
    };
    let only = read_all(&dir.path("hm_1.csv"), &o).unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].length_bytes, 512);
}

#[test]
fn fiu_per_sector_and_per_page_hashes() {
    let dir = TempDir::new("fiu");
    let h = |i: u32| format!("{:032x}", 0x1000u128 + u128::from(i));
    // Per sector, concatenated, 4 KiB aligned: 8 sectors at lba 16 → one page.
    let l1 = format!(
        "100 1 kjournald 16 8 W 6 0 {}",
        (0..8).map(h).collect::<String>()
    );
    // Per sector, space separated, unaligned: lba 6, 4 sectors → sectors 6,7
    // in page 0 and 8,9 in page 1.
    let l2 = format!(
        "200 1 kjournald 6 4 w 6 0 {} {} {} {}",
        h(10),
        h(11),
        h(12),
        h(13)
    );
    // Per 4 KiB page: 16 sectors, 2 hashes.
    let l3 = format!("300 2 nfsd {} 16 R 8 1 {}{}", HUGE / 512, h(20), h(21));
    // One sector, one hash (both layouts agree).
    let l4 = format!("400 2 nfsd 3 1 W 8 1 {}", h(30));
    // No hash at all.
    let l5 = "500 2 nfsd 64 8 R 8 1";
    let text = format!("{l1}\n\n{l2}\n# comment\n{l3}\n{l4}\n{l5}");
    let recs = read_every_way(&dir, "homes.replay", &text, Format::Fiu);
    assert_eq!(recs.len(), 5);
    let all: Vec<u128> = (0..8).map(|i| 0x1000 + i).collect();
    assert_eq!(recs[0].fingerprints, [combine_fingerprints(&all)]);
    assert_eq!(recs[0].offset_bytes, 16 * 512);
    assert_eq!(recs[0].context, Some(fnv1a64(b"kjournald")));
    assert_eq!(recs[0].device, Some(mkdev(6, 0).unwrap()));
    assert_eq!(
        recs[1].fingerprints,
        [
            combine_fingerprints(&[0x1000 + 10, 0x1000 + 11]),
            combine_fingerprints(&[0x1000 + 12, 0x1000 + 13])
        ]
    );
    assert_eq!(recs[1].op, TraceOp::Write);
    assert_eq!(recs[2].fingerprints, [0x1000 + 20, 0x1000 + 21]);
    assert_eq!(recs[2].offset_bytes, HUGE);
    assert_eq!(recs[2].op, TraceOp::Read);
    assert_eq!(recs[3].fingerprints, [0x1000 + 30]);
    assert!(recs[4].fingerprints.is_empty());
}

#[test]
fn blkparse_actions_flushes_and_summaries() {
    let dir = TempDir::new("blkparse");
    let huge_sector = HUGE / 512;
    let text = format!(
        "  8,0    3        1     0.000000000  697  Q   W 2048 + 8 [kworker]
  8,0    3        2     0.000001000  697  D   W 2048 + 8 [kworker]
  8,0    3        3     0.000002000  697  D   R {huge_sector} + 16 [cat]
  8,0    3        4     0.000003000  697  D   D 4096 + 64 [fstrim]
  8,0    3        5     0.000004000  697  D FWS 8192 + 8 [jbd2/sda1-8]
  8,0    3        6     0.000005000  697  D WFS 9000 + 8 [jbd2/sda1-8]
  8,0    3        7     0.000006000  697  D  FN [kworker]
  8,0    3        8     0.000007000  697  D   N 0 (00 ..) [kworker]
  8,0    3        9     0.000008000  697  P   N [kworker]
  8,0    3       10     0.000009000  697  D  WS 100 + 0 [x]
  8,0    3       11     0.000010000  697  C   W 2048 + 8 [0]
  8,0    3        0     0.000011000    0  m   N cfq697S / insert_request
  8,1    3       12     0.000012000  697  D  RA 7 + 1 [x]
CPU3 (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB
 Read Dispatches:        1,        8KiB\t Write Dispatches:        1,        4KiB

Total (8,0):
 Reads Queued:           0,        0KiB\t Writes Queued:           1,        4KiB
Throughput (R/W): 0KiB/s / 0KiB/s
Events (8,0): 12 entries
Skips: 0 forward (0 -   0.0%)
"
    );
    let recs = read_every_way(&dir, "blkparse.txt", &text, Format::Blkparse);
    use TraceOp::*;
    assert_eq!(
        ops(&recs),
        // D W, D R, D D, preflush+W, W+FUA, FN, (D N: none), (WS +0: none), RA
        [Write, Read, Trim, Flush, Write, Write, Flush, Flush, Read]
    );
    assert_eq!(recs[0].time_ns, 1_000);
    assert_eq!(recs[0].offset_bytes, 2048 * 512);
    assert_eq!(recs[0].length_bytes, 8 * 512);
    assert_eq!(recs[0].device, Some(mkdev(8, 0).unwrap()));
    assert_eq!(recs[0].context, Some(fnv1a64(b"kworker")));
    assert_eq!(recs[1].offset_bytes, HUGE);
    assert_eq!(recs[2].length_bytes, 64 * 512);
    assert_eq!(recs[3].length_bytes, 0);
    assert_eq!(recs[3].time_ns, 4_000);
    assert_eq!(recs[4].offset_bytes, 8192 * 512);
    assert_eq!(recs[6].time_ns, 5_000);
    assert_eq!(recs[8].device, Some(mkdev(8, 1).unwrap()));

    // Other actions.
    let q = |a: char| {
        let o = ReaderOptions {
            blkparse_action: a,
            format: Some(Format::Blkparse),
            ..ReaderOptions::default()
        };
        read_all(&dir.path("blkparse.txt"), &o).unwrap()
    };
    assert_eq!(ops(&q('Q')), [Write]);
    assert_eq!(ops(&q('C')), [Write]);
    assert_eq!(q('C')[0].time_ns, 10_000);
    // Device filter.
    let o = ReaderOptions {
        device: Some(device_id("8,1")),
        ..ReaderOptions::default()
    };
    assert_eq!(read_all(&dir.path("blkparse.txt"), &o).unwrap().len(), 1);
    // Not a letter.
    let o = ReaderOptions {
        blkparse_action: '1',
        ..ReaderOptions::default()
    };
    assert!(open(&dir.path("blkparse.txt"), &o).is_err());
}

#[test]
fn disksim_time_units_and_flags() {
    let dir = TempDir::new("disksim");
    let text = format!(
        "time dev lba size type\n0.5 0 100 8 1\n\n1.25\t1 {} 16 0\n2 3 0 1 3\n3 3 0 1 2\n",
        HUGE / 512
    );
    let recs = read_every_way(&dir, "trace.ascii", &text, Format::Disksim);
    assert_eq!(recs.len(), 4);
    // Default unit: milliseconds.
    assert_eq!(recs[0].time_ns, 500_000);
    assert_eq!(recs[1].time_ns, 1_250_000);
    assert_eq!(recs[1].offset_bytes, HUGE);
    // Type: bit 0 = read; other bits ignored.
    assert_eq!(
        ops(&recs),
        [TraceOp::Read, TraceOp::Write, TraceOp::Read, TraceOp::Write]
    );
    assert_eq!(recs[2].device, Some(3));
    for (unit, ns) in [
        (TimeUnit::Nanos, 2),
        (TimeUnit::Micros, 2_000),
        (TimeUnit::Seconds, 2_000_000_000),
    ] {
        let o = ReaderOptions {
            time_unit: Some(unit),
            ..ReaderOptions::default()
        };
        let recs = read_all(&dir.path("trace.ascii"), &o).unwrap();
        assert_eq!(recs[2].time_ns, ns, "{unit}");
    }
}

#[test]
fn spc() {
    let dir = TempDir::new("spc");
    let text = format!(
        "0,303567,3584,w,0.000000\n1,55590,3072,R,0.016222\n\n2,{},512,r,12.5,extra,fields\n",
        HUGE / 512
    );
    let recs = read_every_way(&dir, "Financial1.spc", &text, Format::Spc);
    assert_eq!(ops(&recs), [TraceOp::Write, TraceOp::Read, TraceOp::Read]);
    assert_eq!(recs[0].offset_bytes, 303_567 * 512);
    assert_eq!(recs[0].length_bytes, 3584);
    assert_eq!(recs[1].time_ns, 16_222_000);
    assert_eq!(recs[1].device, Some(1));
    assert_eq!(recs[2].offset_bytes, HUGE);
    assert_eq!(recs[2].time_ns, 12_500_000_000);
}

#[test]
fn alibaba() {
    let dir = TempDir::new("alibaba");
    let text = format!(
        "device_id,opcode,offset,length,timestamp\n419,W,8792838144,4096,1577808000000010\n\n419,r,{HUGE},65536,1577808000000020\n"
    );
    let recs = read_every_way(&dir, "ali.csv", &text, Format::Alibaba);
    assert_eq!(ops(&recs), [TraceOp::Write, TraceOp::Read]);
    assert_eq!(recs[0].device, Some(419));
    assert_eq!(recs[0].time_ns, 1_577_808_000_000_010_000);
    assert_eq!(recs[1].offset_bytes, HUGE);
    assert_eq!(recs[1].length_bytes, 65_536);
}

#[test]
fn tencent() {
    let dir = TempDir::new("tencent");
    let text = format!(
        "1538323200,1012240,16,1,1283\n# c\n1538323201,{},8,0,7\n",
        HUGE / 512
    );
    let recs = read_every_way(&dir, "cbs.csv", &text, Format::Tencent);
    assert_eq!(ops(&recs), [TraceOp::Write, TraceOp::Read]);
    assert_eq!(recs[0].offset_bytes, 1_012_240 * 512);
    assert_eq!(recs[0].length_bytes, 16 * 512);
    assert_eq!(recs[0].device, Some(1283));
    assert_eq!(recs[0].time_ns, 1_538_323_200_000_000_000);
    assert_eq!(recs[1].offset_bytes, HUGE);
}

#[test]
fn fio_v2_and_v3() {
    let dir = TempDir::new("fio");
    let v2 = format!(
        "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb write 0 4096\n/dev/sdb wait 1500 0\n\
         /dev/sdb read {HUGE} 8192\n/dev/sdb trim 8192 4096\n/dev/sdb sync 0 0\n/dev/sdb datasync\n/dev/sdb close\n"
    );
    let recs = read_every_way(&dir, "job.iolog", &v2, Format::Fio);
    use TraceOp::*;
    assert_eq!(ops(&recs), [Write, Read, Trim, Flush, Flush]);
    assert_eq!(recs[0].time_ns, 0);
    assert_eq!(recs[1].time_ns, 1_500_000); // after wait 1500 us
    assert_eq!(recs[1].offset_bytes, HUGE);
    assert_eq!(recs[0].device, Some(device_id("/dev/sdb")));

    let v3 = "fio version 3 iolog\n0 /dev/nvme0n1 add\n2 /dev/nvme0n1 open\n878 /dev/nvme0n1 write 0 16384\n\
              1000 /dev/nvme0n1 read 16384 4096\n1200 /dev/nvme0n1 wait 5 0\n10001677 /dev/nvme0n1 close\n";
    let recs = read_every_way(&dir, "v3.iolog", v3, Format::Fio);
    assert_eq!(ops(&recs), [Write, Read]);
    // Default: microseconds.
    assert_eq!(recs[0].time_ns, 878_000);
    let o = ReaderOptions {
        time_unit: Some(TimeUnit::Millis),
        ..ReaderOptions::default()
    };
    let recs = read_all(&dir.path("v3.iolog"), &o).unwrap();
    assert_eq!(recs[1].time_ns, 1_000_000_000);
}

#[test]
fn libcachesim() {
    let dir = TempDir::new("lcs");
    let text = format!(
        "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n1,5633899,28,4096,8\n1,5633900,0x8A,8192,{}\n\
         1,5633900,88,512,1\n1,5633901,35,0,0\n1,5633902,42,4096,64\n",
        HUGE / 512
    );
    let recs = read_every_way(&dir, "cloud.csv", &text, Format::Libcachesim);
    use TraceOp::*;
    assert_eq!(ops(&recs), [Write, Read, Write, Read, Flush, Trim]);
    assert_eq!(recs[0].time_ns, 5_633_898_000_000_000);
    assert_eq!(recs[0].offset_bytes, 42_932_745 * 512);
    assert_eq!(recs[2].offset_bytes, HUGE);
    assert_eq!(recs[0].device, None);
}

#[test]
fn records_iterator_and_reader_info() {
    let dir = TempDir::new("iter");
    let p = dir.write("t.csv", b"1,a,0,Read,0,512,1\n\n2,a,0,Write,512,512,1\n");
    let mut reader = open(&p, &opts(None)).unwrap();
    assert_eq!(reader.format(), Format::Msr);
    assert!(reader.name().ends_with("t.csv"));
    let recs: Vec<_> = reader.records().collect::<Result<_, _>>().unwrap();
    assert_eq!(recs.len(), 2);
    assert_eq!(reader.records_read(), 2);
    assert_eq!(reader.position(), 3);
    // Fused: further calls keep returning false.
    let mut rec = TraceRecord::default();
    assert!(!reader.next_record(&mut rec).unwrap());
}

#[test]
fn stdin_like_streams() {
    let data = b"0 1 2 3 1\n".to_vec();
    let mut reader = ftlsim_trace::open_stream(
        Box::new(std::io::Cursor::new(data)),
        "<stdin>",
        &ReaderOptions::default(),
    )
    .unwrap();
    let mut rec = TraceRecord::default();
    assert!(reader.next_record(&mut rec).unwrap());
    assert_eq!(rec.offset_bytes, 1024);
    assert!(!reader.next_record(&mut rec).unwrap());
}

#[test]
fn utf8_bom_is_skipped_in_every_text_format() {
    let dir = TempDir::new("bom");
    let cases = [
        (
            Format::Msr,
            "128166372003061629,hm,1,Read,383496192,32768,3186\n",
        ),
        (
            Format::Fiu,
            "89966527996712 4253 nfsd 680 8 W 6 0 b5e9f4e5ab62a4fff5313a606b0ad4e3\n",
        ),
        (
            Format::Blkparse,
            "  8,33  30  1  0.001368096  5025  D   R 540544 + 8 [systemd-udevd]\n",
        ),
        (
            Format::Disksim,
            "938513000 4 264719034 16 0\n938828000 3 197570570 16 1\n",
        ),
        (
            Format::Spc,
            "0,303567,3584,w,0.000000\n1,55590,3072,r,0.016\n",
        ),
        (Format::Alibaba, "419,W,8792838144,4096,1577808000000010\n"),
        (
            Format::Tencent,
            "1538323200,1012240,16,1,1283\n1538323201,1012250,8,0,1283\n",
        ),
        (
            Format::Fio,
            "fio version 2 iolog\n/dev/sda add\n/dev/sda write 0 4096\n",
        ),
        (
            Format::Libcachesim,
            "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n",
        ),
    ];
    for (format, text) in cases {
        let plain = dir.write(&format!("{format}.txt"), text.as_bytes());
        let want = read_all(&plain, &opts(Some(format))).unwrap();
        let with_bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
        let p = dir.write(&format!("{format}.bom.txt"), &with_bom);
        assert_eq!(detect_file(&p).unwrap(), format, "{format}");
        assert_eq!(read_all(&p, &opts(None)).unwrap(), want, "{format}");
        assert_eq!(read_all(&p, &opts(Some(format))).unwrap(), want, "{format}");
        let gz = dir.write_gz(&format!("{format}.bom.txt.gz"), &with_bom);
        assert_eq!(read_all(&gz, &opts(None)).unwrap(), want, "{format}");
    }
}
