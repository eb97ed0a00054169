//! Power cut and recovery: drop everything volatile, then rebuild the
//! mapping, reference counts, valid counts, free pool and victim index from
//! the flash image alone (the last checkpoint, the OOB of pages newer than
//! it, and the journal), and say what that cost.
//!
//! Recovery replays, in sequence order, every host program newer than the
//! checkpoint (from the OOB: LPN and data id) and every journal record. An
//! LPN ends mapped to a data id; the data lives in the newest copy of it on
//! flash (GC copies keep the data id). Replaying stale programs is harmless:
//! whatever superseded them is durable too, because nothing is erased while
//! the write or record that killed it is volatile.

use std::collections::HashMap;

use super::durability::{BrokenRecovery, RecordKind, NO_DATA};
use super::fingerprint_index::FingerprintIndex;
use super::{set_valid_bit, MapEntry, Ssd, UNMAPPED};
use crate::error::SimError;
use crate::flash::{BlockState, BlockTable, Lpn, Ppn, NO_BLOCK};
use crate::segments::VictimIndex;

/// What a recovery read and how long it took.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Every page read: block probes, OOB scans, journal and checkpoint pages.
    pub pages_scanned: u64,
    /// Blocks whose OOB was scanned page by page (newer than the checkpoint).
    pub blocks_scanned: u64,
    pub journal_pages_read: u64,
    pub checkpoint_pages_read: u64,
    /// Modelled time: reads spread over the LUNs, transfers over the channels.
    pub recovery_ns: u64,
    /// LPNs whose data id was found on no page (a broken recovery loses them).
    pub unresolved_pages: u64,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Program { lpn: Lpn, data: u64 },
    Record(RecordKind),
}

impl Ssd {
    /// Power is lost: the write buffer and journal batch are lost unless
    /// protected, and the mapping, counts, pool and frontiers are gone.
    pub fn power_cut(&mut self) -> Result<(), SimError> {
        let Some(d) = &mut self.durability else {
            return Err(SimError::BadRequest(
                "power_cut needs power-loss tracking (Ssd::track_power_loss)".into(),
            ));
        };
        d.freeze();
        d.buffer.clear();
        d.pending.clear();
        d.gc_data.clear();
        d.in_gc = false;
        d.in_remap = false;
        self.l2p.fill(UNMAPPED);
        self.oob_lpn.fill(Lpn::NONE);
        self.valid_bits.fill(0);
        self.blocks.valid.fill(0);
        for f in &mut self.frontiers {
            f.block = NO_BLOCK;
        }
        self.gc_buffer.clear();
        self.gc_lpns.clear();
        if let Some(s) = &mut self.sharing {
            s.staged.clear();
            s.next_sharer.fill(Lpn::NONE);
            s.prev_sharer.fill(Lpn::NONE);
            s.pages.fill(Default::default());
            s.extra_lpns = 0;
            if let Some(index) = &mut s.index {
                *index = FingerprintIndex::with_capacity(self.oob_lpn.len());
            }
        }
        Ok(())
    }

    /// Rebuilds the device from the flash image after `power_cut`.
    pub fn recover(&mut self) -> Result<RecoveryReport, SimError> {
        let Some(mut d) = self.durability.take() else {
            return Err(SimError::BadRequest(
                "recover needs power-loss tracking (Ssd::track_power_loss)".into(),
            ));
        };
        let result = self.rebuild(&mut d);
        self.durability = Some(d);
        let report = result?;
        self.sync_meta_pages();
        self.mount_gc()?;
        Ok(report)
    }

    /// GC at mount, before the host writes again: a cut inside GC left the
    /// pool a block short (the block the reclaim opened holds its copies,
    /// the victim still holds the rest). Whatever the victim policy, mount
    /// takes the emptiest block whose pages fit without erasing first (the
    /// interrupted victim always fits the room its copies left), until the
    /// pool is back at its reserve or no reclaim would gain a page.
    fn mount_gc(&mut self) -> Result<(), SimError> {
        let ppb = self.geo.pages_per_block;
        while self.pool.len() < self.gc_low {
            let Some(victim) = self.emptiest_full_block(0) else {
                break;
            };
            if self.blocks.valid[victim as usize] == ppb || !self.copy_fits(victim) {
                break;
            }
            self.take_victim(victim);
            self.reclaim(victim, super::gc::Reclaim::Gc)?;
        }
        Ok(())
    }

