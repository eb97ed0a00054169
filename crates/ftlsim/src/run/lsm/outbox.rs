//! The device under the LSM engine: it carries nothing out, it queues what
//! the engine issues so that the run's one request loop can take it from
//! there, like any other source's requests.
//!
//! The engine never waits for what a request returns (values are kept as
//! length and checksum, so a read needs no data back), so issuing all of an
//! operation's requests before the first one runs reaches the device with
//! the same requests in the same order. The one thing a completion tells
//! the engine, that a read found its pages, is checked when the read
//! completes (`KvFeed::completed`).

use std::collections::VecDeque;

use crate::app::lsm::Job;
use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Request};

/// One thing the engine issued, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Issued {
    /// The request in the same slot.
    Request,
    /// The requests until the next `EndBatch` are one file's pages: the
    /// timer lets them enter together (`BlockDevice::begin_batch`).
    BeginBatch,
    EndBatch,
}

/// Where the engine's requests go: the writer's queue (the operation under
/// way), or a background thread's (`background.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Route {
    Foreground,
    Background(usize),
}

/// One job's requests on a background thread, in order, and the job,
/// installed when they have all completed (`None`: requests of an install,
/// the trims of what it replaced).
#[derive(Debug, Default)]
pub(super) struct Frame {
    pub items: VecDeque<(Issued, Request)>,
    pub job: Option<Job>,
}

/// What one operation issued, in slots that are filled in place and kept
/// from one operation to the next, so that queueing a request copies it
/// once and allocates nothing once the run is warm.
#[derive(Debug)]
pub struct Outbox {
    logical_pages: u64,
    kinds: Vec<Issued>,
    /// `slots[i]` is the request of `kinds[i]` when it is one (a marker's
    /// slot is unused).
    slots: Vec<Request>,
    /// Entries issued, and taken, of the operation under way.
    len: usize,
    head: usize,
    /// Requests issued and not yet taken.
    pub(super) pending_requests: usize,
    pub(super) route: Route,
    /// Per background thread, its jobs: the top one runs (a flush that
    /// preempts a merge is pushed over it, as LevelDB's compaction loop
    /// flushes the immutable memtable between two keys).
    pub(super) lanes: Vec<Vec<Frame>>,
}

impl Outbox {
    /// The queue in front of a device of `logical_pages` pages.
    pub fn new(logical_pages: u64) -> Self {
        Self {
            logical_pages,
            kinds: Vec::new(),
            slots: Vec::new(),
            len: 0,
            head: 0,
            pending_requests: 0,
            route: Route::Foreground,
            lanes: Vec::new(),
        }
    }

    /// The job queue that requests of `lane` go to now.
    fn frame(&mut self, lane: usize) -> &mut Frame {
        self.lanes[lane]
            .last_mut()
            .expect("a background request has its job's frame")
    }

    /// Queues `kind` (with `req` when it is a request) where the route says.
    fn issue(&mut self, kind: Issued, req: Option<&Request>) {
        match self.route {
            Route::Foreground => {
                let slot = self.push(kind);
                if let Some(req) = req {
                    slot.copy_part_from(req, 0, req.pages);
                    self.pending_requests += 1;
                }
            }
            Route::Background(lane) => {
                let req = req.cloned().unwrap_or_default();
                self.frame(lane).items.push_back((kind, req));
            }
        }
    }

    pub(super) fn slot_mut(&mut self, at: usize) -> &mut Request {
        &mut self.slots[at]
    }

    /// The next slot to fill, as `kind`.
    fn push(&mut self, kind: Issued) -> &mut Request {
        if self.len == self.slots.len() {
            self.slots.push(Request::default());
            self.kinds.push(kind);
        } else {
            self.kinds[self.len] = kind;
        }
        self.len += 1;
        &mut self.slots[self.len - 1]
    }

    /// The next entry issued and not taken, and its slot; `None` when all
    /// were taken (the slots are then free for the next operation).
    pub(super) fn take(&mut self) -> Option<(Issued, usize)> {
        if self.head == self.len {
            (self.head, self.len) = (0, 0);
            return None;
        }
        let at = self.head;
        self.head += 1;
        if self.kinds[at] == Issued::Request {
            self.pending_requests -= 1;
        }
        Some((self.kinds[at], at))
    }

    pub(super) fn slot(&self, at: usize) -> &Request {
        &self.slots[at]
    }
}

impl BlockDevice for Outbox {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        self.issue(Issued::Request, Some(req));
        // What the request will find is known only when it runs.
        Ok(Completion {
            mapped_pages: req.pages,
            unmapped_pages: 0,
        })
    }

    fn logical_pages(&self) -> u64 {
        self.logical_pages
    }

    /// The engine is not a layer of the stack below it: the device's
    /// statistics come from the stack itself.
    fn layer_stats(&self, _out: &mut Vec<LayerStats>) {}

    fn begin_batch(&mut self) {
        self.issue(Issued::BeginBatch, None);
    }

    fn end_batch(&mut self) {
        self.issue(Issued::EndBatch, None);
    }
}
