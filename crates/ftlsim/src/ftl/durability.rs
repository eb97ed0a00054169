//! What survives a power cut: the flash image (each page's OOB: LPN,
//! sequence number, data id, content; each block's programmed count, open
//! sequence and erase count), the journal of mapping changes that program no
//! page (trim, remap, clone, dedup map), mapping checkpoints, and the
//! controller's volatile write buffer and pending journal batch.
//!
//! Kept beside the `Ssd`'s in-memory state, only when power-loss tracking is
//! on (`ftl.checkpoint_interval_pages`, `ftl.write_buffer_pages`, or the
//! crash test): a run without it pays one predictable branch per page.
//!
//! Every durable record carries a sequence number from one counter, so
//! recovery can order page programs and journal records whatever frontier or
//! block they landed in (several frontiers are open at once: a GC copy in an
//! older block can be newer than a host write in a newer block). A page's
//! *data id* is the sequence number of the host program that created the
//! data; GC copies keep it, so the mapping can name data independently of
//! where GC has moved it. Memory when on: 28 bytes per physical page
//! (LPN 4, sequence 8, data id 8, content 8) plus 16 per block, the journal
//! since the last checkpoint, and a checkpoint of 12 bytes per logical page.
//!
//! Ordering rules that make the image recoverable (each is what a real
//! controller must do too):
//! * a journal page is written only after the write buffer is drained
//!   (a record may depend on the writes before it);
//! * a block is physically erased (when it is opened again: erase on
//!   allocate) only after the buffer and the journal batch are durable, so
//!   no data disappears while the record that killed it is still volatile;
//! * GC drains the buffer first, copies before it frees its victim, and a
//!   copy keeps the data id of its source;
//! * a checkpoint is written only after the buffer and the journal are durable.

use std::collections::VecDeque;

use crate::config::{Config, DeviceConfig};
use crate::flash::{BlockTable, Lpn, Ppn};
use crate::plan::DurabilityPlan;

/// "No data": an unmapped LPN in the recovery map and checkpoints.
pub const NO_DATA: u64 = u64::MAX;

/// A mapping change that programs no page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    Trim {
        lpn: Lpn,
    },
    /// A dedup hit: `lpn` maps to the live data `data`.
    Map {
        lpn: Lpn,
        data: u64,
    },
    Remap {
        src: Lpn,
        dst: Lpn,
    },
    Clone {
        src: Lpn,
        dst: Lpn,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub seq: u64,
    pub kind: RecordKind,
}

/// A page's OOB as it will be (or was) programmed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamp {
    pub ppn: Ppn,
    pub lpn: Lpn,
    pub seq: u64,
    pub data: u64,
    pub content: u64,
}

/// A mapping checkpoint: per LPN the data id it maps and where that data
/// was when the checkpoint was written. Everything with a sequence number
/// below `seq` is reflected in it.
#[derive(Debug, Clone)]
pub(crate) struct Checkpoint {
    pub seq: u64,
    pub data: Vec<u64>,
    pub ppn: Vec<Ppn>,
}

/// What the flash array and the metadata area hold.
#[derive(Debug, Clone)]
pub(crate) struct FlashImage {
    pub lpn: Vec<Lpn>,
    pub seq: Vec<u64>,
    pub data: Vec<u64>,
    pub content: Vec<u64>,
    /// Pages programmed since the block's last physical erase.
    pub programmed: Vec<u32>,
    pub open_seq: Vec<u64>,
    /// The frontier and stream the block was opened for (its block header).
    pub owner: Vec<u32>,
    pub stream: Vec<u16>,
    pub erase_count: Vec<u32>,
    /// Durable journal records since the checkpoint, in sequence order.
    pub journal: Vec<Record>,
    /// Journal pages holding them.
    pub journal_pages: u64,
    pub checkpoint: Option<Checkpoint>,
}

