//! Configs from Python: TOML text (a file's, or a string) or JSON (a dict),
//! with `key.path=value` overrides, validated by `ftlsim-run` exactly as
//! the CLI does; errors become `FtlsimError` with the CLI's one-line message.

use anyhow::{anyhow, bail, Result};
use ftlsim::{Config, SimError};
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    ftlsim,
    FtlsimError,
    PyValueError,
    "A bad config, trace or request: the message names the key, or the file and line."
);

/// Loads a config: `kind` is "toml" or "json"; `origin` names it in errors.
pub fn load(kind: &str, text: &str, origin: &str, sets: &[String]) -> Result<Config> {
    let mut table = match kind {
        "toml" => ftlsim_run::load::parse_toml(text, origin)?,
        "json" => serde_json::from_str::<toml::Table>(text)
            .map_err(|e| anyhow!("{origin}: {e} (a config dict holds sections of numbers, strings, booleans and lists; no None)"))?,
        other => bail!("config kind `{other}` is not toml or json"),
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
pub fn to_py_err(e: anyhow::Error) -> PyErr {
    if matches!(e.downcast_ref::<SimError>(), Some(SimError::Interrupted)) {
        return PyKeyboardInterrupt::new_err("ftlsim run interrupted");
    }
    FtlsimError::new_err(format!("{e:#}"))
}

pub fn sim_err(e: SimError) -> PyErr {
    to_py_err(e.into())
}

/// Validates a config and returns it, normalized, as JSON (every key with
/// its value, defaults filled in).
#[pyfunction]
#[pyo3(signature = (kind, text, origin, sets))]
pub fn check_config(kind: &str, text: &str, origin: &str, sets: Vec<String>) -> PyResult<String> {
    let cfg = load(kind, text, origin, &sets).map_err(to_py_err)?;
    serde_json::to_string(&cfg).map_err(|e| to_py_err(e.into()))
}

/// Write amplification of uniform random writes by the analytical models
/// (`../shared/reference/analytical-waf.md`): `policy` greedy, fifo,
/// random or d-choices; NaN outside their domain.
#[pyfunction]
#[pyo3(signature = (policy, spare_factor, pages_per_block=256, choices=8))]
pub fn model_waf(
    policy: &str,
    spare_factor: f64,
    pages_per_block: u32,
    choices: u32,
) -> PyResult<f64> {
    use ftlsim::analytic as a;
    if !(spare_factor > 0.0 && spare_factor < 1.0) {
        return Err(FtlsimError::new_err(format!(
            "spare_factor: {spare_factor} is outside (0, 1)"
        )));
    }
    let alpha = a::alpha_from_spare_factor(spare_factor);
    Ok(match policy {
        "greedy" => a::waf_greedy(alpha, pages_per_block),
        "fifo" => a::waf_fifo(alpha),
        "random" => a::waf_random(spare_factor),
        "d-choices" => a::waf_d_choices(alpha, pages_per_block, choices),
        other => {
            return Err(FtlsimError::new_err(format!(
                "policy: `{other}` has no model here (greedy, fifo, random, d-choices)"
            )))
        }
    })
}
