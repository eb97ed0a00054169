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
    /// ceil(2^63 / `pages_per_block`): `block_of` divides by multiplying
    /// by it (Lemire, Kaser and Kurz, "Faster remainder by direct
    /// computation", 2019: exact for every 32-bit page number when
    /// `pages_per_block` is at most 2^31). `block_of` runs several times
    /// per page written; a 32-bit division costs tens of cycles, and a
    /// shift kept for powers of two cost a test and a branch at every
    /// call, where the multiply takes two instructions for any size.
    #[serde(skip)]
    block_reciprocal: u64,
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
            block_reciprocal: 0,
        }
        .with_pages_per_block(d.pages_per_block)
    }

    /// The same geometry with `pages_per_block` pages in a block (the FTL
    /// groups flash blocks into erase units under FDP).
    pub fn with_pages_per_block(mut self, pages_per_block: u32) -> Self {
        // The plan bounds a block at 65,536 pages and an erase unit below
        // half the device (< 2^31 pages, as page numbers are 32 bits).
        debug_assert!(
            (1..=1 << 31).contains(&pages_per_block),
            "{pages_per_block} pages per block: block_of's reciprocal is exact up to 2^31"
        );
        self.pages_per_block = pages_per_block;
        self.block_reciprocal = (1u64 << 63).div_ceil(u64::from(pages_per_block.max(1)));
        self
    }

    pub fn physical_pages(&self) -> u64 {
        u64::from(self.blocks) * u64::from(self.pages_per_block)
    }

    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        debug_assert_eq!(
            self.block_reciprocal,
            (1u64 << 63).div_ceil(u64::from(self.pages_per_block.max(1))),
            "pages_per_block changed without with_pages_per_block"
        );
        debug_assert!(!ppn.is_none(), "NONE is in no block");
        // floor(2n * ceil(2^63 / d) / 2^64) = floor(n / d); 2n fits in 33 bits.
        let doubled = u64::from(ppn.get()) << 1;
        ((u128::from(doubled) * u128::from(self.block_reciprocal)) >> 64) as u32
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `block_of` multiplies by a reciprocal instead of dividing: it must
    /// give the quotient exactly, for powers of two and other sizes, at
    /// block edges and up to the largest page number.
    #[test]
    fn block_of_is_exact_division() {
        let base = Geometry::from_config(&DeviceConfig::default());
        let sizes = [
            1,
            2,
            3,
            7,
            64,
            100,
            255,
            256,
            257,
            1000,
            4096,
            65_535,
            65_536,
            1 << 20,
            (1 << 31) - 1,
            1 << 31,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for d in sizes {
            let geo = base.with_pages_per_block(d);
            let mut pages = vec![0, 1, d - 1, d, d.saturating_add(1), u32::MAX - 1];
            for k in [2u32, 3, 1000, u32::MAX / d] {
                let edge = k.saturating_mul(d);
                pages.extend(
                    [edge.saturating_sub(1), edge]
                        .into_iter()
                        .filter(|&p| p < u32::MAX),
                );
            }
            for _ in 0..1000 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                pages.push(((state >> 32) as u32).min(u32::MAX - 1));
            }
            for p in pages {
                assert_eq!(
                    geo.block_of(Ppn::new(p)),
                    p / d,
                    "page {p}, {d} pages per block"
                );
            }
        }
    }
}
