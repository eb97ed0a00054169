//! An experiment's results as the terminal table, JSON, CSV and SVG bar
//! charts, all driven by the metrics, reference rows and claims of its file.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ftlsim::config::WorkloadType;
use ftlsim_trace::write_via_temp;
use plotters::style::BLACK;
use serde_json::Value;

use super::experiment::{Experiment, WorkloadResult};
use super::spec::{Claim, Format, MetricSpec, ReferenceRow};
use crate::error::{Context, Result, RunError};
use crate::panels::{ratio_panels, Bar, Panel, PanelsSpec};

/// `{"experiment": NAME, "workloads": {WORKLOAD: {VARIANT: report}}}`.
pub fn to_json(exp: &Experiment, results: &[WorkloadResult]) -> Value {
    let mut workloads = serde_json::Map::new();
    for w in results {
        let variants: serde_json::Map<String, Value> = w
            .runs
            .iter()
            .map(|r| (r.variant.clone(), r.json.clone()))
            .collect();
        workloads.insert(w.name.clone(), Value::Object(variants));
    }
    serde_json::json!({ "experiment": exp.spec.name, "workloads": workloads })
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{:+.1} %", x * 100.0))
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

/// A metric's value in the metric's own format; `-` when undefined.
fn formatted(m: &MetricSpec, v: Option<f64>) -> String {
    let Some(x) = v else {
        return "-".to_string();
    };
    match m.format {
        Format::Fixed => format!("{x:.*}", m.decimals),
        Format::Percent => format!("{:.1}%", x * 100.0),
        Format::Change => pct(Some(x)),
        Format::Short => short(x),
    }
}

fn gib(pages: u64, page_bytes: u32) -> f64 {
    pages as f64 * f64::from(page_bytes) / f64::from(1u32 << 30)
}

/// A value of the config by dotted key, as text (CSV and the setup line).
fn config_value(config: &Value, key: &str) -> Option<String> {
    let v = key.split('.').try_fold(config, |v, k| v.get(k))?;
    Some(match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), |x| x.to_string()),
        other => other.to_string(),
    })
}

/// The device and the phases of the first synthetic workload, and the size.
pub(crate) fn setup_line(exp: &Experiment, results: &[WorkloadResult], quick: bool) -> String {
    let Some(run) = results
        .iter()
        .flat_map(|w| w.runs.first())
        .find(|r| r.config.workload.kind != WorkloadType::Trace)
    else {
        return String::new();
    };
    let (cfg, r) = (&run.config, &run.report);
    let d = &cfg.device;
    let size = if quick {
        &exp.spec.sizes.quick
    } else {
        &exp.spec.sizes.full
    };
    let json = serde_json::to_value(cfg).unwrap_or(Value::Null);
    let key = |k: &str| config_value(&json, k).unwrap_or_else(|| "-".into());
    let note = if size.note.is_empty() {
        String::new()
    } else {
        format!(" ({})", size.note)
    };
    format!(
        "{}{}: {} GiB device ({} blocks x {} pages x {} B), {} GiB logical (Sf {}),\n\
         precondition {}, warm-up {}, measured window {:.2} GiB of host writes{note};\n\
         {} GC, P/E limit {}, seed {}.\n",
        exp.spec.title,
        if quick { " --quick" } else { "" },
        gib(cfg.physical_pages(), d.page_bytes),
        d.blocks,
        d.pages_per_block,
        d.page_bytes,
        gib(cfg.logical_pages(), d.page_bytes),
        d.spare_factor,
        key("workload.precondition"),
        cfg.workload
            .warmup
            .map_or_else(|| "default".to_string(), |a| a.to_string()),
        gib(r.window.host_write_pages, d.page_bytes),
        key("ftl.gc_policy"),
        d.pe_cycle_limit,
        cfg.workload.seed
    )
}

