//! `log`: a log-structured block remapping layer — a file system log (F2FS,
//! NILFS) or an application log (a log-structured KV store) over the layer
//! below. It is an FTL of its own: it maps its logical pages onto the pages
//! below, appends every write to an open segment of one of its append
//! streams, keeps a reserve of segments, and cleans victims chosen by the
//! same victim policies as the FTL (`segments`, one implementation) by
//! reading their valid pages through the layer below and writing them again.
//!
//! Layout of the space below (`S` segments of `segment_pages`):
//!
//! ```text
//! [ segment 0 | segment 1 | … | segment S-1 | metadata area (metadata = true) ]
//! ```
//!
//! The metadata area is updated in place, as F2FS updates its checkpoint,
//! segment summary (SSA) areas: a checkpoint pack of `1 + append_streams`
//! pages (a header and the summary of each open segment), alternating
//! between two packs, and one summary page per segment. The layer's own
//! mapping (F2FS's node blocks) lives in the log: mapping page `m` covers
//! `page_bytes / 4` entries, is an internal logical page `L + m`, and is
//! appended at each checkpoint when dirty — so mapping pages die, are
//! cleaned and cost write amplification like data.
//!
//! State per page: 4 bytes per logical page above (the mapping), 4 bytes per
//! page below (the reverse map), plus 8 bytes per page below once writes
//! carry fingerprints (so that copies keep their content for a dedup
//! device), plus 4 bytes per logical page for update-interval separation.

use std::collections::VecDeque;

use rand_xoshiro::Xoshiro256PlusPlus;

mod check;
mod clean;
mod separation;

use crate::config::host::log::Layout;
pub use crate::config::host::log::{Coordination, LogConfig, Separation, MAX_APPEND_STREAMS};
use separation::f2fs_log;

use super::layer::HostLayer;
use super::LowerSpace;
use crate::error::SimError;
use crate::flash::{BlockState, BlockTable};
use crate::metrics::LayerStats;
use crate::request::{BlockDevice, Completion, Op, Request};
use crate::segments::VictimIndex;

const NONE: u32 = u32::MAX;

/// The log layer.
pub struct LogLayer {
    cfg: LogConfig,
    layout: Layout,
    zoned: bool,
    /// Logical page above (user and mapping pages) → page below.
    l2p: Vec<u32>,
    /// Page below (segments only) → logical page above.
    p2l: Vec<u32>,
    /// Fingerprint per page below, once writes carry them.
    content: Option<Vec<u64>>,
    /// Per user page: the layer's time of its last write (update-interval
    /// separation only), 0 = never written.
    last_write: Option<Vec<u32>>,
    segs: BlockTable,
    victims: VictimIndex,
    rng: Xoshiro256PlusPlus,
    free: VecDeque<u32>,
    /// Open segment of each append stream (NONE when it has none).
    open: Vec<u32>,
    next_seq: u64,
    /// Layer time: pages written from above.
    now: u64,
    /// Round-robin cursor of `separation = "none"`.
    turn: usize,
    /// Dirty mapping pages since the last checkpoint (bit per mapping page),
    /// and their indices.
    node_dirty: Vec<u64>,
    dirty_nodes: Vec<u32>,
    next_checkpoint_at: u64,
    checkpoints: u64,
    cleaning: bool,
    stats: LayerStats,
    /// The run of pages being appended below, not yet submitted.
    pending: Request,
    /// Scratch for the other requests passed down.
    scratch: Request,
    /// Valid pages of the victim being cleaned: (logical page, content).
    staged: Vec<(u32, u64)>,
}

