//! ftlsim core: a fast, deterministic flash storage stack simulator.
//!
//! Pure and deterministic: no file or network I/O, one named PRNG stream per
//! consumer derived from the run seed, logical time counted in host page writes.

pub mod analytic;
pub mod app;
pub mod config;
pub mod error;
pub mod flash;
pub mod ftl;
pub mod future;
pub mod hash;
pub mod host;
pub mod mem;
pub mod metrics;
pub mod plan;
pub mod request;
pub mod rng;
pub mod run;
pub mod segments;
pub mod timing;
pub mod workload;

pub use config::Config;
pub use error::{ConfigError, SimError};
pub use ftl::{Ssd, SsdOptions};
pub use request::{BlockDevice, Completion, Hint, Op, Request, RequestSource};
pub use run::{pipeline_allowed, run, Progress, Report, RunOptions, Simulation};
