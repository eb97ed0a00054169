//! The crate's integration tests, one binary: each file beside this one is
//! a module of it. One binary links the crate once; one per file linked it
//! (with the release profile's thin LTO) once per file, 41 links in all for
//! the workspace. Run one file's tests with
//! `cargo test --release -p ftlsim-trace --test integration <file>::`.

mod common;
mod errors;
mod fuzz;
mod lifespans;
mod native_format;
mod page_stream;
mod readers;
mod real_traces;
mod volumes;
mod vscsi;