/// Rows of cells, aligned: the first column left, the others right; `bar`
/// is the index of the column preceded by ` |`.
fn aligned(rows: &[Vec<String>], bar: Option<usize>) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
                .max(6)
        })
        .collect();
    let mut s = String::new();
    for row in rows {
        for (c, cell) in row.iter().enumerate() {
            if bar == Some(c) {
                s += " |";
            }
            if c == 0 {
                let _ = write!(s, "{cell:<w$}", w = widths[c]);
            } else {
                let _ = write!(s, " {cell:>w$}", w = widths[c]);
            }
        }
        s.push('\n');
    }
    s
}

/// The results table's header and, per workload, its rows: the variant,
/// the raw metrics, then the metrics relative to the workload's baseline.
/// The terminal table and index.html both show it.
pub(crate) fn result_rows(
    exp: &Experiment,
    results: &[WorkloadResult],
) -> (Vec<String>, Vec<Vec<Vec<String>>>) {
    let spec = &exp.spec;
    let raw: Vec<&MetricSpec> = spec.metrics.iter().filter(|m| m.column.is_some()).collect();
    let norm: Vec<&MetricSpec> = spec
        .metrics
        .iter()
        .filter(|m| m.normalized.is_some())
        .collect();
    let gaps: Vec<&MetricSpec> = spec.metrics.iter().filter(|m| m.gap.is_some()).collect();
    let mut header = vec!["variant".to_string()];
    header.extend(raw.iter().map(|m| m.column.clone().unwrap_or_default()));
    header.extend(
        norm.iter()
            .map(|m| m.normalized.clone().unwrap_or_default()),
    );
    header.extend(gaps.iter().map(|m| m.gap.clone().unwrap_or_default()));
    let rows = results
        .iter()
        .map(|w| {
            w.runs
                .iter()
                .map(|run| {
                    let mut row = vec![run.variant.clone()];
                    row.extend(raw.iter().map(|m| formatted(m, m.of(run))));
                    row.extend(norm.iter().map(|m| {
                        m.ratio(w, &run.variant, &w.baseline)
                            .map_or_else(|| "-".into(), |x| format!("{x:.3}"))
                    }));
                    row.extend(gaps.iter().map(|m| {
                        m.gap(w, &run.variant, &w.baseline)
                            .map_or_else(|| "-".into(), |x| format!("{x:+.3}"))
                    }));
                    row
                })
                .collect()
        })
        .collect();
    (header, rows)
}

/// The terminal table: per workload and variant, then the paper
/// comparison, then the claims.
pub fn render(exp: &Experiment, results: &[WorkloadResult], quick: bool) -> String {
    let spec = &exp.spec;
    let mut s = setup_line(exp, results, quick);
    let raw = spec.metrics.iter().filter(|m| m.column.is_some()).count();
    let norm = spec
        .metrics
        .iter()
        .filter(|m| m.normalized.is_some())
        .count();
    // One set of widths for every workload's table, so that they line up.
    let (header, per_workload) = result_rows(exp, results);
    let mut rows = vec![header];
    rows.extend(per_workload.into_iter().flatten());
    let bar = (norm > 0).then_some(1 + raw);
    let table = aligned(&rows, bar);
    let mut lines = table.lines();
    let header_line = lines.next().unwrap_or("");
    for w in results {
        let _ = writeln!(s, "\n{}: {}", w.name, w.title);
        let _ = writeln!(s, "{header_line}");
        for _ in &w.runs {
            let _ = writeln!(s, "{}", lines.next().unwrap_or(""));
        }
    }
    if !spec.notes.is_empty() {
        s.push('\n');
        s += &spec.notes;
    }
    s += &reference_table(exp, results);
    s += &claims_text(exp, results);
    s
}

/// One reference row's value on one workload, and the paper's, as text.
fn reference_cells(exp: &Experiment, row: &ReferenceRow, w: Option<&WorkloadResult>) -> String {
    let Some(m) = exp.spec.metric(&row.metric) else {
        return "-".into();
    };
    let ratio_text = |v: Option<f64>| v.map_or_else(|| "-".into(), |x| format!("{x:.2}"));
    match (&row.ratio_to, &row.change_vs, w) {
        (Some(b), _, Some(w)) => ratio_text(m.ratio(w, &row.variant, b)),
        (Some(_), _, None) => ratio_text(row.paper),
        (None, Some(b), Some(w)) => pct(m.change(w, &row.variant, b)),
        (None, Some(_), None) => pct(row.paper),
        (None, None, Some(w)) => formatted(m, w.get(&row.variant).and_then(|r| m.of(r))),
        (None, None, None) => formatted(m, row.paper),
    }
}

