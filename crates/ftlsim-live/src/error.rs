//! Every error the live device returns, by what failed: the user's input,
//! the machine, a file, a system tool, the capture log, the simulation.
//! Each message is the one line the CLI prints after `ftlsim: error: `
//! (with its causes after `: `); the binary turns it into `anyhow`.

use ftlsim::SimError;
use ftlsim_run::RunError;
use ftlsim_trace::TraceError;
use thiserror::Error;

use crate::interrupt::Interrupted;

/// The live device's result.
pub type Result<T, E = LiveError> = std::result::Result<T, E>;

/// Why a live device, or a step around it, failed.
#[derive(Debug, Error)]
pub enum LiveError {
    /// A flag or argument the live device cannot run with (the message
    /// names the flag), or something in its way that the user removes.
    #[error("{0}")]
    Input(String),
    /// What this machine lacks: root, `/dev/fuse`, tools (with their
    /// Debian packages), all of it in one line.
    #[error("a live device needs {0}")]
    Missing(String),
    /// A file, directory, process or signal operation failed: `what` names
    /// the file (and the flag it came from), the source says why.
    #[error("{what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// A system tool (losetup, mkfs, mount, umount) failed or is missing;
    /// the message has the first lines of its stderr.
    #[error("{0}")]
    Tool(String),
    /// A line of the capture library's log that cannot be read.
    #[error("capture log line {line}: {what}")]
    CaptureLog { line: usize, what: String },
    /// The recorded trace could not be written while the device ran: the
    /// file and the OS error, as the simulation thread saw them.
    #[error("--record {0}")]
    Recording(String),
    /// A request of the capture's layout failed on ftlsim's file layer.
    #[error("at {time_ns} ns, file {}:{}: {error}", .file.0, .file.1)]
    Layout {
        time_ns: u64,
        /// (device, inode) of the captured file.
        file: (u64, u64),
        error: SimError,
    },
    /// An I/O error that needs no more words than the OS's.
    #[error(transparent)]
    Os(#[from] std::io::Error),
    /// The replay config could not be written as TOML.
    #[error("cannot write the config as TOML")]
    Toml(#[source] toml::ser::Error),
    /// The statistics could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The simulation thread panicked (a bug in ftlsim).
    #[error("the simulation thread panicked")]
    SimulationPanicked,
    /// The config, as `ftlsim-run` loads and checks it (naming the key).
    #[error(transparent)]
    Config(#[from] RunError),
    /// The simulation failed.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A trace could not be read or written.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A signal asked the run to stop.
    #[error(transparent)]
    Interrupted(#[from] Interrupted),
    /// A step failed: `what` names it (the flag and file it concerns), the
    /// source is the failure.
    #[error("{what}")]
    Context {
        what: String,
        #[source]
        source: Box<LiveError>,
    },
}

impl LiveError {
    /// This error as the cause of the step `what`.
    pub fn context(self, what: impl Into<String>) -> Self {
        LiveError::Context {
            what: what.into(),
            source: Box::new(self),
        }
    }

    /// The message and its causes on one line, `: ` between them (what
    /// `anyhow` prints for `{:#}`), for a notice or a wrapped message.
    pub fn one_line(&self) -> String {
        ftlsim_run::error::one_line(self)
    }

    /// The signal that stopped the run, if that is what this error is.
    pub fn interrupted(&self) -> Option<&Interrupted> {
        match self {
            LiveError::Interrupted(i) => Some(i),
            _ => None,
        }
    }
}

/// `what` for an I/O result: the file or step it concerns (`anyhow`'s
/// `with_context` for [`LiveError::Io`]).
pub(crate) trait IoContext<T> {
    fn io_context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn io_context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| LiveError::Io {
            what: what(),
            source,
        })
    }
}

/// `what` for any live result: the step it belongs to.
pub(crate) trait StepContext<T> {
    fn step_context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: Into<LiveError>> StepContext<T> for std::result::Result<T, E> {
    fn step_context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| e.into().context(what()))
    }
}
