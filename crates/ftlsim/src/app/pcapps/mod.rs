//! PC-tagged application models: synthetic, deterministic stand-ins for the
//! applications of PCStream's evaluation (`rocksdb`, `sqlite`, `gcc`,
//! `cassandra`, and `mix` of them running side by side). Each model keeps
//! files as extents of its own region of the address space (a free list of
//! equal extents: first in, first out, so that a file deleted now is the
//! last place reused; or, for `rocksdb`, scattered as ext4's allocator
//! reuses freed space: see [`Extents::scattered`]) and turns its activity
//! into requests: file writes, trims of deleted files, and the ends of
//! short-lived processes. Every write carries its program context (see
//! [`tag`]).
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

use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::config::WorkloadType;
pub use crate::config::MIN_REGION_PAGES;
use crate::error::SimError;
use crate::host::pcstream::{MANUAL_SHIFT, PROCESS_EXIT};
use crate::plan::WorkloadPlan;
use crate::request::{Op, Request, RequestSource};

/// Pages per write request of a bulk file write (128 KiB of 4 KiB pages).
const BULK_PAGES: u64 = 32;

/// The longest run of one file's pages that reaches the device without
/// another thread's writes in between, for models that write files back
/// whole ([`Emit::write_run`]): 4 MiB of 4 KiB pages, Linux's per-inode
/// writeback chunk (`MAX_WRITEBACK_PAGES`).
const WRITEBACK_RUN_PAGES: u64 = 1024;

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
    /// Goes to the device right after the thread's previous request, with
    /// no other thread's in between (the rest of a writeback run).
    joined: bool,
}

/// What models emit into. A model's activity runs in threads (a WAL writer
/// beside a compaction, parallel compiler jobs): each thread's requests
/// stay in order, and at the end of a batch ([`Emit::merge`]) the threads
/// are interleaved in proportion to the pages they write, so that they
/// progress together as concurrent threads do and their writes share blocks.
#[derive(Debug, Default)]
pub(crate) struct Emit {
    queue: VecDeque<Io>,
    threads: Vec<Vec<Io>>,
    current: usize,
    /// Batches merged so far.
    batch: u64,
    write_pages: u64,
}

impl Emit {
    /// Requests from now on belong to thread `t` (until the next `on`).
    fn on(&mut self, t: usize) {
        self.current = t;
    }

    fn push(&mut self, thread: usize, io: Io) {
        if self.threads.len() <= thread {
            self.threads.resize_with(thread + 1, Vec::new);
        }
        self.threads[thread].push(io);
    }

    /// Writes pages `lpn..lpn + pages` in requests of at most `per_request`;
    /// other threads' requests may come between any two of them.
    fn write(&mut self, lpn: u64, pages: u64, context: u64, per_request: u64) {
        self.write_run(lpn, pages, context, per_request, 0);
    }

    /// Like [`Emit::write`], but the requests reach the device in runs of
    /// up to `run_pages` pages that no other thread's request interrupts
    /// (page-cache writeback sends a file's dirty pages together).
    fn write_run(&mut self, lpn: u64, pages: u64, context: u64, per_request: u64, run_pages: u64) {
        let mut at = lpn;
        let mut in_run = 0;
        while at < lpn + pages {
            let n = per_request.min(lpn + pages - at);
            let joined = in_run > 0 && in_run + n <= run_pages;
            in_run = if joined { in_run + n } else { n };
            let io = Io {
                op: Op::Write,
                lpn: at,
                pages: n as u32,
                context,
                joined,
            };
            self.push(self.current, io);
            at += n;
        }
        self.write_pages += pages;
    }

    fn trim(&mut self, thread: usize, lpn: u64, pages: u64) {
        let io = Io {
            op: Op::Trim,
            lpn,
            pages: pages as u32,
            context: 0,
            joined: false,
        };
        self.push(thread, io);
    }

    /// A process of `program` ended (PCStream's non-persistent table forgets it).
    fn exit(&mut self, program: u32) {
        let io = Io {
            op: Op::Flush,
            lpn: 0,
            pages: 0,
            context: PROCESS_EXIT | u64::from(program) << 32,
            joined: false,
        };
        self.push(self.current, io);
    }

