//! The experiment file (`experiments/*.toml`): a grid of workloads ×
//! variants, the metrics reported and how they are normalized, the paper's
//! reference numbers and the claims checked. Parsed with serde; unknown keys
//! are refused, and every error names its key.

use std::collections::BTreeSet;

use serde::Deserialize;

use crate::error::{Result, RunError};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub name: String,
    pub title: String,
    /// The variant that normalized metrics divide by.
    pub baseline: String,
    /// Config keys (dotted) copied into every CSV row.
    #[serde(default)]
    pub csv_config_keys: Vec<String>,
    /// Printed under the per-workload tables.
    #[serde(default)]
    pub notes: String,
    /// The folder of the experiment's own trace corpus, relative to the
    /// experiment file (`../traces/real`): committed with the code, so a
    /// trace missing from it is an error (unless `--allow-missing`), and
    /// looked in when `--traces` is not given. Absent, traces come from
    /// `--traces` or ../shared/traces, and a missing one skips its workload.
    #[serde(default)]
    pub traces: Option<String>,
    pub sizes: Sizes,
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub variants: Vec<VariantSpec>,
    /// A variant per placement scheme ftlsim has (`ftl.placement_scheme.type
    /// = NAME`, named NAME), after the file's own: the list is the code's
    /// (`ftlsim::ftl::scheme_names`), so a scheme added there appears here.
    #[serde(default)]
    pub scheme_variants: bool,
    pub metrics: Vec<MetricSpec>,
    #[serde(default)]
    pub reference: Option<Reference>,
    #[serde(default)]
    pub claims: Vec<Claim>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sizes {
    pub full: Size,
    pub quick: Size,
}

/// How a size changes a synthetic workload's config.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Size {
    /// What the measured window is, for the setup line.
    #[serde(default)]
    pub note: String,
    /// Overrides applied after the variant's, before the user's `--set`.
    #[serde(default)]
    pub sets: Vec<String>,
    /// The measured window, in logical capacities of host page writes
    /// (requests for a read/write mix); absent, the config's own.
    #[serde(default)]
    pub window_logical_capacities: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    pub name: String,
    pub title: String,
    /// A run config, relative to the experiment file.
    pub config: String,
    /// KEY=VALUE overrides of the config, as `--set` takes them, before
    /// the variant's: one config serves several workloads (a regime, a
    /// victim policy).
    #[serde(default)]
    pub sets: Vec<String>,
    /// A trace file the config replays, looked up in the traces folder.
    #[serde(default)]
    pub trace: Option<String>,
    /// This workload's corpus folder, relative to the experiment file, when
    /// it is not the experiment's `traces` (an experiment whose other
    /// workloads read ../shared/traces): a shipped corpus as `traces` is,
    /// so its trace missing is an error unless `--allow-missing`.
    #[serde(default)]
    pub traces: Option<String>,
    /// The variants this workload runs, in the experiment's order (default:
    /// all of them), for experiments whose parts vary different things.
    #[serde(default)]
    pub variants: Vec<String>,
    /// This workload's baseline variant (default: the experiment's).
    #[serde(default)]
    pub baseline: Option<String>,
    /// With `--out`: one chart of page lifetimes by stream per variant,
    /// `lifetime-WORKLOAD-VARIANT.svg` (PCStream's Fig. 11), for the
    /// variants whose reports have them (several streams or internal ones).
    #[serde(default)]
    pub lifetime_charts: bool,
    /// KEY=VALUE overrides of this workload at one size, after the
    /// experiment's `sizes` and before the user's `--set`: a workload whose
    /// device is shaped for its size (the stressed device of RemapCom, whose
    /// blocks must hold several tables at 1 M records but not at 20 k).
    #[serde(default)]
    pub sizes: WorkloadSizes,
}

/// A workload's own overrides per size (`[workloads.sizes]`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSizes {
    #[serde(default)]
    pub full: Vec<String>,
    #[serde(default)]
    pub quick: Vec<String>,
}

