//! ftlsim core: a fast, deterministic flash storage stack simulator.
pub mod analytic;
