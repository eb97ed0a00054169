//! The generic runner: load an experiment (built-in by name, or a file), run
//! its grid of workloads × variants through [`crate::simulate::simulate`],
//! and evaluate its metrics on the reports.

use std::path::{Component, Path, PathBuf};

use ftlsim::config::{Amount, Config};
use ftlsim::Report;
use serde_json::Value;

use super::spec::{MetricSpec, Spec, WorkloadSpec};
use super::{BuiltIn, BUILT_IN};
use crate::error::{Context, Result, RunError};
use crate::warning::Warning;

/// Where an experiment's workload configs come from.
enum Source {
    BuiltIn(&'static BuiltIn),
    /// The folder of the experiment file: config paths resolve against it.
    Dir(PathBuf),
}

pub struct Experiment {
    pub spec: Spec,
    /// The experiment file, for messages.
    pub origin: String,
    /// The experiment file's text as it was read (index.html shows it).
    pub text: String,
    source: Source,
}

/// A built-in experiment by name, or an experiment file by path.
pub fn load(name_or_path: &str) -> Result<Experiment> {
    if let Some(b) = BUILT_IN.iter().find(|b| b.name == name_or_path) {
        let (path, text) = b.file;
        return Ok(Experiment {
            spec: Spec::parse(text, path)?,
            origin: path.to_string(),
            text: text.to_string(),
            source: Source::BuiltIn(b),
        });
    }
    let path = Path::new(name_or_path);
    let looks_like_path = name_or_path.ends_with(".toml") || name_or_path.contains('/');
    if !looks_like_path && !path.is_file() {
        let names: Vec<&str> = BUILT_IN.iter().map(|b| b.name).collect();
        return Err(RunError::Input(format!(
            "no experiment `{name_or_path}`; the built-in experiments are {} (or give the path of an experiment .toml)",
            names.join(", ")
        )));
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read experiment {}", path.display()))?;
    let origin = path.display().to_string();
    Ok(Experiment {
        spec: Spec::parse(&text, &origin)?,
        origin,
        text,
        source: Source::Dir(path.parent().unwrap_or(Path::new("")).to_path_buf()),
    })
}

/// `a/b/../c` as `a/c`, without touching the file system (embedded files
/// have no file system to ask).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

impl Experiment {
    /// The text of workload `i`'s config, and the name to report it by.
    pub(crate) fn config_text(&self, i: usize, w: &WorkloadSpec) -> Result<(String, String)> {
        let key = format!("workloads[{i}].config");
        match &self.source {
            Source::BuiltIn(b) => {
                let dir = Path::new(b.file.0).parent().unwrap_or(Path::new(""));
                let path = normalize(&dir.join(&w.config));
                let name = path.to_string_lossy().into_owned();
                let (_, text) = b.configs.iter().find(|(p, _)| *p == name).ok_or_else(|| {
                    RunError::Experiment {
                        file: self.origin.clone(),
                        key,
                        message: format!("{name} is not embedded in the binary (list it in ftlsim_run::reproduce::BUILT_IN)"),
                    }
                })?;
                Ok((text.to_string(), name))
            }
            Source::Dir(dir) => {
                let path = dir.join(&w.config);
                let text = std::fs::read_to_string(&path).with_context(|| {
                    format!(
                        "{}: key `{key}`: cannot read {}",
                        self.origin,
                        path.display()
                    )
                })?;
                Ok((text, path.display().to_string()))
            }
        }
    }

    /// The files the experiment reads, which its outputs must never
    /// overwrite: the experiment file and its configs (a built-in
    /// experiment's are inside the binary).
    pub fn input_files(&self) -> Vec<PathBuf> {
        match &self.source {
            Source::BuiltIn(_) => Vec::new(),
            Source::Dir(dir) => std::iter::once(PathBuf::from(&self.origin))
                .chain(self.spec.workloads.iter().map(|w| dir.join(&w.config)))
                .collect(),
        }
    }

    /// The names of the workloads, for messages.
    fn workload_names(&self) -> String {
        self.spec
            .workloads
            .iter()
            .map(|w| w.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Where an experiment is: runs done of the total, and the run starting now.
pub struct RunProgress<'a> {
    pub done: usize,
    pub total: usize,
    pub label: &'a str,
}

pub struct Options {
    /// The `quick` size instead of `full`.
    pub quick: bool,
    /// `--set` overrides applied to every run, last.
    pub sets: Vec<String>,
    /// Only these workloads (all when empty).
    pub only: Vec<String>,
    /// The folder of trace files; default the experiment's corpus
    /// (`traces` in its file), else ../shared/traces.
    pub traces: Option<PathBuf>,
    /// A workload whose corpus trace is missing is skipped with a warning
    /// instead of failing the experiment.
    pub allow_missing: bool,
}

/// One run of the grid.
pub struct VariantRun {
    pub variant: String,
    pub config: Config,
    pub report: Report,
    /// The report as `ftlsim run --json` prints it; metrics read its fields.
    pub json: Value,
}

/// One workload's runs, in the file's variant order.
pub struct WorkloadResult {
    pub name: String,
    pub title: String,
    /// The variant normalized metrics divide by.
    pub baseline: String,
    pub runs: Vec<VariantRun>,
}

impl WorkloadResult {
    pub fn get(&self, variant: &str) -> Option<&VariantRun> {
        self.runs.iter().find(|r| r.variant == variant)
    }
}

/// Where a workload's trace is looked for: `--traces`; else its corpus
/// folder (the workload's `traces`, else the experiment's), beside the
/// experiment file (a built-in experiment's from the working directory, as
/// the repository root, then from the source tree); else `../shared/traces`
/// from the working directory, then from the source tree.
fn trace_dirs(exp: &Experiment, opts: &Options, corpus: Option<&String>) -> Vec<PathBuf> {
    if let Some(d) = &opts.traces {
        return vec![d.clone()];
    }
    let source_tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    match (corpus, &exp.source) {
        (Some(corpus), Source::BuiltIn(b)) => {
            let dir = Path::new(b.file.0).parent().unwrap_or(Path::new(""));
            let rel = normalize(&dir.join(corpus));
            vec![rel.clone(), source_tree.join(rel)]
        }
        (Some(corpus), Source::Dir(dir)) => vec![dir.join(corpus)],
        (None, _) => vec![
            PathBuf::from("../shared/traces"),
            source_tree.join("../shared/traces"),
        ],
    }
}

/// The config of one workload under one variant, at the chosen size.
fn build_config(
    exp: &Experiment,
    table: &toml::Table,
    origin: &str,
    workload: (usize, &WorkloadSpec),
    variant: usize,
    opts: &Options,
    trace: Option<&Path>,
) -> Result<Config> {
    let spec = &exp.spec;
    let v = &spec.variants[variant];
    let origin = format!("{origin} ({})", v.name);
    let mut table = table.clone();
    for s in &v.sets {
        crate::load::apply_set(&mut table, s)
            .with_context(|| format!("{}: key `variants[{variant}].sets`", exp.origin))?;
    }
    if let Some(path) = trace {
        let path = path.to_str().ok_or_else(|| {
            RunError::Input(format!("trace path {} is not valid UTF-8", path.display()))
        })?;
        // A TOML string literal, quoted and escaped.
        let literal = toml::Value::String(path.to_string());
        crate::load::apply_set(&mut table, &format!("workload.trace.path={literal}"))?;
    }
    // Sizes scale synthetic workloads; a trace sets its own scale. The
    // workload's own overrides for the size apply either way.
    let (wi, w) = workload;
    let (size, own) = if opts.quick {
        (("sizes.quick", &spec.sizes.quick), &w.sizes.quick)
    } else {
        (("sizes.full", &spec.sizes.full), &w.sizes.full)
    };
    let synthetic = trace.is_none();
    if synthetic {
        for s in &size.1.sets {
            crate::load::apply_set(&mut table, s)
                .with_context(|| format!("{}: key `{}.sets`", exp.origin, size.0))?;
        }
    }
    for s in own {
        crate::load::apply_set(&mut table, s)
            .with_context(|| format!("{}: key `workloads[{wi}].{}`", exp.origin, size.0))?;
    }
    for s in &opts.sets {
        crate::load::apply_set(&mut table, s)?;
    }
    let mut cfg = crate::load::config_from_table(table, &origin)?;
    if let Some(capacities) = size.1.window_logical_capacities.filter(|_| synthetic) {
        let pages = (capacities * cfg.logical_pages() as f64).round() as u64;
        set_window(&mut cfg, pages);
        cfg.validate()
            .map_err(|error| RunError::Config { origin, error })?;
    }
    Ok(cfg)
}

/// Sets the measured window to `pages` host page writes: as pages for a
/// write-only workload, as requests for a read/write mix. This is code, not
/// data: the request count depends on the config's read and trim shares.
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

/// Every report field the metrics name exists in a report (checked on the
/// first one, so that a typo fails in seconds, not after the grid). Of a
/// dotted path only the top-level key is checked: what lies below it (a
/// layer's assigner counters) may exist in some variants' reports only.
fn check_fields(exp: &Experiment, report: &Value) -> Result<()> {
    for (i, m) in exp.spec.metrics.iter().enumerate() {
        let fields = std::iter::once(("field", &m.field))
            .chain(m.vs_field.iter().map(|f| ("vs_field", f)))
            .chain(m.per_field.iter().map(|f| ("per_field", f)))
            .chain(m.when_positive.iter().map(|f| ("when_positive", f)));
        for (key, field) in fields {
            let top = field.split('.').next().unwrap_or(field);
            if lookup(report, top).is_none() {
                return Err(RunError::Experiment {
                    file: exp.origin.clone(),
                    key: format!("metrics[{i}].{key}"),
                    message: format!(
                        "`{field}` is not a field of the run report (see `ftlsim run --json`)"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Runs the whole grid; `warn` hears what the user should know as it
/// happens (a workload skipped, a trace's bad lines).
pub fn run_experiment(
    exp: &Experiment,
    opts: &Options,
    progress: &mut dyn FnMut(RunProgress<'_>),
    warn: &mut dyn FnMut(Warning),
) -> Result<Vec<WorkloadResult>> {
    let spec = &exp.spec;
    for name in &opts.only {
        if !spec.workloads.iter().any(|w| &w.name == name) {
            return Err(RunError::Input(format!(
                "--only: no workload `{name}` in {}; the workloads are {}",
                exp.origin,
                exp.workload_names()
            )));
        }
    }
    if let Some(dir) = &opts.traces {
        if !dir.is_dir() {
            return Err(RunError::Input(format!(
                "--traces {}: no such folder",
                dir.display()
            )));
        }
    }
    let mut plan = Vec::new();
    // Traces not found: a workload without its trace is skipped, but an
    // experiment left with nothing to run is an error, not "0 runs". An
    // experiment that ships its traces (`traces` in its file) is incomplete
    // without one, which is an error unless --allow-missing.
    let mut missing = Vec::new();
    let mut missing_dirs: Vec<PathBuf> = Vec::new();
    let looked_in = |dirs: &[PathBuf], sep: &str| {
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(sep)
    };
    for (i, w) in spec.workloads.iter().enumerate() {
        if !opts.only.is_empty() && !opts.only.contains(&w.name) {
            continue;
        }
        let corpus = w.traces.as_ref().or(spec.traces.as_ref());
        let dirs = trace_dirs(exp, opts, corpus);
        let (text, origin) = exp.config_text(i, w)?;
        let mut table = crate::load::parse_toml(&text, &origin)?;
        for s in &w.sets {
            crate::load::apply_set(&mut table, s)
                .with_context(|| format!("{}: key `workloads[{i}].sets`", exp.origin))?;
        }
        let trace = match &w.trace {
            None => None,
            Some(file) => match dirs.iter().map(|d| d.join(file)).find(|p| p.is_file()) {
                Some(p) => Some(p),
                None if corpus.is_some() && !opts.allow_missing => {
                    return Err(RunError::Input(format!(
                            "{}: workload `{}`: trace {file} not found in {} (the experiment's corpus; --allow-missing skips it)",
                            exp.origin,
                            w.name,
                            looked_in(&dirs, " or ")
                        )));
                }
                None => {
                    warn(Warning::TraceNotFound {
                        file: file.clone(),
                        looked_in: looked_in(&dirs, " or "),
                        workload: w.name.clone(),
                    });
                    missing.push(file.as_str());
                    for d in dirs {
                        if !missing_dirs.contains(&d) {
                            missing_dirs.push(d);
                        }
                    }
                    continue;
                }
            },
        };
        plan.push((i, w, table, origin, trace));
    }
    if plan.is_empty() && !missing.is_empty() {
        return Err(RunError::Input(format!(
            "{}: no workload can run: trace{} not found: {} (looked in {}; give the folder with --traces)",
            exp.origin,
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", "),
            looked_in(&missing_dirs, " and ")
        )));
    }
    let total: usize = plan
        .iter()
        .map(|(_, w, ..)| spec.variants.iter().filter(|v| w.runs(&v.name)).count())
        .sum();
    let mut done = 0;
    let mut results = Vec::with_capacity(plan.len());
    for (wi, w, table, origin, trace) in plan {
        let mut runs = Vec::with_capacity(spec.variants.len());
        for (vi, v) in spec.variants.iter().enumerate() {
            if !w.runs(&v.name) {
                continue;
            }
            let cfg = build_config(exp, &table, &origin, (wi, w), vi, opts, trace.as_deref())?;
            progress(RunProgress {
                done,
                total,
                label: &format!("{}/{}", w.name, v.name),
            });
            let crate::Simulated { report, warnings } =
                crate::simulate::simulate(&cfg, false, &mut |_| {})
                    .with_context(|| format!("workload {} variant {}", w.name, v.name))?;
            warnings.into_iter().for_each(&mut *warn);
            let json = serde_json::to_value(&report)?;
            if done == 0 {
                check_fields(exp, &json)?;
                super::render::check_config_keys(exp, &cfg)?;
            }
            done += 1;
            runs.push(VariantRun {
                variant: v.name.clone(),
                config: cfg,
                report,
                json,
            });
        }
        results.push(WorkloadResult {
            name: w.name.clone(),
            title: w.title.clone(),
            baseline: w.baseline.clone().unwrap_or_else(|| spec.baseline.clone()),
            runs,
        });
    }
    Ok(results)
}

/// `a / b`, when both exist and `b` is not zero.
pub fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b != 0.0 && a.is_finite() && b.is_finite() => Some(a / b),
        _ => None,
    }
}

/// A numeric field of a report: a top-level key, or a dotted path into
/// its arrays and objects (`layers.0.wa`: the top layer's WA).
fn field(report: &Value, name: &str) -> Option<f64> {
    lookup(report, name).and_then(Value::as_f64)
}

fn lookup<'a>(report: &'a Value, name: &str) -> Option<&'a Value> {
    name.split('.').try_fold(report, |v, part| match v {
        Value::Array(items) => items.get(part.parse::<usize>().ok()?),
        _ => v.get(part),
    })
}

impl MetricSpec {
    /// The metric of one run; `None` when undefined (a null field, a
    /// `when_positive` field not above zero, a zero denominator).
    pub fn of(&self, run: &VariantRun) -> Option<f64> {
        let r = &run.json;
        if !self
            .when_positive
            .iter()
            .all(|f| field(r, f).is_some_and(|x| x > 0.0))
        {
            return None;
        }
        let value = field(r, &self.field);
        match (&self.vs_field, &self.per_field) {
            (Some(vs), _) => ratio(value, field(r, vs)).map(|x| x - 1.0),
            (None, Some(per)) => ratio(value, field(r, per)),
            (None, None) => value,
        }
    }

    /// Variant `a`'s metric over variant `b`'s, on one workload.
    pub fn ratio(&self, w: &WorkloadResult, a: &str, b: &str) -> Option<f64> {
        ratio(self.of(w.get(a)?), self.of(w.get(b)?))
    }

    /// Variant `a`'s value less `b`'s (the oracle gap against fk).
    pub fn gap(&self, w: &WorkloadResult, a: &str, b: &str) -> Option<f64> {
        let d = self.of(w.get(a)?)? - self.of(w.get(b)?)?;
        d.is_finite().then_some(d)
    }

    /// Relative change of variant `a` against `b` (−0.31 = 31 % less).
    pub fn change(&self, w: &WorkloadResult, a: &str, b: &str) -> Option<f64> {
        self.ratio(w, a, b).map(|x| x - 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_experiments_parse_and_embed_their_configs() {
        for b in BUILT_IN {
            let exp = load(b.name).unwrap();
            assert_eq!(exp.spec.name, b.name, "{}", b.file.0);
            for (i, w) in exp.spec.workloads.iter().enumerate() {
                let (text, origin) = exp.config_text(i, w).unwrap();
                let table: toml::Table = toml::from_str(&text).unwrap();
                crate::load::config_from_table(table, &origin).unwrap();
            }
        }
    }

    #[test]
    fn unknown_name_lists_the_built_in_ones() {
        let e = load("coldmapp").err().unwrap().to_string();
        assert!(
            e.contains("`coldmapp`") && e.contains("experiments are coldmap"),
            "{e}"
        );
    }

    #[test]
    fn normalize_drops_parent_components() {
        assert_eq!(
            normalize(Path::new("experiments/../examples/coldmap/fio.toml")),
            Path::new("examples/coldmap/fio.toml")
        );
        assert_eq!(normalize(Path::new("../a")), Path::new("../a"));
    }
}