/// Deliberately wrong recovery, to show the crash sweep can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokenRecovery {
    /// Replay no journal record: trims, remaps, clones and dedup maps are lost.
    IgnoreJournal,
    /// When an LPN was programmed more than once, keep the oldest version.
    TrustLowerSequence,
}

/// Cumulative power-loss costs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PowerLossStats {
    /// Journal pages programmed (counted in `nand_write_pages` too).
    pub journal_pages: u64,
    /// Checkpoint pages programmed (counted in `nand_write_pages` too).
    pub checkpoint_pages: u64,
    pub checkpoints: u64,
    /// Journal records appended.
    pub journal_records: u64,
    /// GC reclaims that had to erase their victim before copying (no free
    /// block): a cut inside one loses data unless the controller is protected.
    pub unsafe_reclaims: u64,
}

#[derive(Debug, Clone)]
pub(crate) struct Durability {
    pub image: FlashImage,
    pub buffer: VecDeque<Stamp>,
    pub buffer_pages: u32,
    pub protected: bool,
    pub pending: Vec<Record>,
    pub journal_batch: u32,
    /// The next sequence number.
    pub seq: u64,
    pub checkpoint_interval_pages: u64,
    pub next_checkpoint_at_pages: u64,
    pub checkpoint_pages_each: u64,
    /// Operations (page programs, erases, journal appends and pages,
    /// checkpoint pages) left before the armed cut; `u64::MAX` = none.
    pub ops_left: u64,
    /// Power is lost: nothing reaches the image any more.
    pub frozen: bool,
    pub frozen_durable_seq: u64,
    pub in_gc: bool,
    pub in_remap: bool,
    pub cut_in_gc: bool,
    pub cut_in_remap: bool,
    /// Data id and host LPN of the pages GC staged, in staging order.
    pub gc_data: Vec<(u64, Lpn)>,
    pub broken: Option<BrokenRecovery>,
    pub stats: PowerLossStats,
    /// Metadata pages programmed since the `Ssd` last added them to its counters.
    pub unsynced_meta_pages: u64,
    /// Recovery's cost model (docs/power-loss.md).
    pub read_ns: u64,
    pub transfer_ns: u64,
    pub luns: u64,
    pub channels: u64,
}

impl Durability {
    pub fn new(plan: &DurabilityPlan, device: &DeviceConfig) -> Self {
        let physical = (u64::from(device.blocks) * u64::from(device.pages_per_block)) as usize;
        let blocks = device.blocks as usize;
        Self {
            image: FlashImage {
                lpn: crate::mem::filled_vec(physical, Lpn::NONE),
                seq: crate::mem::filled_vec(physical, 0),
                data: crate::mem::filled_vec(physical, NO_DATA),
                content: crate::mem::filled_vec(physical, 0),
                programmed: vec![0; blocks],
                open_seq: vec![0; blocks],
                owner: vec![BlockTable::NO_OWNER; blocks],
                stream: vec![0; blocks],
                erase_count: vec![0; blocks],
                journal: Vec::new(),
                journal_pages: 0,
                checkpoint: None,
            },
            buffer: VecDeque::new(),
            buffer_pages: plan.buffer_pages,
            protected: plan.protected,
            pending: Vec::new(),
            journal_batch: plan.journal_batch,
            // 0 is never used, so "below the checkpoint" needs no special case.
            seq: 1,
            checkpoint_interval_pages: plan.checkpoint_interval_pages,
            next_checkpoint_at_pages: plan.checkpoint_interval_pages,
            checkpoint_pages_each: plan.checkpoint_pages_each,
            ops_left: u64::MAX,
            frozen: false,
            frozen_durable_seq: 0,
            in_gc: false,
            in_remap: false,
            cut_in_gc: false,
            cut_in_remap: false,
            gc_data: Vec::new(),
            broken: None,
            stats: PowerLossStats::default(),
            unsynced_meta_pages: 0,
            read_ns: plan.read_ns,
            transfer_ns: plan.transfer_ns,
            luns: plan.luns,
            channels: plan.channels,
        }
    }

