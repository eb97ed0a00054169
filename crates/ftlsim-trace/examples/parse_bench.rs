//! Parse-speed benchmark: MSR CSV lines/s and native records/s.
//!
//! ```text
//! cargo run --release -p ftlsim-trace --example parse_bench [-- LINES]
//! ```
//!
//! Writes its inputs to a temporary directory (removed at the end) and
//! prints one line per measurement. Targets: MSR ≥ 1 M lines/s, native
//! ≥ 5 M records/s in release mode.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::time::Instant;

use ftlsim_trace::{
    open, Format, NativeWriter, PageOptions, PageRequest, PageStream, ReaderOptions, TraceRecord,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let lines: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2_000_000);
    let dir = std::env::temp_dir().join(format!("ftlsim-parse-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let msr = dir.join("bench.csv");
    let native = dir.join("bench.ftl");

    // MSR CSV input, realistic field widths.
    let mut w = BufWriter::new(File::create(&msr)?);
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for i in 0..lines {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let offset = (x % (1 << 28)) * 4096;
        let size = 4096 << (x % 5);
        let op = if x & 1 == 0 { "Read" } else { "Write" };
        writeln!(
            w,
            "{},hm,{},{op},{offset},{size},{}",
            128_166_372_003_061_629 + i * 1_000,
            x % 3,
            x % 100_000
        )?;
    }
    w.flush()?;
    drop(w);
    let msr_bytes = std::fs::metadata(&msr)?.len();

    let opts = ReaderOptions {
        format: Some(Format::Msr),
        ..ReaderOptions::default()
    };
    let mut rec = TraceRecord::default();
    let mut best = f64::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let mut reader = open(&msr, &opts)?;
        let mut n = 0u64;
        while reader.next_record(&mut rec)? {
            n += 1;
        }
        assert_eq!(n, lines);
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "msr csv: {lines} lines in {best:.3} s = {:.2} M lines/s ({:.0} MB/s)",
        lines as f64 / best / 1e6,
        msr_bytes as f64 / best / 1e6
    );

    // Native: convert, then read.
    let mut reader = open(&msr, &opts)?;
    let mut nw = NativeWriter::new(BufWriter::new(File::create(&native)?))?;
    while reader.next_record(&mut rec)? {
        nw.write(&rec)?;
    }
    nw.finish()?;
    let native_bytes = std::fs::metadata(&native)?.len();
    let mut best = f64::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let mut reader = open(&native, &ReaderOptions::default())?;
        let mut n = 0u64;
        while reader.next_record(&mut rec)? {
            n += 1;
        }
        assert_eq!(n, lines);
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "native:  {lines} records in {best:.3} s = {:.2} M records/s ({:.1} bytes/record)",
        lines as f64 / best / 1e6,
        native_bytes as f64 / lines as f64
    );

    // Page requests from the native file, with compact mapping.
    let start = Instant::now();
    let popts = PageOptions {
        compact: true,
        ..PageOptions::default()
    };
    let mut pages = PageStream::open(&native, &ReaderOptions::default(), &popts)?;
    let mut req = PageRequest::default();
    let mut n = 0u64;
    while pages.next_request(&mut req)? {
        n += 1;
    }
    let t = start.elapsed().as_secs_f64();
    println!(
        "pages:   {n} page requests (compact) in {t:.3} s = {:.2} M requests/s",
        n as f64 / t / 1e6
    );

    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
