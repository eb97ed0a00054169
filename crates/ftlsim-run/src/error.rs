//! Every error ftlsim-run returns, by what failed: the user's input, the
//! core's validation of a config, an experiment file, the simulation, a
//! trace, a file, an output format, a chart.
//!
//! A front end prints an error as its message and its causes joined by
//! `: ` ([`RunError::one_line`]; what `anyhow` prints for `{:#}`). That line
//! is what users read and tests check, so each variant either carries its
//! cause as a `source` (the cause's own message follows after `: `) or
//! writes the cause into its message and has no source: never both, which
//! would say the cause twice.

use std::path::PathBuf;

use ftlsim::{ConfigError, SimError};
use ftlsim_trace::TraceError;
use thiserror::Error;

/// The result of every public function of ftlsim-run.
pub type Result<T, E = RunError> = std::result::Result<T, E>;

/// Why a run, or a step around it (loading, writing outputs, an
/// experiment), failed.
#[derive(Debug, Error)]
pub enum RunError {
    /// A flag, `--set` override, config or experiment key, or TOML text
    /// that cannot be used as given; the message names it (with its file
    /// and line where there is one) and what to change.
    #[error("{0}")]
    Input(String),
    /// A config the core's validation refuses: `origin` names the file (or
    /// the built-in defaults, and the overrides), the error the key.
    #[error("{origin}: {error}")]
    Config { origin: String, error: ConfigError },
    /// An experiment file whose `key` is wrong (a name that does not
    /// resolve, a field the report lacks, ...).
    #[error("{file}: key `{key}`: {message}")]
    Experiment {
        file: String,
        key: String,
        message: String,
    },
    /// The simulation failed (or was interrupted).
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A trace that cannot be opened, read or written. The trace error
    /// names the file (and line) itself, so it is part of the message,
    /// after `what` (the key or flag that named the trace) when there is
    /// one, and not a source. Boxed: a trace error is several times the
    /// size of the other variants, and every `Result` would carry it.
    #[error("{}{error}", what.as_ref().map(|w| format!("{w}: ")).unwrap_or_default())]
    Trace {
        what: Option<String>,
        error: Box<TraceError>,
    },
    /// A file or folder that cannot be read or written: `what` names it,
    /// the source says why.
    #[error("{what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// An I/O error that needs no more words than the OS's.
    #[error(transparent)]
    Os(#[from] std::io::Error),
    /// A CSV file could not be written.
    #[error(transparent)]
    Csv(#[from] csv::Error),
    /// A report or config could not be turned into JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// A TOML config built into the binary (the benchmark's) does not parse.
    #[error(transparent)]
    Toml(#[from] toml::de::Error),
    /// A chart could not be drawn; `message` is the plotting library's.
    #[error("plot {}: {message}", path.display())]
    Plot { path: PathBuf, message: String },
    /// The LevelDB reference program (`ftlsim lsm-compare`) failed or
    /// printed what cannot be read; the message says which and its stderr.
    #[error("{0}")]
    Reference(String),
    /// What should not happen whatever the input: a bug in ftlsim.
    #[error("{0}")]
    Internal(String),
    /// A step failed: `what` names it (the file, workload or key it
    /// concerns), the source is the failure.
    #[error("{what}")]
    Context {
        what: String,
        #[source]
        source: Box<RunError>,
    },
}

impl RunError {
    /// The message and its causes on one line, `: ` between them: what the
    /// CLI prints after `ftlsim: error: ` and Python raises.
    pub fn one_line(&self) -> String {
        one_line(self)
    }

    /// True when the run stopped because it was asked to
    /// (`RunOptions::cancel`), whatever step it was in.
    pub fn interrupted(&self) -> bool {
        match self {
            RunError::Sim(SimError::Interrupted) => true,
            RunError::Context { source, .. } => source.interrupted(),
            _ => false,
        }
    }
}

/// Any error and its causes on one line, `: ` between them (what `anyhow`
/// prints for `{:#}`): for front ends that show other errors beside
/// [`RunError`] the same way.
pub fn one_line(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(c) = cause {
        line.push_str(": ");
        line.push_str(&c.to_string());
        cause = c.source();
    }
    line
}

/// `what` for a failed step: [`RunError::Context`] (or [`RunError::Io`]
/// for an I/O error), the way `anyhow`'s `with_context` named steps.
pub(crate) trait Context<T> {
    fn with_context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: Into<RunError>> Context<T> for std::result::Result<T, E> {
    fn with_context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| match e.into() {
            RunError::Os(source) => RunError::Io {
                what: what(),
                source,
            },
            other => RunError::Context {
                what: what(),
                source: Box::new(other),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_joins_the_causes_as_anyhow_did() {
        let os = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let e: Result<()> = Err(os).with_context(|| "cannot write a.csv".into());
        let e: Result<()> = e.with_context(|| "workload w variant v".into());
        let e = e.unwrap_err();
        assert_eq!(e.to_string(), "workload w variant v");
        assert_eq!(
            e.one_line(),
            "workload w variant v: cannot write a.csv: gone"
        );
        assert!(matches!(
            e,
            RunError::Context { ref source, .. } if matches!(**source, RunError::Io { .. })
        ));
    }

    #[test]
    fn a_trace_error_is_said_once() {
        let error = TraceError::Io {
            file: "t.csv".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        let e = RunError::Trace {
            what: Some("workload.trace.path".into()),
            error: Box::new(error),
        };
        assert_eq!(e.one_line(), "workload.trace.path: t.csv: gone");
    }

    #[test]
    fn interrupted_is_seen_through_steps() {
        let e: std::result::Result<(), _> = Err(SimError::Interrupted);
        assert!(e.with_context(|| "step".into()).unwrap_err().interrupted());
        assert!(!RunError::Sim(SimError::EndOfLife { retired_blocks: 1 }).interrupted());
    }
}
