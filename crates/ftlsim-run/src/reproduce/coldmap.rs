//! `ftlsim reproduce coldmap`: the Coldmap paper (Seo and Koo) scaled to fit.
//!
//! The experiment is data: one config per workload in `examples/coldmap/`
//! (embedded here, so the binary needs no files), and one list of key
//! overrides per variant. This module runs the grid, normalizes to the
//! baseline as the paper's figures do, and sets our numbers next to the
//! paper's. docs/coldmap.md explains the setup and the differences.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};
use ftlsim::config::{Amount, Config, WorkloadType};
use ftlsim::Report;
use plotters::prelude::*;

/// One workload: a full config of the "remap" variant, for the 16 GiB device.
struct WorkloadDef {
    name: &'static str,
    title: &'static str,
    toml: &'static str,
    /// A trace file the config replays, looked up in the traces folder; the
    /// workload is skipped when the file is absent.
    trace_file: Option<&'static str>,
}

const WORKLOADS: &[WorkloadDef] = &[
    WorkloadDef {
        name: "fio",
        title: "fio-like: 4 KiB uniform random writes, 30 % duplicates",
        toml: include_str!("../../../../examples/coldmap/fio.toml"),
        trace_file: None,
    },
    WorkloadDef {
        name: "tpcc",
        title: "TPC-C stand-in: 8 KiB, 63 % reads, writes 80/20 hot/cold, 25 % duplicates",
        toml: include_str!("../../../../examples/coldmap/tpcc.toml"),
        trace_file: None,
    },
    WorkloadDef {
        name: "sysbench",
        title: "sysbench stand-in: 16 KiB updates, 60 tables, Pareto h = 0.2, 50 % duplicates",
        toml: include_str!("../../../../examples/coldmap/sysbench.toml"),
        trace_file: None,
    },
    WorkloadDef {
        name: "ycsb",
        title: "YCSB stand-in: 80 % writes, Zipf 0.99, 75 % duplicates",
        toml: include_str!("../../../../examples/coldmap/ycsb.toml"),
        trace_file: None,
    },
    WorkloadDef {
        name: "homes",
        title:
            "real trace: FIU homes.replay.0, MD5 per sector (998 page writes, 125-page footprint)",
        toml: include_str!("../../../../examples/coldmap/homes.toml"),
        trace_file: Some("homes.replay.0"),
    },
];

/// A variant: key overrides applied to every workload's config.
struct VariantDef {
    name: &'static str,
    sets: &'static [&'static str],
}

const BASELINE: &str = "baseline";
const REMAP: &str = "remap";
const COLDMAP: &str = "coldmap";
const COLDMAP_AGE: &str = "coldmap-age";
const REMAP_SEPARATE: &str = "remap-separate";

const VARIANTS: &[VariantDef] = &[
    // A plain page-mapped SSD: duplicates are programmed like any page.
    VariantDef {
        name: BASELINE,
        sets: &[
            "ftl.dedup=false",
            "ftl.placement=normal",
            "ftl.frontiers=shared",
        ],
    },
    // Remap-based dedup SSD with normal GC: host writes and GC copies share an open block.
    VariantDef {
        name: REMAP,
        sets: &[
            "ftl.dedup=true",
            "ftl.placement=normal",
            "ftl.frontiers=shared",
        ],
    },
    // Coldmap: GC copies mapped by >= 2 LPNs go to a cold zone of the most-erased
    // blocks; other GC copies to a GC open block.
    VariantDef {
        name: COLDMAP,
        sets: &["ftl.dedup=true", "ftl.placement=coldmap"],
    },
    // Ours: Coldmap plus single-mapped GC copies older than the mean
    // single-mapped survival seen so far.
    VariantDef {
        name: COLDMAP_AGE,
        sets: &["ftl.dedup=true", "ftl.placement=coldmap-age"],
    },
    // Ablation: remap with GC copies in their own open block and no cold
    // zone, so that coldmap − remap-separate is the cold zone's own effect.
    VariantDef {
        name: REMAP_SEPARATE,
        sets: &[
            "ftl.dedup=true",
            "ftl.placement=normal",
            "ftl.frontiers=separate",
        ],
    },
];

/// The paper's headline numbers (Seo and Koo, Coldmap).
mod paper {
    /// Coldmap's GC count as a share of a plain SSD's.
    pub const GC_VS_BASELINE: f64 = 0.23;
    /// Coldmap against a remap-based SSD without it, relative change.
    pub const WAF_VS_REMAP: f64 = -0.311;
    pub const LIFETIME_VS_REMAP: f64 = 0.843;
    pub const IOPS_VS_REMAP: f64 = 0.154;
    /// Multi-mapped pages live this much longer than single-mapped ones.
    pub const MULTI_VS_SINGLE_SURVIVAL: f64 = 0.53;
}

