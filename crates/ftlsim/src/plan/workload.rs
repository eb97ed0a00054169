//! The workload's checks: fractions, the amounts to run, the generator's
//! kind and its keys, and a span that fits the space the stack offers.

use crate::config::{Amount, Config, WorkloadConfig, WorkloadType, MIN_REGION_PAGES};
use crate::error::ConfigError;

/// What the request generator is built from: the `[workload]` section and
/// the space it addresses.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadPlan {
    pub section: WorkloadConfig,
    /// Logical pages at the top of the host stack.
    pub host_pages: u64,
    /// Pages the workload addresses (`workload.span` of `host_pages`).
    pub span_pages: u64,
    /// Writes carry content fingerprints (dedup on, or duplicates asked for).
    pub content: bool,
    /// The device's page size (byte amounts of the workload's keys in pages).
    pub page_bytes: u32,
}

impl WorkloadPlan {
    pub(super) fn of(cfg: &Config) -> Self {
        Self {
            section: cfg.workload.clone(),
            host_pages: cfg.host_pages(),
            span_pages: cfg.span_pages(),
            content: cfg.ftl.dedup || cfg.workload.dedup_fraction > 0.0,
            page_bytes: cfg.device.page_bytes,
        }
    }
}

/// `v` of `key` within (0, 1) (`open`) or [0, 1].
fn fraction(key: &str, v: f64, open: bool) -> Result<(), ConfigError> {
    let ok = if open {
        v > 0.0 && v < 1.0
    } else {
        (0.0..=1.0).contains(&v)
    };
    if ok {
        Ok(())
    } else {
        let range = if open { "(0, 1)" } else { "[0, 1]" };
        Err(ConfigError::new(key, format!("{v} is outside {range}")))
    }
}

/// Fractions, the measured amount, the trace, and the application models.
pub(super) fn check_kind(cfg: &Config) -> Result<(), ConfigError> {
    let w = &cfg.workload;
    if w.kind == WorkloadType::HotCold {
        fraction("workload.hot_write_fraction", w.hot_write_fraction, true)?;
        fraction("workload.hot_space_fraction", w.hot_space_fraction, true)?;
    }
    fraction("workload.read_fraction", w.read_fraction, false)?;
    fraction("workload.dedup_fraction", w.dedup_fraction, false)?;
    fraction("workload.trim_fraction", w.trim_fraction, false)?;
    if w.read_fraction + w.trim_fraction > 1.0 {
        return Err(ConfigError::new(
            "workload.trim_fraction",
            "workload.read_fraction + workload.trim_fraction exceeds 1",
        ));
    }
    if w.kind == WorkloadType::Zipf && !(w.zipf_theta > 0.0 && w.zipf_theta.is_finite()) {
        return Err(ConfigError::new(
            "workload.zipf_theta",
            format!("{} must be positive", w.zipf_theta),
        ));
    }
    check_sepbit(cfg)?;
    if w.writes.is_some() && w.requests.is_some() {
        return Err(ConfigError::new(
            "workload.requests",
            "give either workload.writes or workload.requests, not both",
        ));
    }
    if (w.read_fraction > 0.0 || w.trim_fraction > 0.0) && w.writes.is_some() {
        return Err(ConfigError::new(
            "workload.writes",
            "a read/trim mix counts requests: use workload.requests instead of workload.writes",
        ));
    }
    if w.kind == WorkloadType::Trace {
        if w.trace.path.is_empty() {
            return Err(ConfigError::new(
                "workload.trace.path",
                "workload.type = \"trace\" needs the path of a trace file",
            ));
        }
        if w.trace.repeat == 0 {
            return Err(ConfigError::new(
                "workload.trace.repeat",
                "must be at least 1",
            ));
        }
    }
    if w.kind == WorkloadType::Mix {
        if w.mix.len() < 2 || w.mix.iter().any(|k| !k.is_app() || *k == WorkloadType::Mix) {
            return Err(ConfigError::new(
                "workload.mix",
                "type = \"mix\" needs two or more of rocksdb, sqlite, gcc, cassandra",
            ));
        }
    } else if !w.mix.is_empty() {
        return Err(ConfigError::new(
            "workload.mix",
            "only for workload.type = \"mix\"",
        ));
    }
    if w.kind.is_app() {
        let models = w.mix.len().max(1) as u64;
        if cfg.span_pages() / models < MIN_REGION_PAGES {
            return Err(ConfigError::new(
                "workload.span",
                format!(
                    "an application model needs {} pages of the span ({} for {models})",
                    MIN_REGION_PAGES,
                    MIN_REGION_PAGES * models
                ),
            ));
        }
        if w.read_fraction > 0.0 || w.trim_fraction > 0.0 || w.requests.is_some() {
            return Err(ConfigError::new(
                "workload.type",
                "an application model writes and trims as it does: workload.read_fraction, trim_fraction and requests do not apply",
            ));
        }
    }
    Ok(())
}

