//! index.html of `ftlsim reproduce NAME --out DIR`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{document, escape, figure, file_links, pre, table, write_page};
use crate::error::Result;
use crate::reproduce::render::{claims, reference_rows, result_rows, setup_line};
use crate::reproduce::{Experiment, WorkloadResult};

/// A variant's `--set` overrides, shortened: ManualStream's map runs to
/// thousands of characters and says nothing at a glance.
fn short_sets(sets: &[String]) -> String {
    const MAX: usize = 160;
    let text = sets.join("  ");
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}… (the experiment file below has it whole)")
    }
}

/// The variants run, with what each one is.
fn variants_table(exp: &Experiment, results: &[WorkloadResult]) -> String {
    let rows: Vec<Vec<String>> = exp
        .spec
        .variants
        .iter()
        .filter(|v| results.iter().any(|w| w.get(&v.name).is_some()))
        .map(|v| vec![v.name.clone(), v.description.clone(), short_sets(&v.sets)])
        .collect();
    let header = ["variant", "what it is", "overrides"].map(String::from);
    table(&header, &rows, &[])
}

/// The seeds of the runs, in order of first use (one, unless `--set`
/// varied it per variant).
fn seeds(results: &[WorkloadResult]) -> Vec<u64> {
    let mut seeds = Vec::new();
    for run in results.iter().flat_map(|w| &w.runs) {
        if !seeds.contains(&run.report.seed) {
            seeds.push(run.report.seed);
        }
    }
    seeds
}

/// Per workload, its table: the baseline's row in bold, and said.
fn results_section(exp: &Experiment, results: &[WorkloadResult]) -> String {
    let (header, per_workload) = result_rows(exp, results);
    let mut s = String::new();
    for (w, rows) in results.iter().zip(&per_workload) {
        let _ = writeln!(
            s,
            "<h3 id=\"workload-{}\">{}: {}</h3>\n<p>Relative columns divide by <b>{}</b>, this workload's baseline.</p>",
            escape(&w.name),
            escape(&w.name),
            escape(&w.title),
            escape(&w.baseline)
        );
        let bold: Vec<usize> = w
            .runs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.variant == w.baseline)
            .map(|(i, _)| i)
            .collect();
        s += &table(&header, rows, &bold);
    }
    s
}

/// The paper's numbers next to ours, and the claims with their verdicts.
fn paper_section(exp: &Experiment, results: &[WorkloadResult]) -> String {
    let mut s = String::new();
    if let Some(rows) = reference_rows(exp, results) {
        if let Some((header, rows)) = rows.split_first() {
            s += "<h2>The paper and ours</h2>\n";
            s += &table(header, rows, &[]);
        }
    }
    let verdicts = claims(exp, results);
    if !verdicts.is_empty() {
        s += "<h2>The paper's claims</h2>\n<ul>\n";
        for (claim, holds) in verdicts {
            let (class, word) = if holds {
                ("holds", "holds")
            } else {
                ("fails", "DOES NOT HOLD")
            };
            let _ = writeln!(
                s,
                "<li>{}: <span class=\"{class}\">{word}</span></li>",
                escape(&claim)
            );
        }
        s += "</ul>\n";
    }
    s
}

/// The experiment file and every workload config it ran, as text.
fn config_section(exp: &Experiment, results: &[WorkloadResult]) -> String {
    let mut s = String::from("<h2>Config</h2>\n");
    let _ = writeln!(
        s,
        "<p>The experiment file, {}: its variants are <code>--set</code> overrides of each workload's config; the command's own <code>--set</code> apply last.</p>",
        escape(&exp.origin)
    );
    let _ = writeln!(
        s,
        "<details><summary>{}</summary>\n{}</details>",
        escape(&exp.origin),
        pre(&exp.text)
    );
    for (i, w) in exp.spec.workloads.iter().enumerate() {
        if !results.iter().any(|r| r.name == w.name) {
            continue;
        }
        if let Ok((text, origin)) = exp.config_text(i, w) {
            let _ = writeln!(
                s,
                "<details><summary>{}: {}</summary>\n{}</details>",
                escape(&w.name),
                escape(&origin),
                pre(&text)
            );
        }
    }
    s
}

/// The files the experiment read: the page must not replace any of them.
fn inputs(exp: &Experiment, results: &[WorkloadResult]) -> Vec<PathBuf> {
    let mut inputs = vec![PathBuf::from(&exp.origin)];
    for (i, w) in exp.spec.workloads.iter().enumerate() {
        if let Ok((_, origin)) = exp.config_text(i, w) {
            inputs.push(PathBuf::from(origin));
        }
    }
    for run in results.iter().flat_map(|w| &w.runs) {
        if !run.config.workload.trace.path.is_empty() {
            inputs.push(PathBuf::from(&run.config.workload.trace.path));
        }
    }
    inputs
}

/// Writes `dir/index.html` for an experiment whose other outputs (and the
/// SVG files named in `charts`) are in `dir` already.
pub fn write_reproduce_page(
    dir: &Path,
    exp: &Experiment,
    results: &[WorkloadResult],
    quick: bool,
    command_line: &str,
    charts: &[String],
) -> Result<()> {
    let spec = &exp.spec;
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<h1>{}</h1>\n<p class=\"subject\">ftlsim reproduce {}{}: {} workloads, {} runs</p>",
        escape(&spec.title),
        escape(&spec.name),
        if quick { " --quick" } else { "" },
        results.len(),
        results.iter().map(|w| w.runs.len()).sum::<usize>()
    );
    body += &pre(setup_line(exp, results, quick).trim_end());
    body += "<h2>Command</h2>\n";
    body += &pre(command_line);
    let seeds: Vec<String> = seeds(results).iter().map(u64::to_string).collect();
    let _ = writeln!(
        body,
        "<p>ftlsim {}, seed <span id=\"command-seed\">{}</span>; the same command and seed give the same bytes.</p>",
        env!("CARGO_PKG_VERSION"),
        seeds.join(", ")
    );
    body += &file_links(dir, &["results.csv", "results.json", "summary.txt"]);
    body += "<h2>Variants</h2>\n";
    body += &variants_table(exp, results);
    body += "<h2>Results</h2>\n";
    body += &results_section(exp, results);
    if !spec.notes.is_empty() {
        body += &pre(spec.notes.trim_end());
    }
    body += &paper_section(exp, results);
    if !charts.is_empty() {
        body += "<h2>Charts</h2>\n";
        for name in charts {
            body += &figure(dir, name)?;
        }
    }
    body += &config_section(exp, results);
    let title = format!("ftlsim reproduce {}", spec.name);
    let inputs = inputs(exp, results);
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    write_page(dir, &document(&title, &body), &inputs)
}