/// Blocks of the `--quick` device: 1 GiB, the 16 GiB device scaled by 1/16.
const QUICK_BLOCKS: u32 = 1024;

/// Where an experiment is: runs done of the total, and the run starting now.
pub struct RunProgress<'a> {
    pub done: usize,
    pub total: usize,
    pub label: &'a str,
}

pub struct Options {
    pub quick: bool,
    pub json: bool,
    pub out: Option<PathBuf>,
    pub sets: Vec<String>,
    pub only: Vec<String>,
    pub traces: Option<PathBuf>,
}

/// One workload's runs, in `VARIANTS` order.
pub struct WorkloadResult {
    pub name: &'static str,
    pub title: &'static str,
    pub config: Config,
    pub variants: Vec<(&'static str, Report)>,
}

impl WorkloadResult {
    fn get(&self, variant: &str) -> Option<&Report> {
        self.variants
            .iter()
            .find(|(n, _)| *n == variant)
            .map(|(_, r)| r)
    }
}

/// Where the real traces are: `--traces`, else `../shared/traces` from the
/// working directory, else from the source tree.
fn trace_dirs(opts: &Options) -> Vec<PathBuf> {
    match &opts.traces {
        Some(d) => vec![d.clone()],
        None => vec![
            PathBuf::from("../shared/traces"),
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"),
        ],
    }
}

/// Hook for the real-trace workload: the path of its trace, when present.
fn find_trace(opts: &Options, file: &str) -> Option<PathBuf> {
    trace_dirs(opts)
        .into_iter()
        .map(|d| d.join(file))
        .find(|p| p.is_file())
}

/// The config of one workload under one variant, at the chosen scale.
fn build_config(
    def: &WorkloadDef,
    variant: &VariantDef,
    opts: &Options,
    trace: Option<&Path>,
) -> Result<Config> {
    let origin = format!("examples/coldmap/{}.toml ({})", def.name, variant.name);
    let mut table: toml::Table = toml::from_str(def.toml).map_err(|e| anyhow!("{origin}: {e}"))?;
    for s in variant.sets {
        crate::load::apply_set(&mut table, s)?;
    }
    if let Some(path) = trace {
        let path = path
            .to_str()
            .ok_or_else(|| anyhow!("trace path {} is not valid UTF-8", path.display()))?;
        crate::load::apply_set(&mut table, &format!("workload.trace.path=\"{path}\""))?;
    }
    let synthetic = trace.is_none();
    if opts.quick && synthetic {
        crate::load::apply_set(&mut table, &format!("device.blocks={QUICK_BLOCKS}"))?;
    }
    for s in &opts.sets {
        crate::load::apply_set(&mut table, s)?;
    }
    let mut cfg = crate::load::config_from_table(table, &origin)?;
    if opts.quick && synthetic {
        let window = cfg.logical_pages();
        set_window(&mut cfg, window);
        cfg.validate().map_err(|e| anyhow!("{origin}: {e}"))?;
    }
    Ok(cfg)
}

/// Sets the measured window to `pages` host page writes: as pages for a
/// write-only workload, as requests for a read/write mix.
fn set_window(cfg: &mut Config, pages: u64) {
    let w = &mut cfg.workload;
    if w.requests.is_some() {
        let write_share = (1.0 - w.read_fraction - w.trim_fraction).max(1e-9);
        let requests = pages as f64 / f64::from(w.request_pages) / write_share;
        w.requests = Some(requests.ceil() as u64);
    } else {
        w.writes = Some(Amount::Pages(pages));
    }
}

/// Runs the whole grid.
pub fn run_experiment(
    opts: &Options,
    progress: &mut dyn FnMut(RunProgress<'_>),
) -> Result<Vec<WorkloadResult>> {
    for name in &opts.only {
        if !WORKLOADS.iter().any(|w| w.name == name) {
            let names: Vec<&str> = WORKLOADS.iter().map(|w| w.name).collect();
            return Err(anyhow!(
                "--only: no workload `{name}`; the workloads are {}",
                names.join(", ")
            ));
        }
    }
    let mut plan = Vec::new();
    for def in WORKLOADS {
        if !opts.only.is_empty() && !opts.only.iter().any(|n| n == def.name) {
            continue;
        }
        let trace = match def.trace_file {
            None => None,
            Some(file) => match find_trace(opts, file) {
                Some(p) => Some(p),
                None => {
                    eprintln!(
                        "ftlsim: {file} not found in {}: skipping the `{}` workload",
                        trace_dirs(opts)
                            .iter()
                            .map(|d| d.display().to_string())
                            .collect::<Vec<_>>()
                            .join(" or "),
                        def.name
                    );
                    continue;
                }
            },
        };
        plan.push((def, trace));
    }
    let total = plan.len() * VARIANTS.len();
    let mut done = 0;
    let mut results = Vec::with_capacity(plan.len());
    for (def, trace) in plan {
        let mut variants = Vec::with_capacity(VARIANTS.len());
        let mut first_config = None;
        for v in VARIANTS {
            let cfg = build_config(def, v, opts, trace.as_deref())?;
            progress(RunProgress {
                done,
                total,
                label: &format!("{}/{}", def.name, v.name),
            });
            let report = crate::simulate::simulate(&cfg, false, &mut |_| {})
                .with_context(|| format!("workload {} variant {}", def.name, v.name))?;
            done += 1;
            first_config.get_or_insert(cfg);
            variants.push((v.name, report));
        }
        results.push(WorkloadResult {
            name: def.name,
            title: def.title,
            config: first_config.expect("at least one variant"),
            variants,
        });
    }
    Ok(results)
}

/// `{"workloads": {NAME: {VARIANT: report}}}`.
pub fn to_json(results: &[WorkloadResult]) -> Result<serde_json::Value> {
    let mut workloads = serde_json::Map::new();
    for w in results {
        let mut variants = serde_json::Map::new();
        for (name, report) in &w.variants {
            variants.insert(name.to_string(), serde_json::to_value(report)?);
        }
        workloads.insert(w.name.to_string(), serde_json::Value::Object(variants));
    }
    Ok(serde_json::json!({ "workloads": workloads }))
}

/// The metrics the paper plots, per report; `None` when undefined
/// (lifetime without erases, IOPS without the timing model).
#[derive(Clone, Copy)]
enum Metric {
    GcCount,
    Waf,
    Erases,
    Lifetime,
    WorstLifetime,
    Iops,
}

impl Metric {
    fn of(self, r: &Report) -> Option<f64> {
        match self {
            Metric::GcCount => Some(r.window.gc_count as f64),
            Metric::Waf => r.window.waf,
            Metric::Erases => Some(r.window.erase_count as f64),
            Metric::Lifetime => r.lifetime.lifetime_host_write_bytes,
            Metric::WorstLifetime => r.lifetime.lifetime_worst_block_drive_writes,
            Metric::Iops => r.timing.iops,
        }
    }

    fn file(self) -> &'static str {
        match self {
            Metric::GcCount => "gc_count",
            Metric::Waf => "waf",
            Metric::Erases => "erase_count",
            Metric::Lifetime => "lifetime",
            Metric::WorstLifetime => "lifetime_worst_block",
            Metric::Iops => "iops",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Metric::GcCount => "GC count",
            Metric::Waf => "WAF",
            Metric::Erases => "erase count",
            Metric::Lifetime => "lifetime",
            Metric::WorstLifetime => "lifetime (most-worn block)",
            Metric::Iops => "IOPS",
        }
    }
}

const NORMALIZED: [Metric; 5] = [
    Metric::GcCount,
    Metric::Waf,
    Metric::Erases,
    Metric::Lifetime,
    Metric::Iops,
];

/// `a / b`, when both exist and `b` is not zero.
fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 && a.is_finite() && b.is_finite() => Some(a / b),
        _ => None,
    }
}