impl LogLayer {
    pub fn new(cfg: &LogConfig, below: &LowerSpace) -> Self {
        let layout = cfg.layout(below);
        let logical = (layout.user_pages + layout.node_pages) as usize;
        let seg_pages = u64::from(layout.segments) * u64::from(layout.segment_pages);
        let separation_by_interval = cfg.separation != Separation::None;
        Self {
            cfg: cfg.clone(),
            layout,
            zoned: below.zone_pages.is_some(),
            l2p: vec![NONE; logical],
            p2l: vec![NONE; seg_pages as usize],
            content: None,
            last_write: separation_by_interval.then(|| vec![0; layout.user_pages as usize]),
            segs: BlockTable::new(layout.segments),
            victims: VictimIndex::new(
                crate::plan::gc_policy(cfg.gc_policy, cfg.gc_choices, "gc_choices")
                    .expect("validated: d-choices has a candidate"),
                layout.segments,
                layout.segment_pages,
            ),
            rng: crate::rng::stream(below.seed, "log-layer-gc"),
            free: (0..layout.segments).collect(),
            open: vec![NONE; usize::from(cfg.append_streams)],
            next_seq: 0,
            now: 0,
            turn: 0,
            node_dirty: vec![0; (layout.node_pages as usize).div_ceil(64)],
            dirty_nodes: Vec::new(),
            next_checkpoint_at: cfg.checkpoint_pages,
            checkpoints: 0,
            cleaning: false,
            stats: LayerStats {
                name: "log".to_string(),
                ..LayerStats::default()
            },
            pending: Request::default(),
            scratch: Request::default(),
            staged: Vec::with_capacity(layout.segment_pages as usize),
        }
    }

    #[inline]
    fn check_range(&self, lpn: u64, pages: u32) -> Result<(), SimError> {
        let end = lpn + u64::from(pages);
        if end > self.layout.user_pages {
            return Err(SimError::OutOfRange {
                lpn: end - 1,
                logical_pages: self.layout.user_pages,
            });
        }
        Ok(())
    }

    /// Drops the mapping of a logical page above, invalidating its page below.
    #[inline]
    fn unmap(&mut self, lpn: u64) {
        let lp = self.l2p[lpn as usize];
        if lp == NONE {
            return;
        }
        self.l2p[lpn as usize] = NONE;
        self.p2l[lp as usize] = NONE;
        let seg = lp / self.layout.segment_pages;
        let s = seg as usize;
        debug_assert!(self.segs.valid[s] > 0, "segment {seg} has no valid page");
        self.segs.valid[s] -= 1;
        if self.segs.state[s] == BlockState::Full {
            self.victims.on_invalidate(seg, self.segs.valid[s]);
        }
    }

    #[inline]
    fn mark_node_dirty(&mut self, lpn: u64) {
        if self.layout.node_pages == 0 || lpn >= self.layout.user_pages {
            return;
        }
        let node = (lpn / self.layout.entries_per_node) as usize;
        let bit = 1u64 << (node % 64);
        if self.node_dirty[node / 64] & bit == 0 {
            self.node_dirty[node / 64] |= bit;
            self.dirty_nodes.push(node as u32);
        }
    }

    /// The device stream an append stream writes on.
    #[inline]
    fn lower_stream(&self, log: usize) -> u16 {
        if self.cfg.lower_streams {
            log as u16
        } else {
            0
        }
    }

    /// Appends logical page `lpn` to append stream `log`; `host` writes may
    /// start cleaning when a segment must be opened, cleaning copies may not.
    #[inline]
    fn append(
        &mut self,
        log: usize,
        lpn: u64,
        content: u64,
        host: bool,
        below: &mut dyn BlockDevice,
    ) -> Result<(), SimError> {
        let seg_pages = self.layout.segment_pages;
        let mut seg = self.open[log];
        if seg == NONE || self.segs.write_ptr[seg as usize] == seg_pages {
            seg = self.open_segment(log, host, below)?;
        }
        let s = seg as usize;
        let lp = seg * seg_pages + self.segs.write_ptr[s];
        self.segs.write_ptr[s] += 1;
        self.segs.valid[s] += 1;
        self.segs.last_write_at[s] = self.now;
        debug_assert_eq!(
            self.l2p[lpn as usize], NONE,
            "page {lpn} appended while mapped"
        );
        self.l2p[lpn as usize] = lp;
        self.p2l[lp as usize] = lpn as u32;
        if let Some(c) = &mut self.content {
            c[lp as usize] = content;
        }
        // Extend the pending run below, or start a new one.
        let stream = self.lower_stream(log);
        let p = &mut self.pending;
        if p.pages > 0 && (p.lpn + u64::from(p.pages) != u64::from(lp) || p.stream != stream) {
            self.flush_pending(below)?;
        }
        let p = &mut self.pending;
        if p.pages == 0 {
            p.set(Op::Write, u64::from(lp), 0);
            p.stream = stream;
        }
        p.pages += 1;
        if self.content.is_some() {
            p.fingerprints.push(content);
        }
        if self.segs.write_ptr[s] == seg_pages {
            self.close_segment(seg, below)?;
        }
        Ok(())
    }