/// Our numbers next to the paper's, one column per workload: the header
/// row first; `None` when the experiment has no reference.
pub(crate) fn reference_rows(
    exp: &Experiment,
    results: &[WorkloadResult],
) -> Option<Vec<Vec<String>>> {
    let reference = exp.spec.reference.as_ref()?;
    let mut rows = vec![{
        let mut h = vec![reference.title.clone(), "paper".to_string()];
        h.extend(results.iter().map(|w| w.name.clone()));
        h
    }];
    for row in &reference.rows {
        let mut cells = vec![row.label.clone(), reference_cells(exp, row, None)];
        cells.extend(results.iter().map(|w| reference_cells(exp, row, Some(w))));
        rows.push(cells);
    }
    Some(rows)
}

/// The reference rows as aligned text.
fn reference_table(exp: &Experiment, results: &[WorkloadResult]) -> String {
    reference_rows(exp, results)
        .map_or_else(String::new, |rows| format!("\n{}", aligned(&rows, None)))
}

/// Whether a claim holds on a workload's results.
fn holds(exp: &Experiment, claim: &Claim, w: &WorkloadResult) -> bool {
    let Some(m) = exp.spec.metric(&claim.metric) else {
        return false;
    };
    let value = |variant: &str| {
        let v = w.get(variant).and_then(|r| m.of(r));
        if claim.undefined_is_infinite {
            Some(v.unwrap_or(f64::INFINITY))
        } else {
            v
        }
    };
    match (&claim.variant, claim.above) {
        (Some(v), Some(above)) => value(v).is_some_and(|x| x > above),
        _ => {
            let values: Option<Vec<f64>> = claim.increasing.iter().map(|v| value(v)).collect();
            values.is_some_and(|v| v.windows(2).all(|p| p[0] < p[1]))
        }
    }
}

/// The paper's direction, per workload that has claims and was run.
fn claims_text(exp: &Experiment, results: &[WorkloadResult]) -> String {
    let mut s = String::new();
    let mut workloads: Vec<&str> = Vec::new();
    for c in &exp.spec.claims {
        if !workloads.contains(&c.workload.as_str()) {
            workloads.push(&c.workload);
        }
    }
    for name in workloads {
        let Some(w) = results.iter().find(|w| w.name == name) else {
            continue;
        };
        let _ = writeln!(s, "\nthe paper's direction on {name}:");
        for c in exp.spec.claims.iter().filter(|c| c.workload == name) {
            let verdict = if holds(exp, c, w) {
                "holds"
            } else {
                "DOES NOT HOLD"
            };
            let _ = writeln!(s, "  {:<58} {verdict}", c.label);
        }
    }
    s
}

/// Every claim of the file, with whether it holds, for the workloads run.
pub fn claims(exp: &Experiment, results: &[WorkloadResult]) -> Vec<(String, bool)> {
    exp.spec
        .claims
        .iter()
        .filter_map(|c| {
            let w = results.iter().find(|w| w.name == c.workload)?;
            Some((format!("{}: {}", c.workload, c.label), holds(exp, c, w)))
        })
        .collect()
}

/// The config keys of `csv_config_keys` exist in a config (checked before
/// the grid runs out).
pub fn check_config_keys(exp: &Experiment, config: &ftlsim::Config) -> Result<()> {
    let json = serde_json::to_value(config)?;
    for (i, key) in exp.spec.csv_config_keys.iter().enumerate() {
        if config_value(&json, key).is_none() {
            return Err(RunError::Experiment {
                file: exp.origin.clone(),
                key: format!("csv_config_keys[{i}]"),
                message: format!("`{key}` is not a config key"),
            });
        }
    }
    Ok(())
}