    /// Bytes of the image, journal and checkpoint (not the short buffers).
    pub fn state_bytes(&self) -> usize {
        let img = &self.image;
        let per_page = img.lpn.len() * 4 + (img.seq.len() + img.data.len() + img.content.len()) * 8;
        let per_block = img.programmed.len() * (4 + 8 + 4 + 2 + 4);
        let journal = img.journal.len() * std::mem::size_of::<Record>();
        let checkpoint = img.checkpoint.as_ref().map_or(0, |c| c.data.len() * 12);
        per_page + per_block + journal + checkpoint
    }

    #[inline]
    pub fn next_seq(&mut self) -> u64 {
        let s = self.seq;
        self.seq += 1;
        s
    }

    /// Every event with a lower sequence number is durable (or, with
    /// protection, would reach flash at a cut).
    pub fn durable_seq(&self) -> u64 {
        if self.frozen {
            return self.frozen_durable_seq;
        }
        if self.protected {
            return self.seq;
        }
        let mut s = self.seq;
        if let Some(b) = self.buffer.front() {
            s = s.min(b.seq);
        }
        if let Some(r) = self.pending.first() {
            s = s.min(r.seq);
        }
        s
    }

    /// Counts one flash operation toward the armed cut; false once power is
    /// lost (the operation does not happen).
    #[inline]
    pub fn tick(&mut self) -> bool {
        if self.frozen {
            return false;
        }
        if self.ops_left != u64::MAX {
            self.ops_left -= 1;
            if self.ops_left == 0 {
                self.freeze();
                return false;
            }
        }
        true
    }

    /// Power is lost now. A protected controller still writes its buffer
    /// and journal batch (capacitor energy); otherwise they are gone.
    pub fn freeze(&mut self) {
        if self.frozen {
            return;
        }
        self.cut_in_gc = self.in_gc;
        self.cut_in_remap = self.in_remap;
        if self.protected {
            while let Some(s) = self.buffer.pop_front() {
                self.write_stamp(s);
            }
            if !self.pending.is_empty() {
                self.image.journal.append(&mut self.pending);
                self.image.journal_pages += 1;
            }
            self.frozen_durable_seq = self.seq;
        } else {
            self.frozen_durable_seq = self.durable_seq();
        }
        self.frozen = true;
    }

    /// Programs a page's OOB into the image (the page program itself).
    pub fn write_stamp(&mut self, s: Stamp) {
        let p = s.ppn.index();
        self.image.lpn[p] = s.lpn;
        self.image.seq[p] = s.seq;
        self.image.data[p] = s.data;
        self.image.content[p] = s.content;
        let (block, offset) = (s.ppn.block(self.ppb()), s.ppn.offset(self.ppb()));
        let programmed = &mut self.image.programmed[block as usize];
        debug_assert_eq!(*programmed, offset, "pages of block {block} out of order");
        *programmed = offset + 1;
    }

    fn ppb(&self) -> u32 {
        (self.image.lpn.len() / self.image.programmed.len()) as u32
    }

    /// Writes buffered stamps to flash, oldest first; stops at a cut.
    pub fn drain_buffer(&mut self) {
        while let Some(&s) = self.buffer.front() {
            if !self.tick() {
                return;
            }
            self.buffer.pop_front();
            self.write_stamp(s);
        }
    }

    /// Writes the pending journal records as one page (after the buffer:
    /// records may depend on the writes before them).
    pub fn write_journal_page(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.drain_buffer();
        if !self.tick() {
            return;
        }
        self.image.journal.append(&mut self.pending);
        self.image.journal_pages += 1;
        self.stats.journal_pages += 1;
        self.unsynced_meta_pages += 1;
    }