fn normalized(w: &WorkloadResult, variant: &str, m: Metric) -> Option<f64> {
    let base = w.get(BASELINE)?;
    ratio(m.of(w.get(variant)?), m.of(base))
}

/// Relative change of `a` against `b` (−0.31 = 31 % less).
fn change(w: &WorkloadResult, a: &str, b: &str, m: Metric) -> Option<f64> {
    ratio(m.of(w.get(a)?), m.of(w.get(b)?)).map(|x| x - 1.0)
}

/// How much longer multi-mapped pages live than single-mapped ones, in a variant.
fn multi_vs_single(r: &Report) -> Option<f64> {
    match (
        r.sharing.survival_multi_count,
        r.sharing.survival_single_count,
    ) {
        (Some(m), Some(s)) if m > 0 && s > 0 => ratio(
            r.sharing.survival_multi_mean,
            r.sharing.survival_single_mean,
        )
        .map(|x| x - 1.0),
        _ => None,
    }
}

fn fmt_opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

fn pct(v: Option<f64>) -> String {
    fmt_opt(v, |x| format!("{:+.1} %", x * 100.0))
}

/// A count in host page writes, short: 3.49M.
fn short(x: f64) -> String {
    if x >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else {
        format!("{x:.0}")
    }
}

/// The paper's direction on one workload: each claim and whether it holds.
pub fn directions(w: &WorkloadResult) -> Vec<(String, bool)> {
    let (Some(b), Some(r), Some(c)) = (w.get(BASELINE), w.get(REMAP), w.get(COLDMAP)) else {
        return Vec::new();
    };
    let life = |x: &Report| {
        x.lifetime
            .lifetime_host_write_bytes
            .unwrap_or(f64::INFINITY)
    };
    vec![
        (
            "GC count coldmap < remap < baseline".into(),
            c.window.gc_count < r.window.gc_count && r.window.gc_count < b.window.gc_count,
        ),
        (
            "WAF coldmap < remap < baseline".into(),
            c.window.waf < r.window.waf && r.window.waf < b.window.waf,
        ),
        (
            "lifetime coldmap > remap > baseline".into(),
            life(c) > life(r) && life(r) > life(b),
        ),
        (
            "multi-mapped pages outlive single-mapped ones (coldmap)".into(),
            multi_vs_single(c).is_some_and(|x| x > 0.0),
        ),
    ]
}

