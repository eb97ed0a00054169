//! Presenting a run: a readable table, JSON, CSV, and an SVG plot of WAF over time.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use ftlsim::metrics::{Phase, SeriesRow};
use ftlsim::{Config, Report};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

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
        "ftl       gc {}, frontiers {}, watermarks {}/{}",
        config_name(&cfg.ftl.gc_policy),
        config_name(&cfg.ftl.frontiers),
        cfg.ftl.gc_low_watermark,
        cfg.ftl.gc_high_watermark
    );
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
                (Some(b), Some(dw)) => format!(
                    "{} of host writes ({dw:.0} drive writes, even wear; {} by the most-worn block)",
                    human_bytes(b),
                    opt(r.lifetime.lifetime_worst_block_drive_writes.map(|w| format!("{w:.0}")))
                ),
                _ => "unbounded (no P/E limit or no erases)".to_string(),
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
    let timing = crate::timing_output::timing_rows(cfg, r);
    for (k, v) in rows.into_iter().chain(timing) {
        let _ = writeln!(s, "  {k:<28} {v}");
    }
    s
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

/// Writes summary.json, summary.csv, timeseries.csv and waf.svg into `dir`
/// (and latency.csv, luns.csv, latency.svg for a timed run).
pub fn write_outputs(dir: &Path, report: &Report) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let json = serde_json::to_string_pretty(report)? + "\n";
    let path = dir.join("summary.json");
    std::fs::write(&path, json).with_context(|| format!("cannot write {}", path.display()))?;
    let path = dir.join("summary.csv");
    write_summary_csv(&path, report)?;
    let path = dir.join("layers.csv");
    let mut w = csv::Writer::from_path(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    for layer in &report.layers {
        w.serialize(layer)?;
    }
    w.flush()?;
    let path = dir.join("streams.csv");
    let mut w = csv::Writer::from_path(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    for stream in &report.streams {
        w.serialize(stream)?;
    }
    w.flush()?;
    let path = dir.join("timeseries.csv");
    let mut w = csv::Writer::from_path(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    for row in &report.series {
        w.serialize(row)?;
    }
    w.flush()?;
    crate::timing_output::write_timing_outputs(dir, report)?;
    plot_waf(
        &dir.join("waf.svg"),
        &report.series,
        report.device.logical_pages,
    )
}

/// One line of a line chart.
pub struct Line {
    pub label: &'static str,
    pub color: RGBColor,
    pub points: Vec<(f64, f64)>,
}

/// How a chart's y axis maps values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YScale {
    /// From 0 to the largest y (at least 1).
    Linear,
    /// Whole powers of ten around the positive values: latencies span
    /// decades (a 10 ms GC stall beside 100 us programs), and a linear axis
    /// flattens everything but the worst spike. Non-positive points are left out.
    Log,
}

/// A labelled vertical line at `x` (a phase boundary).
pub struct Marker {
    pub x: f64,
    pub label: &'static str,
}

/// What a chart says besides its lines.
pub struct ChartSpec<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub y_scale: YScale,
    pub markers: &'a [Marker],
}

