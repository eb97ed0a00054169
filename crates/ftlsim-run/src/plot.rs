//! Line charts as SVG, shared by every plot a run writes.

use std::path::Path;

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{Result, RunError};

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
    /// Under the title: what the chart shows (workload, variant); empty for none.
    pub subtitle: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub y_scale: YScale,
    pub markers: &'a [Marker],
}

/// A tick label without float noise: 0.01, 0.5, 1.25, 10000.
pub(crate) fn tick_label(v: f64) -> String {
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
    result.map_err(|e| RunError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
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
    let mut builder = ChartBuilder::on(root);
    let body;
    if spec.subtitle.is_empty() {
        builder.caption(spec.title, ("sans-serif", 22));
    } else {
        // Title and subtitle by hand: plotters' caption has one line.
        let (width, height) = root.dim_in_pixel();
        let center = Pos::new(HPos::Center, VPos::Top);
        root.draw(&Text::new(
            spec.title,
            (width as i32 / 2, 10),
            TextStyle::from(("sans-serif", 22).into_font()).pos(center),
        ))?;
        root.draw(&Text::new(
            spec.subtitle,
            (width as i32 / 2, 38),
            ("sans-serif", 13)
                .into_font()
                .color(&RGBColor(70, 70, 70))
                .pos(center),
        ))?;
        body = root
            .clone()
            .shrink((0, 50), (width, height.saturating_sub(50)));
        builder = ChartBuilder::on(&body);
    }
    let mut chart = builder
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

/// One series of a box chart: its name in the legend and its colour.
pub struct BoxSeries {
    pub name: String,
    pub color: RGBColor,
}

/// One place on a box chart's x axis, with a box per series side by side.
pub struct BoxSlot {
    pub label: String,
    /// p25, p50, p75 of each series (`None`: no box); positive values only.
    pub quartiles: Vec<Option<[f64; 3]>>,
}

/// What a box chart says besides its boxes.
pub struct BoxChartSpec<'a> {
    pub title: &'a str,
    /// Under the title: what the chart shows (workload, variant).
    pub subtitle: &'a str,
    pub y_desc: &'a str,
}

/// An SVG box chart on a log y axis: per slot one box per series, from its
/// 25th to its 75th percentile with a line at the median, the slot named
/// under the axis and the series in a legend above the plot. Names sit on
/// the axis, not over the boxes, where neighbours' names overlapped and
/// the last one ran off the edge.
pub fn box_chart(
    path: &Path,
    spec: &BoxChartSpec,
    series: &[BoxSeries],
    slots: &[BoxSlot],
) -> Result<()> {
    let valid =
        |q: &Option<[f64; 3]>| q.is_some_and(|q| q.iter().all(|&v| v > 0.0 && v.is_finite()));
    let slots: Vec<&BoxSlot> = slots
        .iter()
        .filter(|s| s.quartiles.iter().any(valid))
        .collect();
    // Only the series that have a box somewhere take room and a legend entry.
    let shown: Vec<usize> = (0..series.len())
        .filter(|&k| slots.iter().any(|s| s.quartiles.get(k).is_some_and(valid)))
        .collect();
    let quartiles = || {
        slots
            .iter()
            .flat_map(|s| s.quartiles.iter().filter(|q| valid(q)).flatten())
    };
    let lo = quartiles().map(|q| q[0]).fold(f64::INFINITY, f64::min);
    let hi = quartiles().map(|q| q[2]).fold(0.0, f64::max);
    let (lo, hi) = if lo.is_finite() {
        (
            10f64.powf(lo.log10().floor()),
            10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
        )
    } else {
        (1.0, 10.0)
    };
    let slot_px = 26 * shown.len().max(1) as u32 + 24;
    let width = (110 + slot_px * slots.len() as u32).max(900);
    let (height, top) = (560u32, 70u32);
    let draw = || -> PlotResult {
        let root = SVGBackend::new(path, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let center = Pos::new(HPos::Center, VPos::Top);
        root.draw(&Text::new(
            spec.title.to_string(),
            (width as i32 / 2, 8),
            TextStyle::from(("sans-serif", 20).into_font()).pos(center),
        ))?;
        root.draw(&Text::new(
            spec.subtitle.to_string(),
            (width as i32 / 2, 34),
            ("sans-serif", 13)
                .into_font()
                .color(&RGBColor(70, 70, 70))
                .pos(center),
        ))?;
        // The legend, right-aligned above the plot.
        let mut x = width as i32 - 16;
        for &k in shown.iter().rev() {
            let s = &series[k];
            x -= (s.name.chars().count() as f64 * 7.0) as i32 + 30;
            root.draw(&Rectangle::new(
                [(x, 54), (x + 14, 66)],
                s.color.mix(0.35).filled(),
            ))?;
            root.draw(&Rectangle::new(
                [(x, 54), (x + 14, 66)],
                s.color.stroke_width(2),
            ))?;
            root.draw(&Text::new(s.name.clone(), (x + 20, 53), ("sans-serif", 13)))?;
        }
        let body = root.clone().shrink((0, top), (width, height - top));
        // At least six slots' room, the slots centred: one stream's box
        // is a box, not a wall.
        let span = slots.len().max(6) as f64;
        let offset = (span - slots.len() as f64) / 2.0;
        let mut chart = ChartBuilder::on(&body)
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..span, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(spec.y_desc)
            .y_label_formatter(&|v| tick_label(*v))
            .draw()?;
        let w = 0.8 / shown.len().max(1) as f64;
        for (i, slot) in slots.iter().enumerate() {
            for (j, &k) in shown.iter().enumerate() {
                let Some([p25, p50, p75]) =
                    slot.quartiles.get(k).filter(|q| valid(q)).and_then(|q| *q)
                else {
                    continue;
                };
                let color = series[k].color;
                let x0 = offset + i as f64 + 0.1 + j as f64 * w + w * 0.08;
                let x1 = x0 + w * 0.84;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x0, p25), (x1, p75)],
                    color.mix(0.35).filled(),
                )))?;
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(x0, p25), (x1, p75)],
                    color.stroke_width(2),
                )))?;
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![(x0, p50), (x1, p50)],
                    BLACK.stroke_width(2),
                )))?;
            }
            let (px, py) = chart.backend_coord(&(offset + i as f64 + 0.5, lo));
            root.draw(&Text::new(
                slot.label.clone(),
                (px, py + 8),
                TextStyle::from(("sans-serif", 13).into_font()).pos(center),
            ))?;
        }
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| RunError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}