/// Request sizes, tables, and a span that holds them inside the space the
/// top of the stack offers.
pub(super) fn check_span(cfg: &Config) -> Result<(), ConfigError> {
    let w = &cfg.workload;
    if w.kind == WorkloadType::Tables {
        fraction("workload.pareto_h", w.pareto_h, true)?;
        let slots = cfg.span_pages() / u64::from(w.request_pages.max(1));
        if w.tables == 0 || u64::from(w.tables) > slots {
            return Err(ConfigError::new(
                "workload.tables",
                format!(
                    "{} tables: must be at least 1 and at most the {slots} requests the span holds",
                    w.tables
                ),
            ));
        }
    }
    if let Some(max) = w.request_pages_max {
        if max < w.request_pages {
            return Err(ConfigError::new(
                "workload.request_pages_max",
                format!(
                    "{max} is below workload.request_pages = {}",
                    w.request_pages
                ),
            ));
        }
        if u64::from(max) > cfg.span_pages() {
            return Err(ConfigError::new(
                "workload.request_pages_max",
                format!(
                    "{max} pages exceed the {} pages the workload addresses",
                    cfg.span_pages()
                ),
            ));
        }
    }
    if w.request_pages == 0 {
        return Err(ConfigError::new(
            "workload.request_pages",
            "must be at least 1",
        ));
    }
    let logical = cfg.host_pages();
    let span = cfg.span_pages();
    if span > logical {
        return Err(ConfigError::new(
            "workload.span",
            format!("the workload addresses {span} pages, more than the logical space of {logical} pages"),
        ));
    }
    if span < u64::from(w.request_pages) || span == 0 {
        return Err(ConfigError::new(
            "workload.span",
            format!(
                "{span} pages cannot hold one request of workload.request_pages = {}",
                w.request_pages
            ),
        ));
    }
    if w.kind == WorkloadType::HotCold {
        let hot = (w.hot_space_fraction * span as f64) as u64;
        if hot < u64::from(w.request_pages) || span - hot < u64::from(w.request_pages) {
            return Err(ConfigError::new(
                "workload.hot_space_fraction",
                format!(
                    "{} of {span} pages leaves a region smaller than one request",
                    w.hot_space_fraction
                ),
            ));
        }
    }
    if w.dedup_fraction > 0.0 && !cfg.ftl.dedup {
        // Duplicate content without a dedup FTL is allowed: it is the baseline.
    }
    if let Some(Amount::Pages(0)) = cfg.workload.dedup_working_set {
        return Err(ConfigError::new(
            "workload.dedup_working_set",
            "must be at least 1 page",
        ));
    }
    Ok(())
}

/// sepbit-synthetic's keys: α, the working set and the hot shift, each
/// refused for any other workload type (so a typo'd type is not silent).
fn check_sepbit(cfg: &Config) -> Result<(), ConfigError> {
    let w = &cfg.workload;
    if w.kind != WorkloadType::SepbitSynthetic {
        for (key, given) in [
            ("workload.zipf_alpha", w.zipf_alpha.is_some()),
            ("workload.working_set_bytes", w.working_set_bytes.is_some()),
            ("workload.hot_shift_bytes", w.hot_shift_bytes.is_some()),
        ] {
            if given {
                return Err(ConfigError::new(
                    key,
                    "only for workload.type = \"sepbit-synthetic\"",
                ));
            }
        }
        return Ok(());
    }
    match w.zipf_alpha {
        None => {
            return Err(ConfigError::new(
                "workload.zipf_alpha",
                "workload.type = \"sepbit-synthetic\" needs it (0 = uniform, 1 = SepBIT's skew)",
            ))
        }
        Some(a) if !(a >= 0.0 && a.is_finite()) => {
            return Err(ConfigError::new(
                "workload.zipf_alpha",
                format!("{a} must be a finite number, 0 or more"),
            ))
        }
        Some(_) => {}
    }
    let page_bytes = u64::from(cfg.device.page_bytes);
    let whole_pages = |key: &str, bytes: u64| {
        if bytes == 0 {
            return Err(ConfigError::new(key, "must be at least one page"));
        }
        if !bytes.is_multiple_of(page_bytes) {
            return Err(ConfigError::new(
                key,
                format!("{bytes} is not a whole number of {page_bytes}-byte pages"),
            ));
        }
        Ok(())
    };
    if let Some(bytes) = w.working_set_bytes {
        whole_pages("workload.working_set_bytes", bytes)?;
        let logical = cfg.host_pages();
        if bytes / page_bytes > logical {
            return Err(ConfigError::new(
                "workload.working_set_bytes",
                format!(
                    "{bytes} bytes exceed the logical space of {} bytes",
                    u128::from(logical) * u128::from(page_bytes)
                ),
            ));
        }
        if bytes / page_bytes < u64::from(w.request_pages) {
            return Err(ConfigError::new(
                "workload.working_set_bytes",
                format!(
                    "{bytes} bytes cannot hold one request of workload.request_pages = {}",
                    w.request_pages
                ),
            ));
        }
        if w.span.is_some() {
            return Err(ConfigError::new(
                "workload.span",
                "sepbit-synthetic addresses workload.working_set_bytes: give that, not span",
            ));
        }
    }
    if let Some(bytes) = w.hot_shift_bytes {
        whole_pages("workload.hot_shift_bytes", bytes)?;
    }
    if w.request_pages_max.is_some() {
        // The hot set moves after a count of pages drawn; mixed sizes would
        // make that count differ from the pages written.
        return Err(ConfigError::new(
            "workload.request_pages_max",
            "sepbit-synthetic writes requests of workload.request_pages: mixed sizes do not apply",
        ));
    }
    Ok(())
}