    /// Submits the pending run of appended pages.
    fn flush_pending(&mut self, below: &mut dyn BlockDevice) -> Result<(), SimError> {
        if self.pending.pages == 0 {
            return Ok(());
        }
        self.stats.write_pages_out += u64::from(self.pending.pages);
        let result = below.submit(&self.pending);
        self.pending.pages = 0;
        self.pending.fingerprints.clear();
        result.map(|_| ())
    }

    fn open_segment(
        &mut self,
        log: usize,
        host: bool,
        below: &mut dyn BlockDevice,
    ) -> Result<u32, SimError> {
        if host && self.free.len() as u32 <= self.cfg.free_segments_low {
            self.clean(log, below)?;
            // Cleaning copies may have opened a segment for this stream.
            let seg = self.open[log];
            if seg != NONE && self.segs.write_ptr[seg as usize] < self.layout.segment_pages {
                return Ok(seg);
            }
        }
        let Some(seg) = self.free.pop_front() else {
            return Err(SimError::DeviceFull {
                closed_blocks: self.victims.len(),
                free_blocks: 0,
            });
        };
        let s = seg as usize;
        debug_assert_eq!(self.segs.state[s], BlockState::Free);
        self.segs.state[s] = BlockState::Open;
        self.segs.owner[s] = log as u32;
        self.segs.stream[s] = log as u16;
        self.segs.seq[s] = self.next_seq;
        self.next_seq += 1;
        self.open[log] = seg;
        Ok(seg)
    }

    fn close_segment(&mut self, seg: u32, below: &mut dyn BlockDevice) -> Result<(), SimError> {
        let s = seg as usize;
        self.open[self.segs.owner[s] as usize] = NONE;
        self.segs.state[s] = BlockState::Full;
        self.segs.owner[s] = NONE;
        self.victims.insert(seg, &self.segs);
        if self.cfg.metadata {
            // The segment's summary block, in place in the SSA area.
            let ssa = self.layout.meta_start + 2 * self.layout.pack_pages + u64::from(seg);
            self.write_meta(ssa, 1, below)?;
        }
        Ok(())
    }

    /// Writes `pages` metadata pages in place from `lpn` below.
    fn write_meta(
        &mut self,
        lpn: u64,
        pages: u32,
        below: &mut dyn BlockDevice,
    ) -> Result<(), SimError> {
        self.flush_pending(below)?;
        self.scratch.set(Op::Write, lpn, pages);
        if self.content.is_some() {
            // Metadata is never a duplicate of anything.
            let salt = self.stats.metadata_pages;
            self.scratch
                .fingerprints
                .extend((0..u64::from(pages)).map(|k| crate::hash::splitmix64(salt + k) | 1 << 63));
        }
        self.stats.metadata_pages += u64::from(pages);
        self.stats.write_pages_out += u64::from(pages);
        below.submit(&self.scratch).map(|_| ())
    }

    fn read_below(
        &mut self,
        lp: u32,
        pages: u32,
        below: &mut dyn BlockDevice,
    ) -> Result<(), SimError> {
        self.stats.read_pages_out += u64::from(pages);
        self.scratch.set(Op::Read, u64::from(lp), pages);
        below.submit(&self.scratch).map(|_| ())
    }

    fn trim_below(
        &mut self,
        lp: u64,
        pages: u32,
        below: &mut dyn BlockDevice,
    ) -> Result<(), SimError> {
        self.stats.trim_pages_out += u64::from(pages);
        self.scratch.set(Op::Trim, lp, pages);
        below.submit(&self.scratch).map(|_| ())
    }

