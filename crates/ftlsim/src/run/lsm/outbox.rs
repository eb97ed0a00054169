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

use crate::error::SimError;
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Request};

/// One thing the engine issued, in order.
#[derive(Debug)]
pub(super) enum Issued {
    Request(Request),
    /// The requests until the next `EndBatch` are one file's pages: the
    /// timer lets them enter together (`BlockDevice::begin_batch`).
    BeginBatch,
    EndBatch,
}

/// Requests issued and not yet taken, with the spent ones kept for reuse
/// (a run allocates no request buffers once warm).
#[derive(Debug)]
pub struct Outbox {
    logical_pages: u64,
    pub(super) queue: VecDeque<Issued>,
    spare: Vec<Request>,
}

impl Outbox {
    /// The queue in front of a device of `logical_pages` pages.
    pub fn new(logical_pages: u64) -> Self {
        Self {
            logical_pages,
            queue: VecDeque::new(),
            spare: Vec::new(),
        }
    }

    /// Takes back a request the loop is done with.
    pub(super) fn recycle(&mut self, req: Request) {
        self.spare.push(req);
    }
}

impl BlockDevice for Outbox {
    fn submit(&mut self, req: &Request) -> Result<Completion, SimError> {
        let mut queued = self.spare.pop().unwrap_or_default();
        queued.copy_part_from(req, 0, req.pages);
        self.queue.push_back(Issued::Request(queued));
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
        self.queue.push_back(Issued::BeginBatch);
    }

    fn end_batch(&mut self) {
        self.queue.push_back(Issued::EndBatch);
    }
}
