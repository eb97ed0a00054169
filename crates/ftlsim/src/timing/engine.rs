//! The resources and their timetables: one per LUN, one per channel.
//!
//! Where a page lives: an FTL block is a *superblock* striped page by page
//! over every LUN (FEMU's "line"), so physical page `ppn` lives on LUN
//! `ppn mod LUNs` and LUN `l` on channel `l mod channels`. Consecutive pages
//! of a frontier therefore go to consecutive channels, then LUNs, and a
//! sequential stream uses the whole drive. The rule is a pure function of the
//! PPN: the FTL, its allocation order and its WAF are the same with timing on
//! or off, and no table per page is needed. An erase of a block erases its
//! slice on every LUN the block spans, in parallel.
//!
//! How an operation uses the resources (docs/timing.md has the whole model):
//! * read: the LUN senses the page (tR) and is free again once the page is
//!   in its register; the channel moves it out as soon as it has a gap.
//! * program: the channel moves the page in once the data is ready and the
//!   LUN can take it (its current operation has started, freeing its cache
//!   register); the LUN programs it (tPROG) when its earlier work is done.
//! * erase: the LUN is busy for tBERS; the channel is not used.
//! * with `device.planes_per_lun` > 1, a program joins the LUN's pending
//!   program of the same offset on another plane (one tPROG for the group);
//!   with `timing.suspend`, a host read suspends a running program or erase.
//!
//! A LUN serves its operations in the order they are scheduled (first come,
//! first served). A channel is not reserved in that order: each transfer
//! takes the earliest gap after its data is ready (`channel.rs`), so a LUN
//! that is busy never holds its channel.

use crate::ftl::FlashOp;

use super::channel::Channel;
use super::queues::{LunRing, QueueSampler};
use super::TimingParams;

/// No multi-plane group: the LUN's last operation is not a program.
const NO_GROUP: u32 = u32::MAX;

/// `a mod d` by two multiplications (Lemire, Kaser and Kurz, "Faster
/// remainder by direct computation", 2019): exact for every 32-bit `a` and
/// `d`; a division would cost more than the rest of an operation's scheduling.
#[derive(Debug, Clone, Copy)]
struct FastMod {
    d: u32,
    m: u64,
}

impl FastMod {
    fn new(d: u32) -> Self {
        assert!(d > 0);
        Self {
            d,
            m: (u64::MAX / u64::from(d)).wrapping_add(1),
        }
    }

    #[inline(always)]
    fn rem(self, a: u32) -> u32 {
        let low = self.m.wrapping_mul(u64::from(a));
        ((u128::from(low) * u128::from(self.d)) >> 64) as u32
    }
}

/// Where pages and blocks live: page `ppn` on LUN `ppn mod LUNs`, a block
/// on the LUNs of its pages (superblock striping; see the module's doc).
#[derive(Debug, Clone, Copy)]
pub(super) struct Striping {
    lun_of: FastMod,
    luns: u32,
    pages_per_block: u32,
}

impl Striping {
    fn new(luns: u32, pages_per_block: u32) -> Self {
        Self {
            lun_of: FastMod::new(luns),
            luns,
            pages_per_block,
        }
    }

    #[inline(always)]
    pub(super) fn lun_of_page(self, ppn: u32) -> u32 {
        self.lun_of.rem(ppn)
    }

    /// The LUNs an erase of `block` keeps busy, in the order it takes them.
    pub(super) fn erase_luns(self, block: u32) -> impl Iterator<Item = u32> {
        let luns = self.luns;
        let first = u64::from(block) * u64::from(self.pages_per_block);
        let first_lun = (first % u64::from(luns)) as u32;
        let spanned = self.pages_per_block.min(luns);
        (0..spanned).map(move |i| (first_lun + i) % luns)
    }
}

/// One LUN's state that every operation reads or writes: next-free time,
/// busy time (host work and GC work), channel, and the ring of its
/// latest operations' ends for the queue-length sampler (`queues.rs`):
/// one index for all of it. The fields besides the ring fit one cache line;
/// the state only the optional features use is apart ([`LunFeatures`]).
#[derive(Debug, Clone, Default)]
#[repr(align(64))]
struct Lun {
    free_at: u64,
    /// When the last scheduled operation starts: from then its cache
    /// register is free to take the next program's page.
    accepts_at: u64,
    /// Busy time of host work (and time added by suspensions) and of GC
    /// work, indexed by the operation's `gc`: one add per operation where a
    /// total and a GC share took two and a select (issue 30).
    busy_ns: [u64; 2],
    channel: u32,
    ring: LunRing,
}

