//! Zoned mode (`device.zoned`): the device as a ZNS-like zoned namespace.
//!
//! Zone `z` is the blocks `z·zone_blocks ..` and the logical pages of the
//! same numbers: the mapping is the identity, fixed at build time, so the
//! device has no spare space, no frontiers and no garbage collection — the
//! host's log decides where data goes and cleans it itself. A zone is
//! written only at its write pointer; a trim covering a whole zone resets
//! it (erases its blocks); at most `max_open_zones` zones may be partly
//! written at once. Written blocks stay `Open` until their zone is reset
//! (they never enter the victim index).

use super::{FlashOp, MapEntry, Ssd};
use crate::error::SimError;
use crate::flash::{BlockState, Ppn};
use crate::plan::{DeviceMode, SsdPlan};
use crate::request::{Completion, Request};

#[derive(Debug, Clone)]
pub(crate) struct Zones {
    zone_pages: u32,
    /// Pages written in each zone.
    write_ptr: Vec<u32>,
    /// Zones written but not full.
    open: u32,
    max_open: u32,
    pub(crate) resets: u64,
}

impl Zones {
    /// The zones of a zoned device, or `None` for the other modes.
    pub(crate) fn of(plan: &SsdPlan) -> Option<Self> {
        let d = &plan.device;
        match plan.mode {
            DeviceMode::Zoned {
                zone_blocks,
                max_open_zones,
            } => Some(Zones {
                zone_pages: zone_blocks * d.pages_per_block,
                write_ptr: vec![0; (d.blocks / zone_blocks) as usize],
                open: 0,
                max_open: max_open_zones,
                resets: 0,
            }),
            DeviceMode::Conventional | DeviceMode::Fdp { .. } => None,
        }
    }
}

impl Ssd {
    /// A write on a zoned device: every page at its zone's write pointer.
    #[inline(never)]
    pub(super) fn submit_zoned_write(&mut self, req: &Request) -> Result<Completion, SimError> {
        self.check_stream(req.stream)?;
        for (i, lpn) in req.lpns().enumerate() {
            let content = req.fingerprints.get(i).copied().unwrap_or(0);
            self.write_zoned_page(lpn, content)?;
            self.stream_counters[usize::from(req.stream)].host_write_pages += 1;
        }
        Ok(Completion::default())
    }

    fn write_zoned_page(&mut self, lpn: u64, content: u64) -> Result<(), SimError> {
        let lpn = self.check_lpn(lpn)?;
        let zones = self.zones.as_mut().expect("zoned device");
        let zone = lpn.get() / zones.zone_pages;
        let z = zone as usize;
        let wp = zones.write_ptr[z];
        let expected = zone * zones.zone_pages + wp;
        if lpn.get() != expected {
            return Err(SimError::BadRequest(format!(
                "zoned device: write to page {lpn}, but zone {zone} is written only at its write pointer, page {expected}"
            )));
        }
        if wp == 0 {
            if zones.open == zones.max_open {
                return Err(SimError::BadRequest(format!(
                    "zoned device: opening zone {zone} would exceed device.max_open_zones = {}",
                    zones.max_open
                )));
            }
            zones.open += 1;
        }
        zones.write_ptr[z] += 1;
        if zones.write_ptr[z] == zones.zone_pages {
            zones.open -= 1;
        }
        // The identity mapping: page `lpn` of the namespace is PPN `lpn`.
        let ppn = Ppn::new(lpn.get());
        let block = self.geo.block_of(ppn);
        let b = block as usize;
        match self.blocks.state[b] {
            BlockState::Free => {
                let taken = self.pool.remove(block, self.blocks.erase_count[b]);
                debug_assert!(taken, "free block {block} missing from the pool");
                self.blocks.state[b] = BlockState::Open;
                self.blocks.seq[b] = self.next_seq;
                self.next_seq += 1;
            }
            BlockState::Open => {}
            BlockState::Retired => {
                return Err(SimError::EndOfLife {
                    retired_blocks: self.retired,
                })
            }
            BlockState::Full => unreachable!("zoned blocks never close"),
        }
        debug_assert_eq!(
            self.blocks.write_ptr[b],
            ppn.offset(self.geo.pages_per_block)
        );
        self.blocks.write_ptr[b] += 1;
        self.now_pages += 1;
        self.counters.host_write_pages += 1;
        // Written blocks stay Open: a zone's blocks never close into the victim index.
        self.program_cells::<false>(ppn, lpn, content);
        self.log(FlashOp::Program { ppn, gc: false });
        self.l2p[lpn.index()] = MapEntry {
            ppn,
            written_at: self.now_pages as u32,
        };
        Ok(())
    }

    /// A trim on a zoned device: the pages die; every zone the request
    /// covers whole is reset.
    pub(super) fn submit_zoned_trim(&mut self, req: &Request) -> Result<Completion, SimError> {
        for lpn in req.lpns() {
            self.trim_page(lpn)?;
        }
        let zone_pages = u64::from(self.zones.as_ref().expect("zoned device").zone_pages);
        let end = req.lpn + u64::from(req.pages);
        let first_zone = req.lpn.div_ceil(zone_pages);
        for zone in first_zone..end / zone_pages {
            self.reset_zone(zone as u32);
        }
        Ok(Completion::default())
    }

    fn reset_zone(&mut self, zone: u32) {
        let zones = self.zones.as_mut().expect("zoned device");
        let z = zone as usize;
        let wp = zones.write_ptr[z];
        if wp == 0 {
            return;
        }
        if wp < zones.zone_pages {
            zones.open -= 1;
        }
        zones.write_ptr[z] = 0;
        zones.resets += 1;
        let zone_blocks = zones.zone_pages / self.geo.pages_per_block;
        for block in zone * zone_blocks..(zone + 1) * zone_blocks {
            if self.blocks.state[block as usize] == BlockState::Open {
                self.erase(block);
            }
        }
    }

    /// Zone resets so far.
    pub fn zone_resets(&self) -> u64 {
        self.zones.as_ref().map_or(0, |z| z.resets)
    }

    /// The zoned part of the invariant checker: write pointers agree with
    /// the blocks, the open count with the zones, and nothing is mapped
    /// away from the identity.
    pub(super) fn check_zones(&self) -> Result<(), SimError> {
        let Some(zones) = &self.zones else {
            return Ok(());
        };
        let fail = |m: String| Err(SimError::Invariant(format!("zoned: {m}")));
        let ppb = self.geo.pages_per_block;
        let mut open = 0;
        for (z, &wp) in zones.write_ptr.iter().enumerate() {
            if wp > 0 && wp < zones.zone_pages {
                open += 1;
            }
            let first_block = z as u32 * (zones.zone_pages / ppb);
            for k in 0..zones.zone_pages / ppb {
                let b = (first_block + k) as usize;
                let written = wp.saturating_sub(k * ppb).min(ppb);
                if self.blocks.write_ptr[b] != written {
                    return fail(format!(
                        "zone {z} at {wp} but block {b} holds {} pages",
                        self.blocks.write_ptr[b]
                    ));
                }
            }
        }
        if open != zones.open {
            return fail(format!("{open} zones are open but {} counted", zones.open));
        }
        for (lpn, e) in self.l2p.iter().enumerate() {
            if !e.ppn.is_none() && e.ppn.index() != lpn {
                return fail(format!("page {lpn} maps to PPN {}", e.ppn));
            }
        }
        Ok(())
    }
}