    /// A host page was programmed at `ppn`: its stamp is durable now, or
    /// once the write buffer drains.
    #[inline]
    pub fn host_program(&mut self, ppn: Ppn, lpn: Lpn, content: u64) {
        if self.frozen {
            return;
        }
        let seq = self.next_seq();
        let stamp = Stamp {
            ppn,
            lpn,
            seq,
            data: seq,
            content,
        };
        if self.buffer_pages == 0 {
            if self.tick() {
                self.write_stamp(stamp);
            }
        } else {
            self.buffer.push_back(stamp);
            if self.buffer.len() >= self.buffer_pages as usize {
                self.drain_buffer();
            }
        }
    }

    /// Appends a journal record; a full batch is written as a page.
    pub fn record(&mut self, kind: RecordKind) {
        if !self.tick() {
            return;
        }
        let seq = self.next_seq();
        self.pending.push(Record { seq, kind });
        self.stats.journal_records += 1;
        if self.pending.len() >= self.journal_batch as usize {
            self.write_journal_page();
        }
    }

    /// The data id a page holds as the controller knows it (the buffer first).
    pub fn data_of(&self, ppn: Ppn) -> u64 {
        self.buffer
            .iter()
            .rev()
            .find(|s| s.ppn == ppn)
            .map_or(self.image.data[ppn.index()], |s| s.data)
    }

    /// A block is opened: erase on allocate. Whatever killed its old data
    /// must be durable first.
    pub fn erase_for_open(&mut self, block: u32, owner: u32, stream: u16) {
        self.drain_buffer();
        self.write_journal_page();
        if !self.tick() {
            return;
        }
        let b = block as usize;
        self.image.programmed[b] = 0;
        self.image.open_seq[b] = self.seq;
        self.image.owner[b] = owner;
        self.image.stream[b] = stream;
    }

    /// The block was reclaimed (its erase count is block metadata).
    pub fn on_reclaimed(&mut self, block: u32, erase_count: u32) {
        if !self.frozen {
            self.image.erase_count[block as usize] = erase_count;
        }
    }

    /// Flush: the buffer and the journal batch become durable.
    pub fn flush(&mut self) {
        self.drain_buffer();
        self.write_journal_page();
    }
}

/// The `Ssd`'s side: hooks its write paths call when tracking is on (each
/// behind one `is_some` test, out of line), and the test hooks.
impl super::Ssd {
    /// Turns power-loss tracking on for a config that does not ask for it
    /// (the crash test). Only on an empty device: the image starts erased.
    pub fn track_power_loss(&mut self, cfg: &Config) -> Result<(), crate::SimError> {
        cfg.validate_power_loss()?;
        if self.durability.is_some() {
            return Ok(());
        }
        if self.cmt.is_some() {
            // The flash image and recovery do not know translation pages.
            return Err(crate::SimError::Config(crate::ConfigError::new(
                "ftl.mapping_cache_entries",
                "power-loss tracking (the crash test) cannot be combined with the DFTL mapping cache",
            )));
        }
        if self.placement.is_classified() {
            // The tracked write path and recovery place by stream.
            return Err(crate::SimError::Config(crate::ConfigError::new(
                "ftl.placement_scheme",
                "power-loss tracking (the crash test) cannot be combined with a placement scheme yet",
            )));
        }
        if self.counters.nand_write_pages > 0 {
            return Err(crate::SimError::BadRequest(
                "power-loss tracking starts on an empty device".into(),
            ));
        }
        self.durability = Some(Box::new(Durability::new(
            &DurabilityPlan::of(cfg),
            &cfg.device,
        )));
        self.keep_gc_spare();
        Ok(())
    }

    /// GC copies before it erases, so it needs a free block of its own.
    pub(super) fn keep_gc_spare(&mut self) {
        self.gc_floor = 2;
        self.gc_low = self.gc_low.max(self.gc_floor);
        self.gc_high = self.gc_high.max(self.gc_low);
        (self.gc_low_configured, self.gc_high_configured) = (self.gc_low, self.gc_high);
    }

