//! The invariant checker: a full, slow audit of the device's state, run in
//! tests after every operation and by `ftlsim run --check` throughout a run.

use super::{valid_bit, Ssd};
use crate::error::SimError;
use crate::flash::{BlockState, BlockTable, Lpn, NO_BLOCK};

impl Ssd {
    /// Verifies that valid counts equal the pages mapped into each block, L2P
    /// and OOB agree, each block's state matches where it is kept (free pool,
    /// frontier, victim index), and the free pool holds exactly the erased blocks.
    pub fn check_invariants(&self) -> Result<(), SimError> {
        let fail = |m: String| Err(SimError::Invariant(m));
        let ppb = self.geo.pages_per_block;
        let (mapped_in_block, mapped_total) = self.check_mapping()?;
        let mut free = 0u32;
        let mut full = 0u32;
        let mut retired = 0u32;
        let mut valid_total = 0u64;
        for b in 0..self.geo.blocks {
            let i = b as usize;
            let valid = self.blocks.valid[i];
            valid_total += u64::from(valid);
            if valid != mapped_in_block[i] {
                return fail(format!(
                    "block {b}: valid count {valid} but {} pages mapped into it",
                    mapped_in_block[i]
                ));
            }
            let wp = self.blocks.write_ptr[i];
            let in_pool = self.pool.contains(b, self.blocks.erase_count[i]);
            match self.blocks.state[i] {
                BlockState::Free => {
                    free += 1;
                    if !in_pool || wp != 0 || valid != 0 {
                        return fail(format!(
                            "free block {b}: in pool {in_pool}, write pointer {wp}, valid {valid}"
                        ));
                    }
                }
                // Zoned blocks belong to zones, not frontiers (`check_zones`).
                BlockState::Open if self.zones.is_some() => {
                    if in_pool {
                        return fail(format!("written zoned block {b} is in the pool"));
                    }
                }
                BlockState::Open => {
                    let owner = self.blocks.owner[i];
                    if owner == BlockTable::NO_OWNER
                        || self.frontiers.get(owner as usize).map(|f| f.block) != Some(b)
                    {
                        return fail(format!(
                            "open block {b} is not the block of its frontier {owner}"
                        ));
                    }
                    if wp >= ppb || in_pool {
                        return fail(format!(
                            "open block {b}: write pointer {wp}, in pool {in_pool}"
                        ));
                    }
                }
                BlockState::Full => {
                    full += 1;
                    if wp != ppb || in_pool {
                        return fail(format!(
                            "full block {b}: write pointer {wp}, in pool {in_pool}"
                        ));
                    }
                    self.victim_index_of(b)
                        .check_member(b, valid)
                        .map_err(SimError::Invariant)?;
                }
                BlockState::Retired => {
                    retired += 1;
                    if valid != 0 || in_pool {
                        return fail(format!(
                            "retired block {b}: valid {valid}, in pool {in_pool}"
                        ));
                    }
                }
            }
            if let Some(limit) = (self.pe_limit > 0).then_some(self.pe_limit) {
                if self.blocks.erase_count[i] > limit {
                    return fail(format!(
                        "block {b} erased {} times, past the limit {limit}",
                        self.blocks.erase_count[i]
                    ));
                }
            }
        }
        if free != self.pool.len() {
            return fail(format!(
                "{free} blocks are free but the pool holds {}",
                self.pool.len()
            ));
        }
        if full != self.victims_len() {
            return fail(format!(
                "{full} blocks are full but the victim index holds {}",
                self.victims_len()
            ));
        }
        if retired != self.retired {
            return fail(format!(
                "{retired} blocks are retired but {} were counted",
                self.retired
            ));
        }
        let bits: u64 = self
            .valid_bits
            .iter()
            .map(|w| u64::from(w.count_ones()))
            .sum();
        if bits != mapped_total {
            return fail(format!(
                "{bits} valid bits set but {mapped_total} mapped LPNs"
            ));
        }
        if valid_total != mapped_total {
            return fail(format!(
                "{valid_total} valid pages but {mapped_total} mapped LPNs"
            ));
        }
        self.check_sharing()?;
        self.check_zones()?;
        if let Some(c) = &self.cmt {
            c.check().map_err(SimError::Invariant)?;
        }
        for (i, f) in self.frontiers.iter().enumerate() {
            if f.block != NO_BLOCK && self.blocks.state[f.block as usize] != BlockState::Open {
                return fail(format!(
                    "frontier {i} holds block {} which is not open",
                    f.block
                ));
            }
        }
        Ok(())
    }

    /// Checks every mapped LPN against its page (in range, OOB, written,
    /// in an open or full block, valid bit set); returns the pages mapped
    /// into each block and in all, each shared page counted once.
    fn check_mapping(&self) -> Result<(Vec<u32>, u64), SimError> {
        let fail = |m: String| Err(SimError::Invariant(m));
        let ppb = self.geo.pages_per_block;
        let mut mapped_in_block = vec![0u32; self.geo.blocks as usize];
        let mut mapped_total = 0u64;
        for (lpn, e) in self.l2p.iter().enumerate() {
            if e.ppn.is_none() {
                continue;
            }
            if u64::from(e.ppn.get()) >= self.geo.physical_pages() {
                return fail(format!("LPN {lpn} maps to PPN {} beyond the device", e.ppn));
            }
            let shared = self.sharing.is_some();
            let oob = self.oob_lpn[e.ppn.index()];
            if !shared && oob != Lpn::from_index(lpn) {
                return fail(format!(
                    "LPN {lpn} maps to PPN {} whose OOB holds LPN {oob}",
                    e.ppn
                ));
            }
            let block = self.geo.block_of(e.ppn);
            let offset = e.ppn.offset(ppb);
            if offset >= self.blocks.write_ptr[block as usize] {
                return fail(format!(
                    "LPN {lpn} maps to unwritten page {offset} of block {block}"
                ));
            }
            match self.blocks.state[block as usize] {
                BlockState::Open | BlockState::Full => {}
                s => return fail(format!("LPN {lpn} maps into block {block} in state {s:?}")),
            }
            if !valid_bit(&self.valid_bits, e.ppn) {
                return fail(format!(
                    "LPN {lpn} maps to PPN {} whose valid bit is clear",
                    e.ppn
                ));
            }
            // With sharing, a page counts once however many LPNs map to it:
            // count it at its OOB LPN.
            if !shared || oob == Lpn::from_index(lpn) {
                mapped_in_block[block as usize] += 1;
                mapped_total += 1;
            }
        }
        Ok((mapped_in_block, mapped_total))
    }
}