    /// Ends a batch: interleaves the threads into the queue, each advancing
    /// in proportion to its write pages (ties: the lower thread first); a
    /// thread's joined requests follow its previous one directly.
    fn merge(&mut self) {
        let threads = std::mem::take(&mut self.threads);
        let totals: Vec<u64> = threads
            .iter()
            .map(|t| {
                t.iter()
                    .filter(|io| io.op == Op::Write)
                    .map(|io| u64::from(io.pages))
                    .sum::<u64>()
                    .max(1)
            })
            .collect();
        let mut next = vec![0usize; threads.len()];
        let mut done = vec![0u64; threads.len()];
        loop {
            // The thread least far along (done / total), compared exactly.
            let pick = (0..threads.len())
                .filter(|&t| next[t] < threads[t].len())
                .min_by(|&a, &b| {
                    (u128::from(done[a]) * u128::from(totals[b]))
                        .cmp(&(u128::from(done[b]) * u128::from(totals[a])))
                        .then(a.cmp(&b))
                });
            let Some(t) = pick else { break };
            loop {
                let io = threads[t][next[t]];
                next[t] += 1;
                if io.op == Op::Write {
                    done[t] += u64::from(io.pages);
                }
                self.queue.push_back(io);
                if !threads[t].get(next[t]).is_some_and(|io| io.joined) {
                    break;
                }
            }
        }
        self.current = 0;
        self.batch += 1;
    }
}

/// A region of the address space cut into equal extents, reused first in,
/// first out, or scattered. An extent freed in a batch is reused only after
/// the batch ([`Extents::settle`]), so its trim always precedes its next write.
#[derive(Debug, Clone)]
struct Extents {
    extent_pages: u64,
    free: VecDeque<u64>,
    pending: Vec<u64>,
    /// Picks the free extent to reuse; `None`: the one freed longest ago.
    scatter: Option<Xoshiro256PlusPlus>,
}

impl Extents {
    fn new(base: u64, region_pages: u64, extent_pages: u64) -> Self {
        let n = region_pages / extent_pages;
        Self {
            extent_pages,
            free: (0..n).map(|i| base + i * extent_pages).collect(),
            pending: Vec::new(),
            scatter: None,
        }
    }

    /// Extents reused in an order unrelated to when they were freed, as
    /// ext4's allocator reuses space: it looks for free space near a goal
    /// (the inode's group, a per-process offset, the file's last block),
    /// not for the space freed longest ago. In a capture of RocksDB on ext4
    /// (docs/pcstream.md) 5 of 89 files written into freed space took the
    /// extent freed longest ago; the others' choice spread over all the
    /// free extents by age and by address alike. A seeded uniform pick
    /// among the free extents stands for that.
    fn scattered(base: u64, region_pages: u64, extent_pages: u64, rng: Xoshiro256PlusPlus) -> Self {
        Self {
            scatter: Some(rng),
            ..Self::new(base, region_pages, extent_pages)
        }
    }

    /// The first page of a free extent.
    fn take(&mut self) -> u64 {
        let at = match &mut self.scatter {
            None => self.free.pop_front(),
            Some(rng) if !self.free.is_empty() => {
                let i = rng.random_range(0..self.free.len());
                self.free.swap_remove_back(i)
            }
            Some(_) => None,
        };
        at.expect("the model's footprint fits its region (sized in its constructor)")
    }

    /// Ends a batch: extents freed in it become free for reuse.
    fn settle(&mut self) {
        self.free.extend(self.pending.drain(..));
    }
}

/// A file of whole extents, and the thread and batch that wrote it.
#[derive(Debug, Clone, Default)]
struct File {
    extents: Vec<u64>,
    thread: usize,
    batch: u64,
}

impl File {
    /// A new file of `extents` extents, written at `context` by the current
    /// thread, in runs of up to `run_pages` pages ([`Emit::write_run`]; 0:
    /// request by request).
    fn write(
        space: &mut Extents,
        extents: u64,
        context: u64,
        per_request: u64,
        run_pages: u64,
        emit: &mut Emit,
    ) -> File {
        let extents: Vec<u64> = (0..extents).map(|_| space.take()).collect();
        for &e in &extents {
            emit.write_run(e, space.extent_pages, context, per_request, run_pages);
        }
        File {
            extents,
            thread: emit.current,
            batch: emit.batch,
        }
    }