fn setup_line(results: &[WorkloadResult], quick: bool) -> String {
    let Some(cfg) = results
        .iter()
        .find(|w| w.config.workload.kind != WorkloadType::Trace)
        .map(|w| &w.config)
    else {
        return String::new();
    };
    let d = &cfg.device;
    let gib = |pages: u64| pages as f64 * f64::from(d.page_bytes) / f64::from(1u32 << 30);
    let window = if quick {
        format!(
            "{:.2} GiB of host writes (1x logical: a 1/16 device needs a longer window to resolve differences)",
            gib(cfg.logical_pages())
        )
    } else {
        "2 GiB of host writes (the paper's run)".to_string()
    };
    format!(
        "Coldmap reproduction (Seo and Koo){}: {} GiB device ({} blocks x {} pages x {} B), {} GiB logical (Sf {}),\n\
         sequential fill of the logical space with unique content, {} warm-up of the workload to GC steady state,\n\
         measured window {window}; greedy GC, P/E limit {}, seed {}.\n",
        if quick { " --quick" } else { "" },
        gib(cfg.physical_pages()),
        d.blocks,
        d.pages_per_block,
        d.page_bytes,
        gib(cfg.logical_pages()),
        d.spare_factor,
        cfg.workload
            .warmup
            .map_or_else(|| "default".to_string(), |a| a.to_string()),
        d.pe_cycle_limit,
        cfg.workload.seed
    )
}

/// The terminal table: per workload and variant, then the paper comparison.
pub fn render(results: &[WorkloadResult], quick: bool) -> String {
    let mut s = setup_line(results, quick);
    for w in results {
        let _ = writeln!(s, "\n{}: {}", w.name, w.title);
        let _ = writeln!(
            s,
            "{:<15} {:>8} {:>7} {:>8} {:>9} {:>8} {:>6} {:>9} {:>9} {:>8} | {:>6} {:>6} {:>6} {:>6} {:>6}",
            "variant",
            "GC count",
            "WAF",
            "erases",
            "life DW",
            "IOPS",
            "dedup",
            "surv 1",
            "surv 2+",
            "2+ vs 1",
            "GC/b",
            "WAF/b",
            "ers/b",
            "life/b",
            "IOPS/b"
        );
        for (name, r) in &w.variants {
            let norm: Vec<String> = NORMALIZED
                .iter()
                .map(|&m| fmt_opt(normalized(w, name, m), |x| format!("{x:.3}")))
                .collect();
            let _ = writeln!(
                s,
                "{:<15} {:>8} {:>7.3} {:>8} {:>9} {:>8} {:>6} {:>9} {:>9} {:>8} | {:>6} {:>6} {:>6} {:>6} {:>6}",
                name,
                r.window.gc_count,
                r.window.waf.unwrap_or(f64::NAN),
                r.window.erase_count,
                fmt_opt(r.lifetime.lifetime_drive_writes, |x| format!("{x:.0}")),
                fmt_opt(r.timing.iops, |x| format!("{x:.0}")),
                fmt_opt(r.sharing.dedup_ratio, |x| format!("{:.1}%", x * 100.0)),
                fmt_opt(r.sharing.survival_single_mean.filter(|_| r.sharing.survival_single_count > Some(0)), short),
                fmt_opt(r.sharing.survival_multi_mean.filter(|_| r.sharing.survival_multi_count > Some(0)), short),
                pct(multi_vs_single(r)),
                norm[0],
                norm[1],
                norm[2],
                norm[3],
                norm[4]
            );
        }
    }
    s += "\nlife DW: lifetime in drive writes (host data written before the P/E budget is spent, at the measured\n\
          erase rate, wear assumed even; the paper table also shows it by the most-worn block); surv 1 / surv 2+: mean survival of single- / multi-mapped pages in host page writes;\n\
          X/b: normalized to baseline.\n";
    s += &paper_table(results);
    if let Some(fio) = results.iter().find(|w| w.name == "fio") {
        s += "\nthe paper's direction on fio:\n";
        for (claim, holds) in directions(fio) {
            let _ = writeln!(
                s,
                "  {:<58} {}",
                claim,
                if holds { "holds" } else { "DOES NOT HOLD" }
            );
        }
    }
    s
}

