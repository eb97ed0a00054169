//! The bounds on how much work a config may ask for, in one place.
//!
//! A value that passes every range check can still ask for a run that
//! cannot end in any reasonable time (`workload.writes = "1e300x"` is
//! finite, and saturates to 2^64 pages), or for a loop whose cost grows
//! with the value and nothing else (`ftl.gc_choices = 4000000000`). These
//! bounds refuse such requests up front with the bound in the message;
//! README ("Bounds") and examples/basic.toml document them.

use super::{Amount, Config, Precondition, WorkloadType, DEFAULT_WRITES};
use crate::error::ConfigError;

/// Host pages a run may plan in all: precondition + warm-up + measured
/// window. 2^40 pages (4 PiB of 4 KiB pages) is about 30 hours at 10 M
/// pages per second, and still 3000 full drive writes of a 1 TiB device.
pub const MAX_PLANNED_PAGES: u64 = 1 << 40;

/// Requests (`workload.requests`) or key-value operations
/// (`workload.records`, `workload.operations`) a run may plan: the same
/// 2^40, since each costs at least as much as a page write.
pub const MAX_PLANNED_REQUESTS: u64 = 1 << 40;

/// Candidates d-choices samples per victim (`ftl.gc_choices`, a log
/// layer's `gc_choices`): each GC costs d random draws, and beyond a few
/// hundred the policy is greedy for any device, so a larger d only costs.
/// Checked with the policy's other keys, by the plan (`plan/victims.rs`),
/// where these checks run.
pub const MAX_GC_CHOICES: u32 = 1024;

/// Passes over a trace (`workload.trace.repeat`): each pass reopens the
/// file, so even an empty trace costs time per pass.
pub const MAX_TRACE_REPEAT: u32 = 100_000;

/// `amount` of `key` in pages, or an error when it passes `max`. A
/// multiple of the capacity is checked before rounding, since `"1e300x"`
/// would saturate to 2^64 - 1 pages rather than overflow.
fn bounded_pages(key: &str, amount: Amount, logical: u64, max: u64) -> Result<u64, ConfigError> {
    let too_many = || {
        // `{:?}` keeps 1e300 short where Display writes 301 digits.
        let shown = match amount {
            Amount::Pages(p) => p.to_string(),
            Amount::Capacity(x) => format!("{x:?}x of the logical capacity"),
        };
        ConfigError::new(
            key,
            format!(
                "{shown} is more than the {max} host pages (2^{}) a run may plan",
                max.ilog2()
            ),
        )
    };
    match amount {
        Amount::Pages(p) if p > max => Err(too_many()),
        Amount::Pages(p) => Ok(p),
        Amount::Capacity(x) if x * logical as f64 > max as f64 => Err(too_many()),
        Amount::Capacity(_) => Ok(amount.to_pages(logical)),
    }
}

impl Config {
    /// The checks of the bounds above but d-choices' d; part of
    /// [`Config::validate`], which checks d just before.
    pub(crate) fn validate_bounds(&self) -> Result<(), ConfigError> {
        let f = &self.ftl;
        // The buffer holds distinct pages: more than the device has could
        // never fill, the same bound as `timing.write_buffer_pages`.
        let physical = self.physical_pages();
        if u64::from(f.write_buffer_pages) > physical {
            return Err(ConfigError::new(
                "ftl.write_buffer_pages",
                format!(
                    "{} pages is larger than the device ({physical} pages)",
                    f.write_buffer_pages
                ),
            ));
        }
        let w = &self.workload;
        if w.kind == WorkloadType::Trace && w.trace.repeat > MAX_TRACE_REPEAT {
            return Err(ConfigError::new(
                "workload.trace.repeat",
                format!("{} is more than {MAX_TRACE_REPEAT}", w.trace.repeat),
            ));
        }
        let requests = [
            ("workload.requests", w.requests.unwrap_or(0)),
            (
                "workload.records",
                if w.kind == WorkloadType::Ycsb {
                    w.records
                } else {
                    0
                },
            ),
            (
                "workload.operations",
                if w.kind == WorkloadType::Ycsb {
                    w.operations
                } else {
                    0
                },
            ),
        ];
        for (key, n) in requests {
            if n > MAX_PLANNED_REQUESTS {
                return Err(ConfigError::new(
                    key,
                    format!(
                        "{n} is more than the {MAX_PLANNED_REQUESTS} requests (2^{}) a run may plan",
                        MAX_PLANNED_REQUESTS.ilog2()
                    ),
                ));
            }
        }
        let logical = self.host_pages();
        let max = MAX_PLANNED_PAGES;
        let precondition = match w.precondition {
            Precondition::SequentialFill => logical,
            Precondition::None => 0,
        };
        // The defaults (a few drive writes) are in bounds; what is given is
        // checked before it is rounded to pages.
        let warmup = match w.warmup {
            Some(a) => bounded_pages("workload.warmup", a, logical, max)?,
            None => self.warmup_pages(),
        };
        let writes = match (w.writes, w.requests) {
            (Some(a), _) => bounded_pages("workload.writes", a, logical, max)?,
            (None, None) if w.kind != WorkloadType::Trace => DEFAULT_WRITES.to_pages(logical),
            (None, _) => 0,
        };
        // Each is at most 2^40 (the logical space is under 2^32): no overflow.
        let total = precondition + warmup + writes;
        if total > max {
            return Err(ConfigError::new(
                if w.writes.is_some() {
                    "workload.writes"
                } else {
                    "workload.warmup"
                },
                format!(
                    "precondition ({precondition}), warm-up ({warmup}) and measured ({writes}) \
                     host pages add up to {total}, more than the {max} (2^{}) a run may plan",
                    max.ilog2()
                ),
            ));
        }
        Ok(())
    }
}
