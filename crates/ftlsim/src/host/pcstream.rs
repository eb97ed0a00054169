//! PCStream (Kim et al., FAST'19): streams by program context. A write's
//! context tag is its PC (the call path that issued it). The layer learns
//! each PC's data lifetime and groups PCs of similar lifetime onto the
//! device's streams:
//!
//! * The **live-LBA table**, one entry per `lba_granularity_bytes` (1 MiB)
//!   of the address space: when the chunk was written and by which PC.
//!   A write into the part of a chunk written already (or a trim) ends the
//!   chunk's data: its lifetime (now − write time) is charged to the PC
//!   that wrote it, and the chunk starts over with the new write. A write
//!   past that part extends it (an append, not a death).
//! * The **PC attribute table**: per PC the running mean of its observed
//!   lifetimes and its stream, `pc_table_bytes` large at 12 bytes per entry
//!   (least recently used PCs are evicted). `persistent = false` models a
//!   table that lives in the process: when a process ends (a flush request
//!   tagged [`PROCESS_EXIT`] | program) its program's PCs are forgotten,
//!   and deaths of data its earlier runs wrote are not charged to anyone.
//! * **k-means** on log2 lifetime with `k` groups (default `streams − 1`):
//!   the group of the shortest lifetimes goes to stream 1, the longest to
//!   stream k; PCs not yet learned (and untagged writes) go to stream 0.
//!   It runs again once 10 % of the table's entries changed (a new PC, or
//!   a mean that moved by more than a factor √2 since the last run).
//!
//! Time is logical: pages written through the layer.
//!
//! A PC is `program << 32 | site` ([`pc`]); the application models
//! (`app/pcapps`) tag their writes that way, with bits 24–31 left to the
//! `manual` layer ([`PC_MASK`]).

use std::collections::HashMap;

use super::kmeans;
use super::layer::{pass_down, HostLayer};
use super::pc_table::{PcHash, PcTable};
use super::LowerSpace;
pub use crate::config::host::pcstream::PcStreamConfig;
use crate::error::SimError;
use crate::metrics::{AssignerStats, LayerStats};
use crate::request::{BlockDevice, Completion, Op, Request};

/// Bytes per PC attribute table entry (PCStream's figure).
pub const PC_ENTRY_BYTES: u64 = 12;

/// A flush tagged `PROCESS_EXIT | program << 32` says a process of `program` ended.
pub const PROCESS_EXIT: u64 = 1 << 63;

/// Bits 24–31 of a tag carry what a developer would say by hand (the
/// `manual` layer maps whole tags); PCStream sees only program and site.
pub const MANUAL_SHIFT: u32 = 24;

/// The part of a context tag that is the PC.
pub const PC_MASK: u64 = !(PROCESS_EXIT | 0xff << MANUAL_SHIFT);

/// The PC tag of call site `site` in program `program`.
pub const fn pc(program: u32, site: u32) -> u64 {
    (program as u64) << 32 | site as u64
}

fn program_of(pc: u64) -> u32 {
    ((pc & PC_MASK) >> 32) as u32
}

impl PcStreamConfig {
    fn groups(&self, streams: u16) -> u16 {
        self.k.unwrap_or(streams.saturating_sub(1)).max(1)
    }
}

/// A live-LBA table entry: the data a chunk holds since its last death.
#[derive(Debug, Clone, Copy, Default)]
struct LiveChunk {
    /// The PC that wrote it (0: nothing live, or untagged).
    pc: u64,
    /// When (pages written through the layer).
    written_at: u64,
    /// The program's run that wrote it (see `persistent`).
    epoch: u32,
    /// Pages from the chunk's start written since (appends extend it).
    extent: u32,
}

#[derive(Debug, Clone, Copy)]
struct PcEntry {
    mean_lifetime: f64,
    samples: u64,
    /// 0 until the first k-means run that saw it.
    stream: u16,
    /// log2 of the mean at the last k-means run (NaN: not in one yet).
    clustered_log: f64,
    changed: bool,
}

