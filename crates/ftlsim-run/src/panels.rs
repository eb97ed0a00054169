//! Small multiples of ratio bars: one panel per workload, one bar per
//! variant the workload ran, each bar drawn from 1 (the workload's
//! baseline) to the variant's ratio.
//!
//! One grouped bar chart for a whole experiment grid stopped being
//! readable at a few dozen variants: hairline bars, slots reserved for
//! variants a workload never ran, and a legend drawn over the data. Here a
//! panel holds only its own variants, names them on its own axis (no
//! legend to look up), prints each value in a column beside the bars, and
//! says what it divides by. Panels share one x scale so that bars compare
//! across panels, and list variants in the experiment's order, so a
//! variant sits in the same place in every panel.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{Result, RunError};
use crate::plot::tick_label;

/// One variant's bar.
pub struct Bar {
    pub label: String,
    /// The ratio to the baseline; `None` draws no bar and prints `n/a`.
    pub value: Option<f64>,
    pub color: RGBColor,
    /// The baseline itself: its label is bold.
    pub reference: bool,
}

/// One workload's panel.
pub struct Panel {
    pub title: String,
    /// What the bars are: the metric and what it is divided by.
    pub subtitle: String,
    pub bars: Vec<Bar>,
}

/// What the chart says besides its panels.
pub struct PanelsSpec<'a> {
    pub title: &'a str,
    /// Under the title: how to read the bars.
    pub x_desc: &'a str,
    /// Under the panels (what was left out and why); empty for none.
    pub note: &'a str,
}

const FONT: &str = "sans-serif";
/// Height of one bar's row.
const ROW_PX: u32 = 20;
/// The chart's title and reading line.
const TITLE_PX: u32 = 60;
/// A panel's title and subtitle.
const HEADER_PX: u32 = 40;
/// A panel's x axis and its tick labels.
const AXIS_PX: u32 = 26;
/// Space below a panel.
const GAP_PX: u32 = 18;
const PLOT_PX: u32 = 260;
/// The value column, right of the plot.
const VALUE_PX: u32 = 50;
/// Between a panel's values and the next panel's labels, so that a value
/// is not read as the next panel's.
const PANEL_GAP_PX: u32 = 40;
/// Width of one character of a 13 px label, generously, so that no label
/// runs into its bar.
const CHAR_PX: f64 = 7.4;

type PlotResult = Result<(), Box<dyn std::error::Error>>;

/// Columns of the grid: up to three, two when four panels make a square.
fn columns(panels: usize) -> usize {
    match panels {
        0 | 1 => 1,
        2 | 4 => 2,
        _ => 3,
    }
}