    /// Writes the dirty mapping pages to the log and a checkpoint pack in place.
    fn checkpoint(&mut self, below: &mut dyn BlockDevice) -> Result<(), SimError> {
        let nodes = std::mem::take(&mut self.dirty_nodes);
        // Node pages go to the hot-node log under f2fs separation, else the last log.
        let log = match self.cfg.separation {
            Separation::F2fs => f2fs_log(0, self.open.len()),
            _ => self.open.len() - 1,
        };
        for &node in &nodes {
            self.node_dirty[node as usize / 64] &= !(1u64 << (node % 64));
            let lpn = self.layout.user_pages + u64::from(node);
            self.unmap(lpn);
            let content = crate::hash::splitmix64(lpn ^ self.checkpoints << 32) | 1 << 62;
            self.append(log, lpn, content, true, below)?;
            self.stats.metadata_pages += 1;
        }
        // Cleaning during the appends may have dirtied more: they wait for the next checkpoint.
        let mut nodes = nodes;
        nodes.clear();
        nodes.append(&mut self.dirty_nodes);
        self.dirty_nodes = nodes;
        self.flush_pending(below)?;
        let pack = self.layout.meta_start + (self.checkpoints % 2) * self.layout.pack_pages;
        self.checkpoints += 1;
        self.write_meta(pack, self.layout.pack_pages as u32, below)
    }

    fn write(&mut self, req: &Request, below: &mut dyn BlockDevice) -> Result<(), SimError> {
        self.check_range(req.lpn, req.pages)?;
        if !req.fingerprints.is_empty() && self.content.is_none() {
            self.content = Some(vec![0; self.p2l.len()]);
        }
        let log = self.classify(req.lpn, req.stream);
        for (i, lpn) in req.lpns().enumerate() {
            self.now += 1;
            // Each page by its own update interval (the first is classified above).
            let log = if i == 0 || self.cfg.separation == Separation::None {
                log
            } else {
                self.classify(lpn, req.stream)
            };
            self.unmap(lpn);
            let content = req.fingerprints.get(i).copied().unwrap_or(0);
            self.append(log, lpn, content, true, below)?;
            self.mark_node_dirty(lpn);
        }
        self.flush_pending(below)?;
        if self.cfg.metadata && self.stats.write_pages_in >= self.next_checkpoint_at {
            self.next_checkpoint_at = self.stats.write_pages_in + self.cfg.checkpoint_pages;
            self.checkpoint(below)?;
        }
        Ok(())
    }

    fn read(&mut self, req: &Request, below: &mut dyn BlockDevice) -> Result<Completion, SimError> {
        self.check_range(req.lpn, req.pages)?;
        let mut done = Completion::default();
        let mut run = PageRun::default();
        for lpn in req.lpns() {
            let lp = self.l2p[lpn as usize];
            if lp == NONE {
                done.unmapped_pages += 1;
                continue;
            }
            done.mapped_pages += 1;
            if let Some((start, pages)) = run.push(lp) {
                self.read_below(start, pages, below)?;
            }
        }
        if let Some((start, pages)) = run.take() {
            self.read_below(start, pages, below)?;
        }
        Ok(done)
    }

    fn trim(&mut self, req: &Request, below: &mut dyn BlockDevice) -> Result<(), SimError> {
        self.check_range(req.lpn, req.pages)?;
        let mut run = PageRun::default();
        for lpn in req.lpns() {
            let lp = self.l2p[lpn as usize];
            if lp == NONE {
                continue;
            }
            self.unmap(lpn);
            self.mark_node_dirty(lpn);
            if !self.cfg.trim {
                continue;
            }
            if let Some((start, pages)) = run.push(lp) {
                self.trim_below(u64::from(start), pages, below)?;
            }
        }
        if let Some((start, pages)) = run.take() {
            self.trim_below(u64::from(start), pages, below)?;
        }
        Ok(())
    }