/// The layer.
pub struct PcStream {
    chunk_pages: u64,
    chunks: Vec<LiveChunk>,
    persistent: bool,
    groups: usize,
    recluster_fraction: f64,
    /// The attribute table: a hash index over an LRU-ordered slab.
    table: PcTable<PcEntry>,
    changed: usize,
    /// Each program's current run (bumped when one of its processes ends;
    /// only a table that is not persistent keeps any).
    epochs: HashMap<u32, u32, PcHash>,
    now: u64,
    stats: LayerStats,
    assigner: AssignerStats,
    scratch: Request,
}

impl PcStream {
    pub fn new(config: &PcStreamConfig, below: &LowerSpace) -> Self {
        let chunk_pages = (config.lba_granularity_bytes / u64::from(below.page_bytes)).max(1);
        let chunks = below.pages.div_ceil(chunk_pages) as usize;
        let state_bytes =
            (chunks * std::mem::size_of::<LiveChunk>()) as u64 + config.pc_table_bytes;
        Self {
            chunk_pages,
            chunks: vec![LiveChunk::default(); chunks],
            persistent: config.persistent,
            groups: usize::from(config.groups(below.streams)),
            recluster_fraction: config.recluster_fraction,
            table: PcTable::new((config.pc_table_bytes / PC_ENTRY_BYTES) as usize),
            changed: 0,
            epochs: HashMap::default(),
            now: 0,
            stats: LayerStats {
                name: "pcstream".to_string(),
                ..LayerStats::default()
            },
            assigner: AssignerStats::with_state(state_bytes, below.pages),
            scratch: Request::default(),
        }
    }

    fn epoch(&self, pc: u64) -> u32 {
        if self.epochs.is_empty() {
            return 0;
        }
        self.epochs.get(&program_of(pc)).copied().unwrap_or(0)
    }

    /// The stream of a write by `pc` (0 when the table does not know it).
    fn lookup(&mut self, pc: u64) -> u16 {
        if pc == 0 {
            return 0;
        }
        match self.table.get_touch(pc) {
            Some(e) => e.stream,
            None => {
                self.assigner.pc_table_misses += 1;
                0
            }
        }
    }

    /// Data `pc` wrote died after `lifetime` pages written.
    fn observe(&mut self, pc: u64, lifetime: u64) {
        if self.table.capacity() == 0 {
            return;
        }
        let (e, evicted) = self.table.get_or_insert(
            pc,
            PcEntry {
                mean_lifetime: 0.0,
                samples: 0,
                stream: 0,
                clustered_log: f64::NAN,
                changed: false,
            },
        );
        e.samples += 1;
        e.mean_lifetime += (lifetime.max(1) as f64 - e.mean_lifetime) / e.samples as f64;
        let moved =
            e.clustered_log.is_nan() || (e.mean_lifetime.log2() - e.clustered_log).abs() > 0.5;
        let newly_changed = moved && !e.changed;
        if newly_changed {
            e.changed = true;
        }
        if let Some(old) = evicted {
            self.changed -= usize::from(old.changed);
        }
        self.changed += usize::from(newly_changed);
        if self.changed as f64 >= self.recluster_fraction * self.table.len() as f64 {
            self.recluster();
        }
    }

    /// k-means over the learned PCs; streams 1..=k by rising lifetime.
    /// (Lloyd's groups depend only on the values, not on their order.)
    fn recluster(&mut self) {
        let logs: Vec<f64> = self
            .table
            .values()
            .map(|e| e.mean_lifetime.log2())
            .collect();
        let groups = kmeans::cluster(&logs, self.groups);
        for ((e, &g), &log) in self.table.values_mut().zip(&groups).zip(&logs) {
            let stream = g as u16 + 1;
            if e.stream != 0 && e.stream != stream {
                self.assigner.pcs_moved += 1;
            }
            e.stream = stream;
            e.clustered_log = log;
            e.changed = false;
        }
        self.changed = 0;
        self.assigner.reclusterings += 1;
    }

