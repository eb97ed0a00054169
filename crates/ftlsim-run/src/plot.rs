//! Line charts as SVG, shared by every plot a run writes.

use std::path::Path;

use anyhow::Result;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

/// One line of a line chart.
pub struct Line {
    pub label: std::borrow::Cow<'static, str>,
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
    stacked_line_charts(path, &[(spec, lines)])
}

/// Several line charts in one SVG, one above the other, each with its own
/// axes (latency on a log axis above throughput on a linear one).
pub fn stacked_line_charts(path: &Path, panels: &[(&ChartSpec, &[Line])]) -> Result<()> {
    let root = SVGBackend::new(path, (900, 500 * panels.len().max(1) as u32)).into_drawing_area();
    let areas = root.split_evenly((panels.len().max(1), 1));
    let result = panels
        .iter()
        .zip(&areas)
        .try_for_each(|((spec, lines), area)| line_panel(area, spec, lines))
        .and_then(|()| Ok(root.present()?));
    result.map_err(|e| anyhow::anyhow!("plot {}: {e}", path.display()))
}

/// One line chart from x = 0 to the largest x on `root`.
fn line_panel(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    spec: &ChartSpec,
    lines: &[Line],
) -> PlotResult {
    let positive = spec.y_scale == YScale::Log;
    let lines: Vec<Line> = lines
        .iter()
        .map(|l| Line {
            label: l.label.clone(),
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
    match spec.y_scale {
        YScale::Linear => {
            let y_max = points().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
            draw_chart(root, spec, &lines, 0.0..x_max, 0.0..y_max, (0.0, y_max))
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
                root,
                spec,
                &lines,
                0.0..x_max,
                (lo..hi).log_scale(),
                (lo, hi),
            )
        }
    }
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
            .label(line.label.as_ref())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

/// One box of a box chart: quartiles of a positive quantity.
pub struct QuartileBox {
    pub label: String,
    pub color: RGBColor,
    /// p25, p50, p75.
    pub quartiles: [f64; 3],
}

/// An SVG box chart on a log y axis: one box per entry, from its 25th to
/// its 75th percentile, with a line at the median.
pub fn box_chart(path: &Path, title: &str, y_desc: &str, boxes: &[QuartileBox]) -> Result<()> {
    let positive = |b: &&QuartileBox| b.quartiles.iter().all(|&q| q > 0.0 && q.is_finite());
    let boxes: Vec<&QuartileBox> = boxes.iter().filter(positive).collect();
    let lo = boxes
        .iter()
        .map(|b| b.quartiles[0])
        .fold(f64::INFINITY, f64::min);
    let hi = boxes.iter().map(|b| b.quartiles[2]).fold(0.0, f64::max);
    let (lo, hi) = if boxes.is_empty() {
        (1.0, 10.0)
    } else {
        (
            10f64.powf(lo.log10().floor()),
            10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
        )
    };
    let draw = || -> PlotResult {
        let root = SVGBackend::new(path, (900, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let n = boxes.len().max(1);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..n as f64, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(y_desc)
            .y_label_formatter(&|v| tick_label(*v))
            .draw()?;
        for (i, b) in boxes.iter().enumerate() {
            let (x0, x1) = (i as f64 + 0.2, i as f64 + 0.8);
            let [p25, p50, p75] = b.quartiles;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, p25), (x1, p75)],
                b.color.mix(0.35).filled(),
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, p25), (x1, p75)],
                b.color.stroke_width(2),
            )))?;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(x0, p50), (x1, p50)],
                BLACK.stroke_width(2),
            )))?;
            // The box's name just above it.
            chart.draw_series(std::iter::once(
                EmptyElement::at((x0, p75))
                    + Text::new(b.label.clone(), (0, -18), ("sans-serif", 14).into_font()),
            ))?;
        }
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| anyhow::anyhow!("plot {}: {e}", path.display()))
}
