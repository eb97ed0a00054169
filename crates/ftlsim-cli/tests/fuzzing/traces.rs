//! Trace inputs for every format the trace crate reads: small valid samples
//! built field by field (each field typical, or now and then a boundary or
//! absurd number: 0, -1, u64::MAX, u64::MAX / 100 — FILETIME ticks that
//! reach 1.8e19 ns —, 2^40, NaN ...), then byte mutations, compression, or
//! plain random bytes.

use std::io::Write;

use ftlsim_trace::{NativeWriter, TraceOp, TraceRecord};
use rand::seq::IndexedRandom;
use rand::Rng;

use super::values::Rng64;

/// Formats by their `--format` names.
pub const FORMATS: &[&str] = &ftlsim_trace::Format::NAMES;

/// Numbers in place of a field's typical value.
const ODD_NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "184467440737095516",
    "18446744073709551",
    "18446744073709",
    "18446744073",
    "9223372036854775807",
    "4294967296",
    "1099511627776",
    "1099511627777",
    "9223372036854775808",
    "99999999999999999999",
    "1e300",
    "nan",
    "inf",
    "0.5",
    "-0",
    "",
];

/// A field: `typical` most of the time, else an odd number.
fn field(rng: &mut Rng64, typical: u64, odd_share: f64) -> String {
    if rng.random_bool(odd_share) {
        ODD_NUMBERS.choose(rng).expect("odd").to_string()
    } else {
        typical.to_string()
    }
}

fn one<'a>(rng: &mut Rng64, xs: &[&'a str]) -> &'a str {
    xs.choose(rng).expect("choices")
}

/// Text lines of `format` (not native or vscsi).
fn text_lines(rng: &mut Rng64, format: &str, n: usize, odd: f64) -> Vec<String> {
    let mut lines = Vec::new();
    match format {
        "msr" if rng.random_bool(0.5) => {
            lines.push("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime".into())
        }
        "fio" => lines.push(format!("fio version {} iolog", one(rng, &["2", "3", "9"]))),
        "libcachesim" => lines.push("version,time,op,size,lbn".into()),
        _ => {}
    }
    let fio_v3 = lines.first().is_some_and(|l| l.contains("version 3"));
    let mut t: u64 = rng.random_range(0..1000);
    for i in 0..n as u64 {
        t += rng.random_range(0..5000);
        let page = rng.random_range(0..64u64);
        let sectors = *[1u64, 8, 16, 64].choose(rng).expect("sizes");
        let line = match format {
            "msr" => format!(
                "{},{},{},{},{},{},{}",
                field(rng, 128_166_372_003_061_629 + t * 1000, odd),
                one(rng, &["hm", "src1", "prxy"]),
                field(rng, i % 2, odd),
                one(rng, &["Read", "Write", "write", "READ"]),
                field(rng, page * 4096, odd),
                field(rng, sectors * 512, odd),
                field(rng, 100, odd)
            ),
            "fiu" => format!(
                "{} {} {} {} {} {} 6 0 {}",
                field(rng, 89_966_527_996_712 + t, odd),
                field(rng, 4253, odd),
                one(rng, &["nfsd", "kjournald"]),
                field(rng, page * 8, odd),
                field(rng, sectors, odd),
                one(rng, &["W", "R", "w"]),
                one(rng, &["b5e9f4e5ab62a4fff5313a606b0ad4e3", "", "zz"])
            ),
            "blkparse" => format!(
                "  8,{}    3 {:>8} {:>14}  697  {}  {} {} + {} [kworker]",
                one(rng, &["0", "1"]),
                i + 1,
                if rng.random_bool(odd) {
                    one(rng, ODD_NUMBERS).to_string()
                } else {
                    format!("{}.{:09}", t / 1000, t % 1000 * 1000)
                },
                one(rng, &["D", "Q", "C", "D"]),
                one(rng, &["W", "R", "D", "FWS", "WFS", "FN", "RA", "N"]),
                field(rng, page * 8, odd),
                field(rng, sectors, odd)
            ),
            "disksim" => format!(
                "{}.{} {} {} {} {}",
                field(rng, t / 1000, odd),
                t % 1000,
                field(rng, 0, odd),
                field(rng, page * 8, odd),
                field(rng, sectors, odd),
                one(rng, &["0", "1", "3"])
            ),
            "spc" => format!(
                "{},{},{},{},{}.{:06}",
                field(rng, i % 3, odd),
                field(rng, page * 8, odd),
                field(rng, sectors * 512, odd),
                one(rng, &["w", "r", "R"]),
                field(rng, t / 1000, odd),
                t % 1000
            ),
            "alibaba" => format!(
                "{},{},{},{},{}",
                field(rng, 419, odd),
                one(rng, &["W", "R", "r"]),
                field(rng, page * 4096, odd),
                field(rng, sectors * 512, odd),
                field(rng, 1_577_808_000_000_010 + t, odd)
            ),
            "tencent" => format!(
                "{},{},{},{},{}",
                field(rng, 1_538_323_200 + t / 1000, odd),
                field(rng, page * 8, odd),
                field(rng, sectors, odd),
                one(rng, &["0", "1"]),
                field(rng, 1283, odd)
            ),
            "fio" if fio_v3 => format!(
                "{} /dev/sdb {} {} {}",
                field(rng, t, odd),
                one(rng, &["write", "read", "trim", "sync", "wait", "open"]),
                field(rng, page * 4096, odd),
                field(rng, sectors * 512, odd)
            ),
            "fio" => format!(
                "/dev/sdb {} {} {}",
                one(
                    rng,
                    &["write", "read", "trim", "sync", "wait", "add", "datasync"]
                ),
                field(rng, page * 4096, odd),
                field(rng, sectors * 512, odd)
            ),
            _ => format!(
                "1,{},{},{},{}",
                field(rng, 5_633_898 + t / 1000, odd),
                one(rng, &["2a", "28", "0x8a", "35", "42", "ff"]),
                field(rng, sectors * 512, odd),
                field(rng, page * 8, odd)
            ),
        };
        lines.push(line);
    }
    lines
}

