//! Flash geometry: page size, pages per block, blocks, and the channel/LUN/plane
//! counts. Where a page lives on that hierarchy is the timing model's rule
//! (`timing::engine`: a block is a superblock striped page by page over all LUNs).

use serde::Serialize;

use super::Ppn;
use crate::config::DeviceConfig;

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Geometry {
    pub page_bytes: u32,
    pub pages_per_block: u32,
    pub blocks: u32,
    pub channels: u32,
    pub luns_per_channel: u32,
    pub planes_per_lun: u32,
    /// log2(`pages_per_block`) when it is a power of two. `block_of` runs
    /// several times per page written; a shift costs a cycle where a
    /// 32-bit division costs tens.
    #[serde(skip)]
    block_shift: Option<u32>,
}

impl Geometry {
    pub fn from_config(d: &DeviceConfig) -> Self {
        Self {
            page_bytes: d.page_bytes,
            pages_per_block: d.pages_per_block,
            blocks: d.blocks,
            channels: d.channels,
            luns_per_channel: d.luns_per_channel,
            planes_per_lun: d.planes_per_lun,
            block_shift: None,
        }
        .with_pages_per_block(d.pages_per_block)
    }

    /// The same geometry with `pages_per_block` pages in a block (the FTL
    /// groups flash blocks into erase units under FDP).
    pub fn with_pages_per_block(mut self, pages_per_block: u32) -> Self {
        self.pages_per_block = pages_per_block;
        self.block_shift = pages_per_block
            .is_power_of_two()
            .then(|| pages_per_block.trailing_zeros());
        self
    }

    pub fn physical_pages(&self) -> u64 {
        u64::from(self.blocks) * u64::from(self.pages_per_block)
    }

    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        debug_assert_eq!(
            self.block_shift.map(|s| 1u32 << s),
            self.pages_per_block
                .is_power_of_two()
                .then_some(self.pages_per_block),
            "pages_per_block changed without with_pages_per_block"
        );
        debug_assert!(!ppn.is_none(), "NONE is in no block");
        match self.block_shift {
            Some(shift) => ppn.get() >> shift,
            None => ppn.block(self.pages_per_block),
        }
    }

    #[inline]
    pub fn first_page(&self, block: u32) -> Ppn {
        Ppn::of(block, 0, self.pages_per_block)
    }

    /// The pages of `block`, in program order.
    #[inline]
    pub fn pages_of(&self, block: u32) -> impl Iterator<Item = Ppn> {
        let first = self.first_page(block).get();
        (first..first + self.pages_per_block).map(Ppn::new)
    }
}