    /// Rebuilds the device state from the flash image `d` holds: the
    /// mapping from the checkpoint, the blocks programmed since and the
    /// journal (steps 1–4), then the blocks, the mapping and the victim
    /// index (5–7), and the controller's own state (8).
    fn rebuild(
        &mut self,
        d: &mut super::durability::Durability,
    ) -> Result<RecoveryReport, SimError> {
        let mut report = RecoveryReport::default();
        let img = &d.image;
        let logical = self.logical_pages as usize;
        let trust_lower = d.broken == Some(BrokenRecovery::TrustLowerSequence);

        // 1. Start from the checkpoint, or from nothing.
        let since = img.checkpoint.as_ref().map_or(0, |c| c.seq);
        let mut map: Vec<u64> = match &img.checkpoint {
            Some(c) => c.data.clone(),
            None => vec![NO_DATA; logical],
        };
        // data id → (page, sequence number of that copy)
        let mut loc: HashMap<u64, (Ppn, u64)> = HashMap::new();
        if let Some(c) = &img.checkpoint {
            report.checkpoint_pages_read = d.checkpoint_pages_each;
            for (lpn, &data) in c.data.iter().enumerate() {
                if data != NO_DATA {
                    loc.insert(data, (c.ppn[lpn], 0));
                }
            }
        }

        // 2. The blocks programmed since the checkpoint.
        let mut events: Vec<(u64, Event)> = Vec::new();
        let mut max_seq = self.scan_blocks(d, since, &mut loc, &mut events, &mut report);

        // 3. The journal since the checkpoint.
        report.journal_pages_read = img.journal_pages;
        report.pages_scanned += img.journal_pages + report.checkpoint_pages_read;
        if d.broken != Some(BrokenRecovery::IgnoreJournal) {
            for r in &img.journal {
                if r.seq >= since {
                    events.push((r.seq, Event::Record(r.kind)));
                }
            }
        }
        if let Some(r) = img.journal.last() {
            max_seq = max_seq.max(r.seq);
        }

        // 4. Replay in sequence order.
        replay(&mut events, &mut map, trust_lower, logical);

        // 5. Blocks: which are free, full, retired or open again.
        self.restore_blocks(&d.image);

        // 6. The mapping, valid pages and sharing state.
        let merges = self.restore_mapping(&d.image, &map, &loc, &mut report);

        // 7. The victim index, and blocks with no live data freed.
        self.rebuild_victims(d);

        // 8. The controller starts again after everything it saw.
        d.seq = max_seq + 1;
        d.frozen = false;
        d.ops_left = u64::MAX;
        d.cut_in_gc = false;
        d.cut_in_remap = false;
        for kind in merges {
            d.record(kind);
        }
        d.write_journal_page();
        let per_lun = report.pages_scanned.div_ceil(d.luns);
        let per_channel = report.pages_scanned.div_ceil(d.channels);
        report.recovery_ns = (per_lun * d.read_ns).max(per_channel * d.transfer_ns);
        Ok(report)
    }

    /// Step 2 of [`Ssd::rebuild`]: scans the blocks programmed since the
    /// checkpoint (`since`), noting where each data's newest copy lies and
    /// each host program as an event; returns the highest sequence number
    /// seen. A block's pages are in sequence order, so its last page tells
    /// whether it is newer (one probe read for the blocks that are not).
    fn scan_blocks(
        &self,
        d: &super::durability::Durability,
        since: u64,
        loc: &mut HashMap<u64, (Ppn, u64)>,
        events: &mut Vec<(u64, Event)>,
        report: &mut RecoveryReport,
    ) -> u64 {
        let img = &d.image;
        let pe_limit = self.pe_limit;
        let retired_at = move |erases: u32| pe_limit > 0 && erases >= pe_limit;
        let trust_lower = d.broken == Some(BrokenRecovery::TrustLowerSequence);
        let mut max_seq = since;
        for block in 0..self.geo.blocks {
            let b = block as usize;
            let programmed = img.programmed[b];
            if programmed == 0 {
                continue;
            }
            let last_seq = img.seq[(self.geo.first_page(block) + (programmed - 1)).index()];
            max_seq = max_seq.max(last_seq);
            if last_seq < since {
                report.pages_scanned += 1;
                continue;
            }
            report.blocks_scanned += 1;
            report.pages_scanned += u64::from(programmed);
            // Data in a retired block was copied before it retired; its
            // programs still tell the mapping's history.
            let retired = retired_at(img.erase_count[b]);
            for ppn in self.geo.pages_of(block).take(programmed as usize) {
                let p = ppn.index();
                let (seq, data) = (img.seq[p], img.data[p]);
                if seq < since {
                    continue;
                }
                // A page, original or GC copy, stands for the host program
                // that created its data, at that program's place in order.
                if data >= since {
                    events.push((
                        data,
                        Event::Program {
                            lpn: img.lpn[p],
                            data,
                        },
                    ));
                }
                if retired {
                    continue;
                }
                let newer = match loc.get(&data) {
                    None => true,
                    Some(&(_, have)) => {
                        if trust_lower && have != 0 {
                            seq < have
                        } else {
                            seq > have
                        }
                    }
                };
                if newer {
                    loc.insert(data, (ppn, seq));
                }
            }
        }
        max_seq
    }

