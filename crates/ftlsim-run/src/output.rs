//! Presenting a run: a readable table, JSON, CSV, and an SVG plot of WAF over time.

use std::fmt::Write as _;
use std::path::Path;

use ftlsim::metrics::{LayerSeriesRow, Phase, SeriesRow};
use ftlsim::{Config, Report};
use ftlsim_trace::{check_not_input, write_via_temp};
use plotters::prelude::{RGBColor, BLUE, RED};

use crate::error::{Context, Result, RunError};
use crate::plot::{
    box_chart, line_chart, BoxChartSpec, BoxSeries, BoxSlot, ChartSpec, Line, Marker, YScale,
};

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "-".to_string(), |x| x.to_string())
}

/// The config spelling of an enum value (`greedy`, `hot-cold`, ...).
fn config_name<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn human_bytes(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    format!("{v:.1} {}", UNITS[i])
}

/// The summary a person reads at the terminal.
pub fn summary_table(cfg: &Config, r: &Report) -> String {
    let mut s = String::new();
    let d = &cfg.device;
    let capacity = r.device.logical_pages as f64 * f64::from(d.page_bytes);
    let _ = writeln!(
        s,
        "device    {} blocks x {} pages x {} B, spare factor {} ({} logical, {} physical pages, {})",
        d.blocks,
        d.pages_per_block,
        d.page_bytes,
        d.spare_factor,
        r.device.logical_pages,
        r.device.physical_pages,
        human_bytes(capacity)
    );
    let _ = writeln!(
        s,
        "ftl       gc {}, frontiers {}, {} stream{}, watermarks {}/{}",
        config_name(&cfg.ftl.gc_policy),
        config_name(&cfg.ftl.frontiers),
        cfg.ftl.streams,
        if cfg.ftl.streams == 1 { "" } else { "s" },
        cfg.ftl.gc_low_watermark,
        cfg.ftl.gc_high_watermark
    );
    if !cfg.host.layers.is_empty() {
        let names: Vec<&str> = r.layers.iter().map(|l| l.name.as_str()).collect();
        let _ = writeln!(s, "stack     {} (top to bottom)", names.join(" > "));
    }
    let _ = writeln!(
        s,
        "workload  {}, seed {}, precondition {} pages, warm-up {} pages",
        config_name(&cfg.workload.kind),
        r.seed,
        r.device.precondition_pages,
        r.device.warmup_pages
    );
    let _ = writeln!(s, "measured window:");
    let rows: Vec<(&str, String)> = vec![
        ("host write pages", r.window.host_write_pages.to_string()),
        (
            "host read pages",
            format!(
                "{} ({} unmapped)",
                r.window.host_read_pages, r.window.host_read_unmapped_pages
            ),
        ),
        ("host trim pages", r.window.host_trim_pages.to_string()),
        ("NAND write pages", r.window.nand_write_pages.to_string()),
        ("GC copy pages", r.window.gc_copy_pages.to_string()),
        ("WAF", r.window.waf.map_or_else(|| format!("- ({})", r.window.waf_null_reason.as_deref().unwrap_or("no host writes")), |w| format!("{w:.4}"))),
        ("GC count (victims)", r.window.gc_count.to_string()),
        ("erases", r.window.erase_count.to_string()),
        (
            "erase count per block",
            format!(
                "max {} min {} mean {:.2} stddev {:.2}",
                r.wear.erase_max, r.wear.erase_min, r.wear.erase_mean, r.wear.erase_stddev
            ),
        ),
        (
            "page survival (host writes)",
            match r.survival.survival_mean {
                Some(mean) => format!(
                    "mean {:.0} p50 {} p90 {} p99 {} p99.9 {}",
                    mean,
                    opt(r.survival.survival_p50),
                    opt(r.survival.survival_p90),
                    opt(r.survival.survival_p99),
                    opt(r.survival.survival_p999)
                ),
                None => "off".to_string(),
            },
        ),
        (
            "estimated lifetime",
            match (r.lifetime.lifetime_host_write_bytes, r.lifetime.lifetime_drive_writes) {
                // The run reached end of life: the lifetime is what it
                // wrote, not an estimate (which may be missing when the
                // measured window erased nothing, and is never "unbounded").
                _ if r.lifetime.end_of_life => {
                    let pages = r.device.total_host_write_pages;
                    format!(
                        "reached in this run: {} of host writes ({:.1} drive writes) before end of life",
                        human_bytes(pages as f64 * f64::from(cfg.device.page_bytes)),
                        pages as f64 / r.device.logical_pages.max(1) as f64
                    )
                }
                (Some(b), Some(dw)) => format!(
                    "{} of host writes ({dw:.0} drive writes, even wear; {} by the most-worn block)",
                    human_bytes(b),
                    opt(r.lifetime.lifetime_worst_block_drive_writes.map(|w| format!("{w:.0}")))
                ),
                _ if cfg.device.pe_cycle_limit == 0 => "unbounded (no P/E limit)".to_string(),
                _ => "unknown (no erases in the measured window)".to_string(),
            },
        ),
        (
            "end of life",
            if r.lifetime.end_of_life {
                format!("yes: {} blocks retired", r.lifetime.retired_blocks)
            } else {
                "no".to_string()
            },
        ),
        (
            "state per physical page",
            format!("{:.2} B", r.device.state_bytes_per_physical_page),
        ),
    ];
    let mut rows = rows;
    rows.extend(sharing_rows(r));
    rows.extend(mapping_cache_rows(r));
    let timing = crate::timing_output::timing_rows(cfg, r);
    for (k, v) in rows.into_iter().chain(timing) {
        let _ = writeln!(s, "  {k:<28} {v}");
    }
    if !cfg.host.layers.is_empty() {
        let _ = writeln!(s, "layers (pages in -> out, WA):");
        for l in &r.layers {
            let _ = writeln!(
                s,
                "  {:<28} {} -> {}, WA {}",
                l.name,
                l.write_pages_in,
                l.write_pages_out,
                l.wa.map_or_else(|| "-".to_string(), |w| format!("{w:.4}"))
            );
        }
        let _ = writeln!(
            s,
            "  {:<28} {}",
            "TCWA",
            r.tcwa
                .map_or_else(|| "-".to_string(), |w| format!("{w:.4}"))
        );
    }
    if let Some(lsm) = &r.lsm {
        lsm_rows(&mut s, lsm);
    }
    if r.streams.len() > 1 {
        let _ = writeln!(
            s,
            "streams (host pages, GC copies out of its blocks, blocks opened):"
        );
        for st in &r.streams {
            let _ = writeln!(
                s,
                "  stream {:<21} {}, {}, {}",
                st.stream, st.host_write_pages, st.gc_copy_pages, st.blocks_opened
            );
        }
    }
    s
}

