//! Where the driver's requests come from, with their read-ahead: a
//! sequential fill, the synthetic generator, or an external source (a
//! trace). Each hands the driver one [`Request`] at a time and starts
//! fetching what requests a little ahead will touch, so that their cache
//! misses overlap the work of the ones before them.

use std::collections::VecDeque;

use super::target::{Prefetch, Target};
use crate::error::SimError;
use crate::request::{Op, Request, RequestSource};
use crate::workload::Generator;

/// Requests read ahead of use.
pub const LOOKAHEAD: usize = 16;

/// The generator's writes, drawn ahead: the start page and the content of
/// the first page of each of the next `LOOKAHEAD` writes. The rest of a
/// request (size, other pages' content) is drawn when it is used, so the
/// sequences of starts, sizes and contents are exactly the generator's.
#[derive(Debug, Clone)]
pub struct Synthetic {
    ahead: [(u64, u64); LOOKAHEAD],
    pos: usize,
    primed: bool,
}

impl Default for Synthetic {
    fn default() -> Self {
        Self {
            ahead: [(0, 0); LOOKAHEAD],
            pos: 0,
            primed: false,
        }
    }
}

impl Synthetic {
    /// The next write's start and first content, prefetching in three
    /// stages: the map entry when drawn; halfway, the sharing record it
    /// points to; near the end, the dedup index slot of the content it will kill.
    #[inline]
    fn next_write<D: Target>(&mut self, generator: &mut Generator, dev: &D) -> (u64, u64) {
        if !self.primed {
            for slot in &mut self.ahead {
                *slot = (generator.next_write(), generator.next_content());
                dev.prefetch_write(Prefetch::Drawn, slot.0, slot.1);
            }
            self.primed = true;
        }
        let upcoming = (generator.next_write(), generator.next_content());
        dev.prefetch_write(Prefetch::Drawn, upcoming.0, upcoming.1);
        let at = |ahead: usize| (self.pos + ahead) % LOOKAHEAD;
        let (lpn, content) = self.ahead[at(LOOKAHEAD * 5 / 8)];
        dev.prefetch_write(Prefetch::Mapped, lpn, content);
        let (lpn, content) = self.ahead[at(LOOKAHEAD / 4)];
        dev.prefetch_write(Prefetch::Dying, lpn, content);
        let next = std::mem::replace(&mut self.ahead[self.pos], upcoming);
        self.pos = (self.pos + 1) % LOOKAHEAD;
        next
    }

    /// The next write request, at most `max_pages` long.
    #[inline]
    pub fn write<D: Target>(
        &mut self,
        generator: &mut Generator,
        dev: &D,
        max_pages: u64,
        out: &mut Request,
    ) {
        let (start, first_content) = self.next_write(generator, dev);
        let pages = u64::from(generator.request_size(start)).min(max_pages);
        out.set(Op::Write, start, pages as u32);
        if generator.has_content() {
            out.fingerprints.push(first_content);
            for _ in 1..pages {
                out.fingerprints.push(generator.next_content());
            }
        }
    }
}

/// The next request of the generator's read/write/trim mix.
#[inline]
pub fn mix(generator: &mut Generator, out: &mut Request) {
    let item = generator.next_request();
    out.set(item.op, item.lpn, item.pages);
    if item.op == Op::Write && generator.has_content() {
        for _ in 0..item.pages {
            out.fingerprints.push(generator.next_content());
        }
    }
}

/// An external source read `LOOKAHEAD` requests early, so that its map
/// entries are in cache when the requests run. Spent requests are kept for
/// reuse, so a replay allocates nothing per request.
pub struct External {
    source: Box<dyn RequestSource>,
    pending: VecDeque<Request>,
    spare: Vec<Request>,
    /// The source returned its last request (some may still be pending).
    drained: bool,
    /// Writes without fingerprints get unique content (only when the
    /// device keys pages by content).
    fill_content: bool,
}

impl External {
    pub fn new(source: Box<dyn RequestSource>, fill_content: bool) -> Self {
        Self {
            source,
            pending: VecDeque::with_capacity(LOOKAHEAD),
            spare: Vec::with_capacity(LOOKAHEAD + 1),
            drained: false,
            fill_content,
        }
    }

    /// The next request; `None` at the end of the source. Give it back with
    /// [`External::recycle`] when done.
    #[inline]
    pub fn next<D: Target>(
        &mut self,
        dev: &D,
        generator: &mut Generator,
    ) -> Result<Option<Request>, SimError> {
        while self.pending.len() < LOOKAHEAD && !self.drained {
            let mut req = self.spare.pop().unwrap_or_default();
            if self.source.next_request(&mut req)? {
                dev.prefetch(req.lpn);
                self.pending.push_back(req);
            } else {
                self.drained = true;
                self.spare.push(req);
            }
        }
        let Some(mut req) = self.pending.pop_front() else {
            return Ok(None);
        };
        // Content is drawn when the request runs, in request order.
        if self.fill_content && req.op == Op::Write && req.fingerprints.len() < req.pages as usize {
            for _ in req.fingerprints.len()..req.pages as usize {
                req.fingerprints.push(generator.unique_content());
            }
        }
        Ok(Some(req))
    }

    pub fn recycle(&mut self, req: Request) {
        self.spare.push(req);
    }
}
