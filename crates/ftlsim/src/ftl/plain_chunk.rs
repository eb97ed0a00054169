//! The plain host write a chunk at a time: single-page writes on one stream
//! of a device that [`Ssd::writes_plain`], as many as fit in the block its
//! frontier has open. Within such a chunk no block opens, so no GC runs and
//! every write lands on the next page of that one block: the loop holds the
//! tables as slices (their pointers and lengths stay in registers, where
//! the request loop reloaded a dozen `Vec` headers after every store) and
//! counts the block's write pointer, its last write time and the counters
//! once per chunk. The run's loop (`run/drive.rs`) cuts chunks at samples,
//! progress points and the end of the budget, and sends the write that
//! opens a block through `submit_plain`, as before.

use super::{clear_valid_bit, set_valid_range, FlashOp, MapEntry, Ssd};
use crate::error::SimError;
use crate::flash::{BlockState, Geometry, Lpn, Ppn, NO_BLOCK};
use crate::mem::prefetch;
use crate::metrics::LogHistogram;
use crate::segments::VictimIndex;

/// The tables a plain write touches, as its read-ahead sees them.
pub(crate) struct PlainTables<'a> {
    geo: &'a Geometry,
    logical_pages: u64,
    l2p: &'a [MapEntry],
    valid_bits: &'a [u64],
    valid: &'a [u32],
    victims: &'a VictimIndex,
}

impl PlainTables<'_> {
    /// Starts fetching `lpn`'s map entry.
    #[inline(always)]
    pub(crate) fn prefetch(&self, lpn: u64) {
        if lpn < self.logical_pages {
            prefetch(self.l2p, lpn as usize);
        }
    }

    /// Once `lpn`'s map entry has arrived: the valid bit, block count and
    /// victim-index links an overwrite of it updates.
    #[inline(always)]
    pub(crate) fn prefetch_mapped(&self, lpn: u64) {
        if let Some(e) = self.l2p.get(lpn as usize) {
            if !e.ppn.is_none() {
                let block = self.geo.block_of(e.ppn);
                prefetch(self.valid_bits, e.ppn.index() / 64);
                prefetch(self.valid, block as usize);
                self.victims.prefetch(block);
            }
        }
    }
}

/// A timed plain loop's writes as the timer needs them, in order
/// (`Ssd::write_plain_pages` with the op log on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlainWrite {
    /// A write that opened a block: its operations (its GC's, then its
    /// program) are the op log's up to `ops_end`.
    Logged { ops_end: u32 },
    /// `writes` writes into one open block, each the program of the next
    /// page from `first`: `program_host_page`'s one logged operation, made
    /// here instead of logged ([`PlainWrite::program`]).
    Run { first: Ppn, writes: u32 },
}

impl PlainWrite {
    /// The operation of write `k` of a run from `first`.
    #[inline(always)]
    pub(crate) fn program(first: Ppn, k: u32) -> FlashOp {
        FlashOp::Program {
            ppn: first + k,
            gc: false,
        }
    }
}

/// Where a chunk's writes come from: the next LPN, with the caller's
/// read-ahead done against the tables.
pub(crate) trait PlainSource {
    fn next_lpn(&mut self, tables: &PlainTables<'_>) -> u64;
}

impl Ssd {
    /// The tables of [`PlainTables`], for a read-ahead outside a chunk.
    #[inline(always)]
    pub(crate) fn plain_tables(&self) -> PlainTables<'_> {
        PlainTables {
            geo: &self.geo,
            logical_pages: u64::from(self.logical_pages),
            l2p: &self.l2p,
            valid_bits: &self.valid_bits,
            valid: &self.blocks.valid,
            victims: &self.victims,
        }
    }

    /// The block `stream`'s frontier has open, and the page the next write
    /// on it programs.
    #[inline(always)]
    fn plain_next_page(&self, stream: u16) -> (u32, Ppn) {
        let block = self.frontiers[usize::from(stream)].block;
        (
            block,
            self.geo.first_page(block) + self.blocks.write_ptr[block as usize],
        )
    }

    /// Single-page writes `stream` may take as one chunk: the pages left in
    /// the block its frontier has open (0 when none is: the next write
    /// opens one, and may collect garbage first).
    #[inline]
    pub(crate) fn plain_room(&self, stream: u16) -> u32 {
        // Every stream scheme's host write goes to frontier `stream`
        // (`Placement::stream_user_frontier`).
        let block = self.frontiers[usize::from(stream)].block;
        if block == NO_BLOCK {
            0
        } else {
            self.geo.pages_per_block - self.blocks.write_ptr[block as usize]
        }
    }

