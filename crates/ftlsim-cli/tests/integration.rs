//! The crate's integration tests, one binary: each file beside this one is
//! a module of it (see crates/ftlsim/tests/integration.rs for why). Run one
//! file's tests with `cargo test --release -p ftlsim-cli --test integration <file>::`.

mod cli;
mod common;
mod corpus;
mod crash_cli;
mod device_signals;
mod docs;
mod fuzz;
mod fuzzing;
mod golden;
mod html_report;
mod lsm_compare;
mod pcstream;
mod placement_reproduce;
mod reproduce;
mod robust;
mod sepbit_traces;
mod timing_cli;
mod trace;