    /// Remap (dst takes src's pages below, src unmapped) is a change of the
    /// layer's own mapping; clone is a copy through the log (the layer keeps
    /// one logical page per page below). Refused, changing nothing, when a
    /// range is outside the space, the ranges overlap or a source page holds
    /// no data.
    fn move_pages(&mut self, req: &Request, below: &mut dyn BlockDevice) -> Result<(), SimError> {
        let len = u64::from(req.pages);
        let (src, dst) = (req.src_lpn, req.lpn);
        let user = self.layout.user_pages;
        if src + len > user || dst + len > user {
            return Err(SimError::BadRequest(format!(
                "{} of {len} pages from {src} to {dst} reaches past the log layer's {user} pages",
                req.op
            )));
        }
        if src < dst + len && dst < src + len {
            return Err(SimError::BadRequest(format!(
                "{} ranges overlap: {src}..{} and {dst}..{}",
                req.op,
                src + len,
                dst + len
            )));
        }
        if let Some(lpn) = (src..src + len).find(|&l| self.l2p[l as usize] == NONE) {
            return Err(SimError::BadRequest(format!(
                "{} source page {lpn} holds no data",
                req.op
            )));
        }
        if req.op == Op::Remap {
            for k in 0..len {
                self.unmap(dst + k);
                let lp = std::mem::replace(&mut self.l2p[(src + k) as usize], NONE);
                self.l2p[(dst + k) as usize] = lp;
                self.p2l[lp as usize] = (dst + k) as u32;
                self.mark_node_dirty(src + k);
                self.mark_node_dirty(dst + k);
            }
            return Ok(());
        }
        // Clone: read the source, write it as new data at the destination.
        let mut copy = Request::default();
        copy.set(Op::Write, dst, req.pages);
        copy.stream = req.stream;
        copy.context = req.context;
        if let Some(c) = &self.content {
            copy.fingerprints
                .extend((src..src + len).map(|l| c[self.l2p[l as usize] as usize]));
        }
        let mut read = Request::default();
        read.set(Op::Read, src, req.pages);
        self.read(&read, below)?;
        // Not counted as pages written in: the copy is the layer's own work.
        self.write(&copy, below)
    }

    /// The page below that holds logical page `lpn`, if any.
    pub fn translate(&self, lpn: u64) -> Option<u64> {
        let lp = *self.l2p.get(lpn as usize)?;
        (lp != NONE && lpn < self.layout.user_pages).then_some(u64::from(lp))
    }
}

/// Consecutive pages below, gathered so that one request carries them.
#[derive(Debug, Default)]
struct PageRun {
    start: u32,
    pages: u32,
}

impl PageRun {
    /// Adds page `lp`; returns the run it ends when it does not extend it.
    fn push(&mut self, lp: u32) -> Option<(u32, u32)> {
        if self.pages > 0 && self.start + self.pages == lp {
            self.pages += 1;
            return None;
        }
        let done = self.take();
        (self.start, self.pages) = (lp, 1);
        done
    }

    /// The run gathered so far, if any, leaving it empty.
    fn take(&mut self) -> Option<(u32, u32)> {
        let done = (self.pages > 0).then_some((self.start, self.pages));
        self.pages = 0;
        done
    }
}

impl HostLayer for LogLayer {
    fn name(&self) -> &'static str {
        "log"
    }

    fn submit(
        &mut self,
        req: &Request,
        below: &mut dyn BlockDevice,
    ) -> Result<Completion, SimError> {
        let pages = u64::from(req.pages);
        match req.op {
            Op::Write => {
                self.stats.write_pages_in += pages;
                self.write(req, below)?;
                Ok(Completion::default())
            }
            Op::Read => {
                self.stats.read_pages_in += pages;
                self.read(req, below)
            }
            Op::Trim => {
                self.stats.trim_pages_in += pages;
                self.trim(req, below)?;
                Ok(Completion::default())
            }
            Op::Flush => below.submit(req),
            Op::Remap | Op::Clone => {
                self.move_pages(req, below)?;
                Ok(Completion::default())
            }
        }
    }

    fn stats(&self) -> LayerStats {
        self.stats.clone().with_wa()
    }

    fn translate(&self, lpn: u64) -> Option<u64> {
        LogLayer::translate(self, lpn)
    }

    #[inline]
    fn prefetch(&self, lpn: u64) {
        if lpn < self.layout.user_pages {
            crate::mem::prefetch(&self.l2p, lpn as usize);
        }
    }

    #[inline]
    fn prefetch_mapped(&self, lpn: u64) {
        // The reverse-map entry and segment counter `unmap` will update.
        let Some(&lp) = self.l2p.get(lpn as usize) else {
            return;
        };
        if lp != NONE {
            crate::mem::prefetch(&self.p2l, lp as usize);
            crate::mem::prefetch(&self.segs.valid, (lp / self.layout.segment_pages) as usize);
        }
    }

    fn check(&self) -> Result<(), SimError> {
        self.check_invariants()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_runs_gather_consecutive_pages() {
        let mut run = PageRun::default();
        let ended: Vec<_> = [4, 5, 6, 9, 10, 2]
            .into_iter()
            .filter_map(|lp| run.push(lp))
            .collect();
        assert_eq!(ended, [(4, 3), (9, 2)]);
        assert_eq!(run.take(), Some((2, 1)));
        assert_eq!(run.take(), None);
    }
}
