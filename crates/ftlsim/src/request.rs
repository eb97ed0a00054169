//! The one vocabulary of the stack: a [`Request`] on a range of logical
//! pages, its [`Completion`], where requests come from ([`RequestSource`])
//! and what they go to ([`BlockDevice`]).
//!
//! Traces, generators, host layers, the timing model and the device all
//! speak it; nothing along the way drops a field it does not use.

use crate::error::SimError;
use crate::metrics::LayerStats;

/// What a request does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    #[default]
    Read,
    Write,
    /// Discard: the pages die now and read as unmapped.
    Trim,
    /// Make everything acknowledged durable. Covers no pages.
    Flush,
    /// `lpn..lpn+pages` takes the data of `src_lpn..`; the source is unmapped.
    Remap,
    /// `lpn..lpn+pages` shares the data of `src_lpn..`; both stay mapped.
    Clone,
}

impl Op {
    /// All operations, in their stable numeric order (file formats store the code).
    pub const ALL: [Op; 6] = [
        Op::Read,
        Op::Write,
        Op::Trim,
        Op::Flush,
        Op::Remap,
        Op::Clone,
    ];

    /// Lower-case name: `read`, `write`, `trim`, `flush`, `remap`, `clone`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::Flush => "flush",
            Op::Remap => "remap",
            Op::Clone => "clone",
        }
    }

    /// Stable numeric code 0..=5 (read, write, trim, flush, remap, clone).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Inverse of [`Op::code`]; `None` for an unknown code.
    pub fn from_code(code: u8) -> Option<Op> {
        Op::ALL.get(usize::from(code)).copied()
    }

    /// Whether the request moves data from a source range (`src_lpn`).
    pub fn has_source(self) -> bool {
        matches!(self, Op::Remap | Op::Clone)
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Op {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Op::ALL
            .iter()
            .copied()
            .find(|op| op.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!("`{s}` is not an operation (read, write, trim, flush, remap, clone)")
            })
    }
}

/// One request on the logical pages `lpn..lpn + pages`. Owned by its
/// source and reused between requests, so a replay allocates nothing per
/// request (`fingerprints` keeps its capacity).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    pub op: Op,
    /// First page (the destination of a remap or clone).
    pub lpn: u64,
    /// Pages covered (0 for a flush).
    pub pages: u32,
    /// First source page of a remap or clone; unused otherwise.
    pub src_lpn: u64,
    /// Arrival time in ns since the source's first request, when the source
    /// has one (traces); synthetic sources leave arrivals to the timing model.
    pub arrival_ns: Option<u64>,
    /// Placement handle: the host stream, or an FDP placement id. 0 = none.
    pub stream: u16,
    /// Program-context tag: which call path issued the request. 0 = none.
    pub context: u64,
    /// One content fingerprint per page of a write, or empty when the source
    /// has no content (the driver then supplies it when the device needs it).
    pub fingerprints: Vec<u64>,
}

impl Request {
    /// Sets every field of a request on `lpn..lpn + pages` with no stream,
    /// context, arrival or content, keeping the fingerprint capacity.
    pub fn set(&mut self, op: Op, lpn: u64, pages: u32) {
        self.op = op;
        self.lpn = lpn;
        self.pages = pages;
        self.src_lpn = 0;
        self.arrival_ns = None;
        self.stream = 0;
        self.context = 0;
        self.fingerprints.clear();
    }

    /// Sets the operation and range only, for a request whose other fields
    /// are already at their defaults and whose fingerprints the caller
    /// handles: the driver's own synthetic request, which only `set` and
    /// this write (4 stores per request fewer than `set`).
    #[inline(always)]
    pub fn set_range(&mut self, op: Op, lpn: u64, pages: u32) {
        debug_assert!(
            self.src_lpn == 0 && self.arrival_ns.is_none() && self.stream == 0 && self.context == 0,
            "set_range on a request with fields set: use set"
        );
        self.op = op;
        self.lpn = lpn;
        self.pages = pages;
    }

    /// Copies the part of `other` that covers its pages `first..first + pages`
    /// (counted from `other.lpn`), reusing `self`'s fingerprint allocation.
    pub fn copy_part_from(&mut self, other: &Request, first: u32, pages: u32) {
        debug_assert!(first + pages <= other.pages, "part outside the request");
        self.op = other.op;
        self.lpn = other.lpn + u64::from(first);
        self.pages = pages;
        self.src_lpn = other.src_lpn + u64::from(first);
        self.arrival_ns = other.arrival_ns;
        self.stream = other.stream;
        self.context = other.context;
        self.fingerprints.clear();
        let (first, end) = (first as usize, (first + pages) as usize);
        if let Some(part) = other.fingerprints.get(first..end) {
            self.fingerprints.extend_from_slice(part);
        }
    }

    /// The pages the request covers.
    pub fn lpns(&self) -> std::ops::Range<u64> {
        self.lpn..self.lpn + u64::from(self.pages)
    }
}

/// What a request returned. For reads: how many of its pages held data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub mapped_pages: u32,
    pub unmapped_pages: u32,
}

/// Information a layer passes down to the layers below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint {
    /// The layer above started cleaning (its writes now are GC copies).
    UpperGcStarted,
    /// The layer above finished cleaning.
    UpperGcEnded,
}

/// Where requests come from: a trace, a generator, an application model.
pub trait RequestSource {
    /// Fills `out` with the next request; `Ok(false)` at the end.
    fn next_request(&mut self, out: &mut Request) -> Result<bool, SimError>;
}

/// Anything that takes requests on a logical page space: the SSD, and every
/// host layer over the layer below it.
pub trait BlockDevice {
    /// Carries out one request. An error leaves the device consistent; the
    /// run stops with it.
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError>;

    /// Pages of the logical space this device offers the layer above.
    fn logical_pages(&self) -> u64;

    /// Appends this layer's statistics and those of every layer below it,
    /// top to bottom (the device last).
    fn layer_stats(&self, out: &mut Vec<LayerStats>);

    /// Information from above; a layer may act on it and pass it down.
    fn hint(&mut self, _hint: Hint) {}

    /// The requests until [`BlockDevice::end_batch`] are one file's
    /// writeback: a timed device lets them enter together, and the caller
    /// goes on once all have completed. Untimed devices ignore it.
    fn begin_batch(&mut self) {}

    fn end_batch(&mut self) {}

    /// `lpn` will be used soon: start fetching what it touches.
    #[inline]
    fn prefetch(&self, _lpn: u64) {}
}
