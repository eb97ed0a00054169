//! Which stream each assigner gives each part of the rocksdb model (the
//! manual class in bits 24–31 of the tag: 1 WAL, 2 flush/L0, 3 L1, 4 L2,
//! 5 L3), and how the model's extents are reused across classes: the
//! evidence behind docs/pcstream.md's account of AutoStream vs PCStream.
//! `cargo test --release -p ftlsim --test integration pcapps_streams:: -- --nocapture`
//! also prints the tables.

use std::collections::BTreeMap;

use ftlsim::app::pcapps::AppSource;
use ftlsim::config::{Config, WorkloadType};
use ftlsim::error::SimError;
use ftlsim::host::autostream::{AutoStream, AutoStreamConfig};
use ftlsim::host::pcstream::{PcStream, PcStreamConfig, MANUAL_SHIFT};
use ftlsim::host::{HostLayer, LowerSpace};
use ftlsim::metrics::LayerStats;
use ftlsim::plan::Plan;
use ftlsim::request::{BlockDevice, Completion, Op, Request, RequestSource};

/// A device that only remembers the stream of the last write.
struct Recorder {
    pages: u64,
    last_stream: u16,
}

impl BlockDevice for Recorder {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        if req.op == Op::Write {
            self.last_stream = req.stream;
        }
        Ok(Completion::default())
    }
    fn logical_pages(&self) -> u64 {
        self.pages
    }
    fn layer_stats(&self, _out: &mut Vec<LayerStats>) {}
}

fn quick_rocksdb() -> Config {
    let mut c = Config::default();
    c.device.blocks = 2048;
    c.device.pages_per_block = 64;
    c.device.spare_factor = 0.10;
    c.ftl.streams = 9;
    c.workload.kind = WorkloadType::Rocksdb;
    c.validate().unwrap();
    c
}

/// Pages per (manual class, stream) over `writes_pages` host page writes
/// after a warm-up of the same length.
fn streams_by_class(
    c: &Config,
    layer: &mut dyn HostLayer,
    writes_pages: u64,
) -> BTreeMap<u8, BTreeMap<u16, u64>> {
    let mut src = AppSource::new(&Plan::from_config(c).unwrap().workload);
    let mut dev = Recorder {
        pages: c.logical_pages(),
        last_stream: 0,
    };
    let mut req = Request::default();
    let mut written = 0u64;
    let mut out: BTreeMap<u8, BTreeMap<u16, u64>> = BTreeMap::new();
    while written < 2 * writes_pages {
        assert!(src.next_request(&mut req).unwrap());
        layer.submit(&req, &mut dev).unwrap();
        if req.op == Op::Write {
            written += u64::from(req.pages);
            if written > writes_pages {
                let class = (req.context >> MANUAL_SHIFT) as u8;
                *out.entry(class)
                    .or_default()
                    .entry(dev.last_stream)
                    .or_insert(0) += u64::from(req.pages);
            }
        }
    }
    out
}

fn print(name: &str, t: &BTreeMap<u8, BTreeMap<u16, u64>>) {
    println!("{name}: pages by manual class (1 WAL, 2 L0, 3 L1, 4 L2, 5 L3) and stream");
    for (class, streams) in t {
        let total: u64 = streams.values().sum();
        let cells: Vec<String> = streams
            .iter()
            .map(|(s, n)| format!("s{s} {:.1}%", 100.0 * *n as f64 / total as f64))
            .collect();
        println!("  class {class}: {total} pages: {}", cells.join(", "));
    }
}

fn space(c: &Config) -> LowerSpace {
    c.device_space()
}

/// The stream that takes most of a class's pages, and its share.
fn top(streams: &BTreeMap<u16, u64>) -> (u16, f64) {
    let total: u64 = streams.values().sum();
    let (s, n) = streams.iter().max_by_key(|(_, n)| **n).expect("pages");
    (*s, *n as f64 / total as f64)
}

/// Why PCStream and AutoStream tie on rocksdb (docs/pcstream.md): PCStream
/// puts every compaction output, of every level, on one stream (one PC),
/// and AutoStream spreads every class over the same few streams, since the
/// model reuses an extent for files of any class (per-chunk counts say
/// little about a file's lifetime). Neither separates the levels.
#[test]
fn rocksdb_streams_by_class() {
    let c = quick_rocksdb();
    let n = c.logical_pages();
    let mut auto = AutoStream::new(&AutoStreamConfig::default(), &space(&c));
    let auto = streams_by_class(&c, &mut auto, n);
    print("autostream", &auto);
    let mut pcs = PcStream::new(&PcStreamConfig::default(), &space(&c));
    let pcs = streams_by_class(&c, &mut pcs, n);
    print("pcstream", &pcs);

    // PCStream: the compaction PC takes one stream for L1, L2 and L3 alike,
    // apart from the WAL's and the flush's.
    let (compaction, _) = top(&pcs[&3]);
    for class in [3, 4, 5] {
        let (s, share) = top(&pcs[&class]);
        assert!(s == compaction && share > 0.99, "class {class}: {pcs:?}");
    }
    for class in [1, 2] {
        assert_ne!(top(&pcs[&class]).0, compaction, "{pcs:?}");
    }
    // AutoStream: no class has most of its pages on a stream of its own;
    // the WAL and the last level, whose lifetimes differ most, share one.
    for class in 1..=5u8 {
        assert!(top(&auto[&class]).1 < 0.7, "class {class}: {auto:?}");
    }
    assert_eq!(top(&auto[&1]).0, top(&auto[&5]).0, "{auto:?}");

    // Extent reuse: which class last wrote each page a write overwrites.
    let mut src = AppSource::new(&Plan::from_config(&c).unwrap().workload);
    let mut req = Request::default();
    let mut owner = vec![0u8; n as usize];
    let mut reuse: BTreeMap<(u8, u8), u64> = BTreeMap::new();
    let mut written = 0;
    while written < 2 * n {
        assert!(src.next_request(&mut req).unwrap());
        if req.op == Op::Write {
            written += u64::from(req.pages);
            let class = (req.context >> MANUAL_SHIFT) as u8;
            for lpn in req.lpn..req.lpn + u64::from(req.pages) {
                if written > n {
                    *reuse.entry((owner[lpn as usize], class)).or_insert(0) += 1;
                }
                owner[lpn as usize] = class;
            }
        }
    }
    println!("pages by (class that last wrote the page, class writing it now): {reuse:?}");
    // Class 0: pages the model had not written yet.
    let total: u64 = reuse
        .iter()
        .filter(|((old, _), _)| *old != 0)
        .map(|(_, n)| n)
        .sum();
    let other: u64 = reuse
        .iter()
        .filter(|((old, new), _)| *old != 0 && old != new)
        .map(|(_, n)| n)
        .sum();
    assert!(
        other * 4 > total,
        "{other} of {total} pages over another class's"
    );
}
