//! The crate's integration tests, one binary: each file beside this one is
//! a module of it. One binary links the crate once; one per file linked it
//! (with the release profile's thin LTO) once per file, 41 links in all for
//! the workspace. Run one file's tests with
//! `cargo test --release -p ftlsim-live --test integration <file>::`.

mod capture;
mod handler_model;
mod live;
