//! Presenting the timing model's results: summary rows, latency.csv,
//! luns.csv, channels.csv and latency.svg (latency over simulated time).

use std::path::Path;

use ftlsim::timing::{LatencyRow, TimingMode};
use ftlsim::{Config, Report};
use ftlsim_trace::write_via_temp;
use plotters::prelude::{RGBColor, BLACK, BLUE, CYAN, GREEN, MAGENTA, RED};

use crate::error::{Context, Result};
use crate::output::write_csv;
use crate::plot::{stacked_line_charts, ChartSpec, Line, YScale};

fn latency(
    mean: Option<f64>,
    p50: Option<f64>,
    p99: Option<f64>,
    p999: Option<f64>,
    max: Option<f64>,
) -> String {
    match (mean, p50, p99, p999, max) {
        (Some(mean), Some(p50), Some(p99), Some(p999), Some(max)) => {
            format!("mean {mean:.1} p50 {p50:.1} p99 {p99:.1} p99.9 {p999:.1} max {max:.1}")
        }
        _ => "-".to_string(),
    }
}

/// Summary-table rows for a timed run; none when timing was off.
pub fn timing_rows(cfg: &Config, r: &Report) -> Vec<(&'static str, String)> {
    let (Some(t), Some(iops), Some(sim_ns)) = (&cfg.timing, r.timing.iops, r.timing.sim_time_ns)
    else {
        return Vec::new();
    };
    let p = t.params(&cfg.device);
    let mode = match t.mode {
        TimingMode::Closed => format!("closed loop, QD {}", t.queue_depth),
        TimingMode::Open => format!("open loop, device queue {}", t.queue_depth),
    };
    // A block is striped over every LUN: each holds pages_per_block / LUNs of it.
    let slice_pages = cfg.device.pages_per_block / p.luns().max(1);
    let note = (slice_pages < 64).then(|| {
        (
            "note",
            format!(
                "each LUN holds {slice_pages} pages of a block, so erases weigh heavily; \
                 set device.pages_per_block = LUNs x pages per physical block (README: timing model)"
            ),
        )
    });
    let buffer = match (
        r.timing.write_buffer_read_hit_pages,
        r.timing.write_buffer_full_waits,
        r.timing.write_buffer_wait_us_mean,
    ) {
        (Some(hits), Some(waits), Some(wait_us)) => Some((
            "write buffer",
            format!(
                "{} pages; reads served from it {hits} pages; writes that waited for room {waits} (mean {wait_us:.1} us)",
                t.write_buffer_pages
            ),
        )),
        _ => None,
    };
    let pct = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |v| format!("{:.1} %", v * 100.0));
    let us = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
    vec![
        (
            "timing model",
            format!(
                "{} channels x {} LUNs, tR {} us, tPROG {} us, tBERS {} us, transfer {} us/page, {mode}",
                p.channels,
                p.luns_per_channel,
                t.read_latency_us,
                t.program_latency_us,
                t.erase_latency_us,
                t.transfer_us_per_page
            ),
        ),
        ("simulated time", format!("{:.6} s", sim_ns as f64 / 1e9)),
        (
            "IOPS",
            format!(
                "{iops:.0} ({:.1} MiB/s)",
                r.timing.bandwidth_bytes_per_sec.unwrap_or(0.0) / (1024.0 * 1024.0)
            ),
        ),
        (
            "read latency (us)",
            latency(
                r.timing.read_latency_us_mean,
                r.timing.read_latency_us_p50,
                r.timing.read_latency_us_p99,
                r.timing.read_latency_us_p999,
                r.timing.read_latency_us_max,
            ),
        ),
        (
            "write latency (us)",
            latency(
                r.timing.write_latency_us_mean,
                r.timing.write_latency_us_p50,
                r.timing.write_latency_us_p99,
                r.timing.write_latency_us_p999,
                r.timing.write_latency_us_max,
            ),
        ),
        ("GC share of LUN time", pct(r.timing.gc_time_share)),
        (
            "LUN busy",
            format!(
                "mean {} max {}; channels mean {}",
                pct(r.timing.lun_busy_mean),
                pct(r.timing.lun_busy_max),
                pct(r.timing.channel_busy_mean)
            ),
        ),
        (
            "channels",
            format!(
                "busy mean {} max {}; wait for channel mean {} max {} us; pushed back after completion {} us",
                pct(r.timing.channel_busy_mean),
                pct(r.timing.channel_busy_max),
                us(r.timing.channel_wait_us_mean),
                us(r.timing.channel_wait_us_max),
                us(r.timing.channel_late_shift_us_mean)
            ),
        ),
        (
            "LUN queue found",
            match (
                r.timing.lun_queue_length_p50,
                r.timing.lun_queue_length_p99,
                r.timing.lun_queue_length_max,
            ) {
                (Some(p50), Some(p99), Some(max)) => {
                    format!("p50 {p50} p99 {p99} max {max} operations")
                }
                _ => "-".to_string(),
            },
        ),
    ]
    .into_iter()
    .chain(buffer)
    .chain(note)
    .collect()
}

