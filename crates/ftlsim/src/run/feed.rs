//! Where the driver's requests come from, with their read-ahead: a
//! sequential fill, the synthetic generator's writes or mix, or an external
//! source (a trace). Each is a [`Feed`]: it lends the driver one
//! [`Request`] at a time and starts fetching what requests a little ahead
//! will touch, so that their cache misses overlap the work of the ones
//! before them. The driver is generic over the feed, so each gets a loop
//! of its own with nothing to decide per request.

use super::clock::Clock;
use super::target::{Prefetch, ReadAhead, Target};
use crate::error::SimError;
use crate::ftl::{PlainSource, PlainTables, PlainWrite, Ssd};
use crate::request::{Completion, Op, Request, RequestSource};
use crate::timing;
use crate::workload::{Generator, UniformDraw};

/// A source of requests for the driver loop. The block sources only lend
/// requests; a source above a file layer (the LSM engine) also learns how
/// each one completed, and counts its own units of work (key-value
/// operations), each of which may take many requests or none.
pub trait Feed {
    /// The source needs each request's completion time before the next
    /// one (the timer then stays on the loop's thread).
    const CLOSED_LOOP: bool = false;

    /// The next request, at most `max_pages` long if it writes; `None` at
    /// the end. The request is lent until the next call. `clock` hears the
    /// edges of the source's batches (`Clock::begin_batch`) in order.
    fn next<D: Target, C: Clock>(
        &mut self,
        dev: &D,
        clock: &mut C,
        max_pages: u64,
    ) -> Result<Option<&Request>, SimError>;

    /// The request lent last completed with `done`, and, when the loop's
    /// clock timed it, at `timed`.
    #[inline(always)]
    fn completed<C: Clock>(
        &mut self,
        _done: &Completion,
        _timed: Option<timing::Completion>,
        _clock: &mut C,
    ) -> Result<(), SimError> {
        Ok(())
    }

    /// Units of work done in this phase, for a source that counts its own
    /// (otherwise the loop counts pages or requests).
    #[inline(always)]
    fn units_done(&self) -> Option<u64> {
        None
    }

    /// Whether the source is between units of work, where the loop may
    /// sample: a series point in the middle of a key-value operation would
    /// split its requests between two windows.
    #[inline(always)]
    fn between_units(&self) -> bool {
        true
    }
}

/// The logical space in order, one page per request, unique content.
pub struct Fill<'a> {
    pub generator: &'a mut Generator,
    pub req: &'a mut Request,
    pub next_lpn: u64,
}

impl Feed for Fill<'_> {
    #[inline(always)]
    fn next<D: Target, C: Clock>(
        &mut self,
        _dev: &D,
        _clock: &mut C,
        _max_pages: u64,
    ) -> Result<Option<&Request>, SimError> {
        // The driver's request: its other fields stay at their defaults.
        self.req.set_range(Op::Write, self.next_lpn, 1);
        self.next_lpn += 1;
        if self.generator.has_content() {
            self.req.fingerprints.clear();
            self.req.fingerprints.push(self.generator.unique_content());
        }
        Ok(Some(self.req))
    }
}

/// The generator's writes, read ahead ([`Synthetic`]).
pub struct Writes<'a> {
    pub generator: &'a mut Generator,
    pub synthetic: &'a mut Synthetic,
    pub req: &'a mut Request,
}

impl Feed for Writes<'_> {
    #[inline(always)]
    fn next<D: Target, C: Clock>(
        &mut self,
        dev: &D,
        _clock: &mut C,
        max_pages: u64,
    ) -> Result<Option<&Request>, SimError> {
        self.synthetic
            .write(self.generator, dev, max_pages, self.req);
        Ok(Some(self.req))
    }
}

/// [`Fill`] as a plain chunk's source: the logical space in order (no
/// content, so nothing else to draw; the hardware prefetcher follows the
/// map in order, so no read-ahead).
pub struct FillLpns {
    pub next_lpn: u64,
}