    /// `pages` single-page host writes on `stream`, their LPNs drawn from
    /// `source`: the same effects, in the same order, as that many
    /// requests through `submit_plain`. Each write that must open a block
    /// goes alone (`write_plain_opening`); those after it, up to the
    /// block's end, as one chunk.
    ///
    /// `LOG`: the op log is on (a timed run's measured phase). A write
    /// that opens a block logs its operations as `submit_plain::<true>`
    /// does (its GC's, then its program); a chunk's writes, each only the
    /// program of the block's next page, are not logged but noted as a run.
    /// `writes` gets each, in order: what the timer needs of them.
    pub(crate) fn write_plain_pages<S: PlainSource, const LOG: bool>(
        &mut self,
        stream: u16,
        pages: u64,
        source: &mut S,
        writes: &mut Vec<PlainWrite>,
    ) -> Result<(), SimError> {
        let mut left = pages;
        while left > 0 {
            let room = self.plain_room(stream);
            if room == 0 {
                self.write_plain_opening::<S, LOG>(stream, source)?;
                if LOG {
                    let ops_end = self.logged_ops_end();
                    writes.push(PlainWrite::Logged { ops_end });
                }
                left -= 1;
            } else {
                let chunk = left.min(u64::from(room)) as u32;
                // Where the run starts, and the clock before it (an untimed
                // chunk needs neither).
                let start = LOG.then(|| (self.plain_next_page(stream).1, self.now_pages));
                let written = self.write_plain_chunk(stream, chunk, source);
                if let Some((first, before)) = start {
                    // The writes done, those before a bad LPN too.
                    let done = (self.now_pages - before) as u32;
                    if done > 0 {
                        writes.push(PlainWrite::Run {
                            first,
                            writes: done,
                        });
                    }
                }
                written?;
                left -= u64::from(chunk);
            }
        }
        Ok(())
    }

    /// One write as `submit_plain` makes it, for the write that opens a
    /// block (and may collect garbage first): once per block, out of line.
    #[inline(never)]
    fn write_plain_opening<S: PlainSource, const LOG: bool>(
        &mut self,
        stream: u16,
        source: &mut S,
    ) -> Result<(), SimError> {
        let lpn = source.next_lpn(&self.plain_tables());
        let result = match self.check_lpn(lpn) {
            Ok(lpn) => self.write_page_mapped::<true, LOG>(lpn, stream, 0),
            Err(e) => Err(e),
        };
        if result.is_ok() {
            self.stream_counters[usize::from(stream)].host_write_pages += 1;
        }
        result
    }