    /// Step 5 of [`Ssd::rebuild`]: erased blocks return to the pool; any
    /// block holding pages is full (a partly programmed one is closed as it
    /// is, its unprogrammed pages unused until GC erases it), except that
    /// the newest partly programmed block of each frontier is reopened.
    fn restore_blocks(&mut self, img: &super::durability::FlashImage) {
        let ppb = self.geo.pages_per_block;
        let pe_limit = self.pe_limit;
        let retired_at = move |erases: u32| pe_limit > 0 && erases >= pe_limit;
        self.pool.clear();
        self.retired = 0;
        let mut max_open = 0;
        for block in 0..self.geo.blocks {
            let b = block as usize;
            self.blocks.erase_count[b] = img.erase_count[b];
            self.blocks.seq[b] = img.open_seq[b];
            max_open = max_open.max(img.open_seq[b]);
            self.blocks.owner[b] = BlockTable::NO_OWNER;
            self.blocks.valid[b] = 0;
            if retired_at(img.erase_count[b]) {
                self.blocks.state[b] = BlockState::Retired;
                self.blocks.write_ptr[b] = 0;
                self.retired += 1;
            } else if img.programmed[b] == 0 {
                self.blocks.state[b] = BlockState::Free;
                self.blocks.write_ptr[b] = 0;
                self.pool.insert(block, img.erase_count[b]);
            } else {
                self.blocks.state[b] = BlockState::Full;
                self.blocks.write_ptr[b] = ppb;
                self.blocks.stream[b] = img.stream[b];
            }
        }
        // A partly programmed block goes back to the frontier that opened
        // it (its newest, if several): GC finds the room it had. The others
        // stay closed, their unprogrammed pages unused until GC erases them.
        for block in 0..self.geo.blocks {
            let b = block as usize;
            let owner = img.owner[b] as usize;
            if self.blocks.state[b] != BlockState::Full
                || img.programmed[b] == ppb
                || owner >= self.frontiers.len()
            {
                continue;
            }
            let current = self.frontiers[owner].block;
            if current == NO_BLOCK || img.open_seq[current as usize] < img.open_seq[b] {
                if current != NO_BLOCK {
                    self.blocks.state[current as usize] = BlockState::Full;
                    self.blocks.write_ptr[current as usize] = ppb;
                    self.blocks.owner[current as usize] = BlockTable::NO_OWNER;
                }
                self.blocks.state[b] = BlockState::Open;
                self.blocks.write_ptr[b] = img.programmed[b];
                self.blocks.owner[b] = owner as u32;
                self.frontiers[owner].block = block;
            }
        }
        self.next_seq = max_open + 1;
        if let Some(c) = &mut self.content {
            c.copy_from_slice(&img.content);
        }
    }