impl PlainSource for FillLpns {
    #[inline(always)]
    fn next_lpn(&mut self, _tables: &PlainTables<'_>) -> u64 {
        self.next_lpn += 1;
        self.next_lpn - 1
    }
}

/// The generator's single-page writes as a plain chunk's source
/// (`Ssd::write_plain_pages`): the same draws and read-ahead as
/// [`Synthetic::write`], against the chunk's tables.
pub struct SyntheticLpns<'a> {
    pub generator: &'a mut Generator,
    pub synthetic: &'a mut Synthetic,
}

impl SyntheticLpns<'_> {
    /// `pages` of the generator's writes to a plain SSD, a block at a
    /// time: through [`UniformLpns`] where the pattern allows. `LOG`,
    /// `writes`: as `Ssd::write_plain_pages` takes them.
    pub fn write_to<const LOG: bool>(
        &mut self,
        ssd: &mut Ssd,
        pages: u64,
        writes: &mut Vec<PlainWrite>,
    ) -> Result<(), SimError> {
        match UniformLpns::take(self.generator, self.synthetic) {
            Some(mut uniform) => {
                let written = ssd.write_plain_pages::<_, LOG>(0, pages, &mut uniform, writes);
                uniform.put_back(self.generator, self.synthetic);
                written
            }
            None => ssd.write_plain_pages::<_, LOG>(0, pages, self, writes),
        }
    }
}

impl PlainSource for SyntheticLpns<'_> {
    #[inline(always)]
    fn next_lpn(&mut self, tables: &PlainTables<'_>) -> u64 {
        self.synthetic.next_write(self.generator, tables).0
    }
}

/// [`SyntheticLpns`] for the uniform pattern, its draw and ring taken out
/// of the generator and the feed for one call of `Ssd::write_plain_pages`
/// (and put back after it): the chunk's loop gets them by a pointer the
/// compiler knows nothing else writes through, so their state stays in
/// registers instead of being stored and loaded again at every write (about
/// 20 instructions each). The same draws and read-ahead.
pub struct UniformLpns {
    draw: UniformDraw,
    ahead: [u64; LOOKAHEAD],
    pos: usize,
}

impl UniformLpns {
    /// `None` unless the generator draws uniform single-page writes and the
    /// ring is primed (the first writes of a run prime it the general way).
    pub fn take(generator: &Generator, synthetic: &Synthetic) -> Option<Self> {
        let draw = generator.take_uniform()?;
        synthetic.primed.then(|| Self {
            draw,
            ahead: synthetic.ahead.map(|(lpn, _)| lpn),
            pos: synthetic.pos,
        })
    }

    /// Gives the draw and the ring back (no content: each write's is 0).
    pub fn put_back(self, generator: &mut Generator, synthetic: &mut Synthetic) {
        self.draw.put_back(generator);
        synthetic.ahead = self.ahead.map(|lpn| (lpn, 0));
        synthetic.pos = self.pos;
    }
}

impl PlainSource for UniformLpns {
    /// `Synthetic::next_write` with the stages a plain device has.
    #[inline(always)]
    fn next_lpn(&mut self, tables: &PlainTables<'_>) -> u64 {
        let upcoming = self.draw.next_write();
        tables.prefetch_write(Prefetch::Drawn, upcoming, 0);
        let mapped = self.ahead[(self.pos + LOOKAHEAD * 5 / 8) % LOOKAHEAD];
        tables.prefetch_write(Prefetch::Mapped, mapped, 0);
        let next = std::mem::replace(&mut self.ahead[self.pos % LOOKAHEAD], upcoming);
        self.pos = (self.pos + 1) % LOOKAHEAD;
        next
    }
}

/// The generator's read/write/trim mix.
pub struct Mix<'a> {
    pub generator: &'a mut Generator,
    pub req: &'a mut Request,
}

