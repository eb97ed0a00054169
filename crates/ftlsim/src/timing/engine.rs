//! The resources and their next-free times: one per LUN, one per channel.
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
//! How an operation uses the resources (FEMU's model):
//! * read: the LUN senses the page (tR), then the channel moves it out;
//!   the LUN is free again once the page is in its register.
//! * program: the channel moves the page in, then the LUN programs it (tPROG).
//! * erase: the LUN is busy for tBERS; the channel carries only the command.
//!
//! Each resource serves its operations in the order they are scheduled
//! (first come, first served), starting each at the later of its ready time
//! and the resource's next-free time.

use crate::ftl::FlashOp;

use super::config::TimingParams;

#[derive(Debug, Clone)]
pub struct Engine {
    luns: u32,
    channels: u32,
    read_ns: u64,
    program_ns: u64,
    erase_ns: u64,
    transfer_ns: u64,
    pages_per_block: u32,
    lun_free_at: Vec<u64>,
    channel_free_at: Vec<u64>,
    /// Busy time per resource, all work and GC work (GC copies, wear
    /// leveling, erases) alone.
    lun_busy_ns: Vec<u64>,
    lun_gc_busy_ns: Vec<u64>,
    channel_busy_ns: Vec<u64>,
    /// When each GC read of the current batch has its data in the controller
    /// (a GC copy cannot be programmed before it was read).
    gc_read_done: Vec<u64>,
}

impl Engine {
    pub fn new(params: &TimingParams, pages_per_block: u32) -> Self {
        let luns = params.luns();
        assert!(
            luns > 0 && params.channels > 0,
            "validated: at least one LUN and one channel"
        );
        Self {
            luns,
            channels: params.channels,
            read_ns: params.read_ns,
            program_ns: params.program_ns,
            erase_ns: params.erase_ns,
            transfer_ns: params.transfer_ns,
            pages_per_block,
            lun_free_at: vec![0; luns as usize],
            channel_free_at: vec![0; params.channels as usize],
            lun_busy_ns: vec![0; luns as usize],
            lun_gc_busy_ns: vec![0; luns as usize],
            channel_busy_ns: vec![0; params.channels as usize],
            gc_read_done: Vec::new(),
        }
    }

    /// Back to an idle device at time 0 with no history.
    pub fn reset(&mut self) {
        for v in [
            &mut self.lun_free_at,
            &mut self.channel_free_at,
            &mut self.lun_busy_ns,
            &mut self.lun_gc_busy_ns,
            &mut self.channel_busy_ns,
        ] {
            v.fill(0);
        }
        self.gc_read_done.clear();
    }

    pub fn luns(&self) -> u32 {
        self.luns
    }

    pub fn channels(&self) -> u32 {
        self.channels
    }

    #[inline]
    pub fn lun_of_page(&self, ppn: u32) -> u32 {
        ppn % self.luns
    }

    #[inline]
    pub fn channel_of_lun(&self, lun: u32) -> u32 {
        lun % self.channels
    }

    /// The time by which every resource has finished all scheduled work.
    pub fn idle_at(&self) -> u64 {
        let lun = self.lun_free_at.iter().copied().max().unwrap_or(0);
        let channel = self.channel_free_at.iter().copied().max().unwrap_or(0);
        lun.max(channel)
    }

    pub fn lun_busy_ns(&self) -> &[u64] {
        &self.lun_busy_ns
    }

    pub fn lun_gc_busy_ns(&self) -> &[u64] {
        &self.lun_gc_busy_ns
    }

    pub fn channel_busy_ns(&self) -> &[u64] {
        &self.channel_busy_ns
    }

    /// Total LUN time, all work and GC work.
    pub fn lun_busy_totals(&self) -> (u64, u64) {
        (
            self.lun_busy_ns.iter().sum(),
            self.lun_gc_busy_ns.iter().sum(),
        )
    }