/// The LSM engine's rows (YCSB runs): engine WA, RemapCom's counts, and
/// per level the pages compaction read and wrote.
fn lsm_rows(s: &mut String, lsm: &ftlsim::run::lsm::LsmReport) {
    let _ = writeln!(s, "lsm engine (YCSB {}, remap {}):", lsm.ycsb, lsm.remap);
    let rows = [
        ("KV operations", lsm.kv_operations.to_string()),
        (
            "user bytes written",
            human_bytes(lsm.user_write_bytes as f64),
        ),
        ("engine WA", format!("{:.4}", lsm.engine_wa)),
        (
            "TCWA (engine WA x WAF)",
            opt(lsm.tcwa.map(|t| format!("{t:.4}"))),
        ),
        ("WAL pages", lsm.wal_write_pages.to_string()),
        (
            "UDB blocks (ratio)",
            format!("{} ({:.1} %)", lsm.udb_blocks, 100.0 * lsm.udb_ratio),
        ),
        (
            "remapped blocks / pages",
            format!("{} / {}", lsm.remapped_blocks, lsm.remapped_pages),
        ),
        (
            "KV ops per simulated s",
            opt(lsm.kv_ops_per_sec.map(|k| format!("{k:.0}"))),
        ),
        (
            "KV latency p50/p99 (us)",
            match (lsm.kv_latency_p50_ns, lsm.kv_latency_p99_ns) {
                (Some(a), Some(b)) => format!("{:.1} / {:.1}", a as f64 / 1e3, b as f64 / 1e3),
                _ => "-".to_string(),
            },
        ),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "  {k:<28} {v}");
    }
    let _ = writeln!(
        s,
        "  level  written   read      WA       UDB ratio  remapped  tables"
    );
    for (level, l) in lsm.levels.iter().enumerate() {
        if l.compactions == 0 && l.tables == 0 && l.compaction_write_pages == 0 {
            continue;
        }
        let _ = writeln!(
            s,
            "  L{level:<5} {:<9} {:<9} {:<8.4} {:<10} {:<9} {}",
            l.compaction_write_pages,
            l.compaction_read_pages,
            l.wa,
            format!("{:.1} %", 100.0 * l.udb_ratio),
            l.remapped_pages,
            l.tables
        );
    }
}

