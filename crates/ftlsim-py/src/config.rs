//! Configs from Python: TOML text (a file's, or a string) or JSON (a dict),
//! with `key.path=value` overrides, validated by `ftlsim-run` exactly as
//! the CLI does; errors become `FtlsimError` with the CLI's one-line message.

use ftlsim::{Config, SimError};
use ftlsim_run::RunError;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    ftlsim,
    FtlsimError,
    PyValueError,
    "A bad config, trace or request: the message names the key, or the file and line."
);

/// Loads a config: `kind` is "toml" or "json"; `origin` names it in errors.
pub fn load(kind: &str, text: &str, origin: &str, sets: &[String]) -> Result<Config, RunError> {
    let mut table = match kind {
        "toml" => ftlsim_run::load::parse_toml(text, origin)?,
        "json" => serde_json::from_str::<toml::Table>(text)
            .map_err(|e| RunError::Input(format!("{origin}: {e} (a config dict holds sections of numbers, strings, booleans and lists; no None)")))?,
        other => {
            return Err(RunError::Input(format!(
                "config kind `{other}` is not toml or json"
            )))
        }
    };
    for s in sets {
        ftlsim_run::load::apply_set(&mut table, s)?;
    }
    let origin = if sets.is_empty() {
        origin.to_string()
    } else {
        format!("{origin} with overrides")
    };
    ftlsim_run::load::config_from_table(table, &origin)
}

/// An error as a Python exception: an interrupted run is KeyboardInterrupt,
/// anything else `FtlsimError` with the whole chain on one line.
pub fn to_py_err(e: RunError) -> PyErr {
    if e.interrupted() {
        return PyKeyboardInterrupt::new_err("ftlsim run interrupted");
    }
    FtlsimError::new_err(e.one_line())
}

pub fn sim_err(e: SimError) -> PyErr {
    to_py_err(e.into())
}

/// An error of a library under ftlsim-run (a trace's, JSON's) as
/// `FtlsimError`, with the whole chain on one line as [`to_py_err`] has it.
pub fn other_err(e: impl std::error::Error) -> PyErr {
    FtlsimError::new_err(ftlsim_run::error::one_line(&e))
}

/// Runs `f`, turning a panic into `FtlsimError`. A panic is a bug in
/// ftlsim, but pyo3 would raise it as `PanicException`, a BaseException
/// that `except Exception` misses and that cannot be pickled back from a
/// process-pool worker (the whole sweep then dies with a PicklingError):
/// as an `FtlsimError` it is one failed run with its message.
pub fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Err(FtlsimError::new_err(format!(
            "internal error (a bug in ftlsim; please report it with the config): {what}"
        )))
    })
}

/// Panics inside [`guarded`]: the tests' only way to check that a panic
/// (a bug, which no input is known to cause) reaches Python as
/// `FtlsimError`. Not part of the API.
#[pyfunction]
#[pyo3(name = "_panic_for_tests")]
pub fn panic_for_tests() -> PyResult<()> {
    guarded(|| panic!("a deliberate panic"))
}

/// Validates a config and returns it, normalized, as JSON (every key with
/// its value, defaults filled in).
#[pyfunction]
#[pyo3(signature = (kind, text, origin, sets))]
pub fn check_config(kind: &str, text: &str, origin: &str, sets: Vec<String>) -> PyResult<String> {
    guarded(|| {
        let cfg = load(kind, text, origin, &sets).map_err(to_py_err)?;
        serde_json::to_string(&cfg).map_err(other_err)
    })
}

/// Write amplification of uniform random writes by the analytical models
/// (`../shared/reference/analytical-waf.md`): `policy` greedy, fifo,
/// random or d-choices. An argument outside the models' domain (the
/// device's: 2 to 65536 pages per block, 1 to 1024 choices) raises
/// `FtlsimError` naming it, rather than returning NaN.
#[pyfunction]
#[pyo3(signature = (policy, spare_factor, pages_per_block=256, choices=8))]
pub fn model_waf(
    policy: &str,
    spare_factor: f64,
    pages_per_block: u32,
    choices: u32,
) -> PyResult<f64> {
    use ftlsim::analytic as a;
    use ftlsim::config::bounds::MAX_GC_CHOICES;
    if !(spare_factor > 0.0 && spare_factor < 1.0) {
        return Err(FtlsimError::new_err(format!(
            "spare_factor: {spare_factor} is outside (0, 1)"
        )));
    }
    // The same ranges as device.pages_per_block and ftl.gc_choices.
    if !(2..=65_536).contains(&pages_per_block) {
        return Err(FtlsimError::new_err(format!(
            "pages_per_block: {pages_per_block} is outside [2, 65536]"
        )));
    }
    if policy == "d-choices" && !(1..=MAX_GC_CHOICES).contains(&choices) {
        return Err(FtlsimError::new_err(format!(
            "choices: {choices} is outside [1, {MAX_GC_CHOICES}]"
        )));
    }
    let alpha = a::alpha_from_spare_factor(spare_factor);
    let waf = match policy {
        "greedy" => a::waf_greedy(alpha, pages_per_block),
        "fifo" => a::waf_fifo(alpha),
        "random" => a::waf_random(spare_factor),
        "d-choices" => a::waf_d_choices(alpha, pages_per_block, choices),
        other => {
            return Err(FtlsimError::new_err(format!(
                "policy: `{other}` has no model here (greedy, fifo, random, d-choices)"
            )))
        }
    };
    // The solvers may still fail to converge at an extreme: say so.
    if !waf.is_finite() {
        return Err(FtlsimError::new_err(format!(
            "spare_factor: the {policy} model has no solution at {spare_factor} with {pages_per_block} pages per block"
        )));
    }
    Ok(waf)
}