impl Feed for Mix<'_> {
    #[inline(always)]
    fn next<D: Target, C: Clock>(
        &mut self,
        _dev: &D,
        _clock: &mut C,
        _max_pages: u64,
    ) -> Result<Option<&Request>, SimError> {
        mix(self.generator, self.req);
        Ok(Some(self.req))
    }
}

/// An external source with its read-ahead ring ([`External`]).
pub struct Replay<'a> {
    pub external: &'a mut External,
    pub generator: &'a mut Generator,
}

impl Feed for Replay<'_> {
    #[inline(always)]
    fn next<D: Target, C: Clock>(
        &mut self,
        dev: &D,
        _clock: &mut C,
        _max_pages: u64,
    ) -> Result<Option<&Request>, SimError> {
        self.external.next(dev, self.generator)
    }
}

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
    #[inline(always)]
    fn next_write<D: ReadAhead>(&mut self, generator: &mut Generator, dev: &D) -> (u64, u64) {
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
        // `pos` stays below LOOKAHEAD (a power of two): the mask spares a bounds check.
        let next = std::mem::replace(&mut self.ahead[self.pos % LOOKAHEAD], upcoming);
        self.pos = (self.pos + 1) % LOOKAHEAD;
        next
    }

    /// The next write request, at most `max_pages` long. Inlined into the
    /// driver's loop: out of line, its prologue and epilogue alone cost
    /// about 15 instructions per request.
    #[inline(always)]
    pub fn write<D: Target>(
        &mut self,
        generator: &mut Generator,
        dev: &D,
        max_pages: u64,
        out: &mut Request,
    ) {
        let (start, first_content) = self.next_write(generator, dev);
        let pages = u64::from(generator.request_size(start)).min(max_pages);
        // The driver's request: its other fields stay at their defaults.
        out.set_range(Op::Write, start, pages as u32);
        if generator.has_content() {
            out.fingerprints.clear();
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
/// entries are in cache when the requests run. The requests live in a ring
/// that is filled in place and lent out, so a replay neither allocates nor
/// copies a request.
pub struct External {
    source: Box<dyn RequestSource>,
    ring: Vec<Request>,
    /// The oldest request read and not yet spent, and how many are held.
    head: usize,
    held: usize,
    /// The request at `head` was lent by the last `next` (spent at the next one).
    lent: bool,
    /// The source returned its last request (some may still be held).
    drained: bool,
    /// Writes without fingerprints get unique content (only when the
    /// device keys pages by content).
    fill_content: bool,
}

impl External {
    pub fn new(source: Box<dyn RequestSource>, fill_content: bool) -> Self {
        Self {
            source,
            ring: vec![Request::default(); LOOKAHEAD],
            head: 0,
            held: 0,
            lent: false,
            drained: false,
            fill_content,
        }
    }

    /// The next request; `None` at the end of the source. The request lent
    /// last time is spent by this call.
    #[inline]
    pub fn next<D: Target>(
        &mut self,
        dev: &D,
        generator: &mut Generator,
    ) -> Result<Option<&Request>, SimError> {
        if self.lent {
            self.head = (self.head + 1) % LOOKAHEAD;
            self.held -= 1;
            self.lent = false;
        }
        while self.held < LOOKAHEAD && !self.drained {
            let slot = &mut self.ring[(self.head + self.held) % LOOKAHEAD];
            if self.source.next_request(slot)? {
                dev.prefetch(slot.lpn);
                self.held += 1;
            } else {
                self.drained = true;
            }
        }
        if self.held == 0 {
            return Ok(None);
        }
        let req = &mut self.ring[self.head];
        // Content is drawn when the request runs, in request order.
        if self.fill_content && req.op == Op::Write && req.fingerprints.len() < req.pages as usize {
            for _ in req.fingerprints.len()..req.pages as usize {
                req.fingerprints.push(generator.unique_content());
            }
        }
        self.lent = true;
        Ok(Some(req))
    }
}
