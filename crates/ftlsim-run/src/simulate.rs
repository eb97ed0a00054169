//! One call from a config to a report: synthetic workloads in the core,
//! traces through the trace crate.

use ftlsim::config::{Config, WorkloadType};
use ftlsim::{Progress, Report, RunOptions, Simulation};

use crate::error::{Result, RunError};
use crate::warning::Warning;

/// A finished run: its report, and what the front end should tell the user
/// about it (in the order it happened).
#[derive(Debug)]
pub struct Simulated {
    pub report: Report,
    pub warnings: Vec<Warning>,
}

/// Refuses a device whose simulator state would not fit in the memory this
/// machine has available (an allocation failure would abort the process).
pub fn check_memory(cfg: &Config) -> Result<()> {
    check_memory_bytes(cfg, cfg.estimated_state_bytes())
}

/// [`check_memory`] for a front end that keeps more than the run's state
/// (`need` bytes in all).
pub(crate) fn check_memory_bytes(cfg: &Config, need: u64) -> Result<()> {
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
        line.split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
            .map(|kib| kib * 1024)
    });
    if let Some(available) = available.filter(|&a| need > a) {
        return Err(RunError::Input(format!(
            "device.blocks = {} x device.pages_per_block = {} needs about {:.1} GiB of simulator state, more than the {:.1} GiB of memory available",
            cfg.device.blocks,
            cfg.device.pages_per_block,
            need as f64 / f64::from(1u32 << 30),
            available as f64 / f64::from(1u32 << 30)
        )));
    }
    Ok(())
}

/// Runs a config from an erased device to the report of its measured window.
pub fn simulate(
    cfg: &Config,
    check: bool,
    progress: &mut dyn FnMut(Progress),
) -> Result<Simulated> {
    let options = RunOptions {
        check,
        ..RunOptions::default()
    };
    simulate_with(cfg, &options, progress)
}

/// [`simulate`] with every run option (a cancel flag for front ends that
/// stop runs on Ctrl-C).
pub fn simulate_with(
    cfg: &Config,
    options: &RunOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Simulated> {
    check_memory(cfg)?;
    if cfg.workload.kind != WorkloadType::Trace {
        return Ok(Simulated {
            report: ftlsim::run(cfg, options, progress)?,
            warnings: Vec::new(),
        });
    }
    let (source, skipped) = crate::trace_source::open_source(cfg)?;
    let mut sim = if cfg.foresees() {
        // The pre-pass (the oracle's, fk's) reads the trace a second time.
        let (prepass, _) = crate::trace_source::open_source(cfg)?;
        Simulation::with_source_foreseen(cfg, options, source, prepass)?
    } else {
        Simulation::with_source(cfg, options, source)?
    };
    sim.run_phases(progress)?;
    let mut warnings = Vec::new();
    if skipped.get() > 0 {
        warnings.push(Warning::SkippedBadLines {
            trace: cfg.workload.trace.path.clone(),
            lines: skipped.get(),
        });
    }
    if sim.source_exhausted() && (cfg.workload.writes.is_some() || cfg.workload.requests.is_some())
    {
        warnings.push(Warning::TraceEndedEarly);
    }
    Ok(Simulated {
        report: sim.finish()?,
        warnings,
    })
}