/// One LUN's state for program/erase suspend and multi-plane operations,
/// kept apart from [`Lun`]: with both off (the default) it is never
/// touched.
#[derive(Debug, Clone, Copy)]
struct LunFeatures {
    /// Whether the last scheduled operation is a program or an erase (a
    /// host read may suspend it), and when the reads let in during its
    /// current suspension end (program/erase suspend).
    suspendable: bool,
    reads_until: u64,
    /// Multi-plane: the group (same offset, one page per plane) of the last
    /// scheduled operation if it is a program (`NO_GROUP` otherwise), the
    /// pages it programs, when it starts and ends, and when the LUN could
    /// take pages for it (its predecessor's start).
    group: u32,
    /// Whether that group is a multi-plane read (else a program).
    group_read: bool,
    group_pages: u32,
    group_start: u64,
    group_end: u64,
    group_accepts_at: u64,
}

impl Default for LunFeatures {
    fn default() -> Self {
        Self {
            suspendable: false,
            reads_until: 0,
            group: NO_GROUP,
            group_read: false,
            group_pages: 0,
            group_start: 0,
            group_end: 0,
            group_accepts_at: 0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Engine {
    striping: Striping,
    read_ns: u64,
    program_ns: u64,
    erase_ns: u64,
    transfer_ns: u64,
    luns: Vec<Lun>,
    /// Per LUN: suspend and multi-plane state.
    features: Vec<LunFeatures>,
    channels: Vec<Channel>,
    /// When each GC read of the current batch has its data in the controller
    /// (a GC copy cannot be programmed before it was read).
    gc_read_done: Vec<u64>,
    /// LUN queue lengths, sampled as operations are scheduled (on the
    /// timer's thread, pipelined or not).
    queues: QueueSampler,
    /// Program/erase suspend: (suspend, resume) overheads when on.
    suspend_ns: Option<(u64, u64)>,
    /// Planes per LUN, and LUNs x planes: a page's multi-plane group is
    /// `ppn / group_pages` (its block and its offset within its plane).
    planes: u32,
    group_span: u32,
    /// Programs and erases suspended, and the time added to them after
    /// their requests' completions were computed.
    suspensions: u64,
    suspend_delay_ns: u64,
    /// Neither program/erase suspend nor multi-plane is on, and transfers
    /// take time: the run's operations go through `run_ops::<false>`,
    /// which leaves out the features' checks and bookkeeping and the test
    /// for a free channel. Fixed for the engine's life.
    plain: bool,
}

impl Engine {
    pub fn new(params: &TimingParams, pages_per_block: u32) -> Self {
        let luns = params.luns();
        assert!(
            luns > 0 && params.channels > 0,
            "validated: at least one LUN and one channel"
        );
        Self {
            striping: Striping::new(luns, pages_per_block),
            read_ns: params.read_ns,
            program_ns: params.program_ns,
            erase_ns: params.erase_ns,
            transfer_ns: params.transfer_ns,
            luns: (0..luns)
                .map(|l| Lun {
                    channel: l % params.channels,
                    ..Lun::default()
                })
                .collect(),
            features: vec![LunFeatures::default(); luns as usize],
            channels: vec![Channel::default(); params.channels as usize],
            gc_read_done: Vec::new(),
            queues: QueueSampler::new(luns),
            suspend_ns: params.suspend_ns,
            planes: params.planes_per_lun.max(1),
            group_span: luns * params.planes_per_lun.max(1),
            suspensions: 0,
            suspend_delay_ns: 0,
            plain: params.suspend_ns.is_none()
                && params.planes_per_lun <= 1
                && params.transfer_ns > 0,
        }
    }

    /// Back to an idle device at time 0 with no history.
    pub fn reset(&mut self) {
        for l in &mut self.luns {
            *l = Lun {
                channel: l.channel,
                ..Lun::default()
            };
        }
        self.features.fill(LunFeatures::default());
        for c in &mut self.channels {
            c.reset();
        }
        self.queues.reset();
        self.suspensions = 0;
        self.suspend_delay_ns = 0;
        self.gc_read_done.clear();
    }

    pub fn luns(&self) -> u32 {
        self.luns.len() as u32
    }

    pub fn channels(&self) -> u32 {
        self.channels.len() as u32
    }

    /// Superblock striping: page `ppn` lives on LUN `ppn mod LUNs`.
    #[inline]
    pub fn lun_of_page(&self, ppn: u32) -> u32 {
        self.striping.lun_of_page(ppn)
    }

    /// LUN `l` hangs on channel `l mod channels`.
    #[inline]
    pub fn channel_of_lun(&self, lun: u32) -> u32 {
        self.luns[lun as usize].channel
    }

    /// The time by which every resource has finished all scheduled work.
    pub fn idle_at(&self) -> u64 {
        let lun = self.luns.iter().map(|l| l.free_at).max().unwrap_or(0);
        let channel = self
            .channels
            .iter()
            .map(|c| c.free_at(self.transfer_ns))
            .max()
            .unwrap_or(0);
        lun.max(channel)
    }

    /// Time LUN `lun` has been busy, all work and GC work alone.
    pub fn lun_busy_ns(&self, lun: u32) -> (u64, u64) {
        let l = &self.luns[lun as usize];
        (l.busy_ns[0] + l.busy_ns[1], l.busy_ns[1])
    }

    /// Time channel `channel` has been busy.
    pub fn channel_busy_ns(&self, channel: u32) -> u64 {
        self.channels[channel as usize].transfers() * self.transfer_ns
    }

    /// Transfers channel `channel` carried, their total wait for it after
    /// their data was ready, the longest wait, and the time transfers were
    /// pushed back after their completion was reported.
    pub fn channel_waits(&self, channel: u32) -> (u64, u64, u64, u64) {
        let c = &self.channels[channel as usize];
        (
            c.transfers(),
            c.wait_ns(),
            c.max_wait_ns(),
            c.late_shift_ns(),
        )
    }

    /// How many operations each operation found at LUN `lun` (waiting or in
    /// service) when its request was issued: entry `n` counts those that found `n`,
    /// the last entry those that found `QUEUE_LENGTH_CAP` or more.
    pub fn lun_queue_counts(&self, lun: u32) -> &[u64] {
        self.queues.counts(lun)
    }

    /// Total LUN time, all work and GC work.
    pub fn lun_busy_totals(&self) -> (u64, u64) {
        self.luns.iter().fold((0, 0), |(b, g), l| {
            (b + l.busy_ns[0] + l.busy_ns[1], g + l.busy_ns[1])
        })
    }

    /// Runs `ops` (one request's flash work, in the FTL's order) on the
    /// resources, none starting before `ready_at`. Returns when the last of
    /// them finishes (`ready_at` when there are none). `ready_at` must not
    /// decrease from one call to the next (issue times do not).
    #[inline]
    pub fn schedule(&mut self, ops: &[FlashOp], ready_at: u64) -> u64 {
        self.schedule_at(ops, ready_at, ready_at)
    }

    /// [`Engine::schedule`] for work issued at `now` whose data is in the
    /// controller only at `ready_at` (>= `now`): a buffered write that
    /// waited for room. `now` must not decrease from one call to the next.
    #[inline]
    pub fn schedule_at(&mut self, ops: &[FlashOp], now: u64, ready_at: u64) -> u64 {
        debug_assert!(ready_at >= now);
        self.run(ops, now, ready_at)
    }

    #[inline(always)]
    fn run(&mut self, ops: &[FlashOp], now: u64, ready_at: u64) -> u64 {
        // Chosen once per request from a switch fixed for the run (always
        // predicted), not once per operation.
        if self.plain {
            self.run_ops::<false>(ops, now, ready_at)
        } else {
            self.run_ops_with_features(ops, now, ready_at)
        }
    }

    /// `run_ops` with suspend or multi-plane on, kept out of line: only the
    /// plain loop is inlined into the request loop.
    #[inline(never)]
    fn run_ops_with_features(&mut self, ops: &[FlashOp], now: u64, ready_at: u64) -> u64 {
        self.run_ops::<true>(ops, now, ready_at)
    }

    /// [`Engine::schedule_at`]'s loop. `FEATURES` false: neither
    /// program/erase suspend nor multi-plane is on, and their branches and
    /// bookkeeping are compiled out (`LunFeatures` is never touched).
    /// Inlined (issue 30): a call per request saved and restored its
    /// registers, about 9 instructions.
    #[inline(always)]
    fn run_ops<const FEATURES: bool>(&mut self, ops: &[FlashOp], now: u64, ready_at: u64) -> u64 {
        debug_assert!(FEATURES || self.plain);
        let mut done_at = ready_at;
        self.gc_read_done.clear();
        let mut gc_next = 0usize;
        let mut rest = ops.iter();
        while let Some(&op) = rest.next() {
            let end = match op {
                FlashOp::Read { ppn, gc } => {
                    let ppn = ppn.get();
                    let lun = self.striping.lun_of_page(ppn) as usize;
                    if !FEATURES {
                        let end = self.read_plain(lun, now, ready_at, gc);
                        if gc {
                            self.gc_read_done.push(end);
                        }
                        done_at = done_at.max(end);
                        continue;
                    }
                    let sensed = match self.suspend_ns {
                        Some(overheads) if FEATURES && !gc => {
                            self.read_suspending(lun, ready_at, overheads)
                        }
                        _ if FEATURES && self.planes > 1 => {
                            self.read_multi_plane(lun, ppn, now, ready_at, gc)
                        }
                        _ => {
                            self.occupy_lun::<FEATURES>(lun, now, ready_at, self.read_ns, gc, false)
                        }
                    };
                    let end = self.transfer::<FEATURES>(self.luns[lun].channel, now, sensed);
                    if gc {
                        self.gc_read_done.push(end);
                    }
                    end
                }
                FlashOp::Program { ppn, gc } => {
                    let ppn = ppn.get();
                    // A GC copy's data is ready once its read has reached the
                    // controller; reads and programs of one reclaim pair up in order.
                    // A host program (most) skips the lookup.
                    let data_at = match gc.then(|| self.gc_read_done.get(gc_next)).flatten() {
                        Some(&read_at) => {
                            gc_next += 1;
                            read_at.max(ready_at)
                        }
                        None => ready_at,
                    };
                    let lun = self.striping.lun_of_page(ppn) as usize;
                    if !FEATURES {
                        self.program_plain(lun, now, data_at, gc)
                    } else if self.planes > 1 {
                        self.program_multi_plane(lun, ppn, now, data_at, gc)
                    } else {
                        // The page moves in once the LUN can take it: its current
                        // operation has started and freed the cache register.
                        let l = &self.luns[lun];
                        let movable_at = data_at.max(l.accepts_at);
                        let moved = self.transfer::<FEATURES>(l.channel, now, movable_at);
                        self.occupy_lun::<FEATURES>(lun, now, moved, self.program_ns, gc, true)
                    }
                }
                FlashOp::Erase { block } => self.erase::<FEATURES>(block, now, ready_at),
                FlashOp::MapRead { ppn } => {
                    return done_at.max(self.map_read_then(
                        ppn.get(),
                        rest.as_slice(),
                        now,
                        ready_at,
                    ));
                }
            };
            done_at = done_at.max(end);
        }
        done_at
    }

    /// A translation page read (DFTL mapping cache), then the rest of its
    /// request: the page is sensed and moved like a host read, and the
    /// later operations are ready only once the mapping is in. Out of line
    /// so that `run_ops` compiles as it does without the cache. (A
    /// reclaim's reads and programs never straddle a translation read, so
    /// their pairing restarts safely in the call for the rest.)
    #[cold]
    #[inline(never)]
    fn map_read_then(&mut self, ppn: u32, rest: &[FlashOp], now: u64, ready_at: u64) -> u64 {
        let lun = self.striping.lun_of_page(ppn) as usize;
        let sensed = self.occupy_lun::<true>(lun, now, ready_at, self.read_ns, false, false);
        let end = self.transfer::<true>(self.luns[lun].channel, now, sensed);
        end.max(self.run(rest, now, ready_at.max(end)))
    }

    /// A read on `lun` of the plain engine (no suspend, no multi-plane):
    /// the LUN's record is found once for the sense and the transfer out
    /// (issue 30: each step indexing it again cost a bounds check and a
    /// reload per operation). Returns when the page is in the controller.
    #[inline(always)]
    fn read_plain(&mut self, lun: usize, now: u64, ready_at: u64, gc: bool) -> u64 {
        let l = &mut self.luns[lun];
        let sensed = occupy(l, &mut self.queues, lun, now, ready_at, self.read_ns, gc);
        self.channels[l.channel as usize].place_after(now, sensed, self.transfer_ns)
    }

    /// A program on `lun` of the plain engine, its data in the controller
    /// at `data_at`: the page moves in once the LUN can take it (its
    /// current operation has started and freed the cache register), then
    /// is programmed. The LUN's record is found once. Returns when the
    /// program ends.
    #[inline(always)]
    fn program_plain(&mut self, lun: usize, now: u64, data_at: u64, gc: bool) -> u64 {
        let l = &mut self.luns[lun];
        let movable_at = data_at.max(l.accepts_at);
        let moved =
            self.channels[l.channel as usize].place_after(now, movable_at, self.transfer_ns);
        occupy(l, &mut self.queues, lun, now, moved, self.program_ns, gc)
    }

    /// Queues an operation of `duration_ns` on `lun`, ready at `ready_at`;
    /// `now` is the request's issue time (no later operation is ready
    /// before it). Returns when the operation ends. `FEATURES` false: the
    /// suspend and multi-plane state is left alone (nothing reads it).
    #[inline(always)]
    fn occupy_lun<const FEATURES: bool>(
        &mut self,
        lun: usize,
        now: u64,
        ready_at: u64,
        duration_ns: u64,
        gc: bool,
        suspendable: bool,
    ) -> u64 {
        let end = occupy(
            &mut self.luns[lun],
            &mut self.queues,
            lun,
            now,
            ready_at,
            duration_ns,
            gc,
        );
        if FEATURES {
            let f = &mut self.features[lun];
            f.suspendable = suspendable;
            f.reads_until = 0;
            f.group = NO_GROUP;
        }
        end
    }

    /// A host read ready at `now` with program/erase suspend on. If its LUN
    /// is running a program or erase with nothing queued behind it, the
    /// read suspends it (or, while it is suspended, follows the reads
    /// already let in) and the operation ends later by the overheads and
    /// the read; otherwise the read queues as usual. Returns when the page
    /// is sensed.
    fn read_suspending(
        &mut self,
        lun: usize,
        now: u64,
        (suspend_ns, resume_ns): (u64, u64),
    ) -> u64 {
        let read_ns = self.read_ns;
        let (l, f) = (&mut self.luns[lun], &mut self.features[lun]);
        if !(f.suspendable && l.accepts_at <= now && now < l.free_at) {
            return self.occupy_lun::<true>(lun, now, now, read_ns, false, false);
        }
        let (start, added_ns) = if now < f.reads_until {
            (f.reads_until, read_ns)
        } else {
            self.suspensions += 1;
            (now + suspend_ns, suspend_ns + read_ns + resume_ns)
        };
        let end = start + read_ns;
        f.reads_until = end;
        l.free_at += added_ns;
        // A suspended program takes no more pages: its end has moved.
        f.group = NO_GROUP;
        // Counted as host time, whatever the suspended operation was.
        l.busy_ns[0] += added_ns;
        self.suspend_delay_ns += added_ns;
        end
    }

    /// A program with more than one plane per LUN. A page of the same group
    /// (same block and offset, another plane) as the LUN's last scheduled
    /// program joins it when its data is in before that program starts:
    /// one tPROG writes them all. Otherwise it starts a program of its own.
    /// With one cache register per plane, the LUN takes the pages of a
    /// group once the operation before the group has started.
    fn program_multi_plane(
        &mut self,
        lun: usize,
        ppn: u32,
        now: u64,
        data_at: u64,
        gc: bool,
    ) -> u64 {
        let group = ppn / self.group_span;
        let channel = self.luns[lun].channel;
        let f = &self.features[lun];
        if f.group == group && !f.group_read && f.group_pages < self.planes {
            let movable_at = data_at.max(f.group_accepts_at);
            let moved = self.transfer::<true>(channel, now, movable_at);
            let f = &mut self.features[lun];
            if moved <= f.group_start {
                f.group_pages += 1;
                return f.group_end;
            }
            return self.start_program_group(lun, group, now, moved, gc);
        }
        let movable_at = data_at.max(self.luns[lun].accepts_at);
        let moved = self.transfer::<true>(channel, now, movable_at);
        self.start_program_group(lun, group, now, moved, gc)
    }

    /// A read with more than one plane per LUN: it joins its LUN's last
    /// scheduled operation when that is a read of the same group (same
    /// block and offset, another plane) that has not started by the time
    /// this one is ready, and is sensed with it (one tR); otherwise it
    /// starts a read of its own. Returns when the page is sensed.
    fn read_multi_plane(&mut self, lun: usize, ppn: u32, now: u64, ready_at: u64, gc: bool) -> u64 {
        let group = ppn / self.group_span;
        let f = &mut self.features[lun];
        if f.group == group
            && f.group_read
            && f.group_pages < self.planes
            && ready_at <= f.group_start
        {
            f.group_pages += 1;
            return f.group_end;
        }
        let end = self.occupy_lun::<true>(lun, now, ready_at, self.read_ns, gc, false);
        self.open_group(lun, group, true, end);
        end
    }

    /// Makes the operation just scheduled on `lun`, ending at `end`, the
    /// LUN's open multi-plane group: later pages of `group` may join it.
    fn open_group(&mut self, lun: usize, group: u32, read: bool, end: u64) {
        let start = self.luns[lun].accepts_at;
        let f = &mut self.features[lun];
        f.group = group;
        f.group_read = read;
        f.group_pages = 1;
        f.group_start = start;
        f.group_end = end;
    }

    fn start_program_group(
        &mut self,
        lun: usize,
        group: u32,
        now: u64,
        moved: u64,
        gc: bool,
    ) -> u64 {
        let accepts_before = self.luns[lun].accepts_at;
        let end = self.occupy_lun::<true>(lun, now, moved, self.program_ns, gc, true);
        self.open_group(lun, group, false, end);
        self.features[lun].group_accepts_at = accepts_before;
        end
    }

    /// Programs and erases suspended by reads, and the total time added to
    /// them (after their requests' completions were computed).
    pub fn suspensions(&self) -> (u64, u64) {
        (self.suspensions, self.suspend_delay_ns)
    }

    /// Moves one page over `channel` in its earliest gap at or after
    /// `ready_at`. `FEATURES` false: the engine is `plain`, so transfers
    /// take time and the test for a free channel is left out.
    #[inline(always)]
    fn transfer<const FEATURES: bool>(&mut self, channel: u32, now: u64, ready_at: u64) -> u64 {
        let c = &mut self.channels[channel as usize];
        if FEATURES && self.transfer_ns == 0 {
            c.count_free();
            return ready_at;
        }
        c.place_after(now, ready_at, self.transfer_ns)
    }

    /// Erases `block`'s slice on each LUN it spans, in parallel. Erases are
    /// always GC (or wear-leveling) work.
    fn erase<const FEATURES: bool>(&mut self, block: u32, now: u64, ready_at: u64) -> u64 {
        let mut end = ready_at;
        for lun in self.striping.erase_luns(block) {
            end = end.max(self.occupy_lun::<FEATURES>(
                lun as usize,
                now,
                ready_at,
                self.erase_ns,
                true,
                true,
            ));
        }
        end
    }
}

/// Queues an operation of `duration_ns` on the LUN `lun` whose record is
/// `l`, ready at `ready_at`, for a request issued at `now`; notes it for
/// the queue-length sampler. Returns when it ends.
#[inline(always)]
fn occupy(
    l: &mut Lun,
    queues: &mut QueueSampler,
    lun: usize,
    now: u64,
    ready_at: u64,
    duration_ns: u64,
    gc: bool,
) -> u64 {
    let start = l.free_at.max(ready_at);
    let end = start + duration_ns;
    l.free_at = end;
    l.accepts_at = start;
    l.busy_ns[usize::from(gc)] += duration_ns;
    queues.note(&mut l.ring, lun, now, end);
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::Ppn;
    use crate::timing::TimingMode;

    fn params(channels: u32, luns_per_channel: u32) -> TimingParams {
        TimingParams {
            channels,
            luns_per_channel,
            read_ns: 40_000,
            program_ns: 200_000,
            erase_ns: 2_000_000,
            transfer_ns: 10_000,
            overhead_ns: 0,
            queue_depth: 1,
            mode: TimingMode::Closed,
            suspend_ns: None,
            planes_per_lun: 1,
        }
    }

    #[test]
    fn fast_remainder_is_exact() {
        for d in [1u32, 2, 3, 7, 32, 48, 1000, 65_536, u32::MAX] {
            let f = FastMod::new(d);
            for a in (0..5000u32).chain([u32::MAX, u32::MAX - 1, 1 << 31, 123_456_789]) {
                assert_eq!(f.rem(a), a % d, "{a} mod {d}");
            }
        }
    }

    #[test]
    fn pages_stripe_over_channels_then_luns() {
        let e = Engine::new(&params(4, 2), 64);
        let luns: Vec<u32> = (0..10).map(|p| e.lun_of_page(p)).collect();
        assert_eq!(luns, vec![0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
        let channels: Vec<u32> = (0..8).map(|l| e.channel_of_lun(l)).collect();
        assert_eq!(channels, vec![0, 1, 2, 3, 0, 1, 2, 3]);
    }

    #[test]
    fn read_is_sense_then_transfer_and_program_is_transfer_then_program() {
        let p = params(1, 1);
        let mut e = Engine::new(&p, 64);
        assert_eq!(
            e.schedule(
                &[FlashOp::Read {
                    ppn: Ppn::new(0),
                    gc: false
                }],
                100
            ),
            100 + p.read_ns + p.transfer_ns
        );
        let mut e = Engine::new(&p, 64);
        assert_eq!(
            e.schedule(
                &[FlashOp::Program {
                    ppn: Ppn::new(0),
                    gc: false
                }],
                0
            ),
            p.transfer_ns + p.program_ns
        );
    }

    #[test]
    fn a_busy_lun_delays_the_next_operation_and_others_run_in_parallel() {
        let p = params(2, 1);
        let mut e = Engine::new(&p, 64);
        let first = e.schedule(
            &[FlashOp::Program {
                ppn: Ppn::new(0),
                gc: false,
            }],
            0,
        );
        // Same LUN: waits for the program; the transfer overlaps it.
        let same = e.schedule(
            &[FlashOp::Program {
                ppn: Ppn::new(2),
                gc: false,
            }],
            0,
        );
        assert_eq!(same, first + p.program_ns);
        // Other LUN, other channel: fully parallel.
        let other = e.schedule(
            &[FlashOp::Program {
                ppn: Ppn::new(1),
                gc: false,
            }],
            0,
        );
        assert_eq!(other, first);
    }

    #[test]
    fn gc_copy_waits_for_its_read_and_erase_spans_every_lun() {
        let p = params(2, 2);
        let mut e = Engine::new(&p, 8);
        let ops = [
            FlashOp::Read {
                ppn: Ppn::new(8),
                gc: true,
            },
            FlashOp::Erase { block: 1 },
            FlashOp::Program {
                ppn: Ppn::new(1),
                gc: true,
            },
        ];
        let done = e.schedule(&ops, 0);
        // LUN 1 erases then programs; the copy's data arrived long before.
        assert_eq!(done, p.erase_ns + p.program_ns);
        // Block 1 = pages 8..16 spans all 4 LUNs: each erased once.
        let (busy, gc) = e.lun_busy_totals();
        assert_eq!(busy, gc);
        assert_eq!(busy, 4 * p.erase_ns + p.read_ns + p.program_ns);
        assert_eq!(
            e.lun_busy_ns(1),
            (p.erase_ns + p.program_ns, p.erase_ns + p.program_ns)
        );
    }
}