/// results.csv (one row per workload and variant: workload, variant, the
/// config keys asked for, the normalized metrics, then every report field),
/// results.json, summary.txt, one SVG chart per charted metric, and
/// index.html with all of them; `command_line` made them. None may be a
/// file the experiment read (its file, configs, traces); each is written
/// beside its place and renamed into it when whole.
pub fn write_outputs(
    dir: &Path,
    exp: &Experiment,
    results: &[WorkloadResult],
    quick: bool,
    command_line: &str,
) -> Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let mut input_files = exp.input_files();
    input_files.extend(
        results
            .iter()
            .flat_map(|w| &w.runs)
            .map(|r| PathBuf::from(&r.config.workload.trace.path))
            .filter(|p| !p.as_os_str().is_empty()),
    );
    let inputs: Vec<&Path> = input_files.iter().map(PathBuf::as_path).collect();
    let out = |path: &Path, write: &dyn Fn(&Path) -> Result<()>| -> Result<()> {
        write_via_temp(path, &inputs, |p| write(p))
            .with_context(|| format!("cannot write {}", path.display()))
    };
    let csv = csv_text(exp, results)?;
    out(&dir.join("results.csv"), &|p| Ok(std::fs::write(p, &csv)?))?;
    let json = serde_json::to_string_pretty(&to_json(exp, results))? + "\n";
    out(&dir.join("results.json"), &|p| {
        Ok(std::fs::write(p, &json)?)
    })?;
    let summary = render(exp, results, quick);
    out(&dir.join("summary.txt"), &|p| {
        Ok(std::fs::write(p, &summary)?)
    })?;
    // `--only` may have run some workloads only: look each one up by name.
    let charted = |name: &str| {
        exp.spec
            .workloads
            .iter()
            .any(|s| s.name == name && s.lifetime_charts)
    };
    // A chart with nothing to draw leaves no file (nor the empty one the
    // rename into place would make).
    let drawn = |path: &Path, draw: &dyn Fn(&Path) -> Result<bool>| -> Result<bool> {
        let drew = std::cell::Cell::new(false);
        out(path, &|p| {
            drew.set(draw(p)?);
            Ok(())
        })?;
        if !drew.get() {
            let _ = std::fs::remove_file(path);
        }
        Ok(drew.get())
    };
    let mut charts = Vec::new();
    for m in exp.spec.metrics.iter().filter(|m| m.chart) {
        let name = format!("{}.svg", m.name);
        if drawn(&dir.join(&name), &|p| {
            ratio_chart(p, exp, results, quick, m)
        })? {
            charts.push(name);
        }
    }
    for w in results.iter().filter(|w| charted(&w.name)) {
        for run in &w.runs {
            let name = format!("lifetime-{}-{}.svg", w.name, run.variant);
            let path = dir.join(&name);
            let subject = format!(
                "workload {} ({}), variant {}, seed {}",
                w.name, w.title, run.variant, run.report.seed
            );
            if drawn(&path, &|p| {
                crate::output::plot_lifetimes(p, &run.report, &subject)
            })? {
                charts.push(name);
            }
        }
    }
    crate::html::write_reproduce_page(dir, exp, results, quick, command_line, &charts)
}