    /// Runs `ops` (one request's flash work, in the FTL's order) on the
    /// resources, none starting before `ready_at`. Returns when the last of
    /// them finishes (`ready_at` when there are none).
    pub fn schedule(&mut self, ops: &[FlashOp], ready_at: u64) -> u64 {
        let mut done_at = ready_at;
        self.gc_read_done.clear();
        let mut gc_next = 0usize;
        for &op in ops {
            let end = match op {
                FlashOp::Read { ppn, gc } => {
                    let lun = self.lun_of_page(ppn);
                    let sensed = self.occupy_lun(lun, ready_at, self.read_ns, gc);
                    let end = self.occupy_channel(self.channel_of_lun(lun), sensed);
                    if gc {
                        self.gc_read_done.push(end);
                    }
                    end
                }
                FlashOp::Program { ppn, gc } => {
                    // A GC copy's data is ready once its read has reached the
                    // controller; reads and programs of one reclaim pair up in order.
                    let data_at = if gc && gc_next < self.gc_read_done.len() {
                        gc_next += 1;
                        self.gc_read_done[gc_next - 1].max(ready_at)
                    } else {
                        ready_at
                    };
                    let lun = self.lun_of_page(ppn);
                    let moved = self.occupy_channel(self.channel_of_lun(lun), data_at);
                    self.occupy_lun(lun, moved, self.program_ns, gc)
                }
                FlashOp::Erase { block } => self.erase(block, ready_at),
            };
            done_at = done_at.max(end);
        }
        done_at
    }

    #[inline]
    fn occupy_lun(&mut self, lun: u32, ready_at: u64, duration_ns: u64, gc: bool) -> u64 {
        let l = lun as usize;
        let start = self.lun_free_at[l].max(ready_at);
        let end = start + duration_ns;
        self.lun_free_at[l] = end;
        self.lun_busy_ns[l] += duration_ns;
        if gc {
            self.lun_gc_busy_ns[l] += duration_ns;
        }
        end
    }

    #[inline]
    fn occupy_channel(&mut self, channel: u32, ready_at: u64) -> u64 {
        let c = channel as usize;
        let start = self.channel_free_at[c].max(ready_at);
        let end = start + self.transfer_ns;
        self.channel_free_at[c] = end;
        self.channel_busy_ns[c] += self.transfer_ns;
        end
    }

    /// Erases `block`'s slice on each LUN it spans, in parallel. Erases are
    /// always GC (or wear-leveling) work.
    fn erase(&mut self, block: u32, ready_at: u64) -> u64 {
        let first = u64::from(block) * u64::from(self.pages_per_block);
        let first_lun = (first % u64::from(self.luns)) as u32;
        let spanned = self.pages_per_block.min(self.luns);
        let mut end = ready_at;
        for i in 0..spanned {
            let lun = (first_lun + i) % self.luns;
            end = end.max(self.occupy_lun(lun, ready_at, self.erase_ns, true));
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::config::TimingMode;

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
            e.schedule(&[FlashOp::Read { ppn: 0, gc: false }], 100),
            100 + p.read_ns + p.transfer_ns
        );
        let mut e = Engine::new(&p, 64);
        assert_eq!(
            e.schedule(&[FlashOp::Program { ppn: 0, gc: false }], 0),
            p.transfer_ns + p.program_ns
        );
    }

    #[test]
    fn a_busy_lun_delays_the_next_operation_and_others_run_in_parallel() {
        let p = params(2, 1);
        let mut e = Engine::new(&p, 64);
        let first = e.schedule(&[FlashOp::Program { ppn: 0, gc: false }], 0);
        // Same LUN: waits for the program; the transfer overlaps it.
        let same = e.schedule(&[FlashOp::Program { ppn: 2, gc: false }], 0);
        assert_eq!(same, first + p.program_ns);
        // Other LUN, other channel: fully parallel.
        let other = e.schedule(&[FlashOp::Program { ppn: 1, gc: false }], 0);
        assert_eq!(other, first);
    }

    #[test]
    fn gc_copy_waits_for_its_read_and_erase_spans_every_lun() {
        let p = params(2, 2);
        let mut e = Engine::new(&p, 8);
        let ops = [
            FlashOp::Read { ppn: 8, gc: true },
            FlashOp::Erase { block: 1 },
            FlashOp::Program { ppn: 1, gc: true },
        ];
        let done = e.schedule(&ops, 0);
        // LUN 1 erases then programs; the copy's data arrived long before.
        assert_eq!(done, p.erase_ns + p.program_ns);
        // Block 1 = pages 8..16 spans all 4 LUNs: each erased once.
        let (busy, gc) = e.lun_busy_totals();
        assert_eq!(busy, gc);
        assert_eq!(busy, 4 * p.erase_ns + p.read_ns + p.program_ns);
        assert_eq!(e.lun_busy_ns()[1], p.erase_ns + p.program_ns);
    }
}
