//! The regime (`ftl.regime`): ftlsim's SSD, or SepBIT's log-structured
//! volume with its GC trigger (`ftl.log_gc_garbage_threshold`) and its
//! victim scoring. The log regime is the placement schemes' regime: it
//! needs `[ftl.placement_scheme]`, and what the schemes refuse it refuses
//! too (`placement.rs`), plus what a log of SepBIT's has no counterpart for.

use crate::config::{Config, GcPolicyName, Regime, DEFAULT_LOG_GC_GARBAGE_THRESHOLD};
use crate::error::ConfigError;

/// How the log regime scores GC victims among the sealed blocks at least
/// the threshold invalid (SepBIT's `selection/Greedy.java` and
/// `CostBenefit.java`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogSelection {
    /// The highest garbage proportion (all sealed blocks hold the same
    /// pages: the fewest valid).
    Greedy,
    /// The highest `gp / (1 − gp) · sqrt(age)`, `age` the host page writes
    /// since the block's last write: SepBIT's score, not LFS's
    /// `age · (1 − u) / 2u` the SSD regime's cost-benefit uses.
    CostBenefit,
}

/// SepBIT's log-structured volume.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogPlan {
    /// GC runs after a host request when invalid pages in sealed blocks
    /// exceed this share of the log's pages, and collects only sealed
    /// blocks at least this share invalid; in (0, 1).
    pub garbage_threshold: f64,
    pub selection: LogSelection,
}

/// The regime's keys; `Some` for the log regime.
pub(super) fn check(cfg: &Config) -> Result<Option<LogPlan>, ConfigError> {
    let f = &cfg.ftl;
    if f.regime == Regime::Ssd {
        if f.log_gc_garbage_threshold.is_some() {
            return Err(ConfigError::new(
                "ftl.log_gc_garbage_threshold",
                "applies to the log regime only: set ftl.regime = \"log\" or leave it out",
            ));
        }
        return Ok(None);
    }
    let garbage_threshold = f
        .log_gc_garbage_threshold
        .unwrap_or(DEFAULT_LOG_GC_GARBAGE_THRESHOLD);
    // Outside (0, 1) GC would run on every request or never.
    if !(garbage_threshold > 0.0 && garbage_threshold < 1.0) {
        return Err(ConfigError::new(
            "ftl.log_gc_garbage_threshold",
            format!("{garbage_threshold} is outside (0, 1)"),
        ));
    }
    let Some(scheme) = f
        .placement_scheme
        .map(|s| super::placement::in_regime(s, f.regime))
    else {
        return Err(ConfigError::new(
            "ftl.regime",
            "the log regime is the placement schemes' regime: set [ftl.placement_scheme] (type = \"nosep\" is one log without separation)",
        ));
    };
    let selection = match f.gc_policy {
        GcPolicyName::Greedy => LogSelection::Greedy,
        GcPolicyName::CostBenefit => LogSelection::CostBenefit,
        other => {
            let name = match other {
                GcPolicyName::Fifo => "fifo",
                GcPolicyName::Random => "random",
                _ => "d-choices",
            };
            return Err(ConfigError::new(
                "ftl.gc_policy",
                format!("{name} is not one of the log regime's policies: greedy, cost-benefit (SepBIT's)"),
            ));
        }
    };
    // A log of SepBIT's has no watermarks, wear leveling, timing or background GC:
    // refuse the keys that would be silently ignored.
    let d = &cfg.device;
    let refused = [
        ("ftl.gc_low_watermark", f.gc_low_watermark > 0),
        ("ftl.gc_high_watermark", f.gc_high_watermark > 0),
        ("ftl.wear_leveling_threshold", f.wear_leveling_threshold > 0),
        ("timing", cfg.timing.is_some()),
    ];
    for (key, set) in refused {
        if set {
            return Err(ConfigError::new(
                key,
                format!("the log regime (ftl.regime = \"log\") has no counterpart for {key}: leave it out"),
            ));
        }
    }
    // The log keeps at most about U / (1 − t) pages of sealed blocks at the
    // threshold, plus an open block per class and the victim's copies: a
    // device smaller than that could fill with no block to collect.
    let ppb = u64::from(d.pages_per_block);
    let needed_pages = (cfg.logical_pages() as f64 / (1.0 - garbage_threshold)).ceil() as u64
        + (u64::from(scheme.classes()) + 2) * ppb;
    if cfg.physical_pages() < needed_pages {
        return Err(ConfigError::new(
            "device.spare_factor",
            format!(
                "{} leaves the log regime too little room: {} logical pages at a garbage proportion of {garbage_threshold} with {} open blocks need {needed_pages} physical pages, the device has {} (raise device.spare_factor above the threshold, or device.blocks)",
                d.spare_factor,
                cfg.logical_pages(),
                scheme.classes(),
                cfg.physical_pages()
            ),
        ));
    }
    Ok(Some(LogPlan {
        garbage_threshold,
        selection,
    }))
}
