//! What a run tells its user besides its results: lines of a trace it
//! skipped, a trace that ended early, a workload it could not run. The
//! library returns them; the front end says them (the CLI on stderr after
//! `ftlsim: `, Python as a `UserWarning`), so that a library never prints.

use std::fmt;

/// One thing the user should know about a run that still produced results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// `workload.trace.skip_bad_lines` skipped lines the trace reader could
    /// not parse.
    SkippedBadLines { trace: String, lines: u64 },
    /// The trace ended before the workload's page or request budget.
    TraceEndedEarly,
    /// An experiment's workload was left out: its trace file was not in any
    /// of the trace folders.
    TraceNotFound {
        file: String,
        /// The folders looked in, as the message names them.
        looked_in: String,
        workload: String,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::SkippedBadLines { trace, lines } => {
                write!(f, "{trace}: skipped {lines} bad lines")
            }
            Warning::TraceEndedEarly => {
                f.write_str("the trace ended before workload.writes/requests were reached")
            }
            Warning::TraceNotFound {
                file,
                looked_in,
                workload,
            } => write!(
                f,
                "{file} not found in {looked_in}: skipping the `{workload}` workload"
            ),
        }
    }
}