    /// The chunk at `i` dies now (overwrite or trim): charge its PC.
    fn chunk_dies(&mut self, i: usize) {
        let c = self.chunks[i];
        if c.pc != 0 && (self.persistent || c.epoch == self.epoch(c.pc)) {
            self.observe(c.pc, self.now - c.written_at);
        }
        self.chunks[i] = LiveChunk::default();
    }

    /// Updates the live-LBA table for a write of `pages` at `lpn` by `pc`.
    fn record_write(&mut self, lpn: u64, pages: u64, pc: u64) {
        let end = lpn + pages;
        let mut at = lpn;
        while at < end {
            let i = ((at / self.chunk_pages) as usize).min(self.chunks.len() - 1);
            let chunk_start = i as u64 * self.chunk_pages;
            let chunk_end = (chunk_start + self.chunk_pages).min(end).max(at + 1);
            let (from, to) = ((at - chunk_start) as u32, (chunk_end - chunk_start) as u32);
            let c = self.chunks[i];
            if c.extent > 0 && from < c.extent {
                self.chunk_dies(i);
            }
            let epoch = self.epoch(pc);
            let c = &mut self.chunks[i];
            if c.extent == 0 {
                *c = LiveChunk {
                    pc,
                    written_at: self.now,
                    epoch,
                    extent: to,
                };
            } else {
                c.extent = c.extent.max(to);
            }
            at = chunk_end;
        }
    }

    fn record_trim(&mut self, lpn: u64, pages: u64) {
        let last = lpn + pages.max(1) - 1;
        let (first, last) = (lpn / self.chunk_pages, last / self.chunk_pages);
        for i in first..=last.min(self.chunks.len() as u64 - 1) {
            if self.chunks[i as usize].extent > 0 {
                self.chunk_dies(i as usize);
            }
        }
    }

    /// A process of `program` ended: a non-persistent table forgets it.
    fn process_exit(&mut self, program: u32) {
        if self.persistent {
            return;
        }
        *self.epochs.entry(program).or_insert(0) += 1;
        for e in self.table.remove_where(|pc| program_of(pc) == program) {
            self.changed -= usize::from(e.changed);
        }
    }
}

impl HostLayer for PcStream {
    fn keeps_addresses(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "pcstream"
    }

    fn submit(
        &mut self,
        req: &Request,
        below: &mut dyn BlockDevice,
    ) -> Result<Completion, SimError> {
        let pages = u64::from(req.pages);
        match req.op {
            Op::Write => {
                let pc = req.context & PC_MASK;
                let stream = self.lookup(pc);
                self.record_write(req.lpn, pages, pc);
                self.now += pages;
                if stream == 0 {
                    self.assigner.stream0_write_pages += pages;
                }
                pass_down(&mut self.stats, &mut self.scratch, req, stream, below)
            }
            Op::Trim => {
                self.record_trim(req.lpn, pages);
                pass_down(&mut self.stats, &mut self.scratch, req, 0, below)
            }
            Op::Flush if req.context & PROCESS_EXIT != 0 => {
                self.process_exit(program_of(req.context));
                pass_down(&mut self.stats, &mut self.scratch, req, 0, below)
            }
            _ => pass_down(&mut self.stats, &mut self.scratch, req, 0, below),
        }
    }

