//! The crate's integration tests, one binary: each file beside this one is
//! a module of it. One binary links the crate once; one per file linked it
//! (with the release profile's thin LTO) once per file, 41 links in all for
//! the workspace. Run one file's tests with
//! `cargo test --release -p ftlsim --test integration <file>::`.

mod assigners;
mod dftl;
mod fdp;
mod learned_assigners;
mod log_layer;
mod log_model;
mod lsm_background;
mod lsm_model;
mod pcapps_streams;
mod placement;
mod power_loss;
mod reference_model;
mod robustness;
mod runs;
mod sepbit_synthetic;
mod sharing_model;
mod stack_model;
mod streams;
mod structure;
mod timing;
mod ycsb;