    /// Deletes the file: trims its extents, which are free after the batch.
    /// A file written in this batch is trimmed after its writes, in the
    /// thread that wrote it.
    fn delete(self, space: &mut Extents, emit: &mut Emit) {
        let thread = if self.batch == emit.batch {
            self.thread
        } else {
            emit.current
        };
        for e in self.extents {
            emit.trim(thread, e, space.extent_pages);
            space.pending.push(e);
        }
    }
}

/// One application: emits its next burst of activity (one batch or more:
/// a model that ends a batch itself calls `Emit::merge` and `Extents::settle`;
/// the source merges after each step, and the model settles at its next).
trait Model: Send {
    fn step(&mut self, emit: &mut Emit);
}

/// The models of a workload, each over its share of the workload's span.
fn models(plan: &WorkloadPlan) -> Vec<Box<dyn Model>> {
    let w = &plan.section;
    let kinds: Vec<WorkloadType> = match w.kind {
        WorkloadType::Mix => w.mix.clone(),
        kind => vec![kind],
    };
    let share = plan.span_pages / kinds.len() as u64;
    let seed = w.seed;
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

/// The workload's application models as a request source: the model that
/// has written least so far takes the next turn, so that models of a mix
/// write about equal volumes.
pub struct AppSource {
    models: Vec<Box<dyn Model>>,
    written: Vec<u64>,
    emit: Emit,
}

impl AppSource {
    /// The application models of the workload's part of the plan.
    pub fn new(plan: &WorkloadPlan) -> Self {
        let models = models(plan);
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
            self.emit.merge();
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
    use crate::config::Config;
    use crate::host::pcstream::PC_MASK;
    use crate::plan::Plan;
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
        let mut s = AppSource::new(&Plan::from_config(c).unwrap().workload);
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
    fn a_writeback_run_is_not_interrupted_by_other_threads() {
        let mut emit = Emit::default();
        emit.on(0);
        emit.write_run(0, 100, 1, 10, 40);
        emit.on(1);
        emit.write(1000, 100, 2, 10);
        emit.merge();
        let order: Vec<u64> = emit.queue.iter().map(|io| io.context).collect();
        // Thread 0's 10 requests come in runs of 4, 4 and 2 (40 pages at
        // most); thread 1's are interleaved one at a time between them.
        let runs: Vec<usize> = order
            .chunk_by(|a, b| a == b)
            .filter(|r| r[0] == 1)
            .map(<[u64]>::len)
            .collect();
        assert_eq!(runs, [4, 4, 2], "{order:?}");
        assert_eq!(order.len(), 20);
        let lpns: Vec<u64> = emit
            .queue
            .iter()
            .filter(|io| io.context == 1)
            .map(|io| io.lpn)
            .collect();
        assert_eq!(lpns, (0..10).map(|i| i * 10).collect::<Vec<_>>());
    }

    #[test]
    fn scattered_extents_are_reused_in_a_seeded_order_and_never_twice() {
        let take_all = |seed: u64| {
            let mut e = Extents::scattered(100, 640, 64, crate::rng::stream(seed, "t"));
            let first: Vec<u64> = (0..10).map(|_| e.take()).collect();
            // Free them all again: the next ten come in another order.
            e.pending.extend(&first);
            e.settle();
            let second: Vec<u64> = (0..10).map(|_| e.take()).collect();
            (first, second)
        };
        let (first, second) = take_all(7);
        let mut sorted = first.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).map(|i| 100 + i * 64).collect::<Vec<_>>());
        assert_ne!(first, second, "the order does not follow the free order");
        assert_eq!(take_all(7), (first, second), "deterministic");
        // First in, first out without scatter.
        let mut fifo = Extents::new(0, 640, 64);
        let a = fifo.take();
        fifo.pending.push(a);
        fifo.settle();
        let order: Vec<u64> = (0..10).map(|_| fifo.take()).collect();
        assert_eq!(order[9], 0, "the extent freed last is reused last");
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