    fn stats(&self) -> LayerStats {
        LayerStats {
            assigner: Some(AssignerStats {
                pc_table_entries: self.table.len() as u64,
                ..self.assigner
            }),
            ..self.stats.clone()
        }
        .with_wa()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space(streams: u16) -> LowerSpace {
        LowerSpace {
            pages: 4096,
            streams,
            page_bytes: 4096,
            zone_pages: None,
            max_open_zones: 0,
            seed: 1,
        }
    }

    fn layer(config: &PcStreamConfig) -> PcStream {
        PcStream::new(config, &space(3))
    }

    const SMALL: PcStreamConfig = PcStreamConfig {
        lba_granularity_bytes: 4096,
        pc_table_bytes: 120,
        persistent: true,
        k: None,
        recluster_fraction: 0.10,
    };

    /// Per round PC 1 rewrites pages 0..8 eight times, PC 2 pages 100..164
    /// once: PC 1's data lives 8 or 72 pages (mean 16), PC 2's 128.
    fn drive(p: &mut PcStream, rounds: u64) {
        for _ in 0..rounds {
            for _ in 0..8 {
                for lpn in 0..8 {
                    p.lookup(pc(1, 1));
                    p.record_write(lpn, 1, pc(1, 1));
                    p.now += 1;
                }
            }
            for lpn in 100..164 {
                p.lookup(pc(1, 2));
                p.record_write(lpn, 1, pc(1, 2));
                p.now += 1;
            }
        }
    }

    #[test]
    fn short_and_long_lived_pcs_get_streams_in_lifetime_order() {
        let mut p = layer(&SMALL);
        assert_eq!(p.lookup(pc(1, 1)), 0, "unknown PC: stream 0");
        drive(&mut p, 4);
        assert_eq!(p.lookup(pc(1, 1)), 1);
        assert_eq!(p.lookup(pc(1, 2)), 2);
        assert!(p.assigner.reclusterings > 0);
        assert_eq!(p.assigner.pcs_moved, 0);
        let (short, long) = (
            p.table.get(pc(1, 1)).unwrap(),
            p.table.get(pc(1, 2)).unwrap(),
        );
        assert!(
            (long.mean_lifetime - 128.0).abs() < 1e-9,
            "{}",
            long.mean_lifetime
        );
        assert!(short.mean_lifetime < 20.0, "{}", short.mean_lifetime);
    }

    #[test]
    fn appends_within_a_chunk_are_not_deaths() {
        let mut p = layer(&PcStreamConfig {
            lba_granularity_bytes: 64 * 4096,
            ..SMALL
        });
        for lpn in 0..64 {
            p.record_write(lpn, 1, pc(1, 1));
            p.now += 1;
        }
        assert!(p.table.is_empty(), "an append is not a death");
        p.record_write(0, 1, pc(1, 1));
        assert_eq!(p.table.get(pc(1, 1)).unwrap().samples, 1);
    }

    #[test]
    fn table_capacity_and_persistence() {
        // No table: nothing is learned, every write goes to stream 0.
        let mut none = layer(&PcStreamConfig {
            pc_table_bytes: 0,
            ..SMALL
        });
        drive(&mut none, 4);
        assert_eq!(none.lookup(pc(1, 1)), 0);
        // Room for one entry: the most recently used PC stays.
        let mut one = layer(&PcStreamConfig {
            pc_table_bytes: 12,
            ..SMALL
        });
        drive(&mut one, 4);
        assert_eq!(one.table.len(), 1);
        // Not persistent: a process's end forgets its program's PCs,
        // and deaths of data its runs wrote before are charged to nobody.
        let mut transient = layer(&PcStreamConfig {
            persistent: false,
            ..SMALL
        });
        drive(&mut transient, 4);
        transient.process_exit(1);
        assert!(transient.table.is_empty());
        transient.record_write(0, 1, pc(1, 1));
        assert!(transient.table.is_empty());
        let mut kept = layer(&SMALL);
        drive(&mut kept, 4);
        kept.process_exit(1);
        assert_eq!(kept.table.len(), 2);
    }

    #[test]
    fn k_must_leave_stream_zero() {
        let c = PcStreamConfig {
            k: Some(3),
            ..PcStreamConfig::default()
        };
        let e = c
            .validate("host.layers[0]", &space(3))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("host.layers[0].k") && e.contains("ftl.streams = 3"),
            "{e}"
        );
        assert!(c.validate("k", &space(4)).is_ok());
    }
}