    /// Step 6 of [`Ssd::rebuild`]: maps each LPN of `map` to the page that
    /// holds its data (`loc`), with valid bits and sharing state; returns
    /// the merges the journal must record.
    fn restore_mapping(
        &mut self,
        img: &super::durability::FlashImage,
        map: &[u64],
        loc: &HashMap<u64, (Ppn, u64)>,
        report: &mut RecoveryReport,
    ) -> Vec<RecordKind> {
        let ppb = self.geo.pages_per_block;
        let now = self.now_pages as u32;
        let mut merges = Vec::new();
        for (lpn, &data) in map.iter().enumerate() {
            if data == NO_DATA {
                continue;
            }
            let found = loc.get(&data).map(|&(ppn, _)| ppn).filter(|&ppn| {
                let b = self.geo.block_of(ppn) as usize;
                ppn.offset(ppb) < img.programmed[b]
                    && img.data[ppn.index()] == data
                    && matches!(self.blocks.state[b], BlockState::Full | BlockState::Open)
            });
            let Some(mut ppn) = found else {
                report.unresolved_pages += 1;
                continue;
            };
            let lpn = Lpn::from_index(lpn);
            if self.sharing.is_some() {
                // Two live pages with one content (a lost trim brought an
                // old one back): map both LPNs to the one indexed first.
                let fp = img.content[ppn.index()];
                let s = self.sharing.as_ref().expect("sharing on");
                if let Some(q) = s.index.as_ref().and_then(|i| i.get(fp)) {
                    if q != ppn {
                        // The merge must be journaled: the page left behind
                        // may be erased, and with it this LPN's last program.
                        merges.push(RecordKind::Map {
                            lpn,
                            data: img.data[q.index()],
                        });
                    }
                    ppn = q;
                }
                if s.pages[ppn.index()].refs() > 0 {
                    self.add_ref(lpn, ppn);
                    self.l2p[lpn.index()] = MapEntry {
                        ppn,
                        written_at: now,
                    };
                    continue;
                }
                let s = self.sharing.as_mut().expect("sharing on");
                s.pages[ppn.index()] = super::sharing::PageShare::new(fp, now);
                if let Some(index) = s.index.as_mut() {
                    index.insert(fp, ppn);
                }
            } else if !self.oob_lpn[ppn.index()].is_none() {
                // One-to-one mapping: a second LPN on one page cannot be right.
                report.unresolved_pages += 1;
                continue;
            }
            self.oob_lpn[ppn.index()] = lpn;
            set_valid_bit(&mut self.valid_bits, ppn);
            self.blocks.valid[self.geo.block_of(ppn) as usize] += 1;
            self.l2p[lpn.index()] = MapEntry {
                ppn,
                written_at: now,
            };
        }
        merges
    }

    /// Step 7 of [`Ssd::rebuild`]: the victim index over the full blocks.
    fn rebuild_victims(&mut self, d: &mut super::durability::Durability) {
        let ppb = self.geo.pages_per_block;
        self.victims = VictimIndex::new(self.victims.policy(), self.geo.blocks, ppb);
        for block in 0..self.geo.blocks {
            if self.blocks.state[block as usize] == BlockState::Full {
                self.victims.insert(block, &self.blocks);
            }
        }

        // 7b. Blocks that hold no live data go back to the pool at mount
        // (no copy needed), so GC finds a free block and can copy before it
        // erases: a cut leaves partly programmed and stale blocks behind.
        for block in 0..self.geo.blocks {
            let b = block as usize;
            if self.blocks.state[b] == BlockState::Full && self.blocks.valid[b] == 0 {
                self.victims.remove(block, &self.blocks);
                self.erase(block);
                d.image.erase_count[b] = self.blocks.erase_count[b];
            }
        }
    }

    /// The content an LPN reads after recovery, without counting a host read.
    pub fn peek_content(&self, lpn: u64) -> Option<u64> {
        let ppn = self.lookup(lpn)?;
        Some(self.content.as_ref().map_or(0, |c| c[ppn.index()]))
    }
}

/// Step 4 of [`Ssd::rebuild`]: the events in sequence order onto `map`.
/// With `TrustLowerSequence` (a deliberately broken recovery) an LPN keeps
/// its first program.
fn replay(events: &mut Vec<(u64, Event)>, map: &mut [u64], trust_lower: bool, logical: usize) {
    events.sort_unstable_by_key(|&(seq, _)| seq);
    // Copies of one data repeat its program: keep one.
    events.dedup_by_key(|&mut (seq, _)| seq);
    let mut programmed_once = vec![false; if trust_lower { logical } else { 0 }];
    for &(_, event) in events.iter() {
        match event {
            Event::Program { lpn, data } => {
                if trust_lower {
                    if programmed_once[lpn.index()] {
                        continue;
                    }
                    programmed_once[lpn.index()] = true;
                }
                map[lpn.index()] = data;
            }
            Event::Record(RecordKind::Trim { lpn }) => map[lpn.index()] = NO_DATA,
            Event::Record(RecordKind::Map { lpn, data }) => map[lpn.index()] = data,
            Event::Record(RecordKind::Remap { src, dst }) => {
                map[dst.index()] = map[src.index()];
                map[src.index()] = NO_DATA;
            }
            Event::Record(RecordKind::Clone { src, dst }) => {
                map[dst.index()] = map[src.index()];
            }
        }
    }
}