/// Writes latency.csv, luns.csv, channels.csv and latency.svg when the run
/// was timed, none over one of `inputs`, each renamed into place when whole.
pub fn write_timing_outputs(dir: &Path, report: &Report, inputs: &[&Path]) -> Result<()> {
    if report.latency_series.is_empty() {
        return Ok(());
    }
    let out = |name: &str, write: &dyn Fn(&Path) -> Result<()>| -> Result<()> {
        let path = dir.join(name);
        write_via_temp(&path, inputs, |p| write(p))
            .with_context(|| format!("cannot write {}", path.display()))
    };
    out("latency.csv", &|p| write_csv(p, &report.latency_series))?;
    out("luns.csv", &|p| write_csv(p, &report.lun_busy))?;
    out("channels.csv", &|p| write_csv(p, &report.channel_busy))?;
    out("latency.svg", &|p| plot_latency(p, &report.latency_series))
}

/// Picks one latency column of a series row.
type Pick = fn(&LatencyRow) -> Option<f64>;

/// Mean and p99 latency of reads and writes per window against simulated
/// time, on a log axis; below it, the offered and served IOPS per window
/// (open loop: arrivals against what the device took in). A last window with fewer requests than the others
/// (what was left when the run ended, drained without a full queue behind it)
/// is left out: its low latency would read as a drop. latency.csv keeps it,
/// with its `window_requests`.
pub fn plot_latency(path: &Path, series: &[LatencyRow]) -> Result<()> {
    let series = match series {
        [full @ .., last]
            if full
                .first()
                .is_some_and(|f| last.window_requests < f.window_requests) =>
        {
            full
        }
        _ => series,
    };
    let columns: [(&'static str, RGBColor, Pick); 4] = [
        ("write p99", RED, |r| r.write_latency_us_p99),
        ("write mean", MAGENTA, |r| r.write_latency_us_mean),
        ("read p99", BLUE, |r| r.read_latency_us_p99),
        ("read mean", CYAN, |r| r.read_latency_us_mean),
    ];
    let lines: Vec<Line> = columns
        .into_iter()
        .map(|(label, color, pick)| Line {
            label: label.into(),
            color,
            points: series
                .iter()
                .filter_map(|r| pick(r).map(|y| (r.time_ns as f64 / 1e6, y)))
                .collect(),
        })
        .collect();
    let spec = ChartSpec {
        title: "Latency over time",
        subtitle: "",
        x_desc: "simulated time (ms)",
        y_desc: "latency (us, log scale)",
        y_scale: YScale::Log,
        markers: &[],
    };
    let rate = |label: &'static str, color, pick: fn(&LatencyRow) -> f64| Line {
        label: label.into(),
        color,
        points: series
            .iter()
            .map(|r| (r.time_ns as f64 / 1e6, pick(r)))
            .collect(),
    };
    let rates = [
        rate("offered", BLACK, |r| r.offered_iops),
        rate("served", GREEN, |r| r.iops),
    ];
    let rate_spec = ChartSpec {
        title: "Offered and served IOPS",
        subtitle: "",
        x_desc: "simulated time (ms)",
        y_desc: "requests per second",
        y_scale: YScale::Linear,
        markers: &[],
    };
    stacked_line_charts(path, &[(&spec, &lines), (&rate_spec, &rates)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(requests: u64, window_requests: u64, write_p99_us: f64) -> LatencyRow {
        LatencyRow {
            requests,
            time_ns: requests * 1_000_000,
            iops: 1000.0,
            read_latency_us_mean: None,
            read_latency_us_p99: None,
            write_latency_us_mean: Some(write_p99_us / 2.0),
            write_latency_us_p99: Some(write_p99_us),
            gc_time_share: 0.0,
            window_requests,
            offered_iops: 1000.0,
        }
    }

    /// How many points the line in stroke colour `hex` has (the first such
    /// polyline: its legend sample comes after it).
    fn points_of(svg: &str, hex: &str) -> Option<usize> {
        svg.split("<polyline")
            .skip(1)
            .filter(|p| p.contains(&format!("stroke=\"{hex}\"")))
            .filter_map(|p| p.split("points=\"").nth(1)?.split('"').next())
            .map(|pts| pts.split_whitespace().count())
            .next()
    }

    #[test]
    fn a_partial_last_window_is_not_plotted_but_a_lone_one_is() {
        let dir = std::env::temp_dir().join(format!("ftlsim-latency-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("latency.svg");
        // Write p99 in red (#FF0000): three full windows and a short tail.
        let series = [
            row(100, 100, 500.0),
            row(200, 100, 600.0),
            row(300, 100, 550.0),
            row(340, 40, 120.0),
        ];
        plot_latency(&path, &series).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert_eq!(points_of(&svg, "#FF0000"), Some(3), "{svg}");
        // A run shorter than one window has only the partial one: keep it.
        plot_latency(&path, &series[3..]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert_eq!(points_of(&svg, "#FF0000"), Some(1), "{svg}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