/// The chart of one metric relative to each workload's baseline: a panel
/// per workload with the variants it ran (crate::panels). Left out, and
/// false returned, when the metric is undefined everywhere (IOPS of an
/// untimed grid).
fn ratio_chart(
    path: &Path,
    exp: &Experiment,
    results: &[WorkloadResult],
    quick: bool,
    m: &MetricSpec,
) -> Result<bool> {
    // One colour per variant of the chart, never repeated, the same in
    // every panel.
    let names: Vec<&str> = exp
        .spec
        .variants
        .iter()
        .map(|v| v.name.as_str())
        .filter(|v| results.iter().any(|w| w.get(v).is_some()))
        .collect();
    let colors = crate::palette::distinct(names.len());
    let color = |v: &str| {
        names
            .iter()
            .position(|n| *n == v)
            .map_or(BLACK, |i| colors[i])
    };
    let mut panels = Vec::new();
    let mut undefined = Vec::new();
    for w in results {
        let mut bars: Vec<Bar> = w
            .runs
            .iter()
            .map(|r| Bar {
                label: r.variant.clone(),
                value: m.ratio(w, &r.variant, &w.baseline),
                color: color(&r.variant),
                reference: r.variant == w.baseline,
            })
            .collect();
        if m.sorted {
            // Lowest first; undefined last. Stable: ties keep the file's order.
            bars.sort_by(|a, b| {
                let key = |x: &Bar| x.value.unwrap_or(f64::INFINITY);
                key(a).total_cmp(&key(b))
            });
        }
        if bars.iter().all(|b| b.value.is_none()) {
            undefined.push(w.name.as_str());
            continue;
        }
        panels.push(Panel {
            title: w.name.clone(),
            subtitle: format!("{} relative to {}", m.label, w.baseline),
            bars,
        });
    }
    if panels.is_empty() {
        return Ok(false);
    }
    let mut baselines: Vec<&str> = results.iter().map(|w| w.baseline.as_str()).collect();
    baselines.sort_unstable();
    baselines.dedup();
    let against = match baselines.as_slice() {
        [one] => format!("relative to {one}"),
        _ => "relative to each workload's baseline".to_string(),
    };
    let title = format!(
        "{}{}: {} {against}",
        exp.spec.name,
        if quick { " --quick" } else { "" },
        m.label
    );
    let note = if undefined.is_empty() {
        String::new()
    } else {
        format!(
            "not shown ({} undefined): {}",
            m.label,
            undefined.join(", ")
        )
    };
    let spec = PanelsSpec {
        title: &title,
        x_desc: "bars run from 1 (the workload's baseline, in bold) to the variant's ratio; value at the right",
        note: &note,
    };
    ratio_panels(path, &spec, &panels)?;
    Ok(true)
}

/// A CSV field, quoted when it must be.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv_text(exp: &Experiment, results: &[WorkloadResult]) -> Result<String> {
    let spec = &exp.spec;
    let norm: Vec<&MetricSpec> = spec
        .metrics
        .iter()
        .filter(|m| m.normalized.is_some())
        .collect();
    let gaps: Vec<&MetricSpec> = spec.metrics.iter().filter(|m| m.gap.is_some()).collect();
    let mut out = String::new();
    let mut first = true;
    for w in results {
        for run in &w.runs {
            let fields = crate::output::scalar_fields(&run.report)?;
            let header = fields
                .iter()
                .map(|(k, _)| csv_field(k))
                .collect::<Vec<_>>()
                .join(",");
            let values = fields
                .iter()
                .map(|(_, v)| csv_field(v))
                .collect::<Vec<_>>()
                .join(",");
            if first {
                first = false;
                out += "workload,variant";
                for key in &spec.csv_config_keys {
                    let _ = write!(out, ",{}", csv_field(key.rsplit('.').next().unwrap_or(key)));
                }
                for m in &norm {
                    let _ = write!(
                        out,
                        ",{}",
                        csv_field(&format!("{}_vs_{}", m.name, spec.baseline))
                    );
                }
                for m in &gaps {
                    let _ = write!(
                        out,
                        ",{}",
                        csv_field(&format!("{}_minus_{}", m.name, spec.baseline))
                    );
                }
                let _ = writeln!(out, ",{header}");
            }
            let _ = write!(out, "{},{}", csv_field(&w.name), csv_field(&run.variant));
            let config = serde_json::to_value(&run.config)?;
            for key in &spec.csv_config_keys {
                let _ = write!(
                    out,
                    ",{}",
                    csv_field(&config_value(&config, key).unwrap_or_default())
                );
            }
            for m in &norm {
                let _ = write!(
                    out,
                    ",{}",
                    m.ratio(w, &run.variant, &w.baseline)
                        .map_or(String::new(), |x| x.to_string())
                );
            }
            for m in &gaps {
                let _ = write!(
                    out,
                    ",{}",
                    m.gap(w, &run.variant, &w.baseline)
                        .map_or(String::new(), |x| x.to_string())
                );
            }
            let _ = writeln!(out, ",{values}");
        }
    }
    Ok(out)
}
