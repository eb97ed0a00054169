//! PC-tagged application models: synthetic, deterministic stand-ins for the
//! applications of PCStream's evaluation (`rocksdb`, `sqlite`, `gcc`,
//! `cassandra`, and `mix` of them running side by side). Each model keeps
//! files as extents of its own region of the address space (a first-in,
//! first-out free list of equal extents: a file deleted now is the last
//! place reused) and turns its activity into requests: file writes, trims
//! of deleted files, and the ends of short-lived processes. Every write
//! carries its program context (see [`tag`]).
//!
//! The models are sources, not users of a device: they do not read, so
//! they keep no data, only which extents hold which file. (`app/lsm` is a
//! real engine on a `BlockDevice`; these only need the write pattern.)
//!
//! Each model's file documents its parameters and the lifetimes they give.

mod cassandra;
mod gcc;
mod rocksdb;
mod sqlite;

use std::collections::VecDeque;

use crate::config::{Config, WorkloadType};
use crate::error::SimError;
use crate::host::pcstream::{MANUAL_SHIFT, PROCESS_EXIT};
use crate::request::{Op, Request, RequestSource};

/// Pages per write request of a bulk file write (128 KiB of 4 KiB pages).
const BULK_PAGES: u64 = 32;

/// A write's context tag: the program, its call site (the two PCStream
/// sees: see `host::pcstream`), and the stream a developer who knows the
/// application would give it by hand (ManualStream; bits 24–31, which
/// PCStream ignores).
pub const fn tag(program: u32, site: u32, manual: u8) -> u64 {
    (program as u64) << 32 | (manual as u64) << MANUAL_SHIFT | site as u64
}

/// One request of a model.
#[derive(Debug, Clone, Copy)]
struct Io {
    op: Op,
    lpn: u64,
    pages: u32,
    context: u64,
}

/// What models emit into.
#[derive(Debug, Default)]
pub(crate) struct Emit {
    queue: VecDeque<Io>,
    write_pages: u64,
}

impl Emit {
    /// Writes pages `lpn..lpn + pages` in requests of at most `per_request`.
    fn write(&mut self, lpn: u64, pages: u64, context: u64, per_request: u64) {
        let mut at = lpn;
        while at < lpn + pages {
            let n = per_request.min(lpn + pages - at);
            self.queue.push_back(Io {
                op: Op::Write,
                lpn: at,
                pages: n as u32,
                context,
            });
            at += n;
        }
        self.write_pages += pages;
    }

    fn trim(&mut self, lpn: u64, pages: u64) {
        self.queue.push_back(Io {
            op: Op::Trim,
            lpn,
            pages: pages as u32,
            context: 0,
        });
    }

    /// A process of `program` ended (PCStream's non-persistent table forgets it).
    fn exit(&mut self, program: u32) {
        self.queue.push_back(Io {
            op: Op::Flush,
            lpn: 0,
            pages: 0,
            context: PROCESS_EXIT | u64::from(program) << 32,
        });
    }
}

/// A region of the address space cut into equal extents, reused first in,
/// first out.
#[derive(Debug, Clone)]
struct Extents {
    extent_pages: u64,
    free: VecDeque<u64>,
}

impl Extents {
    fn new(base: u64, region_pages: u64, extent_pages: u64) -> Self {
        let n = region_pages / extent_pages;
        Self {
            extent_pages,
            free: (0..n).map(|i| base + i * extent_pages).collect(),
        }
    }

    /// The first page of a free extent (the one freed longest ago).
    fn take(&mut self) -> u64 {
        self.free
            .pop_front()
            .expect("the model's footprint fits its region (sized in its constructor)")
    }

    /// Frees an extent: trims it and queues it for reuse.
    fn give_back(&mut self, lpn: u64, emit: &mut Emit) {
        emit.trim(lpn, self.extent_pages);
        self.free.push_back(lpn);
    }
}

/// A file of whole extents.
#[derive(Debug, Clone, Default)]
struct File {
    extents: Vec<u64>,
}

impl File {
    /// A new file of `extents` extents, written at `context`.
    fn write(
        space: &mut Extents,
        extents: u64,
        context: u64,
        per_request: u64,
        emit: &mut Emit,
    ) -> File {
        let extents: Vec<u64> = (0..extents).map(|_| space.take()).collect();
        for &e in &extents {
            emit.write(e, space.extent_pages, context, per_request);
        }
        File { extents }
    }

    fn delete(self, space: &mut Extents, emit: &mut Emit) {
        for e in self.extents {
            space.give_back(e, emit);
        }
    }
}

/// One application: emits its next burst of activity.
trait Model: Send {
    fn step(&mut self, emit: &mut Emit);
}

