//! Page numbers: a logical page (what the host addresses) and a physical page
//! (where the FTL put it), each a type of its own, so that one cannot pass
//! for the other or for a block number. Both are 32 bits wide, as the maps
//! store them: 4 bytes per entry, enough for 16 TiB of 4 KiB pages.
//!
//! Block numbers stay `u32`: the free pool, the victim index and the op
//! log count blocks for the log layer above the device too, and under FDP
//! the FTL's blocks (reclaim units) are not the flash blocks the op log
//! erases. A type would have to be converted at each of those borders.

use std::fmt;
use std::ops::Add;

/// No block: a frontier holding no open block, a search that found none.
pub const NO_BLOCK: u32 = u32::MAX;

/// The operations both page numbers have. `u32::MAX` is kept for `NONE`,
/// so a real page number is always below it.
macro_rules! page_number {
    ($name:ident) => {
        impl $name {
            /// A page number from its raw value.
            #[inline(always)]
            pub const fn new(raw: u32) -> Self {
                debug_assert!(raw != u32::MAX, "u32::MAX is NONE, not a page");
                Self(raw)
            }

            /// The raw value.
            #[inline(always)]
            pub const fn get(self) -> u32 {
                self.0
            }

            #[inline(always)]
            pub const fn is_none(self) -> bool {
                self.0 == u32::MAX
            }

            /// The position of the page's entry in an array indexed by
            /// page number.
            #[inline(always)]
            pub fn index(self) -> usize {
                debug_assert!(!self.is_none(), "indexing by NONE");
                self.0 as usize
            }

            /// The page whose entry is at `index` (an array walked in order).
            #[inline(always)]
            pub fn from_index(index: usize) -> Self {
                debug_assert!(index < u32::MAX as usize, "page {index} beyond 32 bits");
                Self(index as u32)
            }
        }

        /// The raw number (NONE prints as `u32::MAX`), as messages printed it
        /// when page numbers were plain integers.
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        /// The page `pages` further on.
        impl Add<u32> for $name {
            type Output = Self;

            #[inline(always)]
            fn add(self, pages: u32) -> Self {
                debug_assert!(!self.is_none(), "NONE has no pages after it");
                Self::new(self.0 + pages)
            }
        }
    };
}

/// A logical page number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Lpn(u32);

impl Lpn {
    /// No LPN: the OOB of a page not programmed, the end of a reverse-map or
    /// LRU list.
    pub const NONE: Self = Self(u32::MAX);
}

page_number!(Lpn);

/// A physical page number: `block * pages_per_block + offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Ppn(u32);

impl Ppn {
    /// No page: an unmapped LPN, an empty index slot.
    pub const NONE: Self = Self(u32::MAX);

    /// Page `offset` of `block`.
    #[inline(always)]
    pub fn of(block: u32, offset: u32, pages_per_block: u32) -> Self {
        debug_assert!(
            offset < pages_per_block,
            "offset {offset} beyond a block of {pages_per_block} pages"
        );
        Self::new(block * pages_per_block + offset)
    }

    /// The page's block, by division (`Geometry::block_of` multiplies by a reciprocal instead).
    #[inline]
    pub fn block(self, pages_per_block: u32) -> u32 {
        debug_assert!(!self.is_none(), "NONE is in no block");
        self.0 / pages_per_block
    }

    /// The page's place in its block.
    #[inline]
    pub fn offset(self, pages_per_block: u32) -> u32 {
        debug_assert!(!self.is_none(), "NONE is in no block");
        self.0 % pages_per_block
    }
}

page_number!(Ppn);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_block_and_offset() {
        let ppn = Ppn::of(3, 5, 8);
        assert_eq!(ppn.get(), 29);
        assert_eq!((ppn.block(8), ppn.offset(8)), (3, 5));
        assert_eq!(ppn + 2, Ppn::new(31));
    }

    #[test]
    fn the_maps_keep_4_bytes_per_entry() {
        assert_eq!(std::mem::size_of::<Lpn>(), 4);
        assert_eq!(std::mem::size_of::<Ppn>(), 4);
        assert!(Lpn::NONE.is_none() && Ppn::NONE.is_none());
        assert_eq!(Ppn::NONE.to_string(), u32::MAX.to_string());
    }
}
