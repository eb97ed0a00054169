//! The composition root of ftlsim: everything a front end (the `ftlsim`
//! binary, the Python package) needs to turn a config into results, and
//! nothing it should not have to write twice.
//!
//! * [`load`]: a config from TOML text, a file or a table, with `--set` overrides.
//! * [`simulate`]: build the device (and host stack), open a trace source, run.
//! * [`output`]: the summary table, JSON/CSV files and SVG plots; [`html`]:
//!   the same as one self-contained `index.html`.
//! * [`reproduce`], [`validate`], [`validate_timing`], [`bench`]: experiments,
//!   the analytical and queueing-theory validation and the throughput benchmark.
//! * [`crash`]: power-cut sweeps against a reference model.
//! * [`synth`]: a config's synthetic workload written out as a native trace.
//! * [`lsm_compare`]: the LSM engine beside a real LevelDB on one load.
//! * [`warning`]: what a run tells its user besides its results.
//! * [`error`]: what went wrong, as [`RunError`].
//!
//! Front ends keep argument parsing, progress bars and printing: the
//! library returns warnings and never prints.

pub mod bench;
pub mod corpus;
pub mod crash;
pub mod error;
pub mod html;
pub mod load;
pub mod lsm_compare;
pub mod output;
pub mod palette;
pub mod panels;
pub mod plot;
pub mod reproduce;
pub mod simulate;
pub mod synth;
pub mod timing_output;
pub mod trace_source;
pub mod validate;
pub mod validate_timing;
pub mod warning;

pub use error::RunError;
pub use simulate::{check_memory, simulate, simulate_with, Simulated};
pub use warning::Warning;