impl WorkloadSpec {
    /// Whether the workload runs variant `name`.
    pub fn runs(&self, name: &str) -> bool {
        self.variants.is_empty() || self.variants.iter().any(|v| v == name)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// KEY=VALUE overrides, as `--set` takes them.
    #[serde(default)]
    pub sets: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `decimals` digits after the point.
    #[default]
    Fixed,
    /// 0.299 as `29.9%`.
    Percent,
    /// A relative change, 0.58 as `+58.0 %`.
    Change,
    /// A count, short: `3.49M`, `140k`.
    Short,
}

/// The most digits after the point a metric may ask for (`decimals`).
pub const MAX_DECIMALS: usize = 17;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    /// Names the CSV column (`NAME_vs_BASELINE`) and the chart (`NAME.svg`).
    pub name: String,
    /// Chart title.
    pub label: String,
    /// A numeric field of the run report; null means undefined.
    pub field: String,
    /// With it, the metric is `field / vs_field - 1` within one report.
    #[serde(default)]
    pub vs_field: Option<String>,
    /// With it, the metric is `field / per_field` within one report (a
    /// share: 0.66 with `format = "percent"` reads `66.0%`).
    #[serde(default)]
    pub per_field: Option<String>,
    /// The metric is undefined unless these report fields are > 0.
    #[serde(default)]
    pub when_positive: Vec<String>,
    /// Header of the raw value's table column; absent, no column.
    #[serde(default)]
    pub column: Option<String>,
    #[serde(default)]
    pub format: Format,
    #[serde(default)]
    pub decimals: usize,
    /// Header of the table column relative to the baseline; also a CSV column.
    #[serde(default)]
    pub normalized: Option<String>,
    /// An SVG bar chart of the values relative to the baseline.
    #[serde(default)]
    pub chart: bool,
    /// Header of a table column of the value less the baseline's (the
    /// oracle gap when the baseline is the oracle); also a CSV column
    /// (`NAME_minus_BASELINE`).
    #[serde(default)]
    pub gap: Option<String>,
    /// The chart lists each panel's variants by value, lowest first,
    /// instead of in the experiment's order.
    #[serde(default)]
    pub sorted: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub title: String,
    pub rows: Vec<ReferenceRow>,
}

/// One line of "the paper vs ours".
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceRow {
    pub label: String,
    pub metric: String,
    pub variant: String,
    #[serde(default)]
    pub ratio_to: Option<String>,
    #[serde(default)]
    pub change_vs: Option<String>,
    /// The paper's value in the row's form; absent where the paper has none.
    #[serde(default)]
    pub paper: Option<f64>,
}

/// A direction the paper claims, checked on one workload.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub workload: String,
    pub label: String,
    pub metric: String,
    /// Variants whose metric strictly increases in this order.
    #[serde(default)]
    pub increasing: Vec<String>,
    /// Or: the metric of `variant` exceeds `above`.
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub above: Option<f64>,
    #[serde(default)]
    pub undefined_is_infinite: bool,
}