/// The models of a config, each over its share of the workload's span.
fn models(cfg: &Config) -> Vec<Box<dyn Model>> {
    let kinds: Vec<WorkloadType> = match cfg.workload.kind {
        WorkloadType::Mix => cfg.workload.mix.clone(),
        kind => vec![kind],
    };
    let span = cfg.span_pages();
    let share = span / kinds.len() as u64;
    let seed = cfg.workload.seed;
    kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| {
            let base = i as u64 * share;
            let seed = seed ^ (i as u64) << 48;
            let model: Box<dyn Model> = match kind {
                WorkloadType::Rocksdb => Box::new(rocksdb::Rocksdb::new(base, share, seed)),
                WorkloadType::Sqlite => Box::new(sqlite::Sqlite::new(base, share, seed)),
                WorkloadType::Gcc => Box::new(gcc::Gcc::new(base, share, seed)),
                WorkloadType::Cassandra => Box::new(cassandra::Cassandra::new(base, share, seed)),
                other => unreachable!("validated: {other:?} is not an application model"),
            };
            model
        })
        .collect()
}

/// The smallest span (pages) an application model runs in.
pub const MIN_REGION_PAGES: u64 = 4096;

/// The workload's application models as a request source: the model that
/// has written least so far takes the next turn, so that models of a mix
/// write about equal volumes.
pub struct AppSource {
    models: Vec<Box<dyn Model>>,
    written: Vec<u64>,
    emit: Emit,
}

impl AppSource {
    pub fn new(cfg: &Config) -> Self {
        let models = models(cfg);
        Self {
            written: vec![0; models.len()],
            models,
            emit: Emit::default(),
        }
    }
}

impl RequestSource for AppSource {
    fn next_request(&mut self, out: &mut Request) -> Result<bool, SimError> {
        while self.emit.queue.is_empty() {
            let (i, _) = self
                .written
                .iter()
                .enumerate()
                .min_by_key(|&(i, &w)| (w, i))
                .expect("at least one model");
            let before = self.emit.write_pages;
            self.models[i].step(&mut self.emit);
            // A step that writes nothing still counts, so turns move on.
            self.written[i] += (self.emit.write_pages - before).max(1);
        }
        let io = self.emit.queue.pop_front().expect("not empty");
        out.set(io.op, io.lpn, io.pages);
        out.context = io.context;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::pcstream::PC_MASK;
    use std::collections::{BTreeMap, BTreeSet};

    fn cfg(kind: WorkloadType, mix: Vec<WorkloadType>) -> Config {
        let mut c = Config::default();
        c.device.blocks = 512;
        c.device.pages_per_block = 64;
        c.workload.kind = kind;
        c.workload.mix = mix;
        c.validate().unwrap();
        c
    }

    /// Runs a source for `n` requests: pages written per PC, and checks
    /// that every request stays in the span and trims cover written pages.
    fn drive(c: &Config, n: usize) -> BTreeMap<u64, u64> {
        let mut s = AppSource::new(c);
        let mut req = Request::default();
        let mut per_pc = BTreeMap::new();
        let mut live = BTreeSet::new();
        for _ in 0..n {
            assert!(s.next_request(&mut req).unwrap());
            assert!(req.lpn + u64::from(req.pages) <= c.span_pages(), "{req:?}");
            match req.op {
                Op::Write => {
                    *per_pc.entry(req.context & PC_MASK).or_insert(0) += u64::from(req.pages);
                    live.extend(req.lpns());
                }
                Op::Trim => {
                    // Files are written from their extent's start; a trim
                    // frees the whole extent.
                    assert!(
                        live.contains(&req.lpn),
                        "trim of a file not written: {req:?}"
                    );
                    for lpn in req.lpns() {
                        live.remove(&lpn);
                    }
                }
                _ => {}
            }
        }
        per_pc
    }

    #[test]
    fn each_model_runs_deterministically_within_its_region() {
        for kind in [
            WorkloadType::Rocksdb,
            WorkloadType::Sqlite,
            WorkloadType::Gcc,
            WorkloadType::Cassandra,
        ] {
            let c = cfg(kind, vec![]);
            let a = drive(&c, 20_000);
            assert!(a.len() >= 2, "{kind:?}: PCs {a:?}");
            assert_eq!(a, drive(&c, 20_000), "{kind:?} is deterministic");
        }
        let c = cfg(
            WorkloadType::Mix,
            vec![WorkloadType::Rocksdb, WorkloadType::Gcc],
        );
        let pcs = drive(&c, 40_000);
        let programs: BTreeSet<u64> = pcs.keys().map(|pc| pc >> 32).collect();
        assert!(
            programs.contains(&1) && programs.contains(&3),
            "{programs:?}"
        );
    }
}
