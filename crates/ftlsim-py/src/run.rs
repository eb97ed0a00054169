//! `ftlsim.run`: one config to a report, the GIL released while it runs.

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ftlsim::RunOptions;
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;

use crate::config::{guarded, load, other_err, to_py_err};

/// Runs a config; returns the report and its time series as JSON text:
/// `(report, series, layer_series, latency_series)`. Ctrl-C stops the run
/// (KeyboardInterrupt) at its next progress point.
#[pyfunction]
#[pyo3(signature = (kind, text, origin, sets, check=false))]
pub fn run_report(
    py: Python<'_>,
    kind: &str,
    text: &str,
    origin: &str,
    sets: Vec<String>,
    check: bool,
) -> PyResult<(String, String, String, String)> {
    let cfg = guarded(|| load(kind, text, origin, &sets).map_err(to_py_err))?;
    let cancel = Arc::new(AtomicBool::new(false));
    let options = RunOptions {
        check,
        cancel: Some(cancel.clone()),
        ..RunOptions::default()
    };
    let ftlsim_run::Simulated { report, warnings } = py.detach(|| {
        guarded(|| {
            ftlsim_run::simulate_with(&cfg, &options, &mut |_| {
                // Python delivers signals to a thread that holds the GIL:
                // take it briefly at each progress point (every few
                // thousand requests) to see whether Ctrl-C came.
                if Python::attach(|py| py.check_signals()).is_err() {
                    cancel.store(true, Ordering::Relaxed);
                }
            })
            .map_err(to_py_err)
        })
    })?;
    warn(py, &warnings)?;
    Ok((
        json(&report)?,
        json(&report.series)?,
        json(&report.layer_series)?,
        json(&report.latency_series)?,
    ))
}

/// The run's warnings as Python `UserWarning`s, attributed to the caller
/// of `ftlsim.run` (the CLI prints the same lines on stderr).
fn warn(py: Python<'_>, warnings: &[ftlsim_run::Warning]) -> PyResult<()> {
    let category = py.get_type::<PyUserWarning>();
    for w in warnings {
        // A message is a C string: a NUL (never in a path ftlsim could
        // open) would cut it short, so it goes.
        let text = w.to_string().replace('\0', " ");
        let message = CString::new(text).expect("no NUL left");
        PyErr::warn(py, &category, &message, 2)?;
    }
    Ok(())
}

pub fn json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(other_err)
}