    /// Whether power-loss tracking is on.
    pub fn power_loss_tracking(&self) -> bool {
        self.durability.is_some()
    }

    /// Arms a power cut: the `ops`-th flash operation from now (page
    /// program, erase, journal append or page, checkpoint page) and
    /// everything after it never happen. Test and crash-sweep hook.
    pub fn arm_power_cut(&mut self, ops: u64) {
        if let Some(d) = &mut self.durability {
            d.ops_left = ops.max(1);
        }
    }

    /// Whether an armed cut has fired (power is lost; the device must be
    /// `power_cut` and `recover`ed before its state means anything).
    pub fn power_lost(&self) -> bool {
        self.durability.as_ref().is_some_and(|d| d.frozen)
    }

    /// Every event (page write, journal record) with a sequence number
    /// below this is durable: it survives a cut.
    pub fn durable_seq(&self) -> u64 {
        self.durability
            .as_ref()
            .map_or(u64::MAX, |d| d.durable_seq())
    }

    /// The next sequence number: events so far are below it.
    pub fn event_seq(&self) -> u64 {
        self.durability.as_ref().map_or(0, |d| d.seq)
    }

    /// Where the last cut fired: (inside GC, inside a remap/clone).
    pub fn cut_context(&self) -> (bool, bool) {
        self.durability
            .as_ref()
            .map_or((false, false), |d| (d.cut_in_gc, d.cut_in_remap))
    }

    pub fn power_loss_stats(&self) -> Option<PowerLossStats> {
        self.durability.as_ref().map(|d| d.stats)
    }

    /// Test-only: make recovery wrong on purpose (the crash sweep must catch it).
    #[doc(hidden)]
    pub fn set_broken_recovery(&mut self, broken: Option<BrokenRecovery>) {
        if let Some(d) = &mut self.durability {
            d.broken = broken;
        }
    }

    #[inline]
    pub(super) fn sync_meta_pages(&mut self) {
        if let Some(d) = &mut self.durability {
            self.counters.nand_write_pages += std::mem::take(&mut d.unsynced_meta_pages);
        }
    }

    /// The one-to-one write path with power-loss tracking, apart so that
    /// the untracked path stays as it was. It differs in two places: the old
    /// page is unmapped after allocating, and the program is stamped.
    #[inline(never)]
    pub(super) fn write_page_tracked(
        &mut self,
        lpn: Lpn,
        stream: u16,
        content: u64,
    ) -> Result<(), crate::SimError> {
        self.now_pages += 1;
        let old = self.l2p[lpn.index()];
        let frontier = self.stream_write_frontier(lpn, stream, old);
        let ppn = self.next_page(frontier, true)?;
        self.unmap_after_allocating(lpn);
        self.counters.host_write_pages += 1;
        self.program::<false>(ppn, lpn, content);
        self.log(super::FlashOp::Program { ppn, gc: false });
        self.l2p[lpn.index()] = super::MapEntry {
            ppn,
            written_at: self.now_pages as u32,
        };
        self.durable_host_write(ppn, lpn, content);
        Ok(())
    }

    /// With tracking, a write unmaps the page it kills only once it has its
    /// own page: GC inside the allocation may otherwise erase the old data
    /// before the new is programmed, and a cut between loses both. (Without
    /// tracking the old page is unmapped first, so GC does not copy it.)
    #[inline(never)]
    pub(super) fn unmap_after_allocating(&mut self, lpn: Lpn) {
        // GC may have moved the old page: look it up again.
        let old = self.l2p[lpn.index()];
        if old.ppn.is_none() {
            return;
        }
        self.l2p[lpn.index()].ppn = Ppn::NONE;
        if self.sharing.is_some() {
            self.drop_ref(lpn, old.ppn);
        } else {
            self.invalidate::<false>(old);
        }
    }

