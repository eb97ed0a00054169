//! `ftlsim bench`: simulation throughput (host page writes per second) and memory.

use std::time::Instant;

use anyhow::Result;
use ftlsim::config::{Amount, Config, WorkloadType};
use ftlsim::{RunOptions, Simulation};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct BenchCase {
    pub name: String,
    pub blocks: u32,
    pub pages_per_block: u32,
    pub spare_factor: f64,
    /// Median over the timed segments.
    pub host_writes_per_sec: f64,
    pub segments_writes_per_sec: Vec<f64>,
    pub waf: f64,
    pub state_bytes_per_physical_page: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// The headline: the first case (64 GiB, Sf 0.28 unless --quick).
    pub host_writes_per_sec: f64,
    pub peak_rss_bytes: Option<u64>,
    pub bytes_per_physical_page: f64,
    pub cases: Vec<BenchCase>,
}

/// Peak resident set size of this process (Linux VmHWM), if it can be read.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

/// Uniform random single-page writes, greedy GC, every metric on.
fn device(blocks: u32, pages_per_block: u32, spare_factor: f64) -> Config {
    let mut c = Config::default();
    c.device.blocks = blocks;
    c.device.pages_per_block = pages_per_block;
    c.device.spare_factor = spare_factor;
    c.workload.kind = WorkloadType::Uniform;
    c.workload.warmup = Amount::Capacity(1.5);
    c.workload.writes = Some(Amount::Capacity(0.5));
    c.metrics.survival = true;
    c
}

pub fn run_bench(
    quick: bool,
    segments: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchReport> {
    let blocks = if quick { 4096 } else { 65_536 };
    let mut cases = Vec::new();
    for sf in [0.28, 0.07] {
        let name = format!("uniform greedy {blocks} blocks x 256 pages, Sf {sf}");
        progress(&name);
        let cfg = device(blocks, 256, sf);
        let mut sim = Simulation::new(&cfg, &RunOptions::default())?;
        sim.precondition(&mut |_| {})?;
        sim.warm_up(&mut |_| {})?;
        let mut rates = Vec::with_capacity(segments);
        for _ in 0..segments.max(1) {
            let start = Instant::now();
            sim.measure(&mut |_| {})?;
            rates.push(sim.measured_units() as f64 / start.elapsed().as_secs_f64());
        }
        let bytes = sim.ssd().state_bytes_per_physical_page();
        let report = sim.finish()?;
        cases.push(BenchCase {
            name,
            blocks,
            pages_per_block: 256,
            spare_factor: sf,
            host_writes_per_sec: median(&rates),
            segments_writes_per_sec: rates,
            waf: report.waf,
            state_bytes_per_physical_page: bytes,
        });
    }
    Ok(BenchReport {
        host_writes_per_sec: cases[0].host_writes_per_sec,
        peak_rss_bytes: peak_rss_bytes(),
        bytes_per_physical_page: cases[0].state_bytes_per_physical_page,
        cases,
    })
}

pub fn render(r: &BenchReport) -> String {
    let mut s = String::new();
    for c in &r.cases {
        s += &format!(
            "{:<52} {:>6.2} M host writes/s (median of {}), WAF {:.3}, {:.2} B/physical page\n",
            c.name,
            c.host_writes_per_sec / 1e6,
            c.segments_writes_per_sec.len(),
            c.waf,
            c.state_bytes_per_physical_page
        );
    }
    if let Some(rss) = r.peak_rss_bytes {
        s += &format!("peak RSS {:.1} MiB\n", rss as f64 / (1024.0 * 1024.0));
    }
    s
}
