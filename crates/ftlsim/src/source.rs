//! External request sources: what a trace replay feeds the simulation.
//!
//! The core reads no files; the CLI opens a trace with the trace crate and
//! hands the simulation a `RequestSource`. Requests are already in pages.

use crate::error::SimError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceOp {
    #[default]
    Read,
    Write,
    Trim,
    Flush,
}

/// One request in pages, reused between calls to avoid allocation.
#[derive(Debug, Clone, Default)]
pub struct SourceRequest {
    /// Arrival time from the trace, in ns since its first request.
    pub time_ns: u64,
    pub op: SourceOp,
    pub lpn: u64,
    /// Pages covered (0 for flushes).
    pub pages: u32,
    /// Host stream id (0 when the source has none).
    pub stream: u16,
    /// One content fingerprint per page, or empty when the source has none
    /// (each page then gets unique content).
    pub fingerprints: Vec<u64>,
}

pub trait RequestSource {
    /// Fills `out` with the next request; `Ok(false)` at the end.
    fn next_request(&mut self, out: &mut SourceRequest) -> Result<bool, SimError>;
}