/// The DFTL mapping cache's row, when it is on.
fn mapping_cache_rows(r: &Report) -> Vec<(&'static str, String)> {
    let m = &r.mapping_cache;
    let (Some(written), Some(read)) = (m.translation_write_pages, m.translation_read_pages) else {
        return Vec::new();
    };
    vec![(
        "mapping cache",
        format!(
            "hit ratio {}, translation pages written {written} read {read}",
            m.mapping_cache_hit_ratio
                .map_or_else(|| "-".to_string(), |h| format!("{:.4}", h))
        ),
    )]
}

/// Rows for the many-to-one mapping (dedup, remap), when it is on.
fn sharing_rows(r: &Report) -> Vec<(&'static str, String)> {
    let (Some(hits), Some(ratio)) = (r.sharing.dedup_hit_pages, r.sharing.dedup_ratio) else {
        return Vec::new();
    };
    let mut rows = vec![
        (
            "dedup hits (no program)",
            format!("{hits} pages ({:.1}% of host writes)", ratio * 100.0),
        ),
        (
            "survival single / multi",
            format!(
                "mean {:.0} ({} pages) / {:.0} ({} pages)",
                r.sharing.survival_single_mean.unwrap_or(0.0),
                r.sharing.survival_single_count.unwrap_or(0),
                r.sharing.survival_multi_mean.unwrap_or(0.0),
                r.sharing.survival_multi_count.unwrap_or(0)
            ),
        ),
        (
            "reverse map / index",
            format!(
                "{} extra LPNs, {} fingerprints, {}",
                r.sharing.reverse_map_entries.unwrap_or(0),
                r.sharing.dedup_index_entries.unwrap_or(0),
                human_bytes(r.sharing.sharing_state_bytes.unwrap_or(0) as f64)
            ),
        ),
    ];
    if r.sharing.remap_pages.unwrap_or(0) + r.sharing.clone_pages.unwrap_or(0) > 0 {
        rows.push((
            "remapped / cloned pages",
            format!(
                "{} / {}",
                r.sharing.remap_pages.unwrap_or(0),
                r.sharing.clone_pages.unwrap_or(0)
            ),
        ));
    }
    rows
}

/// Every file `ftlsim run --out DIR` may write.
pub(crate) const OUTPUT_FILES: [&str; 13] = [
    "summary.json",
    "summary.csv",
    "layers.csv",
    "streams.csv",
    "timeseries.csv",
    "layers_timeseries.csv",
    "lifetime.svg",
    "waf.svg",
    "latency.csv",
    "luns.csv",
    "channels.csv",
    "latency.svg",
    "index.html",
];

/// An error when an output `write_outputs` may write into `dir` is one of
/// `inputs`: checked before a run, so that it fails before its work.
pub fn check_outputs(dir: &Path, inputs: &[&Path]) -> Result<()> {
    for name in OUTPUT_FILES {
        let path = dir.join(name);
        check_not_input(&path, inputs).with_context(|| format!("--out {}", path.display()))?;
    }
    Ok(())
}

/// How a run's outputs were made, for the people who read them: index.html
/// shows it, and the lifetime chart names the workload and variant from it.
pub struct RunAbout {
    /// The command line that made the outputs, as a shell takes it back.
    pub command_line: String,
    /// The config file, when one was given.
    pub config_path: Option<std::path::PathBuf>,
}