fn native(rng: &mut Rng64, n: usize, odd: f64) -> Vec<u8> {
    let mut w = NativeWriter::new(Vec::new()).expect("in memory");
    let mut t: u64 = 0;
    for _ in 0..n {
        let op = *TraceOp::ALL.choose(rng).expect("ops");
        t = if rng.random_bool(odd) {
            *[0, u64::MAX, u64::MAX / 2, 18_446_744_073_709_551_000, t / 2]
                .choose(rng)
                .expect("times")
        } else {
            t.saturating_add(rng.random_range(0..100_000))
        };
        let length = if rng.random_bool(odd) {
            *[0, 1, 1 << 40, 4095].choose(rng).expect("lengths")
        } else {
            4096 * rng.random_range(1..8)
        };
        let offset = if rng.random_bool(odd) {
            *[u64::MAX - length, 1 << 50, 1]
                .choose(rng)
                .expect("offsets")
        } else {
            4096 * rng.random_range(0..64)
        };
        let rec = TraceRecord {
            time_ns: t,
            op,
            offset_bytes: offset,
            length_bytes: length,
            src_offset_bytes: if op.has_source() {
                4096 * rng.random_range(0..64)
            } else {
                0
            },
            device: rng.random_bool(0.3).then(|| rng.random_range(0..3)),
            stream: rng.random_bool(0.3).then(|| rng.random_range(0..4)),
            context: rng.random_bool(0.5).then(|| rng.random_range(0..5)),
            fingerprints: if rng.random_bool(0.3) && length <= 8 * 4096 {
                (0..length.div_ceil(4096)).map(|_| rng.random()).collect()
            } else {
                Vec::new()
            },
        };
        // Records the writer refuses are simply left out.
        let _ = w.write(&rec);
    }
    w.finish().expect("in memory")
}

