//! ftlsim's live device: the simulated SSD as one file in a FUSE file
//! system, so that a loop device, a real file system and real applications
//! run on it (`ftlsim device run`, `ftlsim device serve`).
//!
//! * [`store`]: the bytes (sparse, in memory; identical pages once with dedup);
//!   [`backing`]: the same in a sparse file (`--backing FILE`).
//! * [`handler`]: byte reads, writes and discards → the store and whole-page
//!   `Request`s (kept apart from FUSE so it is tested against a byte model).
//! * [`sim`]: the `Simulation` on its own thread, fed by a channel, and the
//!   recorded native trace of what it saw.
//! * [`fuse`]: the FUSE glue (`fuser`).
//! * [`system`]: requirements, loop device, mkfs, mount.
//! * [`device`], [`run`]: one live device; `device run` from start to report.
//! * [`error`]: `LiveError`, every way the above fails (the CLI prints its
//!   chain on one line).
//! * [`capture`]: `ftlsim capture`, the LD_PRELOAD program-context library.
//! * [`join`]: captured file writes joined to the device's LBAs (FIEMAP),
//!   for `device run --capture`; [`pclife`]: per-PC lifetimes of the result;
//!   [`layout`]: the fallback, captured writes laid out on ftlsim's file layer.
//! * [`serve`]: `device serve`, a device kept up with live statistics.
//! * [`notice`]: what the user must know at once while a device runs (the
//!   front end prints it; the library never does).
//! * [`interrupt`]: SIGINT, SIGTERM, SIGHUP as a flag the steps poll;
//!   [`command`]: the user's command in its own process group, stopped on
//!   that flag; [`stale`]: what a killed device left behind, and its removal
//!   (`device cleanup`).
//!
//! Linux only; needs root and `/dev/fuse`. The core crate knows none of this.

pub mod backing;
pub mod capture;
pub mod command;
pub mod device;
pub mod error;
pub mod fuse;
pub mod handler;
pub mod interrupt;
pub mod join;
pub mod layout;
pub mod notice;
pub mod pclife;
pub mod run;
pub mod serve;
pub mod sim;
pub mod stale;
pub mod store;
pub mod system;

pub use device::{fitted_config, parse_size, replay_config_path, LiveDevice};
pub use error::LiveError;
pub use interrupt::{Interrupt, Interrupted};
pub use notice::{Notice, Notify};
pub use run::{run, RunOutcome, RunRequest};
pub use system::FsKind;
