//! What a live device must tell its user at once, while it runs: the host
//! only sees EIO, so the reason goes to the front end (the CLI prints it on
//! stderr after `ftlsim: `). The library never prints.

use std::fmt;
use std::sync::Arc;

/// One thing to say now, from whichever thread noticed it.
#[derive(Debug)]
pub enum Notice {
    /// What killed live devices left behind, not in this run's way (the
    /// text of [`crate::stale::warning`]); the run goes on.
    Leftovers(String),
    /// The simulation stopped with an error (its chain on one line): from
    /// here on the host sees only EIO.
    SimulationStopped(String),
    /// The backing file (`--backing`) failed a read, write or hole punch;
    /// the host sees EIO for that operation.
    BackingFile(std::io::Error),
    /// A step of the teardown failed (a loop device not detached, a file
    /// system not unmounted); the rest of the teardown goes on.
    Teardown(String),
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::Leftovers(what) => write!(f, "warning: {what}"),
            Notice::SimulationStopped(why) => write!(f, "the simulated device stopped: {why}"),
            Notice::BackingFile(e) => write!(f, "the backing file: {e}"),
            Notice::Teardown(what) => f.write_str(what),
        }
    }
}

/// Where notices go. Called from the FUSE and simulation threads, so it is
/// shared and thread-safe; called only when something went wrong, never
/// per request.
pub type Notify = Arc<dyn Fn(Notice) + Send + Sync>;