fn vscsi(rng: &mut Rng64, n: usize, odd: f64) -> Vec<u8> {
    let v2 = rng.random_bool(0.5);
    let mut out = Vec::new();
    let mut ts: u64 = 1000;
    for sn in 0..n as u32 {
        let cmd: u16 = *[0x28u16, 0x2a, 0x88, 0x8a, 0x35, 0x42, 0x12]
            .choose(rng)
            .expect("cmds");
        let len: u32 = if rng.random_bool(odd) {
            *[0, u32::MAX, 511].choose(rng).expect("lens")
        } else {
            4096 * rng.random_range(1..4)
        };
        let lbn: u64 = if rng.random_bool(odd) {
            *[u64::MAX, u64::MAX / 512, 1 << 40]
                .choose(rng)
                .expect("lbns")
        } else {
            8 * rng.random_range(0..64)
        };
        ts = if rng.random_bool(odd) {
            *[0, u64::MAX, u64::MAX / 1000].choose(rng).expect("ts")
        } else {
            ts.saturating_add(rng.random_range(0..1000))
        };
        if v2 {
            out.extend_from_slice(&cmd.to_le_bytes());
            out.extend_from_slice(&0x0200u16.to_le_bytes());
            out.extend_from_slice(&sn.to_le_bytes());
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&1u32.to_le_bytes());
            out.extend_from_slice(&lbn.to_le_bytes());
            out.extend_from_slice(&ts.to_le_bytes());
            out.extend_from_slice(&100u64.to_le_bytes());
        } else {
            out.extend_from_slice(&sn.to_le_bytes());
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(&1u32.to_le_bytes());
            out.extend_from_slice(&cmd.to_le_bytes());
            out.extend_from_slice(&0x0100u16.to_le_bytes());
            out.extend_from_slice(&lbn.to_le_bytes());
            out.extend_from_slice(&ts.to_le_bytes());
        }
    }
    out
}

/// Byte-level damage: flips, insertions, truncation, repeated slices.
fn mutate_bytes(rng: &mut Rng64, data: &mut Vec<u8>) {
    for _ in 0..rng.random_range(1..4) {
        if data.is_empty() {
            data.push(rng.random());
            continue;
        }
        let at = rng.random_range(0..data.len());
        match rng.random_range(0..5) {
            0 => data[at] ^= 1 << rng.random_range(0..8),
            1 => {
                data[at] = *[0u8, 0xff, b'\n', b',', b' ', b'9', 0x80]
                    .choose(rng)
                    .expect("b")
            }
            2 => data.truncate(at),
            3 => {
                let end = (at + rng.random_range(1..64)).min(data.len());
                let piece = data[at..end].to_vec();
                for _ in 0..rng.random_range(1..20) {
                    data.splice(at..at, piece.iter().copied());
                }
            }
            _ => {
                let junk: Vec<u8> = (0..rng.random_range(1..16)).map(|_| rng.random()).collect();
                data.splice(at..at, junk);
            }
        }
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).expect("in memory");
    enc.finish().expect("in memory")
}

/// A trace of `format` (mostly valid), its bytes.
pub fn trace(rng: &mut Rng64, format: &str) -> Vec<u8> {
    let n = match rng.random_range(0..100) {
        0..=4 => 0,
        5..=89 => rng.random_range(1..40),
        _ => rng.random_range(500..3000),
    };
    // Most samples are clean; the rest have odd fields now and then.
    let odd = if rng.random_bool(0.5) { 0.0 } else { 0.05 };
    let mut data = match format {
        "native" => native(rng, n, odd),
        "vscsi" => vscsi(rng, n, odd),
        _ => {
            let mut text = text_lines(rng, format, n, odd).join("\n");
            if rng.random_bool(0.8) {
                text.push('\n');
            }
            text.into_bytes()
        }
    };
    match rng.random_range(0..100) {
        0..=59 => {}
        60..=84 => mutate_bytes(rng, &mut data),
        85..=89 => {
            data = (0..rng.random_range(0..512))
                .map(|_| rng.random())
                .collect()
        }
        90..=94 => data = gzip(&data),
        95..=97 => data = zstd::encode_all(data.as_slice(), 1).expect("in memory"),
        _ => {
            let mut gz = gzip(&data);
            let keep = rng.random_range(0..gz.len().max(1));
            gz.truncate(keep);
            data = gz;
        }
    }
    data
}