/// An SVG of `panels` in a grid; panels without bars are left out.
pub fn ratio_panels(path: &Path, spec: &PanelsSpec, panels: &[Panel]) -> Result<()> {
    let panels: Vec<&Panel> = panels.iter().filter(|p| !p.bars.is_empty()).collect();
    let cols = columns(panels.len());
    let longest = panels
        .iter()
        .flat_map(|p| p.bars.iter().map(|b| b.label.chars().count()))
        .max()
        .unwrap_or(4);
    let label_px = (longest as f64 * CHAR_PX) as u32 + 14;
    let panel_w = label_px + PLOT_PX + VALUE_PX + PANEL_GAP_PX;
    // A title wider than the grid widens the canvas instead of running off it.
    let title_w =
        (spec.title.chars().count().max(spec.x_desc.chars().count()) as f64 * 10.0) as u32;
    let width = (panel_w * cols as u32).max(title_w + 40).max(500);
    let row_heights: Vec<u32> = panels
        .chunks(cols)
        .map(|row| {
            let bars = row.iter().map(|p| p.bars.len()).max().unwrap_or(0) as u32;
            HEADER_PX + bars * ROW_PX + AXIS_PX + GAP_PX
        })
        .collect();
    let note_px = if spec.note.is_empty() { 0 } else { 28 };
    let height = TITLE_PX + row_heights.iter().sum::<u32>() + note_px + 8;
    let range = x_range(&panels);
    let draw = || -> PlotResult {
        let root = SVGBackend::new(path, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let center = Pos::new(HPos::Center, VPos::Top);
        root.draw(&Text::new(
            spec.title.to_string(),
            (width as i32 / 2, 10),
            TextStyle::from((FONT, 20).into_font()).pos(center),
        ))?;
        root.draw(&Text::new(
            spec.x_desc.to_string(),
            (width as i32 / 2, 36),
            (FONT, 13)
                .into_font()
                .color(&RGBColor(80, 80, 80))
                .pos(center),
        ))?;
        let mut top = TITLE_PX;
        for (row, height) in panels.chunks(cols).zip(&row_heights) {
            for (c, panel) in row.iter().enumerate() {
                let origin = (c as u32 * panel_w, top);
                draw_panel(&root, origin, label_px, range, panel)?;
            }
            top += height;
        }
        if !spec.note.is_empty() {
            root.draw(&Text::new(
                spec.note.to_string(),
                (12, top as i32 + 6),
                (FONT, 13).into_font().color(&RGBColor(80, 80, 80)),
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

/// The x range every panel shares: every value and 1, padded.
fn x_range(panels: &[&Panel]) -> (f64, f64) {
    let values = panels
        .iter()
        .flat_map(|p| p.bars.iter().filter_map(|b| b.value))
        .filter(|v| v.is_finite());
    let (lo, hi) = values.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = ((hi - lo) * 0.06).max(0.02);
    // A ratio is never negative: the axis stops at 0.
    ((lo - pad).max(0.0), hi + pad)
}

/// One panel at `origin` (pixels from the canvas's top left).
fn draw_panel(
    root: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    origin: (u32, u32),
    label_px: u32,
    (x_lo, x_hi): (f64, f64),
    panel: &Panel,
) -> PlotResult {
    let (x0, y0) = (origin.0 as i32, origin.1 as i32);
    let grey = RGBColor(80, 80, 80);
    root.draw(&Text::new(
        panel.title.clone(),
        (x0 + 8, y0),
        (FONT, 15).into_font().style(FontStyle::Bold),
    ))?;
    root.draw(&Text::new(
        panel.subtitle.clone(),
        (x0 + 8, y0 + 19),
        (FONT, 12).into_font().color(&grey),
    ))?;
    let n = panel.bars.len();
    let body_h = n as u32 * ROW_PX + AXIS_PX;
    let body = root.clone().shrink(
        (origin.0, origin.1 + HEADER_PX),
        (label_px + PLOT_PX, body_h),
    );
    let mut chart = ChartBuilder::on(&body)
        .x_label_area_size(AXIS_PX)
        .y_label_area_size(label_px)
        .build_cartesian_2d(x_lo..x_hi, -0.5..n as f64 - 0.5)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_labels(5)
        .max_light_lines(0)
        .x_label_formatter(&|v| tick_label(*v))
        .x_label_style((FONT, 11))
        .draw()?;
    // The first variant on top.
    let y_of = |i: usize| (n - 1 - i) as f64;
    for (i, bar) in panel.bars.iter().enumerate() {
        let y = y_of(i);
        if let Some(v) = bar.value.filter(|v| v.is_finite()) {
            chart.draw_series(std::iter::once(Rectangle::new(
                [(1.0, y - 0.36), (v, y + 0.36)],
                bar.color.filled(),
            )))?;
        }
        let (px, py) = chart.backend_coord(&(x_lo, y));
        let right_mid = Pos::new(HPos::Right, VPos::Center);
        let left_mid = Pos::new(HPos::Left, VPos::Center);
        let style = if bar.reference {
            (FONT, 13).into_font().style(FontStyle::Bold)
        } else {
            (FONT, 13).into_font()
        };
        root.draw(&Text::new(
            bar.label.clone(),
            (px - 6, py),
            TextStyle::from(style).pos(right_mid),
        ))?;
        let value = bar
            .value
            .filter(|v| v.is_finite())
            .map_or_else(|| "n/a".to_string(), |v| format!("{v:.3}"));
        let (plot_right, _) = chart.backend_coord(&(x_hi, y));
        root.draw(&Text::new(
            value,
            (plot_right + 8, py),
            (FONT, 12).into_font().color(&grey).pos(left_mid),
        ))?;
    }
    // The baseline: ratio 1.
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(1.0, -0.5), (1.0, n as f64 - 0.5)],
        BLACK.stroke_width(1),
    )))?;
    Ok(())
}
