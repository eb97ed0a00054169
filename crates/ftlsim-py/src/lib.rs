//! `ftlsim._native`: the extension module under the `ftlsim` Python package.
//! It is a thin layer over `ftlsim-run` (configs, runs) and the core (the
//! device, for Python as the host) and the trace crate; the Python API —
//! DataFrames, sweeps, plots — is `python/ftlsim/`.

use pyo3::prelude::*;

mod config;
mod device;
mod run;
mod trace;

#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FtlsimError", m.py().get_type::<config::FtlsimError>())?;
    m.add_function(wrap_pyfunction!(run::run_report, m)?)?;
    m.add_function(wrap_pyfunction!(config::check_config, m)?)?;
    m.add_function(wrap_pyfunction!(config::model_waf, m)?)?;
    m.add_function(wrap_pyfunction!(trace::trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(config::panic_for_tests, m)?)?;
    m.add_class::<device::Device>()?;
    m.add_class::<trace::TraceChunks>()?;
    Ok(())
}