/// Our numbers next to the paper's, one column per workload.
fn paper_table(results: &[WorkloadResult]) -> String {
    type Row = (&'static str, String, Box<dyn Fn(&WorkloadResult) -> String>);
    let rows: Vec<Row> = vec![
        (
            "coldmap GC count / baseline",
            format!("{:.2}", paper::GC_VS_BASELINE),
            Box::new(|w| {
                fmt_opt(normalized(w, COLDMAP, Metric::GcCount), |x| {
                    format!("{x:.2}")
                })
            }),
        ),
        (
            "coldmap WAF vs remap",
            pct(Some(paper::WAF_VS_REMAP)),
            Box::new(|w| pct(change(w, COLDMAP, REMAP, Metric::Waf))),
        ),
        (
            "coldmap lifetime vs remap",
            pct(Some(paper::LIFETIME_VS_REMAP)),
            Box::new(|w| pct(change(w, COLDMAP, REMAP, Metric::Lifetime))),
        ),
        (
            "coldmap lifetime (most-worn block) vs remap",
            pct(Some(paper::LIFETIME_VS_REMAP)),
            Box::new(|w| pct(change(w, COLDMAP, REMAP, Metric::WorstLifetime))),
        ),
        (
            "coldmap IOPS vs remap",
            pct(Some(paper::IOPS_VS_REMAP)),
            Box::new(|w| pct(change(w, COLDMAP, REMAP, Metric::Iops))),
        ),
        (
            "multi- vs single-mapped survival",
            pct(Some(paper::MULTI_VS_SINGLE_SURVIVAL)),
            Box::new(|w| pct(w.get(COLDMAP).and_then(multi_vs_single))),
        ),
        (
            "remap GC count / baseline",
            "-".into(),
            Box::new(|w| fmt_opt(normalized(w, REMAP, Metric::GcCount), |x| format!("{x:.2}"))),
        ),
        (
            "cold zone alone: WAF coldmap vs remap-separate",
            "-".into(),
            Box::new(|w| pct(change(w, COLDMAP, REMAP_SEPARATE, Metric::Waf))),
        ),
        (
            "cold zone alone: lifetime (most-worn) vs remap-sep.",
            "-".into(),
            Box::new(|w| pct(change(w, COLDMAP, REMAP_SEPARATE, Metric::WorstLifetime))),
        ),
        (
            "ours: WAF coldmap-age vs coldmap",
            "-".into(),
            Box::new(|w| pct(change(w, COLDMAP_AGE, COLDMAP, Metric::Waf))),
        ),
        (
            "ours: lifetime coldmap-age vs coldmap",
            "-".into(),
            Box::new(|w| pct(change(w, COLDMAP_AGE, COLDMAP, Metric::Lifetime))),
        ),
    ];
    let mut s = format!("\n{:<48} {:>8}", "paper (Seo and Koo) vs ours", "paper");
    for w in results {
        let _ = write!(s, " {:>9}", w.name);
    }
    s.push('\n');
    for (label, paper_value, ours) in &rows {
        let _ = write!(s, "{label:<48} {paper_value:>8}");
        for w in results {
            let _ = write!(s, " {:>9}", ours(w));
        }
        s.push('\n');
    }
    s
}

/// results.csv (one row per workload and variant: normalized metrics, then
/// every report field), results.json, and one SVG bar chart per metric.
pub fn write_outputs(dir: &Path, results: &[WorkloadResult], quick: bool) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let path = dir.join("results.csv");
    std::fs::write(&path, csv_text(results)?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let path = dir.join("results.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&to_json(results)?)? + "\n",
    )
    .with_context(|| format!("cannot write {}", path.display()))?;
    let path = dir.join("summary.txt");
    std::fs::write(&path, render(results, quick))
        .with_context(|| format!("cannot write {}", path.display()))?;
    for m in [
        Metric::GcCount,
        Metric::Waf,
        Metric::Lifetime,
        Metric::WorstLifetime,
        Metric::Iops,
    ] {
        let values: Vec<Vec<Option<f64>>> = results
            .iter()
            .map(|w| VARIANTS.iter().map(|v| normalized(w, v.name, m)).collect())
            .collect();
        if values.iter().flatten().all(Option::is_none) {
            continue;
        }
        let path = dir.join(format!("{}.svg", m.file()));
        bar_chart(
            &path,
            &format!("{}, normalized to baseline", m.label()),
            results,
            &values,
        )?;
    }
    Ok(())
}

fn csv_text(results: &[WorkloadResult]) -> Result<String> {
    let mut out = String::new();
    for (i, w) in results.iter().enumerate() {
        for (j, (name, report)) in w.variants.iter().enumerate() {
            // A one-row CSV of the report gives its header and its values.
            let mut writer = csv::Writer::from_writer(Vec::new());
            writer.serialize(report)?;
            let text = String::from_utf8(writer.into_inner().map_err(|e| anyhow!("{e}"))?)?;
            let mut lines = text.lines();
            let (header, values) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
            if i == 0 && j == 0 {
                out += "workload,variant,dedup_fraction";
                for m in NORMALIZED {
                    let _ = write!(out, ",{}_vs_baseline", m.file());
                }
                let _ = writeln!(out, ",{header}");
            }
            let _ = write!(
                out,
                "{},{},{}",
                w.name, name, w.config.workload.dedup_fraction
            );
            for m in NORMALIZED {
                let _ = write!(
                    out,
                    ",{}",
                    normalized(w, name, m).map_or(String::new(), |x| x.to_string())
                );
            }
            let _ = writeln!(out, ",{values}");
        }
    }
    Ok(out)
}

fn variant_color(i: usize) -> RGBColor {
    const COLORS: [RGBColor; 5] = [
        RGBColor(130, 130, 130),
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(255, 127, 14),
    ];
    COLORS[i % COLORS.len()]
}

/// Grouped bars: one group per workload (centered on its index), one bar per variant.
fn bar_chart(
    path: &Path,
    title: &str,
    results: &[WorkloadResult],
    values: &[Vec<Option<f64>>],
) -> Result<()> {
    let groups = results.len();
    let names: Vec<&str> = results.iter().map(|w| w.name).collect();
    let y_max = values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .fold(1.0f64, f64::max)
        * 1.4; // headroom for the legend
    let root = SVGBackend::new(path, (1000, 520)).into_drawing_area();
    root.fill(&WHITE)
        .map_err(|e| anyhow!("plot {}: {e}", path.display()))?;
    let draw = || -> Result<(), Box<dyn std::error::Error + '_>> {
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5..groups as f64 - 0.5, 0.0..y_max)?;
        let label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() < 1e-9 && i >= 0.0 && (i as usize) < names.len() {
                names[i as usize].to_string()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(groups.max(2))
            .x_label_formatter(&label)
            .x_desc("workload")
            .y_desc("relative to baseline")
            .draw()?;
        let bars = VARIANTS.len() as f64;
        let width = 0.8 / bars;
        for (vi, v) in VARIANTS.iter().enumerate() {
            let color = variant_color(vi);
            let rects = values.iter().enumerate().filter_map(|(gi, row)| {
                let y = row[vi]?;
                let x0 = gi as f64 - 0.4 + vi as f64 * width;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + width * 0.9, y)],
                    color.filled(),
                ))
            });
            chart
                .draw_series(rects)?
                .label(v.name)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                });
        }
        chart.draw_series(LineSeries::new(
            [(-0.5, 1.0), (groups as f64 - 0.5, 1.0)],
            BLACK.stroke_width(1),
        ))?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| anyhow!("plot {}: {e}", path.display()))
}