/// The workload and the variant (host layers, streams) of a run, in one
/// line: what a chart of the run shows.
pub fn run_subject(cfg: &Config, report: &Report, about: &RunAbout) -> String {
    let workload = if cfg.workload.kind == ftlsim::config::WorkloadType::Trace {
        let path = &cfg.workload.trace.path;
        let name = Path::new(path)
            .file_name()
            .map_or_else(|| path.clone(), |n| n.to_string_lossy().into_owned());
        format!("trace {name}")
    } else {
        config_name(&cfg.workload.kind)
    };
    let layers: Vec<&str> = report
        .layers
        .iter()
        .take(report.layers.len().saturating_sub(1))
        .map(|l| l.name.as_str())
        .collect();
    let stack = if layers.is_empty() {
        "no host layers".to_string()
    } else {
        format!("host layers {}", layers.join(" > "))
    };
    let mut streams = format!(
        "{} stream{}",
        cfg.ftl.streams,
        if cfg.ftl.streams == 1 { "" } else { "s" }
    );
    if cfg.ftl.internal_streams {
        streams += " + internal streams";
    }
    if cfg.ftl.fdp {
        streams += " (FDP)";
    }
    let config = about.config_path.as_ref().map_or_else(
        || "built-in defaults".to_string(),
        |p| p.display().to_string(),
    );
    format!(
        "{config}: workload {workload}, {stack}, {streams}, seed {}",
        report.seed
    )
}

/// Writes summary.json, summary.csv, timeseries.csv, waf.svg and index.html
/// into `dir` (and latency.csv, luns.csv, latency.svg for a timed run).
/// None of them may be one of `inputs` (the config, the trace); each is
/// written beside its place and renamed into it, so a failure leaves
/// earlier files whole.
pub fn write_outputs(
    dir: &Path,
    cfg: &Config,
    report: &Report,
    about: &RunAbout,
    inputs: &[&Path],
) -> Result<()> {
    check_outputs(dir, inputs)?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let json = serde_json::to_string_pretty(report)? + "\n";
    let out = |name: &str, write: &dyn Fn(&Path) -> Result<()>| -> Result<()> {
        let path = dir.join(name);
        write_via_temp(&path, inputs, |p| write(p))
            .with_context(|| format!("cannot write {}", path.display()))
    };
    out("summary.json", &|p| Ok(std::fs::write(p, &json)?))?;
    out("summary.csv", &|p| write_summary_csv(p, report))?;
    out("layers.csv", &|p| write_layers_csv(p, &report.layers))?;
    out("streams.csv", &|p| write_csv(p, &report.streams))?;
    out("timeseries.csv", &|p| write_csv(p, &report.series))?;
    crate::timing_output::write_timing_outputs(dir, report, inputs)?;
    if !report.layer_series.is_empty() {
        out("layers_timeseries.csv", &|p| {
            write_csv(p, &report.layer_series)
        })?;
    }
    let subject = run_subject(cfg, report, about);
    let mut charts = vec!["waf.svg"];
    let drew_lifetimes = std::cell::Cell::new(false);
    out("lifetime.svg", &|p| {
        drew_lifetimes.set(plot_lifetimes(p, report, &subject)?);
        Ok(())
    })?;
    if drew_lifetimes.get() {
        charts.push("lifetime.svg");
    } else {
        // Nothing to draw: no file, rather than the empty one the rename made.
        let _ = std::fs::remove_file(dir.join("lifetime.svg"));
    }
    out("waf.svg", &|p| {
        plot_waf(
            p,
            &report.series,
            &report.layer_series,
            report.device.logical_pages,
            &subject,
        )
    })?;
    if !report.latency_series.is_empty() {
        charts.push("latency.svg");
    }
    crate::html::write_run_page(dir, cfg, report, about, &subject, &charts, inputs)
}