/// A tick label without float noise: 0.01, 0.5, 1.25, 10000.
fn tick_label(v: f64) -> String {
    let decimals = if v == 0.0 || v.abs() >= 1.0 {
        2
    } else {
        (-v.abs().log10()).ceil() as usize + 1
    };
    let s = format!("{v:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

type PlotResult = Result<(), Box<dyn std::error::Error>>;

/// An SVG line chart from x = 0 to the largest x, with a legend and
/// `spec.markers`; lines without points are left out.
pub fn line_chart(path: &Path, spec: &ChartSpec, lines: &[Line]) -> Result<()> {
    let positive = spec.y_scale == YScale::Log;
    let lines: Vec<Line> = lines
        .iter()
        .map(|l| Line {
            label: l.label,
            color: l.color,
            points: l
                .points
                .iter()
                .copied()
                .filter(|p| p.0.is_finite() && p.1.is_finite() && (!positive || p.1 > 0.0))
                .collect(),
        })
        .collect();
    let points = || lines.iter().flat_map(|l| l.points.iter());
    let x_max = points()
        .map(|p| p.0)
        .chain(spec.markers.iter().map(|m| m.x))
        .fold(1e-9, f64::max);
    let root = SVGBackend::new(path, (900, 500)).into_drawing_area();
    let result = match spec.y_scale {
        YScale::Linear => {
            let y_max = points().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
            draw_chart(&root, spec, &lines, 0.0..x_max, 0.0..y_max, (0.0, y_max))
        }
        YScale::Log => {
            let y_min = points().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let y_max = points().map(|p| p.1).fold(0.0f64, f64::max);
            let (lo, hi) = if y_min.is_finite() {
                let lo = 10f64.powf(y_min.log10().floor());
                let hi = 10f64.powf(y_max.log10().ceil());
                // At least one decade, so the axis has two labelled powers of ten.
                (lo, if hi > lo { hi } else { lo * 10.0 })
            } else {
                (1.0, 10.0)
            };
            draw_chart(
                &root,
                spec,
                &lines,
                0.0..x_max,
                (lo..hi).log_scale(),
                (lo, hi),
            )
        }
    };
    result.map_err(|e| anyhow::anyhow!("plot {}: {e}", path.display()))
}

/// The body of `line_chart` for either y scale; `y_span` is the (low, high)
/// y the markers run between.
fn draw_chart<Y>(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    spec: &ChartSpec,
    lines: &[Line],
    x_range: std::ops::Range<f64>,
    y_range: Y,
    y_span: (f64, f64),
) -> PlotResult
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(root)
        .caption(spec.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x_range, y_range)?;
    chart
        .configure_mesh()
        .x_desc(spec.x_desc)
        .y_desc(spec.y_desc)
        .y_label_formatter(&|v| tick_label(*v))
        .draw()?;
    let grey = RGBColor(110, 110, 110);
    for m in spec.markers {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(m.x, y_span.0), (m.x, y_span.1)],
            grey.stroke_width(1),
        )))?;
        // Just right of the line, below the top edge.
        chart.draw_series(std::iter::once(
            EmptyElement::at((m.x, y_span.1))
                + Text::new(m.label, (4, 4), ("sans-serif", 13).into_font().color(&grey)),
        ))?;
    }
    for line in lines.iter().filter(|l| !l.points.is_empty()) {
        let color = line.color;
        chart
            .draw_series(LineSeries::new(line.points.iter().copied(), &color))?
            .label(line.label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
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

/// WAF per window and cumulative measured WAF against host writes in drive writes.
pub fn plot_waf(path: &Path, series: &[SeriesRow], logical_pages: u64) -> Result<()> {
    let x = |r: &SeriesRow| r.host_write_pages as f64 / logical_pages.max(1) as f64;
    let lines = [
        Line {
            label: "window WAF",
            color: BLUE,
            points: series.iter().map(|r| (x(r), r.window_waf)).collect(),
        },
        Line {
            label: "measured-window WAF",
            color: RED,
            points: series
                .iter()
                .filter(|r| r.measured_waf > 0.0)
                .map(|r| (x(r), r.measured_waf))
                .collect(),
        },
    ];
    let markers = phase_markers(series, x);
    let spec = ChartSpec {
        title: "WAF over time",
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
    let serde_json::Value::Object(map) = serde_json::to_value(report)? else {
        anyhow::bail!("the report did not serialize to an object");
    };
    let scalars: Vec<(String, String)> = map
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
        .collect();
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
    w.write_record(scalars.iter().map(|(k, _)| k))?;
    w.write_record(scalars.iter().map(|(_, v)| v))?;
    w.flush()?;
    Ok(())
}