    /// A host page was programmed at `ppn` and the mapping updated.
    #[inline(never)]
    pub(super) fn durable_host_write(&mut self, ppn: Ppn, lpn: Lpn, content: u64) {
        let now = self.now_pages;
        let d = self.durability.as_mut().expect("tracking on");
        d.host_program(ppn, lpn, content);
        let due = d.checkpoint_interval_pages > 0 && now >= d.next_checkpoint_at_pages;
        if due {
            d.next_checkpoint_at_pages = now + d.checkpoint_interval_pages;
            self.write_checkpoint();
        }
        self.sync_meta_pages();
    }

    #[inline(never)]
    pub(super) fn durable_record(&mut self, kind: RecordKind) {
        self.durability.as_mut().expect("tracking on").record(kind);
        self.sync_meta_pages();
    }

    /// A dedup hit mapped `lpn` to the live page `target`.
    #[inline(never)]
    pub(super) fn durable_map(&mut self, lpn: Lpn, target: Ppn) {
        let d = self.durability.as_mut().expect("tracking on");
        let data = d.data_of(target);
        d.record(RecordKind::Map { lpn, data });
        self.sync_meta_pages();
    }

    pub(super) fn durable_flush(&mut self) {
        self.durability.as_mut().expect("tracking on").flush();
        self.sync_meta_pages();
    }

    pub(super) fn durable_open(&mut self, block: u32) {
        let b = block as usize;
        let (owner, stream) = (self.blocks.owner[b], self.blocks.stream[b]);
        self.durability
            .as_mut()
            .expect("tracking on")
            .erase_for_open(block, owner, stream);
        self.sync_meta_pages();
    }

    /// GC is about to stage a victim's pages: the buffer drains first, so
    /// the image knows every page's data id and GC copies land in order.
    pub(super) fn durable_gc_begin(&mut self, victim: u32) {
        let d = self.durability.as_mut().expect("tracking on");
        d.drain_buffer();
        d.gc_data.clear();
        d.in_gc = true;
        // In the order GC stages them: the victim's valid pages, ascending.
        for ppn in self.geo.pages_of(victim) {
            if super::valid_bit(&self.valid_bits, ppn) {
                let p = ppn.index();
                d.gc_data.push((d.image.data[p], d.image.lpn[p]));
            }
        }
    }

    /// The `i`-th staged page landed at `ppn`.
    pub(super) fn durable_gc_copy(&mut self, i: usize, ppn: Ppn, content: u64) {
        let d = self.durability.as_mut().expect("tracking on");
        if !d.tick() {
            return;
        }
        let seq = d.next_seq();
        // The copy keeps the data id and the LPN the host wrote it for:
        // the host program it stands for may be erased with its victim.
        let (data, lpn) = d.gc_data[i];
        d.write_stamp(Stamp {
            ppn,
            lpn,
            seq,
            data,
            content,
        });
    }

    /// Writes a checkpoint of the mapping (after the buffer and journal).
    fn write_checkpoint(&mut self) {
        let d = self.durability.as_mut().expect("tracking on");
        d.drain_buffer();
        d.write_journal_page();
        for _ in 0..d.checkpoint_pages_each {
            if !d.tick() {
                // Cut mid-checkpoint: the previous one stays in force.
                return;
            }
            d.stats.checkpoint_pages += 1;
            d.unsynced_meta_pages += 1;
        }
        let mut data = Vec::with_capacity(self.l2p.len());
        let mut ppns = Vec::with_capacity(self.l2p.len());
        for e in &self.l2p {
            ppns.push(e.ppn);
            data.push(if e.ppn.is_none() {
                NO_DATA
            } else {
                d.image.data[e.ppn.index()]
            });
        }
        d.image.checkpoint = Some(Checkpoint {
            seq: d.seq,
            data,
            ppn: ppns,
        });
        // Every record so far is below the checkpoint's sequence number.
        d.image.journal.clear();
        d.image.journal_pages = 0;
        d.stats.checkpoints += 1;
    }
}