/// One row of layers.csv when a layer is a learned stream assigner: every
/// row gets the assigner's columns (empty for the other layers), since a
/// CSV row must have as many fields as the header.
#[derive(serde::Serialize)]
struct LayerRow<'a> {
    name: &'a str,
    write_pages_in: u64,
    write_pages_out: u64,
    read_pages_in: u64,
    read_pages_out: u64,
    trim_pages_in: u64,
    trim_pages_out: u64,
    gc_copy_pages: u64,
    gc_count: u64,
    metadata_pages: u64,
    wa: Option<f64>,
    stream0_write_pages: Option<u64>,
    reclusterings: Option<u64>,
    pcs_moved: Option<u64>,
    pc_table_entries: Option<u64>,
    pc_table_misses: Option<u64>,
    state_bytes: Option<u64>,
    state_bytes_per_logical_page: Option<f64>,
}

/// layers.csv: the layers' counters (as before when no layer is an
/// assigner, so those files are unchanged).
fn write_layers_csv(path: &Path, layers: &[ftlsim::metrics::LayerStats]) -> Result<()> {
    if layers.iter().all(|l| l.assigner.is_none()) {
        return write_csv(path, layers);
    }
    let rows: Vec<LayerRow> = layers
        .iter()
        .map(|l| {
            let a = l.assigner;
            LayerRow {
                name: &l.name,
                write_pages_in: l.write_pages_in,
                write_pages_out: l.write_pages_out,
                read_pages_in: l.read_pages_in,
                read_pages_out: l.read_pages_out,
                trim_pages_in: l.trim_pages_in,
                trim_pages_out: l.trim_pages_out,
                gc_copy_pages: l.gc_copy_pages,
                gc_count: l.gc_count,
                metadata_pages: l.metadata_pages,
                wa: l.wa,
                stream0_write_pages: a.map(|a| a.stream0_write_pages),
                reclusterings: a.map(|a| a.reclusterings),
                pcs_moved: a.map(|a| a.pcs_moved),
                pc_table_entries: a.map(|a| a.pc_table_entries),
                pc_table_misses: a.map(|a| a.pc_table_misses),
                state_bytes: a.map(|a| a.state_bytes),
                state_bytes_per_logical_page: a.map(|a| a.state_bytes_per_logical_page),
            }
        })
        .collect();
    write_csv(path, &rows)
}

/// Writes `rows` as a CSV file with a header row from their field names.
pub fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
    for row in rows {
        w.serialize(row)?;
    }
    w.flush()?;
    Ok(())
}

/// Where each phase of the run begins on the WAF plot's x axis: a vertical
/// line at the last sample of the phase before. A sample window that straddles
/// the change is labelled with the later phase, so the true boundary lies
/// within one window after the line.
fn phase_markers(series: &[SeriesRow], x: impl Fn(&SeriesRow) -> f64) -> Vec<Marker> {
    let name = |p: Phase| match p {
        Phase::Precondition => "precondition",
        Phase::Warmup => "warm-up",
        Phase::Measure => "measure",
    };
    let mut markers = Vec::new();
    let mut previous: Option<&SeriesRow> = None;
    for row in series {
        match previous {
            None => markers.push(Marker {
                x: 0.0,
                label: name(row.phase),
            }),
            Some(p) if p.phase != row.phase => markers.push(Marker {
                x: x(p),
                label: name(row.phase),
            }),
            Some(_) => {}
        }
        previous = Some(row);
    }
    markers
}

/// Per-stream page lifetimes as boxes (host and internal streams), when
/// the report has them (several streams or internal streams); `subject`
/// (the workload and variant) goes under the title. Draws nothing and
/// returns false when no stream has lifetimes.
pub(crate) fn plot_lifetimes(path: &Path, report: &Report, subject: &str) -> Result<bool> {
    let slots: Vec<BoxSlot> = report
        .streams
        .iter()
        .map(|s| {
            let q = |q: [Option<u64>; 3]| match q {
                [Some(a), Some(b), Some(c)] => Some([a as f64, b as f64, c as f64]),
                _ => None,
            };
            BoxSlot {
                label: format!("stream {}", s.stream),
                quartiles: vec![
                    q([s.lifetime_p25, s.lifetime_p50, s.lifetime_p75]),
                    q([
                        s.internal_lifetime_p25,
                        s.internal_lifetime_p50,
                        s.internal_lifetime_p75,
                    ]),
                ],
            }
        })
        .collect();
    if slots
        .iter()
        .all(|s| s.quartiles.iter().all(Option::is_none))
    {
        return Ok(false);
    }
    let series = [
        BoxSeries {
            name: "host writes (blocks of the stream's host frontier)".into(),
            color: BLUE,
        },
        BoxSeries {
            name: "GC copies (its internal stream / GC frontier)".into(),
            color: RED,
        },
    ];
    let spec = BoxChartSpec {
        title: "Page lifetime by stream: p25 to p75, line at the median",
        subtitle: subject,
        y_desc: "host page writes from write to death",
    };
    box_chart(path, &spec, &series, &slots)?;
    Ok(true)
}