impl Spec {
    /// Parses an experiment file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Spec> {
        let value = toml::Value::Table(crate::load::parse_toml(text, origin)?);
        let mut spec: Spec = crate::load::deserialize_named(value, origin, "key")?;
        if spec.scheme_variants {
            for name in ftlsim::ftl::scheme_names() {
                spec.variants.push(VariantSpec {
                    description: format!("placement scheme {name}"),
                    sets: vec![format!("ftl.placement_scheme.type={name}")],
                    name,
                });
            }
        }
        spec.check().map_err(|e| RunError::Experiment {
            file: origin.to_string(),
            key: e.key,
            message: e.message,
        })?;
        Ok(spec)
    }

    pub fn metric(&self, name: &str) -> Option<&MetricSpec> {
        self.metrics.iter().find(|m| m.name == name)
    }

    /// The references between the file's own names resolve, and names are unique.
    fn check(&self) -> Result<(), KeyError> {
        unique("workloads", self.workloads.iter().map(|w| w.name.as_str()))?;
        unique("variants", self.variants.iter().map(|v| v.name.as_str()))?;
        unique("metrics", self.metrics.iter().map(|m| m.name.as_str()))?;
        if self.workloads.is_empty() {
            return bad("workloads", "at least one workload");
        }
        let variant = |key: String, name: &str| -> Result<(), KeyError> {
            if self.variants.iter().any(|v| v.name == name) {
                Ok(())
            } else {
                bad(
                    key,
                    format!(
                        "no variant `{name}`; the variants are {}",
                        self.variants
                            .iter()
                            .map(|v| v.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            }
        };
        let metric = |key: String, name: &str| -> Result<(), KeyError> {
            if self.metric(name).is_some() {
                Ok(())
            } else {
                bad(
                    key,
                    format!(
                        "no metric `{name}`; the metrics are {}",
                        self.metrics
                            .iter()
                            .map(|m| m.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            }
        };
        variant("baseline".into(), &self.baseline)?;
        for (i, w) in self.workloads.iter().enumerate() {
            for v in &w.variants {
                variant(format!("workloads[{i}].variants"), v)?;
            }
            let baseline = w.baseline.as_deref().unwrap_or(&self.baseline);
            variant(format!("workloads[{i}].baseline"), baseline)?;
            if !w.runs(baseline) {
                return bad(
                    format!("workloads[{i}].baseline"),
                    format!("`{baseline}` is not among the workload's variants"),
                );
            }
        }
        for (key, size) in [
            ("sizes.full", &self.sizes.full),
            ("sizes.quick", &self.sizes.quick),
        ] {
            if let Some(x) = size.window_logical_capacities {
                if !(x.is_finite() && x > 0.0) {
                    return bad(
                        format!("{key}.window_logical_capacities"),
                        format!("{x} is not a positive number"),
                    );
                }
            }
        }
        for (i, m) in self.metrics.iter().enumerate() {
            if m.vs_field.is_some() && m.per_field.is_some() {
                return bad(
                    format!("metrics[{i}]"),
                    "give `vs_field` or `per_field`, not both",
                );
            }
            if m.decimals > MAX_DECIMALS {
                // An f64 holds about 17 significant digits: more decimals
                // print noise, and a huge count only fills memory and pads
                // table columns without bound.
                return bad(
                    format!("metrics[{i}].decimals"),
                    format!("{} is more than {MAX_DECIMALS}", m.decimals),
                );
            }
            if m.chart && m.vs_field.is_some() {
                // A relative change has no meaningful ratio to the baseline's.
                return bad(
                    format!("metrics[{i}].chart"),
                    "a metric with `vs_field` cannot be charted against the baseline",
                );
            }
        }
        if let Some(reference) = &self.reference {
            for (i, row) in reference.rows.iter().enumerate() {
                let key = format!("reference.rows[{i}]");
                metric(format!("{key}.metric"), &row.metric)?;
                variant(format!("{key}.variant"), &row.variant)?;
                match (&row.ratio_to, &row.change_vs) {
                    (Some(_), Some(_)) => {
                        return bad(key, "give `ratio_to` or `change_vs`, not both")
                    }
                    (Some(v), None) => variant(format!("{key}.ratio_to"), v)?,
                    (None, Some(v)) => variant(format!("{key}.change_vs"), v)?,
                    (None, None) => {}
                }
            }
        }
        for (i, c) in self.claims.iter().enumerate() {
            let key = format!("claims[{i}]");
            metric(format!("{key}.metric"), &c.metric)?;
            if !self.workloads.iter().any(|w| w.name == c.workload) {
                return bad(
                    format!("{key}.workload"),
                    format!("no workload `{}`", c.workload),
                );
            }
            match (c.increasing.is_empty(), &c.variant, c.above) {
                (false, None, None) if c.increasing.len() >= 2 => {
                    for v in &c.increasing {
                        variant(format!("{key}.increasing"), v)?;
                    }
                }
                (true, Some(v), Some(_)) => variant(format!("{key}.variant"), v)?,
                _ => {
                    return bad(
                        key,
                        "give `increasing` (two variants or more), or `variant` and `above`",
                    )
                }
            }
        }
        Ok(())
    }
}

fn unique<'a>(key: &str, names: impl Iterator<Item = &'a str>) -> Result<(), KeyError> {
    let mut seen = BTreeSet::new();
    for (i, name) in names.enumerate() {
        if name.is_empty() {
            return bad(format!("{key}[{i}].name"), "empty");
        }
        if !seen.insert(name) {
            return bad(
                format!("{key}[{i}].name"),
                format!("`{name}` appears twice"),
            );
        }
    }
    Ok(())
}

/// What is wrong with one key of an experiment file; [`Spec::parse`] adds
/// the file ([`RunError::Experiment`]).
struct KeyError {
    key: String,
    message: String,
}

fn bad<T>(key: impl Into<String>, message: impl Into<String>) -> Result<T, KeyError> {
    Err(KeyError {
        key: key.into(),
        message: message.into(),
    })
}