    /// `pages` single-page host writes on `stream`, their LPNs drawn from
    /// `source`: the same effects, in the same order, as that many
    /// requests through `submit_plain`. `pages` is at most
    /// [`Ssd::plain_room`]. A bad LPN ends the chunk with the error
    /// `submit_plain` gives, the writes before it done. Logs nothing: a
    /// timed chunk's writes go to the timer as a run (`write_plain_pages`).
    #[inline(never)]
    fn write_plain_chunk<S: PlainSource>(
        &mut self,
        stream: u16,
        pages: u32,
        source: &mut S,
    ) -> Result<(), SimError> {
        debug_assert!(
            self.writes_plain::<false>() || self.writes_plain::<true>(),
            "a plain chunk on a device with features"
        );
        debug_assert!(
            pages <= self.plain_room(stream),
            "a plain chunk past its block"
        );
        let (block, start) = self.plain_next_page(stream);
        let b = block as usize;
        let logical_pages = u64::from(self.logical_pages);
        let mut now = self.now_pages;
        let mut done = 0u32;
        let mut bad_lpn = None;
        {
            let Ssd {
                geo,
                l2p,
                oob_lpn,
                valid_bits,
                blocks,
                victims,
                survival,
                ..
            } = self;
            // The map cut to the logical space: the LPN's range check below
            // is then its bounds check too.
            let l2p = &mut l2p[..logical_pages as usize];
            let bits = &mut valid_bits[..];
            let (valid, state) = (&mut blocks.valid[..], &blocks.state[..]);
            let oob = &mut oob_lpn[start.index()..start.index() + pages as usize];
            let mut survival = survival.as_mut().map(LogHistogram::batch);
            // The chunk's pages get their valid bits a word at a time: those
            // from `unset` on are programmed but not yet marked.
            let mut unset = start;
            for slot in oob.iter_mut() {
                let lpn = source.next_lpn(&PlainTables {
                    geo,
                    logical_pages,
                    l2p,
                    valid_bits: bits,
                    valid,
                    victims,
                });
                if lpn >= logical_pages {
                    bad_lpn = Some(lpn);
                    break;
                }
                now += 1;
                let ppn = start + done;
                let old = l2p[lpn as usize];
                if !old.ppn.is_none() {
                    // `invalidate::<true>`: the old page's count, bit and
                    // victim links, and its survival time.
                    if old.ppn >= unset && old.ppn < ppn {
                        // Written earlier in this chunk: its bit must be
                        // set before it is cleared.
                        set_valid_range(bits, unset, ppn.get() - unset.get(), true);
                        unset = ppn;
                    }
                    let old_block = geo.block_of(old.ppn);
                    let ob = old_block as usize;
                    debug_assert!(valid[ob] > 0, "invalidating a page of an empty block");
                    valid[ob] -= 1;
                    clear_valid_bit(bits, old.ppn);
                    if state[ob] == BlockState::Full {
                        victims.on_invalidate(old_block, valid[ob]);
                    }
                    if let Some(h) = &mut survival {
                        h.record(u64::from((now as u32).wrapping_sub(old.written_at)));
                    }
                }
                // `program_cells_in::<true>` on the open block's next page.
                *slot = Lpn::new(lpn as u32);
                valid[b] += 1;
                l2p[lpn as usize] = MapEntry {
                    ppn,
                    written_at: now as u32,
                };
                done += 1;
            }
            set_valid_range(bits, unset, (start + done).get() - unset.get(), true);
        }
        // What each write counted, once for the chunk: nothing in it read
        // these (the open block is in no victim index).
        let written = u64::from(done);
        let end_ptr = self.blocks.write_ptr[b] + done;
        self.blocks.write_ptr[b] = end_ptr;
        if done > 0 {
            self.blocks.last_write_at[b] = now;
        }
        self.now_pages = now;
        self.counters.host_write_pages += written;
        self.counters.nand_write_pages += written;
        self.stream_counters[usize::from(stream)].host_write_pages += written;
        if end_ptr == self.geo.pages_per_block {
            self.close_block(block);
        }
        match bad_lpn {
            Some(lpn) => self.check_lpn(lpn).map(drop),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::test_support::{lcg, small_config};
    use crate::ftl::SsdOptions;
    use crate::request::{Op, Request};

    /// A chunk's source over a fixed list of LPNs.
    struct List(std::vec::IntoIter<u64>);

    impl PlainSource for List {
        fn next_lpn(&mut self, tables: &PlainTables<'_>) -> u64 {
            let lpn = self.0.next().expect("the test sized its list");
            tables.prefetch(lpn);
            lpn
        }
    }

    fn device() -> Ssd {
        let ssd = Ssd::new(&small_config(64, 32, 0.25), &SsdOptions::default()).expect("plans");
        assert!(ssd.writes_plain::<false>());
        ssd
    }

    /// A sequential fill, then writes to a hot set of 8 pages (overwritten
    /// within their own chunk) mixed with writes over the whole space (GC
    /// runs): `count` LPNs, and `bad` at position `bad_at` if given.
    fn lpns(logical: u64, count: u64, bad_at: Option<usize>) -> Vec<u64> {
        let mut x = 7u64;
        let mut out: Vec<u64> = (0..count)
            .map(|i| {
                lcg(&mut x);
                match i {
                    i if i < logical => i,
                    _ if x >> 63 == 1 => (x >> 33) % 8,
                    _ => (x >> 33) % logical,
                }
            })
            .collect();
        if let Some(at) = bad_at {
            out[at] = logical;
        }
        out
    }

    /// Requests through `submit_plain`, one page each, until one fails.
    fn by_requests(ssd: &mut Ssd, lpns: &[u64]) -> Result<(), SimError> {
        let mut req = Request::default();
        for &lpn in lpns {
            req.set(Op::Write, lpn, 1);
            ssd.submit_plain::<false>(&req)?;
        }
        Ok(())
    }

    /// Chunks leave the device exactly as the same writes sent as
    /// requests do (every table, counter and histogram: the whole state's
    /// `Debug`), with writes overwritten inside their own chunk and GC
    /// running between chunks.
    #[test]
    fn chunks_leave_the_state_requests_leave() {
        let mut by_request = device();
        let mut by_chunk = by_request.clone();
        let logical = u64::from(by_request.logical_pages());
        let list = lpns(logical, 12 * logical, None);
        by_requests(&mut by_request, &list).expect("writes");
        // Cut where the run's loop would cut: odd sizes, some past a block.
        let mut rest = list.clone().into_iter();
        for size in [1u64, 5, 31, 32, 33, 100, 7].iter().cycle() {
            let take: Vec<u64> = rest.by_ref().take(*size as usize).collect();
            if take.is_empty() {
                break;
            }
            let n = take.len() as u64;
            by_chunk
                .write_plain_pages::<_, false>(0, n, &mut List(take.into_iter()), &mut Vec::new())
                .expect("writes");
        }
        assert!(by_chunk.counters().gc_count > 0, "GC ran");
        assert_eq!(format!("{by_request:?}"), format!("{by_chunk:?}"));
        by_chunk.check_invariants().expect("invariants hold");
    }

    /// A bad LPN inside a chunk gives `submit_plain`'s error, with the
    /// writes before it done and nothing after.
    #[test]
    fn a_bad_lpn_ends_the_chunk_as_a_request() {
        let mut by_request = device();
        let mut by_chunk = by_request.clone();
        let logical = u64::from(by_request.logical_pages());
        let bad_at = logical as usize + 10;
        let list = lpns(logical, logical + 40, Some(bad_at));
        let expected = by_requests(&mut by_request, &list).expect_err("a bad LPN");
        let got = by_chunk
            .write_plain_pages::<_, false>(
                0,
                list.len() as u64,
                &mut List(list.into_iter()),
                &mut Vec::new(),
            )
            .expect_err("a bad LPN");
        assert_eq!(expected.to_string(), got.to_string());
        assert_eq!(format!("{by_request:?}"), format!("{by_chunk:?}"));
    }

    /// With the op log on, chunks give the timer each write's operations
    /// as `submit_plain::<true>` logs them, op for op: a write that opens a
    /// block in the log, a chunk's as a run of programs.
    #[test]
    fn logged_chunks_give_the_operations_requests_log() {
        let mut by_request = device();
        by_request.enable_op_log();
        let mut by_chunk = by_request.clone();
        assert!(by_chunk.writes_plain::<true>());
        let logical = u64::from(by_request.logical_pages());
        let list = lpns(logical, 6 * logical, None);
        let mut req = Request::default();
        let mut expected = Vec::new();
        for &lpn in &list {
            req.set(Op::Write, lpn, 1);
            by_request.submit_plain::<true>(&req).expect("writes");
            expected.push(by_request.logged().to_vec());
            by_request.clear_ops();
        }
        let mut got = Vec::new();
        let mut rest = list.into_iter();
        for size in [3u64, 64, 1, 200, 17].iter().cycle() {
            let take: Vec<u64> = rest.by_ref().take(*size as usize).collect();
            if take.is_empty() {
                break;
            }
            let mut writes = Vec::new();
            by_chunk
                .write_plain_pages::<_, true>(
                    0,
                    take.len() as u64,
                    &mut List(take.into_iter()),
                    &mut writes,
                )
                .expect("writes");
            let mut start = 0;
            for write in writes {
                match write {
                    PlainWrite::Logged { ops_end } => {
                        got.push(by_chunk.logged()[start..ops_end as usize].to_vec());
                        start = ops_end as usize;
                    }
                    PlainWrite::Run { first, writes } => {
                        got.extend((0..writes).map(|k| vec![PlainWrite::program(first, k)]));
                    }
                }
            }
            assert_eq!(
                start,
                by_chunk.logged_ops(),
                "every logged operation is a write's"
            );
            by_chunk.clear_ops();
        }
        assert!(by_chunk.counters().gc_count > 0, "GC ran");
        assert_eq!(expected.len(), got.len());
        for (i, (e, g)) in expected.iter().zip(&got).enumerate() {
            assert_eq!(e, g, "write {i}'s operations");
        }
        assert_eq!(format!("{by_request:?}"), format!("{by_chunk:?}"));
    }
}