/// Colors of the per-layer lines (the device's WAF lines are blue and red).
const LAYER_COLORS: [RGBColor; 4] = [
    RGBColor(0, 150, 70),
    RGBColor(230, 140, 0),
    RGBColor(130, 60, 170),
    RGBColor(90, 90, 90),
];

/// WAF per window and cumulative measured WAF against host writes in drive
/// writes; with host layers, each layer's WA per window too. `subtitle`
/// names the run (workload, variant).
pub fn plot_waf(
    path: &Path,
    series: &[SeriesRow],
    layer_series: &[LayerSeriesRow],
    logical_pages: u64,
    subtitle: &str,
) -> Result<()> {
    let x = |r: &SeriesRow| r.host_write_pages as f64 / logical_pages.max(1) as f64;
    let mut lines = vec![
        Line {
            label: "window WAF".into(),
            color: BLUE,
            points: series.iter().map(|r| (x(r), r.window_waf)).collect(),
        },
        Line {
            label: "measured-window WAF".into(),
            color: RED,
            points: series
                .iter()
                .filter(|r| r.measured_waf > 0.0)
                .map(|r| (x(r), r.measured_waf))
                .collect(),
        },
    ];
    let layers = layer_series
        .iter()
        .map(|r| r.layer)
        .max()
        .map_or(0, |m| m + 1);
    // The device's window WAF is drawn already; one line per layer above it.
    for layer in 0..layers.saturating_sub(1) {
        let rows = layer_series.iter().filter(|r| r.layer == layer);
        let name = rows.clone().next().map_or("layer", |r| r.name.as_str());
        lines.push(Line {
            label: format!("layer {layer} ({name}) window WA").into(),
            color: LAYER_COLORS[layer % LAYER_COLORS.len()],
            points: rows
                .filter_map(|r| {
                    let wa = r.window_wa?;
                    Some((r.host_write_pages as f64 / logical_pages.max(1) as f64, wa))
                })
                .collect(),
        });
    }
    let markers = phase_markers(series, x);
    let spec = ChartSpec {
        title: "WAF over time",
        subtitle,
        x_desc: "host writes (x logical capacity)",
        y_desc: "WAF",
        y_scale: YScale::Linear,
        markers: &markers,
    };
    line_chart(path, &spec, &lines)
}

/// summary.csv: one header row and one value row with every scalar key of
/// the report (the per-layer and per-stream lists have files of their own).
fn write_summary_csv(path: &Path, report: &Report) -> Result<()> {
    let scalars = scalar_fields(report)?;
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
    w.write_record(scalars.iter().map(|(k, _)| k))?;
    w.write_record(scalars.iter().map(|(_, v)| v))?;
    w.flush()?;
    Ok(())
}

/// Every scalar key of the report with its value as CSV text (null: empty),
/// in the report's order: the columns of summary.csv and results.csv.
pub fn scalar_fields(report: &Report) -> Result<Vec<(String, String)>> {
    let serde_json::Value::Object(map) = serde_json::to_value(report)? else {
        return Err(RunError::Internal(
            "the report did not serialize to an object".into(),
        ));
    };
    Ok(map
        .into_iter()
        .filter(|(_, v)| !v.is_array() && !v.is_object())
        .map(|(k, v)| {
            let text = match v {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            (k, text)
        })
        .collect())
}
